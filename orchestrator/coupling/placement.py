"""Initial pose of a body hung on a joint: the child of a kinematic tree placed from its parent.

A joint joins the point ``at_a`` of body A (A's frame) to the point ``at_b`` of body B (B's
frame). ``rotation`` is B's attitude relative to A at joint angle zero (columns: B's axes in
A's frame). For a revolute joint B is further turned by ``angle`` (rad) about the hinge
``axis`` (unit, A's frame) and spins relative to A at ``rate`` (rad/s). B's velocity is A's
rigid-body velocity carried to B plus that spin, so the joint's velocity rows hold at the
start. Frames as everywhere: positions NED (m), body-frame velocities nu = [v; w].
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from orchestrator.coupling.joints import Pose, axis_rotation
from orchestrator.kinematics import cross


def check_rotation(matrix: object, what: str) -> np.ndarray:
    """``matrix`` as a proper rotation (3x3, orthonormal to 1e-6, determinant +1)."""
    R = np.asarray(matrix, dtype=float)
    if R.shape != (3, 3):
        raise ValueError(f"{what} must be a 3x3 matrix (three rows of three), got {R.shape}")
    if np.max(np.abs(R.T @ R - np.eye(3))) > 1e-6 or np.linalg.det(R) < 0:
        raise ValueError(f"{what} must be a rotation matrix (orthonormal rows, determinant +1)")
    u, _, vt = np.linalg.svd(R)
    return u @ vt  # the nearest exact rotation, so that printed decimals do not drift


def placed_pose(
    a: Pose,
    at_a: np.ndarray,
    at_b: np.ndarray,
    rotation: np.ndarray,
    axis: np.ndarray | None = None,
    angle: float = 0.0,
    rate: float = 0.0,
) -> Pose:
    """Pose and velocity of B so that the joint points coincide at the given joint angle."""
    relative = rotation
    spin = np.zeros(3)
    if axis is not None:
        relative = axis_rotation(axis, angle) @ rotation
        spin = rate * axis
    R_b = a.R @ relative
    p_b = a.p + a.R @ at_a - R_b @ at_b
    w_b = relative.T @ (a.w + spin)
    v_joint = relative.T @ (a.v + cross(a.w, at_a))
    return Pose(p_b, R_b, np.concatenate([v_joint - cross(w_b, at_b), w_b]))


def quaternion(R: np.ndarray) -> np.ndarray:
    """Scalar-first unit quaternion (scalar part >= 0) of a rotation matrix body to NED."""
    x, y, z, w = Rotation.from_matrix(R).as_quat()
    q = np.array([w, x, y, z])
    return q if w >= 0 else -q
