"""Attitude kinematics on scalar-first unit quaternions (body to NED), as in the FMUs."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Rows = list[list[float]]


def rotation_rows(q: list[float]) -> Rows:
    """Rotation matrix body to NED of one quaternion ``q = [eta, eps1, eps2, eps3]`` as rows of
    plain floats (for per-sample code, where NumPy's per-call cost exceeds the arithmetic)."""
    eta, e1, e2, e3 = q
    return [
        [1 - 2 * (e2 * e2 + e3 * e3), 2 * (e1 * e2 - e3 * eta), 2 * (e1 * e3 + e2 * eta)],
        [2 * (e1 * e2 + e3 * eta), 1 - 2 * (e1 * e1 + e3 * e3), 2 * (e2 * e3 - e1 * eta)],
        [2 * (e1 * e3 - e2 * eta), 2 * (e2 * e3 + e1 * eta), 1 - 2 * (e1 * e1 + e2 * e2)],
    ]


def euler_from_rows(R: Rows) -> tuple[float, float, float]:
    """Roll, pitch, yaw (rad, zyx convention) of one rotation matrix body to NED given as rows
    of plain floats (:func:`rotation_rows`)."""
    roll = math.atan2(R[2][1], R[2][2])
    pitch = -math.asin(min(max(R[2][0], -1.0), 1.0))
    return roll, pitch, math.atan2(R[1][0], R[0][0])


def rotation_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrix body to NED of the quaternion ``q = [eta, eps1, eps2, eps3]``.

    Accepts one quaternion (4,) or a stack (..., 4); the result has shape (..., 3, 3).
    """
    q = np.asarray(q, dtype=float)
    if q.ndim == 1:  # one quaternion: plain floats are many times faster than array views
        return np.array(rotation_rows(q.tolist()))
    eta, e1, e2, e3 = np.moveaxis(q, -1, 0)
    R = np.empty(q.shape[:-1] + (3, 3))
    R[..., 0, 0] = 1 - 2 * (e2 * e2 + e3 * e3)
    R[..., 0, 1] = 2 * (e1 * e2 - e3 * eta)
    R[..., 0, 2] = 2 * (e1 * e3 + e2 * eta)
    R[..., 1, 0] = 2 * (e1 * e2 + e3 * eta)
    R[..., 1, 1] = 1 - 2 * (e1 * e1 + e3 * e3)
    R[..., 1, 2] = 2 * (e2 * e3 - e1 * eta)
    R[..., 2, 0] = 2 * (e1 * e3 - e2 * eta)
    R[..., 2, 1] = 2 * (e2 * e3 + e1 * eta)
    R[..., 2, 2] = 1 - 2 * (e1 * e1 + e2 * e2)
    return R


def euler_rate_matrix(roll: float, pitch: float) -> Rows:
    """T(Theta) of Fossen (2011, eq. 2.29): zyx Euler-angle rates = T @ body angular velocity
    (rows of plain floats)."""
    sr, cr, tp, cp = math.sin(roll), math.cos(roll), math.tan(pitch), math.cos(pitch)
    return [[1.0, sr * tp, cr * tp], [0.0, cr, -sr], [0.0, sr / cp, cr / cp]]


def euler_angles(q: np.ndarray) -> np.ndarray:
    """Roll, pitch, yaw (rad, zyx convention) of one or a stack of quaternions."""
    return euler_from_rotation(rotation_matrix(q))


def euler_from_rotation(R: np.ndarray) -> np.ndarray:
    """Roll, pitch, yaw (rad, zyx convention) of one rotation matrix body to NED (3, 3) or a
    stack (..., 3, 3)."""
    if R.ndim == 2:  # one matrix: plain floats
        return np.array(euler_from_rows(R.tolist()))
    roll = np.arctan2(R[..., 2, 1], R[..., 2, 2])
    pitch = -np.arcsin(np.clip(R[..., 2, 0], -1.0, 1.0))
    yaw = np.arctan2(R[..., 1, 0], R[..., 0, 0])
    return np.stack([roll, pitch, yaw], -1)


def quaternion_from_euler(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Unit quaternion (scalar first) of zyx Euler angles (rad)."""
    cr, sr = np.cos(roll / 2), np.sin(roll / 2)
    cp, sp = np.cos(pitch / 2), np.sin(pitch / 2)
    cy, sy = np.cos(yaw / 2), np.sin(yaw / 2)
    return np.array(
        [
            cr * cp * cy + sr * sp * sy,
            sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
        ]
    )


def wrap_angle(angle: float | np.ndarray) -> float | np.ndarray:
    """Angle wrapped into [-pi, pi) (a float for a float)."""
    if isinstance(angle, float):  # Python's float % is NumPy's remainder without the array
        return (angle + math.pi) % (2 * math.pi) - math.pi
    return (np.asarray(angle) + np.pi) % (2 * np.pi) - np.pi


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product of two 3-vectors (much faster than np.cross for single vectors)."""
    return np.array(cross_floats(a, b))


def cross_floats(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """Cross product of two 3-vectors as plain floats (for per-sample code)."""
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def quaternion_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a (x) b of scalar-first quaternions."""
    return np.concatenate(
        [[a[0] * b[0] - a[1:] @ b[1:]], a[0] * b[1:] + b[0] * a[1:] + cross(a[1:], b[1:])]
    )


def rotate_quaternion(q: np.ndarray, rotation_vector: np.ndarray) -> np.ndarray:
    """q turned by a rotation vector given in the body frame (rad): q (x) exp(theta/2)."""
    angle = np.linalg.norm(rotation_vector)
    if angle == 0.0:
        return q
    half = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * rotation_vector / angle])
    return quaternion_product(q, half)
