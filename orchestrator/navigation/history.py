"""Late measurements fused at their time of validity: the filter keeps a short history of what
it did (IMU propagations and updates, in time order, with the state before each) and, when a
measurement arrives whose time of validity lies in the past, inserts it there and runs the
filter again from that point (the re-processing of out-of-order measurements of Moore and
Stouch, A generalized extended Kalman filter implementation for the Robot Operating System,
IAS-13, Springer 2016: robot_localization's ``smooth_lagged_data``; the exact solution for
a linear filter, Bar-Shalom, Li and Kirubarajan, Estimation with Applications to Tracking and
Navigation, Wiley 2001, Sec. 10.3 on out-of-sequence measurements).

A measurement older than the history (``horizon``, s) is dropped as stale.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from orchestrator.navigation.eskf import ErrorStateFilter, NavigationState, Update

Measure = Callable[[NavigationState], Update]
"""A measurement's model at a state (made again when the filter re-runs)."""

# time stamps closer than this (s) are the same instant (sample times are sums of floats)
SAME_TIME = 1e-9


@dataclass
class Step:
    """One thing the filter does at ``time`` (s): a propagation ending then (``rate``,
    ``force`` held over the interval before it), or an update by ``measure`` (the state's
    linearised measurement, made again when re-run). ``rejected``: the last run gated it out."""

    time: float
    rate: np.ndarray | None = None
    force: np.ndarray | None = None
    measure: Measure | None = None
    rejected: bool = field(default=False)

    def run(self, navigation: ErrorStateFilter) -> None:
        """Apply the step to the filter."""
        if self.measure is None:
            navigation.propagate(self.rate, self.force)
        else:
            self.rejected = navigation.update(self.measure(navigation.state)) is None


class LaggedFusion:
    """Runs a filter's steps in time order, re-running from a late measurement's time."""

    def __init__(self, navigation: ErrorStateFilter, horizon: float) -> None:
        self.filter, self.horizon = navigation, horizon
        self.steps: list[Step] = []
        self.before: list[tuple[NavigationState, np.ndarray]] = []  # filter state before each step
        self.stale = 0  # measurements dropped as older than the history
        self.rejected_earlier = 0  # rejections among the steps that left the history

    def add(self, steps: list[Step]) -> None:
        """Insert ``steps`` at their times (after those at the same time) and run the filter
        from the earliest of them."""
        first = len(self.steps)
        oldest = self.steps[0].time if self.steps else -float("inf")
        times = [s.time for s in self.steps]
        for step in steps:
            if step.measure is not None and step.time < oldest - SAME_TIME:
                self.stale += 1
                continue
            k = bisect.bisect_right(times, step.time + SAME_TIME)
            times.insert(k, step.time)
            self.steps.insert(k, step)
            first = min(first, k)
        if first < len(self.before):
            self.filter.state, self.filter.covariance = self.before[first]
        del self.before[first:]
        for step in self.steps[first:]:
            self.before.append((self.filter.state, self.filter.covariance))
            step.run(self.filter)
        self._forget(times[-1] if times else 0.0)

    def _forget(self, now: float) -> None:
        """Drop the steps older than the horizon."""
        k = bisect.bisect_left([s.time for s in self.steps], now - self.horizon - SAME_TIME)
        self.rejected_earlier += sum(s.rejected for s in self.steps[:k])
        del self.steps[:k], self.before[:k]

    @property
    def rejected(self) -> int:
        """Measurements gated out, counting each once by its last run."""
        return self.rejected_earlier + sum(s.rejected for s in self.steps)
