"""Shared look of the run plots: events of every kind marked on time axes (the replay's
time line takes their colours), axis limits that do not blow a sub-millimetre wobble up into
an excursion, equal scales on plan views."""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.legend import Legend  # noqa: E402

# Events of every kind are marked but these two: the ends of the time axis
UNMARKED = ("start", "stop")
MANY_EVENTS = 40  # a kind with more events is marked by ticks at the top of the axis only


@dataclass(frozen=True)
class EventStyle:
    """How the events of one kind are marked: a vertical line of ``colour`` and ``line``
    style with a ``marker`` at its top."""

    colour: str
    line: str
    marker: str


# Kinds of event with a style of their own (the run's, the docking coupling's, the MPC
# supervisor's, the FMUs' event handling); other kinds take OTHER_STYLES in turn
EVENT_STYLES = {
    "dock": EventStyle("#2ca02c", "-", "v"),
    "undock": EventStyle("#ff7f0e", "-", "^"),
    "dock_rejected": EventStyle("#daa520", ":", "x"),
    "final_approach": EventStyle("#17becf", "--", ">"),
    "captured": EventStyle("#006400", "--", "o"),
    "abort": EventStyle("#8c564b", "-.", "<"),
    "mpc_fallback": EventStyle("#bcbd22", ":", "h"),
    "controller_fault": EventStyle("#9467bd", ":", "D"),
    "error": EventStyle("#d62728", "-", "X"),
    "terminated": EventStyle("#e377c2", "--", "s"),
    "interrupted": EventStyle("#000000", "--", "P"),
    "callback_stop": EventStyle("#7f7f7f", "--", "p"),
    "time_event": EventStyle("#1f77b4", ":", "|"),
    "state_event": EventStyle("#aec7e8", ":", "d"),
    "step_event": EventStyle("#c5b0d5", ":", "."),
}
OTHER_STYLES = [
    EventStyle(c, s, m)
    for c, s, m in zip(
        ("#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354"),
        ("-.", "--", ":", "-", "-.", "--", ":", "-"),
        ("*", "H", "8", "1", "2", "3", "4", "+"),
        strict=True,
    )
]


def event_styles(events: list[dict[str, str]]) -> dict[str, EventStyle]:
    """The style of every kind of event in ``events`` that is marked (all but
    ``UNMARKED``): the kinds of ``EVENT_STYLES`` first, in its order, then the others in the
    order they first happen, each taking the next of ``OTHER_STYLES`` (cycled)."""
    present = [e["event"] for e in events if e["event"] not in UNMARKED]
    known = [k for k in EVENT_STYLES if k in present]
    others = list(dict.fromkeys(k for k in present if k not in EVENT_STYLES))
    styles = {k: EVENT_STYLES[k] for k in known}
    for k, kind in enumerate(others):
        styles[kind] = OTHER_STYLES[k % len(OTHER_STYLES)]
    return styles


def mark_events(ax: plt.Axes, events: list[dict[str, str]]) -> None:
    """Mark every event of ``events.csv`` (but ``UNMARKED``) on a time axis (s): a vertical
    line with its kind's marker at the top; a kind of more than ``MANY_EVENTS`` events only by
    its markers at the top of the axis."""
    styles = event_styles(events)
    for kind, style in styles.items():
        times = [float(e["time"]) for e in events if e["event"] == kind]
        if len(times) > MANY_EVENTS:
            ax.plot(
                times,
                np.ones(len(times)),
                transform=ax.get_xaxis_transform(),
                color=style.colour,
                linestyle="none",
                marker=style.marker,
                markersize=5,
                clip_on=False,
            )
            continue
        for time in times:
            ax.axvline(
                time,
                color=style.colour,
                linestyle=style.line,
                linewidth=0.9,
                marker=style.marker,
                markevery=[1],
                markersize=5,
                clip_on=False,
            )


def event_legend(figure: plt.Figure, events: list[dict[str, str]], top: float) -> Legend | None:
    """One legend entry per kind of event marked (with its count), in rows across the figure
    from ``top`` (figure fraction) down; None without events to mark."""
    styles = event_styles(events)
    if not styles:
        return None
    handles = [
        plt.Line2D([], [], color=s.colour, linestyle=s.line, marker=s.marker)
        for s in styles.values()
    ]
    labels = [f"{k} ({sum(e['event'] == k for e in events)})" for k in styles]
    return figure.legend(
        handles,
        labels,
        loc="upper right",
        bbox_to_anchor=(0.995, top),
        fontsize="small",
        ncol=min(len(labels), 6),
        title="events (count)",
        title_fontsize="small",
        alignment="right",
    )


def least_span(ax: plt.Axes, values: np.ndarray, span: float, axis: str = "y") -> None:
    """Give the ``axis`` ("x" or "y") at least ``span`` (the data's unit) around the data's
    middle, so that a signal varying less than ``span`` is drawn flat, not as an excursion."""
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return
    low, high = float(finite.min()), float(finite.max())
    if high - low < span:
        middle = (low + high) / 2
        limits = (middle - 0.55 * span, middle + 0.55 * span)
        (ax.set_xlim if axis == "x" else ax.set_ylim)(*limits)


def plan_limits(ax: plt.Axes, east: np.ndarray, north: np.ndarray, span: float) -> None:
    """Equal scales on a plan view (east along x, north along y, m), each axis at least
    ``span`` wide around the track's middle."""
    side = 1.1 * max(np.ptp(east), np.ptp(north), span)
    for limits, values in ((ax.set_xlim, east), (ax.set_ylim, north)):
        middle = (np.min(values) + np.max(values)) / 2
        limits(middle - side / 2, middle + side / 2)
    ax.set_aspect("equal", adjustable="box")
