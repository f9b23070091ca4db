"""Joints between rigid bodies as acceleration-level constraints in body quasi-velocities.

Every body has NED position ``p``, rotation ``R`` (body to NED) and body-frame velocity
``nu = [v; w]``. A joint contributes rows ``Phi_a nu_dot_a + Phi_b nu_dot_b = b`` (the second
time derivative of its position-level residual ``c``), so that the Udwadia-Kalaba equation can
enforce it, and it knows ``c`` itself for stabilization and reporting.

Building blocks, derived for body-frame quasi-velocities:

- point coincidence of ``r_a`` (in A) and ``r_b`` (in B), 3 rows in NED:
  c = p_a + R_a r_a - p_b - R_b r_b,
  Phi_a = R_a [I, -S(r_a)], Phi_b = -R_b [I, -S(r_b)],
  b = -R_a w_a x (v_a + w_a x r_a) + R_b w_b x (v_b + w_b x r_b).
  (The thesis' eq. 3.61 writes the rotational blocks with NED angular velocities; in body
  quasi-velocities they are -S(R_a r_a) R_a = -R_a S(r_a), as the seed note points out.)
- relative angular velocity along unit vectors ``e_k`` fixed in A:
  rows e_k . (w_a - R_a' R_b w_b), Phi_a = [0, E], Phi_b = [0, -E R_a' R_b],
  b = -E (w_a x R_a' R_b w_b).
A world anchor is a body with fixed pose and no columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.transform import Rotation

from orchestrator.kinematics import cross


def skew(a: np.ndarray) -> np.ndarray:
    """Cross-product matrix: skew(a) @ b = a x b."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix of ``angle`` (rad) about the unit ``axis`` (Rodrigues' formula)."""
    K = skew(axis)
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * (K @ K)


@dataclass(frozen=True)
class Pose:
    """Pose and velocity of one body: p (NED, m), R (body to NED), nu (body frame)."""

    p: np.ndarray
    R: np.ndarray
    nu: np.ndarray

    @property
    def v(self) -> np.ndarray:
        return self.nu[:3]

    @property
    def w(self) -> np.ndarray:
        return self.nu[3:]


WORLD = Pose(np.zeros(3), np.eye(3), np.zeros(6))


@dataclass(frozen=True)
class Rows:
    """Constraint rows of one joint: Phi_a nu_dot_a + Phi_b nu_dot_b = b; residual c. At
    velocity level Phi_a nu_a + Phi_b nu_b = velocity: zero (None) unless the joint is driven."""

    phi_a: np.ndarray
    phi_b: np.ndarray
    b: np.ndarray
    c: np.ndarray
    velocity: np.ndarray | None = None


def point_rows(a: Pose, r_a: np.ndarray, b: Pose, r_b: np.ndarray) -> Rows:
    """Coincidence of the point r_a of body A with the point r_b of body B (3 rows, NED)."""
    phi_a, phi_b = np.empty((3, 6)), np.empty((3, 6))
    phi_a[:, :3], phi_a[:, 3:] = a.R, -a.R @ skew(r_a)
    phi_b[:, :3], phi_b[:, 3:] = -b.R, b.R @ skew(r_b)
    bias = -a.R @ cross(a.w, a.v + cross(a.w, r_a)) + b.R @ cross(b.w, b.v + cross(b.w, r_b))
    c = a.p + a.R @ r_a - b.p - b.R @ r_b
    return Rows(phi_a, phi_b, bias, c)


def angular_rows(a: Pose, b: Pose, directions: np.ndarray, c: np.ndarray) -> Rows:
    """No relative angular velocity along ``directions`` (rows, unit vectors in A's frame)."""
    relative = a.R.T @ b.R
    phi_a, phi_b = np.zeros((len(directions), 6)), np.zeros((len(directions), 6))
    phi_a[:, 3:] = directions
    phi_b[:, 3:] = -directions @ relative
    bias = -directions @ cross(a.w, relative @ b.w)
    return Rows(phi_a, phi_b, bias, c)


def rotation_vector(R: np.ndarray) -> np.ndarray:
    """Rotation vector (axis times angle, rad) of a rotation matrix; fast for small angles."""
    cosine = np.clip((np.trace(R) - 1.0) / 2.0, -1.0, 1.0)
    axis = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    if cosine > 0.99:  # angle below 8 deg: series of angle/sin(angle) in sin^2
        sine_sq = 1.0 - cosine * cosine
        return (
            0.5 * axis * (1.0 + sine_sq / 6.0 + 3.0 * sine_sq**2 / 40.0 + 5.0 * sine_sq**3 / 112.0)
        )
    return Rotation.from_matrix(R).as_rotvec()


def _stack(*parts: Rows) -> Rows:
    return Rows(
        *(np.concatenate([getattr(r, f) for r in parts]) for f in ("phi_a", "phi_b", "b", "c"))
    )


def _unit(vector: object, what: str) -> np.ndarray:
    v = np.asarray(vector, dtype=float)
    if v.shape != (3,) or abs(np.linalg.norm(v) - 1.0) > 1e-9:
        raise ValueError(
            f"{what} must be a unit 3-vector, got {v.tolist()} (norm {np.linalg.norm(v):.6g})"
        )
    return v


def _perpendicular_pair(axis: np.ndarray) -> np.ndarray:
    helper = np.eye(3)[np.argmin(np.abs(axis))]
    e1 = np.cross(axis, helper)
    e1 /= np.linalg.norm(e1)
    return np.array([e1, np.cross(axis, e1)])


@dataclass
class Joint:
    """A joint between body ``a`` and body ``b`` (``b`` None: the NED world).

    ``r_a`` and ``r_b`` are the joint point in each body's frame; ``relative`` is the rotation
    R_a' R_b at which the joint was made (for the world, R_a' itself).
    """

    name: str
    a: str
    b: str | None
    r_a: np.ndarray
    r_b: np.ndarray
    relative: np.ndarray
    kind: str = field(default="joint", init=False)
    n_rows: int = field(default=0, init=False)

    @classmethod
    def at_current_pose(
        cls,
        name: str,
        a: str,
        pose_a: Pose,
        b: str | None,
        pose_b: Pose,
        point_a: np.ndarray,
        **kwargs: object,
    ) -> Joint:  # noqa: E501
        """A joint at ``point_a`` (A's frame) with the bodies' present relative pose."""
        if a == b:
            raise ValueError(f"joint '{name}' connects body '{a}' to itself")
        point_a = np.asarray(point_a, dtype=float)
        world = pose_a.p + pose_a.R @ point_a
        r_b = pose_b.R.T @ (world - pose_b.p)
        return cls(name, a, b, point_a, r_b, pose_a.R.T @ pose_b.R, **kwargs)

    def rows(self, a: Pose, b: Pose) -> Rows:
        """Constraint rows at the bodies' present state."""
        raise NotImplementedError

    def violation(self, a: Pose, b: Pose) -> tuple[float, float]:
        """Position error (m) and angle error (rad) of the joint."""
        gap = a.p + a.R @ self.r_a - b.p - b.R @ self.r_b
        return float(np.linalg.norm(gap)), self._angle_error(a, b)

    def _angle_error(self, a: Pose, b: Pose) -> float:
        return 0.0


@dataclass
class Weld(Joint):
    """Rigid connection: 3 point rows and 3 angular rows (all six relative DOF removed)."""

    kind: str = field(default="weld", init=False)
    n_rows: int = field(default=6, init=False)

    def _rotation_error(self, a: Pose, b: Pose) -> np.ndarray:
        return rotation_vector(a.R.T @ b.R @ self.relative.T)

    def rows(self, a: Pose, b: Pose) -> Rows:
        return _stack(
            point_rows(a, self.r_a, b, self.r_b),
            angular_rows(a, b, np.eye(3), -self._rotation_error(a, b)),
        )

    def _angle_error(self, a: Pose, b: Pose) -> float:
        return float(np.linalg.norm(self._rotation_error(a, b)))


@dataclass
class Spherical(Joint):
    """Ball joint: the two points coincide, rotation free (3 rows)."""

    kind: str = field(default="spherical", init=False)
    n_rows: int = field(default=3, init=False)

    def rows(self, a: Pose, b: Pose) -> Rows:
        return point_rows(a, self.r_a, b, self.r_b)


@dataclass
class Revolute(Joint):
    """Hinge about ``axis`` (unit, A's frame): 3 point rows, 2 angular rows."""

    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    kind: str = field(default="revolute", init=False)
    n_rows: int = field(default=5, init=False)

    def __post_init__(self) -> None:
        self.axis = _unit(self.axis, f"joint '{self.name}': axis")
        self._perpendicular = _perpendicular_pair(self.axis)
        self._axis_b = self.relative.T @ self.axis  # the hinge axis in B's frame

    def _misalignment(self, a: Pose, b: Pose) -> np.ndarray:
        return cross(self.axis, a.R.T @ b.R @ self._axis_b)

    def rows(self, a: Pose, b: Pose) -> Rows:
        c = -self._perpendicular @ self._misalignment(a, b)
        return _stack(
            point_rows(a, self.r_a, b, self.r_b), angular_rows(a, b, self._perpendicular, c)
        )

    def _angle_error(self, a: Pose, b: Pose) -> float:
        return float(np.arcsin(min(1.0, np.linalg.norm(self._misalignment(a, b)))))

    def angle(self, a: Pose, b: Pose) -> float:
        """Joint angle (rad, in (-pi, pi]): rotation of B relative to its reference attitude
        (``relative``: the pose at creation) about the axis."""
        turned = a.R.T @ b.R @ self.relative.T  # that rotation, in A's frame
        e1, e2 = self._perpendicular  # e1, e2 = axis x e1: perpendicular to the axis
        return float(np.arctan2(e2 @ turned @ e1, e1 @ turned @ e1))


@dataclass
class Universal(Joint):
    """Two-axis (Hooke) joint: ``axis`` fixed in A, ``axis_b`` fixed in B, kept perpendicular."""

    axis: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    axis_b: np.ndarray = field(default_factory=lambda: np.array([0.0, 1.0, 0.0]))
    kind: str = field(default="universal", init=False)
    n_rows: int = field(default=4, init=False)

    def __post_init__(self) -> None:
        self.axis = _unit(self.axis, f"joint '{self.name}': axis")
        self.axis_b = _unit(self.axis_b, f"joint '{self.name}': axis_b")
        if abs(self.axis @ (self.relative @ self.axis_b)) > 1e-6:
            raise ValueError(
                f"joint '{self.name}': axis and axis_b must be perpendicular at creation"
            )

    def rows(self, a: Pose, b: Pose) -> Rows:
        n1, n2 = a.R @ self.axis, b.R @ self.axis_b
        h = cross(n1, n2)
        w_a, w_b = a.R @ a.w, b.R @ b.w
        h_dot = cross(cross(w_a, n1), n2) + cross(n1, cross(w_b, n2))
        angular = Rows(
            np.concatenate([np.zeros(3), h @ a.R])[None, :],
            np.concatenate([np.zeros(3), -h @ b.R])[None, :],
            np.array([-h_dot @ (w_a - w_b)]),
            np.array([n1 @ n2]),
        )
        return _stack(point_rows(a, self.r_a, b, self.r_b), angular)

    def _angle_error(self, a: Pose, b: Pose) -> float:
        return float(abs(np.arcsin(np.clip((a.R @ self.axis) @ (b.R @ self.axis_b), -1, 1))))


JOINT_TYPES: dict[str, type[Joint]] = {
    "weld": Weld,
    "revolute": Revolute,
    "universal": Universal,
    "spherical": Spherical,
    "fixed": Weld,  # a weld to the world
}
