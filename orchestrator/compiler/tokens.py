"""Modelica tokens of a source text, for the places and declarations the build reads there."""

from __future__ import annotations

import re
from collections.abc import Iterator

# One Modelica token: white space, a comment (an unterminated one runs to the end), a string, a
# quoted name, a name or number, or any other single character.
TOKEN = re.compile(
    r"""\s+|//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[\w.]+|.""", re.S
)


def tokens(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """The Modelica tokens of ``text`` from ``start`` on, with their positions; white space and
    comments left out."""
    for match in TOKEN.finditer(text, start):
        token = match.group()
        if not token.isspace() and not token.startswith(("//", "/*")):
            yield match.start(), token


def closing_bracket(listed: list[tuple[int, str]], opening: int) -> int:
    """The index in ``listed`` (tokens as :func:`tokens` gives them) of the bracket that closes
    the one at index ``opening``; the last index where it is not closed."""
    depth = 0
    for k in range(opening, len(listed)):
        depth += (listed[k][1] in "([{") - (listed[k][1] in ")]}")
        if depth == 0:
            return k
    return len(listed) - 1
