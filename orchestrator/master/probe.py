"""Reading and setting signals by name while a run goes, for callbacks at communication points."""

from __future__ import annotations

from typing import TYPE_CHECKING

from orchestrator.errors import ScenarioError
from orchestrator.master.signals import Selection, SignalTable
from orchestrator.system.system import System

if TYPE_CHECKING:
    from orchestrator.master.master import Master


class Probe:
    """Signals at the current communication point, in the units their models declare.

    ``probe["rov.p[3]"]`` reads an FMU variable (m, NED depth), ``probe["autopilot.tau[3]"]`` a
    controller's output and ``probe["hinge.angle"]`` a joint signal, as recorded.
    ``probe["rov.tau_ext[1]"] = 10.0`` sets an FMU input from then on (N), checked as a
    scenario's start value is: the variable must be an input that no connection and no
    controller drives (they would overwrite it), and the value must suit its type. The
    integration restarts at that point, so the new input acts from it on, as a controller's
    output does. Valid inside a callback: the instances then hold the state and inputs of that
    time. Names are looked up once in the run's signal table and reused.
    """

    def __init__(self, system: System) -> None:
        self._system = system
        self._master: Master | None = None
        self._signals = SignalTable(system, (), {}, ())  # FMU variables only, until bound
        self._where: dict[tuple[str, bool], Selection] = {}

    def bind(self, master: Master) -> None:
        """Read controller outputs and joint signals from ``master``; tell it of inputs set."""
        self._master = master
        self._signals = master.signals
        self._where.clear()

    def __getitem__(self, name: str) -> float:
        where = self._select(name, setting=False)
        positions, slots = where.bus
        if positions.size:
            return float(self._signals.values[slots[0]])
        instance, port, _ = where.fmu[0]
        return float(instance.read(port)[0])

    def __setitem__(self, name: str, value: float) -> None:
        [(instance, port, _)] = self._select(name, setting=True).fmu
        variable = instance.fmu.variable(port.names[0])
        if variable.causality != "input":
            raise ScenarioError(f"callback: {name} is a(n) {variable.causality}, not an input")
        if name in self._system.connected_inputs:
            raise ScenarioError(f"callback: {name} is driven by a connection")
        if self._master is not None and name in self._master.controller_inputs():
            raise ScenarioError(f"callback: {name} is driven by a controller")
        port.values[0] = instance.fmu.checked_value(port.names[0], value)
        instance.write(port)
        if self._master is not None:
            self._master.inputs_set()

    def _select(self, name: str, setting: bool) -> Selection:
        """Where ``name`` lives (an FMU variable when ``setting``), found once."""
        if (name, setting) not in self._where:
            kinds = ("fmu",) if setting else ("bus", "fmu")
            self._where[name, setting] = self._signals.select([name], "callback", kinds)
        return self._where[name, setting]
