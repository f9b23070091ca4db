"""What the master's loop knows: a stepping strategy, manipulators and observers.

After libcosim's execution, which owns an algorithm, observers and manipulators (Open
Simulation Platform, libcosim, ``cosim/execution.hpp``, ``algorithm.hpp``, ``observer.hpp``,
``manipulator.hpp``): at every communication point the master lets its
:class:`Manipulator` s change inputs and the state (write access) and then restarts the
:class:`Strategy` there; at every tick it shows the state to its :class:`Observer` s (read
access: recorders, progress, breadcrumbs, the user's callback) and then asks the strategy to
advance to the next tick.

Time runs on a grid of ticks (:class:`Clock`); a :class:`Point` is one tick of it.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Generator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from orchestrator.fmi.fmu import FMUInstance, Port

Handover = tuple[float, np.ndarray]  # (time (s), the inputs of a controller to decide for)


class Clock:
    """The tick grid of a run: the largest step (>= 1e-9 s) of which every period (s) is a
    whole multiple, from ``start`` to ``stop`` (s, the last interval shortened to end there).

    Stamps (:meth:`stamp`) are ``start + k tick`` computed in whole nanoseconds and rounded
    once to a double, so a row at 15.7 s is stamped 15.7, not 15.700000000000001; the FMUs,
    controllers and integrator keep ``start + k * tick`` in floating point (:meth:`time`).
    """

    def __init__(self, start: float, stop: float, periods: list[float]) -> None:
        self.start, self.stop = start, stop
        self.tick = math.gcd(*[max(1, round(p * 1e9)) for p in periods]) * 1e-9  # s
        self._tick_ns = round(self.tick * 1e9)
        self._start_ns = _whole_nanoseconds(start)
        self.last = max(1, math.ceil((stop - start) / self.tick - 1e-9))  # the stop's tick

    def time(self, index: int) -> float:
        """Time (s) of tick ``index`` as the models see it."""
        return min(self.start + index * self.tick, self.stop)

    def stamp(self, index: int) -> float:
        """Time stamp (s) of tick ``index`` in rows and events."""
        if self._start_ns is None:  # a start time off the nanosecond grid
            return self.time(index)
        return min((self._start_ns + index * self._tick_ns) / 1_000_000_000, self.stop)

    def nanoseconds(self) -> tuple[int, int] | None:
        """The start and the tick in whole nanoseconds, of which :meth:`stamp` makes stamps
        (None: the start is off that grid, the stamps are the times)."""
        return None if self._start_ns is None else (self._start_ns, self._tick_ns)

    def ticks(self, seconds: float) -> int:
        """A duration (s) in ticks, at least one."""
        return max(1, round(seconds / self.tick))

    def index(self, time: float) -> int:
        """The tick of a time (s) on the grid."""
        return round((time - self.start) / self.tick)


@dataclass
class Point:
    """One tick of a run: ``time`` (s) as the models see it, ``stamp`` (s) in rows and events,
    its ``index`` on the grid, and whether a row is recorded there."""

    time: float
    stamp: float
    index: int
    recording: bool


class Strategy(Protocol):
    """How the FMUs advance between communication points: strong coupling (one integrator
    over every state, ``strong.EventDriver``) or weak coupling (macro steps of units that
    advance on their own, ``weak.WeakCoupling``)."""

    states: dict[str, int]  # state-vector position of each integrated state by name

    def periods(self) -> list[float]:
        """Periods (s) the tick grid must hold (a macro step)."""

    def drive(self, ports: list[tuple[FMUInstance, Port]]) -> None:
        """The FMU inputs controllers write (they may change at a topology change)."""

    def reset(self, time: float, x: np.ndarray) -> None:
        """Restart at (``time`` (s), ``x``): inputs may have jumped."""

    def advance(self, target: float, stop: float) -> np.ndarray:
        """The state at ``target`` (s), never stepping past ``stop`` (s)."""

    def rates(self, time: float, x: np.ndarray) -> np.ndarray:
        """der(x) without constraint forces at (``time``, ``x``), the FMUs set to it (a
        buffer reused)."""

    def description(self) -> str:
        """One line for the ``start`` event."""

    def evaluations(self) -> int:
        """Right-hand-side evaluations so far."""

    def steps(self) -> int | None:
        """Integrator steps so far (None: not counted, no step limit applies)."""


class Manipulator(ABC):
    """Changes inputs or the state at communication points, before the strategy restarts."""

    def periods(self) -> list[float]:
        """Periods (s) the tick grid must hold (sample times, event times from the start)."""
        return []

    def start(self, clock: Clock) -> None:  # noqa: B027 - most need no tick
        """The run's tick grid is known."""

    @abstractmethod
    def manipulate(self, point: Point, x: np.ndarray) -> np.ndarray:
        """Act at the communication point ``point`` on the state ``x``; the state after."""

    def steps(self, point: Point, x: np.ndarray) -> Generator[Handover, None, np.ndarray]:
        """:meth:`manipulate` as the master runs it: a generator, so that one may pause to
        hand a decision over (the controllers' handover); the others never pause."""
        yield from ()
        return self.manipulate(point, x)

    def next_tick(self, index: int, recording: int) -> int | None:
        """The next tick after ``index`` where this acts (``recording``: the next recording
        tick, for those that act at every communication point); None: no such tick."""
        return None


class Observer(ABC):
    """Sees the run: the state at every tick, read only. One with ``every_tick`` False sees
    the ticks the master's Python loop makes (every recording point among them): between
    those the master may make ticks in compiled code (``ticks.py``)."""

    every_tick = True

    def marks(self) -> tuple[int, int, int] | None:
        """For one that sees every tick only to leave marks in memory (the breadcrumbs of a
        supervised run): the addresses of the doubles where the compiled ticks leave them at
        each tick they make (the tick's stamp in s, a count of ticks that they increment, the
        right-hand-side evaluations so far); None: it must see every tick itself."""
        return None

    def started(self, point: Point) -> None:  # noqa: B027 - most need no start
        """The run starts at ``point``."""

    @abstractmethod
    def observe(self, point: Point, x: np.ndarray) -> None:
        """The state ``x`` at ``point`` (a row is due if ``point.recording``)."""

    def finished(self) -> None:  # noqa: B027 - most hold nothing
        """The run ended (however it ended)."""


def _whole_nanoseconds(time: float) -> int | None:
    """``time`` (s) in whole nanoseconds, None when it is not a whole number of them."""
    nanoseconds = round(time * 1e9)
    return nanoseconds if nanoseconds / 1_000_000_000 == time else None
