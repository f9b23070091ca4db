"""Driven universal joint: two bodies whose relative rotation follows an actuator's joint angles.

A universal (Hooke) joint has its first axis ``axis`` fixed in body A and its second axis
``axis_b`` fixed in body B. Driven, its two angles are prescribed by an actuator component
(``MurCoSim.Buoys.JointServo``: states ``theta[1..2]``, ``omega[1..2]``, acceleration
``der(omega)``), so the joint is rheonomic: the joint point is shared and the rotation of B
relative to A is

    R_rel(t) = Rot(axis, theta_1) R_0 Rot(axis_b, theta_2)          (B -> A)

with R_0 the relative rotation at zero angles. In A's frame the prescribed relative angular
velocity and its derivative are

    w_p = axis theta_1' + e_2 theta_2',        e_2 = Rot(axis, theta_1) R_0 axis_b
    w_p' = axis theta_1'' + e_2 theta_2'' + theta_1' theta_2' (axis x e_2)

and the joint's rows are the weld's with that moving reference: three point rows and three
angular rows E (w_a - R_a'R_b w_b) = -w_p, whose acceleration rows' b carries -w_p' and whose
velocity rows' target is -w_p (for the projection between steps). The joint torques are the
constraint moment on B about the joint point along the two axes (the structural moment of the
cross piece lies along axis x axis_b, perpendicular to both).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from orchestrator.coupling.joints import (
    JOINT_TYPES,
    Frames,
    Joint,
    Pose,
    Rows,
    Universal,
    angular_rows,
    axis_rotation,
    cross,
    point_rows,
    relative_rotation,
    rotation_vector,
    stack_rows,
)

ANGLES = ("theta[1]", "theta[2]")
RATES = ("omega[1]", "omega[2]")


@dataclass
class JointMotion:
    """Joint angles (rad), rates (rad/s) and accelerations (rad/s^2) of the two axes."""

    angle: np.ndarray = field(default_factory=lambda: np.zeros(2))
    rate: np.ndarray = field(default_factory=lambda: np.zeros(2))
    acceleration: np.ndarray = field(default_factory=lambda: np.zeros(2))


@dataclass
class DrivenUniversal(Universal):
    """Universal joint whose two angles follow ``motion`` (set before every evaluation); the
    bodies' relative pose at creation is the pose at zero angles."""

    kind: str = field(default="driven_universal", init=False)
    n_rows: int = field(default=6, init=False)
    motion: JointMotion = field(default_factory=JointMotion, init=False)

    @staticmethod
    def prescribed(
        parameters: dict[str, np.ndarray], motion: JointMotion | list[JointMotion]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """R_rel (B -> A), w_p and its derivative (A's frame) of the present motion of each
        joint (shapes (J, 3, 3), (J, 3), (J, 3))."""
        motions = [motion] if isinstance(motion, JointMotion) else motion
        angle, rate, acceleration = (
            np.array([getattr(m, f) for m in motions]) for f in ("angle", "rate", "acceleration")
        )
        axis, axis_b, relative = parameters["axis"], parameters["axis_b"], parameters["relative"]
        first = axis_rotation(axis, angle[:, 0])
        second = axis_rotation(axis_b, angle[:, 1])
        e2 = np.einsum("jik,jk->ji", first @ relative, axis_b)
        w = axis * rate[:, :1] + e2 * rate[:, 1:]
        w_dot = (
            axis * acceleration[:, :1]
            + e2 * acceleration[:, 1:]
            + (rate[:, 0] * rate[:, 1])[:, None] * cross(axis, e2)
        )
        return first @ relative @ second, w, w_dot

    @classmethod
    def batch_rows(
        cls, joints: list[Joint], parameters: dict[str, np.ndarray], a: Frames, b: Frames
    ) -> Rows:
        relative, w, w_dot = cls.prescribed(parameters, [j.motion for j in joints])
        turned = relative_rotation(a, b)
        error = rotation_vector(turned @ np.swapaxes(relative, 1, 2))
        point = point_rows(a, b, parameters)
        turn = angular_rows(a, b, None, -error, turned)
        turn = Rows(turn.phi_a, turn.phi_b, turn.b - w_dot, turn.c, -w)
        return stack_rows(point, turn)

    def _angle_error(self, a: Pose, b: Pose) -> float:
        relative = self.prescribed(self.parameters([self]), self.motion)[0][0]
        return float(np.linalg.norm(rotation_vector(a.R.T @ b.R @ relative.T)))

    def torques(self, a: Pose, b: Pose, on_b: np.ndarray) -> np.ndarray:
        """Joint torques (N.m) about ``axis`` and ``axis_b``: the constraint moment on B about
        the joint point. ``on_b`` is the generalized constraint force on B at its origin, in
        its frame."""
        moment = on_b[3:] - cross(self.r_b, on_b[:3])
        first_axis_in_b = (a.R.T @ b.R).T @ self.axis
        return np.array([first_axis_in_b @ moment, self.axis_b @ moment])


@dataclass
class Drive:
    """A driven joint and where its actuator's angles and rates sit in the state vector."""

    joint: DrivenUniversal
    angles: np.ndarray  # state indices of theta[1], theta[2]
    rates: np.ndarray  # state indices of omega[1], omega[2]

    def follow(self, x: np.ndarray, dx: np.ndarray | None = None) -> None:
        """Set the joint's motion from the state ``x`` and, given, its derivative ``dx``."""
        motion = self.joint.motion
        motion.angle = x[self.angles]
        motion.rate = x[self.rates]
        motion.acceleration = dx[self.rates] if dx is not None else np.zeros(2)


def actuator_indices(
    state_index: dict[str, int], actuator: str
) -> tuple[np.ndarray, np.ndarray] | None:
    """State indices of ``actuator``'s joint angles and rates, or None if it has not both."""
    names = [f"{actuator}.{n}" for n in ANGLES + RATES]
    if not all(n in state_index for n in names):
        return None
    found = np.array([state_index[n] for n in names])
    return found[:2], found[2:]


JOINT_TYPES["driven_universal"] = DrivenUniversal  # made from scenarios like the other joints
