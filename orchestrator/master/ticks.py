"""The master's ticks in compiled code, between the ticks its Python loop must see.

A run whose controllers between two recording points are compiled laws alone (the vehicle
PD, the joint PID, the pseudo-inverse allocation: ``law_runs.py``) spends each tick in one
pattern: the joint angles and rates onto the bus, the law runs due sampled and their FMU
inputs written, the motor commands off the bus, the integrator restarted and stepped to the
next tick where an input may jump. The extension ``Ticks`` (``native/_ticks.c``)
makes those ticks in C with the very calls the Python loop makes, in its order and with its
arguments, so the trajectory is the Python loop's bit for bit; it stops at the next tick
Python must see: a recording point, the stop, a sample of another controller or a delayed
command, a sample that reads the bodies' accelerations, a scheduled undocking.

What stays in Python: ticks where the topology may change (docking ports watched, projection
onto the joints), runs with a callback or an observer that sees every tick (the breadcrumbs of
a supervised run), a handover (a stepped run), a step limit or a wall-time limit (both checked
at every tick), Co-Simulation units, weak coupling, event indicators and the integrators
stepped from Python. Members of a run that fail are logged by a call back into Python at their
tick; a step after which an FMU asks for event mode or to end the run is finished by the
strategy (``EventDriver.advance``) and the compiled ticks end there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from orchestrator.master.integrators import DormandPrince, FixedStepRK4
from orchestrator.master.law_runs import LawRun
from orchestrator.master.protocols import Clock, Manipulator, Observer, Strategy
from orchestrator.master.sampling import ControllerSampling
from orchestrator.master.signals import SignalTable
from orchestrator.master.strong import EventDriver
from orchestrator.master.topology import TopologyChanges
from orchestrator.native import _kernel
from orchestrator.native._ticks import Ticks
from orchestrator.scenario.model import Simulation

ADVANCING = -2  # Ticks.progress(): the integrator's step raised


class Master(Protocol):
    """What the compiled ticks read of the master (``master.py``) and the stamp of the
    tick being made they set (``time``, s)."""

    strategy: Strategy
    controllers: ControllerSampling
    manipulators: Sequence[Manipulator]
    observers: Sequence[Observer]
    simulation: Simulation
    signals: SignalTable
    grid: Clock
    time: float


class CompiledTicks:
    """The compiled ticks of ``master``'s run (see the module docstring); build it with
    :meth:`of`, which says None where the run has parts that need Python at every tick."""

    def __init__(self, master: Master, strategy: EventDriver) -> None:
        self.master, self.strategy = master, strategy
        self.integrator = strategy.integrator
        self.controllers = master.controllers
        self.topology = next(
            (m for m in master.manipulators if isinstance(m, TopologyChanges)), None
        )
        self._runs: list[LawRun] = []
        self._flagged: np.ndarray | None = None  # the state after a step with event flags

    @classmethod
    def of(cls, master: Master) -> CompiledTicks | None:
        """The compiled ticks of ``master``, or None where they cannot apply at all."""
        strategy = master.strategy
        if not isinstance(strategy, EventDriver) or not strategy.steps_freely(-math.inf):
            return None
        if type(strategy.integrator) not in (FixedStepRK4, DormandPrince):
            return None
        own = (TopologyChanges, type(master.controllers))
        if any(not isinstance(m, own) for m in master.manipulators):
            return None  # Co-Simulation units, or manipulators given by the caller
        if any(o.every_tick and o.marks() is None for o in master.observers):
            return None
        if master.simulation.step_limit is not None or master.simulation.wall_time_limit:
            return None  # budgets checked at every tick
        topology = [m for m in master.manipulators if isinstance(m, TopologyChanges)]
        if any(m.watching() for m in topology):
            return None  # docking ports watched or joints projected at every tick
        return cls(master, strategy)

    def run(self, index: int, bound: int, x: np.ndarray) -> tuple[int, np.ndarray]:
        """Make the ticks from ``index`` (where an input may jump) before ``bound`` (a tick
        Python sees: the next recording point or the stop) that need no Python; returns the
        tick reached and the state there (``index`` and ``x`` when none could be made)."""
        end = self._end(index, bound)
        if end <= index:
            return index, x
        ticks = self._ticks(x)
        if ticks is None:
            return index, x
        grid = self.master.grid
        # an input may jump at the end unless it is a recording point alone, between samples
        # of a strategy that steps across recording points (Dormand-Prince, no topology)
        stepping_across = isinstance(self.integrator, DormandPrince) and self.topology is None
        end_jumps = end < bound or end == grid.last or not stepping_across or self._samples(end)
        try:
            reached = ticks.run(index, end, end_jumps)
        except BaseException as exc:
            tick, jump, failed = ticks.progress()
            self.master.time = grid.stamp(tick)
            raise self._error(exc, failed, grid.time(tick), grid.time(jump)) from None
        finally:
            for run, next_sample in zip(self._runs, ticks.next_samples(), strict=True):
                self.controllers.sampled(run, next_sample)
        if self._flagged is not None:
            x, self._flagged = self._flagged, None
            return reached, x
        self.integrator.time = grid.time(reached)
        return reached, self._state.copy()

    def _end(self, index: int, bound: int) -> int:
        """The first tick from ``index`` on (at most ``bound``) that Python must see."""
        compiled = self.controllers.compiled_until(index)
        if compiled is None:
            return index
        self._runs, end = compiled
        if self.topology is not None:
            end = min(end, self.topology.idle_until(index))
        end = min(end, bound)
        return int(end) if self.strategy.steps_freely(self.master.grid.time(end)) else index

    def _samples(self, tick: int) -> bool:
        """Whether a run samples at ``tick``."""
        for run in self._runs:
            first, period = run.next_sample, run.links[0].period
            if tick >= first and (tick - first) % period == 0:
                return True
        return False

    def _ticks(self, x: np.ndarray) -> Ticks | None:
        """The compiled ticks on the integrator's own state, set to ``x`` (None: the joint
        signals need Python)."""
        state, method = self.integrator.kernel_steps()
        state[:] = x  # the reset at the first tick
        self._state = state
        signals, coupling = self.master.signals, self.controllers.coupling
        bus, before, after = signals.values, [], []
        if coupling is not None:
            if coupling.motors is not None:
                if not coupling.put_joint_signals(state, bus, signals.index):
                    return None  # joints not all compiled: signals computed in Python
                before.append((coupling.put_joint_signals, (state, bus, signals.index)))
            after.append((coupling.command_from, (bus, signals.index)))
        runs = []
        for run in self._runs:
            group = run.group(state, bus)
            writes = [batch.call for batch in run.writes]
            runs.append((group.sample, writes, run.next_sample, run.links[0].period))
        grid = self.master.grid
        start_ns, tick_ns = grid.nanoseconds() or (0, 0)
        marks = [o.marks() for o in self.master.observers if o.every_tick]
        return Ticks(
            (grid.start, grid.tick, grid.stop, start_ns, tick_ns),
            state,
            bus,
            before,
            runs,
            after,
            method,
            self._failed,
            self._flags,
            (self.strategy.system.compiled.counters, marks),
        )

    def _failed(self, run: int, tick: int) -> None:
        """Members of run number ``run`` failed at ``tick``: their events."""
        stamp = self.master.grid.stamp(tick)
        self.controllers.log_failures(self._runs[run].failures(), stamp)

    def _flags(self, tick: int, jump: int, reached: float, flags: int) -> None:
        """The step from ``tick`` to ``jump`` ended at ``reached`` (s) with event ``flags``:
        the strategy finishes it (the events, a request to end the run)."""
        self.master.time = self.master.grid.stamp(tick)
        target = self.master.grid.time(jump)
        self._flagged = self.strategy.advance(target, target, stepped=(reached, flags))

    def _error(self, exc: BaseException, failed: int, time: float, target: float) -> BaseException:
        """The error the Python loop raises for the exception ``exc`` of the compiled ticks
        (``failed``: the call that raised, see ``Ticks.progress``; ``time``, ``target``: the
        tick's time and the integrator's target, s)."""
        if failed >= 0 and isinstance(exc, _kernel.TransferError):
            try:
                self._runs[failed // 65536].writes[failed % 65536].failed(exc)
            except BaseException as error:  # noqa: BLE001 - the FMUError it raises
                return error
        if failed == ADVANCING and isinstance(
            exc, (_kernel.FMICallError, _kernel.DivergenceError, RuntimeError)
        ):
            at = time if isinstance(self.integrator, FixedStepRK4) else target
            return self.strategy.system.compiled.step_error(exc, at)
        return exc
