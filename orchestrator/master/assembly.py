"""The parts of a run around its system: initial state, constraint coupling, controllers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from orchestrator.errors import ScenarioError
from orchestrator.system.system import System

if TYPE_CHECKING:  # imported for annotations only: controllers and coupling load SciPy
    from orchestrator.controllers.base import Controller
    from orchestrator.coupling.runtime import ConstraintCoupling


@dataclass
class Assembly:
    """What a master runs besides the system: the initial state ``x0`` (projected onto the
    joints' constraints), the constraint coupling (None without joints, docking and
    events) and the controllers in execution order."""

    x0: np.ndarray
    coupling: ConstraintCoupling | None
    controllers: list[Controller]


def assemble(system: System, given: Sequence[Controller] = ()) -> Assembly:
    """Initialize ``system`` at its scenario's start time and build the coupling and the
    controllers: the scenario's, then the objects ``given`` (each reset first). Joints the
    bodies cannot be placed on at the start are a ScenarioError naming the scenario's file."""
    scenario = system.scenario
    x0 = system.initialize(scenario.simulation.start_time, scenario.environment.current)
    coupling = None
    if scenario.joints or scenario.docking or scenario.events:
        from orchestrator.coupling.runtime import ConstraintCoupling

        try:
            coupling = ConstraintCoupling(
                system, scenario.joints, scenario.docking, scenario.coupling, x0
            )
            x0 = coupling.project(x0)
        except np.linalg.LinAlgError as exc:  # the initial projection onto the joints failed
            raise ScenarioError(
                f"{system.source}: joints: the bodies cannot be placed on their joints at the "
                f"start: {exc}"
            ) from None
    controllers = []
    if scenario.controllers or given:
        from orchestrator.controllers import make_controllers

        controllers = make_controllers(system, coupling, x0, given)
    return Assembly(x0, coupling, controllers)
