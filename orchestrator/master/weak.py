"""Weak coupling, a stepping strategy of the master: every FMU instance advances on its own
between macro steps.

Each instance is one unit. A Co-Simulation FMU steps itself (``do_step``); a Model Exchange
FMU with states is integrated by the orchestrator over the macro step (fixed-step RK4, steps
of at most ``simulation.step``); a stateless one is evaluated at the communication points.
Connections are exchanged only at the communication points t_n, macro steps of H apart (one
shortened to land on a time the master asks for, such as the stop time):

- ``jacobi``: every unit steps from t_n with inputs made of the outputs at t_n;
- ``gauss_seidel``: the units step one after the other in file order, each with the outputs
  at t_n+1 of the units that have already stepped.

Over a step the inputs are held (``hold``) or follow a line (``linear``): extrapolated from
the outputs at t_n-1 and t_n, or interpolated towards t_n+1 for sources already stepped
(Gauss-Seidel). A Model Exchange unit sees the line itself; a Co-Simulation unit gets its
value at mid-step, the line's mean over the step.

At each communication point the outputs are read and the inputs written in the order of the
direct feedthrough graph, so a unit's outputs are read after the inputs they depend on. A
cycle in that graph is an algebraic loop: when every Co-Simulation unit can roll back (get
and set FMU state), each macro step is repeated from its saved start, with the inputs at
t_n+1 taken from the previous sweep, until they change by less than ``tolerance``
(fixed-point iteration); otherwise the loop is reported with the FMU that cannot roll back.

A Model Exchange unit's time events (the ``nextEventTime`` of its event updates) end the
macro step they fall in: the step is shortened to land on the event, the unit goes through
event mode there (states it re-initialises are read back) and the exchange that follows
passes its new outputs on; each is a ``time_event`` row of ``events.csv``. State events
(event indicators) are not located: such a unit is refused. A unit that asks to terminate the
run (an event update, ``completedIntegratorStep``, ``doStep``) ends it at the end of the
macro step it asked in, after every unit has finished that step; no input is set after that
(an FMI 2.0 step that returned ``fmi2Discard`` allows none), so the last row holds the inputs
of that step.

Joints (``[[joints]]``) between Model Exchange bodies are kept by constraint forces computed
at each communication point with the Udwadia-Kalaba equation from the bodies' states and
unconstrained accelerations at t_n, and held over the step as part of ``tau_ext`` (body
frame, N and N.m at the body origin). Positions are not projected back onto the constraints,
so the joints drift: ``analysis/drift.py`` measures how much.

The master (``orchestrator.master.master``) runs controllers, latency, docking and undocking,
scheduled events and recording for both strategies; ``WeakCoupling`` is its stepping strategy
(``orchestrator.master.protocols.Strategy``: ``reset`` where inputs jump, ``advance`` to a
target time in macro steps, the last one shortened to land on the target).
"""

from __future__ import annotations

import math
from graphlib import CycleError, TopologicalSorter
from typing import TYPE_CHECKING

import numpy as np

from orchestrator.errors import ScenarioError, SimulationError
from orchestrator.fmi.fmu import (
    CO_SIMULATION,
    MODEL_EXCHANGE,
    FMUInstance,
    Port,
    TerminationRequest,
)
from orchestrator.master.strong import Log, next_time_event
from orchestrator.scenario.model import CoSimulationConfig, Scenario, Simulation
from orchestrator.system.system import Link, System

if TYPE_CHECKING:  # imported for annotations only: the coupling loads SciPy
    from orchestrator.coupling.runtime import ConstraintCoupling

BODY_FORCE = [f"tau_ext[{i}]" for i in range(1, 7)]


class Unit:
    """One instance in weak coupling: its inputs, the outputs others read, its own stepping.

    ``base`` holds the input values that no connection drives (start values); the input at
    t_n is ``base + sum of connected outputs + held``, where ``held`` carries constraint
    forces.
    """

    def __init__(self, instance: FMUInstance, inputs: list[str], outputs: list[str]) -> None:
        self.instance = instance
        self.inputs = instance.port(inputs)
        self.outputs = instance.port(outputs)
        # source, its output positions, our input positions, factor, offset
        self.terms: list[tuple[Unit, np.ndarray, np.ndarray, float, float]] = []
        self.base = np.zeros(len(inputs))
        self.held = np.zeros(len(inputs))
        self.start = np.zeros(len(inputs))  # inputs over the step: start + slope * (t - t_n)
        self.slope = np.zeros(len(inputs))
        self.y_now = np.zeros(len(outputs))  # outputs at t_n
        self.y_before = np.zeros(len(outputs))  # outputs at t_n-1
        self.stepped = False
        self.state: slice | None = None  # where a Model Exchange unit's states sit in x
        self._t0 = 0.0

    def connected(self, now: bool = True) -> np.ndarray:
        """Input values from the sources' outputs: current ones, or those at t_n."""
        u = self.base + self.held
        for source, from_index, to_index, factor, offset in self.terms:
            values = source.outputs.values if now else source.y_now
            u[to_index] += factor * values[from_index] + offset
        return u

    def extrapolation(self, step: float) -> np.ndarray:
        """Slope (1/s) of the inputs: towards t_n+1 for stepped sources, else from t_n-1."""
        slope = np.zeros(len(self.inputs))
        for source, from_index, to_index, factor, _ in self.terms:
            if source.stepped:
                change = source.outputs.values - source.y_now
            else:
                change = source.y_now - source.y_before
            slope[to_index] += factor * change[from_index] / step
        return slope

    def write_inputs(self, time: float) -> None:
        """Write the input line's value at ``time`` (s)."""
        self.inputs.values[:] = self.start + self.slope * (time - self._t0)
        self.instance.write(self.inputs)

    def begin(self, time: float, start: np.ndarray, slope: np.ndarray) -> None:
        """Fix the inputs of the step that starts at ``time``."""
        self._t0 = time
        self.start[:] = start
        self.slope[:] = slope


def connected_units(
    instances: dict[str, FMUInstance],
    links: list[Link],
    extra_inputs: dict[str, list[str]] | None = None,
) -> dict[str, Unit]:
    """One unit per instance, its ports holding the inputs and outputs that ``links`` connect
    (and ``extra_inputs``, by instance), every input term wired to its source's unit."""
    inputs: dict[str, list[str]] = {n: [] for n in instances}
    outputs: dict[str, list[str]] = {n: [] for n in instances}
    for link in links:
        names = inputs[link.target.name]
        names += [n for n in link.target_names if n not in names]
        names = outputs[link.source.name]
        names += [n for n in link.source_names if n not in names]
    for name, extra in (extra_inputs or {}).items():
        inputs[name] += [n for n in extra if n not in inputs[name]]
    units = {
        name: Unit(instance, inputs[name], outputs[name]) for name, instance in instances.items()
    }
    for link in links:
        source, target = units[link.source.name], units[link.target.name]
        target.terms.append(
            (
                source,
                np.array([source.outputs.names.index(n) for n in link.source_names]),
                np.array([target.inputs.names.index(n) for n in link.target_names]),
                link.factor,
                link.offset,
            )
        )
    return units


class WeakCoupling:
    """Macro steps of weakly coupled units, with the master's integrator interface."""

    has_dense_output = False
    step_event = False

    def __init__(
        self,
        system: System,
        simulation: Simulation,
        config: CoSimulationConfig,
        coupling: ConstraintCoupling | None,
        log: Log,
    ) -> None:
        self.system = system
        self.simulation = simulation
        self.config = config
        self.coupling = coupling
        self._evaluations = 0  # right-hand sides evaluated
        self.states: dict[str, int] = {}  # none read from the master's vector: units hold theirs
        self._log = log  # time events: (time (s), kind, detail)
        self.time = simulation.start_time
        self._model_exchange = [i for i in system.instances.values() if i.kind == MODEL_EXCHANGE]
        for instance in self._model_exchange:
            if instance.fmu.n_event_indicators:
                raise ScenarioError(
                    f"{system.source}: components.{instance.name}: {instance.fmu.path.name} "
                    "runs as Model Exchange and has state events (event indicators), which "
                    "weak coupling does not locate; run it under strong coupling (no "
                    "[cosimulation] section)"
                )
        self._time_event = next_time_event(self._model_exchange, simulation.start_time)
        self._termination: TerminationRequest | None = None  # asked in this macro step
        self.units = self._units()
        self._order, loop = self._exchange_order()
        self.iterate = loop is not None
        if loop is not None:
            self._check_roll_back(loop)
        self._forces: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._rates = np.zeros(system.n_states)  # unconstrained der(x) at the last exchange
        self._driven: list[tuple[Unit, np.ndarray, Port, np.ndarray]] = []
        self._started = False

    # -- set-up -----------------------------------------------------------------------------

    def _units(self) -> dict[str, Unit]:
        forces = {body: BODY_FORCE for body in (self.coupling.bodies if self.coupling else [])}
        units = connected_units(self.system.instances, self.system.connections, forces)
        for instance, part in self.system._slices:
            units[instance.name].state = part
        return units

    def _exchange_order(self) -> tuple[list[tuple[str, Unit]], list[str] | None]:
        """Read/write order at a communication point, and the algebraic loop if there is one."""
        graph: TopologicalSorter[tuple[str, str]] = TopologicalSorter()
        for name, unit in self.units.items():
            graph.add(("read", name))
            graph.add(("write", name), *[("read", s.instance.name) for s, *_ in unit.terms])
            fmu = unit.instance.fmu
            if any(fmu.output_depends_on(o, unit.inputs.names) for o in unit.outputs.names):
                graph.add(("read", name), ("write", name))
        try:
            order = list(graph.static_order())
        except CycleError as exc:
            loop = [f"{kind} {name}" for kind, name in exc.args[1]]
            sweep = [(kind, u) for kind in ("read", "write", "read") for u in self.units.values()]
            return sweep, loop
        return [(k, self.units[n]) for k, n in order], None

    def _check_roll_back(self, loop: list[str]) -> None:
        for unit in self.units.values():
            fmu = unit.instance.fmu
            if fmu.kind == CO_SIMULATION and not fmu.can_roll_back:
                raise ScenarioError(
                    f"{self.system.source}: connections: algebraic loop through direct "
                    f"feedthrough ({' -> '.join(loop)}) and {fmu.path.name} cannot roll back "
                    "(canGetAndSetFMUstate is false), so it cannot be iterated"
                )

    # -- units ------------------------------------------------------------------------------

    def _exchange(self, time: float, x: np.ndarray) -> None:
        """Consistent inputs and outputs at a communication point (one sweep)."""
        for unit in self.units.values():
            if unit.instance.kind != CO_SIMULATION:
                unit.instance.set_time(time)
            if unit.state is not None:
                unit.instance.set_continuous_states(x[unit.state])
        for kind, unit in self._order:
            if kind == "write":
                unit.begin(time, unit.connected(), np.zeros(len(unit.inputs)))
                unit.write_inputs(time)
            else:
                unit.instance.read(unit.outputs)

    def _step(self, unit: Unit, time: float, step: float, x: np.ndarray) -> None:
        """Step one unit from ``time`` by ``step`` (s); a request to terminate is kept for the
        end of the macro step, which the other units finish."""
        instance = unit.instance
        try:
            if instance.kind == CO_SIMULATION:
                unit.write_inputs(time + step / 2)
                instance.do_step(time, step)
            elif unit.state is None:  # stateless Model Exchange: evaluated at the point
                unit.write_inputs(time + step)
                instance.set_time(time + step)
            else:
                x[unit.state] = self._rk4(unit, time, step, x[unit.state])
                unit.write_inputs(time + step)
                instance.set_time(time + step)
                instance.set_continuous_states(x[unit.state])
                instance.completed_integrator_step(time + step)
        except TerminationRequest as request:
            self._termination = self._termination or request
        instance.read(unit.outputs)
        unit.stepped = True

    def _time_events(self, x: np.ndarray) -> None:
        """Event mode at ``self.time`` for the Model Exchange units whose time event is due;
        continuous states they re-initialise are read back into ``x``."""
        time = self.time
        due = [
            u
            for u in self.units.values()
            if u.instance.next_event_time is not None and u.instance.next_event_time <= time
        ]
        for unit in due:
            instance = unit.instance
            instance.set_time(time)
            if unit.state is not None:
                instance.set_continuous_states(x[unit.state])
            if instance.handle_event(time) and unit.state is not None:
                x[unit.state] = instance.read(instance.states)
        if due:
            self._time_event = next_time_event(self._model_exchange, time)
            self._log(time, "time_event", ", ".join(u.instance.name for u in due))

    def _rk4(self, unit: Unit, t0: float, step: float, x: np.ndarray) -> np.ndarray:
        instance = unit.instance

        def rhs(t: float, y: np.ndarray) -> np.ndarray:
            unit.write_inputs(t)
            instance.set_time(t)
            instance.set_continuous_states(y)
            self._evaluations += 1
            return instance.get_derivatives().copy()

        n = max(1, math.ceil(step / self.simulation.step - 1e-9))
        h = step / n
        t = t0
        for _ in range(n):
            k1 = rhs(t, x)
            k2 = rhs(t + h / 2, x + h / 2 * k1)
            k3 = rhs(t + h / 2, x + h / 2 * k2)
            k4 = rhs(t + h, x + h * k3)
            x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            t += h
        return x

    # -- constraint forces -------------------------------------------------------------------

    def _hold_constraint_forces(self, time: float, x: np.ndarray) -> None:
        """Udwadia-Kalaba forces at (time, x), held over the next step in each body's tau_ext."""
        dx = self._rates
        for unit in self.units.values():
            if unit.state is not None:
                unit.inputs.values[:] = unit.connected() - unit.held
                unit.instance.write(unit.inputs)
                unit.instance.set_time(time)
                unit.instance.set_continuous_states(x[unit.state])
                dx[unit.state] = unit.instance.get_derivatives()
        try:
            self._forces = self.coupling.constraint_forces(x, dx)
        except (np.linalg.LinAlgError, ValueError) as exc:
            raise SimulationError(
                f"constraint forces failed at t = {time:.6g} s: {exc} (diverging run)"
            ) from None
        for body in self.coupling.bodies:
            unit = self.units[body]
            unit.held[:] = 0.0
            force_index = [unit.inputs.names.index(n) for n in BODY_FORCE]
            for joint in self.coupling.assembly.joints:
                on_a, on_b = self._forces[joint.name]
                if joint.a == body:
                    unit.held[force_index] += on_a
                if joint.b == body:
                    unit.held[force_index] += on_b

    # -- the run ----------------------------------------------------------------------------

    def _macro_step(self, time: float, step: float, x: np.ndarray, guess: dict) -> None:
        """Step every unit from ``time``; ``guess`` holds loop inputs at time + step."""
        linear = self.config.inputs == "linear"
        for unit in self.units.values():
            unit.stepped = False
        if self.config.order == "jacobi":
            for unit in self.units.values():
                self._begin(unit, time, step, linear, guess)
            for unit in self.units.values():
                self._step(unit, time, step, x)
        else:
            for unit in self.units.values():
                self._begin(unit, time, step, linear, guess)
                self._step(unit, time, step, x)

    def _begin(self, unit: Unit, time: float, step: float, linear: bool, guess: dict) -> None:
        start = unit.connected(now=False)
        if unit.instance.name in guess:
            end = guess[unit.instance.name]
            slope = (end - start) / step if linear else np.zeros(len(start))
            unit.begin(time, start if linear else end, slope)
        elif linear:
            unit.begin(time, start, unit.extrapolation(step))
        else:
            unit.begin(time, unit.connected(), np.zeros(len(start)))

    def _advance(self, time: float, step: float, x: np.ndarray) -> np.ndarray:
        """One macro step; with an algebraic loop, repeated until its inputs settle."""
        for unit in self.units.values():
            unit.y_before[:] = unit.y_now
            unit.y_now[:] = unit.outputs.values
        if not self.iterate:
            self._macro_step(time, step, x, {})
            return x
        saved_x = x.copy()
        saved = {
            n: u.instance.get_state()
            for n, u in self.units.items()
            if u.instance.kind == CO_SIMULATION
        }
        guess: dict[str, np.ndarray] = {}
        change = math.inf
        try:
            for _ in range(self.config.iterations):
                self._macro_step(time, step, x, guess)
                if self._termination is not None:  # no step is taken again after it
                    return x
                new = {n: u.connected() for n, u in self.units.items()}
                if guess:
                    change = max(np.max(np.abs(new[n] - guess[n]), initial=0.0) for n in guess)
                    if change <= self.config.tolerance:
                        return x
                guess = new
                x[:] = saved_x
                for name, state in saved.items():
                    self.units[name].instance.set_state(state)
        finally:
            for name, state in saved.items():
                self.units[name].instance.free_state(state)
        raise SimulationError(
            f"algebraic loop: fixed-point iteration did not converge in "
            f"{self.config.iterations} sweeps at t = {time:.6g} s (change {change:.3g})"
        )

    # -- the master's interface ----------------------------------------------------------------

    def periods(self) -> list[float]:
        """The macro step (s)."""
        return [self.config.macro_step]

    def rates(self, time: float, x: np.ndarray) -> np.ndarray:
        """Unconstrained der(x) at the last exchange (the units hold their own time)."""
        return self._rates

    def description(self) -> str:
        """``weak coupling, jacobi, inputs hold, macro step 0.01 s``."""
        c = self.config
        return f"weak coupling, {c.order}, inputs {c.inputs}, macro step {c.macro_step:g} s" + (
            ", algebraic loop iterated" if self.iterate else ""
        )

    def evaluations(self) -> int:
        """Right-hand-side evaluations of the Model Exchange units so far."""
        return self._evaluations

    def steps(self) -> None:
        """Not counted: the scenario's step limit is for the strong integrator."""
        return None

    def drive(self, ports: list[tuple[FMUInstance, Port]]) -> None:
        """Inputs written by controllers: their values become the units' base at each reset."""
        self._driven = []
        for instance, port in ports:
            unit = self.units[instance.name]
            mine = [k for k, n in enumerate(port.names) if n in unit.inputs.names]
            if mine:
                where = np.array([unit.inputs.names.index(port.names[k]) for k in mine])
                self._driven.append((unit, where, port, np.array(mine)))

    def reset(self, time: float, x: np.ndarray) -> None:
        """Consistent inputs and outputs at (``time``, ``x``), where inputs may have jumped."""
        if not self._started:  # inputs no connection drives keep their start values
            for unit in self.units.values():
                unit.base[:] = unit.instance.read(unit.inputs)
                for _, _, to_index, _, _ in unit.terms:
                    unit.base[to_index] = 0.0
        for unit, where, port, mine in self._driven:
            unit.base[where] = port.values[mine]
        sweeps = self.config.iterations if self.iterate and not self._started else 1
        for _ in range(sweeps):
            self._exchange(time, x)
        if not self._started:  # no slope to extrapolate before the first step
            for unit in self.units.values():
                unit.y_now[:] = unit.outputs.values
        self._started = True
        if self.coupling is not None:
            self._hold_constraint_forces(time, x)
        self.time, self._x = time, np.array(x, dtype=float)

    def advance(self, target: float, stop: float) -> np.ndarray:
        """Macro steps from ``time`` to ``target`` (s), the last one shortened to land on it,
        any one shortened to land on a time event; after each the units exchange their
        signals. A request to terminate is raised at the end of the step it came in, with
        the state there."""
        x, step = self._x, self.config.macro_step
        while self.time < target:
            h = min(step, target - self.time)
            if target - (self.time + h) < 1e-9 * step:
                h = target - self.time
            end = target if h == target - self.time else self.time + h
            if self._time_event < end + 1e-9 * step and self._time_event <= target:
                end = self._time_event
                h = end - self.time
            x = self._advance(self.time, h, x)
            self.time = end
            self._check_finite(self.time, x)
            try:
                self._time_events(x)
            except TerminationRequest as request:
                self._termination = self._termination or request
            if self._termination is None:
                self._exchange(self.time, x)
            if self.coupling is not None:
                self._hold_constraint_forces(self.time, x)
            if self._termination is not None:  # no input is set after the request
                request, self._termination = self._termination, None
                request.time, request.state = self.time, x.copy()
                self._x = x
                raise request
        self._x = x
        return x.copy()

    def _check_finite(self, time: float, x: np.ndarray) -> None:
        for unit in self.units.values():
            values = x[unit.state] if unit.state is not None else unit.outputs.values
            if not np.all(np.isfinite(values)):
                raise SimulationError(
                    f"{unit.instance.name} is no longer finite at t = {time:.6g} s (diverging run)"
                )


def check_supported(scenario: Scenario, source: str) -> None:
    """Refuse what weak coupling does not run: joint motors and driven joints, which act
    inside the right-hand side of strong coupling."""
    for k, joint in enumerate(scenario.joints):
        if joint.motor is not None:
            key = "motor"
        elif joint.type == "driven_universal":
            key = "type"
        else:
            continue
        raise ScenarioError(
            f"{source}: joints[{k}].{key}: not run under weak coupling (it acts inside "
            "the right-hand side of strong coupling); remove it or the [cosimulation] section"
        )
