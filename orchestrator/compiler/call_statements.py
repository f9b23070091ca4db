"""Call statements of functions without outputs in a model's algorithm, in a form rumoca 0.10
translates.

rumoca 0.10 refuses ``check(x);`` in a model's algorithm section ("function-call assignment
must retain at least one output") and translates such a call only in an initial algorithm,
where the build inlines the function for its asserts (MSL's ``isValidTable``). A source
rewriter (:mod:`orchestrator.compiler.source_rewrites`) gives it, after each function ``f``
without outputs that is not external, its copy ``f__called`` with one output more, ``done =
true`` (rumoca 0.10 refuses a call statement in a function too); and each call statement of a
model's algorithm section as the assert ``assert(f__called(...), "")``. The build translates
that assert by inlining ``f__called``, as it inlines ``f`` for an initial algorithm: ``f``'s
asserts are checked where the statement stands, from the values the section holds there,
with their messages; the assert around them always holds. A call of an external function is
refused in one line (an FMU makes no call for its effect alone); ``reinit`` and
``terminate`` stay as written.
"""

from __future__ import annotations

import re

from orchestrator.compiler.source_algorithms import source_algorithms
from orchestrator.compiler.source_rewrites import Edit
from orchestrator.compiler.tokens import closing_bracket, tokens

Token = tuple[int, str]
SUFFIX = "__called"
NOT_CALLS = {"if", "for", "while", "when", "elseif", "elsewhen", "else", "end", "return"}
NOT_CALLS |= {"break", "assert", "reinit", "terminate"}
STATEMENT_STARTS = {";", "then", "else", "loop"}


def call_statements(text: str) -> list[Edit]:
    """The edits of ``text`` that give rumoca 0.10 its call statements of functions without
    outputs in models' algorithm sections, and the ``f__called`` of its functions without
    outputs (see the module's text)."""
    if not re.search(r"\balgorithm\b", text):
        return []
    edits = [
        edit
        for section in source_algorithms(text)
        if section.of_model
        for edit in _calls(section.statements)
    ]
    if not edits and "function" not in text:
        return []
    return edits + _wrappers(text)


def _calls(statements: list[Token]) -> list[Edit]:
    """The edits of the call statements ``name(...);`` among a section's tokens."""
    edits = []
    in_expression, depth = False, 0
    for k, (position, token) in enumerate(statements):
        previous = statements[k - 1][1] if k else ";"
        following = statements[k + 1][1] if k + 1 < len(statements) else ""
        depth += (token in "([{") - (token in ")]}")
        if token == "=" and previous == ":":
            in_expression = True
        elif token == ";":
            in_expression = False
        if in_expression or depth or previous not in STATEMENT_STARTS:
            continue
        if token in NOT_CALLS or following != "(":
            continue
        closing = closing_bracket(statements, k + 1)
        if closing + 1 < len(statements) and statements[closing + 1][1] == ";":
            end = statements[closing][0] + 1
            edits += [
                Edit(position, position, "assert("),
                Edit(position + len(token), position + len(token), SUFFIX),
                Edit(end, end, ', "")'),
            ]
    return edits


def _wrappers(text: str) -> list[Edit]:
    """``f__called`` after each function ``f`` of ``text`` without outputs that is not
    external: ``f``'s text with the output ``done = true`` after its name and description."""
    listed = list(tokens(text))
    edits = []
    for k, (_, token) in enumerate(listed[:-2]):
        before = listed[k - 1][1] if k else ";"
        name, after = listed[k + 1][1], listed[k + 2][1]
        if token != "function" or before in {".", "(", ",", "end"} or after == "=":
            continue
        ending = next(
            (
                j
                for j in range(k + 2, len(listed) - 2)
                if listed[j][1] == "end" and listed[j + 1][1] == name and listed[j + 2][1] == ";"
            ),
            None,
        )
        if ending is None or {"output", "external"} & {t for _, t in listed[k + 2 : ending]}:
            continue
        head = k + 2 if after.startswith('"') else k + 1  # the name or its description
        opening = listed[head][0] + len(listed[head][1])
        copy = (
            f" function {name}{SUFFIX}{text[listed[k + 1][0] + len(name) : opening]}"
            f" output Boolean done = true;{text[opening : listed[ending][0]]}"
            f"end {name}{SUFFIX};"
        )
        after_end = listed[ending + 2][0] + 1
        edits.append(Edit(after_end, after_end, copy))
    return edits
