"""Shared look of the run plots: events marked on time axes, axis limits that do not blow a
sub-millimetre wobble up into an excursion, distinct colours."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# event kind -> colour and line style of its vertical line (start and stop are not drawn)
EVENT_STYLES = {
    "dock": ("tab:green", "-"),
    "undock": ("tab:orange", "-"),
    "dock_rejected": ("goldenrod", ":"),
    "controller_fault": ("tab:purple", ":"),
    "error": ("tab:red", "-"),
}


def mark_events(ax: plt.Axes, events: list[dict[str, str]]) -> None:
    """Vertical line at every event of ``events.csv`` drawn on a time axis (s)."""
    for event in events:
        style = EVENT_STYLES.get(event["event"])
        if style is not None:
            ax.axvline(float(event["time"]), color=style[0], linestyle=style[1], linewidth=0.9)


def event_legend(figure: plt.Figure, events: list[dict[str, str]]) -> None:
    """One legend entry per kind of event marked, at the figure's top right."""
    kinds = [k for k in EVENT_STYLES if any(e["event"] == k for e in events)]
    if kinds:
        handles = [
            plt.Line2D([], [], color=EVENT_STYLES[k][0], linestyle=EVENT_STYLES[k][1])
            for k in kinds
        ]
        figure.legend(handles, kinds, loc="upper right", fontsize="small", title="events")


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
