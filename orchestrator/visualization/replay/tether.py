"""Tethers a replay draws: a polyline through the recorded nodes of every component that
records node positions ``x[i, 1..3]`` (NED, m, from end a to end b; ``MurCoSim.Tethers.Tether``),
with the recorded tension at each end (``tension_a``, ``tension_b``, N) where there is one."""

from __future__ import annotations

import numpy as np

from orchestrator.scenario.model import Scenario


def node_count(columns: dict[str, np.ndarray], name: str) -> int:
    """Number of recorded nodes ``<name>.x[i, 1..3]`` (i = 1, 2, ...)."""
    n = 0
    while all(f"{name}.x[{n + 1},{j}]" in columns for j in (1, 2, 3)):
        n += 1
    return n


def nodes(columns: dict[str, np.ndarray], name: str) -> np.ndarray:
    """Node positions of tether ``name`` (rows, nodes, 3), NED (m)."""
    count = node_count(columns, name)
    return np.stack(
        [
            np.column_stack([columns[f"{name}.x[{i},{j}]"] for j in (1, 2, 3)])
            for i in range(1, count + 1)
        ],
        axis=1,
    )


def tethers(scenario: Scenario, columns: dict[str, np.ndarray], rows: np.ndarray) -> list[dict]:
    """Every tether's ``name``, ``nodes`` per drawn row (NED, m) and ``tension`` per drawn
    row at end a and end b (N; None where not recorded)."""
    found = []
    for name in scenario.components:
        if node_count(columns, name) < 2:
            continue
        tension = None
        if f"{name}.tension_a" in columns and f"{name}.tension_b" in columns:
            ends = np.column_stack([columns[f"{name}.tension_a"], columns[f"{name}.tension_b"]])
            tension = np.round(ends[rows], 3).tolist()
        found.append(
            {
                "name": name,
                "nodes": np.round(nodes(columns, name)[rows], 5).tolist(),
                "tension": tension,
            }
        )
    return found
