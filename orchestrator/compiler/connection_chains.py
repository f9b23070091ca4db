"""Connection sets rumoca 0.10 cannot orient: their place, and the equations that replace them.

rumoca 0.10 writes the equations of a connection set as a chain through its members in the
order the connect statements first name them (``connect(p.y, a.u[2]); connect(p.y, b.u[2])``
gives ``p.y = a.u[2]`` and ``a.u[2] = b.u[2]``), and gives each link of Boolean or Integer
signals a direction by the distance of the two arrays from the signal's source. Where ``a.u``
and ``b.u`` are both fed directly at another element, the link between them has none, and
rumoca refuses the model ("element assignments must cover a discrete coordinate exactly
once", no place given); so it does for a link into an element from a scalar input
(``connect(p.y, s.u); connect(p.y, a.u[2])`` chains ``s.u`` to ``a.u[2]``): rumoca directs a
link into an element only from the source. :func:`tied_connection` finds, in a source text,
the first connect statement that may make such a link: the one naming the later of two
members next to each other in their set's chain, that an element, the earlier an element of
another array or a member other than the first (the text does not tell the source).

The connect statements of a set of Boolean or Integer signals, neither flow nor stream, mean
that all its members are equal (Modelica Language Specification 3.6, Sec. 9.2), which the
equations ``member = source`` say for each member but the set's one source (an output of a
component, or an input of the class itself); rumoca 0.10 reads such an equation as assigning
its left side, so the star from the source has every link directed. Which member is the
source, and whether the set holds such signals, is not in the text of the class: a first
reading by rumoca of the model as a partial model, whose balance it does not check, with the
connect statements of the classes holding tied sets left out (:func:`unconnected`), gives
each connector's causality and type, and :class:`ConnectionEquations` writes the tied sets
whose members it finds so as equations in place of their connect statements; any other set
stays as written, and refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from orchestrator.compiler.source_rewrites import Edit, SourceRewriter
from orchestrator.compiler.tokens import tokens

CONNECT = re.compile(r"\bconnect\s*\(")
# keywords that open a class, ``end`` closing it by its name
CLASS_KEYWORDS = {"model", "block", "class", "connector", "package", "record", "function", "type"}


@dataclass(frozen=True)
class Connection:
    """One connect statement: from ``connect`` (``start``) to after its ``;`` (``end``)."""

    start: int
    end: int
    members: tuple[str, str]  # as written, white space removed: ``and1.u[3]``


@dataclass
class ConnectionSet:
    """The members of one connection set of a class, in the order its statements first name
    them, and those statements."""

    scope: int  # the position of its class's name
    members: list[str] = field(default_factory=list)
    statements: list[Connection] = field(default_factory=list)
    first_named: dict[str, Connection] = field(default_factory=dict)

    @property
    def tied(self) -> int | None:
        """The position of the first statement that makes a link of rumoca 0.10's chain of
        the set into an array's element from a member that may not be the source: an element
        of another array, or a member the set's statements do not name first (rumoca directs
        a link into an element only from the source, ``connect(p.y, s.u); connect(p.y,
        a.u[2])`` chains ``s.u`` to ``a.u[2]`` and is refused; which member is the source the
        text does not tell, so ``connect(a.u[2], p.y); connect(b.u[2], p.y)``, which rumoca
        orients, is found too); None where none is."""
        places = [
            self.first_named[after].start
            for before, after in zip(self.members, self.members[1:], strict=False)
            if _base(after) is not None
            and (before != self.members[0] or _base(before) not in (None, _base(after)))
        ]
        return min(places, default=None)


def _base(member: str) -> str | None:
    """The array a subscripted member names an element of (``a.u[2]``: ``a.u``), None for a
    member that is not one."""
    found = re.fullmatch(r"([\w.]+)\[[^\]]+\]", member)
    return found.group(1) if found else None


def _statement(text: str, start: int) -> Connection | None:
    """The connect statement whose ``connect`` is at ``start``: its two arguments and the end
    of its ``;`` (an annotation between them skipped); None where it is not one."""
    depth, pieces, current = 0, [], []
    stream = tokens(text, start + len("connect"))
    for _, token in stream:
        if token in ("(", "[", "{"):
            depth += 1
            if depth == 1:
                continue
        elif token in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                pieces.append("".join(current))
                break
        elif token == "," and depth == 1:
            pieces.append("".join(current))
            current = []
            continue
        current.append(token)
    if len(pieces) != 2:
        return None
    for position, token in stream:
        depth += token in ("(", "[", "{")
        depth -= token in (")", "]", "}")
        if token == ";" and depth == 0:
            return Connection(start, position + 1, (pieces[0], pieces[1]))
    return None


def _scoped_connections(text: str) -> Iterator[tuple[int, Connection]]:
    """Each connect statement of ``text`` with the position of its innermost enclosing
    class's name (-1 outside any class)."""
    scopes: list[tuple[str, int]] = []
    stream = list(tokens(text))
    for k, (position, token) in enumerate(stream):
        before = stream[k - 1][1] if k else ""
        after = [t for _, t in stream[k + 1 : k + 4]] + ["", "", ""]
        if token in CLASS_KEYWORDS and before != "end":
            named = 1 + (after[0] == "extends")
            if re.fullmatch(r"\w+", after[named - 1]) and after[named] != "=":
                scopes.append((after[named - 1], stream[k + named][0]))
        elif token == "end" and scopes and after[0] == scopes[-1][0]:
            scopes.pop()
        elif token == "connect" and after[0] == "(":
            connection = _statement(text, position)
            if connection is not None:
                yield (scopes[-1][1] if scopes else -1), connection


def connection_sets(text: str) -> list[ConnectionSet]:
    """The connection sets of each class of ``text`` (a set joins the members its class's
    connect statements link, directly or through others)."""
    parent: dict[tuple[int, str], tuple[int, str]] = {}
    statements: list[tuple[int, Connection]] = list(_scoped_connections(text))

    def root(member: tuple[int, str]) -> tuple[int, str]:
        while parent[member] != member:
            member = parent[member]
        return member

    for scope, connection in statements:
        ends = [(scope, member) for member in connection.members]
        for end in ends:
            parent.setdefault(end, end)
        first, second = map(root, ends)
        if first != second:
            parent[second] = first
    sets: dict[tuple[int, str], ConnectionSet] = {}
    for scope, connection in statements:
        found = sets.setdefault(root((scope, connection.members[0])), ConnectionSet(scope))
        found.statements.append(connection)
        for member in connection.members:
            if member not in found.first_named:
                found.first_named[member] = connection
                found.members.append(member)
    return list(sets.values())


def _tied_sets(text: str) -> list[ConnectionSet]:
    """The connection sets of ``text`` that rumoca 0.10 chains through two arrays' elements
    (none where no connect statement names a subscripted member: checked cheaply first)."""
    if not re.search(r"\bconnect\s*\([^;]*\]", text):
        return []
    return [found for found in connection_sets(text) if found.tied is not None]


def tied_connection(text: str, equations: ConnectionEquations | None = None) -> int | None:
    """The position in ``text`` of the first connect statement that links two elements of
    different connector arrays in rumoca 0.10's chain of their connection set, of a set that
    ``equations`` leaves as written; None where no statement does."""
    kept = [
        found
        for found in _tied_sets(text)
        if equations is None or (equations.instances(found) and equations.source(found) is None)
    ]
    return min((found.tied for found in kept), default=None)


def unconnected(model: str) -> SourceRewriter:
    """The rewriter of the first reading: the connect statements of the classes with tied
    sets left out (rumoca 0.10 refuses arrays of inputs fed at some elements only), and
    the class of ``model`` (its full name; every class of its last name) made partial, so
    that rumoca 0.10 reads it without checking its balance."""
    name = model.rsplit(".", 1)[-1]
    header = re.compile(rf"\b(model|block|class)(\s+{re.escape(name)}\b)")

    def rewrite(text: str) -> list[Edit]:
        tied = {found.scope for found in _tied_sets(text)}
        edits = [
            Edit(statement.start, statement.end, "")
            for found in (connection_sets(text) if tied else [])
            if found.scope in tied
            for statement in found.statements
        ]
        for match in header.finditer(text):
            if not re.search(
                r"\b(partial|end)\s*$", text[max(0, match.start() - 20) : match.start()]
            ):
                edits.append(Edit(match.start(), match.start(), "partial "))
        return edits

    return rewrite


def _plain(name: str) -> str:
    """A member or flat variable name without its subscripts (``a[2].u[3]``: ``a.u``)."""
    return re.sub(r"\[[^\]]*\]", "", name)


def _literal(member: str) -> bool:
    """Whether every subscript of a member is a number (``a.u[3]``, not ``a.u[i]`` of a
    for-equation, where one text names several members)."""
    return all(s.strip().isdigit() for s in re.findall(r"\[([^\]]*)\]", member))


@dataclass(frozen=True, eq=False)
class ConnectionEquations:
    """The rewriter giving rumoca 0.10 each tied set of Boolean or Integer signals as the
    equations ``member = source``, from ``variables``, the flat variables (rumoca's flat
    dictionary's) of the model read by :func:`unconnected`."""

    variables: dict[str, dict]

    def _role(self, name: str, inside: bool) -> str | None:
        """``source`` or ``sink`` of the flat variable ``name`` (a connector of the set's class
        itself where ``inside``) where it is a Boolean or Integer signal, neither flow nor
        stream; None for any other."""
        variable = self.variables[name]
        declared = variable.get("causality")
        kind = next(iter(declared)) if isinstance(declared, dict) else declared
        signal = (
            variable.get("is_discrete_type")
            and variable.get("is_primitive")
            and not variable.get("flow")
            and not variable.get("stream")
            and not variable.get("from_expandable_connector")
            and kind in ("Input", "Output")
        )
        return ("source" if (kind == "Input") == inside else "sink") if signal else None

    def instances(self, found: ConnectionSet) -> set[str]:
        """The prefixes (``both.``, the model itself ``""``) at which the flat variables
        name every member of a set: the instances of its class in the model."""
        prefixes: set[str] | None = None
        for member in map(_plain, found.members):
            named = {
                flat[: -len(member)]
                for flat in map(_plain, self.variables)
                if flat == member or flat.endswith("." + member)
            }
            prefixes = named if prefixes is None else prefixes & named
        return prefixes or set()

    def source(self, found: ConnectionSet) -> str | None:
        """The one source of a tied set of Boolean or Integer signals, by the variables of
        each instance of its class (the prefixes that name a variable for every member, the
        model itself the empty one): every instance must give every member the same role;
        None where that fails, a member is no such signal or has a subscript that is no
        number."""
        members = found.members
        if not all(map(_literal, members)):
            return None
        by_plain = {_plain(name): name for name in self.variables}
        roles = {
            (member, self._role(by_plain[prefix + _plain(member)], "." not in _plain(member)))
            for prefix in self.instances(found)
            for member in members
        }
        sources = [member for member, role in roles if role == "source"]
        if len(roles) != len(members) or any(role is None for _, role in roles):
            return None
        return sources[0] if len(sources) == 1 else None

    def __call__(self, text: str) -> list[Edit]:
        edits = []
        for found in _tied_sets(text):
            source = self.source(found)
            if source is None:
                continue
            for statement in found.statements:
                named = [
                    f"{member} = {source};"
                    for member in statement.members
                    if found.first_named[member] is statement and member != source
                ]
                edits.append(Edit(statement.start, statement.end, " ".join(named)))
        return edits
