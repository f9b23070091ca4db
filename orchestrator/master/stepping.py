"""A run advanced from outside, one sample of an external command at a time.

An :class:`ExternalCommand` is a controller whose outputs are set from Python between its
samples (an agent's action: FMU inputs such as thruster ``pwm``, or signals of its own such
as ``<name>.tau[1..6]`` that a thrust allocation reads). :class:`SteppedRun` builds the
scenario's system, coupling and controllers as a run does, with the command as the last
controller and the master's handover (:meth:`orchestrator.master.master.Master.steps`): each
:meth:`SteppedRun.advance` runs to the command's next sample and returns the time and the
command's inputs read there (the signals it declares: FMU variables, sensor and controller
outputs, joint signals), after every other controller due at that sample has run. The
master's arithmetic is that of a plain run; nothing is recorded, events are kept in memory.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from orchestrator.controllers.base import Controller
from orchestrator.errors import FMUError, SimulationError
from orchestrator.fmi.fmu import FMU
from orchestrator.master.assembly import assemble
from orchestrator.master.master import Master
from orchestrator.recording.tables import EventTable
from orchestrator.scenario.model import Scenario
from orchestrator.system.system import System


class ExternalCommand(Controller):
    """Outputs held at :attr:`command`, set from outside before each sample (zero at the
    start of a run); ``inputs`` are the signals read for whoever sets it."""

    def __init__(self, name: str, sample_time: float, inputs: list[str], outputs: list[str]):
        super().__init__(name, sample_time, inputs, outputs)
        self.command = np.zeros(len(outputs))

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        """The command set last (a copy: the master keeps what it applied)."""
        return self.command.copy()

    def reset(self) -> None:
        """Back to a zero command."""
        self.command[:] = 0.0


class _NoRows:
    """A time-series writer that keeps nothing (a stepped run records no rows)."""

    def write(self, time: float, values: np.ndarray) -> None:
        """Drop the row."""

    def close(self) -> None:
        """Nothing to release."""


class SteppedRun:
    """One run of ``scenario`` handing over at every sample of ``command``.

    ``source`` names the scenario in errors (its folder is where relative paths start);
    ``loaded``: FMUs shared between runs (see :class:`~orchestrator.system.system.System`);
    ``system``: one set up already for ``scenario`` (see :meth:`restart`). The run
    ends at the scenario's stop time or where an FMU asks to terminate (a ``terminated``
    event). Close it (:meth:`close`) to free its FMU instances.
    """

    def __init__(
        self,
        scenario: Scenario,
        source: str,
        fmu_dir: Path,
        command: ExternalCommand,
        loaded: dict[tuple[Path, str], FMU] | None = None,
        system: System | None = None,
    ) -> None:
        self.source, self._fmu_dir, self._command = source, fmu_dir, command
        self.system = System(scenario, source, fmu_dir, loaded) if system is None else system
        try:
            parts = assemble(self.system, [command])
            self.events = EventTable()
            sim = scenario.simulation
            self.master = Master(
                self.system,
                parts.controllers,
                sim,
                _NoRows(),
                self.events,
                [],
                coupling=parts.coupling,
                scheduled=scenario.events,
                weak=scenario.cosimulation,
            )
        except BaseException:
            self.system.close()
            raise
        self.master.handover = command
        self._steps = self.master.steps(parts.x0)
        self.final_state: np.ndarray | None = None  # set when the run has ended

    def advance(self) -> tuple[float, np.ndarray] | None:
        """Run to the command's next sample: its time (s) and the command's inputs there (a
        buffer reused by the next call); None when the run ended before one (its stop time,
        or an FMU's termination). A failing run raises SimulationError naming the time."""
        try:
            return next(self._steps)
        except StopIteration as end:
            self.final_state = end.value
            return None
        except (SimulationError, FMUError) as exc:
            raise SimulationError(
                f"{self.source}: run stopped at t = {self.master.time:.6g} s: {exc}"
            ) from None

    def restart(self, scenario: Scenario) -> SteppedRun | None:
        """End this run and start one of ``scenario`` (this run's with other start values
        and parameters, see :meth:`~orchestrator.system.system.System.restart`) on the same
        FMU instances, reset in place; None when they cannot be (this run is closed then)."""
        self._steps.close()
        try:
            restarted = self.system.restart(scenario)
        except BaseException:
            self.system.close()
            raise
        if not restarted:
            self.system.close()
            return None
        return SteppedRun(scenario, self.source, self._fmu_dir, self._command, system=self.system)

    def close(self) -> None:
        """End the run where it is and free its FMU instances."""
        try:
            self._steps.close()
        finally:
            self.system.close()
