"""Docking success over randomized starts, on the MPC's planar model or in co-simulation.

The second vehicle of a rendezvous entry (the follower) starts at random north, east and yaw
in the given ranges, at rest, drawn by the sweep's variations (``follower.p[1]``,
``follower.p[2]``, ``follower.yaw`` uniform, seeded with ``seed``) for both models; the first
stays where the scenario puts it. A case docks when the docking ports meet the capture envelope
of the vehicles (the coupling's docking check: gap, closing speed, misalignment) before
``duration``. Reported: cases, seed, successes, the
distribution of the dock times, the cases that start with both cameras' partners out of view
and how many of those dock, the cases where the docking supervisor aborted a final approach,
and the MPC's solve time per vehicle and sample. In co-simulation also the capture's gap,
closing speed and misalignment (the coupling's dock event), and, with :func:`comparison_table`,
a realistic scenario's cases beside a perfect-state baseline's from the same starts.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from orchestrator.analysis.docking_report import docking_report
from orchestrator.analysis.sweep import run_sweep
from orchestrator.analysis.variations import Variation, draw
from orchestrator.controllers.mpc.ports import CaptureEnvelope
from orchestrator.controllers.rendezvous import vehicle_specs
from orchestrator.recording.tables import read_events
from orchestrator.scenario.model import RendezvousConfig
from orchestrator.scenario.reading import load_scenario
from studies.rendezvous_study import initial_planar_states, run_planar


@dataclass
class StartRanges:
    """Ranges of the follower's start: north and east (m), yaw (deg)."""

    north: tuple[float, float] = (-7.0, -2.0)
    east: tuple[float, float] = (-3.0, 3.0)
    yaw: tuple[float, float] = (-60.0, 60.0)

    def variations(self, follower: str) -> list[Variation]:
        """The follower's start values drawn uniformly in these ranges: north, east, yaw."""
        return [
            Variation.parse(f"{follower}.{variable}={low!r}:{high!r}")
            for variable, (low, high) in (
                ("p[1]", self.north),
                ("p[2]", self.east),
                ("yaw", self.yaw),
            )
        ]


@dataclass
class Case:
    """One randomized start and its outcome."""

    start: np.ndarray  # north, east (m), yaw (deg) of the follower
    both_out_of_view: bool
    dock_time: float  # s, nan if not docked
    solve_median: float  # s per vehicle and sample
    solve_p99: float
    aborts: int  # missed final approaches before the dock (or the end)
    capture: tuple[float, float, float] = (float("nan"),) * 3  # m, m/s, deg at the dock event


CAPTURE = re.compile(r"gap ([0-9.e+-]+) m, closing ([0-9.e+-]+) m/s, angle ([0-9.e+-]+) deg")


def _views_lost(config: RendezvousConfig, states: dict[str, np.ndarray]) -> bool:
    """True when every camera link starts with its partner outside the cone."""
    lost = [
        spec.cameras[k].violation(states[spec.name], states[other]) > 0
        for spec in vehicle_specs(config)
        for other, k in spec.sees.items()
    ]
    return all(lost)


def run_cases(
    config: RendezvousConfig,
    initial: dict[str, np.ndarray],
    runs: int,
    seed: int,
    duration: float,
    ranges: StartRanges,
    report: Callable[[str], None] = print,
) -> list[Case]:
    """``runs`` closed loops from randomized follower starts; ``report`` gets a line per case."""
    follower = config.vehicles[1].name
    variations = ranges.variations(follower)
    cases = []
    for k, values in enumerate(draw(variations, runs, seed)):
        start = np.array([values[v.name] for v in variations])
        states = dict(initial)
        states[follower] = np.array([start[0], start[1], np.radians(start[2]), 0.0, 0.0, 0.0])
        result = run_planar(config, states, duration, stop_when_met=True, capture=CaptureEnvelope())
        case = Case(
            start,
            _views_lost(config, states),
            result.converged_at,
            result.solve_median,
            result.solve_p99,
            result.aborts,
        )
        cases.append(case)
        report(_line(k, case))
    return cases


def _line(k: int, case: Case) -> str:
    """One case's line of the study's progress."""
    start = case.start
    return (
        f"case {k + 1}: start N {start[0]:.2f} m, E {start[1]:.2f} m, yaw {start[2]:.1f} deg"
        f"{' (both out of view)' if case.both_out_of_view else ''}: "
        + (f"docked at {case.dock_time:.2f} s" if np.isfinite(case.dock_time) else "no dock")
        + (f" after {case.aborts} abort(s)" if case.aborts else "")
    )


def run_cosim_cases(
    scenario: Path,
    controller: str,
    runs: int,
    seed: int,
    ranges: StartRanges,
    out: Path,
    fmu_dir: Path | None,
    report: Callable[[str], None] = print,
    workers: int = 1,
) -> list[Case]:
    """The same randomized starts as :func:`run_cases` (the same variations, drawn the same
    way with ``seed``), each a full co-simulation of ``scenario`` for its stop time, run by
    the sweep machinery (``workers`` at a time) into ``out`` (a run folder per case); a case
    docks at its first dock event."""
    config = load_scenario(scenario).controllers[controller]
    initial = initial_planar_states(load_scenario(scenario), config)
    follower = config.vehicles[1].name
    variations = ranges.variations(follower)
    run_sweep(scenario, variations, runs, seed, out, fmu_dir, workers=workers)
    with open(out / "sweep.csv", newline="") as table:
        rows = list(csv.DictReader(table))
    cases = []
    for k, row in enumerate(rows):
        start = np.array([float(row[v.name]) for v in variations])
        states = dict(initial)
        states[follower] = np.array([start[0], start[1], np.radians(start[2]), 0.0, 0.0, 0.0])
        dock_time, median, p99, aborts = float("nan"), float("nan"), float("nan"), 0
        capture = (float("nan"),) * 3
        if row["status"] == "done":
            folder = out / f"run_{int(row['run']):03d}"
            run = docking_report(folder, controller)
            dock_time = run.dock_time
            median = 1e-3 * max(m for m, _, _ in run.solve_ms.values())
            p99 = 1e-3 * max(p for _, p, _ in run.solve_ms.values())
            events = read_events(folder / "events.csv")
            aborts = sum(e["event"] == "abort" for e in events)
            docks = [CAPTURE.search(e["detail"]) for e in events if e["event"] == "dock"]
            if docks and docks[0]:
                capture = tuple(float(v) for v in docks[0].groups())
        case = Case(start, _views_lost(config, states), dock_time, median, p99, aborts, capture)
        cases.append(case)
        report(_line(k, case))
    return cases


def success_table(cases: list[Case], seed: int, duration: float) -> str:
    """Markdown table of a study."""
    docked = np.array([c.dock_time for c in cases if np.isfinite(c.dock_time)])
    blind = [c for c in cases if c.both_out_of_view]
    blind_docked = sum(np.isfinite(c.dock_time) for c in blind)
    times = (
        f"{docked.min():.1f} / {np.median(docked):.1f} / {np.percentile(docked, 90):.1f} / "
        f"{docked.max():.1f}"
        if docked.size
        else "-"
    )
    medians = np.array([c.solve_median for c in cases])
    p99s = np.array([c.solve_p99 for c in cases])
    solved = np.isfinite(medians)  # a case that stopped early has no solve times
    solves = (
        f"{1e3 * np.median(medians[solved]):.1f} / {1e3 * np.max(p99s[solved]):.1f}"
        if solved.any()
        else "-"
    )
    return "\n".join(
        [
            "| cases | seed | docked | dock time min / median / p90 / max (s) "
            "| both cameras out of view: docked "
            "| cases with an abort | MPC solve: median of medians / largest p99 (ms) |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            f"| {len(cases)} | {seed} | {docked.size} ({100 * docked.size / len(cases):.0f} %, "
            f"within {duration:.0f} s) | {times} | {blind_docked} of {len(blind)} | "
            f"{sum(c.aborts > 0 for c in cases)} | "
            f"{solves} |",
        ]
    )


def _spread(values: np.ndarray, digits: int) -> str:
    """'min / median / p90 / max' of the finite ``values``, or '-'."""
    values = values[np.isfinite(values)]
    if not values.size:
        return "-"
    points = (values.min(), np.median(values), np.percentile(values, 90), values.max())
    return " / ".join(f"{v:.{digits}f}" for v in points)


def comparison_table(columns: dict[str, list[Case]], seed: int, durations: dict[str, float]) -> str:
    """Markdown table of studies from the same starts side by side (a column each, by name):
    success, dock time, the capture's gap, closing speed and misalignment, aborts."""
    rows: dict[str, list[str]] = {
        "cases (seed)": [],
        "docked": [],
        "dock time min / median / p90 / max (s)": [],
        "at capture: gap min / median / p90 / max (mm)": [],
        "at capture: closing speed (mm/s)": [],
        "at capture: misalignment (deg)": [],
        "both cameras out of view at the start: docked": [],
        "cases with an abort": [],
    }
    for name, cases in columns.items():
        docked = np.array([np.isfinite(c.dock_time) for c in cases])
        blind = [np.isfinite(c.dock_time) for c in cases if c.both_out_of_view]
        capture = np.array([c.capture for c in cases])
        values = [
            f"{len(cases)} ({seed})",
            f"{docked.sum()} ({100 * docked.mean():.0f} %, within {durations[name]:.0f} s)",
            _spread(np.array([c.dock_time for c in cases]), 1),
            _spread(1e3 * capture[:, 0], 1),
            _spread(1e3 * capture[:, 1], 0),
            _spread(capture[:, 2], 2),
            f"{sum(blind)} of {len(blind)}",
            f"{sum(c.aborts > 0 for c in cases)}",
        ]
        for row, value in zip(rows.values(), values, strict=True):
            row.append(value)
    lines = ["| | " + " | ".join(columns) + " |", "| --- |" + " --- |" * len(columns)]
    lines += [f"| {name} | " + " | ".join(values) + " |" for name, values in rows.items()]
    return "\n".join(lines)
