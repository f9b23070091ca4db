"""One scenario run from file to results: assembly, controllers, master, files and plots."""

from __future__ import annotations

import fnmatch
import shutil
import time as clock
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from orchestrator.errors import FMUError, SimulationError
from orchestrator.master import Master, RunStatistics
from orchestrator.results import EventLog, ResultsFolderLock, TimeseriesWriter
from orchestrator.scenario import Scenario, load_scenario
from orchestrator.system import System

if TYPE_CHECKING:
    from orchestrator.supervise import Breadcrumbs


@dataclass
class RunResult:
    """Where a run wrote its files, and its counters."""

    out_dir: Path
    timeseries: Path
    events: Path
    statistics: RunStatistics
    final_state: np.ndarray


def run_scenario(
    path: Path,
    out_dir: Path,
    fmu_dir: Path,
    progress: bool = False,
    plots: bool = True,
    breadcrumbs: Breadcrumbs | None = None,
) -> RunResult:
    """Run the scenario file ``path``; results go to ``out_dir`` while the run goes.

    ``out_dir`` is locked for the run (a second run into it is refused). However the run ends,
    ``events.csv`` ends with a ``stop`` row, after an ``interrupted`` (Ctrl-C) or ``error`` row
    when it did not reach the stop time; each gives the simulation time reached (s) and the
    wall time since the start (s). ``breadcrumbs``, given by a supervisor, record every FMI
    call on the way in and the time reached at every macro step.
    """
    scenario = load_scenario(path)
    if scenario.cosimulation:
        from orchestrator.cosim import check_supported

        check_supported(scenario, str(path))
    with ResultsFolderLock(out_dir):
        result = _run_locked(scenario, Path(path), Path(out_dir), fmu_dir, progress, breadcrumbs)
    if plots:
        from orchestrator.plots import plot_run

        plot_run(out_dir)
    return result


def _run_locked(
    scenario: Scenario,
    path: Path,
    out_dir: Path,
    fmu_dir: Path,
    progress: bool,
    breadcrumbs: Breadcrumbs | None,
) -> RunResult:
    if not (out_dir / "scenario.toml").exists() or not path.samefile(out_dir / "scenario.toml"):
        shutil.copyfile(path, out_dir / "scenario.toml")
    system = System(scenario, str(path), fmu_dir)
    if breadcrumbs:
        breadcrumbs.watch(system)
    try:
        sim = scenario.simulation
        x0 = system.initialize(sim.start_time, scenario.environment.current)
        coupling = None
        if scenario.joints or scenario.docking or scenario.events:
            from orchestrator.coupling.runtime import ConstraintCoupling

            coupling = ConstraintCoupling(
                system, scenario.joints, scenario.docking, scenario.coupling, x0
            )
            x0 = coupling.project(x0)
        controllers = []
        if scenario.controllers:
            from orchestrator.controllers import make_controllers

            controllers = make_controllers(system, coupling, x0)
        own = [n for c in controllers for n in c.outputs if n.startswith(c.name + ".")]
        if scenario.record:
            own = [n for n in own if any(fnmatch.fnmatchcase(n, p) for p in scenario.record)]
        joint_columns = coupling.column_names() if coupling else []
        if scenario.record:
            joint_columns = [
                n for n in joint_columns if any(fnmatch.fnmatchcase(n, p) for p in scenario.record)
            ]
        record = system.recorded_names(scenario.record) + own + joint_columns
        timeseries = TimeseriesWriter(out_dir / "timeseries.csv", record)
        events = EventLog(out_dir / "events.csv")
        bar = tqdm(
            total=sim.stop_time - sim.start_time,
            disable=not progress,
            leave=False,
            bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} s simulated [{elapsed}<{remaining}]",
        )
        last = [sim.start_time]

        def advance(time: float) -> None:
            if breadcrumbs:
                breadcrumbs.at_time(time)
            bar.update(time - last[0])
            last[0] = time

        master = Master(
            system,
            controllers,
            sim,
            timeseries,
            events,
            record,
            advance,
            coupling,
            scenario.events,
            scenario.cosimulation,
        )
        time_reached = sim.start_time
        started = clock.perf_counter()
        try:
            final = master.run(x0)
            time_reached = sim.stop_time
        except KeyboardInterrupt:
            time_reached = master.time
            events.log(time_reached, "interrupted", _after(started, "Ctrl-C"))
            raise
        except (SimulationError, FMUError) as exc:
            time_reached = master.time
            events.log(time_reached, "error", _after(started, str(exc)))
            raise SimulationError(
                f"{path}: run stopped at t = {time_reached:.6g} s: {exc} "
                f"(results so far in {out_dir})"
            ) from None
        except Exception as exc:  # a fault not foreseen is recorded, then reported as it is
            time_reached = master.time
            events.log(time_reached, "error", _after(started, f"{type(exc).__name__}: {exc}"))
            raise
        finally:
            stats = master.statistics
            events.log(
                time_reached,
                "stop",
                f"{stats.rhs_evaluations} right-hand-side evaluations, "
                f"{stats.controller_faults} controller fault(s), "
                f"{clock.perf_counter() - started:.3g} s wall time",
            )
            bar.close()
            timeseries.close()
            events.close()
    finally:
        system.close()
    return RunResult(out_dir, timeseries.path, events.path, master.statistics, final)


def _after(started: float, what: str) -> str:
    """``what``, with the wall time (s) since ``started`` (a ``perf_counter`` reading)."""
    return f"{what} after {clock.perf_counter() - started:.3g} s wall time"
