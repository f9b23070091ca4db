"""Classes rumoca 0.10 reads wrongly, given to it in an equivalent form it reads right.

Two forms of library classes that rumoca 0.10 misreads, each rewritten by a pure function of
a source text into edits of that text (:class:`Edit`):

- A class that extends a class declared inside itself (MSL's ``MassWithStopAndFriction``
  extends its own ``encapsulated partial model PartialFrictionWithStop``): rumoca looks the
  nested class's names up in the enclosing class and refuses them ("reference to non-constant
  variable ... from a lexically nested class"). An encapsulated class sees nothing of the
  classes around it (Modelica Language Specification 3.6, Sec. 5.3.1), so it means the same
  after the enclosing class's end, under a name of its own (:func:`hoisted_classes`).
- Functions of one short name declared in two classes (MSL's ``Move.position`` and
  ``Move_w.position``): rumoca keeps one function per short name, so the calls of both reach
  one definition. Each such function declared in a class that is no package is renamed with
  its class's name, with the references to it inside its class and the qualified ones
  (:func:`renamed_functions`).

Every edit keeps the user's positions: text kept from the user's file, moved or not, carries
the place it came from (:attr:`Edit.origin`), and :data:`Renames` lead the new names back to
the user's.
"""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.compiler.source_rewrites import Edit
from orchestrator.compiler.tokens import tokens

CLASS_KINDS = {"model", "block", "class", "record", "connector", "package", "function", "type"}
PREFIXES = {
    "encapsulated", "partial", "final", "replaceable", "redeclare", "inner", "outer", "pure",
    "impure", "operator", "expandable",
}  # fmt: skip
BLOCK_ENDS = {"if", "for", "while", "when"}
# functions the language calls by their names (external objects, overdetermined connectors)
# and those a redeclaration replaces keep their names
SPECIAL_FUNCTIONS = {"constructor", "destructor", "equalityConstraint"}
KEPT_PREFIXES = {"replaceable", "redeclare", "partial"}

Renames = dict[str, str]  # a name in the rewritten text -> the user's name of that class


@dataclass
class SourceClass:
    """A long class definition in a source text: kind, name, the position of its first prefix
    (``encapsulated``, ``partial``, ...) or kind keyword, of its name, of the name after its
    ``end`` and after that ``end``'s ``;``, its prefixes, the class it is declared in and the
    classes declared directly in it."""

    kind: str
    name: str
    start: int
    name_at: int
    end_name_at: int = -1
    stop: int = -1
    prefixes: frozenset[str] = frozenset()
    parent: SourceClass | None = None
    nested: list[SourceClass] | None = None


def source_classes(text: str) -> list[SourceClass]:
    """The long class definitions of ``text``, outermost first, each listing those declared
    directly in it; a short definition (``type T = Real``) and ``model extends`` are left out."""
    listed = list(tokens(text))
    found: list[SourceClass] = []
    open_: list[SourceClass] = []
    for k, (position, token) in enumerate(listed):
        before = listed[k - 1][1] if k else ";"
        after = [t for _, t in listed[k + 1 : k + 3]]
        if token in CLASS_KINDS and before not in {".", "(", ","} and len(after) == 2:
            if after[0] == "extends" or after[1] == "=" or not after[0].isidentifier():
                if after[0] == "extends":
                    open_.append(SourceClass(token, "", position, -1))  # ended by its own end
                continue
            first = k
            while first and listed[first - 1][1] in PREFIXES:
                first -= 1
            cls = SourceClass(
                token, after[0], listed[first][0], listed[k + 1][0],
                prefixes=frozenset(t for _, t in listed[first:k]),
                parent=open_[-1] if open_ else None, nested=[],
            )  # fmt: skip
            if cls.parent is not None and cls.parent.nested is not None:
                cls.parent.nested.append(cls)
            found.append(cls)
            open_.append(cls)
        elif token == "end" and after[:1] and after[0].isidentifier() and open_:
            if after[0] in BLOCK_ENDS:
                continue
            cls = open_.pop()
            cls.end_name_at = listed[k + 1][0]
            ends = [p for p, t in listed[k + 2 : k + 3] if t == ";"]
            cls.stop = ends[0] + 1 if ends else listed[k + 1][0] + len(after[0])
    return [cls for cls in found if cls.stop >= 0]


def _own_tokens(cls: SourceClass, listed: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The tokens of ``cls`` outside the classes declared in it."""
    inside = [(c.start, c.stop) for c in cls.nested or []]
    return [
        (p, t)
        for p, t in listed
        if cls.start <= p < cls.stop and not any(a <= p < b for a, b in inside)
    ]


def _free_name(wanted: str, taken: set[str]) -> str:
    """``wanted``, or with as many trailing underscores as make it a name not in ``taken``."""
    while wanted in taken:
        wanted += "_"
    return wanted


def _moved(text: str, cls: SourceClass, name: str) -> list[Edit]:
    """The text of ``cls`` as pieces to insert elsewhere, its name and end name given as
    ``name``: kept pieces carry their origin."""
    pieces = [
        (cls.start, cls.name_at),
        (cls.name_at + len(cls.name), cls.end_name_at),
        (cls.end_name_at + len(cls.name), cls.stop),
    ]
    edits = []
    for k, (a, b) in enumerate(pieces):
        if k:
            edits.append(Edit(0, 0, name))
        edits.append(Edit(0, 0, text[a:b], a))
    return edits


def hoisted_classes(text: str) -> tuple[list[Edit], Renames]:
    """Edits of ``text`` that move each encapsulated class declared in a class extending it
    (``extends N`` of a class ``N`` declared in the same class) to after the enclosing class's
    end, named ``<Enclosing>_<N>``, the extends clause naming it so; and the new names with the
    user's (``Enclosing.N``). A class that is not encapsulated would see other classes from
    its new place and is left where it is (rumoca's refusal stands), as is one holding a
    function or an algorithm section, which the other rewriters edit in place."""
    listed = list(tokens(text))
    taken = {t for _, t in listed}
    within = _within(listed)
    edits: list[Edit] = []
    renames: Renames = {}
    for cls in source_classes(text):
        own = _own_tokens(cls, listed)
        for nested in cls.nested or []:
            words = {t for p, t in listed if nested.start <= p < nested.stop}
            if "encapsulated" not in nested.prefixes or words & {"function", "algorithm"}:
                continue
            extends = [
                own[k + 1][0]
                for k in range(len(own) - 1)
                if own[k][1] == "extends" and own[k + 1][1] == nested.name
            ]
            if not extends:
                continue
            name = _free_name(f"{cls.name}_{nested.name}", taken)
            taken.add(name)
            renames[name] = ".".join([*within, *_path(cls), nested.name])
            edits += [Edit(p, p + len(nested.name), name) for p in extends]
            edits.append(Edit(nested.start, nested.stop, ""))
            moved = _moved(text, nested, name)
            edits.append(Edit(cls.stop, cls.stop, "\n"))
            edits += [Edit(cls.stop, cls.stop, e.text, e.origin) for e in moved]
    return edits, renames


def _renamable(cls: SourceClass) -> bool:
    """Whether ``cls`` is a function of a class that is no package, which a redeclaration
    does not replace and the language does not call by its name."""
    return (
        cls.kind == "function"
        and cls.parent is not None
        and cls.parent.kind != "package"
        and cls.name not in SPECIAL_FUNCTIONS
        and not KEPT_PREFIXES & cls.prefixes
    )


def renamed_functions(text: str) -> tuple[list[Edit], Renames]:
    """Edits of ``text`` that give each function declared in a class ``C`` that is no package
    a name of its own, ``<name>_<C's full name with _ for .>``
    (``within`` and the classes around ``C`` in ``text``): its declaration and end, every reference
    by its short name in ``C`` outside classes declaring a function of that name themselves,
    and the references ``C.<name>`` anywhere in ``text``; and the new names with the user's
    (``C.<name>``). A class where the name also names something else (a component, an input)
    keeps its function's name (rumoca's refusal stands)."""
    listed = list(tokens(text))
    taken = {t for _, t in listed}
    within = _within(listed)
    edits: list[Edit] = []
    renames: Renames = {}
    edited: set[int] = set()  # qualified references renamed
    for cls in source_classes(text):
        if cls.kind == "package":
            continue
        functions = [f for f in cls.nested or [] if _renamable(f)]
        for function in functions:
            inside = [
                (c.start, c.stop)
                for c in source_classes(text)
                if c is not function
                and cls.start < c.start < cls.stop
                and any(f.kind == "function" and f.name == function.name for f in c.nested or [])
            ]
            references = []
            for k, (p, t) in enumerate(listed):
                if t != function.name or not cls.start <= p < cls.stop:
                    continue
                if any(a <= p < b for a, b in inside):
                    continue
                before = listed[k - 1][1] if k else ";"
                declared = p in (function.name_at, function.end_name_at)
                if not declared and (before == "." or before.isidentifier() and before not in {
                    "and", "or", "not", "then", "else", "in", "function"}):  # fmt: skip
                    references = None  # the name declares something else here
                    break
                references.append(p)
            if references is None:
                continue
            name = _free_name("_".join([function.name, *within, *_path(cls)]), taken)
            taken.add(name)
            renames[name] = ".".join([*within, *_path(cls), function.name])
            edits += [Edit(p, p + len(function.name), name) for p in references]
            qualified = f"{cls.name}.{function.name}"
            for p, t in listed:
                if (t == qualified or t.endswith("." + qualified)) and p not in edited:
                    edited.add(p)
                    at = p + len(t) - len(function.name)
                    edits.append(Edit(at, at + len(function.name), name))
    return edits, renames


def _within(listed: list[tuple[int, str]]) -> list[str]:
    """The names of the package a file's ``within`` clause names (none without one)."""
    if len(listed) > 2 and listed[0][1] == "within" and listed[1][1] != ";":
        return listed[1][1].split(".")
    return []


def _path(cls: SourceClass) -> list[str]:
    """The names of ``cls`` and the classes around it in its text, outermost first."""
    return [*_path(cls.parent), cls.name] if cls.parent is not None else [cls.name]


def hoisted(text: str) -> list[Edit]:
    """The edits of :func:`hoisted_classes` (a source rewriter)."""
    return hoisted_classes(text)[0] if "encapsulated" in text else []


def renamed(text: str) -> list[Edit]:
    """The edits of :func:`renamed_functions` (a source rewriter)."""
    return renamed_functions(text)[0] if "function" in text else []


def user_names(texts: list[str]) -> Renames:
    """The user's names of the classes :func:`hoisted` and :func:`renamed` name anew in the
    user's ``texts``."""
    names: Renames = {}
    for text in texts:
        names |= hoisted_classes(text)[1] | renamed_functions(text)[1]
    return names
