"""One scenario run: assembly, controllers, master, recorders (files and memory), plots."""

from __future__ import annotations

import difflib
import shutil
import time as clock
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import tomli_w

from orchestrator.errors import FMUError, ScenarioError, SimulationError
from orchestrator.fmi.folder import fmu_folder
from orchestrator.master.assembly import assemble
from orchestrator.master.master import Master, RunStatistics
from orchestrator.master.probe import Probe
from orchestrator.master.summary import run_summary
from orchestrator.recording.files import file_recorders
from orchestrator.recording.folder import claim_folder
from orchestrator.recording.patterns import matches
from orchestrator.recording.provenance import read_run_record, run_record, write_run_record
from orchestrator.recording.tables import (
    FORMATS,
    EventsTee,
    EventTable,
    ResultsFolderLock,
    TimeseriesTable,
    TimeseriesTee,
)
from orchestrator.runner.breadcrumbs import Breadcrumbs, BreadcrumbTrail
from orchestrator.runner.interrupts import signal_name, signal_of
from orchestrator.runner.observers import Callback, ProgressBar, UserCallback
from orchestrator.scenario.model import Scenario
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.columns import column_units
from orchestrator.system.system import System

if TYPE_CHECKING:
    from orchestrator.controllers.base import Controller
    from orchestrator.master.protocols import Observer


class StopRun(Exception):  # noqa: N818 - a request, not an error
    """Raised by a callback to end the run at the current communication point; the message,
    if any, is the reason recorded in the ``callback_stop`` event."""


@dataclass
class RunResult:
    """What a run produced: files (None when kept in memory only), tables and counters.

    ``table`` holds the recorded rows (``columns``, with ``units``; only the last one when
    the rows went to files, see :func:`simulate`), ``event_table`` every event;
    ``final_state`` is the state vector at the end of the run: the stop time, or the time an
    FMU asked to terminate the run (a ``terminated`` event); None when a callback stopped it.
    """

    out_dir: Path | None
    timeseries: Path | None
    events: Path | None
    statistics: RunStatistics
    final_state: np.ndarray | None
    columns: list[str]
    units: dict[str, str]
    table: TimeseriesTable
    event_table: EventTable


def run_scenario(
    path: Path,
    out_dir: Path,
    fmu_dir: Path | None = None,
    progress: bool = False,
    plots: bool = True,
    breadcrumbs: Breadcrumbs | None = None,
    formats: Sequence[str] = ("csv",),
    callback: Callback | None = None,
    overwrite: bool = True,
) -> RunResult:
    """Run the scenario file ``path``; results go to ``out_dir`` while the run goes.

    ``out_dir`` is locked for the run (a second run into it is refused) and claimed as
    :func:`simulate` does (``overwrite``). However the run ends,
    ``events.csv`` ends with a ``stop`` row, after an ``interrupted`` (naming Ctrl-C or SIGTERM)
    or ``error`` row
    when it did not reach the stop time, or a ``terminated`` row when an FMU asked to end it
    (a normal end); each gives the simulation time reached (s) and the wall time since the
    start (s). ``breadcrumbs``, given by a supervisor, record every FMI call on the way in and
    the time reached at every macro step.
    """
    path = Path(path)
    return simulate(
        load_scenario(path),
        str(path),
        Path(out_dir),
        fmu_dir,
        progress=progress,
        plots=plots,
        formats=formats,
        callback=callback,
        scenario_file=path,
        keep_rows=False,
        breadcrumbs=breadcrumbs,
        overwrite=overwrite,
    )


def scenario_toml(scenario: Scenario) -> str:
    """The scenario as TOML text that loads back into an equal scenario."""
    data = scenario.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True)
    return tomli_w.dumps(data)


def simulate(
    scenario: Scenario,
    source: str,
    out_dir: Path | None,
    fmu_dir: Path | None = None,
    *,
    progress: bool = False,
    plots: bool = False,
    formats: Sequence[str] = ("csv",),
    callback: Callback | None = None,
    scenario_file: Path | None = None,
    keep_rows: bool = True,
    breadcrumbs: Breadcrumbs | None = None,
    overwrite: bool = True,
    controllers: Sequence[Controller] = (),
) -> RunResult:
    """Run a validated scenario.

    ``source`` (its file, or ``<scenario>``) names it in errors, and its folder is where
    relative paths start (the current directory for ``<scenario>``). With ``out_dir`` None the
    results stay in memory only; otherwise ``out_dir`` is locked for the run and ``formats``
    (csv, parquet, mcap) are written there while the run goes, with ``run.json``
    (:mod:`orchestrator.recording.provenance`, its summary written when the run ends). A folder
    holding another run's files is emptied of them when ``overwrite`` (the default here: the callers
    of this layer, sweeps and studies, own their folders; ``murcosim run`` and
    ``murcosim.run`` refuse unless asked), else refused (:mod:`orchestrator.recording.folder`).
    ``callback(time, probe)`` is
    called at every communication point; raising :class:`StopRun` there ends the run at that
    point. ``keep_rows`` False keeps only the last recorded row in memory (the files hold
    them all). ``controllers`` are controller objects run after the scenario's own (each
    :meth:`~orchestrator.controllers.base.Controller.reset` first).
    """
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ScenarioError(f"{source}: formats: unknown {unknown} (expected some of {FORMATS})")
    if scenario.cosimulation:
        from orchestrator.master.weak import check_supported

        check_supported(scenario, source)
    folder = fmu_folder(scenario, Path(source).parent, source, fmu_dir)
    with ResultsFolderLock(out_dir) if out_dir is not None else nullcontext():
        if out_dir is not None:
            claim_folder(out_dir, overwrite, keep=scenario_file)
        result = _run(
            scenario, source, out_dir, folder, progress, formats, callback, scenario_file,
            keep_rows, breadcrumbs, controllers,
        )  # fmt: skip
        if out_dir is not None:
            record = read_run_record(out_dir) or {}
            summary = run_summary(result.event_table, result.table, result.statistics)
            write_run_record(out_dir, {**record, "summary": summary})
    if plots and out_dir is not None:
        from orchestrator.visualization.plots import plot_run

        plot_run(out_dir)
    return result


def _run(
    scenario: Scenario,
    source: str,
    out_dir: Path | None,
    fmu_dir: Path,
    progress: bool,
    formats: Sequence[str],
    callback: Callback | None,
    scenario_file: Path | None,
    keep_rows: bool,
    breadcrumbs: Breadcrumbs | None,
    given: Sequence[Controller] = (),
) -> RunResult:
    if out_dir is not None:
        copy = out_dir / "scenario.toml"
        if scenario_file is None:
            copy.write_text(scenario_toml(scenario), encoding="utf-8")
        elif not copy.exists() or not scenario_file.samefile(copy):
            shutil.copyfile(scenario_file, copy)
    system = System(scenario, source, fmu_dir)
    if breadcrumbs:
        breadcrumbs.watch(system)
    try:
        sim = scenario.simulation
        parts = assemble(system, given)
        x0, coupling, controllers = parts.x0, parts.coupling, parts.controllers
        own = [n for c in controllers for n in c.outputs if n.startswith(c.name + ".")]
        joint_columns = coupling.column_names() if coupling else []
        record = _recorded(system.recorded_names() + own + joint_columns, scenario.record, source)
        units = column_units(system, coupling.joint_names() if coupling else [], record)
        if out_dir is not None:
            fmus = [instance.fmu.path for instance in system.instances.values()]
            every = {"time": "s", **{name: units.get(name, "") for name in record}}
            write_run_record(out_dir, run_record(scenario_file, fmu_dir, fmus, formats, every))
        table, event_table = TimeseriesTable(record, keep_rows), EventTable()
        files = file_recorders(formats, out_dir, record, units) if out_dir is not None else None
        timeseries = TimeseriesTee([table, *(files.timeseries if files else [])])
        events = EventsTee([event_table, *(files.events if files else [])])
        probe = Probe(system)
        observers: list[Observer] = []
        if breadcrumbs:
            observers.append(BreadcrumbTrail(breadcrumbs, lambda: master.evaluations()))
        if progress:
            observers.append(ProgressBar(sim.start_time, sim.stop_time - sim.start_time))
        if callback is not None:
            observers.append(UserCallback(callback, probe))
        master = Master(
            system,
            controllers,
            sim,
            timeseries,
            events,
            record,
            observers,
            coupling,
            scenario.events,
            scenario.cosimulation,
        )
        probe.bind(master)
        time_reached = sim.start_time
        started = clock.perf_counter()
        try:
            final = master.run(x0)
            time_reached = master.time  # the stop time, or where an FMU asked to end the run
        except StopRun as stop:
            time_reached, final = master.time, None
            events.log(time_reached, "callback_stop", str(stop) or "stopped by the callback")
        except KeyboardInterrupt as interrupt:  # Ctrl-C, or SIGTERM (interrupts.Interrupted)
            time_reached = master.time
            what = signal_name(signal_of(interrupt))
            events.log(time_reached, "interrupted", _after(started, what))
            raise
        except (SimulationError, FMUError, np.linalg.LinAlgError) as exc:
            time_reached = master.time
            events.log(time_reached, "error", _after(started, str(exc)))
            kept = f" (results so far in {out_dir})" if out_dir is not None else ""
            raise SimulationError(
                f"{source}: run stopped at t = {time_reached:.6g} s: {exc}{kept}"
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
            timeseries.close()
            events.close()
    finally:
        system.close()
    return RunResult(
        out_dir,
        files.csv_timeseries if files else None,
        files.csv_events if files else None,
        master.statistics,
        final,
        record,
        units,
        table,
        event_table,
    )


def _recorded(names: list[str], patterns: list[str] | None, source: str) -> list[str]:
    """The ``names`` that the scenario's ``record`` patterns select (all without patterns);
    a pattern that selects none is a ScenarioError naming it and the closest names."""
    if not patterns:
        return names
    for pattern in patterns:
        if not any(matches(n, pattern) for n in names):
            closest = difflib.get_close_matches(pattern, names, n=3, cutoff=0.0)
            raise ScenarioError(
                f"{source}: record: '{pattern}' matches no recordable variable (states, "
                "inputs, time-varying outputs, controller outputs, joint columns); closest: "
                + ", ".join(closest)
            )
    return [n for n in names if any(matches(n, p) for p in patterns)]


def _after(started: float, what: str) -> str:
    """``what``, with the wall time (s) since ``started`` (a ``perf_counter`` reading)."""
    return f"{what} after {clock.perf_counter() - started:.3g} s wall time"
