"""Late measurements fused at their time of validity: the filter keeps a short history of what
it did (IMU propagations and updates, in time order, with the state before each) and, when a
measurement arrives whose time of validity lies in the past, inserts it there and runs the
filter again from that point (the re-processing of out-of-order measurements of Moore and
Stouch, A generalized extended Kalman filter implementation for the Robot Operating System,
IAS-13, Springer 2016: robot_localization's ``smooth_lagged_data``; the exact solution for
a linear filter, Bar-Shalom, Li and Kirubarajan, Estimation with Applications to Tracking and
Navigation, Wiley 2001, Sec. 10.3 on out-of-sequence measurements).

A measurement older than the history (``horizon``, s) is dropped as stale. The history and its
re-runs are compiled with the filter (``orchestrator.native.navigation``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from orchestrator.native import navigation as native
from orchestrator.navigation.eskf import ErrorStateFilter, Measurement

# time stamps closer than this (s) are the same instant (sample times are sums of floats; the
# compiled history orders its steps with the same margin)
SAME_TIME = 1e-9


class Step(NamedTuple):
    """One thing the filter does at ``time`` (s): ``kind`` (a step code of
    :mod:`orchestrator.native.navigation`) with its inputs ``data``; made by
    :func:`propagation_step` or :func:`measurement_step`."""

    time: float
    kind: int
    data: np.ndarray


def propagation_step(time: float, sample: np.ndarray) -> Step:
    """The propagation over the IMU interval ending at ``time`` (s) with the ``sample`` held
    over it: angular rate (rad/s) then specific force (m/s^2), body frame (6, float64)."""
    return Step(time, native.PROPAGATION, sample)


def measurement_step(time: float, measurement: Measurement) -> Step:
    """The update by ``measurement`` at its time of validity ``time`` (s)."""
    return Step(time, measurement.kind, measurement.data)


class LaggedFusion:
    """Runs a filter's steps in time order, re-running from a late measurement's time."""

    def __init__(self, navigation: ErrorStateFilter, horizon: float) -> None:
        self.filter, self.horizon = navigation, horizon
        self._native = native.Fusion(navigation._native, horizon)

    def add(self, steps: list[Step]) -> None:
        """Insert ``steps`` at their times (after those at the same time) and run the filter
        from the earliest of them."""
        for step in steps:
            self._native.add(*step)
        self._native.run()

    @property
    def times(self) -> list[float]:
        """The times of the steps in the history (s)."""
        return self._native.times()

    @property
    def counts(self) -> tuple[int, int]:
        """:attr:`stale` and :attr:`rejected`, by one call."""
        stale, rejected = self._native.counts()
        return stale, rejected

    @property
    def stale(self) -> int:
        """Measurements dropped as older than the history."""
        return self._native.counts()[0]

    @property
    def rejected(self) -> int:
        """Measurements gated out, counting each once by its last run."""
        return self._native.counts()[1]
