"""Where a replay's scene lies and how it is measured: the extent of the run, the floor grid
below it with cells of a round number of metres, and the round lengths the page's scale bar
chooses from (the longest that fits its width at the distance of the view's centre)."""

from __future__ import annotations

import math

import numpy as np

LEAST_RADIUS = 0.5  # m, of the view around the run
SCALE_DECADES = (-3, 3)  # round lengths of the scale bar: radius x 10^-3 to 10^3


def body_size(shape: dict) -> float:
    """Largest extent of a body's shape (m): a box's longest edge, a cylinder's diameter or
    length."""
    if shape["kind"] == "cylinder":
        return max(2 * shape["radius"], shape["length"])
    return max(shape["size"])


def round_length(most: float) -> float:
    """The largest length of 1, 2 or 5 times a power of ten metres that is at most ``most``."""
    power = 10.0 ** math.floor(math.log10(most))
    return max(k * power for k in (1, 2, 5) if k * power <= most * (1 + 1e-9))


def metres(length: float) -> str:
    """A length as the scale bar's label: ``0.2 m``, ``5 m``."""
    return f"{length:g} m"


def scale_lengths(radius: float) -> list[list]:
    """[length (m), label] of the round lengths from a thousandth to a thousand times
    ``radius``, shortest first."""
    first = math.floor(math.log10(radius))
    lengths = [
        float(f"{k}e{power}")
        for power in range(first + SCALE_DECADES[0], first + SCALE_DECADES[1] + 1)
        for k in (1, 2, 5)
    ]
    return [[length, metres(length)] for length in lengths]


def reference_frame(
    bodies: list[dict], points: np.ndarray | None = None, seabed: float = math.inf
) -> dict:
    """Extent and measure of the scene of ``bodies`` (the scene's bodies: ``p`` rows NED,
    ``shape``) and other ``points`` (n, 3; NED, m: tether nodes, markers): ``centre`` and
    ``radius`` (m) of the run's extent with its largest body; the floor grid (``origin``,
    NED, on the ``seabed`` (NED depth, m) where it lies below the deepest point by at most
    three radii, else a radius below it; ``cell``, a round length about half the radius;
    ``cells`` across, an even number so that a grid line passes through the origin, and its
    ``label``); the scale bar's ``lengths`` (:func:`scale_lengths`)."""
    positions = np.vstack(
        [np.asarray(b["p"], dtype=float) for b in bodies] + ([] if points is None else [points])
    )
    low, high = positions.min(axis=0), positions.max(axis=0)
    largest = max(body_size(b["shape"]) for b in bodies)
    radius = max(float(np.linalg.norm(high - low)) / 2 + largest, LEAST_RADIUS)
    centre = (low + high) / 2
    cell = round_length(radius / 2)
    origin = [
        round(centre[0] / cell) * cell,
        round(centre[1] / cell) * cell,
        seabed if high[2] <= seabed <= high[2] + 3 * radius else max(float(high[2]), 0.0) + radius,
    ]
    return {
        "centre": centre.tolist(),
        "radius": radius,
        "grid": {
            "origin": origin,
            "cell": cell,
            "cells": 2 * math.ceil(3 * radius / cell),
            "label": metres(cell),
        },
        "scale": {"lengths": scale_lengths(radius)},
    }
