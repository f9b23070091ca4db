"""Slices and sizes of a function's arrays, in the element form rumoca 0.10 translates.

rumoca 0.10 refuses a slice whose bounds depend on a variable in a function ("dependent extent
is not an exact Integer expression": MSL's ``initialStateWithXorshift64star`` reading
``random(state[i-2:i-1])`` in a for loop), does not count the elements a slice assigns as
defined (``state[i:i+1] := aux`` in that loop: "returns state without defining every declared
element"; ``state[1:2] := aux``: "reads elements of state that do not all have a
definition"), and cannot size a function's output from ``size(a, 1)`` of a local array passed
as an argument ("missing function value definition": ``initialStateWithXorshift64star(localSeed,
seed, size(rngState, 1))`` with ``Integer rngState[33]``). A source rewriter
(:mod:`orchestrator.compiler.source_rewrites`) gives rumoca, in the algorithms of functions:

- a slice ``a[e1:e2]`` read on the right of an assignment, whose bounds differ by a number
  (``i-2:i-1``, ``1:2``), as the array of its elements ``{a[i-2], a[i-1]}``;
- an assignment to such a slice of a variable ``b`` other than ``a``, ``a[i:i+1] := b;``, as
  the assignments of its elements ``a[i] := b[1]; a[i+1] := b[2];`` (with ``b`` another array
  they are the same statements);
- ``size(a, k)`` of an array declared in the function, its k-th dimension as declared, in
  brackets: ``(33)``, ``(nState)``.

Each means what it replaces. Other slices (of a step, of bounds that differ by a variable, of
more than 64 elements) stay as written, and so refused as before.
"""

from __future__ import annotations

from orchestrator.compiler.class_rewrites import source_classes
from orchestrator.compiler.source_algorithms import SourceAlgorithm, source_algorithms
from orchestrator.compiler.source_rewrites import Edit
from orchestrator.compiler.tokens import closing_bracket, tokens

Token = tuple[int, str]
STATEMENT_STARTS = {";", "then", "else", "loop"}
DECLARATION_STARTS = {";", "input", "output", "protected", "public", "parameter", "constant"}
MOST = 64  # elements of a slice written out


def function_slices(text: str) -> list[Edit]:
    """The edits of ``text`` that give rumoca 0.10 its functions' slices and sizes in element
    form (see the module's text)."""
    if "function" not in text or "algorithm" not in text:
        return []
    listed = list(tokens(text))
    functions = [c for c in source_classes(text) if c.kind == "function"]
    edits: list[Edit] = []
    for section in source_algorithms(text):
        start = section.statements[0][0]
        around = [c for c in functions if c.name_at <= start < c.end_name_at]
        if section.class_kind != "function" or not around:
            continue
        inner = min(around, key=lambda c: c.end_name_at - c.name_at)
        nested = [(c.start, c.stop) for c in inner.nested or []]
        declarations = [
            (p, t)
            for p, t in listed
            if inner.name_at <= p < start and not any(a <= p < b for a, b in nested)
        ]
        edits += _section_edits(text, section, declarations)
    return edits


def _source(text: str, listed: list[Token]) -> str:
    """The text from the first of ``listed`` to the end of the last."""
    return text[listed[0][0] : listed[-1][0] + len(listed[-1][1])]


def _base_offset(text: str, bound: list[Token]) -> tuple[str, int] | None:
    """A slice bound as the text of its variable part and its number part: ``i-2`` as
    ``("i", -2)``, ``3`` as ``("", 3)``; None where it has none such."""
    if len(bound) == 1 and bound[0][1].isdigit():
        return "", int(bound[0][1])
    if len(bound) >= 3 and bound[-2][1] in "+-" and bound[-1][1].isdigit():
        sign = 1 if bound[-2][1] == "+" else -1
        return _source(text, bound[:-2]), sign * int(bound[-1][1])
    return (_source(text, bound), 0) if bound else None


def _elements(text: str, subscript: list[Token]) -> list[str] | None:
    """The subscripts of the elements of slice ``e1:e2`` (``subscript``: its tokens), where
    its bounds differ by a number; None otherwise."""
    colons = [k for k, (_, t) in enumerate(subscript) if t == ":"]
    if len(colons) != 1 or any(t in "([{,=" for _, t in subscript):
        return None
    first = _base_offset(text, subscript[: colons[0]])
    last = _base_offset(text, subscript[colons[0] + 1 :])
    if first is None or last is None or first[0] != last[0]:
        return None
    count = last[1] - first[1] + 1
    if not 0 < count <= MOST:
        return None
    base = first[0]
    offsets = range(first[1], last[1] + 1)
    if not base:
        return [str(o) for o in offsets]
    return [base + (f" + {o}" if o > 0 else f" - {-o}" if o < 0 else "") for o in offsets]


def _dimensions(text: str, declarations: list[Token], name: str) -> list[str] | None:
    """The dimensions as written of array ``name`` declared among ``declarations`` (``Integer
    x[3]``, ``Integer[n] x``), None where it is not declared so there."""
    for k in range(1, len(declarations) - 1):
        _, token = declarations[k]
        before, after = declarations[k - 1][1], declarations[k + 1][1]
        if token == name and after == "[" and before.replace(".", "").isidentifier():
            group = declarations[k + 1 : closing_bracket(declarations, k + 1) + 1]
        elif token == name and before == "]":
            opening = next(j for j in range(k - 1, -1, -1) if declarations[j][1] == "[")
            if declarations[opening - 2][1] not in DECLARATION_STARTS:
                continue
            group = declarations[opening:k]
        else:
            continue
        return _split(text, group[1:-1])
    return None


def _split(text: str, inside: list[Token]) -> list[str]:
    """The texts of the comma-separated entries of a bracket's tokens ``inside``."""
    entries: list[list[Token]] = [[]]
    depth = 0
    for position, token in inside:
        depth += (token in "([{") - (token in ")]}")
        if token == "," and depth == 0:
            entries.append([])
        else:
            entries[-1].append((position, token))
    return [_source(text, e) if e else ":" for e in entries]


def _section_edits(text: str, section: SourceAlgorithm, declarations: list[Token]) -> list[Edit]:
    """The edits of one algorithm section of a function declared by ``declarations``."""
    statements = section.statements
    edits: list[Edit] = []
    right = False  # on the right of an assignment
    k = 0
    while k < len(statements) - 1:
        position, token = statements[k]
        previous = statements[k - 1][1] if k else ";"
        following = statements[k + 1][1]
        if token == "=" and previous == ":":
            right = True
        elif token == ";":
            right = False
        if token == "size" and following == "(" and right:
            closing = closing_bracket(statements, k + 1)
            edit = _size(text, statements[k : closing + 1], declarations)
            if edit:
                edits.append(edit)
                k = closing + 1
                continue
        if token.isidentifier() and following == "[" and (right or previous in STATEMENT_STARTS):
            closing = closing_bracket(statements, k + 1)
            elements = _elements(text, statements[k + 2 : closing])
            if elements is not None:
                end = statements[closing][0] + 1
                if right:
                    listed = ", ".join(f"{token}[{e}]" for e in elements)
                    edits.append(Edit(position, end, "{" + listed + "}"))
                    k = closing + 1
                    continue
                assigned = _assigned_name(statements, closing)
                if assigned is not None and assigned[0] != token:
                    value, stop = assigned
                    written = " ".join(
                        f"{token}[{e}] := {value}[{j}];" for j, e in enumerate(elements, 1)
                    )
                    edits.append(Edit(position, stop, written))
                    k = closing + 5  # past the statement's ";"
                    continue
        k += 1
    return edits


def _assigned_name(statements: list[Token], closing: int) -> tuple[str, int] | None:
    """Where the target closed at index ``closing`` is assigned one name, ``:= b;``: that
    name and the position after its ``;``."""
    tail = [t for _, t in statements[closing + 1 : closing + 5]]
    if tail[:2] == [":", "="] and len(tail) == 4 and tail[3] == ";" and tail[2].isidentifier():
        return tail[2], statements[closing + 4][0] + 1
    return None


def _size(text: str, call: list[Token], declarations: list[Token]) -> Edit | None:
    """``size(a, k)`` (``call``: its tokens) as the k-th dimension of ``a`` as declared."""
    words = [t for _, t in call]
    if len(words) != 6 or words[3] != "," or not words[4].isdigit():
        return None
    dimensions = _dimensions(text, declarations, words[2])
    k = int(words[4])
    if not dimensions or not 0 < k <= len(dimensions) or dimensions[k - 1] == ":":
        return None
    return Edit(call[0][0], call[-1][0] + 1, f"({dimensions[k - 1]})")


def variable_slice(text: str) -> int | None:
    """The position of the first slice in an algorithm of a function of ``text`` whose bounds
    are not both numbers (``a[i-2:i-1]``), None where there is none: where rumoca 0.10's
    refusal of a slice it cannot size, which names no place, stands."""
    if "function" not in text or ":" not in text:
        return None
    for section in source_algorithms(text):
        if section.class_kind != "function":
            continue
        statements = section.statements
        for k, (position, token) in enumerate(statements[:-1]):
            if not token.isidentifier() or statements[k + 1][1] != "[":
                continue
            subscript = statements[k + 2 : closing_bracket(statements, k + 1)]
            words = [t for _, t in subscript]
            if ":" in words and not all(w.isdigit() or w in ":+-" for w in words):
                return position
    return None
