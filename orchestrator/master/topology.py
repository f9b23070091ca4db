"""Topology changes, a manipulator of the master: scheduled undocking and docking captures.

At every communication point of a run with constraint coupling the state is projected onto
the joints' constraints (strong coupling; weak coupling lets the joints drift), the scheduled
events due there undock their joints, and docking pairs within their capture envelope dock
(``orchestrator.coupling.runtime.ConstraintCoupling.dock``). Each change is a row of
``events.csv``; after a dock or an undock ``changed(x)`` lets the controllers adapt to the new
morphology.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from orchestrator.master.protocols import Clock, Manipulator, Point
from orchestrator.scenario.model import EventConfig

if TYPE_CHECKING:  # imported for annotations only: the coupling loads SciPy
    from orchestrator.coupling.runtime import ConstraintCoupling


class TopologyChanges(Manipulator):
    """Docking and undocking as changes of the coupling's joints at communication points.

    ``scheduled``: undocking events (times in s); ``start``: the run's start (s);
    ``project``: project the state onto the constraints first; ``log(stamp, kind, detail)``
    records a change; ``changed(x)`` is called after a dock or an undock.
    """

    def __init__(
        self,
        coupling: ConstraintCoupling,
        scheduled: list[EventConfig],
        start: float,
        project: bool,
        log: Callable[[float, str, str], None],
        changed: Callable[[np.ndarray], None],
    ) -> None:
        self.coupling = coupling
        self.scheduled = sorted(scheduled, key=lambda e: e.time)
        self._start, self._project, self._log, self._changed = start, project, log, changed

    def periods(self) -> list[float]:
        """The scheduled times after the start, from it."""
        return [e.time - self._start for e in self.scheduled if e.time > self._start]

    def start(self, clock: Clock) -> None:
        """Scheduled times become ticks of ``clock``."""
        self._clock = clock

    def manipulate(self, point: Point, x: np.ndarray) -> np.ndarray:
        """Project, undock what is scheduled up to ``point``, dock what is captured."""
        if self._project:
            x = self.coupling.project(x)
        changes: list[tuple[str, str]] = []
        while self.scheduled and self._clock.index(self.scheduled[0].time) <= point.index:
            event = self.scheduled.pop(0)
            changes.append(self.coupling.undock(event.joint, x, f"scheduled at {event.time:g} s"))
        x, docked = self.coupling.dock(point.time, x)
        changes += docked
        for kind, detail in changes:
            self._log(point.stamp, kind, detail)
        if any(kind in ("dock", "undock") for kind, _ in changes):
            self._changed(x)
        return x

    def watching(self) -> bool:
        """Whether it acts at every communication point: docking ports to watch, or joints
        to project onto."""
        coupling = self.coupling
        projecting = self._project and coupling.config.projection and coupling.assembly.joints
        return bool(coupling.pairs or projecting)

    def idle_until(self, index: int) -> float:
        """The first tick from ``index`` on where this may act: ``index`` itself while
        :meth:`watching`, else the next scheduled event's (inf: none)."""
        if self.watching():
            return index
        return self._clock.index(self.scheduled[0].time) if self.scheduled else math.inf

    def next_tick(self, index: int, recording: int) -> int:
        """Every communication point (projection, capture), a recording point at the latest;
        the next scheduled event."""
        if self.scheduled:
            return min(recording, self._clock.index(self.scheduled[0].time))
        return recording
