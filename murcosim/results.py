"""Results of a run as pandas tables.

``Results.timeseries``: one row per recording time, index ``time`` (s), one float column per
recorded variable named ``<instance>.<variable>`` (FMU variables), ``<controller>.<signal>``
(controller outputs) or ``<joint>.<signal>`` (joint errors and constraint forces);
``timeseries.attrs["units"]`` maps every column (and ``time``) to its unit (``""`` when none is
declared). Frames: positions ``p`` in NED (m), quaternions ``q`` body to NED (scalar first),
velocities ``nu`` and forces in the body frame. ``Results.events``: columns ``time`` (s),
``event``, ``detail``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from orchestrator.errors import MurcosimError
from orchestrator.master import RunStatistics
from orchestrator.results import EventTable, TimeseriesTable, read_events, read_timeseries


@dataclass
class Results:
    """What a run produced.

    ``statistics`` (right-hand sides, wall time, controller faults), ``final_state`` (state
    vector at the stop time) and ``summary`` (the line the command line prints) are None for
    results read back from a folder (``final_state`` also when a callback stopped the run);
    ``out_dir`` is None for runs kept in memory.
    """

    timeseries: pd.DataFrame
    events: pd.DataFrame
    out_dir: Path | None = None
    statistics: RunStatistics | None = None
    final_state: np.ndarray | None = None
    summary: str | None = None

    @property
    def units(self) -> dict[str, str]:
        """Unit of every column of ``timeseries``, and of ``time``."""
        return self.timeseries.attrs["units"]


def timeseries_frame(table: TimeseriesTable, units: dict[str, str]) -> pd.DataFrame:
    """The recorded rows as a DataFrame indexed by time (s), units in ``attrs["units"]``."""
    values = np.vstack(table.rows) if table.rows else np.empty((0, len(table.columns)))
    frame = pd.DataFrame(values, index=pd.Index(table.times, name="time"), columns=table.columns)
    frame.attrs["units"] = {"time": "s", **{c: units.get(c, "") for c in table.columns}}
    return frame


def events_frame(events: EventTable) -> pd.DataFrame:
    """The run's events: columns ``time`` (s), ``event``, ``detail``."""
    frame = pd.DataFrame(events.rows, columns=["time", "event", "detail"])
    return frame.astype({"time": float, "event": str, "detail": str})


def load_results(folder: Path) -> Results:
    """Results written by a run (``murcosim run`` or ``murcosim.run(out=...)``).

    Reads ``timeseries.parquet`` when present (units from its field metadata), else
    ``timeseries.csv`` (units unknown: ``""``), and ``events.csv``.
    """
    folder = Path(folder)
    parquet, csv = folder / "timeseries.parquet", folder / "timeseries.csv"
    if parquet.is_file():
        table = pq.read_table(parquet)
        units = {f.name: (f.metadata or {}).get(b"unit", b"").decode() for f in table.schema}
        frame = table.to_pandas().set_index("time")
    elif csv.is_file():
        columns = read_timeseries(csv)
        frame = pd.DataFrame(columns).set_index("time")
        units = {"time": "s"}
    else:
        raise MurcosimError(
            f"{folder}: no timeseries.parquet or timeseries.csv (not a results folder)"
        )
    frame.attrs["units"] = {"time": "s", **{c: units.get(c, "") for c in frame.columns}}
    rows = read_events(folder / "events.csv") if (folder / "events.csv").is_file() else []
    events = pd.DataFrame(
        [(float(r["time"]), r["event"], r["detail"]) for r in rows],
        columns=["time", "event", "detail"],
    )
    return Results(frame, events, out_dir=folder)
