"""Controller samples, a manipulator of the master.

Each controller runs at its own sample time; its outputs are held in between (zero-order
hold). A controller with a latency has its commands applied that much after the sample (a
delay line); its monitoring outputs are published at the sample. A controller that raises
(other than an FMU error) is a ``controller_fault`` event and its previous outputs are held.
Joint angles and rates of the constraint coupling are put on the signal bus before the
samples, and the motor torque commands taken from it after them. A controller that reads a
coupled body's ``der(nu)`` (an IMU) reads it from the bus too: the accelerations the
integrator integrates, with the joints' constraint forces and motor torques, computed at the
sample's (t, x) when such a controller is due (the FMU's own der(nu) leaves them out), and
the running sums of the velocity jumps of docking impacts (``<body>.nu_jump[i]``). Many
vehicles' autopilots and thrust allocations are sampled as batches
(:mod:`orchestrator.controllers.batch`), and consecutive controllers whose steps are compiled
by one call (:mod:`orchestrator.master.law_runs`).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING

import numpy as np

from orchestrator.errors import FMUError, ScenarioError
from orchestrator.fmi.fmu import FMUInstance, Port
from orchestrator.master.law_runs import LawRun, law_runs
from orchestrator.master.protocols import Clock, Handover, Manipulator, Point
from orchestrator.master.signals import SignalTable
from orchestrator.native.transfer import PortBatch
from orchestrator.system.system import System

if TYPE_CHECKING:  # imported for annotations only: controllers and coupling load SciPy
    from orchestrator.controllers.base import Controller
    from orchestrator.coupling.runtime import ConstraintCoupling

Log = Callable[[float, str, str], None]


def _batch(
    system: System, ports: list[tuple[FMUInstance, Port, np.ndarray]], write: bool
) -> tuple[PortBatch, np.ndarray]:
    """One compiled batch over (instance, port, positions) triples, and the positions of its
    values among the signals they come from (write) or go to (read)."""
    batch = system.batch([(instance, port) for instance, port, _ in ports], write)
    return batch, np.concatenate([positions for _, _, positions in ports] or [[]]).astype(int)


class ControllerLink:
    """Where one controller reads its inputs and where its outputs go.

    The positions are resolved once, in the signal table, so a sample moves every signal with
    one fancy-indexed copy per FMU instance and one for the bus (no loop over single signals).
    Inputs that are continuous states of the integrated FMUs are read from the state vector
    itself: the value an FMU would return for them is the one the master set.
    """

    def __init__(self, controller: Controller, signals: SignalTable) -> None:
        self.controller = controller
        self.signals = signals
        system = signals.system
        key = f"controllers.{controller.name}"
        self._inputs = signals.select(controller.inputs, key, ("bus", "state", "fmu"))
        self.fmu_reads = self._inputs.fmu
        outputs = signals.select(controller.outputs, key, ("bus", "fmu"))
        self._outputs = outputs
        driven = system.connected_inputs
        for k in outputs.fmu_positions():
            if controller.outputs[k] in driven:
                raise ScenarioError(
                    f"{system.source}: {key}: {controller.outputs[k]} is already driven by a "
                    "connection"
                )
        self.fmu_writes = outputs.fmu
        for instance, port, _ in self.fmu_writes:
            for name in port.names:
                if instance.fmu.variables[name].causality != "input":
                    raise ScenarioError(
                        f"{system.source}: {key}: {instance.name}.{name} is not an input"
                    )
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

    @property
    def writes(self) -> PortBatch:
        """The compiled batch of the FMU inputs the outputs go to."""
        return self._writes

    def wiring(self) -> tuple[list[int], list[int], list[int], np.ndarray]:
        """Where a compiled sample reads and writes (see ``LawGroup.add``): per input its
        state entry k >= 0 or its bus slot as -1 - slot; per output its bus slot and its entry
        in :attr:`writes`' values (-1: none); those values."""
        c = self.controller
        sources = np.zeros(len(c.inputs), int)
        positions, entries = self._inputs.state
        sources[positions] = entries
        positions, slots = self._inputs.bus
        sources[positions] = -1 - slots
        bus = np.full(len(c.outputs), -1)
        positions, slots = self._outputs.bus
        bus[positions] = slots
        fmu = np.full(len(c.outputs), -1)
        fmu[self._write_positions] = np.arange(len(self._write_positions))
        return sources.tolist(), bus.tolist(), fmu.tolist(), self._writes.values

    def gather(self, x: np.ndarray) -> np.ndarray:
        """The controller's inputs, read from the state ``x``, the FMUs and the bus (buffer
        reused)."""
        u = self.inputs
        positions, states = self._inputs.state
        if states.size:
            u[positions] = x[states]
        if self.fmu_reads:
            self._reads.run()
            u[self._read_positions] = self._reads.values
        self._inputs.from_bus(self.signals.values, u)
        return u

    def apply(self, outputs: np.ndarray, which: np.ndarray | None = None) -> None:
        """Write outputs to the bus and to FMU inputs; ``which`` (a mask) limits the outputs
        that change, the others keep their applied values."""
        if which is not None:
            outputs = np.where(which, outputs, self._applied)
        self._applied = outputs
        self._outputs.to_bus(outputs, self.signals.values)
        if self.fmu_writes:
            self._writes.values[:] = outputs[self._write_positions]
            self._writes.run()


class ControllerSampling(Manipulator):
    """Samples the controllers due at a communication point, in execution order.

    ``evaluate``: evaluate the FMUs at the point's time and state before sampling when a
    controller reads FMU outputs other than states (strong coupling, where the master holds
    the states); ``always_evaluate``: also when none does (Co-Simulation units under strong
    coupling read the outputs after the samples). ``handover``: the controller before whose
    samples :meth:`steps` pauses (see ``Master.steps``).
    """

    def __init__(
        self,
        controllers: list[Controller],
        signals: SignalTable,
        coupling: ConstraintCoupling | None,
        log: Log,
        evaluate: bool,
        always_evaluate: bool,
    ) -> None:
        self.signals = signals
        if controllers:  # imported here: the controllers load SciPy
            from orchestrator.controllers.batch import batched

            controllers = batched(controllers)
        self.links = [ControllerLink(c, signals) for c in controllers]
        self._units: list[ControllerLink | LawRun] = list(self.links)  # runs made at start
        self._delayed = [link for link in self.links if link.controller.latency]
        self.coupling = coupling
        self._log = log
        self._evaluate, self._always = evaluate, always_evaluate
        self._reading = self._reads_outputs()
        self._accelerations: tuple[str, ...] = ()  # the bodies' der(nu) on the bus
        self._jumps: tuple[str, ...] = ()  # and their nu_jump
        if coupling is not None:
            names = coupling.acceleration_names()
            self._accelerations = tuple(n for n in names if n in signals.index)
            self._bodies = np.array([k for k, n in enumerate(names) if n in signals.index])
            names = coupling.jump_names()
            self._jumps = tuple(n for n in names if n in signals.index)
            self._jumped = np.array([k for k, n in enumerate(names) if n in signals.index])
        self._accelerating = self._reads_accelerations()
        self.handover: Controller | None = None
        self.samples = 0
        self.faults = 0
        self._tick = 1.0  # s

    def _reads_outputs(self) -> bool:
        """Whether the FMUs are evaluated at (time, x) before a sample."""
        return self._evaluate and (self._always or any(link.fmu_reads for link in self.links))

    def _reads_accelerations(self) -> list[ControllerLink]:
        """The links that read some of the bodies' constrained der(nu) from the bus."""
        names = set(self._accelerations)
        return [link for link in self.links if names.intersection(link.controller.inputs)]

    def periods(self) -> list[float]:
        """Sample times and latencies."""
        controllers = [link.controller for link in self.links]
        return [c.sample_time for c in controllers] + [c.latency for c in controllers if c.latency]

    def start(self, clock: Clock) -> None:
        """Ticks between samples."""
        self._clock = clock
        for link in self.links:
            link.period = clock.ticks(link.controller.sample_time)
        self._units = law_runs(self.links)

    def manipulate(self, point: Point, x: np.ndarray) -> np.ndarray:
        """Sample the controllers due at ``point`` (a handover is not paused for)."""
        samples = self.steps(point, x)
        try:
            while True:
                next(samples)
        except StopIteration as end:
            return end.value

    def steps(self, point: Point, x: np.ndarray) -> Generator[Handover, None, np.ndarray]:
        """Joint signals onto the bus, the samples due (before the :attr:`handover`
        controller's step, yield ``(time, its inputs)``), motor commands off the bus."""
        due = any(link.next_sample <= point.index for link in self._accelerating)
        if self._reading or due:
            dx = self.signals.system.derivatives(point.time, x)  # outputs consistent with (t, x)
        signals, coupling = self.signals, self.coupling
        if coupling is not None:  # joint angles and rates in, torques out
            if not coupling.put_joint_signals(x, signals.values, signals.index):
                names, values = coupling.joint_signals(x)
                signals.values[signals.slots(names)] = values
            if due:
                accelerations = coupling.accelerations(x, dx)[self._bodies]
                signals.values[signals.slots(self._accelerations)] = accelerations
            if self._jumps:
                signals.values[signals.slots(self._jumps)] = coupling.velocity_jumps[self._jumped]
        index = point.index
        for unit in self._units:
            if isinstance(unit, ControllerLink):
                if unit.next_sample <= index or (unit.pending and unit.pending[0][0] <= index):
                    yield from self._sample(unit, point, x)
            elif self.handover in unit.controllers:  # paused for: one by one
                unit.hand_back()
                for link in unit.links:
                    yield from self._sample(link, point, x)
                unit.take_over()
            else:
                self._sample_run(unit, point, x)
        if coupling is not None:
            coupling.command_from(signals.values, signals.index)
        return x

    def _sample_run(self, run: LawRun, point: Point, x: np.ndarray) -> None:
        """A run's members by one compiled call, if due."""
        if run.next_sample > point.index:
            return
        for link in run.links:
            link.next_sample += link.period
        self.samples += len(run.links)
        self.log_failures(run.sample(point.time, x, self.signals.values), point.stamp)

    def log_failures(self, failures: list[tuple[Controller, str]], stamp: float) -> None:
        """Count and log the (controller, detail) failures of a run's sample at ``stamp``."""
        for c, detail in failures:
            self.faults += 1
            self._log(stamp, "controller_fault", f"{c.name}: {detail}; previous outputs held")

    def compiled_until(self, index: int) -> tuple[list[LawRun], float] | None:
        """The runs of compiled controllers and the first tick from ``index`` on where
        another unit acts (a controller's sample, a delayed command, a sample that reads the
        bodies' accelerations; inf: none): up to it the runs' samples are the only work
        (``orchestrator.master.ticks``). None when every sample needs Python (FMU outputs
        read, a handover)."""
        if self._reading or self.handover is not None:
            return None
        runs = [unit for unit in self._units if isinstance(unit, LawRun)]
        ticks = [unit.next_sample for unit in self._units if not isinstance(unit, LawRun)]
        ticks += [link.pending[0][0] for link in self._delayed if link.pending]
        ticks += [link.next_sample for link in self._accelerating]
        return runs, min(ticks, default=math.inf)

    def sampled(self, run: LawRun, next_sample: int) -> None:
        """``run`` was sampled by compiled ticks up to ``next_sample`` (the tick of its next
        sample): count its samples, move its links on."""
        period = run.links[0].period
        self.samples += (next_sample - run.next_sample) // period * len(run.links)
        for link in run.links:
            link.next_sample = next_sample

    def _sample(
        self, link: ControllerLink, point: Point, x: np.ndarray
    ) -> Generator[Handover, None, None]:
        index, time = point.index, point.time
        while link.pending and link.pending[0][0] <= index:
            link.apply(link.pending.popleft()[1], ~link.monitors)
        if link.next_sample > index:
            return
        c = link.controller
        link.next_sample += link.period
        self.samples += 1
        try:
            inputs = link.gather(x)
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
            self.faults += 1
            detail = f"{c.name}: {type(exc).__name__}: {exc}; previous outputs held"
            self._log(point.stamp, "controller_fault", detail)
            outputs = link.last_outputs
        link.last_outputs = outputs
        if c.latency > 0:
            link.apply(outputs, link.monitors)
            link.pending.append((index + self._clock.ticks(c.latency), outputs))
        else:
            link.apply(outputs)
        for kind, detail in c.events:
            self.faults += kind == "controller_fault"  # a batch's member
            self._log(point.stamp, kind, detail)
        c.events.clear()

    def next_tick(self, index: int, recording: int) -> int | None:
        """The next sample or delayed command."""
        ticks = [unit.next_sample for unit in self._units]
        ticks += [link.pending[0][0] for link in self._delayed if link.pending]
        return min(ticks, default=None)

    def driven(self) -> list[tuple[FMUInstance, Port]]:
        """The FMU inputs the controllers write."""
        return [(i, p) for link in self.links for i, p, _ in link.fmu_writes]

    def controller_inputs(self) -> set[str]:
        """The FMU inputs the controllers drive (``<instance>.<input>``)."""
        return {f"{i.name}.{name}" for i, port in self.driven() for name in port.names}

    def reconfigure(self, x: np.ndarray) -> None:
        """Let controllers adapt to a new morphology at state ``x`` (e.g. rebuild the thrust
        allocation); inputs a controller stops driving go back to their start values."""
        for run in self._units:
            if isinstance(run, LawRun):
                run.hand_back()
        for k, link in enumerate(self.links):
            before = list(link.controller.outputs)
            if link.controller.reconfigure(x):
                new = ControllerLink(link.controller, self.signals)
                new.next_sample, new.period = link.next_sample, link.period
                self.links[k] = new
                self._delayed = [link for link in self.links if link.controller.latency]
                self._reading = self._reads_outputs()
                self._accelerating = self._reads_accelerations()
                self._release([n for n in before if n not in link.controller.outputs])
        self._units = law_runs(self.links)

    def _release(self, names: list[str]) -> None:
        fmu_names = [n for n in names if n not in self.signals.index]
        system = self.signals.system
        for instance, port, _ in system.port(fmu_names, "controllers") if fmu_names else []:
            port.values[:] = [instance.fmu.variables[n].start or 0.0 for n in port.names]
            instance.write(port)
