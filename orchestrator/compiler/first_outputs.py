"""Calls of functions with several outputs in expressions, given to rumoca 0.10 as calls of
functions of one output.

A call of a function with several outputs in an expression (a binding, an equation's side,
an argument) is its first output (Modelica Language Specification 3.6, Sec. 12.4.3). rumoca
0.10 evaluates such a call in a parameter's binding to an array of all its outputs, and refuses
a binding it evaluates over that parameter ("type mismatch: expected comparable, got Array";
MSL's ``LossyGear``, whose ``tau_bf_a_0`` compares ``eta_mf1_0 =
Vectors.interpolate(...)``, a function of the outputs ``yi`` and ``iNew``). A source rewriter
(:mod:`orchestrator.compiler.source_rewrites`) gives rumoca, beside each function ``f`` of
several outputs, a function ``f_first`` with ``f``'s inputs (their declarations as written,
defaults included) and ``f``'s first output, whose algorithm is the one statement ``(y1, y2,
...) := f(u1, u2, ...)``, the other outputs protected; and calls it where ``f`` is called in
an expression. Its output is the first output of ``f`` called with the same inputs: the
wrapper is ``f``'s first output, exactly.

A call is rewritten where its name, looked up as Modelica does from the call's class out
through the classes around it and their imports (Sec. 5.3), names a function of several outputs
declared with those outputs in its own text (no ``extends``; not partial, replaceable or
redeclared). A call that names another class than rumoca's lookup finds reaches no
``f_first`` there and is refused in one line, never computed by another function. The right
side of a tuple equation or assignment, ``(a, b) = f(u)``, keeps its call.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from orchestrator.compiler.class_rewrites import (
    CLASS_KINDS,
    KEPT_PREFIXES,
    SourceClass,
    _path,
    _within,
    source_classes,
)
from orchestrator.compiler.source_rewrites import Edit, LibraryRewriter, SourceRewriter
from orchestrator.compiler.tokens import tokens

Token = tuple[int, str]
DECLARATION_PREFIXES = {
    "input", "output", "final", "parameter", "constant", "discrete", "flow", "stream",
    "inner", "outer", "replaceable", "redeclare",
}  # fmt: skip
SECTIONS = {"public", "protected"}
BODY = {"algorithm", "equation", "external", "annotation", "end"}
# tokens before a call's name where it is no call in an expression
NOT_CALLED = {"function", "end", "extends", "import", "."}
STATEMENT_STARTS = {";", "equation", "algorithm", "then", "else", "loop"}


@dataclass
class Declared:
    """One component declared in a function: its name, whether it is an input or an output,
    the text of its type with subscripts, of its name with subscripts and modification, and
    of its whole declaration (the ``;`` included) with that declaration's position."""

    name: str
    role: str
    type_text: str
    component_text: str
    statement_text: str
    statement_at: int


@dataclass
class SeveralOutputs:
    """A function of several outputs declared in a source text: its full name, the name of
    its wrapper, its declaration in the text, its imports (text and position), its inputs and
    outputs in order, and for each class it extends the full names that class's name may
    stand for, in the order of their lookup."""

    full_name: str
    wrapper: str
    declaration: SourceClass
    imports: list[tuple[str, int]]
    components: list[Declared]
    bases: list[list[str]]


@dataclass
class _Source:
    """A source text's tokens (``listed``, their positions ``starts``), the names of its
    ``within`` clause, its long class definitions and their import clauses (by the position
    of their class: short or alias name to full name, and the packages whose names they
    import all of, ``import A.B.*``)."""

    text: str
    listed: list[Token]
    starts: list[int]
    within: list[str]
    classes: list[SourceClass]
    imports: dict[int, tuple[dict[str, str], list[str]]] = field(default_factory=dict)

    @classmethod
    def of(cls, text: str) -> _Source:
        listed = list(tokens(text))
        source = cls(text, listed, [p for p, _ in listed], _within(listed), source_classes(text))
        for k, (position, token) in enumerate(listed):
            if token != "import":  # a keyword: an import clause
                continue
            scope = source.innermost(position)
            names, every = source.imports.setdefault(scope.start if scope else -1, ({}, []))
            words = [t for _, t in listed[k + 1 : k + 5]]
            if len(words) >= 3 and words[1] == "=":
                names[words[0]] = words[2]
            elif len(words) >= 2 and words[0].endswith(".") and words[1] == "*":
                every.append(words[0].rstrip("."))
            elif words:
                names[words[0].rsplit(".", 1)[-1]] = words[0]
        return source

    def full_name(self, cls: SourceClass) -> str:
        return ".".join([*self.within, *_path(cls)])

    def own(self, cls: SourceClass) -> list[Token]:
        """The tokens of ``cls`` from its name on, outside the classes declared in it."""
        inside = [(c.start, c.stop) for c in cls.nested or []]
        first, last = bisect_left(self.starts, cls.name_at), bisect_left(self.starts, cls.stop)
        return [
            (p, t) for p, t in self.listed[first:last] if not any(a <= p < b for a, b in inside)
        ]

    def around(self, position: int) -> list[SourceClass]:
        """The classes around ``position``, the innermost first."""
        scopes = [c for c in self.classes if c.start <= position < c.stop]
        return sorted(scopes, key=lambda c: -c.start)

    def innermost(self, position: int) -> SourceClass | None:
        return next(iter(self.around(position)), None)

    def candidates(self, called: str, position: int) -> list[str]:
        """The full names ``called`` may name at ``position``, in the order Modelica looks
        them up (Sec. 5.3): each class around it from the innermost, its own names and its
        imports, then the packages of the ``within`` clause and the top level."""
        first, _, rest = called.partition(".")
        found = []
        for cls in self.around(position):
            found.append(f"{self.full_name(cls)}.{called}")
            names, every = self.imports.get(cls.start, ({}, []))
            if first in names:
                found.append(names[first] + ("." + rest if rest else ""))
            found += [f"{package}.{called}" for package in every]
        return found + [
            ".".join([*self.within[:k], called]) for k in range(len(self.within), -1, -1)
        ]


def _statements(own: list[Token]) -> list[list[Token]]:
    """A class's own tokens after its name and description, split at each ``;`` at bracket
    depth 0 up to its algorithm, equations, external clause, annotation or end; section
    keywords (``public``, ``protected``) left out."""
    k = 1
    while k < len(own) and (own[k][1].startswith('"') or own[k][1] == "+"):
        k += 1
    found, current, depth = [], [], 0
    for position, token in own[k:]:
        if depth == 0 and not current and token in BODY:
            break
        if depth == 0 and not current and token in SECTIONS:
            continue
        depth += (token in "([{") - (token in ")]}")
        if depth == 0 and token == ";":
            found.append(current + [(position, token)])
            current = []
        else:
            current.append((position, token))
    return found


def _declared(text: str, statement: list[Token]) -> list[Declared] | None:
    """The inputs and outputs a declaration statement declares (none for other components),
    or None where the statement is no component declaration."""
    words = [t for _, t in statement]
    k = 0
    while k < len(words) and words[k] in DECLARATION_PREFIXES:
        k += 1
    roles = {"input", "output"} & set(words[:k])
    if k + 1 >= len(words) or not re.fullmatch(r"[\w.]+", words[k]):
        return None
    type_start = statement[k][0]
    k += 1
    if words[k] == "[":
        depth = 0
        while k < len(words):
            depth += (words[k] in "([{") - (words[k] in ")]}")
            k += 1
            if depth == 0:
                break
    if k >= len(words) or not words[k].isidentifier():
        return None
    type_text = text[type_start : statement[k][0]]
    pieces: list[list[Token]] = [[]]
    depth = 0
    for token in statement[k:-1]:
        if depth == 0 and token[1] == ",":
            pieces.append([])
            continue
        depth += (token[1] in "([{") - (token[1] in ")]}")
        pieces[-1].append(token)
    found = []
    for piece in pieces:
        stop, depth = len(piece), 0
        for j, (_, token) in enumerate(piece):
            if depth == 0 and (token in ("=", "if", "annotation") or token.startswith('"')):
                stop = j
                break
            depth += (token in "([{") - (token in ")]}")
        last = piece[stop - 1]
        component = text[piece[0][0] : last[0] + len(last[1])]
        statement_text = text[statement[0][0] : statement[-1][0] + 1]
        role = next(iter(roles), "")
        found.append(
            Declared(piece[0][1], role, type_text, component, statement_text, statement[0][0])
        )
    return found


def _several_outputs(text: str) -> list[SeveralOutputs]:
    """The functions of ``text`` with several outputs that a wrapper can stand beside."""
    if not re.search(r"\bfunction\b", text) or len(re.findall(r"\boutput\b", text)) < 2:
        return []
    source = _Source.of(text)
    taken = {t for _, t in source.listed}
    found = []
    for cls in source.classes:
        if cls.kind != "function" or KEPT_PREFIXES & cls.prefixes:
            continue
        imports, components, bases = [], [], []
        for statement in _statements(source.own(cls)):
            words = [t for _, t in statement]
            if words[0] == "import":
                imports.append((text[statement[0][0] : statement[-1][0] + 1], statement[0][0]))
                continue
            if words[0] == "extends" and len(words) == 3:
                # a base class's name is looked up in the class around the extends clause
                bases.append(source.candidates(words[1], cls.start - 1))
                continue
            declared = _declared(text, statement)
            if declared is None:
                break
            components += [d for d in declared if d.role]
        else:
            if sum(d.role == "output" for d in components) < 2:
                continue
            wrapper = f"{cls.name}_first"
            while wrapper in taken:
                wrapper += "_"
            taken.add(wrapper)
            found.append(
                SeveralOutputs(source.full_name(cls), wrapper, cls, imports, components, bases)
            )
    return found


def _empty_classes(texts: list[str], names: set[str]) -> dict[str, bool]:
    """The classes of ``texts`` whose short name is among ``names``, by full name: whether
    each declares nothing (no component, extends or import clause; an icon)."""
    if not names:
        return {}
    kinds = "|".join(sorted(CLASS_KINDS))
    pattern = re.compile(r"\b(?:{})\s+({})\b".format(kinds, "|".join(map(re.escape, names))))
    empty = {}
    for text in texts:
        if not pattern.search(text):
            continue
        source = _Source.of(text)
        for cls in source.classes:
            if cls.name in names:
                empty[source.full_name(cls)] = not _statements(source.own(cls))
    return empty


def _wrapper(function: SeveralOutputs) -> list[Edit]:
    """The insertions, after ``function``'s end, of its wrapper: kept declarations carry
    where they stand in the user's text."""
    at = function.declaration.stop
    inputs = [d for d in function.components if d.role == "input"]
    outputs = [d for d in function.components if d.role == "output"]
    impure = "impure " if "impure" in function.declaration.prefixes else ""
    edits = [Edit(at, at, f"\n  {impure}function {function.wrapper}\n")]
    statements = {d.statement_at: d.statement_text for d in inputs}
    kept = [*function.imports, *((text, position) for position, text in statements.items())]
    for text, position in kept:
        edits += [Edit(at, at, "    "), Edit(at, at, text, position), Edit(at, at, "\n")]
    first, *others = outputs
    lines = [f"    output {first.type_text}{first.component_text};", "  protected"]
    lines += [f"    {d.type_text}{d.component_text};" for d in others]
    targets = ", ".join(d.name for d in outputs)
    arguments = ", ".join(d.name for d in inputs)
    short = function.declaration.name
    lines += ["  algorithm", f"    ({targets}) := {short}({arguments});"]
    lines += [f"  end {function.wrapper};"]
    return [*edits, Edit(at, at, "\n".join(lines))]


def _may_call(text: str, parents: dict[str, set[str]]) -> bool:
    """Whether a call in ``text`` may name a function of ``parents`` (short name to the
    short names of the classes declaring one of that name): a lookup
    (:meth:`_Source.candidates`) reaches a function only through a name of its class in the
    text (in the call, a ``within`` clause, a class's name or an import)."""
    called = set(re.findall(r"\b({})\s*\(".format("|".join(parents)), text))
    named = {parent for name in called for parent in parents[name]}
    return any(re.search(rf"\b{parent}\b", text) for parent in named)


def _calls(text: str, wrappers: dict[str, str], parents: dict[str, set[str]]) -> list[Edit]:
    """The edits of ``text`` that call each function of ``wrappers`` (full name to its
    wrapper's name) called in an expression by its wrapper (:func:`_may_call` first)."""
    if not _may_call(text, parents):
        return []
    short = set(parents)
    source = _Source.of(text)
    listed = source.listed
    edits = []
    for k, (position, token) in enumerate(listed[:-1]):
        name = token.rsplit(".", 1)[-1]
        if name not in short or listed[k + 1][1] != "(":
            continue
        before = [t for _, t in listed[max(k - 3, 0) : k]]
        if before[-1:] and before[-1] in NOT_CALLED or before[-3:-2] == ["function"]:
            continue
        if _in_tuple(listed, k):
            continue
        for full in source.candidates(token, position):
            if full in wrappers:
                at = position + len(token) - len(name)
                edits.append(Edit(at, at + len(name), wrappers[full]))
                break
    return edits


def _in_tuple(listed: list[Token], k: int) -> bool:
    """Whether the call at token ``k`` is the right side of a tuple equation or assignment
    (``(a, b) = f(u)``, ``(a, , c) := f(u)``)."""
    j = k - 1
    if j < 0 or listed[j][1] != "=":
        return False
    j -= 1 + (listed[j - 1][1] == ":")
    if j < 0 or listed[j][1] != ")":
        return False
    depth, comma = 0, False
    while j >= 0:
        token = listed[j][1]
        depth += (token in ")]}") - (token in "([{")
        comma = comma or (depth == 1 and token == ",")
        if depth == 0:
            break
        j -= 1
    return comma and (j == 0 or listed[j - 1][1] in STATEMENT_STARTS)


def _extends_nothing(base: list[str], empty: dict[str, bool]) -> bool:
    """Whether the first of the full names ``base`` may stand for that names a class of the
    library names one that declares nothing."""
    return next((empty[full] for full in base if full in empty), False)


def _prepare(texts: list[str]) -> SourceRewriter:
    """The rewriter of one file of a library of ``texts``: wrappers beside the functions of
    several outputs the file declares, and the calls of all of the library's such functions
    in its expressions by their wrappers."""
    declared = {text: _several_outputs(text) for text in texts}
    names = {
        full.rsplit(".", 1)[-1]
        for found in declared.values()
        for function in found
        for base in function.bases
        for full in base
    }
    empty = _empty_classes(texts, names)
    for text, found in declared.items():
        declared[text] = [f for f in found if all(_extends_nothing(b, empty) for b in f.bases)]
    wrappers = {f.full_name: f.wrapper for found in declared.values() for f in found}
    parents: dict[str, set[str]] = {}
    for full in wrappers:
        *path, name = full.split(".")
        parents.setdefault(name, set()).add(path[-1] if path else "")

    def rewrite(text: str) -> list[Edit]:
        if not wrappers:
            return []
        edits = _calls(text, wrappers, parents)
        for function in declared.get(text, []):
            edits += _wrapper(function)
        return edits

    return rewrite


first_outputs = LibraryRewriter(_prepare)
"""The source rewriter of calls of functions with several outputs in expressions."""
