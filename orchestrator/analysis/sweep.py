"""Batches of runs of one scenario with varied values, each case isolated.

``murcosim sweep SCENARIO --runs 30 --vary follower.p[1]=-5:-2 --vary
"controllers.autopilot.gains.depth.kp=grid(30,90,3)"`` draws or steps through the varied
scenario values (``variations.py``: any key, uniform, normal, choice, grid, Latin hypercube),
checks every case before any starts, and runs every case in its own supervised process
(``supervise.py``): a case that crashes is recorded as failed and the others go on.

The sweep folder holds ``run_NNN/`` per case (its results, also as ``timeseries.parquet``),
``manifest.json`` (the scenario's and FMUs' hashes, seed, variations, and per case the drawn
values, status and wall time) and the table ``sweep.csv`` / ``sweep.parquet`` (drawn values,
status, wall time, the chosen metrics, the message of a failed case). Running the same sweep
into the same folder again resumes it: finished cases (done or failed) are not run again.
Cases run in local processes (``workers`` at a time) or on a Dask cluster (``scheduler``), in
its default configuration too: the case's process is a new program, which a daemonic worker
may start as any caller does (``runner/supervise.py``). A case
whose worker is lost (killed, out of memory) and that Dask cannot rerun stays pending: the sweep
ends with one line saying so, and running it again resumes it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
import time as clock
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import tomli_w
from tqdm import tqdm

from orchestrator.analysis.sweep_table import (
    DOCK_TIME,
    Metric,
    case_metrics,
    timeseries_to_parquet,
    write_table,
)
from orchestrator.analysis.variations import Value, Variation, check, default_runs, draw
from orchestrator.errors import MurcosimError, ScenarioError
from orchestrator.fmi.folder import fmu_folder
from orchestrator.recording.tables import ResultsFolderLock
from orchestrator.runner.supervise import run_supervised
from orchestrator.scenario.reading import load_scenario, read_scenario_data, read_scenario_text

MANIFEST = "manifest.json"


@dataclass
class Case:
    """One run of the sweep: its drawn values and, once run, how it ended."""

    run: int
    values: dict[str, Value]
    status: str = "pending"  # then "done" or "failed"
    wall_seconds: float = math.nan
    message: str = ""

    @property
    def folder_name(self) -> str:
        return f"run_{self.run:03d}"


def _with_fmu_paths(base: dict, folder: Path) -> dict:
    """The scenario data with FMU paths and user controllers' module folders made absolute
    (a case's file lives elsewhere)."""
    components = {}
    for name, component in base["components"].items():
        component = dict(component)
        if str(component.get("fmu", "")).endswith(".fmu"):
            component["fmu"] = str((folder / component["fmu"]).resolve())
        components[name] = component
    controllers = {}
    for name, controller in base.get("controllers", {}).items():
        if isinstance(controller, dict) and "class" in controller:
            modules = folder / controller.get("module_folder", ".")
            controller = {**controller, "module_folder": str(modules.resolve())}
        controllers[name] = controller
    return {**base, "components": components, "controllers": controllers}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _identity(
    scenario: Path, base: dict, fmu_dir: Path, seed: int, variations: list, design: str
) -> dict:
    """What a resumed sweep must share with the first: scenario, FMUs, seed, variations (and
    a design other than random)."""
    fmus = {}
    for component in base["components"].values():
        name = str(component.get("fmu", ""))
        path = scenario.parent / name if name.endswith(".fmu") else fmu_dir / f"{name}.fmu"
        if path.is_file():
            fmus[name] = _sha256(path)
    return {
        "scenario_sha256": _sha256(scenario),
        "fmus_sha256": fmus,
        "seed": seed,
        "variations": [v.canonical() for v in variations]
        + ([f"design={design}"] if design != "random" else []),
    }


def _resume(out: Path, identity: dict, cases: list[Case]) -> None:
    """Take the outcomes of a previous run of this sweep from its manifest."""
    path = out / MANIFEST
    if not path.is_file():
        return
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        previous = {c["run"]: c for c in manifest["cases"]}
        kept = {key: manifest[key] for key in identity}
    except (ValueError, KeyError, TypeError):
        raise MurcosimError(f"{path}: not a sweep manifest; choose another --out") from None
    for key, value in identity.items():
        if kept[key] != value:
            raise MurcosimError(
                f"{path}: a different sweep ({key} differs) is in this folder; choose another --out"
            )
    for case in cases:
        old = previous.get(case.run)
        if old and old["values"] == case.values and old["status"] in ("done", "failed"):
            case.status, case.wall_seconds, case.message = (
                old["status"],
                old["wall_seconds"],
                old["message"],
            )


def _save(out: Path, identity: dict, cases: list[Case]) -> None:
    """Write the manifest atomically (a sweep stopped while writing keeps the previous one)."""
    path = out / MANIFEST
    partial = path.with_suffix(".json.partial")
    data = {**identity, "cases": [asdict(c) for c in cases]}
    partial.write_text(json.dumps(data, indent=1, allow_nan=True), encoding="utf-8")
    os.replace(partial, path)


def run_case(
    folder: Path, fmu_dir: Path, stall_seconds: float | None, stop: threading.Event | None
) -> tuple[str, float, str]:
    """Run the case in ``folder`` (``case.toml``) supervised; (status, wall time s, message).
    Ctrl-C (or ``stop``) is raised as ``KeyboardInterrupt``."""
    started = clock.perf_counter()
    try:
        run_supervised(
            folder / "case.toml",
            folder,
            fmu_dir,
            plots=False,
            stall_seconds=stall_seconds,
            stop=stop,
        )
        status, message = "done", ""
    except MurcosimError as exc:
        status, message = "failed", str(exc)
    timeseries_to_parquet(folder)
    return status, clock.perf_counter() - started, message


def run_sweep(
    scenario: Path,
    variations: list[Variation],
    runs: int | None,
    seed: int,
    out: Path,
    fmu_dir: Path | None = None,
    metrics: list[Metric] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool = False,
    stall_seconds: float | None = None,
    design: str = "random",
) -> Path:
    """Run (or resume) the cases of ``variations``: ``runs`` draws (None: 30, or 1 when
    every variation is a grid) for each combination of the grids' values, drawn with
    ``seed`` by ``design`` (``random`` or ``lhs``); returns the path of ``sweep.csv``. Every
    case is checked before any starts. The FMUs are found as ``murcosim run`` finds them for
    ``scenario`` (``fmu_dir``, if not None, else the scenario's ``fmu_dir``, else the nearest
    ``fmus``), once for every case.

    Raises ``ScenarioError`` for a bad variation or option (no case run), ``MurcosimError``
    when every case failed or cases were lost with their Dask workers (the others are kept:
    running the sweep again resumes it), ``KeyboardInterrupt`` on Ctrl-C (the finished cases
    are kept in the manifest).
    """
    if runs is None:
        runs = default_runs(variations)
    if runs < 1:
        raise ScenarioError(f"--runs: expected at least 1 run (got {runs})")
    if workers is not None and workers < 1:
        raise ScenarioError(f"--workers: expected at least 1 (got {workers})")
    scenario = Path(scenario)
    parsed = load_scenario(scenario)
    base = read_scenario_data(read_scenario_text(scenario), str(scenario))
    if metrics is None:
        metrics = [Metric.parse(DOCK_TIME)] if parsed.docking else []
    if any(m.column == DOCK_TIME for m in metrics) and not parsed.docking:
        raise ScenarioError(f"--metric {DOCK_TIME}: {scenario} has no docking pairs")
    values = draw(variations, runs, seed, design)
    cases = [Case(k, case) for k, case in enumerate(values)]
    fmu_dir = fmu_folder(parsed, scenario.parent, str(scenario), fmu_dir).resolve()
    located = _with_fmu_paths(base, scenario.parent)
    texts = check(variations, values, located, scenario.parent, fmu_dir)
    identity = _identity(scenario, base, fmu_dir, seed, variations, design)
    total, lost = len(cases), []
    with ResultsFolderLock(out):
        _resume(out, identity, cases)
        pending = [c for c in cases if c.status == "pending"]
        for case in pending:
            (out / case.folder_name).mkdir(exist_ok=True)
            (out / case.folder_name / "case.toml").write_text(tomli_w.dumps(texts[case.run]))
        _save(out, identity, cases)
        bar = tqdm(
            total=total,
            initial=total - len(pending),
            unit="case",
            disable=not progress,
            leave=False,
        )
        try:
            for case, (status, wall, message) in _execute(
                pending, out, fmu_dir, scheduler, workers, stall_seconds
            ):
                if status == "pending":  # lost with its worker: left for a resumed sweep
                    lost.append(message)
                    continue
                case.status, case.wall_seconds, case.message = status, wall, message
                _save(out, identity, cases)
                bar.update()
        finally:
            bar.close()
            _save(out, identity, cases)
        rows = [_row(c, out, metrics) for c in cases]
        table = write_table(out, rows)
    failed = sum(c.status == "failed" for c in cases)
    done = sum(c.status == "done" for c in cases)
    summary = f"{done} of {total} cases done, {failed} failed"
    if any(m.column == DOCK_TIME for m in metrics):
        summary += f", {sum(not math.isnan(r[DOCK_TIME]) for r in rows)} docked"
    if lost:
        raise MurcosimError(
            f"{scenario}: {len(lost)} case(s) lost with their Dask workers ({lost[0]}); "
            f"{summary}; run the same sweep again to resume it"
        )
    if failed == total:
        raise MurcosimError(f"{scenario}: every case of the sweep failed ({summary}); see {table}")
    print(f"{summary}; table in {table}")
    return table


def _row(case: Case, out: Path, metrics: list[Metric]) -> dict[str, object]:
    values = (
        case_metrics(out / case.folder_name, metrics)
        if case.status == "done"
        else {m.name: math.nan for m in metrics}
    )
    return {
        "run": case.run,
        **case.values,
        "status": case.status,
        "wall_seconds": case.wall_seconds,
        **values,
        "message": case.message,
    }


def _execute(
    pending: list[Case],
    out: Path,
    fmu_dir: Path,
    scheduler: str | None,
    workers: int | None,
    stall_seconds: float | None,
) -> Iterator[tuple[Case, tuple[str, float, str]]]:
    """(case, outcome) as the cases finish, locally or on the Dask cluster at ``scheduler``."""
    if scheduler:
        yield from _on_dask(pending, out, fmu_dir, scheduler, stall_seconds)
        return
    stop = threading.Event()
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        futures: dict[Future, Case] = {
            pool.submit(run_case, out / c.folder_name, fmu_dir, stall_seconds, stop): c
            for c in pending
        }
        try:
            for future in as_completed(futures):
                if isinstance(future.exception(), KeyboardInterrupt):
                    raise KeyboardInterrupt
                yield futures[future], future.result()
        except (KeyboardInterrupt, GeneratorExit):
            stop.set()  # running cases end as interrupted, waiting ones are not started
            for future in futures:
                future.cancel()
            raise


def _on_dask(
    pending: list[Case], out: Path, fmu_dir: Path, scheduler: str, stall_seconds: float | None
) -> Iterator[tuple[Case, tuple[str, float, str]]]:
    """(case, outcome) as the cases finish on the cluster; a case whose task erred (its
    workers were lost) comes as ("pending", NaN, the error)."""
    from distributed import Client
    from distributed import as_completed as dask_completed

    try:
        client = Client(scheduler, timeout=30)
    except OSError as exc:
        raise MurcosimError(f"--scheduler {scheduler}: cannot connect: {exc}") from None
    with client:
        futures: dict[Any, Case] = {
            client.submit(
                run_case, out / c.folder_name, fmu_dir, stall_seconds, None, pure=False
            ): c
            for c in pending
        }
        try:
            for future in dask_completed(list(futures)):
                case = futures.pop(future)
                if future.status == "error":  # a worker lost (killed) more often than allowed
                    error = future.exception()
                    outcome = ("pending", math.nan, f"{type(error).__name__}: {error}")
                else:
                    outcome = future.result()
                # forgotten by the cluster: a finished case is not run again when the worker
                # holding its outcome is lost
                future.release()
                yield case, outcome
        except (KeyboardInterrupt, GeneratorExit):
            client.cancel(list(futures))
            raise
