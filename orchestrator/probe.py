"""Reading FMU variables by name while a run goes, for callbacks at communication points."""

from __future__ import annotations

from orchestrator.fmu import FMUInstance, Port
from orchestrator.system import System


class Probe:
    """Values of scalar FMU variables ``<instance>.<variable>`` at the current communication
    point, in the units their models declare: ``probe["rov.p[3]"]`` (m, NED depth).

    Valid inside a callback: the instances then hold the state and inputs of that time.
    Reading ports are made once per name and reused.
    """

    def __init__(self, system: System) -> None:
        self._system = system
        self._ports: dict[str, tuple[FMUInstance, Port]] = {}

    def __getitem__(self, name: str) -> float:
        if name not in self._ports:
            [(instance, port, _)] = self._system.port([name], "callback")
            self._ports[name] = (instance, port)
        instance, port = self._ports[name]
        return float(instance.read(port)[0])
