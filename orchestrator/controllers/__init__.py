"""Controllers run by the master at their sample times, built from a scenario's entries."""

from __future__ import annotations

import numpy as np

from orchestrator.controllers.allocation import ThrustAllocation, ThrusterModel
from orchestrator.controllers.autopilot import DepthHeadingSpeedAutopilot
from orchestrator.controllers.base import Controller
from orchestrator.errors import ScenarioError
from orchestrator.scenario import AllocationConfig, AutopilotConfig
from orchestrator.system import System

__all__ = ["Controller", "make_controllers", "thruster_model"]


def thruster_model(system: System, instance: str) -> ThrusterModel:
    """The allocation's view of a mounted thruster, read from its initialized FMU instance."""
    fmu_instance = system.instances[instance]
    names = [f"position[{i}]" for i in (1, 2, 3)] + [f"direction[{i}]" for i in (1, 2, 3)]
    data = ["spin", "data.torque_arm", "data.K_L", "data.K_Q", "data.dead_zone"]
    data += ["data.pwm_neutral", "data.pwm_min", "data.pwm_max"]
    values = fmu_instance.get_values(names + data)
    spin, arm, k_l, k_q, dead, neutral, low, high = values[6:]
    direction = values[3:6]
    return ThrusterModel(
        instance=instance,
        position=values[:3],
        direction=direction / np.linalg.norm(direction),
        spin=spin,
        torque_arm=arm,
        K_L=k_l,
        K_Q=k_q,
        dead_zone=dead,
        pwm_neutral=neutral,
        pwm_min=low,
        pwm_max=high,
    )


def make_controllers(system: System) -> list[Controller]:
    """Controllers of the system's scenario, in file order (which is their execution order)."""
    controllers: list[Controller] = []
    names = set(system.scenario.controllers)
    for name, config in system.scenario.controllers.items():
        key = f"controllers.{name}"
        if name in system.instances:
            raise ScenarioError(f"{system.source}: {key}: name already used by a component")
        system.instance(config.vehicle, key + ".vehicle")
        if isinstance(config, AutopilotConfig):
            controllers.append(DepthHeadingSpeedAutopilot(name, config))
        elif isinstance(config, AllocationConfig):
            source = config.command.partition(".")[0]
            if source not in names and source not in system.instances:
                raise ScenarioError(
                    f"{system.source}: {key}.command: '{config.command}' names neither a "
                    "controller nor a component"
                )
            mounted = sorted(system.mounts.get(config.vehicle, []))
            if not mounted:
                raise ScenarioError(
                    f"{system.source}: {key}.vehicle: "
                    f"no thrusters are mounted on '{config.vehicle}'"
                )
            thrusters = [thruster_model(system, instance) for _, instance in mounted]
            controllers.append(
                ThrustAllocation(name, config.sample_time, config.command, thrusters)
            )
    return controllers
