"""Running one regression case: a scenario file, or an FMU alone with its DefaultExperiment.

Both run in memory through the strong-coupling master, as ``murcosim run`` runs a scenario.
An FMU alone becomes a one-component scenario (component name ``m``, left out of the column
names, so the signals are the FMU's variable names); inputs from a CSV become a schedule that
holds each row's values from its time on (the rows' times must lie on the recording grid).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from orchestrator.analysis.regression.suite import Case
from orchestrator.errors import ScenarioError
from orchestrator.runner.run import simulate
from orchestrator.scenario.model import (
    Component,
    Scenario,
    ScheduleConfig,
    ScheduleStep,
    Simulation,
)
from orchestrator.scenario.reading import load_scenario

ALONE = "m"  # the component name of an FMU run alone
POINTS = 500  # recording intervals of an FMU run alone without stepSize or output_interval


@dataclass
class CaseRun:
    """A case's results: ``time`` (s), the columns by signal name with their ``units``, and the
    events as ``(time, kind)`` in the order they happened."""

    time: np.ndarray
    columns: dict[str, np.ndarray]
    units: dict[str, str]
    events: list[tuple[float, str]]


def run_case(case: Case, base: Path, where: str) -> CaseRun:
    """Run ``case``; ``base`` is the suite's folder, ``where`` names the case in errors."""
    if case.scenario is not None:
        source = base / case.scenario
        scenario = load_scenario(source)
        if case.stop_time is not None:
            scenario = _with_stop_time(scenario, case.stop_time, f"{where}.stop_time")
        fmu_dir = base / case.fmu_dir if case.fmu_dir is not None else None
        result = simulate(scenario, str(source), None, fmu_dir)
        prefix = ""
    else:
        scenario = _alone(case, base, where)
        result = simulate(scenario, where, None, base)
        prefix = f"{ALONE}."
    rows = np.array(result.table.rows, dtype=float).reshape(len(result.table.times), -1)
    columns = {name.removeprefix(prefix): rows[:, k] for k, name in enumerate(result.columns)}
    units = {name.removeprefix(prefix): unit for name, unit in result.units.items()}
    events = [(time, kind) for time, kind, _ in result.event_table.rows]
    return CaseRun(np.array(result.table.times), columns, units, events)


def _with_stop_time(scenario: Scenario, stop_time: float, key: str) -> Scenario:
    data = scenario.simulation.model_dump()
    try:
        simulation = Simulation.model_validate({**data, "stop_time": stop_time})
    except ValidationError as exc:
        raise ScenarioError(f"{key}: {exc.errors()[0]['msg']}") from None
    if stop_time <= simulation.start_time:
        raise ScenarioError(f"{key}: {stop_time} s is not after the start time")
    return scenario.model_copy(update={"simulation": simulation})


def _experiment(fmu: Path, where: str) -> dict[str, float]:
    """The FMU's DefaultExperiment attributes (startTime, stopTime, tolerance, stepSize)."""
    from fmpy import read_model_description

    if not fmu.is_file():
        raise ScenarioError(f"{where}.fmu: {fmu} not found")
    try:
        experiment = read_model_description(str(fmu)).defaultExperiment
    except Exception as exc:  # noqa: BLE001 - FMPy raises anything on a broken archive
        problem = f"cannot read its model description ({exc})"
        raise ScenarioError(f"{where}.fmu: {fmu}: {problem}") from None
    keys = ("startTime", "stopTime", "tolerance", "stepSize")
    if experiment is None:
        return {}
    return {k: float(getattr(experiment, k)) for k in keys if getattr(experiment, k) is not None}


def _alone(case: Case, base: Path, where: str) -> Scenario:
    fmu = (base / str(case.fmu)).resolve()
    experiment = _experiment(fmu, where)
    start = experiment.get("startTime", 0.0)
    stop = case.stop_time or experiment.get("stopTime")
    if stop is None:
        raise ScenarioError(
            f"{where}.stop_time: {fmu.name} has no DefaultExperiment stopTime (expected the "
            "case's stop_time)"
        )
    interval = case.output_interval or experiment.get("stepSize") or (stop - start) / POINTS
    simulation: dict[str, float | str] = {
        "start_time": start,
        "stop_time": stop,
        "output_interval": interval,
    }
    if "tolerance" in experiment:
        simulation["rtol"] = min(max(experiment["tolerance"], 1e-12), 0.1)
    controllers = {}
    if case.inputs is not None:
        steps = _input_steps(base / case.inputs, interval, start, f"{where}.inputs")
        controllers["inputs"] = ScheduleConfig(type="schedule", sample_time=interval, steps=steps)
    try:
        return alone_scenario(fmu, simulation, case.parameters, case.start, controllers)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(p) for p in error["loc"])
        raise ScenarioError(f"{where}: {key}: {error['msg']}") from None


def alone_scenario(
    fmu: Path,
    simulation: dict[str, float | str],
    parameters: dict[str, float | bool | str],
    start: dict[str, float | bool | str],
    controllers: dict[str, ScheduleConfig] | None = None,
    interface: str | None = None,
) -> Scenario:
    """A scenario that runs the FMU file ``fmu`` alone as component ``m`` (``interface``
    model_exchange or co_simulation, default the master's choice); pydantic checks the values."""
    component = Component(
        fmu=fmu.as_posix(), parameters=parameters, start=start, interface=interface
    )
    return Scenario(
        simulation=Simulation(**simulation),
        components={ALONE: component},
        controllers=controllers or {},
    )


def _input_steps(path: Path, interval: float, start: float, key: str) -> list[ScheduleStep]:
    """The rows of an inputs CSV as schedule steps on ``m``'s inputs."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
    except OSError as exc:
        raise ScenarioError(f"{key}: cannot read {path} ({exc.strerror})") from None
    if not rows or not rows[0] or rows[0][0].strip() != "time" or len(rows[0]) < 2:
        raise ScenarioError(f"{key}: {path}: expected a header 'time,<input>,...'")
    names = [name.strip() for name in rows[0][1:]]
    steps = []
    for number, row in enumerate(rows[1:], start=2):
        try:
            values = [float(cell) for cell in row]
        except ValueError:
            raise ScenarioError(f"{path}:{number}: expected numbers, got {row}") from None
        if len(values) != len(names) + 1 or not all(map(math.isfinite, values)):
            raise ScenarioError(f"{path}:{number}: expected {len(names) + 1} finite numbers")
        time = values[0]
        ticks = (time - start) / interval
        if time < start or abs(ticks - round(ticks)) > 1e-9 * max(1.0, ticks):
            raise ScenarioError(
                f"{path}:{number}: time {time} s is not on the recording grid ({start} s + k "
                f"{interval} s), where the inputs are applied"
            )
        steps.append(ScheduleStep(time=time, values={f"{ALONE}.{n}": v for n, v in zip(
            names, values[1:], strict=True)}))  # fmt: skip
    if not steps:
        raise ScenarioError(f"{key}: {path}: no rows")
    return steps
