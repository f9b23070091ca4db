"""Where a sensor sits on its body, and the true kinematics of that point."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from orchestrator.kinematics import (
    cross,
    cross_floats,
    quaternion_from_euler,
    rotation_matrix,
    rotation_rows,
)

GRAVITY = 9.81  # m/s^2, as the vehicle FMUs' g


@dataclass(frozen=True)
class Mount:
    """A sensor frame fixed on a body: origin ``position`` (body frame, m) and axes rotated
    from the body's by zyx Euler angles ``orientation`` (roll, pitch, yaw, rad). ``rotation``
    maps sensor-frame vectors to the body frame."""

    position: np.ndarray
    rotation: np.ndarray

    @classmethod
    def from_euler(
        cls, position: tuple[float, float, float], orientation: tuple[float, float, float]
    ) -> Mount:
        """A mount from its position (m) and zyx Euler angles (rad)."""
        q = quaternion_from_euler(*orientation)
        return cls(np.asarray(position, dtype=float), rotation_matrix(q))


@dataclass(frozen=True)
class PointState:
    """True state of a sensor's point: ``position`` NED (m), ``velocity`` over ground and
    ``rate`` (angular velocity) in the sensor frame (m/s, rad/s), ``attitude`` sensor to NED."""

    position: np.ndarray
    velocity: np.ndarray
    rate: np.ndarray
    attitude: np.ndarray


def point_state(mount: Mount, p: np.ndarray, q: np.ndarray, nu: np.ndarray) -> PointState:
    """The sensor point's state from the body's ``p`` (NED, m), ``q`` (body to NED, scalar
    first) and ``nu`` ([u v w p q r], body frame)."""
    R = rotation_matrix(q)
    v, w = nu[:3], nu[3:]
    velocity = v + cross(w, mount.position)  # as np.cross computes it, 20 times faster
    return PointState(
        position=p + R @ mount.position,
        velocity=mount.rotation.T @ velocity,
        rate=mount.rotation.T @ w,
        attitude=R @ mount.rotation,
    )


def specific_force(
    mount: Mount, q: np.ndarray, nu: np.ndarray, nu_dot: np.ndarray, g: float = GRAVITY
) -> np.ndarray:
    """What an accelerometer at the mount reads (m/s^2, sensor frame): the point's inertial
    acceleration minus gravity, a - g, with a = v' + w x v + w' x r + w x (w x r) in the body
    frame (``nu_dot`` the body-frame derivative of ``nu``). At rest and level: (0, 0, -g)."""
    # Plain floats: NumPy's per-call cost on 3-vectors is many times the arithmetic (the same
    # operations in the same order, so the same numbers).
    v, w, w_dot = nu[:3].tolist(), nu[3:].tolist(), nu_dot[3:].tolist()
    r = mount.position.tolist()
    terms = (cross_floats(w, v), cross_floats(w_dot, r), cross_floats(w, cross_floats(w, r)))
    a = nu_dot[:3].tolist()
    for term in terms:
        a = [a[i] + term[i] for i in range(3)]
    down = rotation_rows(q.tolist())[2]  # NED z in the body frame: gravity R' (0, 0, g) / g
    return mount.rotation.T @ np.array([a[i] - down[i] * g for i in range(3)])
