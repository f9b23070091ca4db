"""Joint motors on revolute joints, and the joint signals controllers read.

A motor turns body B relative to body A about its joint's hinge with the torque tau (N.m),
applied as an equal and opposite pair: +tau along the hinge axis on B, -tau on A. As
generalized forces at the body origins, body frames: [0; -tau axis_A] on A and
[0; tau axis_B] on B (axis_B is the hinge axis in B's frame). The pair adds no net force or
moment to the assembly; the Udwadia-Kalaba solve then gives the constraint forces that keep
the joint together. The command is limited to +-max_torque (N.m).

Signals, by joint name: ``<joint>.angle`` (rad) and ``<joint>.rate`` (rad/s) of every
revolute joint, the rotation of B relative to A about the hinge (right-handed about the axis,
zero at the joint's reference attitude); ``<joint>.torque`` (N.m), the command of a motor,
written by a controller and held between its samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from orchestrator.coupling.assembly import Assembly
from orchestrator.coupling.joints import Frames, Pose, Revolute
from orchestrator.native.controllers import bind_blas

if TYPE_CHECKING:
    from orchestrator.native._kernel import Coupling


@dataclass
class Motor:
    """A torque source on a revolute joint, limited to +-max_torque (N.m)."""

    joint: Revolute
    max_torque: float = np.inf


class JointMotors:
    """The revolute joints of an assembly, the motors on some of them and their signals."""

    def __init__(self, assembly: Assembly, motors: list[Motor]) -> None:
        self.assembly = assembly
        self.motors = motors
        if motors:
            bind_blas()  # the accelerations of their torques: NumPy's product, in C too
        self._commands = tuple(f"{m.joint.name}.torque" for m in motors)
        self._limits = np.array([m.max_torque for m in motors], dtype=float)
        self._applied = np.zeros(len(motors))  # N.m, the commands limited
        self._gains = self._accelerations_per_torque()
        self._accelerations = np.zeros(len(assembly.M))
        # revolute joints measured last, their stacked parameters and bodies (-1 the world)
        self._measured: tuple[list[Revolute], dict, np.ndarray, np.ndarray] | None = None

    def _accelerations_per_torque(self) -> np.ndarray:
        """M^-1 times each motor's generalized forces per N.m (one column per motor)."""
        gains = np.zeros((len(self.assembly.M), len(self.motors)))
        for k, motor in enumerate(self.motors):
            gains[:, k] = self.assembly.M_inv @ self._unit_pair(motor.joint)
        return gains

    def _unit_pair(self, joint: Revolute) -> np.ndarray:
        """Generalized forces (all bodies) of a unit motor torque on ``joint``."""
        force = np.zeros(len(self.assembly.M))
        ia = self.assembly.index[joint.a]
        force[6 * ia + 3 : 6 * ia + 6] = -joint.axis
        if joint.b is not None:
            ib = self.assembly.index[joint.b]
            force[6 * ib + 3 : 6 * ib + 6] = joint.relative.T @ joint.axis
        return force

    def revolute_joints(self) -> list[Revolute]:
        """The revolute joints present in the assembly."""
        return [j for j in self.assembly.joints if isinstance(j, Revolute)]

    def signal_names(self) -> list[str]:
        """Angle and rate of every revolute joint, then the torque command of every motor."""
        names = [f"{j.name}.{s}" for j in self.revolute_joints() for s in ("angle", "rate")]
        return names + list(self.command_names())

    def command_names(self) -> tuple[str, ...]:
        """The motors' torque commands (N.m)."""
        return self._commands

    def measure(self, poses: list[Pose] | Frames) -> dict[str, float]:
        """Angle (rad) and rate (rad/s) of every revolute joint at ``poses``."""
        joints = self.revolute_joints()
        if not joints:
            return {}
        if self._measured is None or self._measured[0] != joints:
            index = self.assembly.index
            bodies = [
                [index[j.a] for j in joints],
                [-1 if j.b is None else index[j.b] for j in joints],
            ]
            self._measured = (joints, Revolute.parameters(joints), *np.array(bodies))
        _, parameters, body_a, body_b = self._measured
        frames = Frames.of(poses).with_world()
        angles, rates = Revolute.batch_motion(
            parameters, frames.select(body_a), frames.select(body_b)
        )
        values = {}
        for joint, angle, rate in zip(joints, angles.tolist(), rates.tolist(), strict=True):
            values[f"{joint.name}.angle"] = angle
            values[f"{joint.name}.rate"] = rate
        return values

    def set_command_values(self, commands: np.ndarray) -> None:
        """New torque commands (N.m), one per motor in the order of :meth:`command_names`;
        each motor applies its command limited to +-max_torque, and the accelerations of the
        applied torques are held until the commands change."""
        self._applied = np.minimum(np.maximum(commands, -self._limits), self._limits)
        self._accelerations = self._gains @ self._applied

    def command_from(self, bus: np.ndarray, slots: np.ndarray, kernel: Coupling) -> None:
        """:meth:`set_command_values` of the commands on ``bus`` at ``slots`` (int64, in the
        order of :meth:`command_names`), the same numbers in one compiled call, which also
        sets the accelerations in the compiled coupling ``kernel`` (``set_motor``)."""
        kernel.command_motors(
            bus, slots, self._limits, self._gains, self._applied, self._accelerations
        )

    def applied(self) -> np.ndarray:
        """The torque each motor applies (N.m), in the order of :meth:`command_names`."""
        return self._applied

    def accelerations(self) -> np.ndarray:
        """M^-1 times the generalized forces of all motors (6 per body, body frames)."""
        return self._accelerations

    def release(self, joint: str) -> None:
        """Remove the motor of a joint that left the assembly."""
        kept = [k for k, m in enumerate(self.motors) if m.joint.name != joint]
        self.motors = [self.motors[k] for k in kept]
        self._commands = tuple(self._commands[k] for k in kept)
        self._limits = self._limits[kept]
        self._gains = self._accelerations_per_torque()
        self.set_command_values(self._applied[kept])
