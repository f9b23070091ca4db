"""Stored reference results: ``<case>.csv`` (time and signals, 17 significant digits, so an
unchanged run reproduces them exactly) and ``<case>.json`` (units, events, who wrote it)."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

from orchestrator.analysis.regression.cases import CaseRun
from orchestrator.errors import ScenarioError


@dataclass
class Reference:
    """A case's stored reference: the same fields as a run, read back from its two files."""

    run: CaseRun
    csv: Path


def reference_paths(folder: Path, case: str) -> tuple[Path, Path]:
    """The CSV and JSON files of ``case``'s reference in ``folder``."""
    return folder / f"{case}.csv", folder / f"{case}.json"


def write_reference(folder: Path, case: str, run: CaseRun, source: str) -> None:
    """Store ``run`` as ``case``'s reference (the folder is made if needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    table, meta = reference_paths(folder, case)
    with table.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["time", *run.columns])
        data = np.column_stack([run.time, *run.columns.values()])
        writer.writerows([[f"{v:.17g}" for v in row] for row in data])
    meta.write_text(
        json.dumps(
            {
                "case": case,
                "source": source,
                "written_by": f"murcosim {metadata.version('murcosim')}",
                "units": {name: run.units.get(name, "") for name in run.columns},
                "events": [[time, kind] for time, kind in run.events],
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )


def read_reference(folder: Path, case: str) -> Reference | None:
    """``case``'s stored reference, or None when it has none; a damaged file is an error
    naming it."""
    table, meta = reference_paths(folder, case)
    if not table.exists():
        return None
    try:
        with table.open(encoding="utf-8", newline="") as handle:
            header = next(csv.reader(handle))
        data = np.loadtxt(table, delimiter=",", skiprows=1, ndmin=2)
        info = json.loads(meta.read_text(encoding="utf-8")) if meta.exists() else {}
        events = [(float(time), str(kind)) for time, kind in info.get("events", [])]
    except (OSError, StopIteration, ValueError, TypeError) as exc:
        raise ScenarioError(f"{table}: not a readable reference ({exc})") from None
    if header[:1] != ["time"] or data.shape[1] != len(header):
        raise ScenarioError(f"{table}: expected a header 'time,<signal>,...' and a value each")
    columns = {name: data[:, k] for k, name in enumerate(header) if k}
    units = {name: str(unit) for name, unit in info.get("units", {}).items()}
    return Reference(CaseRun(data[:, 0], columns, units, events), table)
