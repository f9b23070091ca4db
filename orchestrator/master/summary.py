"""The one line that says what a run did: the time reached (or where an FMU ended the run),
topology changes with their times, final joint errors, faults and cost."""

from __future__ import annotations

import math

from orchestrator.master.master import RunStatistics
from orchestrator.recording.tables import EventTable, TimeseriesTable

TOPOLOGY = {"dock": "docked", "undock": "undocked", "dock_rejected": "dock rejected"}


def run_summary(events: EventTable, table: TimeseriesTable, statistics: RunStatistics) -> str:
    """``reached 60 s; dock docked at 26.8 s; final joint errors: dock 3e-09 m 2e-08 rad;
    0 controller faults; 37 s wall, 81000 right-hand sides``; a run an FMU ended starts with
    ``ended at 2.5 s at the FMU's request (it: terminateSimulation from
    fmi3UpdateDiscreteStates)``."""
    parts = []
    stop = [t for t, kind, _ in events.rows if kind == "stop"]
    ended = [(t, detail) for t, kind, detail in events.rows if kind == "terminated"]
    if ended:
        parts.append(f"ended at {ended[-1][0]:.6g} s at the FMU's request ({ended[-1][1]})")
    elif stop:
        parts.append(f"reached {stop[-1]:.6g} s")
    for time, kind, detail in events.rows:
        if kind in TOPOLOGY:
            parts.append(f"{detail.partition(':')[0]} {TOPOLOGY[kind]} at {time:.4g} s")
    errors = []
    if table.rows:
        last = dict(zip(table.columns, table.rows[-1], strict=True))
        for column, value in last.items():
            joint, _, signal = column.partition(".")
            if signal == "position_error" and math.isfinite(value):
                angle = last.get(f"{joint}.angle_error", math.nan)
                errors.append(f"{joint} {value:.2g} m {angle:.2g} rad")
    if errors:
        parts.append("final joint errors: " + ", ".join(errors))
    s = statistics
    parts.append(f"{s.controller_faults} controller fault(s)")
    parts.append(f"{s.wall_seconds:.3g} s wall, {s.rhs_evaluations} right-hand sides")
    return "; ".join(parts)
