"""Drift of explicit co-simulation with rigid joints, measured against strong coupling.

For a scenario with joints between Model Exchange bodies, the strongly coupled master
(Udwadia-Kalaba inside every right-hand side, positions projected) gives the reference. The
same scenario then runs in weak coupling at each macro step H: the constraint forces are
computed at each communication point and held over the step (``master/weak.py``), without
projection. Per H the table gives the largest joint violation over the run (position in m,
angle in rad) and the largest distance of any body origin from its reference position (m).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from orchestrator.errors import ScenarioError, SimulationError
from orchestrator.fmi.folder import fmu_folder
from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario
from orchestrator.scenario.reading import load_scenario

DEFAULT_STEPS = (0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001)


@dataclass(frozen=True)
class DriftRow:
    """One macro step's drift: violations and trajectory error, with the run's wall time."""

    macro_step: float  # s
    position_violation: float  # m
    angle_violation: float  # rad
    trajectory_error: float  # m
    wall_seconds: float
    diverged: str = ""  # why the run stopped, if it did


def drift_table(
    scenario: Path,
    fmu_dir: Path | None,
    out_dir: Path,
    steps: tuple[float, ...] = DEFAULT_STEPS,
    order: str = "jacobi",
) -> list[DriftRow]:
    """Run the reference and one weak-coupling run per macro step; write ``drift.md``. The
    FMUs are found as ``murcosim run`` finds them for ``scenario`` (the variants written to
    ``out_dir`` use the same folder)."""
    parsed = load_scenario(scenario)
    if parsed.cosimulation is not None or not parsed.joints:
        raise ScenarioError(
            f"{scenario}: a drift study needs joints and no [cosimulation] section "
            "(it adds one per macro step)"
        )
    bodies = list(parsed.components)
    joints = [j.name for j in parsed.joints]
    fmu_dir = fmu_folder(parsed, scenario.parent, str(scenario), fmu_dir).resolve()
    run_scenario(scenario, out_dir / "reference", fmu_dir, plots=False)
    reference = read_timeseries(out_dir / "reference" / "timeseries.csv")
    text = scenario.read_text(encoding="utf-8")
    rows = []
    for step in steps:
        variant = out_dir / f"weak_{step:g}.toml"
        variant.write_text(
            f'{text}\n[cosimulation]\nmacro_step = {step!r}\norder = "{order}"\n',
            encoding="utf-8",
        )
        try:
            result = run_scenario(variant, out_dir / f"weak_{step:g}", fmu_dir, plots=False)
        except SimulationError as exc:
            reason = str(exc).split(": ")[-1].split(" (results so far")[0]
            rows.append(DriftRow(step, np.nan, np.nan, np.nan, np.nan, reason))
            continue
        weak = read_timeseries(result.timeseries)
        if len(weak["time"]) != len(reference["time"]):
            raise ScenarioError(
                f"{scenario}: simulation.output_interval must be a multiple of {step:g} s"
            )
        rows.append(
            DriftRow(
                step,
                max(np.max(weak[f"{j}.position_error"]) for j in joints),
                max(np.max(weak[f"{j}.angle_error"]) for j in joints),
                max(_distance(weak, reference, b) for b in bodies if f"{b}.p[1]" in weak),
                result.statistics.wall_seconds,
            )
        )
    (out_dir / "drift.md").write_text(markdown(rows, scenario), encoding="utf-8")
    return rows


def _distance(weak: dict, reference: dict, body: str) -> float:
    p = [f"{body}.p[{i}]" for i in (1, 2, 3)]
    difference = np.column_stack([weak[n] - reference[n] for n in p])
    return float(np.max(np.linalg.norm(difference, axis=1)))


def markdown(rows: list[DriftRow], scenario: Path) -> str:
    """The drift table as Markdown."""
    lines = [
        f"Drift of weak coupling with held constraint forces: `{scenario.name}`",
        "",
        "| macro step (s) | max position violation (m) | max angle violation (rad) "
        "| max trajectory error (m) | wall time (s) |",
        "| --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {r.macro_step:g} | {r.position_violation:.3g} | {r.angle_violation:.3g} "
        f"| {r.trajectory_error:.3g} | {r.wall_seconds:.2f} |"
        if not r.diverged
        else f"| {r.macro_step:g} | diverged: {r.diverged} | | | |"
        for r in rows
    ]
    return "\n".join(lines) + "\n"
