"""Modifications of an element's attributes and value that rumoca 0.10 drops, found in the
sources.

A modification giving an element both attributes and a value, ``c(fixed = true) = 40``,
overrides the element's declaration ``parameter Real c(fixed = false) = 20`` (Modelica Language
Specification 3.6, Sec. 7.2). rumoca 0.10 drops such a modification whole, value and
attributes, where it is written in an ``extends`` clause (``extends Spring(c(fixed = true) =
40)``), nested in the modification of another component (``holder(spring(c(fixed = true) =
40))``) or reached by a dotted name (``holder(spring.c(fixed = true) = 40)``): the flat model
keeps the declaration's ``c(fixed = false) = 20``, a model that would build and run silently
wrong. The same modification of the component's own declaration (``Spring spring(c(fixed =
true) = 40)``), a value alone (``extends Spring(c = 40)``) and attributes alone (``extends
Spring(c(fixed = true))``) are kept.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from orchestrator.compiler.redeclarations import class_closure, enclosing_class, inside
from orchestrator.compiler.tokens import tokens

PREFIXES = {"each", "final"}
# Modelica's reserved words (Specification 3.6, Sec. 2.3.3): none names a type or a component
RESERVED_WORDS = (
    "algorithm and annotation block break class connect connector constant constrainedby der "
    "discrete each else elseif elsewhen encapsulated end enumeration equation expandable "
    "extends external false final flow for function if import impure in initial inner input "
    "loop model not operator or outer output package parameter partial protected public pure "
    "record redeclare replaceable return stream then true type when while within"
)
RESERVED = frozenset(RESERVED_WORDS.split())
NAME = re.compile(r"[A-Za-z_][\w.]*")
# the end of a modification ``name(...) =`` (and of many equations): where statements are read
CLOSING = re.compile(r"\)\s*=(?!=)")
Token = tuple[int, str]


@dataclass(frozen=True)
class OuterModification:
    """``c(fixed = true) = 40`` where rumoca 0.10 drops it: where it is and what it modifies."""

    source: int  # rumoca's source id of the file
    start: int  # offset of the modified name (c)
    path: tuple[str, ...]  # the modified element from the class it is written in (holder, c)
    value: tuple[int, int]  # offsets of the value expression (40)


def outer_modifications(source: int, text: str) -> list[OuterModification]:
    """The modifications of attributes and value that rumoca 0.10 drops in one source text:
    in ``extends`` clauses, nested in a component's modification, or of dotted names. Only
    the statements with a :data:`CLOSING` are read as tokens: a library path's files are
    many and long."""
    found: list[OuterModification] = []
    scanned = -1  # the end of the statement read last
    cursor = [0, 0]  # an offset and the count of quotes before it
    for closing in CLOSING.finditer(text):
        if closing.start() < scanned:
            continue
        listed = []
        for position, token in tokens(text, _statement_start(text, closing.start(), cursor)):
            listed.append((position, token))
            if token == ";" and position > closing.end():
                break
        scanned = listed[-1][0] if listed else len(text)
        k = 0
        while k < len(listed):
            opened = _declaration(listed, k) if listed[k][1] == "(" else None
            if opened is None:
                k += 1
            else:
                k = _arguments(listed, k, opened, 0, source, found)
    return found


def _statement_start(text: str, offset: int, cursor: list[int]) -> int:
    """The offset just past the last ``;`` before ``offset`` that ends a statement: one in
    no string (an even number of unescaped double quotes before it) and no line comment.
    ``cursor`` holds an offset and the count of quotes before it, moved to each ``;``
    looked at, so that a text is counted about once."""
    end = offset
    while True:
        end = text.rfind(";", 0, end)
        if end < 0:
            return 0
        known, count = cursor
        if end >= known:
            count += _quotes(text, known, end)
        else:
            count -= _quotes(text, end, known)
        cursor[:] = [end, count]
        line = text[text.rfind("\n", 0, end) + 1 : end]
        if "//" not in line and count % 2 == 0:
            return end + 1


def _quotes(text: str, start: int, end: int) -> int:
    """The number of double quotes in ``text[start:end]`` that are not escaped."""
    return text.count('"', start, end) - text.count('\\"', start, end)


def _declaration(listed: list[Token], k: int) -> tuple[str, ...] | None:
    """The component path a modification opening at ``listed[k]`` modifies: (name,) for a
    component declaration ``Type name(`` or ``Type name[n](``, () for ``extends Base(``;
    None for any other parenthesis (a call, an annotation)."""
    j = k - 1
    if j > 0 and listed[j][1] == "]":
        depth = 0
        while j > 0:
            depth += {"]": 1, "[": -1}.get(listed[j][1], 0)
            if depth == 0:
                break
            j -= 1
        j -= 1
    if j < 1 or not NAME.fullmatch(listed[j][1]) or listed[j][1] in RESERVED:
        return None
    before = listed[j - 1][1]
    if before == "extends":
        return ()
    if NAME.fullmatch(before) and before not in RESERVED:
        return (listed[j][1],)
    return None


def _arguments(
    listed: list[Token],
    k: int,
    path: tuple[str, ...],
    depth: int,
    source: int,
    found: list[OuterModification],
) -> int:
    """Read the modification arguments opening at ``listed[k]`` (``depth`` levels inside the
    component's own modification), adding the dropped ones to ``found``; the index past the
    closing parenthesis."""
    in_extends = not path
    k += 1
    while k < len(listed):
        while k < len(listed) and listed[k][1] in PREFIXES:
            k += 1
        if k >= len(listed) or listed[k][1] == ")":
            return k + 1
        name = listed[k][1]
        if NAME.fullmatch(name) and name not in RESERVED and listed[k + 1 : k + 2]:
            start, element = listed[k][0], (*path, *name.split("."))
            k += 1
            if listed[k][1] == "(":
                k = _arguments(listed, k, element, depth + 1, source, found)
                dropped = in_extends or depth >= 1 or "." in name
                if dropped and k < len(listed) and listed[k][1] == "=":
                    end = _argument_end(listed, k + 1)
                    if end < len(listed) and end > k + 1:
                        value = (listed[k + 1][0], listed[end][0])
                        found.append(OuterModification(source, start, element, value))
        k = _argument_end(listed, k)
        if k >= len(listed) or listed[k][1] == ")":
            return k + 1
        k += 1  # the comma
    return k


def _argument_end(listed: list[Token], k: int) -> int:
    """The index of the comma or closing parenthesis that ends the argument at ``listed[k]``."""
    depth = 0
    while k < len(listed):
        token = listed[k][1]
        if token in "([{" and len(token) == 1:
            depth += 1
        elif token in ")]}" and len(token) == 1:
            if depth == 0:
                return k
            depth -= 1
        elif token == "," and depth == 0:
            return k
        k += 1
    return k


@functools.lru_cache(maxsize=8192)
def _cached(source: int, text: str) -> tuple[OuterModification, ...]:
    """:func:`outer_modifications` of a source text, scanned once per process (a library
    path's files are read again for every model built); keyed by the text itself."""
    return tuple(outer_modifications(source, text))


def _spans(expression: object) -> list[dict]:
    """Every source span in a rumoca expression."""
    if isinstance(expression, dict):
        own = [expression["span"]] if isinstance(expression.get("span"), dict) else []
        return own + [s for value in expression.values() for s in _spans(value)]
    if isinstance(expression, list):
        return [s for value in expression for s in _spans(value)]
    return []


def dropped_outer_modification(
    model: str, flat: dict, sources: dict[int, tuple[str, str]]
) -> OuterModification | None:
    """The first modification of attributes and value that the flat model of ``model`` does
    not follow: one written in a class the model instantiates, whose element is a variable of
    the flat model with a value that does not come from the modification; None when there is
    none."""
    found = [m for source, (_, text) in sources.items() for m in _cached(source, text)]
    if not found:
        return None
    variables = list(flat["variables"].values())
    paths = [tuple(re.sub(r"\[[^\]]*\]", "", v["name"]).split(".")) for v in variables]
    used: list[tuple[int, int, int]] | None = None
    for modification in found:
        size = len(modification.path)
        matching = [
            v for v, p in zip(variables, paths, strict=True) if p[-size:] == modification.path
        ]
        if not matching:
            continue
        if used is None:
            used = class_closure([model.split(".")[-1]], sources)
        where = (modification.source, modification.start)
        if not inside(*where, used):
            around = enclosing_class(where, sources)
            spans = [v.get("source_span") or {} for v in variables]
            spans += [e.get("span") or {} for e in flat.get("equations", [])]
            if not any(
                "source" in s and inside(int(s["source"]), int(s["start"]), around) for s in spans
            ):
                continue
        first, last = modification.value
        for variable in matching:
            spans = _spans(variable.get("binding"))
            if not any(
                int(s.get("source", -1)) == modification.source
                and first <= int(s.get("start", -1)) < last
                for s in spans
            ):
                return modification
    return None
