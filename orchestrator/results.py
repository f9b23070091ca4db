"""Run results written while the run goes: ``timeseries.csv``, ``events.csv``, scenario copy.

Both CSV files are line-buffered, so every row is on disk as soon as it is produced and a run
that fails or is interrupted keeps everything it computed up to that point.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np


class TimeseriesWriter:
    """``timeseries.csv``: column ``time`` (s), then one column per recorded variable."""

    def __init__(self, path: Path, columns: list[str]) -> None:
        self.path = path
        self.columns = columns
        self._file = path.open("w", newline="", buffering=1, encoding="utf-8")
        self._csv = csv.writer(self._file, lineterminator="\n")
        self._csv.writerow(["time", *columns])
        self.rows = 0

    def write(self, time: float, values: np.ndarray) -> None:
        """Append one row."""
        self._csv.writerow([float(time), *np.asarray(values, dtype=float).tolist()])
        self.rows += 1

    def close(self) -> None:
        self._file.close()


class EventLog:
    """``events.csv``: columns ``time``, ``event``, ``detail`` (start, stop, faults, ...)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = path.open("w", newline="", buffering=1, encoding="utf-8")
        self._csv = csv.writer(self._file, lineterminator="\n")
        self._csv.writerow(["time", "event", "detail"])

    def log(self, time: float, event: str, detail: str = "") -> None:
        """Append one event."""
        self._csv.writerow([repr(float(time)), event, detail])

    def close(self) -> None:
        self._file.close()


def read_timeseries(path: Path) -> dict[str, np.ndarray]:
    """Columns of a ``timeseries.csv`` as arrays, by column name."""
    with Path(path).open(encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {name: data[:, k] for k, name in enumerate(header)}


def read_events(path: Path) -> list[dict[str, str]]:
    """Rows of an ``events.csv``."""
    with Path(path).open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
