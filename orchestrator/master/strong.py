"""FMI events of Model Exchange instances in the strong master.

``EventDriver`` wraps the master's integrator and stops it at every event of the FMUs:

- time events: the earliest ``nextEventTime`` any instance reported is a hard stop;
- state events: after every accepted step the event indicators are compared with those at the
  start of the step; a change of domain (``z > 0`` to ``z <= 0`` or back, as FMI defines it)
  is located by bisection on the integrator's dense output until the bracket is shorter than
  ``EVENT_TOLERANCE``, and the event is handled at the bracket's far end, where the indicator
  has changed already;
- step events: an instance that asks for event mode in ``completedIntegratorStep``.

At an event the instances concerned enter event mode, update their discrete states until none
needs it (the FMI event iteration) and return to continuous time; continuous states they
re-initialised are read back, and the integrator restarts there. Every event is a row of
``events.csv`` (``time_event``, ``state_event``, ``step_event``) naming the instances.

An instance that asks to terminate the run (in its event update or after an accepted step)
ends it there: ``TerminationRequest`` reaches the master with the state at that time. A step
beyond the target that ends with such a request is handled like an event found there: the
target is read off the dense output first, and the request is raised when a later call
reaches it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import numpy as np

from orchestrator.errors import FMUError, ScenarioError
from orchestrator.fmi.fmu import MODEL_EXCHANGE, FMUInstance, Port, TerminationRequest
from orchestrator.master.integrators import Integrator, make_integrator
from orchestrator.scenario.model import Simulation
from orchestrator.system.system import System

if TYPE_CHECKING:  # imported for annotations only: the coupling loads SciPy
    from orchestrator.coupling.runtime import ConstraintCoupling

EVENT_TOLERANCE = 1e-12  # s, relative to max(1, |t|): width of the bracket around a state event

Log = Callable[[float, str, str], None]


def next_time_event(instances: Iterable[FMUInstance], now: float) -> float:
    """The earliest time event (s) the instances have announced (inf: none); one announced
    before ``now`` (s) is an FMUError."""
    times = [i.next_event_time for i in instances if i.next_event_time is not None]
    time_event = min(times, default=math.inf)
    if time_event < now:
        raise FMUError(f"time event announced for t = {time_event:.9g} s, before t = {now:.9g} s")
    return time_event


def strong_coupling(
    system: System, simulation: Simulation, coupling: ConstraintCoupling | None, log: Log
) -> EventDriver:
    """The strong-coupling strategy: the integrator ``simulation.solver`` names over the
    compiled right-hand side with the constraint coupling applied after every evaluation
    (with the FMUs' directional derivatives as Jacobian for CVODE where every FMU gives them
    and no coupling acts), stopped at the FMUs' events."""
    jacobian = None
    if simulation.solver.startswith("CVODE_") and coupling is None:
        from orchestrator.master.jacobian import DirectionalJacobian

        if DirectionalJacobian.available(system):
            jacobian = DirectionalJacobian(system)

    def rhs(time: float, x: np.ndarray) -> np.ndarray:
        """System derivatives with the constraint coupling applied (buffer reused)."""
        dx = system.derivatives(time, x)
        if coupling is not None:
            coupling.apply(x, dx)
        return dx

    post = coupling.post_process() if coupling is not None else None
    integrator = make_integrator(
        simulation, system.compiled, rhs, post, system.completed_step, jacobian
    )
    return EventDriver(system, integrator, log)


class EventDriver:
    """The master's integrator, stopped and restarted at the FMUs' events: the stepping
    strategy of strong coupling (``orchestrator.master.protocols.Strategy``)."""

    def __init__(self, system: System, integrator: Integrator, log: Log) -> None:
        self.system, self.integrator, self._log = system, integrator, log
        self.states = system.state_index()  # controllers read these from the state vector
        self._instances = [i for i in system.instances.values() if i.kind == MODEL_EXCHANGE]
        self._indicated = [i for i in self._instances if i.fmu.n_event_indicators]
        if self._indicated and not integrator.has_dense_output:
            names = ", ".join(i.name for i in self._indicated)
            raise ScenarioError(
                f"{system.source}: simulation.solver: {names} ha(s) state events, which need an "
                "adaptive solver with dense output (RK45, DOP853, CVODE_BDF, ...), not RK4"
            )
        self._z = np.zeros(0)
        self._pending: tuple[float, str, list[FMUInstance]] | None = None  # (s, kind, who)
        self._termination: TerminationRequest | None = None  # found beyond the last target
        # announced at initialization and by event updates, which all go through _handle
        self._time_event = next_time_event(self._instances, system.scenario.simulation.start_time)

    def _indicators(self, time: float, x: np.ndarray) -> np.ndarray:
        self.system.derivatives(time, x)  # states and inputs of (time, x)
        if not self._indicated:
            return np.zeros(0)
        return np.concatenate([i.event_indicators() for i in self._indicated])

    # -- the master's interface ------------------------------------------------------------

    @property
    def time(self) -> float:
        return self.integrator.time

    def periods(self) -> list[float]:
        """None: the integrator chooses its steps."""
        return []

    def drive(self, ports: list[tuple[FMUInstance, Port]]) -> None:
        """Nothing to do: the instances hold the inputs controllers write."""

    def steps_freely(self, until: float) -> bool:
        """Whether the integrator may step up to ``until`` (s) with no event to watch: no
        event indicators, nothing pending, no time event announced up to then."""
        quiet = self._pending is None and self._termination is None
        return quiet and not self._indicated and until < self._time_event

    def rates(self, time: float, x: np.ndarray) -> np.ndarray:
        """The system's derivatives at (``time``, ``x``), the FMUs set to it."""
        return self.system.derivatives(time, x)

    def description(self) -> str:
        """``solver CVODE_BDF, 26 states`` (and the Co-Simulation units stepped alongside)."""
        s = self.system.scenario.simulation
        units = len(self.system.sampled)
        return f"solver {s.solver}, {self.system.n_states} states" + (
            f", {units} Co-Simulation unit(s) stepped at least every {s.step:g} s" if units else ""
        )

    def evaluations(self) -> int:
        """Right-hand-side evaluations of the compiled kernel so far."""
        return self.system.compiled.evaluations

    def steps(self) -> int:
        """Integrator steps so far."""
        return sum(self.system.compiled.steps)

    def reset(self, time: float, x: np.ndarray) -> None:
        """Restart the integrator at (``time``, ``x``), inputs may have jumped."""
        self.integrator.reset(time, x)
        if self._indicated:
            self._z = self._indicators(time, x).copy()

    def advance(
        self, target: float, stop: float, stepped: tuple[float, int] | None = None
    ) -> np.ndarray:
        """State at ``target`` (s), never stepping past ``stop`` nor an event. An event (or a
        request to terminate) the last step found beyond the target (a time or step event at
        the step's end) is handled when a later call reaches it, so what is read at the
        target is from before it. ``stepped``: (time reached, event flags) of the integrator's
        advance to the target made already (by the master's compiled ticks), to finish."""
        while True:
            if self._termination is not None:
                if self._termination.time > target:
                    return self.integrator.dense(target)
                raise self._termination
            if self._pending is not None:
                when, kind, instances = self._pending
                if when > target:
                    return self.integrator.dense(target)
                self._pending = None
                x = self._handle(when, self.integrator.dense(when), instances, kind)
                if when == target:
                    return x
            time_event = self._time_event
            bound = min(stop, time_event)
            goal = min(target, bound)
            try:
                if stepped is not None:
                    x, stepped = self.integrator.stepped(*stepped), None
                elif self._indicated:  # step by step up to the goal, indicators after each step
                    x = self._step_watching(goal)
                else:
                    x = self.integrator.advance(goal, bound)
            except TerminationRequest as request:  # after a step: maybe beyond the target
                self._termination = request
                continue
            now = self.integrator.time
            if self.integrator.step_event:
                self._pending = (now, "step_event", self._instances)
            elif now == time_event:
                due = [i for i in self._instances if i.next_event_time == time_event]
                self._pending = (now, "time_event", due)
            elif now >= target:
                return x

    def _step_watching(self, bound: float) -> np.ndarray:
        """One step towards ``bound``; a state event inside it is located and handled."""
        before = self.integrator.time
        x = self.integrator.step(bound)
        after = self.integrator.time
        z = self._indicators(after, x)
        crossed = np.flatnonzero((self._z > 0) != (z > 0))
        if not crossed.size:
            self._z = z.copy()
            return x
        when, x = self._locate(before, after, crossed)
        owners = self._owners(crossed)
        self.integrator.reset(when, x)  # the rest of the step is taken again after the event
        return self._handle(when, x, owners, "state_event")

    def _locate(self, low: float, high: float, crossed: np.ndarray) -> tuple[float, np.ndarray]:
        """Earliest domain change in (low, high] by bisection on the dense output; returns the
        bracket's far end and the state there."""
        old_side = self._z[crossed] > 0
        width = EVENT_TOLERANCE * max(1.0, abs(high))
        state_high = self.integrator.dense(high)
        while high - low > width:
            middle = 0.5 * (low + high)
            state = self.integrator.dense(middle)
            z = self._indicators(middle, state)[crossed]
            if np.any((z > 0) != old_side):
                high, state_high = middle, state
            else:
                low = middle
        return high, state_high

    def _owners(self, crossed: np.ndarray) -> list[FMUInstance]:
        owners, offset = [], 0
        for instance in self._indicated:
            n = instance.fmu.n_event_indicators
            if np.any((crossed >= offset) & (crossed < offset + n)):
                owners.append(instance)
            offset += n
        return owners

    def _handle(
        self, time: float, x: np.ndarray, instances: list[FMUInstance], kind: str
    ) -> np.ndarray:
        """Event mode for ``instances`` at (``time``, ``x``); the state after the event."""
        self.system.derivatives(time, x)  # time, states and inputs at the event
        x = np.array(x, dtype=float)
        try:
            changed = [i for i in instances if i.handle_event(time)]
        except TerminationRequest as request:
            request.state = x
            raise
        self._time_event = next_time_event(self._instances, time)
        for instance, part in self.system._slices:
            if instance in changed:
                x[part] = instance.read(instance.states)
        self._log(time, kind, ", ".join(i.name for i in instances))
        self.reset(time, x)
        return x
