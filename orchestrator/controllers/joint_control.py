"""PID control of joint motors (León-González et al. 2024, Table 5), with references in joint or
task space."""

from __future__ import annotations

import numpy as np

from orchestrator.controllers import arm_kinematics
from orchestrator.controllers.base import Controller, PIDLoop
from orchestrator.controllers.reference import TimeReference
from orchestrator.scenario.model import EndEffectorTarget, JointPIDConfig


class EndEffectorPath:
    """Joint references (rad) and rates (rad/s) of an arm following a task-space path."""

    def __init__(self, target: EndEffectorTarget) -> None:
        self.target = target
        self.path = [TimeReference(r) for r in (target.x, target.y, target.z)]

    def __call__(self, time: float) -> tuple[tuple[float, ...], tuple[float, ...]]:
        t = self.target
        point, velocity = zip(*(axis(time) for axis in self.path), strict=True)
        return arm_kinematics.inverse_motion(
            point, velocity, t.upper_arm, t.forearm, t.elbow == "down"
        )


class JointPID(Controller):
    """One PID loop per motor-driven joint, plus a feedforward torque.

    torque = kp e + ki int(e) + kd de/dt + feedforward, e = reference - angle (rad), with
    de/dt = reference rate - measured joint rate. Inputs ``<joint>.angle`` and ``.rate``;
    outputs ``<joint>.torque`` (N.m), limited by the motor, and the monitors
    ``<name>.<joint>_reference`` (rad, the reference of the sample, recorded with the run).
    References come from the loop's ``reference`` or, for the three joints of an arm with a
    task-space target, from inverse kinematics of the end-effector path.
    """

    def __init__(self, name: str, config: JointPIDConfig) -> None:
        joints = list(config.loops)
        inputs = [f"{j}.{s}" for j in joints for s in ("angle", "rate")]
        references = [f"{name}.{j}_reference" for j in joints]
        super().__init__(
            name, config.sample_time, inputs, [*(f"{j}.torque" for j in joints), *references]
        )
        self.monitors = tuple(references)
        self.loops = [PIDLoop(config.loops[j].gains, config.sample_time) for j in joints]
        # (loop, signal) of the loops that have a feedforward or a joint-space reference
        self.feedforward = [
            (k, TimeReference(config.loops[j].feedforward))
            for k, j in enumerate(joints)
            if config.loops[j].feedforward
        ]
        self.references = [
            (k, TimeReference(config.loops[j].reference))
            for k, j in enumerate(joints)
            if config.loops[j].reference
        ]
        self.paths = [
            (EndEffectorPath(t), [joints.index(j) for j in t.joints])
            for t in config.targets.values()
        ]

    def set_points(self, time: float) -> tuple[list[float], list[float]]:
        """Reference angles (rad) and rates (rad/s) of every loop at ``time`` (zero without a
        reference)."""
        angles, rates = [0.0] * len(self.loops), [0.0] * len(self.loops)
        for k, reference in self.references:
            angles[k], rates[k] = reference(time)
        for path, loops in self.paths:
            path_angles, path_rates = path(time)
            for k, angle, rate in zip(loops, path_angles, path_rates, strict=True):
                angles[k], rates[k] = angle, rate
        return angles, rates

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        reference, reference_rate = self.set_points(time)
        angles, rates = inputs[0::2].tolist(), inputs[1::2].tolist()  # measured, plain floats
        signals = zip(self.loops, reference, reference_rate, angles, rates, strict=True)
        torques = [
            loop.update(ref - angle, rate_ref - rate)
            for loop, ref, rate_ref, angle, rate in signals
        ]
        for k, feedforward in self.feedforward:
            torques[k] += feedforward(time)[0]
        return np.array(torques + reference)


def check(config: JointPIDConfig, motors: list[str]) -> None:
    """Raise ValueError('<key>: <problem>') unless every loop drives a motor (``motors``: the
    joints that have one) and every target names three of the loops, none with a reference."""
    for joint in config.loops:
        if joint not in motors:
            known = ", ".join(motors) or "none"
            raise ValueError(f"loops.{joint}: no joint '{joint}' with a motor (motors: {known})")
    for arm, target in config.targets.items():
        for joint in target.joints:
            if joint not in config.loops:
                raise ValueError(f"targets.{arm}.joints: '{joint}' has no loop in 'loops'")
            if config.loops[joint].reference:
                raise ValueError(
                    f"loops.{joint}.reference: the joint follows target '{arm}'; leave it out"
                )
