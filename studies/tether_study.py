"""Tether studies: ``python -m studies.tether_study [--parts turning steps] [--fmu-dir DIR]``.

``turning``: Nielsen's (2018, Ch. 6) two-vehicle turning run (``scenarios/bluerov_pair_turning
.toml``) without and with a tether on each vehicle (``MurCoSim.Tethers.Tether``), next to the
tank experiment, where the vehicles were tethered, and Nielsen's untethered simulation (eqs.
6.16-6.17). Reported per run: peak-to-peak x and y of the left vehicle after the thrust starts,
the steady speed U and yaw rate r over the last 10 s, the circle's diameter 2 U / r, and the
time the speed takes to rise to 90 % of U.
The tethers' routing in the tank is not published: here each runs from the vehicle's rear to a
fixed point 0.5 m above its start position (the tether tended from the surface), with the
Fathom tether's parameters.

``steps``: the tethered station-keeping scenario (``scenarios/bluerov2_heavy_tethered.toml``)
with fixed-step RK4 at a range of steps and with the adaptive solvers, each over 60 s: wall
time, right-hand sides, and the largest differences from an RK45 run at tight tolerances of the
vehicle's position and, once it holds station (10 s), of the tether's tension; a step is
stable when that tension stays within 0.1 N. The thrust allocation's dead band turns
differences of a micrometre into different thruster pulses, so the positions differ by
millimetres whatever the solver's own error.

``docking``: the same comparison for the realistic docking scenario
(``scenarios/docking_realistic.toml``) over its first 20 s, RK4 at 6 and 5 steps per 10 ms
and RK45 at rtol 1e-6: both vehicles' positions and both tethers' tensions. These tethers hang
mostly slack and snap taut in spikes of a few newtons whose timing no two solvers share to the
sample, so the tensions are compared as their means over each second.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

import murcosim
from murcosim.configuration import Component, Connection, Scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
TURNING = SCENARIOS / "bluerov_pair_turning.toml"
TETHERED = SCENARIOS / "bluerov2_heavy_tethered.toml"
DOCKING = SCENARIOS / "docking_realistic.toml"
PARTS = ("turning", "steps", "docking")
THRUST_START = 3.0  # s, the turning run's thrust step
# Nielsen (2018), eqs. 6.16-6.17: peak-to-peak x and y (m) of the rotational run.
THESIS = {"tank experiment (tethered)": (2.45, 2.34), "thesis simulation (no tether)": (2.42, 2.41)}


def with_tethers(
    scenario: Scenario,
    vehicles: tuple[str, ...],
    length: float,
    attachment: tuple[float, float, float],
    anchor_offset: tuple[float, float, float],
) -> Scenario:
    """``scenario`` with a ``Tether`` of ``length`` (m) from each vehicle's ``attachment``
    (body frame, m) to a fixed point at the vehicle's start position plus ``anchor_offset``
    (NED, m), its forces added to the vehicle's ``tau_ext``."""
    components = dict(scenario.components)
    connections = list(scenario.connections)
    for vehicle in vehicles:
        start = components[vehicle].start
        anchor = [float(start.get(f"p[{i + 1}]", 0.0)) + anchor_offset[i] for i in range(3)]
        name = f"{vehicle}_tether"
        parameters = {"L": length}
        parameters.update({f"r_a[{i + 1}]": attachment[i] for i in range(3)})
        parameters.update({f"r_b[{i + 1}]": anchor[i] for i in range(3)})
        components[name] = Component(fmu="Tether", parameters=parameters)
        for state in ("p", "q", "nu"):
            connections.append(Connection(source=f"{vehicle}.{state}", target=f"{name}.{state}_a"))
        connections.append(Connection(source=f"{name}.tau_a", target=f"{vehicle}.tau_ext"))
    return scenario.model_copy(update={"components": components, "connections": connections})


@dataclass(frozen=True)
class Turn:
    """One turning run: peak-to-peak x and y of the left vehicle (m), steady speed (m/s) and
    yaw rate (rad/s), and the circle's diameter 2 U / r (m)."""

    label: str
    span_x: float
    span_y: float
    speed: float = float("nan")
    yaw_rate: float = float("nan")
    rise: float = float("nan")  # s from the thrust step to 90 % of the steady speed

    @property
    def diameter(self) -> float:
        return 2 * self.speed / self.yaw_rate


def turn(label: str, timeseries: pd.DataFrame, steady: float) -> Turn:
    """Reduce a turning run to a ``Turn``: spans after the thrust starts, speed and yaw rate
    averaged over the last ``steady`` seconds, and the time the speed takes to reach 90 % of
    its steady value."""
    after = timeseries[timeseries.index >= THRUST_START]
    last = timeseries[timeseries.index >= timeseries.index[-1] - steady]
    speed = np.hypot(after["left.nu[1]"], after["left.nu[2]"]).to_numpy()
    steady_speed = float(np.hypot(last["left.nu[1]"], last["left.nu[2]"]).mean())
    rise = float(after.index[np.argmax(speed >= 0.9 * steady_speed)]) - THRUST_START
    return Turn(
        label,
        float(np.ptp(after["left.p[1]"])),
        float(np.ptp(after["left.p[2]"])),
        steady_speed,
        float(last["left.nu[6]"].mean()),
        rise,
    )


def turning_study(
    fmu_dir: Path | None,
    stop_time: float = 40.0,
    lengths: tuple[float, ...] = (4.0, 8.0),
    steady: float = 10.0,
) -> list[Turn]:
    """The turning run without tethers and with tethers of each of ``lengths`` (m)."""
    base = murcosim.load_scenario(TURNING)
    base = murcosim.edit(base, {"simulation": {"stop_time": stop_time}})
    runs = [("murcosim, no tether", base)]
    for length in lengths:
        tethered = with_tethers(base, ("left", "right"), length, (-0.2, 0.0, 0.0), (0, 0, -0.5))
        runs.append((f"murcosim, {length:g} m tethers", tethered))
    rows = [Turn(label, *spans) for label, spans in THESIS.items()]
    for label, scenario in runs:
        results = murcosim.run(scenario, source=TURNING, fmu_dir=fmu_dir, progress=False)
        rows.append(turn(label, results.timeseries, steady))
    return rows


def turning_table(rows: list[Turn]) -> str:
    """Markdown table of turning runs, with the spans relative to the tank experiment."""
    x0, y0 = THESIS["tank experiment (tethered)"]
    lines = [
        "| run | p-p x (m) | vs tank | p-p y (m) | vs tank | U (m/s) | r (rad/s) | 2U/r (m) "
        "| rise to 0.9 U (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        steady = (row.speed, row.yaw_rate, row.diameter, row.rise)
        cells = [
            row.label,
            f"{row.span_x:.2f}",
            f"{100 * (row.span_x / x0 - 1):+.1f} %",
            f"{row.span_y:.2f}",
            f"{100 * (row.span_y / y0 - 1):+.1f} %",
            *("-" if np.isnan(v) else f"{v:.3f}" for v in steady),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


TENSION_TOLERANCE = 0.1  # N: 10 % of the tethered scenario's settled tension, about 1 N


@dataclass(frozen=True)
class StepCase:
    """What the step study compares in one scenario: the ``positions`` (m) and ``tensions``
    (N) columns, the tensions from ``settled`` (s) on, as means over windows of ``window``
    (s; 0: sample by sample) of samples every ``output_interval`` (s; None: the scenario's)."""

    source: Path
    positions: tuple[str, ...]
    tensions: tuple[str, ...]
    settled: float = 0.0
    window: float = 0.0
    output_interval: float | None = None

    def tension_error(self, series: pd.DataFrame, reference: pd.DataFrame) -> float:
        """Largest difference (N) of the compared tensions between two runs."""
        kept = series.index >= self.settled
        difference = (
            series.loc[kept, list(self.tensions)] - reference.loc[kept, list(self.tensions)]
        )
        if self.window > 0:
            windows = np.floor((difference.index.to_numpy() + 1e-9) / self.window)
            difference = difference.groupby(windows).mean()
        return float(np.abs(difference.to_numpy()).max())


# The tethered scenario holds station from 10 s on.
TETHERED_CASE = StepCase(
    TETHERED, ("rov.p[1]", "rov.p[2]", "rov.p[3]"), ("tether.tension_a",), settled=10.0
)
DOCKING_CASE = StepCase(
    DOCKING,
    tuple(f"{vehicle}.p[{i}]" for vehicle in ("leader", "follower") for i in (1, 2, 3)),
    ("leader_tether.tension_a", "follower_tether.tension_a"),
    window=1.0,
    output_interval=0.01,
)
ADAPTIVE_STEP = 0.05  # s: the adaptive solvers' largest step (not the scenario's RK4 step)


@dataclass(frozen=True)
class StepRun:
    """One run of a step study: solver, step (s), wall time of the run loop (s), right-hand
    sides, and the largest differences from the reference run in the vehicles' positions (m)
    and in the tethers' tensions at the vehicles (N, as the :class:`StepCase` compares them);
    NaN for a run that diverged."""

    solver: str
    step: float
    wall: float = float("nan")
    rhs: int = 0
    position_error: float = float("nan")
    tension_error: float = float("nan")

    @property
    def status(self) -> str:
        """``stable``; ``oscillates`` when the tension is off by more than 0.1 N (a
        step too long for the tether's axial modes makes segments ring between slack and
        taut, which bounds the error instead of letting it grow); ``diverges`` when the run
        stopped."""
        if np.isnan(self.tension_error):
            return "diverges"
        return "stable" if self.tension_error < TENSION_TOLERANCE else "oscillates"


def _run_steps(scenario: Scenario, source: Path, fmu_dir: Path | None) -> murcosim.Results | None:
    """Run ``scenario`` (from the file ``source``); None if it diverged."""
    try:
        return murcosim.run(scenario, source=source, fmu_dir=fmu_dir, progress=False)
    except murcosim.SimulationError:
        return None


def step_study(
    fmu_dir: Path | None,
    rk4_steps: tuple[float, ...] = (0.00025, 0.0005, 0.001, 0.0015, 0.0019, 0.002, 0.003),
    adaptive: tuple[str, ...] = ("RK45", "CVODE_BDF"),
    stop_time: float = 60.0,
    case: StepCase = TETHERED_CASE,
) -> list[StepRun]:
    """RK4 at each of ``rk4_steps`` and the ``adaptive`` solvers (at the scenario's
    tolerances) over ``stop_time`` (s, more than the case's ``settled``), compared with an
    RK45 run at tight tolerances (rtol 1e-9, atol 1e-11)."""
    base = murcosim.load_scenario(case.source)
    if case.output_interval is not None:
        base = murcosim.edit(base, {"simulation": {"output_interval": case.output_interval}})
    tight = {"stop_time": stop_time, "solver": "RK45", "rtol": 1e-9, "atol": 1e-11}
    tight["step"] = ADAPTIVE_STEP
    reference = _run_steps(murcosim.edit(base, {"simulation": tight}), case.source, fmu_dir)

    def compare(solver: str, step: float, scenario: Scenario) -> StepRun:
        results = _run_steps(scenario, case.source, fmu_dir)
        if results is None:
            return StepRun(solver, step)
        series = results.timeseries
        ref = reference.timeseries.loc[series.index]
        position = max(float(np.abs(series[c] - ref[c]).max()) for c in case.positions)
        statistics = results.statistics
        wall, rhs = statistics.wall_seconds, statistics.rhs_evaluations
        return StepRun(solver, step, wall, rhs, position, case.tension_error(series, ref))

    rows = []
    for step in rk4_steps:
        changes = {"simulation": {"stop_time": stop_time, "solver": "RK4", "step": step}}
        rows.append(compare("RK4", step, murcosim.edit(base, changes)))
    for solver in adaptive:
        changes = {"simulation": {"stop_time": stop_time, "solver": solver, "step": ADAPTIVE_STEP}}
        scenario = murcosim.edit(base, changes)
        rows.append(compare(solver, scenario.simulation.step, scenario))
    return rows


def step_table(rows: list[StepRun], tension: str = "max settled tension diff (N)") -> str:
    """Markdown table of the step study, ``tension`` the last column's heading."""
    lines = [
        f"| solver | step (s) | status | wall (s) | right-hand sides | max position diff (m) "
        f"| {tension} |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        detail = (
            "- | - | - | -"
            if row.status == "diverges"
            else f"{row.wall:.2f} | {row.rhs} | {row.position_error:.1e} | {row.tension_error:.1e}"
        )
        lines.append(f"| {row.solver} | {row.step:g} | {row.status} | {detail} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.tether_study", description=__doc__)
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--fmu-dir", type=Path, default=None, help="FMU folder")
    args = parser.parse_args(argv)
    if "turning" in args.parts:
        print(turning_table(turning_study(args.fmu_dir)))
    if "steps" in args.parts:
        print(step_table(step_study(args.fmu_dir)))
    if "docking" in args.parts:
        rows = step_study(
            args.fmu_dir, (0.00167, 0.002), ("RK45",), stop_time=20.0, case=DOCKING_CASE
        )
        print(step_table(rows, "max diff of 1 s mean tensions (N)"))


if __name__ == "__main__":
    main()
