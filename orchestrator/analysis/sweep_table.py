"""Summary metrics of the cases of a sweep, and the sweep's table (``sweep.csv``, ``.parquet``).

A metric is ``COLUMN:final``, ``COLUMN:max``, ``COLUMN:min`` or ``COLUMN:maxabs`` of any
recorded column of ``timeseries.csv`` (in that column's unit), or ``dock_time``: the time (s)
of the first ``dock`` event, for scenarios with docking pairs.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from orchestrator.errors import MurcosimError, ScenarioError
from orchestrator.recording.tables import read_events

REDUCTIONS = {
    "final": lambda v: v[-1],
    "max": np.max,
    "min": np.min,
    "maxabs": lambda v: np.max(np.abs(v)),
}
DOCK_TIME = "dock_time"


@dataclass(frozen=True)
class Metric:
    """One number per case: a reduction of a recorded column, or the docking time."""

    column: str
    reduction: str

    @classmethod
    def parse(cls, text: str) -> Metric:
        if text == DOCK_TIME:
            return cls(DOCK_TIME, "")
        column, _, reduction = text.rpartition(":")
        if not column or reduction not in REDUCTIONS:
            raise ScenarioError(
                f"--metric '{text}': expected COLUMN:{'|'.join(REDUCTIONS)} or {DOCK_TIME}"
            )
        return cls(column, reduction)

    @property
    def name(self) -> str:
        return self.column if self.column == DOCK_TIME else f"{self.column}:{self.reduction}"

    def value(self, case: Path, columns: pa.Table) -> float:
        """The metric of the finished case in folder ``case`` (NaN: no dock event)."""
        if self.column == DOCK_TIME:
            docks = [e for e in read_events(case / "events.csv") if e["event"] == "dock"]
            return float(docks[0]["time"]) if docks else math.nan
        if self.column not in columns.column_names:
            close = difflib.get_close_matches(self.column, columns.column_names, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise MurcosimError(
                f"--metric '{self.name}': no column '{self.column}' in {case}/timeseries.csv{hint}"
            )
        values = columns.column(self.column).to_numpy()
        return float(REDUCTIONS[self.reduction](values)) if values.size else math.nan


def timeseries_to_parquet(case: Path) -> None:
    """Write ``timeseries.parquet`` next to a case's ``timeseries.csv`` (if it has one)."""
    source = case / "timeseries.csv"
    if source.is_file():
        pq.write_table(pa_csv.read_csv(source), case / "timeseries.parquet")


def write_table(out: Path, rows: list[dict[str, object]]) -> Path:
    """``sweep.csv`` and ``sweep.parquet`` in ``out``, one row per case; returns the CSV."""
    table = pa.Table.from_pylist(rows)
    pq.write_table(table, out / "sweep.parquet")
    path = out / "sweep.csv"
    pa_csv.write_csv(table, path)
    return path


def case_metrics(case: Path, metrics: list[Metric]) -> dict[str, float]:
    """The metrics of a finished case, by name."""
    columns = pq.read_table(case / "timeseries.parquet")
    return {m.name: m.value(case, columns) for m in metrics}
