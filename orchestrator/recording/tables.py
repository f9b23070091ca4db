"""Run results written while the run goes: ``timeseries.csv``, ``events.csv``, scenario copy.

Both CSV files are written a row at a time without buffering, so every row is on disk as soon
as it is produced and a run that fails or is interrupted keeps everything it computed up to
that point. A run can feed several recorders at once (:class:`TimeseriesTee`,
:class:`EventsTee`): the CSV files, tables kept in memory for the Python API, a Parquet file
and an MCAP log.
"""

from __future__ import annotations

import csv
import fcntl
import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import orjson

from orchestrator.errors import MurcosimError

FORMATS = ("csv", "parquet", "mcap")  # time-series files a run can write
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
    """``timeseries.csv``: column ``time`` (s), then one column per recorded variable.

    Every number is written as the shortest decimal that reads back to the same double (the
    Ryu algorithm, through orjson: a twentieth of the cost of Python's ``repr``; the same digits
    as ``repr``, exponents written without zero padding, e.g. ``1e-7``). A row with a value
    that is not finite is written through ``repr`` (``nan``, ``inf``, as NumPy and pandas
    read them). Each row is one unbuffered write, on disk as soon as it is produced.
    """

    def __init__(self, path: Path, columns: list[str]) -> None:
        self.path = path
        self.columns = columns
        self._file = path.open("wb", buffering=0)
        header = io.StringIO()
        csv.writer(header, lineterminator="\n").writerow(["time", *columns])  # quoted names
        self._file.write(header.getvalue().encode("utf-8"))
        self._row = np.zeros(len(columns) + 1)
        self.rows = 0

    def write(self, time: float, values: np.ndarray) -> None:
        """Append one row."""
        row = self._row
        row[0] = time
        row[1:] = values
        if np.isfinite(row).all():
            text = orjson.dumps(row, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1]
        else:  # orjson writes null for nan and inf
            text = ",".join(map(repr, row.tolist())).encode("ascii")
        self._file.write(text + b"\n")
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


class TimeseriesRecorder(Protocol):
    """Receives one row per recording time: ``time`` (s) and the recorded values in order."""

    def write(self, time: float, values: np.ndarray) -> None: ...

    def close(self) -> None: ...


class EventRecorder(Protocol):
    """Receives the run's events as they happen."""

    def log(self, time: float, event: str, detail: str = "") -> None: ...

    def close(self) -> None: ...


class TimeseriesTable:
    """Recorded rows kept in memory: ``times`` (s) and ``rows``, one array per recording time;
    with ``keep_all`` False only the latest row (a run whose rows go to files)."""

    def __init__(self, columns: list[str], keep_all: bool = True) -> None:
        self.columns = columns
        self.keep_all = keep_all
        self.times: list[float] = []
        self.rows: list[np.ndarray] = []

    def write(self, time: float, values: np.ndarray) -> None:
        """Append one row (a copy: the master reuses its row buffer)."""
        if not self.keep_all:
            self.times.clear()
            self.rows.clear()
        self.times.append(float(time))
        self.rows.append(np.array(values, dtype=float))

    def close(self) -> None:
        """Nothing to release."""


class EventTable:
    """Events kept in memory as ``(time, event, detail)`` tuples."""

    def __init__(self) -> None:
        self.rows: list[tuple[float, str, str]] = []

    def log(self, time: float, event: str, detail: str = "") -> None:
        """Append one event."""
        self.rows.append((float(time), event, detail))

    def close(self) -> None:
        """Nothing to release."""


class TimeseriesTee:
    """Passes every row to several recorders, in order."""

    def __init__(self, recorders: Sequence[TimeseriesRecorder]) -> None:
        self.recorders = list(recorders)

    def write(self, time: float, values: np.ndarray) -> None:
        """Give the row to every recorder."""
        for recorder in self.recorders:
            recorder.write(time, values)

    def close(self) -> None:
        """Close every recorder."""
        for recorder in self.recorders:
            recorder.close()


class EventsTee:
    """Passes every event to several recorders, in order."""

    def __init__(self, recorders: Sequence[EventRecorder]) -> None:
        self.recorders = list(recorders)

    def log(self, time: float, event: str, detail: str = "") -> None:
        """Give the event to every recorder."""
        for recorder in self.recorders:
            recorder.log(time, event, detail)

    def close(self) -> None:
        """Close every recorder."""
        for recorder in self.recorders:
            recorder.close()


def read_timeseries(path: Path) -> dict[str, np.ndarray]:
    """Columns of a ``timeseries.csv`` as arrays, by column name (empty arrays when the run
    stopped before its first row). Every row ends with its newline, so a last line without
    one is a row cut off (a run killed as it wrote, a full disk) and is left out."""
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    if len(lines) < 2:
        raise MurcosimError(f"{path}: no complete header line (the run ended as it began)")
    header = next(csv.reader(lines[:1]))
    rows = [line for line in lines[1:-1] if line.strip()]
    if not rows:
        return {name: np.zeros(0) for name in header}
    data = np.loadtxt(rows, delimiter=",", ndmin=2)
    return {name: data[:, k] for k, name in enumerate(header)}


def read_events(path: Path) -> list[dict[str, str]]:
    """Rows of an ``events.csv``."""
    with Path(path).open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
