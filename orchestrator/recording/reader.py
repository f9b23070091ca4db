"""The recorded time series of a results folder, whichever table format the run wrote.

``timeseries.parquet`` is read when present (the faster to read), else ``timeseries.csv`` (also
when the Parquet file has no footer: a run killed before it closed it);
both hold the same columns: ``time`` (s), then one per recorded variable. Units come from
``run.json`` (:mod:`orchestrator.recording.provenance`), else from the Parquet file's field
metadata; a folder of an earlier version with only a CSV file has none (``""``). ``run.mcap`` holds
only poses, thrusts and joint signals and is not read back as a table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from orchestrator.errors import MurcosimError
from orchestrator.recording.provenance import read_run_record
from orchestrator.recording.tables import read_timeseries

TABLES = ("timeseries.parquet", "timeseries.csv")


@dataclass(frozen=True)
class RecordedColumns:
    """The time series of a results folder: ``columns`` by name (``time`` in s first), the
    ``units`` of every column, the run ``summary`` (None when not recorded) and the ``path``
    of the file read."""

    path: Path
    columns: dict[str, np.ndarray]
    units: dict[str, str]
    summary: str | None


def _parquet(path: Path) -> tuple[dict[str, np.ndarray], dict[str, str]] | None:
    """Columns and units of a ``timeseries.parquet``; None for a file without its footer,
    which is written when the run closes the file (a run killed before has none)."""
    import pyarrow
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pyarrow.ArrowException, OSError):
        return None
    units = {f.name: (f.metadata or {}).get(b"unit", b"").decode() for f in table.schema}
    columns = {
        name: table.column(name).to_numpy().astype(float, copy=False) for name in table.column_names
    }
    return columns, units


def read_recorded(folder: Path) -> RecordedColumns:
    """The time series of the results folder ``folder``; a folder without a table is one error
    line naming it and what it holds instead."""
    folder = Path(folder)
    if not folder.is_dir():
        raise MurcosimError(f"{folder}: not found (expected a results folder of 'murcosim run')")
    found = [folder / name for name in TABLES if (folder / name).is_file()]
    if not found:
        mcap = " (run.mcap only: run with --format csv or parquet to read it back)"
        only_mcap = (folder / "run.mcap").is_file()
        raise MurcosimError(
            f"{folder}: no timeseries.parquet or timeseries.csv "
            + (mcap if only_mcap else "(expected a results folder of 'murcosim run')")
        )
    path = found[0]
    read = _parquet(path) if path.suffix == ".parquet" else None
    if read is not None:
        columns, units = read
    elif path.suffix == ".parquet" and len(found) == 1:
        raise MurcosimError(
            f"{path}: unreadable, no Parquet footer (a run killed before it closed the file) "
            "and no timeseries.csv beside it"
        )
    else:  # the CSV file, which holds every row written so far
        path = found[-1]
        columns, units = read_timeseries(path), {}
    if "time" not in columns:
        raise MurcosimError(f"{path}: no column 'time' (expected a results file of murcosim)")
    record = read_run_record(folder)
    if record is not None:
        units = {**units, **record["units"]}
    units = {"time": "s", **{name: units.get(name, "") for name in columns if name != "time"}}
    return RecordedColumns(path, columns, units, record.get("summary") if record else None)
