"""Modifications of redeclared short classes that rumoca 0.10 drops, found in the sources.

A short class redeclaration with a class modification, ``Damper damper(redeclare model Law =
QuadraticLaw(k = 0.5))`` or ``extends G(redeclare record Body = Rec(m = 3))``, gives the
redeclared class's elements those values (Modelica Language Specification 3.6, Sec. 7.3).
rumoca 0.10 flattens such a redeclaration with the class's own defaults instead (``k = 1``), a
model that would build and run silently wrong. The redeclaration to a class declared with the
modification, ``model HalfQuadratic = QuadraticLaw(k = 0.5)``, keeps it, as does a
modification of the component, ``damper(redeclare model Law = QuadraticLaw, law(k = 0.5))``.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from orchestrator.compiler.tokens import tokens

KINDS = {"model", "block", "record", "class", "connector"}
# a quick look for candidates before the tokens decide (comments and strings may match)
CANDIDATE = re.compile(
    r"\bredeclare\s+(?:(?:each|final|replaceable)\s+)*(?:model|block|record|class|connector)"
    r"\s+\w+\s*=\s*[\w.]+\s*\("
)
PREFIXES = {"each", "final", "replaceable"}


@dataclass(frozen=True)
class Redeclaration:
    """``redeclare model Law = QuadraticLaw(k = 0.5)``: where it is and what it modifies."""

    source: int  # rumoca's source id of the file
    start: int  # offset of ``redeclare``
    end: int  # offset just past the modification's closing parenthesis
    redeclared: str  # last name of the class it redeclares to (QuadraticLaw)
    modified: frozenset[str]  # names the modification gives values (k)
    component: str  # the component it modifies (damper), "" in an extends clause


def redeclarations(source: int, text: str) -> list[Redeclaration]:
    """The short class redeclarations with a class modification in one source text."""
    if not CANDIDATE.search(text):
        return []
    found, listed = [], [(p, t) for p, t in tokens(text) if not t.startswith('"')]
    for k, (start, token) in enumerate(listed):
        if token != "redeclare":
            continue
        j = k + 1
        while j < len(listed) and listed[j][1] in PREFIXES:
            j += 1
        window = [t for _, t in listed[j : j + 5]]
        if len(window) < 5 or window[0] not in KINDS or window[2] != "=" or window[4] != "(":
            continue
        component = _modified_component([t for _, t in listed[:k]])
        names, _, end = modified_names(listed, j + 4, PREFIXES)
        if names and end is not None:
            redeclared = window[3].split(".")[-1]
            found.append(Redeclaration(source, start, end, redeclared, frozenset(names), component))
    return found


def modified_names(
    listed: list[tuple[int, str]], k: int, prefixes: set[str]
) -> tuple[set[str], set[str], int | None]:
    """Of the parenthesized modification whose opening bracket is token ``k`` of ``listed``
    ((offset, token) pairs): the names it gives values (first parts of dotted names, tokens
    in ``prefixes`` skipped), the packages it redeclares (``redeclare package Medium = ..``)
    and the offset just past its closing bracket (None where it is not closed)."""
    names, redeclared, depth, expect = set(), set(), 0, True
    for j in range(k, len(listed)):
        position, token = listed[j]
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
            if depth == 0:
                return names, redeclared, position + 1
        elif depth == 1 and token == ",":
            expect = True
        elif depth == 1 and expect and token not in prefixes:
            names.add(token.split(".")[0])
            expect = False
            if listed[j - 1][1] == "package" and listed[j - 2][1] == "redeclare":
                redeclared.add(token)
    return names, redeclared, None


def _modified_component(before: list[str]) -> str:
    """The component whose modification the tokens ``before`` a ``redeclare`` are inside
    (``Damper damper(`` gives damper), "" for an ``extends`` clause."""
    depth = 0
    for k in range(len(before) - 1, 0, -1):
        if before[k] in ")]}":
            depth += 1
        elif before[k] in "([{":
            if depth == 0:
                head = k - 1
                if before[head] == "]":  # Damper damper[n](...
                    head = len(before) - 1 - before[::-1].index("[", len(before) - 1 - head) - 1
                return "" if head > 0 and before[head - 1] == "extends" else before[head]
            depth -= 1
    return ""


# the head of a definition, its name looked at but not consumed (a name may be a kind's word)
HEAD = re.compile(r"\b(?:model|block|record|class|connector)\s+(?=(\w+)\b)")
ENDING = re.compile(r"\bend\s+(\w+)\s*;")
# the source texts a build reads (the MSL's 2600 files), each indexed once
TEXTS = 4096


@functools.lru_cache(maxsize=TEXTS)
def _heads(text: str) -> dict[str, list[tuple[int, int]]]:
    """(start, end) of each definition's head ``<kind> name`` in ``text``, by name."""
    heads: dict[str, list[tuple[int, int]]] = {}
    for found in HEAD.finditer(text):
        name = found.group(1)
        heads.setdefault(name, []).append((found.start(), found.end() + len(name)))
    return heads


@functools.lru_cache(maxsize=TEXTS)
def _endings(text: str) -> dict[str, list[tuple[int, int]]]:
    """(start, end) of each ``end name;`` in ``text``, by name, in order. Found once per text:
    searched for each definition, from its head on, the text was read again for every name
    (a word after ``model`` in a documentation string whose end never comes read the rest of
    the file), 145 000 searches and 4 minutes of a build of MSL's HeatingMOSInverter."""
    endings: dict[str, list[tuple[int, int]]] = {}
    for found in ENDING.finditer(text):
        endings.setdefault(found.group(1), []).append(found.span())
    return endings


def end_of(text: str, name: str, after: int) -> int | None:
    """The offset just past the first ``end name;`` of ``text`` that starts at ``after`` or
    later, None where there is none."""
    spans = _endings(text).get(name, [])
    k = bisect.bisect_left(spans, (after, -1))
    return spans[k][1] if k < len(spans) else None


def _class_regions(text: str, name: str) -> list[tuple[int, int]]:
    """Offsets of the definitions ``<kind> name ... end name;`` in ``text``."""
    regions = []
    for start, head_end in _heads(text).get(name, []):
        end = end_of(text, name, head_end)
        if end is not None:
            regions.append((start, end))
    return regions


def _span(expression: object) -> dict | None:
    """The source span of a rumoca expression (its node's own span)."""
    if isinstance(expression, dict) and len(expression) == 1:
        node = next(iter(expression.values()))
        if isinstance(node, dict):
            return node.get("span")
    return None


def class_closure(
    names: list[str], sources: dict[int, tuple[str, str]]
) -> list[tuple[int, int, int]]:
    """(source, start, end) of the definitions of the classes ``names`` (last names) and of
    the classes they extend, by name."""
    regions, seen = [], set()
    while names:
        name = names.pop()
        if name in seen:
            continue
        seen.add(name)
        for source, (_, text) in sources.items():
            for a, b in _class_regions(text, name):
                regions.append((source, a, b))
                names += [e.split(".")[-1] for e in re.findall(r"\bextends\s+([\w.]+)", text[a:b])]
    return regions


def inside(source: int, start: int, regions: list[tuple[int, int, int]]) -> bool:
    return any(source == s and a <= start < b for s, a, b in regions)


def dropped_modification(
    model: str, flat: dict, sources: dict[int, tuple[str, str]]
) -> Redeclaration | None:
    """The first short class redeclaration with a modification that the flat model of
    ``model`` does not follow: one in the model, a class it extends or a class whose
    equations or variables it has, with a variable of a modified name under the component
    it modifies, declared in the redeclared class (or a class it extends), whose value does
    not come from the modification; None when there is none."""
    found = [r for source, (_, text) in sources.items() for r in redeclarations(source, text)]
    if not found:
        return None
    variables = flat["variables"].values()
    used = class_closure([model.split(".")[-1]], sources)
    spans = [v.get("source_span") or {} for v in variables]
    spans += [e.get("span") or {} for e in flat.get("equations", [])]
    for redeclaration in found:
        where = (redeclaration.source, redeclaration.start)
        instantiated = inside(*where, used)
        if not instantiated:  # the class around it, found once for all spans
            enclosing = enclosing_class(where, sources)
            instantiated = any(
                "source" in span and inside(int(span["source"]), int(span["start"]), enclosing)
                for span in spans
            )
        if not instantiated:
            continue
        declared = class_closure([redeclaration.redeclared], sources)
        for variable in variables:
            parts = re.sub(r"\[[^\]]*\]", "", variable["name"]).split(".")
            span = variable.get("source_span") or {}
            if parts[-1] not in redeclaration.modified or "source" not in span:
                continue
            if redeclaration.component and redeclaration.component not in parts[:-1]:
                continue
            if not inside(int(span["source"]), int(span["start"]), declared):
                continue
            binding = _span(variable.get("binding")) or {}
            from_it = (
                int(binding.get("source", -1)) == redeclaration.source
                and redeclaration.start <= int(binding.get("start", -1)) < redeclaration.end
            )
            if not from_it:
                return redeclaration
    return None


def enclosing_class(
    where: tuple[int, int], sources: dict[int, tuple[str, str]]
) -> list[tuple[int, int, int]]:
    """The innermost class definition around offset ``where[1]`` of source ``where[0]``."""
    source, offset = where
    text = sources[source][1]
    best: tuple[int, int, int] | None = None
    for name in _heads(text):
        for a, b in _class_regions(text, name):
            if a <= offset < b and (best is None or a > best[1]):
                best = (source, a, b)
    return [best] if best else []
