"""A results folder belongs to one run: the files murcosim writes there, and claiming a folder.

A run writes into its folder ``timeseries.csv``, ``timeseries.parquet``, ``run.mcap``,
``events.csv``, ``scenario.toml`` and ``run.json`` (:mod:`orchestrator.recording.provenance`);
``murcosim plot`` adds the plots (PNG files named in :data:`PLOT_PATTERNS`) and ``murcosim replay``
``replay.html``. A folder holding any of these from an earlier run is refused for a new run,
or emptied of them when the caller asks for it (``overwrite``). Only these files are removed:
a folder that must be emptied but also holds anything else (a user's file or folder) is
refused, naming what it holds. The scenario file being run may sit in the folder (a results
folder's ``scenario.toml`` run again into it; a sweep's ``case.toml``): it is kept. A run that
stopped in its set-up (a scenario the assembly refused) leaves only :data:`SET_UP_FILES` and no
results: those are replaced by the next run without asking, so that running again after
fixing the scenario is not refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path

from orchestrator.errors import MurcosimError
from orchestrator.recording.tables import LOCK_NAME, ResultsFolderLock

RUN_FILES = (
    "timeseries.csv",
    "timeseries.parquet",
    "run.mcap",
    "events.csv",
    "scenario.toml",
    "run.json",
    "run.json.partial",
    "replay.html",
)
# The plots of orchestrator.visualization.plots: summary, study figures and the per-body figures.
PLOT_PATTERNS = (
    "summary.png",
    "thrusters.png",
    "autopilot.png",
    "bodies_plan.png",
    "joints.png",
    "joint_tracking.png",
    "rendezvous_*.png",
    "navigation_*.png",
    "*_trajectory.png",
    "*_attitude.png",
    "*_velocity.png",
)
SET_UP_FILES = ("scenario.toml", "run.json", "run.json.partial")  # written before any result
SHOWN = 4  # names shown in a refusal


def is_run_output(name: str) -> bool:
    """Whether a file called ``name`` is one murcosim writes into a results folder."""
    return name in RUN_FILES or any(fnmatchcase(name, p) for p in PLOT_PATTERNS)


def _names(paths: Iterable[Path]) -> str:
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in paths)
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def claim_folder(folder: Path, overwrite: bool, keep: Path | None = None) -> None:
    """Make ``folder`` ready for a new run: refused when it holds another run's files (unless
    ``overwrite``, which removes them). ``keep`` (the scenario file being run) is neither
    counted nor removed. Call it while holding the folder's lock
    (:class:`orchestrator.recording.tables.ResultsFolderLock`)."""
    folder = Path(folder)
    entries = [
        p
        for p in folder.iterdir()
        if p.name != LOCK_NAME and not (keep is not None and p.exists() and p.samefile(keep))
    ]
    outputs = [p for p in entries if p.is_file() and is_run_output(p.name)]
    if not outputs:
        return
    if all(p.name in SET_UP_FILES for p in outputs):  # a run that produced no results
        for path in outputs:
            path.unlink()
        return
    if not overwrite:
        raise MurcosimError(
            f"{folder}: results folder holds another run's files ({_names(outputs)}); choose "
            "another folder, or empty it with --overwrite (overwrite=True in murcosim.run)"
        )
    others = [p for p in entries if p not in outputs]
    if others:
        raise MurcosimError(
            f"{folder}: results folder holds another run's files and others murcosim did not "
            f"write ({_names(others)}); not emptied: remove them or choose another folder"
        )
    for path in outputs:
        path.unlink()


def prepare_folder(folder: Path, overwrite: bool, keep: Path | None = None) -> None:
    """:func:`claim_folder` under the folder's lock, before a run that takes the lock again
    in another process (``murcosim run``: refused before the run's process is started)."""
    with ResultsFolderLock(folder):
        claim_folder(folder, overwrite, keep)
