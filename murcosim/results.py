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

from orchestrator.master.master import RunStatistics
from orchestrator.recording.reader import read_recorded
from orchestrator.recording.tables import EventTable, TimeseriesTable, read_events


@dataclass
class Results:
    """What a run produced.

    ``statistics`` (right-hand sides, wall time, controller faults) and ``final_state`` (state
    vector at the stop time) are None for results read back from a folder (``final_state``
    also when a callback stopped the run); ``summary`` (the line the command line prints) is
    read back from the folder's ``run.json``, None when the run did not end (or for a folder
    of an earlier version); ``out_dir`` is None for runs kept in memory.
    """

    timeseries: pd.DataFrame
    events: pd.DataFrame
    out_dir: Path | None = None
    statistics: RunStatistics | None = None
    final_state: np.ndarray | None = None
    summary: str | None = None

    @property
    def complete(self) -> bool:
        """Whether the run recorded its end (a ``stop`` event; ``events`` says whether it
        ended early): False for the folder of a run killed before it could (SIGKILL, power
        loss), whose rows end where it was killed."""
        return bool((self.events["event"] == "stop").any())

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

    Reads ``timeseries.parquet`` when present, else ``timeseries.csv``
    (:mod:`orchestrator.recording.reader`), with the units and the summary the run recorded in
    ``run.json`` (units ``""`` for a CSV folder of an earlier version), and ``events.csv``.
    """
    folder = Path(folder)
    recorded = read_recorded(folder)
    frame = pd.DataFrame(recorded.columns).set_index("time")
    frame.attrs["units"] = recorded.units
    rows = read_events(folder / "events.csv") if (folder / "events.csv").is_file() else []
    events = pd.DataFrame(
        [(float(r["time"]), r["event"], r["detail"]) for r in rows],
        columns=["time", "event", "detail"],
    )
    return Results(frame, events, out_dir=folder, summary=recorded.summary)
