"""``edge(not b)`` in the form rumoca 0.10 translates.

rumoca 0.10 takes ``edge(...)`` of a variable only ("edge(...) must have exactly one resolved
variable-reference operand"); a falling edge is written ``edge(not u)`` (MSL's
``MathBoolean.FallingEdge``). By the Modelica Language Specification 3.6, Sec. 3.7.5,
``edge(b)`` is ``b and not pre(b)``; for ``b = not u`` that is ``not u and pre(u)``, which a
source rewriter (:mod:`orchestrator.compiler.source_rewrites`) gives rumoca in place of
``edge(not u)`` where ``u`` is a component reference (names, dots and subscripts). Any other
argument stays as written, and rumoca refuses it in one line as before.
"""

from __future__ import annotations

import re

from orchestrator.compiler.source_rewrites import Edit
from orchestrator.compiler.tokens import tokens

CANDIDATES = re.compile(r"\bedge\s*\(\s*not\b")
NAME = re.compile(r"[A-Za-z_][\w.]*|\.[A-Za-z_][\w.]*")


def _reference(words: list[str]) -> bool:
    """Whether ``words`` form a component reference: a name, then subscripts in brackets and
    further ``.name`` parts."""
    if not words or not NAME.fullmatch(words[0]) or words[0].startswith("."):
        return False
    depth = 0
    for word in words[1:]:
        if word == "[":
            depth += 1
        elif word == "]":
            depth -= 1
        elif depth == 0 and not NAME.fullmatch(word):
            return False
    return depth == 0


def negated_edges(text: str) -> list[Edit]:
    """The edits that give rumoca 0.10 each ``edge(not u)`` of ``text`` as ``(not u and
    pre(u))`` (a source rewriter)."""
    if not CANDIDATES.search(text):
        return []
    found = list(tokens(text))
    edits = []
    for k in range(len(found) - 3):
        if [t for _, t in found[k : k + 3]] != ["edge", "(", "not"]:
            continue
        if k > 0 and found[k - 1][1] == ".":
            continue
        depth, end = 0, None
        for j in range(k + 3, len(found)):
            word = found[j][1]
            if word in "([{" and len(word) == 1:
                depth += 1
            elif word in ")]}" and len(word) == 1:
                if depth == 0:
                    end = j
                    break
                depth -= 1
        if end is None or not _reference([t for _, t in found[k + 3 : end]]):
            continue
        operand = text[found[k + 3][0] : found[end][0]].strip()
        start, stop = found[k][0], found[end][0] + 1
        edits.append(Edit(start, stop, f"(not {operand} and pre({operand}))"))
    return edits
