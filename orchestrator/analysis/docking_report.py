"""Figures of merit of a finished docking run, read from its results folder.

From the time series (``timeseries.parquet`` or ``timeseries.csv``), ``events.csv`` and the
copy of the scenario: time of the dock event, gap between the rendezvous points (the docking
ports, planar) and heading misalignment at the end, mean over the run of the sum of |thrust|
over every thruster (N), the MPC's solve time per vehicle and sample (median, 99th
percentile, largest; ms) over the samples where the MPC solved (the supervisor's other phases
record no solve time) and the run's wall time (s).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from orchestrator.controllers.rendezvous import vehicle_specs
from orchestrator.errors import MurcosimError
from orchestrator.kinematics import euler_angles
from orchestrator.recording.reader import read_recorded
from orchestrator.recording.tables import read_events
from orchestrator.scenario.model import RendezvousConfig
from orchestrator.scenario.reading import load_scenario


@dataclass
class DockingReport:
    """What a docking run achieved and what it cost."""

    dock_time: float  # s, nan if it never docked
    final_gap: float  # m between the rendezvous points at the end
    final_misalignment: float  # deg between the rendezvous headings at the end
    mean_total_thrust: float  # N, sum over all thrusters of |thrust|, averaged over the run
    solve_ms: dict[str, tuple[float, float, float]]  # vehicle -> median, p99, max (ms) of solves
    wall_time: float  # s, from the stop event


def docking_report(folder: Path, controller: str = "rendezvous") -> DockingReport:
    """The report of the run in ``folder`` (as written by ``murcosim run``)."""
    scenario = load_scenario(folder / "scenario.toml")
    config = scenario.controllers.get(controller)
    if not isinstance(config, RendezvousConfig):
        raise MurcosimError(
            f"{folder / 'scenario.toml'}: controllers.{controller}: not a rendezvous_mpc"
        )
    c = read_recorded(folder).columns
    events = read_events(folder / "events.csv")
    docks = [float(e["time"]) for e in events if e["event"] == "dock"]
    stops = [e["detail"] for e in events if e["event"] == "stop"]
    wall = re.search(r"([0-9.]+) s wall time", stops[-1]) if stops else None
    points = []
    for spec in vehicle_specs(config):
        q = np.array([c[f"{spec.name}.q[{i}]"][-1] for i in range(1, 5)])
        pose = np.array(
            [c[f"{spec.name}.p[1]"][-1], c[f"{spec.name}.p[2]"][-1], euler_angles(q)[2]]
        )
        points.append(spec.rendezvous_point(pose))
    gap = max(np.linalg.norm(p[:2] - points[0][:2]) for p in points)
    turn = max(abs((p[2] - points[0][2] + np.pi) % (2 * np.pi) - np.pi) for p in points)
    thrusts = [np.abs(v) for k, v in c.items() if k.endswith(".thrust")]
    solve = {}
    for v in config.vehicles:
        t = 1e3 * c[f"{controller}.{v.name}_solve_time"]
        t = t[t > 0] if np.any(t > 0) else t
        solve[v.name] = (float(np.median(t)), float(np.percentile(t, 99)), float(np.max(t)))
    return DockingReport(
        docks[0] if docks else float("nan"),
        float(gap),
        float(np.degrees(turn)),
        float(np.mean(np.sum(thrusts, axis=0))) if thrusts else 0.0,
        solve,
        float(wall.group(1)) if wall else float("nan"),
    )


def report_table(report: DockingReport) -> str:
    """Markdown table of a report."""
    solve = "; ".join(
        f"{name} {m:.1f} / {p:.1f} / {x:.1f}" for name, (m, p, x) in report.solve_ms.items()
    )
    return "\n".join(
        [
            "| docked at (s) | final port gap (m) | final misalignment (deg) "
            "| mean sum abs(thrust) (N) | MPC solve median / p99 / max (ms) | wall time (s) |",
            "| --- | --- | --- | --- | --- | --- |",
            f"| {report.dock_time:.2f} | {report.final_gap:.4f} | "
            f"{report.final_misalignment:.3f} | {report.mean_total_thrust:.1f} | {solve} | "
            f"{report.wall_time:.1f} |",
        ]
    )
