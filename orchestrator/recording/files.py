"""The files a run writes into its results folder, by format.

``events.csv`` is always written. The recorded time series go to ``timeseries.csv``
(format ``csv``), ``timeseries.parquet`` (``parquet``) and an MCAP log ``run.mcap``
(``mcap``: body poses, thrusts, joint wrenches and violations, events), any of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orchestrator.recording.tables import (
    EventLog,
    EventRecorder,
    TimeseriesRecorder,
    TimeseriesWriter,
)


@dataclass
class FileRecorders:
    """Recorders writing files, and the paths of the CSV files (None if not written)."""

    timeseries: list[TimeseriesRecorder]
    events: list[EventRecorder]
    csv_timeseries: Path | None
    csv_events: Path


def file_recorders(
    formats: tuple[str, ...] | list[str], out_dir: Path, columns: list[str], units: dict[str, str]
) -> FileRecorders:
    """Open the files of ``formats`` in ``out_dir`` for the recorded ``columns``."""
    timeseries: list[TimeseriesRecorder] = []
    csv_path = None
    if "csv" in formats:
        csv_path = out_dir / "timeseries.csv"
        timeseries.append(TimeseriesWriter(csv_path, columns))
    if "parquet" in formats:
        from orchestrator.recording.parquet import ParquetTimeseriesWriter

        timeseries.append(ParquetTimeseriesWriter(out_dir / "timeseries.parquet", columns, units))
    event_log = EventLog(out_dir / "events.csv")
    events: list[EventRecorder] = [event_log]
    if "mcap" in formats:
        from orchestrator.recording.mcap import McapLog

        log = McapLog(out_dir / "run.mcap", columns)
        timeseries.append(log)
        events.append(log)
    return FileRecorders(timeseries, events, csv_path, event_log.path)
