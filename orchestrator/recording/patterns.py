"""Name patterns of recorded signals (``record`` of a scenario, ``signals`` of a regression case).

``*`` stands for any text and ``?`` for one character; everything else stands for itself, so
``rov.p[*]`` selects every element of ``rov.p`` and ``rov.p[3]`` exactly that element (in
fnmatch's globs brackets would be a character set, and ``rov.p[3]`` would select ``rov.p3``).
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(re.escape(pattern).replace(r"\*", ".*").replace(r"\?", "."))


def matches(name: str, pattern: str) -> bool:
    """Whether the signal ``name`` matches ``pattern``."""
    return _compiled(pattern).fullmatch(name) is not None
