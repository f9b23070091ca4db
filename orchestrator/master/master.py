"""Strong-coupling master for Model Exchange FMUs.

All continuous states of all instances form one vector integrated by one persistent integrator
(``orchestrator.master.integrators``) over the compiled right-hand side
(``orchestrator.native.kernel``).
The run advances from one communication point to the next: controller samples (each at its
own sample time) and recording times. Controller outputs are held constant in between
(zero-order hold), so the integrator never steps across a discontinuous input: it is
re-initialised at every sample and reads recording times off its dense output. A controller
with a latency has its commands applied that much after the sample (a delay line); its
monitoring outputs are published at the sample. Co-Simulation FMUs in the system step
themselves between communication points like sampled controllers (``orchestrator.master.sampled``).
An FMU that asks to terminate (FMI ``terminateSimulation``) ends the run normally where it
asked: a last row there and a ``terminated`` event naming the instance and the FMI call.

Rows and events are stamped with the exact time of their tick: ``start + k tick`` computed in
whole nanoseconds (the tick is a whole number of them) and rounded once to a double, so a
row at 15.7 s is stamped 15.7, not 15.700000000000001. The FMUs, controllers and integrator
keep the time they always had (``start + k * tick`` in floating point, which can differ from
the stamp in the last bit), so the trajectories do not depend on the stamps.
"""

from __future__ import annotations

import math
import time as clock
from collections import deque
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from orchestrator.errors import FMUError, SimulationError
from orchestrator.fmi.fmu import TerminationRequest
from orchestrator.master.integrators import make_integrator
from orchestrator.master.strong import EventDriver
from orchestrator.native.kernel import PostProcess
from orchestrator.recording.tables import EventLog, TimeseriesWriter
from orchestrator.scenario.model import CoSimulationConfig, EventConfig, Simulation
from orchestrator.system.system import System

if TYPE_CHECKING:  # imported for annotations only: controllers and coupling load SciPy
    from orchestrator.controllers.base import Controller
    from orchestrator.coupling.runtime import ConstraintCoupling
    from orchestrator.fmi.fmu import FMUInstance, Port
    from orchestrator.master.weak import WeakCoupling
    from orchestrator.native.transfer import PortBatch


@dataclass
class RunStatistics:
    """Counters of one run, for the summary and the benchmarks."""

    rhs_evaluations: int = 0
    wall_seconds: float = 0.0  # of the run loop (start-up excluded)
    cpu_seconds: float = 0.0  # the process's CPU time in the run loop
    controller_samples: int = 0
    controller_faults: int = 0


class _SignalBus:
    """Controller outputs by qualified name (``autopilot.tau[1]``), held between samples, and
    the joint signals of the constraint coupling (``<joint>.angle``, ``.rate``, ``.torque``)."""

    def __init__(self, names: list[str]) -> None:
        self.index = {n: k for k, n in enumerate(names)}
        self.values = np.zeros(len(names))
        self._slots: dict[tuple[str, ...], np.ndarray] = {}

    def slots(self, names: tuple[str, ...]) -> np.ndarray:
        """Positions of the signals ``names`` in :attr:`values` (looked up once per tuple)."""
        slots = self._slots.get(names)
        if slots is None:
            slots = self._slots[names] = np.array([self.index[n] for n in names], dtype=int)
        return slots


def _batch(
    system: System, ports: list[tuple[FMUInstance, Port, np.ndarray]], write: bool
) -> tuple[PortBatch, np.ndarray]:
    """One compiled batch over (instance, port, positions) triples, and the positions of its
    values among the signals they come from (write) or go to (read)."""
    batch = system.batch([(instance, port) for instance, port, _ in ports], write)
    return batch, np.concatenate([positions for _, _, positions in ports] or [[]]).astype(int)


class _ControllerLink:
    """Where one controller reads its inputs and where its outputs go.

    The positions are resolved once, so a sample moves every signal with one fancy-indexed
    copy per FMU instance and one for the bus (no loop over single signals). Inputs that are
    continuous states of the integrated FMUs (``states``: their positions in the state vector)
    are read from the state vector itself: the value an FMU would return for them is the one
    the master set.
    """

    def __init__(
        self, controller: Controller, system: System, bus: _SignalBus, states: dict[str, int]
    ) -> None:
        self.controller = controller
        key = f"controllers.{controller.name}"
        on_bus_in = [n in bus.index for n in controller.inputs]
        self._bus_inputs = _BusSlots(controller.inputs, on_bus_in, bus)
        inputs = list(zip(controller.inputs, on_bus_in, strict=True))
        from_state = np.array([not on and n in states for n, on in inputs], dtype=bool)
        from_fmu = np.array([not on and n not in states for n, on in inputs], dtype=bool)
        self._state_positions = np.flatnonzero(from_state)  # among the controller's inputs
        self._states = np.array([states[controller.inputs[k]] for k in self._state_positions], int)
        fmu_input_positions = np.flatnonzero(from_fmu)
        fmu_inputs = [controller.inputs[k] for k in fmu_input_positions]
        # (instance, port, positions of the port's values among the controller's inputs)
        self.fmu_reads = [
            (instance, port, fmu_input_positions[positions])
            for instance, port, positions in (system.port(fmu_inputs, key) if fmu_inputs else [])
        ]
        on_bus_out = [n in bus.index for n in controller.outputs]
        self._bus_outputs = _BusSlots(controller.outputs, on_bus_out, bus)
        fmu_outputs = [n for n, on in zip(controller.outputs, on_bus_out, strict=True) if not on]
        driven = system.connected_inputs
        for name in fmu_outputs:
            if name in driven:
                raise SimulationError(f"{key}: {name} is already driven by a connection")
        fmu_output_positions = np.flatnonzero(~np.array(on_bus_out, dtype=bool))
        # (instance, port, positions of the port's values among the controller's outputs)
        self.fmu_writes = [
            (instance, port, fmu_output_positions[positions])
            for instance, port, positions in (system.port(fmu_outputs, key) if fmu_outputs else [])
        ]
        for instance, port, _ in self.fmu_writes:
            for name in port.names:
                if instance.fmu.variables[name].causality != "input":
                    raise SimulationError(f"{key}: {instance.name}.{name} is not an input")
        # every FMU port of the link read (written) by one compiled call per sample
        self._reads, self._read_positions = _batch(system, self.fmu_reads, write=False)
        self._writes, self._write_positions = _batch(system, self.fmu_writes, write=True)
        self.inputs = np.zeros(len(controller.inputs))
        self.last_outputs = np.zeros(len(controller.outputs))
        self.next_sample = 0  # tick of the next sample
        self.period = 1  # ticks between samples (set when the run's tick is known)
        self.monitors = np.array([n in controller.monitors for n in controller.outputs], bool)
        self.pending: deque[tuple[int, np.ndarray]] = deque()  # (tick due, outputs)
        self._applied = np.zeros(len(controller.outputs))

    def gather(self, bus: _SignalBus, x: np.ndarray) -> np.ndarray:
        """The controller's inputs, read from the state ``x``, the FMUs and the bus (buffer
        reused)."""
        u = self.inputs
        if self._states.size:
            u[self._state_positions] = x[self._states]
        if self.fmu_reads:
            self._reads.run()
            u[self._read_positions] = self._reads.values
        self._bus_inputs.copy(bus.values, u, to_bus=False)
        return u

    def apply(self, outputs: np.ndarray, bus: _SignalBus, which: np.ndarray | None = None) -> None:
        """Write outputs to the bus and to FMU inputs; ``which`` (a mask) limits the outputs
        that change, the others keep their applied values."""
        if which is not None:
            outputs = np.where(which, outputs, self._applied)
        self._applied = outputs
        self._bus_outputs.copy(bus.values, outputs, to_bus=True)
        if self.fmu_writes:
            self._writes.values[:] = outputs[self._write_positions]
            self._writes.run()


class _BusSlots:
    """Which of a controller's signals (inputs or outputs) live on the bus, and where."""

    def __init__(self, names: list[str], on_bus: list[bool], bus: _SignalBus) -> None:
        self.signals = np.flatnonzero(np.array(on_bus, dtype=bool))  # among the controller's
        self.bus = np.array([bus.index[names[k]] for k in self.signals], dtype=int)

    def copy(self, bus_values: np.ndarray, signals: np.ndarray, to_bus: bool) -> None:
        """Copy the signals to the bus (``to_bus``) or from it, in place."""
        if not self.signals.size:
            return
        if to_bus:
            bus_values[self.bus] = signals[self.signals]
        else:
            signals[self.signals] = bus_values[self.bus]


class Master:
    """Runs a system with its controllers, writing results as it goes."""

    def __init__(
        self,
        system: System,
        controllers: list[Controller],
        simulation: Simulation,
        timeseries: TimeseriesWriter,
        events: EventLog,
        record: list[str],
        progress: Callable[[float], None] | None = None,
        coupling: ConstraintCoupling | None = None,
        scheduled: list[EventConfig] | None = None,
        weak: CoSimulationConfig | None = None,
    ) -> None:
        self.system = system
        self.weak = weak
        self.coupling = coupling
        self.scheduled = sorted(scheduled or [], key=lambda e: e.time)
        self.simulation = simulation
        self.timeseries = timeseries
        self.events = events
        self.progress = progress
        self.statistics = RunStatistics()
        self.handover: Controller | None = None  # see steps
        self._inputs_set = False  # see inputs_set
        own = [n for c in controllers for n in c.outputs if n.startswith(c.name + ".")]
        joint_signals = coupling.signal_names() if coupling else []  # <joint>.angle, ...
        self.bus = _SignalBus(own + [n for n in joint_signals if n not in own])
        # controller inputs read from the state vector (strong coupling: it holds the states)
        self._states = {} if weak else system.state_index()
        self.links = [_ControllerLink(c, system, self.bus, self._states) for c in controllers]
        joint_columns = set(coupling.column_names()) if coupling else set()
        self._record_joint_names = [n for n in record if n in joint_columns]
        self._record_joints = np.array(
            [k for k, n in enumerate(record) if n in joint_columns], dtype=int
        )
        self._sources: dict[tuple[str, ...], np.ndarray] = {}  # see _joint_sources
        fmu_record = [n for n in record if n not in self.bus.index and n not in joint_columns]
        fmu_positions = np.array(
            [k for k, n in enumerate(record) if n not in self.bus.index and n not in joint_columns],
            dtype=int,
        )
        # (instance, port, positions of the port's values in the row)
        self._record_ports = [
            (instance, port, fmu_positions[positions])
            for instance, port, positions in (
                system.port(fmu_record, "record") if fmu_record else []
            )
        ]
        self._recorded, self._recorded_positions = _batch(system, self._record_ports, write=False)
        self._record_bus = _BusSlots(record, [n in self.bus.index for n in record], self.bus)
        self._row = np.zeros(len(record))
        self.time = simulation.start_time  # stamp of the current tick (s), see the docstring
        self.sampled = None  # Co-Simulation units under strong coupling
        self._sampled_next = 0  # tick of their next communication point at the latest
        if system.sampled and not weak:
            from orchestrator.master.sampled import SampledUnits

            self.sampled = SampledUnits(system)

    # -- right-hand side and integration ---------------------------------------------------

    def rhs(self, time: float, x: np.ndarray) -> np.ndarray:
        """System derivatives with the constraint coupling applied (buffer reused)."""
        dx = self.system.derivatives(time, x)
        if self.coupling is not None:
            self.coupling.apply(x, dx)
        return dx

    def _post_process(self) -> PostProcess:
        """What the compiled integrators call after every evaluation: the coupling."""
        if self.coupling is None:
            return None
        return self.coupling.post_process()

    # -- the run ---------------------------------------------------------------------------

    def controller_inputs(self) -> set[str]:
        """The FMU inputs the controllers drive (``<instance>.<input>``)."""
        return {
            f"{instance.name}.{name}"
            for link in self.links
            for instance, port, _ in link.fmu_writes
            for name in port.names
        }

    def inputs_set(self) -> None:
        """FMU inputs were set between steps (by the run's callback): the integration restarts
        at the present communication point."""
        self._inputs_set = True

    def _run_controllers(
        self, time: float, index: int, x: np.ndarray
    ) -> Iterator[tuple[float, np.ndarray]]:
        """Sample the controllers due at tick ``index``; before the :attr:`handover`
        controller's step, yield ``(time, its inputs)`` (see :meth:`steps`)."""
        for link in self.links:
            while link.pending and link.pending[0][0] <= index:
                link.apply(link.pending.popleft()[1], self.bus, ~link.monitors)
            if link.next_sample > index:
                continue
            c = link.controller
            link.next_sample += link.period
            self.statistics.controller_samples += 1
            try:
                inputs = link.gather(self.bus, x)
                if c is self.handover:
                    yield time, inputs
                outputs = np.asarray(c.step(time, inputs), dtype=float)
                # a NaN or an infinity makes the sum non-finite (as would one beyond 1.8e308)
                if outputs.shape != (len(c.outputs),) or not math.isfinite(outputs.sum()):
                    raise ValueError(f"expected {len(c.outputs)} finite outputs, got {outputs!r}")
            except FMUError:
                raise
            except Exception as exc:  # noqa: BLE001 - a faulty controller must not end the run
                if "KeyboardInterrupt" in str(exc):  # Ctrl-C inside a solver's C code
                    raise KeyboardInterrupt from exc
                self.statistics.controller_faults += 1
                self.events.log(
                    self.time,
                    "controller_fault",
                    f"{c.name}: {type(exc).__name__}: {exc}; previous outputs held",
                )
                outputs = link.last_outputs
            link.last_outputs = outputs
            if c.latency > 0:
                link.apply(outputs, self.bus, link.monitors)
                link.pending.append((index + max(1, round(c.latency / self._tick)), outputs))
            else:
                link.apply(outputs, self.bus)
            for kind, detail in c.events:
                self.events.log(self.time, kind, detail)
            c.events.clear()

    def _reads_outputs(self) -> bool:
        """Whether a sample reads FMU outputs other than states: controllers' inputs, or the
        Co-Simulation units' inputs under strong coupling (then the FMUs are evaluated at the
        sample's time and state first)."""
        return self.sampled is not None or any(link.fmu_reads for link in self.links)

    def _record(self, time: float, x: np.ndarray) -> None:
        """Record the row of state ``x`` at ``time`` (s), stamped ``self.time``."""
        row = self._row
        dx = self._stepping.rates if self.weak else self.system.derivatives(time, x)
        if self._record_ports:
            self._recorded.run()
            values = self._recorded.values
            if not np.isfinite(values).all():
                instance, name = self._recorded.variable(
                    int(np.flatnonzero(~np.isfinite(values))[0])
                )
                raise SimulationError(
                    f"{instance.name}.{name} is no longer finite at t = {time:.6g} s "
                    "(diverging run or a failing FMU)"
                )
            row[self._recorded_positions] = values
        self._record_bus.copy(self.bus.values, row, to_bus=False)
        if self._record_joint_names:
            names, values = self.coupling.column_values(x, dx.copy())
            row[self._record_joints] = np.append(values, math.nan)[self._joint_sources(names)]
        self.timeseries.write(self.time, row)

    def _joint_sources(self, names: tuple[str, ...]) -> np.ndarray:
        """Where each recorded joint column is among the coupling's ``names`` (one past the
        end for a joint not present now: NaN), kept per set of names."""
        sources = self._sources.get(names)
        if sources is None:
            position = {name: k for k, name in enumerate(names)}
            sources = np.array([position.get(n, len(names)) for n in self._record_joint_names])
            self._sources[names] = sources
        return sources

    def _topology(self, time: float, index: int, x: np.ndarray) -> np.ndarray:
        """Scheduled undocking and docking captures at a communication point."""
        changes: list[tuple[str, str]] = []
        while (
            self.scheduled and round((self.scheduled[0].time - self._start) / self._tick) <= index
        ):
            event = self.scheduled.pop(0)
            changes.append(self.coupling.undock(event.joint, x, f"scheduled at {event.time:g} s"))
        x, docked = self.coupling.dock(time, x)
        changes += docked
        for kind, detail in changes:
            self.events.log(self.time, kind, detail)
        if any(kind in ("dock", "undock") for kind, _ in changes):
            self._reconfigure(x)
        return x

    def _reconfigure(self, x: np.ndarray) -> None:
        """Let controllers adapt to a new morphology (e.g. rebuild the thrust allocation)."""
        for k, link in enumerate(self.links):
            before = list(link.controller.outputs)
            if link.controller.reconfigure(x):
                new = _ControllerLink(link.controller, self.system, self.bus, self._states)
                new.next_sample, new.period = link.next_sample, link.period
                self.links[k] = new
                self._reading = self._reads_outputs()
                released = [n for n in before if n not in link.controller.outputs]
                self._release(released)
        if self.weak:
            self._stepping.drive([(i, p) for link in self.links for i, p, _ in link.fmu_writes])

    def _release(self, names: list[str]) -> None:
        """Inputs a controller stops driving go back to their start values."""
        fmu_names = [n for n in names if n not in self.bus.index]
        for instance, port, _ in self.system.port(fmu_names, "controllers") if fmu_names else []:
            port.values[:] = [instance.fmu.variables[n].start or 0.0 for n in port.names]
            instance.write(port)

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

    def steps(self, x0: np.ndarray) -> Generator[tuple[float, np.ndarray], None, np.ndarray]:
        """The run loop of :meth:`run`, as a generator that pauses at the samples of the
        :attr:`handover` controller (None: it never pauses): just before its step it yields
        the sample's time (s) and the controller's inputs (a buffer reused), so that whoever
        drives the generator (``murcosim.gym``) decides what that step returns. It returns the
        final state. :meth:`run` drives it to the end; the arithmetic is the same either way.

        Time advances on a grid of ticks (the largest step dividing every sample time, the
        output interval and the scheduled event times, down to 1e-9 s), so sample instants
        never drift; the last interval is shortened to end exactly at the stop time. The
        integrator is re-initialised only where an input may jump (controller samples,
        delayed commands, scheduled events, and with constraint coupling every communication
        point, where the state is projected and docking is checked); between those it steps
        on and recording points are read off its dense output.
        """
        s = self.simulation
        self._start = s.start_time
        periods = [link.controller.sample_time for link in self.links] + [s.output_interval]
        periods += [link.controller.latency for link in self.links if link.controller.latency]
        periods += [e.time - s.start_time for e in self.scheduled if e.time > s.start_time]
        periods += [self.weak.macro_step] if self.weak else []
        periods += [s.step] if self.sampled else []
        self._tick = _common_tick(periods)
        self._tick_ns = round(self._tick * 1e9)
        self._start_ns = _whole_nanoseconds(s.start_time)
        for link in self.links:  # ticks between samples
            link.period = max(1, round(link.controller.sample_time / self._tick))
        self._reading = self._reads_outputs()
        self._stepping = integrator = self._strategy()
        output_every = max(1, round(s.output_interval / self._tick))
        last = max(1, math.ceil((s.stop_time - s.start_time) / self._tick - 1e-9))

        def time_at(index: int) -> float:
            return min(s.start_time + index * self._tick, s.stop_time)

        def stamp(index: int) -> float:
            if self._start_ns is None:  # a start time off the nanosecond grid
                return time_at(index)
            return min((self._start_ns + index * self._tick_ns) / 1_000_000_000, s.stop_time)

        started, cpu_started = clock.perf_counter(), clock.process_time()
        x = np.array(x0, dtype=float)
        index = 0
        next_output = 0
        hard = True
        self.events.log(s.start_time, "start", self._description())
        try:
            for instance in self.system.instances.values():
                if instance.termination is not None:  # asked in its initial event update
                    raise instance.termination
            while True:
                time = time_at(index)
                self.time = stamp(index)
                if hard:
                    if self.sampled:
                        self.sampled.communicate(time)
                    if self.coupling is not None:
                        x = self._topology(
                            time, index, x if self.weak else self.coupling.project(x)
                        )
                    if not self.weak and self._reading:
                        self.system.derivatives(time, x)  # outputs consistent with (time, x)
                    if self.coupling is not None:  # joint angles and rates in, torques out
                        names, values = self.coupling.joint_signals(x)
                        self.bus.values[self.bus.slots(names)] = values
                    yield from self._run_controllers(time, index, x)
                    if self.coupling is not None:
                        commands = self.bus.slots(self.coupling.command_names())
                        self.coupling.command(self.bus.values[commands])
                    if self.sampled:
                        self.sampled.hold_inputs(time, x)
                        self._sampled_next = index + max(1, round(s.step / self._tick))
                    integrator.reset(time, x)
                if index >= next_output or index == last:
                    self._record(time, x)
                    next_output = index + output_every
                if self.progress:
                    self.progress(self.time)
                    if self._inputs_set:  # the callback set FMU inputs: restart from here
                        integrator.reset(time, x)
                        self._inputs_set = False
                if index >= last:
                    break
                self._check_budget(time, started)
                jump = self._next_jump(index, last, next_output)
                following = min(jump, next_output)
                x = integrator.advance(time_at(following), time_at(jump))
                index = following
                hard = index == jump
        except TerminationRequest as request:
            x = self._terminated(request, x)
        finally:  # the counters are true however the run ends (an error, Ctrl-C, SIGTERM)
            self.statistics.wall_seconds = clock.perf_counter() - started
            self.statistics.cpu_seconds = clock.process_time() - cpu_started
            self.statistics.rhs_evaluations = self.evaluations()
        return x

    def evaluations(self) -> int:
        """Right-hand-side evaluations made so far in the run (the compiled kernel's count under
        strong coupling; the weak coupling's units count theirs as they go)."""
        return self.statistics.rhs_evaluations if self.weak else self.system.compiled.evaluations

    def _terminated(self, request: TerminationRequest, x: np.ndarray) -> np.ndarray:
        """End the run where an FMU asked to: a last row at the request's time (from its
        state, else ``x``, the state there) and a ``terminated`` event; returns the state."""
        if request.state is not None:
            x = request.state
        self.time = request.time
        self._record(request.time, x)
        self.events.log(request.time, "terminated", request.detail)
        if self.progress:
            self.progress(request.time)
        return x

    def _strategy(self) -> EventDriver | WeakCoupling:
        """The stepping strategy: one integrator over all states (strong coupling, with the
        FMUs' events) or macro steps of weakly coupled units."""
        s = self.simulation
        if self.weak:
            from orchestrator.master.weak import WeakCoupling

            def count(n: int) -> None:
                self.statistics.rhs_evaluations += n

            weak = WeakCoupling(self.system, s, self.weak, self.coupling, count, self.events.log)
            weak.drive([(i, p) for link in self.links for i, p, _ in link.fmu_writes])
            return weak
        jacobian = None
        if s.solver.startswith("CVODE_") and self.coupling is None:
            from orchestrator.master.jacobian import DirectionalJacobian

            if DirectionalJacobian.available(self.system):
                jacobian = DirectionalJacobian(self.system)
        integrator = make_integrator(
            s,
            self.system.compiled,
            self.rhs,
            self._post_process(),
            self.system.completed_step,
            jacobian,
        )
        return EventDriver(self.system, integrator, self.events.log)

    def _description(self) -> str:
        if self.weak:
            c = self.weak
            return f"weak coupling, {c.order}, inputs {c.inputs}, macro step {c.macro_step:g} s" + (
                ", algebraic loop iterated" if self._stepping.iterate else ""
            )
        s = self.simulation
        units = len(self.system.sampled)
        return f"solver {s.solver}, {self.system.n_states} states" + (
            f", {units} Co-Simulation unit(s) stepped at least every {s.step:g} s" if units else ""
        )

    def _check_budget(self, time: float, started: float) -> None:
        """Stop a run that exceeds the scenario's wall-time or step budget."""
        s = self.simulation
        wall = clock.perf_counter() - started
        if s.wall_time_limit is not None and wall > s.wall_time_limit:
            raise SimulationError(
                f"wall-time limit of {s.wall_time_limit:g} s reached at t = {time:.6g} s "
                "(simulation.wall_time_limit)"
            )
        if s.step_limit is not None and not self.weak:
            steps = sum(self.system.compiled.steps)
            if steps > s.step_limit:
                raise SimulationError(
                    f"step limit of {s.step_limit} integrator steps reached at t = {time:.6g} s "
                    "(simulation.step_limit)"
                )

    def _next_jump(self, index: int, last: int, next_output: int) -> int:
        """The next tick after ``index`` where an input may jump: a controller sample, a
        delayed command, a scheduled event, the longest step of Co-Simulation units, the end;
        with constraint coupling (projection, docking) or the fixed-step RK4 every
        communication point counts."""
        candidates = [last] + [link.next_sample for link in self.links]
        candidates += [self._sampled_next] if self.sampled else []
        candidates += [link.pending[0][0] for link in self.links if link.pending]
        if self.scheduled:
            candidates.append(round((self.scheduled[0].time - self._start) / self._tick))
        if self.coupling is not None or self.simulation.solver == "RK4":
            candidates.append(next_output)
        return min(candidates)


def _whole_nanoseconds(time: float) -> int | None:
    """``time`` (s) in whole nanoseconds, None when it is not a whole number of them."""
    nanoseconds = round(time * 1e9)
    return nanoseconds if nanoseconds / 1_000_000_000 == time else None


def _common_tick(periods: list[float]) -> float:
    """Largest step (>= 1e-9 s) of which every period is an integer multiple."""
    units = [max(1, round(p * 1e9)) for p in periods]
    return math.gcd(*units) * 1e-9
