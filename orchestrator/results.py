"""Run results written while the run goes: ``timeseries.csv``, ``events.csv``, scenario copy.

Both CSV files are line-buffered, so every row is on disk as soon as it is produced and a run
that fails or is interrupted keeps everything it computed up to that point.
"""

from __future__ import annotations

import csv
import fcntl
import os
from pathlib import Path

import numpy as np

from orchestrator.errors import MurcosimError

LOCK_NAME = ".lock"


class ResultsFolderLock:
    """Exclusive use of a results folder while a run writes it (an advisory ``flock`` on
    ``<folder>/.lock``, released when the run ends or its process dies).

    A second run into the same folder, a folder that is a file or cannot be made are refused
    with one line naming the folder.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise MurcosimError(f"{self.folder}: results folder is a file, expected a folder")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._file = (self.folder / LOCK_NAME).open("a+", encoding="utf-8")
        except OSError as exc:
            raise MurcosimError(
                f"{self.folder}: cannot write the results folder: {exc.strerror}"
            ) from None
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.seek(0)
            holder = self._file.read().strip() or "?"
            self._file.close()
            raise MurcosimError(
                f"{self.folder}: results folder is in use by another run (process {holder})"
            ) from None
        self._file.seek(0)
        self._file.truncate()
        self._file.write(str(os.getpid()))
        self._file.flush()

    def release(self) -> None:
        """Let other runs use the folder."""
        if not self._file.closed:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()

    def __enter__(self) -> ResultsFolderLock:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


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
