"""``run.json``: what a results folder holds and where it came from.

Written when the run starts and again when it ends (replaced whole, never half written):

- ``murcosim``: the version that ran;
- ``scenario``: the scenario file run (absolute path), or ``<scenario>`` for a scenario built
  in code (its text is ``scenario.toml`` beside);
- ``fmu_dir``: the FMU folder (absolute path); ``fmus``: SHA-256 of every FMU file the run
  loaded, keyed by its path relative to ``fmu_dir`` (absolute for an FMU elsewhere);
- ``formats``: the time-series formats written (``csv``, ``parquet``, ``mcap``);
- ``units``: the unit of ``time`` and of every recorded column (``""`` when none is declared);
- ``summary``: the line the command line prints at the end of the run; null until the run
  has ended (and for a run that failed or was cut short).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from orchestrator.errors import MurcosimError

RUN_RECORD = "run.json"


@functools.cache
def murcosim_version() -> str:
    """The installed murcosim's version (looked up once: importlib.metadata is slow)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("murcosim")
    except PackageNotFoundError:
        return "unknown"


def sha256(path: Path) -> str:
    """SHA-256 of a file, as hexadecimal."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _key(path: Path, fmu_dir: Path) -> str:
    path = path.resolve()
    return path.relative_to(fmu_dir).as_posix() if path.is_relative_to(fmu_dir) else str(path)


def run_record(
    scenario: Path | None,
    fmu_dir: Path,
    fmus: Iterable[Path],
    formats: Sequence[str],
    units: dict[str, str],
) -> dict[str, Any]:
    """The record of a run starting now (``summary`` still null)."""
    fmu_dir = Path(fmu_dir).resolve()
    return {
        "murcosim": murcosim_version(),
        "scenario": str(Path(scenario).resolve()) if scenario is not None else "<scenario>",
        "fmu_dir": str(fmu_dir),
        "fmus": {_key(p, fmu_dir): sha256(p) for p in sorted(set(fmus))},
        "formats": list(formats),
        "units": units,
        "summary": None,
    }


def write_run_record(folder: Path, record: dict[str, Any]) -> Path:
    """Write ``record`` as ``folder/run.json``, replacing any earlier one whole."""
    path = Path(folder) / RUN_RECORD
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, path)
    return path


def read_run_record(folder: Path) -> dict[str, Any] | None:
    """``folder/run.json`` read back; None when the folder has none (a run of an earlier
    version). A file that is not such a record is one error line."""
    path = Path(folder) / RUN_RECORD
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MurcosimError(f"{path}: not a run record: {exc}") from None
    units = record.get("units") if isinstance(record, dict) else None
    if not isinstance(units, dict) or not all(isinstance(u, str) for u in units.values()):
        raise MurcosimError(f"{path}: units: expected a table of column names to unit strings")
    summary = record.get("summary")
    if summary is not None and not isinstance(summary, str):
        raise MurcosimError(f"{path}: summary: expected a string or null")
    return record
