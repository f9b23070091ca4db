"""The algorithm sections of a Modelica source text, found from its tokens.

One scan serves the build's two readers of algorithm sections in the user's sources: the
wrapping of sections for rumoca (:mod:`orchestrator.compiler.algorithm_sections`) and the
places of statements rumoca refuses without saying where
(:mod:`orchestrator.compiler.statement_places`). A section runs from its ``algorithm`` keyword
to the ``;`` of its last statement: the next section keyword, ``initial`` of an initial section,
``annotation`` or the ``end`` of its class at bracket depth 0, where a statement would start,
close it (Modelica Language Specification 3.6, Sec. 11.2).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from orchestrator.compiler.tokens import tokens

CLASS_KINDS = {"model", "block", "class", "record", "connector", "package", "function", "type"}
SECTION_ENDS = {"equation", "algorithm", "public", "protected", "external"}
BLOCK_ENDS = {"if", "for", "while", "when"}


@dataclass(frozen=True)
class SourceAlgorithm:
    """An algorithm section with at least one statement in a source text.

    ``class_kind`` is the kind of the innermost long class definition it stands in (``model``,
    ``block``, ``function``, ...; empty outside any), ``initial`` whether it is an initial
    algorithm, ``statements`` its tokens with their positions in the text (characters from 0),
    from the one after ``algorithm`` to the last statement's ``;``."""

    class_kind: str
    initial: bool
    start: int  # position after the keyword ``algorithm``
    statements: list[tuple[int, str]]

    @property
    def end(self) -> int:
        """The position after the last statement's ``;``."""
        return self.statements[-1][0] + 1

    @property
    def of_model(self) -> bool:
        """Whether it is an algorithm of a model, block or other class that is not a function,
        and not an initial one: part of the equations the model's DAE holds (Sec. 11.1)."""
        return self.class_kind != "function" and not self.initial

    @property
    def words(self) -> set[str]:
        """The section's tokens, without their positions."""
        return {token for _, token in self.statements}


def source_algorithms(text: str) -> Iterator[SourceAlgorithm]:
    """The algorithm sections of ``text`` that hold a statement, in the order they stand."""
    listed = list(tokens(text))
    classes: list[str] = []  # the kinds of the long class definitions open at a token
    k = 0
    while k < len(listed):
        position, token = listed[k]
        before = listed[k - 1][1] if k else ";"
        after = [t for _, t in listed[k + 1 : k + 4]]
        if token in CLASS_KINDS and before not in {".", "(", ","} and len(after) >= 2:
            named = after[1:] if after[0] == "extends" else after
            if len(named) >= 2 and named[1] != "=":  # not a short class definition
                classes.append(token)
        elif token == "end" and after[:1] and after[0] not in BLOCK_ENDS:
            if classes:
                classes.pop()
        elif token == "algorithm":
            end = _section_end(listed, k + 1)
            if end > k + 1:
                kind = classes[-1] if classes else ""
                statements = listed[k + 1 : end]
                yield SourceAlgorithm(kind, before == "initial", position + len(token), statements)
            k = end
            continue
        k += 1


def _section_end(listed: list[tuple[int, str]], first: int) -> int:
    """The index in ``listed`` after the last ``;`` of the section whose statements start at
    ``first``: where, at bracket depth 0 and after a ``;`` or the section's start, a section
    keyword, an ``annotation`` or the ``end`` of the class follows."""
    depth, k, last = 0, first, first
    while k < len(listed):
        token = listed[k][1]
        starts = depth == 0 and (k == first or listed[k - 1][1] == ";")
        if starts:
            following = listed[k + 1][1] if k + 1 < len(listed) else ""
            ends_class = token == "end" and following not in BLOCK_ENDS
            initial = token == "initial" and following != "("
            if token in SECTION_ENDS or token == "annotation" or ends_class or initial:
                return last
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
        elif token == ";" and depth == 0:
            last = k + 1
        k += 1
    return last
