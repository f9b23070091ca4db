"""Parameter values of a scenario's components as a run used them, for the figures and the
replay drawn after it: the scenario's setting, else the FMU's start value."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from fmpy import read_model_description

from orchestrator.errors import ScenarioError
from orchestrator.fmi.folder import missing_fmu
from orchestrator.scenario.model import Component, Scenario


class ComponentParameters:
    """Parameter values of the components of ``scenario`` (read from the file ``source``),
    their FMUs in ``fmu_dir``: scenario setting, else FMU start value."""

    def __init__(self, scenario: Scenario, source: Path, fmu_dir: Path) -> None:
        self._source = Path(source)
        self._scenario = scenario
        self._fmu_dir = Path(fmu_dir)
        self._starts: dict[Path, dict[str, float]] = {}

    def _fmu_path(self, name: str, component: Component) -> Path:
        if component.fmu.endswith(".fmu"):
            path = (self._source.parent / component.fmu).resolve()
        else:
            path = self._fmu_dir / f"{component.fmu}.fmu"
            if not path.is_file():
                reason = missing_fmu(self._fmu_dir, component.fmu)
                raise ScenarioError(f"{self._source}: components.{name}.fmu: {reason}")
        if not path.is_file():
            raise ScenarioError(f"{self._source}: components.{name}.fmu: FMU not found: {path}")
        return path

    def _start_values(self, path: Path) -> dict[str, float]:
        if path not in self._starts:
            md = read_model_description(str(path), validate=False)
            self._starts[path] = {
                v.name: float(v.start)
                for v in md.modelVariables
                if v.start is not None and v.type in ("Real", "Float64")
            }
        return self._starts[path]

    def get(self, component: str, variable: str) -> float | None:
        """Value of ``variable`` of ``component``, or None where the FMU has no such variable."""
        spec = self._scenario.components[component]
        if variable in spec.parameters:
            return spec.parameters[variable]
        return self._start_values(self._fmu_path(component, spec)).get(variable)

    def rows(self, component: str, variable: str) -> np.ndarray:
        """Rows of the matrix parameter ``variable[k, 1..3]`` (k = 1, 2, ...), shape (n, 3)."""
        rows = []
        while (first := self.get(component, f"{variable}[{len(rows) + 1},1]")) is not None:
            k = len(rows) + 1
            rest = [self.get(component, f"{variable}[{k},{i}]") for i in (2, 3)]
            rows.append([first, *rest])
        return np.array(rows, dtype=float).reshape(-1, 3)
