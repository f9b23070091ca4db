"""The rendezvous MPC as a sampled controller in the co-simulation.

Measurements come from the 6-DOF vehicle FMUs: position (north, east), heading from the
quaternion and the body velocities u, v, r; for a vehicle with ``state``, from that navigation
filter's estimate of them instead, and for one with ``fiducial``, its pose relative to the
partner the camera sees from the camera's detections
(:mod:`orchestrator.controllers.fiducial_fix`). The planar command [X, Y, N] goes out as a
6-vector ``<controller>.<vehicle>_tau`` (zeros for Z, K, M, which a low-level controller holds)
for the thrust allocation. Diagnostics are outputs too, so they are recorded: solver time per
vehicle (all dual iterations of the sample), the agreed rendezvous pose, camera bearings,
line-of-sight violations (deg) and, per vehicle with a camera, ``<vehicle>_fix_age``, the
time (s) since the frame of the detection in use (-1 before the first).
"""

from __future__ import annotations

import numpy as np

from orchestrator.controllers.base import Controller
from orchestrator.controllers.fiducial_fix import FiducialFix
from orchestrator.controllers.mpc.camera import Camera
from orchestrator.controllers.mpc.compiled import cache_folder
from orchestrator.controllers.mpc.distributed import CentralizedMPC, DistributedMPC
from orchestrator.controllers.mpc.model import PlanarModel
from orchestrator.controllers.mpc.problem import ObservedObject, VehicleSpec
from orchestrator.controllers.mpc.supervisor import DockingSupervisor
from orchestrator.kinematics import euler_angles
from orchestrator.scenario.model import RendezvousConfig
from orchestrator.scenario.sensors import FiducialCameraConfig

MEASURED = ["p[1]", "p[2]", "q[1]", "q[2]", "q[3]", "q[4]", "nu[1]", "nu[2]", "nu[6]"]
DETECTION = ["detected", "position[1]", "position[2]", "position[3]", "relative_yaw"]
DETECTION += ["time_of_validity"]


def vehicle_specs(config: RendezvousConfig) -> list[VehicleSpec]:
    """The MPC's view of the vehicles, from the scenario entry (angles converted to rad)."""
    model = PlanarModel(
        config.model.mass, config.model.damping, config.model.max_input, config.sample_time
    )
    specs = []
    for v in config.vehicles:
        cameras = [Camera(np.radians(c.mount), np.radians(c.half_angle)) for c in v.cameras]
        observe = None
        if v.observe is not None:
            observe = ObservedObject(
                np.array(v.observe.position), v.observe.max_distance, v.observe.camera - 1
            )
        specs.append(
            VehicleSpec(
                v.name,
                model,
                cameras,
                {other: number - 1 for other, number in v.sees.items()},
                np.array(v.port),
                np.radians(v.port_heading),
                np.diag(v.P),
                np.diag(v.W),
                np.diag(v.R),
                observe,
            )
        )
    return specs


def rendezvous_mpc(
    config: RendezvousConfig, specs: list[VehicleSpec]
) -> DistributedMPC | CentralizedMPC | DockingSupervisor:
    """The controller of a scenario entry: centralized, distributed, or distributed within
    the docking supervisor."""
    if config.method == "centralized":
        return CentralizedMPC(specs, config.horizon, config.solver)
    mpc = DistributedMPC(
        specs,
        config.horizon,
        config.iterations,
        config.kappa,
        config.gamma,
        config.solver,
        budget=config.budget,
        compiled=cache_folder() if config.compile_nlp else None,
    )
    return DockingSupervisor(mpc, config.supervisor) if config.supervisor else mpc


class RendezvousController(Controller):
    """Distributed or centralized rendezvous MPC for all vehicles of the scenario entry;
    ``cameras``: the fiducial cameras of the vehicles that have one, by vehicle."""

    event_kinds = ("mpc_fallback",)  # and its docking supervisor's, when it has one

    def __init__(
        self,
        name: str,
        config: RendezvousConfig,
        cameras: dict[str, FiducialCameraConfig] | None = None,
    ) -> None:
        self.specs = vehicle_specs(config)
        names = [s.name for s in self.specs]
        inputs = [f"{v.state or v.name}.{m}" for v in config.vehicles for m in MEASURED]
        cameras = cameras or {}
        self.fixes = {
            v.name: (FiducialFix(cameras[v.name], config.sample_time), cameras[v.name].target)
            for v in config.vehicles
            if v.name in cameras
        }
        inputs += [
            f"{v.fiducial}.{m}" for v in config.vehicles if v.name in cameras for m in DETECTION
        ]
        outputs = [f"{name}.{v}_tau[{i}]" for v in names for i in range(1, 7)]
        outputs += [f"{name}.{v}_solve_time" for v in names]
        outputs += [f"{name}.consensus[{i}]" for i in (1, 2, 3)]
        self._views = [(s, target, c) for s in self.specs for target, c in self._targets(s)]
        outputs += [f"{name}.{s.name}_sees_{target}_bearing" for s, target, _ in self._views]
        outputs += [f"{name}.{s.name}_sees_{target}_violation" for s, target, _ in self._views]
        outputs += [f"{name}.{v}_fix_age" for v in self.fixes]
        super().__init__(name, config.sample_time, inputs, outputs)
        self.mpc = rendezvous_mpc(config, self.specs)

    @staticmethod
    def _targets(spec: VehicleSpec) -> list[tuple[str, int]]:
        found = list(spec.sees.items())
        if spec.observe is not None:
            found.append(("object", spec.observe.camera))
        return found

    def reset(self) -> None:
        for fix, _ in self.fixes.values():
            fix.reset()

    def reconfigure(self, x: np.ndarray) -> bool:
        """A docking captured the ports (the only change of morphology a rendezvous expects):
        the supervisor's docking ends. The outputs stay the same."""
        if isinstance(self.mpc, DockingSupervisor):
            self.mpc.captured()
        return False

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        states = {}
        for k, spec in enumerate(self.specs):
            m = inputs[9 * k : 9 * k + 9]
            heading = euler_angles(m[2:6])[2]
            states[spec.name] = np.array([m[0], m[1], heading, m[6], m[7], m[8]])
        if self.fixes:
            states = self._fixed(time, inputs, states)
        report = self.mpc.step(states)
        if isinstance(self.mpc, DockingSupervisor):
            self.events += self.mpc.events
            self.mpc.events.clear()
        for name, count in report.failures.items():
            if count:
                self.events.append(
                    ("mpc_fallback", f"{name}: {count} failed solve(s), previous plan kept")
                )
        out = [np.array([u[0], u[1], 0.0, 0.0, 0.0, u[2]]) for u in report.inputs.values()]
        values = [*np.concatenate(out), *report.seconds.values(), *report.consensus]
        looks = []
        for spec, target, camera in self._views:
            point = spec.observe.position if target == "object" else states[target]
            looks.append(spec.cameras[camera].bearing(states[spec.name], point))
        violations = [
            max(0.0, abs(b) - spec.cameras[c].half_angle)
            for b, (spec, _, c) in zip(looks, self._views, strict=True)
        ]
        ages = [time - f.frame if f.anchor is not None else -1.0 for f, _ in self.fixes.values()]
        return np.array(values + list(np.degrees(looks)) + list(np.degrees(violations)) + ages)

    def _fixed(
        self, time: float, inputs: np.ndarray, states: dict[str, np.ndarray]
    ) -> dict[str, np.ndarray]:
        """The states with the poses of the vehicles with a camera relative to their
        partners' (the partners' states as measured)."""
        fixed = dict(states)
        start = 9 * len(self.specs)
        index = {spec.name: k for k, spec in enumerate(self.specs)}
        for j, (vehicle, (fix, target)) in enumerate(self.fixes.items()):
            detection = inputs[start + 6 * j : start + 6 * j + 6]
            attitude = inputs[9 * index[vehicle] + 2 : 9 * index[vehicle] + 6]
            own = states[vehicle]
            pose = fix.pose(time, own[:3], attitude, states[target][:3], detection)
            fixed[vehicle] = np.concatenate([pose, own[3:]])
        return fixed
