"""Controllers run by the master at their sample times, built from a scenario's entries."""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from orchestrator.controllers.allocation import ThrustAllocation, ThrusterModel
from orchestrator.controllers.autopilot import DepthHeadingSpeedAutopilot
from orchestrator.controllers.base import Controller
from orchestrator.controllers.joint_control import JointPID, check
from orchestrator.controllers.pointing import BuoyPointing
from orchestrator.controllers.schedule import Schedule
from orchestrator.controllers.user import checked, user_controller
from orchestrator.controllers.vehicle_pd import VehiclePD
from orchestrator.errors import ScenarioError
from orchestrator.scenario.model import (
    AllocationConfig,
    AutopilotConfig,
    JointPIDConfig,
    PointingConfig,
    RendezvousConfig,
    ScheduleConfig,
    UserControllerConfig,
    VehiclePDConfig,
)
from orchestrator.scenario.navigation import NavigationFilterConfig
from orchestrator.scenario.sensors import (
    SENSOR_CONFIGS,
    DvlConfig,
    FiducialCameraConfig,
    PressureDepthConfig,
)
from orchestrator.system.system import System

if TYPE_CHECKING:  # imported for annotations only: the coupling and the sensors load SciPy
    from orchestrator.controllers.sensing import SensorConfig
    from orchestrator.coupling.runtime import ConstraintCoupling

__all__ = ["Controller", "make_controllers", "morphology_thrusters", "thruster_model"]


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


def _start_values(system: System, config: ScheduleConfig, key: str) -> dict[str, float]:
    """Present values of the inputs a schedule drives (their start values before the run)."""
    names = sorted({n for step in config.steps for n in step.values})
    values: dict[str, float] = {}
    for instance, port, _ in system.port(names, key + ".steps"):
        read = instance.read(port)
        values.update(
            {f"{instance.name}.{n}": float(v) for n, v in zip(port.names, read, strict=True)}
        )
    return values


def morphology_thrusters(
    system: System,
    coupling: ConstraintCoupling | None,
    vehicle: str,
    x: np.ndarray,
    slots: list[int] | None = None,
) -> list[ThrusterModel]:
    """Thrusters of every body welded to ``vehicle``, expressed in ``vehicle``'s frame.

    With ``slots``, only those mounts of ``vehicle`` itself.
    """
    if slots is not None:
        mounted = dict(system.mounts.get(vehicle, []))
        return [thruster_model(system, mounted[s]) for s in slots]
    bodies = coupling.rigid_group(vehicle) if coupling else [vehicle]
    poses = dict(zip(coupling.bodies, coupling.poses(x), strict=True)) if coupling else {}
    found = []
    for body in bodies:
        for _, instance in sorted(system.mounts.get(body, [])):
            model = thruster_model(system, instance)
            if body != vehicle:
                own, other = poses[vehicle], poses[body]
                relative = own.R.T @ other.R
                position = own.R.T @ (other.p + other.R @ model.position - own.p)
                model = replace(model, position=position, direction=relative @ model.direction)
            found.append(model)
    return found


def _sensor(system: System, name: str, config: SensorConfig, key: str, coupled: bool) -> Controller:
    """A sensor of the scenario, its wave and target checked against the components;
    ``coupled``: its body is in the constraint coupling."""
    # imported here, as the MPC is: the sensor models are a noticeable part of a run's start-up
    from orchestrator.controllers.sensing import WAVE_PARAMETERS, make_sensor

    wave_values = None
    if isinstance(config, PressureDepthConfig) and config.wave is not None:
        wave = system.instance(config.wave, key + ".wave")
        missing = [v for v in WAVE_PARAMETERS if v not in wave.fmu.variables]
        if missing:
            raise ScenarioError(
                f"{system.source}: {key}.wave: '{config.wave}' is not a regular wave "
                f"(expected a RegularWave component; it has no {', '.join(missing)})"
            )
        wave_values = wave.get_values(WAVE_PARAMETERS)
    if isinstance(config, FiducialCameraConfig) and config.target is not None:
        system.instance(config.target, key + ".target")
    if isinstance(config, DvlConfig):
        config = _dvl_seabed(system, config, key)
    return make_sensor(name, config, wave_values, coupled)


def _dvl_seabed(system: System, config: DvlConfig, key: str) -> DvlConfig:
    """The DVL's seabed: its own, else the environment's (the seabed the bodies touch)."""
    depth = system.scenario.environment.seabed_depth
    if math.isinf(depth) or config.seabed_depth == depth:
        return config
    if math.isinf(config.seabed_depth):
        return config.model_copy(update={"seabed_depth": depth})
    raise ScenarioError(
        f"{system.source}: {key}.seabed_depth: {config.seabed_depth} m, but "
        f"environment.seabed_depth is {depth} m (leave it out: the DVL reads the environment's)"
    )


def _flown_state(system: System, name: str, vehicle: str, state: str | None, key: str) -> None:
    """Check the ``state`` of controller ``name`` flying ``vehicle`` (scenario key ``key``):
    a navigation filter of that vehicle before the controller."""
    if state is None:
        return
    key = f"{system.source}: {key}"
    order = list(system.scenario.controllers)
    source = system.scenario.controllers.get(state)
    if not isinstance(source, NavigationFilterConfig):
        raise ScenarioError(f"{key}: '{state}' is not a navigation_filter controller")
    if source.vehicle != vehicle:
        raise ScenarioError(f"{key}: '{state}' estimates '{source.vehicle}', not '{vehicle}'")
    if order.index(state) > order.index(name):
        raise ScenarioError(f"{key}: '{state}' must come before '{name}' (file order)")


def _docking_sensing(
    system: System, name: str, config: RendezvousConfig
) -> dict[str, FiducialCameraConfig]:
    """Check the rendezvous vehicles' ``state`` and ``fiducial``; their cameras by vehicle."""
    order = list(system.scenario.controllers)
    partners = [v.name for v in config.vehicles]
    cameras = {}
    for k, vehicle in enumerate(config.vehicles):
        key = f"controllers.{name}.vehicles[{k}]"
        _flown_state(system, name, vehicle.name, vehicle.state, key + ".state")
        if vehicle.fiducial is None:
            continue
        camera = system.scenario.controllers.get(vehicle.fiducial)
        where = f"{system.source}: {key}.fiducial: '{vehicle.fiducial}'"
        if not isinstance(camera, FiducialCameraConfig):
            raise ScenarioError(f"{where} is not a fiducial_camera controller")
        if camera.vehicle != vehicle.name:
            raise ScenarioError(f"{where} is on '{camera.vehicle}', not '{vehicle.name}'")
        if camera.target not in set(partners) - {vehicle.name}:
            raise ScenarioError(
                f"{where} sees '{camera.target}', expected another vehicle of the rendezvous "
                f"({', '.join(p for p in partners if p != vehicle.name)})"
            )
        if order.index(vehicle.fiducial) > order.index(name):
            raise ScenarioError(f"{where} must come before '{name}' (file order)")
        cameras[vehicle.name] = camera
    return cameras


def make_controllers(
    system: System,
    coupling: ConstraintCoupling | None,
    x: np.ndarray,
    given: Sequence[Controller] = (),
) -> list[Controller]:
    """Controllers of the system's scenario, in file order (which is their execution order),
    then the controller objects ``given`` in Python, in their order (each reset first)."""
    controllers: list[Controller] = []
    names = set(system.scenario.controllers)
    for k, controller in enumerate(given):
        key = f"{system.source}: controllers given to the run [{k}]"
        name = checked(controller, key).name
        if name in names or name in system.instances:
            raise ScenarioError(f"{key}: the name '{name}' is already used")
        names.add(name)
        controller.reset()  # the same object may have run before
    for name, config in system.scenario.controllers.items():
        key = f"controllers.{name}"
        if name in system.instances:
            raise ScenarioError(f"{system.source}: {key}: name already used by a component")
        if isinstance(config, UserControllerConfig):
            base = Path(system.source).parent if system.source != "<scenario>" else Path()
            folder = base / config.module_folder if config.module_folder else base
            controllers.append(user_controller(name, config, system.source, folder))
            continue
        if isinstance(config, RendezvousConfig):
            # imported here: the MPC loads CasADi, a noticeable part of a short run's start-up
            from orchestrator.controllers.rendezvous import RendezvousController

            for k, vehicle in enumerate(config.vehicles):
                system.instance(vehicle.name, f"{key}.vehicles[{k}].name")
            cameras = _docking_sensing(system, name, config)
            try:
                controllers.append(RendezvousController(name, config, cameras))
            except ValueError as exc:
                raise ScenarioError(f"{system.source}: {key}: {exc}") from None
            continue
        if isinstance(config, JointPIDConfig):
            motors = [n.rpartition(".")[0] for n in coupling.command_names()] if coupling else []
            try:
                check(config, motors)
            except ValueError as exc:
                raise ScenarioError(f"{system.source}: {key}.{exc}") from None
            controllers.append(JointPID(name, config))
            continue
        if isinstance(config, ScheduleConfig):
            controllers.append(Schedule(name, config, _start_values(system, config, key)))
            continue
        if isinstance(config, PointingConfig):
            system.instance(config.payload, key + ".payload")
            system.instance(config.actuator, key + ".actuator")
            controllers.append(BuoyPointing(name, config))
            continue
        system.instance(config.vehicle, key + ".vehicle")
        if isinstance(config, SENSOR_CONFIGS):
            coupled = coupling is not None and config.vehicle in coupling.bodies
            controllers.append(_sensor(system, name, config, key, coupled))
        elif isinstance(config, NavigationFilterConfig):
            from orchestrator.controllers.navigation import NavigationFilter, fused_sensors

            try:
                sensors = fused_sensors(name, config, system.scenario.controllers)
            except ValueError as exc:
                raise ScenarioError(f"{system.source}: {key}.{exc}") from None
            controllers.append(NavigationFilter(name, config, sensors))
        elif isinstance(config, AutopilotConfig):
            _flown_state(system, name, config.vehicle, config.state, key + ".state")
            controllers.append(DepthHeadingSpeedAutopilot(name, config))
        elif isinstance(config, VehiclePDConfig):
            _flown_state(system, name, config.vehicle, config.state, key + ".state")
            controllers.append(VehiclePD(name, config))
        elif isinstance(config, AllocationConfig):
            commands = [config.command] if isinstance(config.command, str) else config.command
            for command in commands:
                source = command.partition(".")[0]
                if source not in names and source not in system.instances:
                    raise ScenarioError(
                        f"{system.source}: {key}.command: '{command}' names neither a "
                        "controller nor a component"
                    )
            if not system.mounts.get(config.vehicle):
                raise ScenarioError(
                    f"{system.source}: {key}.vehicle: "
                    f"no thrusters are mounted on '{config.vehicle}'"
                )
            missing = set(config.slots or []) - {s for s, _ in system.mounts[config.vehicle]}
            if missing:
                raise ScenarioError(
                    f"{system.source}: {key}.slots: no thruster mounted in slot(s) "
                    f"{sorted(missing)} of '{config.vehicle}'"
                )

            mounted = {instance for _, instance in system.mounts[config.vehicle]}
            unknown = sorted(set(config.failed) - mounted)
            if unknown:
                raise ScenarioError(
                    f"{system.source}: {key}.failed: {unknown} not thruster(s) mounted on "
                    f"'{config.vehicle}'"
                )

            def thrusters(x: np.ndarray, c: AllocationConfig = config) -> list[ThrusterModel]:
                return morphology_thrusters(system, coupling, c.vehicle, x, c.slots)

            allocation = ThrustAllocation(
                name,
                config.sample_time,
                commands,
                thrusters,
                x,
                config.method,
                config.bias,
                config.priorities,
                config.max_thrust_rate,
                config.failed,
            )
            controllers.append(allocation)
    controllers += given
    _read_outputs_exist(system.source, controllers)
    return controllers


def _read_outputs_exist(source: str, controllers: list[Controller]) -> None:
    """Every input a controller reads from another controller (``<controller>.<signal>``) is
    one of that controller's outputs; one line naming the reader otherwise (checked before
    the master batches controllers under names of its own)."""
    outputs = {c.name: c.outputs for c in controllers}
    for controller in controllers:
        for name in controller.inputs:
            owner = name.partition(".")[0]
            if owner in outputs and name not in outputs[owner]:
                closest = difflib.get_close_matches(name, outputs[owner], n=3, cutoff=0.0)
                raise ScenarioError(
                    f"{source}: controllers.{controller.name}: '{name}' is not an output of "
                    f"controller '{owner}' (closest: {', '.join(closest)})"
                )
