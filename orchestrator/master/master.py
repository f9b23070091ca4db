"""The master: a loop over a stepping strategy, manipulators and observers.

The run advances from one communication point to the next on a grid of ticks
(``protocols.Clock``). At a communication point where an input may jump the manipulators act
in order (``protocols.Manipulator``: the Co-Simulation units step to it, ``sampled.py``; the
topology changes, ``topology.py``; the controllers sample, ``sampling.py``; the units' inputs
are held, ``sampled.py``; then any given ones) and the stepping strategy restarts there
(``protocols.Strategy``: ``strong.py``, one integrator over every state with the FMUs'
events; ``weak.py``, macro steps of weakly coupled units). Inputs are held in between
(zero-order hold), so the strategy never steps across a discontinuous input; recording points
are read off its dense output. At every tick the observers see the state (``protocols.Observer``:
the recorder, ``recorder.py``, then the given ones: progress, breadcrumbs, the user's callback).
Every signal name is resolved once, in the run's signal table (``signals.py``).

An FMU that asks to terminate (FMI ``terminateSimulation``) ends the run normally where it
asked: a last row there and a ``terminated`` event naming the instance and the FMI call.
Rows and events are stamped with the exact time of their tick (``protocols.Clock.stamp``).
"""

from __future__ import annotations

import time as clock
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from orchestrator.errors import SimulationError
from orchestrator.fmi.fmu import TerminationRequest
from orchestrator.master.protocols import Clock, Handover, Manipulator, Observer, Point, Strategy
from orchestrator.master.recorder import Recorder
from orchestrator.master.sampling import ControllerSampling
from orchestrator.master.signals import SignalTable
from orchestrator.master.strong import Log, strong_coupling
from orchestrator.master.ticks import CompiledTicks
from orchestrator.recording.tables import EventLog, TimeseriesWriter
from orchestrator.scenario.model import CoSimulationConfig, EventConfig, Simulation
from orchestrator.system.system import System

if TYPE_CHECKING:  # imported for annotations only: controllers and coupling load SciPy
    from orchestrator.controllers.base import Controller
    from orchestrator.coupling.runtime import ConstraintCoupling
    from orchestrator.master.sampled import SampledUnits


@dataclass
class RunStatistics:
    """Counters of one run, for the summary and the benchmarks."""

    rhs_evaluations: int = 0
    wall_seconds: float = 0.0  # of the run loop (start-up excluded)
    cpu_seconds: float = 0.0  # the process's CPU time in the run loop
    controller_samples: int = 0
    controller_faults: int = 0


class Master:
    """Runs a system with its controllers, writing results as it goes.

    ``record``: the signals written as rows of ``timeseries``; ``observers`` and
    ``manipulators``: given ones, after the master's own (the recorder; the unit steps,
    topology changes, controller samples and held unit inputs); ``coupling``: the constraint
    coupling; ``scheduled``: scheduled undocking events; ``weak``: run under weak coupling.
    """

    compiled_ticks = True  # False: every tick in Python (what the compiled ticks reproduce)

    def __init__(
        self,
        system: System,
        controllers: list[Controller],
        simulation: Simulation,
        timeseries: TimeseriesWriter,
        events: EventLog,
        record: list[str],
        observers: Sequence[Observer] = (),
        coupling: ConstraintCoupling | None = None,
        scheduled: list[EventConfig] | None = None,
        weak: CoSimulationConfig | None = None,
        manipulators: Sequence[Manipulator] = (),
    ) -> None:
        self.system, self.simulation, self.events = system, simulation, events
        self.statistics = RunStatistics()
        self.time = simulation.start_time  # stamp of the current tick (s)
        self._inputs_set = False  # see inputs_set
        self.strategy = _strategy(system, simulation, coupling, weak, events.log)
        own = [n for c in controllers for n in c.outputs if n.startswith(c.name + ".")]
        joint_signals = coupling.signal_names() if coupling else []  # <joint>.angle, ...
        read = {n for c in controllers for n in c.inputs}
        # the coupled bodies' der(nu) with the joints' forces (weak coupling holds those forces
        # in the FMUs' tau_ext: there the FMUs' own der(nu) include them)
        bodies = coupling.acceleration_names() if coupling and not weak else []
        bodies += coupling.jump_names() if coupling else []  # velocity jumps at impacts
        self.signals = SignalTable(
            system,
            own + [n for n in joint_signals if n not in own] + [n for n in bodies if n in read],
            self.strategy.states,
            coupling.column_names() if coupling else [],
        )
        units = None
        if system.sampled and not weak:
            from orchestrator.master.sampled import SampledUnits

            units = SampledUnits(system)
        self.controllers = ControllerSampling(
            controllers, self.signals, coupling, events.log, not weak, units is not None
        )
        self.strategy.drive(self.controllers.driven())
        self.manipulators = _manipulators(self, coupling, scheduled or [], weak, units)
        self.manipulators += manipulators
        self.recorder = Recorder(self.signals, record, timeseries, self.strategy, coupling)
        self.observers: list[Observer] = [self.recorder, *observers]

    # -- what callbacks and the stepped run use --------------------------------------------

    @property
    def handover(self) -> Controller | None:
        """The controller before whose samples :meth:`steps` pauses (None: never)."""
        return self.controllers.handover

    @handover.setter
    def handover(self, controller: Controller | None) -> None:
        self.controllers.handover = controller

    def controller_inputs(self) -> set[str]:
        """The FMU inputs the controllers drive (``<instance>.<input>``)."""
        return self.controllers.controller_inputs()

    def inputs_set(self) -> None:
        """FMU inputs were set between steps (by an observer, the run's callback): the
        integration restarts at the present communication point."""
        self._inputs_set = True

    def evaluations(self) -> int:
        """Right-hand-side evaluations made so far in the run."""
        return self.strategy.evaluations()

    # -- the run ---------------------------------------------------------------------------

    def run(self, x0: np.ndarray) -> np.ndarray:
        """Run from ``x0`` to the stop time; returns the final state. The small dense algebra
        of controllers and coupling runs on one BLAS thread (more threads only slow it)."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            steps = self.steps(x0)
            try:
                while True:  # pauses only before a handover controller's samples
                    next(steps)
            except StopIteration as end:
                return end.value

    def steps(self, x0: np.ndarray) -> Generator[Handover, None, np.ndarray]:
        """The run loop of :meth:`run`, as a generator that pauses at the samples of the
        :attr:`handover` controller (None: it never pauses): just before its step it yields
        the sample's time (s) and the controller's inputs (a buffer reused), so that whoever
        drives the generator (``murcosim.gym``) decides what that step returns. It returns the
        final state. :meth:`run` drives it to the end; the arithmetic is the same either way.

        Ticks: the largest step dividing every sample time, the output interval and the
        manipulators' and strategy's periods, down to 1e-9 s. The strategy restarts only
        where an input may jump (a tick some manipulator acts at; with the fixed-step RK4
        every recording point); between those it steps on and recording points are read
        off its dense output. Ticks where compiled controllers alone act are made in
        compiled code, with the same arithmetic (``ticks.py``).
        """
        s = self.simulation
        periods = [s.output_interval, *self.strategy.periods()]
        periods += [p for m in self.manipulators for p in m.periods()]
        self.grid = grid = Clock(s.start_time, s.stop_time, periods)
        for manipulator in self.manipulators:
            manipulator.start(grid)
        output_every, last = grid.ticks(s.output_interval), grid.last
        started, cpu_started = clock.perf_counter(), clock.process_time()
        x, index, next_output, hard = np.array(x0, dtype=float), 0, 0, True
        ticks = CompiledTicks.of(self) if self.compiled_ticks else None
        self.events.log(s.start_time, "start", self.strategy.description())
        try:
            for instance in self.system.instances.values():
                if instance.termination is not None:  # asked in its initial event update
                    raise instance.termination
            for observer in self.observers:
                observer.started(Point(grid.time(0), grid.stamp(0), 0, True))
            while True:
                if hard and ticks is not None:  # up to the next tick Python must make
                    index, x = ticks.run(index, min(next_output, last), x)
                recording = index >= next_output or index == last
                point = Point(grid.time(index), grid.stamp(index), index, recording)
                self.time = point.stamp
                if hard:
                    for manipulator in self.manipulators:
                        x = yield from manipulator.steps(point, x)
                    self.strategy.reset(point.time, x)
                if recording:
                    next_output = index + output_every
                for observer in self.observers:
                    observer.observe(point, x)
                if self._inputs_set:  # a callback set FMU inputs: restart from here
                    self.strategy.reset(point.time, x)
                    self._inputs_set = False
                if index >= last:
                    break
                self._check_budget(point.time, started)
                jump = self._next_jump(index, last, next_output)
                following = min(jump, next_output)
                x = self.strategy.advance(grid.time(following), grid.time(jump))
                index, hard = following, following == jump
        except TerminationRequest as request:
            x = self._terminated(request, x)
        finally:  # the counters are true however the run ends (an error, Ctrl-C, SIGTERM)
            self._count(started, cpu_started)
            for observer in self.observers:
                observer.finished()
        return x

    def _count(self, started: float, cpu_started: float) -> None:
        stats = self.statistics
        stats.wall_seconds = clock.perf_counter() - started
        stats.cpu_seconds = clock.process_time() - cpu_started
        stats.rhs_evaluations = self.evaluations()
        stats.controller_samples = self.controllers.samples
        stats.controller_faults = self.controllers.faults

    def _terminated(self, request: TerminationRequest, x: np.ndarray) -> np.ndarray:
        """End the run where an FMU asked to: a last row at the request's time (from its
        state, else ``x``, the state there) and a ``terminated`` event; returns the state."""
        if request.state is not None:
            x = request.state
        self.time = request.time
        point = Point(request.time, request.time, self.grid.index(request.time), True)
        self.recorder.observe(point, x)
        self.events.log(request.time, "terminated", request.detail)
        for observer in self.observers[1:]:
            observer.observe(point, x)
        return x

    def _check_budget(self, time: float, started: float) -> None:
        """Stop a run that exceeds the scenario's wall-time or step budget."""
        s = self.simulation
        wall = clock.perf_counter() - started
        if s.wall_time_limit is not None and wall > s.wall_time_limit:
            raise SimulationError(
                f"wall-time limit of {s.wall_time_limit:g} s reached at t = {time:.6g} s "
                "(simulation.wall_time_limit)"
            )
        steps = self.strategy.steps() if s.step_limit is not None else None
        if steps is not None and steps > s.step_limit:
            raise SimulationError(
                f"step limit of {s.step_limit} integrator steps reached at t = {time:.6g} s "
                "(simulation.step_limit)"
            )

    def _next_jump(self, index: int, last: int, next_output: int) -> int:
        """The next tick after ``index`` where an input may jump: where a manipulator acts
        next, the end; with the fixed-step RK4 every recording point."""
        ticks = [m.next_tick(index, next_output) for m in self.manipulators]
        ticks += [next_output] if self.simulation.solver == "RK4" else []
        return min([last, *(t for t in ticks if t is not None)])

    def _topology_changed(self, x: np.ndarray) -> None:
        """A dock or an undock at state ``x``: the controllers adapt, the strategy learns
        which inputs they drive now."""
        self.controllers.reconfigure(x)
        self.strategy.drive(self.controllers.driven())


def _strategy(
    system: System,
    simulation: Simulation,
    coupling: ConstraintCoupling | None,
    weak: CoSimulationConfig | None,
    log: Log,
) -> Strategy:
    """One integrator over all states (strong coupling, with the FMUs' events) or macro
    steps of weakly coupled units."""
    if weak:
        from orchestrator.master.weak import WeakCoupling

        return WeakCoupling(system, simulation, weak, coupling, log)
    return strong_coupling(system, simulation, coupling, log)


def _manipulators(
    master: Master,
    coupling: ConstraintCoupling | None,
    scheduled: list[EventConfig],
    weak: CoSimulationConfig | None,
    units: SampledUnits | None,
) -> list[Manipulator]:
    """The master's own manipulators, in the order they act at a communication point."""
    manipulators: list[Manipulator] = []
    if units is not None:
        from orchestrator.master.sampled import HeldInputs, UnitSteps

        manipulators.append(UnitSteps(units))
    if coupling is not None:
        from orchestrator.master.topology import TopologyChanges

        start = master.simulation.start_time
        changed = master._topology_changed
        log = master.events.log
        manipulators.append(TopologyChanges(coupling, scheduled, start, not weak, log, changed))
    manipulators.append(master.controllers)
    if units is not None:
        manipulators.append(HeldInputs(units, master.simulation.step))
    return manipulators
