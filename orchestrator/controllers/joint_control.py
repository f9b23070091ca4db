"""PID control of joint motors (León-González et al. 2024, Table 5), with references in joint or
task space."""

from __future__ import annotations

import numpy as np

from orchestrator.controllers import arm_kinematics
from orchestrator.controllers.base import Controller, loop_gains
from orchestrator.controllers.reference import reference_terms
from orchestrator.native import controllers as native
from orchestrator.scenario.model import JointPIDConfig


class JointPID(Controller):
    """One PID loop per motor-driven joint, plus a feedforward torque.

    torque = kp e + ki int(e) + kd de/dt + feedforward, e = reference - angle (rad), with
    de/dt = reference rate - measured joint rate; the integral advances by e times the sample
    time and is clamped to +-integral_limit / ki. Inputs ``<joint>.angle`` and ``.rate``;
    outputs ``<joint>.torque`` (N.m), limited by the motor, and the monitors
    ``<name>.<joint>_reference`` (rad, the reference of the sample, recorded with the run).
    References come from the loop's ``reference`` or, for the three joints of an arm with a
    task-space target, from inverse kinematics of the end-effector path
    (:func:`arm_kinematics.inverse_motion`). The step is compiled (:attr:`compiled_law`,
    ``orchestrator/native/_controllers.c``), the integrals its state.
    """

    def __init__(self, name: str, config: JointPIDConfig) -> None:
        joints = list(config.loops)
        inputs = [f"{j}.{s}" for j in joints for s in ("angle", "rate")]
        references = [f"{name}.{j}_reference" for j in joints]
        super().__init__(
            name, config.sample_time, inputs, [*(f"{j}.torque" for j in joints), *references]
        )
        self.monitors = tuple(references)
        loops = [config.loops[j] for j in joints]
        self.targets = list(config.targets.values())
        self.compiled_law = native.joint_pid(
            config.sample_time,
            [loop_gains(loop.gains) for loop in loops],
            [reference_terms(loop.reference) for loop in loops],
            [reference_terms(loop.feedforward) for loop in loops],
            [
                (
                    [joints.index(j) for j in t.joints],
                    t.upper_arm,
                    t.forearm,
                    t.elbow == "down",
                    [reference_terms(axis) for axis in (t.x, t.y, t.z)],
                )
                for t in self.targets
            ],
        )

    def failure(self, status: int) -> ValueError:
        """Why a compiled step of ``status`` gave no outputs (a target out of reach)."""
        path, point = self.compiled_law.fault
        target = self.targets[path]
        return arm_kinematics.unreachable(status, point, target.upper_arm, target.forearm)

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        outputs = np.empty(len(self.outputs))
        inputs = np.ascontiguousarray(inputs, dtype=float)
        status = self.compiled_law.step(time, inputs, outputs)
        if status:
            raise self.failure(status)
        return outputs


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
