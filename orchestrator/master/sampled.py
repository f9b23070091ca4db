"""Co-Simulation FMUs under strong coupling: units the master samples like controllers.

Under strong coupling one integrator advances the states of every Model Exchange instance. A
Co-Simulation instance in the same system steps itself (``doStep``) from one communication
point to the next. Its communication points are the master's points where an input may jump
(controller samples, delayed commands, scheduled events; with joints or the fixed-step RK4
every recording point), and at least one every ``simulation.step``. At a communication point
t_k:

1. every Co-Simulation unit completes its step from t_k-1 to t_k, with the inputs it was given
   at t_k-1, and its outputs y(t_k) are written to the Model Exchange inputs they drive;
2. the master evaluates the Model Exchange group at (t_k, x(t_k)) and samples its controllers,
   which read y(t_k) and may write Co-Simulation inputs;
3. the Co-Simulation inputs are set from the Model Exchange outputs at (t_k, x(t_k)) (with the
   controllers' new commands applied) and from the other units' y(t_k).

Between t_k and t_k+1 the Model Exchange group sees y(t_k) (zero-order hold, an input jump at
t_k where the integrator is re-initialised) and each Co-Simulation unit its inputs at t_k: the
Jacobi scheme with held inputs of weak coupling, with the Model Exchange group integrated as a
whole. Recorded values of a unit between its points are those it holds: outputs y(t_k), inputs
u(t_k). Connections between Model Exchange instances stay in the compiled right-hand side; the
others (Model Exchange to Co-Simulation and back, Co-Simulation to Co-Simulation) are the
weak-coupling units' terms (``orchestrator.master.weak.Unit``), exchanged here.

A unit that asks to terminate the run in its step to t_k ends the run at t_k, once every unit
has finished that step and the outputs are held.

In the master these are two manipulators around the others at a communication point:
:class:`UnitSteps` (1.) first and :class:`HeldInputs` (3.) last.
"""

from __future__ import annotations

import numpy as np

from orchestrator.fmi.fmu import CO_SIMULATION, TerminationRequest
from orchestrator.master.protocols import Clock, Manipulator, Point
from orchestrator.master.weak import connected_units
from orchestrator.system.system import System


class SampledUnits:
    """The Co-Simulation units of a strongly coupled system and their connections."""

    def __init__(self, system: System) -> None:
        self.system = system
        links = [
            c
            for c in system.connections
            if c.source in system.sampled or c.target in system.sampled
        ]
        involved = {c.source.name for c in links} | {c.target.name for c in links}
        units = connected_units(
            {n: i for n, i in system.instances.items() if n in involved or i in system.sampled},
            links,
        )
        self._stepping = [units[i.name] for i in system.sampled]
        self._integrated_targets = [
            u for u in units.values() if u.instance.kind != CO_SIMULATION and len(u.inputs)
        ]
        self._integrated_sources = [
            u for u in units.values() if u.instance.kind != CO_SIMULATION and len(u.outputs)
        ]
        self._time: float | None = None  # the last communication point (s)

    def communicate(self, time: float) -> None:
        """Step every unit to ``time`` (s) from the last communication point and hold its
        outputs as inputs of the Model Exchange instances they drive. A unit's request to
        terminate is raised after that, at ``time``."""
        termination = None
        for unit in self._stepping:
            if self._time is not None and time > self._time:
                try:
                    unit.instance.do_step(self._time, time - self._time)
                except TerminationRequest as request:
                    termination = termination or request
            unit.instance.read(unit.outputs)
        self._time = time
        for unit in self._integrated_targets:
            unit.inputs.values[:] = unit.connected()
            unit.instance.write(unit.inputs)
        if termination is not None:
            termination.time = time
            raise termination

    def hold_inputs(self, time: float, x: np.ndarray) -> None:
        """Set every unit's inputs for its next step from the Model Exchange outputs at
        (``time`` (s), ``x``) and the units' outputs at ``time``."""
        if self._integrated_sources:
            self.system.derivatives(time, x)  # outputs with the controllers' commands applied
            for unit in self._integrated_sources:
                unit.instance.read(unit.outputs)
        for unit in self._stepping:
            if len(unit.inputs):
                unit.inputs.values[:] = unit.connected()
                unit.instance.write(unit.inputs)


class UnitSteps(Manipulator):
    """Step 1 at a communication point: the units step to it, their outputs are held."""

    def __init__(self, units: SampledUnits) -> None:
        self.units = units

    def manipulate(self, point: Point, x: np.ndarray) -> np.ndarray:
        self.units.communicate(point.time)
        return x


class HeldInputs(Manipulator):
    """Step 3 at a communication point: the units' inputs for their next step; the next
    communication point comes at most ``step`` (s) later."""

    def __init__(self, units: SampledUnits, step: float) -> None:
        self.units, self.step = units, step
        self._next = 0  # tick of the next communication point at the latest
        self._every = 1  # ticks

    def periods(self) -> list[float]:
        return [self.step]

    def start(self, clock: Clock) -> None:
        self._every = clock.ticks(self.step)

    def manipulate(self, point: Point, x: np.ndarray) -> np.ndarray:
        self.units.hold_inputs(point.time, x)
        self._next = point.index + self._every
        return x

    def next_tick(self, index: int, recording: int) -> int:
        return self._next
