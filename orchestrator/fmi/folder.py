"""Where a command finds the FMUs its components name: one rule for every command.

A component's ``fmu = "BlueROV2Heavy"`` means ``<FMU folder>/BlueROV2Heavy.fmu``; a value
ending in ``.fmu`` is a file path relative to the scenario file (``System`` resolves it). The
FMU folder is, first found:

1. the folder given (``--fmu-dir`` of any command, ``murcosim.run(fmu_dir=...)``), relative
   to the current directory;
2. the scenario's ``fmu_dir`` key, relative to the scenario file;
3. a folder ``fmus`` next to the scenario file or in the nearest folder above it that has one
   (``scenarios/x.toml`` finds the project's ``fmus/``). A scenario whose components all name
   their ``.fmu`` files needs no FMU folder.

Where there is no scenario file the search of 3. starts elsewhere: a scenario built in Python
and the commands without a scenario (``check``, ``crosscheck``, ``bench``, ``info``,
``regress --variants``) search from the current directory; ``replay`` takes the folder its
results folder records (``run.json``), else searches from the results folder.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.errors import ScenarioError

if TYPE_CHECKING:  # the scenario model is needed only by the functions given one
    from orchestrator.scenario.model import Scenario

DEFAULT_NAME = "fmus"
GIVEN = "--fmu-dir"
RUN_RECORD = "run.json"  # a results folder's record of its run; "fmu_dir" is the FMU folder used


def nearest(start: Path) -> Path | None:
    """The folder ``fmus`` in ``start`` or in the nearest folder above it; None if none."""
    start = Path(start).resolve()
    for candidate in (start, *start.parents):
        if (candidate / DEFAULT_NAME).is_dir():
            return candidate / DEFAULT_NAME
    return None


def _existing(folder: Path, where: str) -> Path:
    if not folder.is_dir():
        raise ScenarioError(f"{where}: FMU folder {folder} does not exist")
    return folder


def _none_found(start: Path) -> str:
    return (
        f"no folder '{DEFAULT_NAME}' in {start.resolve()} or above it (expected the FMU folder: "
        f"give it with {GIVEN}, or run 'murcosim build' in {start.resolve()} to make one there)"
    )


def fmu_folder(scenario: Scenario, base: Path, source: str, given: Path | None = None) -> Path:
    """The FMU folder of a run of ``scenario``; ``base`` is the scenario file's folder (or the
    current directory), ``source`` names the scenario in errors."""
    if given is not None:
        return _existing(Path(given), f"{source}: fmu_dir given to the run ({GIVEN})")
    if scenario.fmu_dir is not None:
        return _existing((base / scenario.fmu_dir).resolve(), f"{source}: fmu_dir")
    found = nearest(base)
    if found is not None:
        return found
    by_name = [n for n, c in scenario.components.items() if not c.fmu.endswith(".fmu")]
    if not by_name:
        return Path(base).resolve()  # every component names its file: no FMU folder is used
    raise ScenarioError(f"{source}: components.{by_name[0]}.fmu: {_none_found(base)}")


def scenario_fmu_folder(path: Path, given: Path | None = None) -> Path:
    """The FMU folder of the scenario file ``path`` (``ssp``, ``sweep``, ``drift``, the
    studies: the same as ``murcosim run path``)."""
    from orchestrator.scenario.reading import load_scenario

    path = Path(path)
    return fmu_folder(load_scenario(path), path.parent, str(path), given)


def command_fmu_folder(given: Path | None = None) -> Path:
    """The FMU folder of a command without a scenario: ``given``, else ``fmus`` in the current
    directory or the nearest folder above it."""
    if given is not None:
        return _existing(Path(given), GIVEN)
    found = nearest(Path.cwd())
    if found is None:
        raise ScenarioError(_none_found(Path.cwd()))
    return found


def results_fmu_folder(results: Path, given: Path | None = None) -> Path:
    """The FMU folder of a run whose results are in ``results``: ``given``, else the one its
    ``run.json`` records, else ``fmus`` in the results folder or the nearest folder above it
    (the scenario copy's ``fmu_dir`` is relative to the original file, which may be gone)."""
    results = Path(results)
    if given is not None:
        return _existing(Path(given), f"{results}: {GIVEN}")
    record = results / RUN_RECORD
    if record.is_file():
        try:
            recorded = json.loads(record.read_text(encoding="utf-8")).get("fmu_dir")
        except (ValueError, AttributeError):
            recorded = None
        if isinstance(recorded, str) and recorded:
            folder = (results / recorded).resolve()  # an absolute record stays as it is
            return _existing(folder, f"{record}: fmu_dir (the FMU folder of the run)")
    found = nearest(results)
    if found is None:
        raise ScenarioError(f"{results}: {_none_found(results)}")
    return found


def missing_fmu(folder: Path, name: str) -> str:
    """Why ``<folder>/<name>.fmu`` is not there, in words that hold: which FMU, where it was
    looked for, and what the folder holds instead."""
    path = Path(folder) / f"{name}.fmu"
    held = sorted(p.stem for p in Path(folder).glob("*.fmu")) if Path(folder).is_dir() else []
    if not held:
        return (
            f"FMU not found: {path} (the FMU folder {folder} holds no FMUs: 'murcosim build "
            f"--out {folder}' exports the MurCoSim models there, or give another FMU folder)"
        )
    close = difflib.get_close_matches(name, held, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f"FMU not found: {path} (the FMU folder {folder} holds {len(held)} other FMUs{hint})"
