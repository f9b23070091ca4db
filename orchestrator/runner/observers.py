"""Observers a run adds to its master: a progress bar and the user's callback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from orchestrator.master.probe import Probe
from orchestrator.master.protocols import Observer, Point

Callback = Callable[[float, Probe], None]


class ProgressBar(Observer):
    """A progress bar over ``seconds`` of simulated time from ``start`` (s), advanced at
    every tick (tqdm is imported only for a run that shows one: the import is a tenth of a
    short run's start-up)."""

    every_tick = False  # the bar moves by the time between the ticks it sees

    def __init__(self, start: float, seconds: float) -> None:
        from tqdm.auto import tqdm

        self._bar: Any = tqdm(
            total=seconds,
            leave=False,
            bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} s simulated [{elapsed}<{remaining}]",
        )
        self._last = start  # s

    def observe(self, point: Point, x: np.ndarray) -> None:
        """Advance to the point's stamp."""
        self._bar.update(point.stamp - self._last)
        self._last = point.stamp

    def finished(self) -> None:
        """Close the bar."""
        self._bar.close()


class UserCallback(Observer):
    """``callback(time, probe)`` at every tick (``time``: the stamp, s); the probe reads
    signals and may set FMU inputs there (the master then restarts its strategy)."""

    def __init__(self, callback: Callback, probe: Probe) -> None:
        self.callback, self.probe = callback, probe

    def observe(self, point: Point, x: np.ndarray) -> None:
        """Call the callback."""
        self.callback(point.stamp, self.probe)
