"""Distinct colours for many lines or bodies: 16 thrusters get 16 different colours."""

from __future__ import annotations

import matplotlib
import numpy as np


def distinct_colours(count: int) -> list[str]:
    """``count`` colours as ``#rrggbb``, all different.

    Up to 10: matplotlib's ``tab10``; up to 20: ``tab20`` (dark and light shade of ten hues);
    more: evenly spaced hues of ``hsv`` at full saturation.
    """
    if count <= 10:
        cmap, positions = matplotlib.colormaps["tab10"], np.arange(count) / 10
    elif count <= 20:
        cmap, positions = matplotlib.colormaps["tab20"], np.arange(count) / 20
    else:
        cmap, positions = matplotlib.colormaps["hsv"], np.arange(count) / count
    return [matplotlib.colors.to_hex(cmap(p + 1e-9)) for p in positions]
