"""Colours of runs: distinct colours for many lines, and one colour per body that every plot
and the replay give it."""

from __future__ import annotations

import matplotlib
import numpy as np

from orchestrator.scenario.body_roles import principal_bodies
from orchestrator.scenario.model import Scenario


def distinct_colours(count: int) -> list[str]:
    """``count`` colours as ``#rrggbb``, all different; the first ten are always matplotlib's
    ``tab10`` while ``count`` is at most 20.

    Up to 10: ``tab10``; up to 20: the ten dark shades of ``tab20`` (``tab10``'s colours),
    then its light shades; more: evenly spaced hues of ``hsv`` at full saturation.
    """
    if count <= 10:
        cmap, positions = matplotlib.colormaps["tab10"], np.arange(count) / 10
    elif count <= 20:
        order = np.concatenate([np.arange(0, 20, 2), np.arange(1, 20, 2)])[:count]
        cmap, positions = matplotlib.colormaps["tab20"], order / 20
    else:
        cmap, positions = matplotlib.colormaps["hsv"], np.arange(count) / count
    return [matplotlib.colors.to_hex(cmap(p + 1e-9)) for p in positions]


def body_colours(scenario: Scenario | None, bodies: list[str]) -> dict[str, str]:
    """Colour (``#rrggbb``) of each of ``bodies``, the one every plot and the replay draw it
    in: the principal bodies (:mod:`orchestrator.scenario.body_roles`) first, then parts such as arm
    links, each in the scenario's order of components (by name without a scenario)."""
    if scenario is not None:
        order = {name: k for k, name in enumerate(scenario.components)}
        ordered = sorted(bodies, key=lambda b: (order.get(b, len(order)), b))
    else:
        ordered = sorted(bodies)
    principal = principal_bodies(scenario, ordered)
    ordered = principal + [b for b in ordered if b not in principal]
    return dict(zip(ordered, distinct_colours(len(ordered)), strict=True))
