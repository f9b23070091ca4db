"""Gap between the ports of every docking pair over a run, from its recorded poses.

The gap is the distance between the two ports' mating points (m), the quantity the coupling's
capture check compares with the capture distance (the smaller of the two ports'
``capture_distance``); the ports' positions and capture distances are the bodies' parameters
(the scenario's settings, else the FMUs' start values).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from orchestrator.fmi.parameters import ComponentParameters
from orchestrator.kinematics import rotation_matrix
from orchestrator.scenario.model import Scenario


@dataclass(frozen=True)
class PortGap:
    """The gap of one docking pair at every recorded row."""

    pair: str
    gap: np.ndarray  # m
    capture_distance: float  # m


def _port_point(
    columns: dict[str, np.ndarray], parameters: ComponentParameters, body: str, port: int
) -> np.ndarray:
    """NED position (rows, 3) of port number ``port`` of ``body`` at every recorded row."""
    position = parameters.rows(body, "data.port_position")[port - 1]
    p = np.column_stack([columns[f"{body}.p[{i}]"] for i in (1, 2, 3)])
    q = np.column_stack([columns[f"{body}.q[{i}]"] for i in (1, 2, 3, 4)])
    return p + rotation_matrix(q) @ position


def port_gaps(
    columns: dict[str, np.ndarray], scenario: Scenario, parameters: ComponentParameters
) -> list[PortGap]:
    """The gap of every docking pair of ``scenario`` over the recorded ``columns``."""
    gaps = []
    for dock in scenario.docking:
        a = _port_point(columns, parameters, dock.a, dock.port_a)
        b = _port_point(columns, parameters, dock.b, dock.port_b)
        capture = min(parameters.get(body, "capture_distance") for body in (dock.a, dock.b))
        name = dock.name or f"dock_{dock.a}_{dock.b}"
        gaps.append(PortGap(name, np.linalg.norm(b - a, axis=1), float(capture)))
    return gaps
