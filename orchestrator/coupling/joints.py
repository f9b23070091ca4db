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
  (Nielsen's (2018) eq. 3.61 writes the rotational blocks with NED angular velocities; in body
  quasi-velocities they are -S(R_a r_a) R_a = -R_a S(r_a), as the derivation shows.)
- relative angular velocity along unit vectors ``e_k`` fixed in A:
  rows e_k . (w_a - R_a' R_b w_b), Phi_a = [0, E], Phi_b = [0, -E R_a' R_b],
  b = -E (w_a x R_a' R_b w_b).
A world anchor is a body with fixed pose and no columns.

Rows are built for many joints of one kind at once: every function below works on batches
(leading axis J, one entry per joint) so that an assembly evaluates all its joints with a few
array operations per joint kind, not a Python loop per joint. ``Joint.rows`` is the batch of
one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.transform import Rotation


def skew(a: np.ndarray) -> np.ndarray:
    """Cross-product matrices of 3-vectors (..., 3) -> (..., 3, 3): skew(a) @ b = a x b."""
    a = np.asarray(a, dtype=float)
    out = np.zeros(a.shape + (3,))
    out[..., 0, 1], out[..., 0, 2] = -a[..., 2], a[..., 1]
    out[..., 1, 0], out[..., 1, 2] = a[..., 2], -a[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -a[..., 1], a[..., 0]
    return out


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross products of (..., 3) arrays."""
    out = np.empty(max(a.shape, b.shape, key=len))  # one is (3,) or both alike
    out[..., 0] = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
    out[..., 1] = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    out[..., 2] = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return out


def _apply(R: np.ndarray, v: np.ndarray) -> np.ndarray:
    """R @ v for stacks of matrices (J, 3, 3) and vectors (J, 3)."""
    return (R @ v[..., None])[..., 0]


def axis_rotation(axis: np.ndarray, angle: float | np.ndarray) -> np.ndarray:
    """Rotation matrices of ``angle`` (rad) about unit ``axis`` (Rodrigues' formula); axis
    (..., 3) and angle (...) broadcast to (..., 3, 3)."""
    K = skew(axis)
    angle = np.asarray(angle, dtype=float)[..., None, None]
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
class Frames:
    """Poses of several bodies as arrays: p (J, 3) NED (m), R (J, 3, 3) body to NED,
    nu (J, 6) body-frame velocity [v (m/s), w (rad/s)]. Indexing gives one :class:`Pose`."""

    p: np.ndarray
    R: np.ndarray
    nu: np.ndarray

    @classmethod
    def of(cls, poses: list[Pose] | Frames) -> Frames:
        """Frames of a list of poses (or the frames themselves)."""
        if isinstance(poses, Frames):
            return poses
        return cls(*(np.array([getattr(q, f) for q in poses]) for f in ("p", "R", "nu")))

    def __len__(self) -> int:
        return len(self.p)

    def __getitem__(self, k: int) -> Pose:
        return Pose(self.p[k], self.R[k], self.nu[k])

    def __setitem__(self, k: int, pose: Pose) -> None:
        self.p[k], self.R[k], self.nu[k] = pose.p, pose.R, pose.nu

    def with_world(self) -> Frames:
        """These frames and the world's (fixed, at rest) as the last entry, index -1."""
        return Frames(
            np.concatenate([self.p, WORLD.p[None]]),
            np.concatenate([self.R, WORLD.R[None]]),
            np.concatenate([self.nu, WORLD.nu[None]]),
        )

    def select(self, index: np.ndarray) -> Frames:
        """The frames of entries ``index``."""
        return Frames(self.p[index], self.R[index], self.nu[index])

    @property
    def v(self) -> np.ndarray:
        return self.nu[:, :3]

    @property
    def w(self) -> np.ndarray:
        return self.nu[:, 3:]


@dataclass(frozen=True)
class Rows:
    """Constraint rows of J joints of one kind: Phi_a nu_dot_a + Phi_b nu_dot_b = b, shapes
    (J, k, 6), (J, k, 6), (J, k); residual c (J, k). At velocity level Phi_a nu_a + Phi_b nu_b
    = velocity (J, k): zero (None) unless the joints are driven. For a single joint (from
    :meth:`Joint.rows`) the leading axis is absent."""

    phi_a: np.ndarray
    phi_b: np.ndarray
    b: np.ndarray
    c: np.ndarray
    velocity: np.ndarray | None = None


def point_rows(a: Frames, b: Frames, parameters: dict[str, np.ndarray]) -> Rows:
    """Coincidence of the points ``r_a`` (J, 3) of bodies A with ``r_b`` of bodies B (3 rows,
    NED); ``parameters`` holds them and their cross-product matrices ``skew_a``, ``skew_b``."""
    r_a, r_b = parameters["r_a"], parameters["r_b"]
    J = len(a)
    phi_a, phi_b = np.empty((J, 3, 6)), np.empty((J, 3, 6))
    phi_a[:, :, :3], phi_a[:, :, 3:] = a.R, -(a.R @ parameters["skew_a"])
    phi_b[:, :, :3], phi_b[:, :, 3:] = -b.R, b.R @ parameters["skew_b"]
    bias = -_apply(a.R, cross(a.w, a.v + cross(a.w, r_a))) + _apply(
        b.R, cross(b.w, b.v + cross(b.w, r_b))
    )
    c = a.p + _apply(a.R, r_a) - b.p - _apply(b.R, r_b)
    return Rows(phi_a, phi_b, bias, c)


def relative_rotation(a: Frames, b: Frames) -> np.ndarray:
    """R_a' R_b (J, 3, 3): B's attitude in A's frame."""
    return np.swapaxes(a.R, 1, 2) @ b.R


def angular_rows(
    a: Frames, b: Frames, directions: np.ndarray | None, c: np.ndarray, relative: np.ndarray
) -> Rows:
    """No relative angular velocity along ``directions`` (J, k, 3: unit vectors in A's frame;
    None: all three axes); ``relative`` is R_a' R_b."""
    J, k = (len(a), 3) if directions is None else directions.shape[:2]
    phi_a, phi_b = np.zeros((J, k, 6)), np.zeros((J, k, 6))
    bias = -cross(a.w, _apply(relative, b.w))
    if directions is None:
        phi_a[:, :, 3:] = np.eye(3)
        phi_b[:, :, 3:] = -relative
    else:
        phi_a[:, :, 3:] = directions
        phi_b[:, :, 3:] = -(directions @ relative)
        bias = _apply(directions, bias)
    return Rows(phi_a, phi_b, bias, c)


def rotation_vector(R: np.ndarray) -> np.ndarray:
    """Rotation vectors (axis times angle, rad) of rotation matrices (..., 3, 3)."""
    cosine = (R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2] - 1.0) / 2.0
    axis = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                     R[..., 1, 0] - R[..., 0, 1]], -1)  # fmt: skip
    small = cosine > 0.99  # angle below 8 deg: series of angle/sin(angle) in sin^2
    sine_sq = 1.0 - cosine * cosine
    series = 1.0 + sine_sq / 6.0 + 3.0 * sine_sq**2 / 40.0 + 5.0 * sine_sq**3 / 112.0
    vector = 0.5 * axis * series[..., None]
    if np.all(small):
        return vector
    general = Rotation.from_matrix(R.reshape(-1, 3, 3)).as_rotvec().reshape(axis.shape)
    return np.where(small[..., None], vector, general)


def stack_rows(*parts: Rows) -> Rows:
    """Rows of the same joints stacked along the row axis."""
    velocity = None
    if any(r.velocity is not None for r in parts):
        velocity = np.concatenate(
            [np.zeros_like(r.b) if r.velocity is None else r.velocity for r in parts], axis=1
        )
    return Rows(
        *(
            np.concatenate([getattr(r, f) for r in parts], axis=1)
            for f in ("phi_a", "phi_b", "b", "c")
        ),
        velocity,
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
    R_a' R_b at which the joint was made (for the world, R_a' itself). ``PARAMETERS`` names
    the attributes that :meth:`batch_rows` reads, stacked over the joints of one kind.
    """

    name: str
    a: str
    b: str | None
    r_a: np.ndarray
    r_b: np.ndarray
    relative: np.ndarray
    kind: str = field(default="joint", init=False)
    n_rows: int = field(default=0, init=False)

    PARAMETERS = ("r_a", "r_b", "relative")

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

    @classmethod
    def parameters(cls, joints: list[Joint]) -> dict[str, np.ndarray]:
        """The joints' ``PARAMETERS`` stacked along a leading axis (one entry per joint), and
        the cross-product matrices ``skew_a``, ``skew_b`` of the joint points."""
        stacked = {name: np.array([getattr(j, name) for j in joints]) for name in cls.PARAMETERS}
        stacked["skew_a"], stacked["skew_b"] = skew(stacked["r_a"]), skew(stacked["r_b"])
        return stacked

    @classmethod
    def batch_rows(
        cls, joints: list[Joint], parameters: dict[str, np.ndarray], a: Frames, b: Frames
    ) -> Rows:
        """Rows of ``joints`` (all of this kind) at the bodies' present states ``a``, ``b``."""
        raise NotImplementedError

    def rows(self, a: Pose, b: Pose) -> Rows:
        """Constraint rows of this joint at the bodies' present state."""
        batch = type(self).batch_rows(
            [self], type(self).parameters([self]), Frames.of([a]), Frames.of([b])
        )
        return Rows(*(None if f is None else f[0] for f in vars(batch).values()))

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

    @classmethod
    def batch_rows(
        cls, joints: list[Joint], parameters: dict[str, np.ndarray], a: Frames, b: Frames
    ) -> Rows:
        relative = relative_rotation(a, b)
        turned = relative @ np.swapaxes(parameters["relative"], 1, 2)
        return stack_rows(
            point_rows(a, b, parameters),
            angular_rows(a, b, None, -rotation_vector(turned), relative),
        )

    def _angle_error(self, a: Pose, b: Pose) -> float:
        return float(np.linalg.norm(rotation_vector(a.R.T @ b.R @ self.relative.T)))


@dataclass
class Spherical(Joint):
    """Ball joint: the two points coincide, rotation free (3 rows)."""

    kind: str = field(default="spherical", init=False)
    n_rows: int = field(default=3, init=False)

    @classmethod
    def batch_rows(
        cls, joints: list[Joint], parameters: dict[str, np.ndarray], a: Frames, b: Frames
    ) -> Rows:
        return point_rows(a, b, parameters)


@dataclass
class Revolute(Joint):
    """Hinge about ``axis`` (unit, A's frame): 3 point rows, 2 angular rows."""

    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    kind: str = field(default="revolute", init=False)
    n_rows: int = field(default=5, init=False)

    PARAMETERS = (*Joint.PARAMETERS, "axis", "perpendicular", "axis_b")

    def __post_init__(self) -> None:
        self.axis = _unit(self.axis, f"joint '{self.name}': axis")
        self.perpendicular = _perpendicular_pair(self.axis)
        self.axis_b = self.relative.T @ self.axis  # the hinge axis in B's frame

    @classmethod
    def batch_rows(
        cls, joints: list[Joint], parameters: dict[str, np.ndarray], a: Frames, b: Frames
    ) -> Rows:
        relative = relative_rotation(a, b)
        misalignment = cross(parameters["axis"], _apply(relative, parameters["axis_b"]))
        perpendicular = parameters["perpendicular"]
        c = -_apply(perpendicular, misalignment)
        return stack_rows(
            point_rows(a, b, parameters), angular_rows(a, b, perpendicular, c, relative)
        )

    def _angle_error(self, a: Pose, b: Pose) -> float:
        misalignment = np.cross(self.axis, a.R.T @ b.R @ self.axis_b)
        return float(np.arcsin(min(1.0, np.linalg.norm(misalignment))))

    @classmethod
    def batch_motion(
        cls, parameters: dict[str, np.ndarray], a: Frames, b: Frames
    ) -> tuple[np.ndarray, np.ndarray]:
        """Angles (rad, in (-pi, pi]) and rates (rad/s) of J revolute joints: B's rotation
        relative to its reference attitude (``relative``: the pose at creation) about the
        axis, and B's angular velocity relative to A along the axis."""
        relative = relative_rotation(a, b)
        turned = relative @ np.swapaxes(parameters["relative"], 1, 2)  # in A's frame
        # e1, e2 = axis x e1: perpendicular to the axis
        e1, e2 = parameters["perpendicular"][:, 0], parameters["perpendicular"][:, 1]
        along = _apply(turned, e1)
        angles = np.arctan2(np.einsum("ji,ji->j", e2, along), np.einsum("ji,ji->j", e1, along))
        rates = np.einsum("ji,ji->j", parameters["axis"], _apply(relative, b.w) - a.w)
        return angles, rates

    def angle(self, a: Pose, b: Pose) -> float:
        """Joint angle (rad, in (-pi, pi]), see :meth:`batch_motion`."""
        angles, _ = self.batch_motion(self.parameters([self]), Frames.of([a]), Frames.of([b]))
        return float(angles[0])


@dataclass
class Universal(Joint):
    """Two-axis (Hooke) joint: ``axis`` fixed in A, ``axis_b`` fixed in B, kept perpendicular."""

    axis: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    axis_b: np.ndarray = field(default_factory=lambda: np.array([0.0, 1.0, 0.0]))
    kind: str = field(default="universal", init=False)
    n_rows: int = field(default=4, init=False)

    PARAMETERS = (*Joint.PARAMETERS, "axis", "axis_b")

    def __post_init__(self) -> None:
        self.axis = _unit(self.axis, f"joint '{self.name}': axis")
        self.axis_b = _unit(self.axis_b, f"joint '{self.name}': axis_b")
        if abs(self.axis @ (self.relative @ self.axis_b)) > 1e-6:
            raise ValueError(
                f"joint '{self.name}': axis and axis_b must be perpendicular at creation"
            )

    @classmethod
    def batch_rows(
        cls, joints: list[Joint], parameters: dict[str, np.ndarray], a: Frames, b: Frames
    ) -> Rows:
        n1, n2 = _apply(a.R, parameters["axis"]), _apply(b.R, parameters["axis_b"])
        h = cross(n1, n2)
        w_a, w_b = _apply(a.R, a.w), _apply(b.R, b.w)
        h_dot = cross(cross(w_a, n1), n2) + cross(n1, cross(w_b, n2))
        J = len(a)
        phi_a, phi_b = np.zeros((J, 1, 6)), np.zeros((J, 1, 6))
        phi_a[:, 0, 3:] = np.einsum("ji,jik->jk", h, a.R)
        phi_b[:, 0, 3:] = -np.einsum("ji,jik->jk", h, b.R)
        bias = -np.einsum("ji,ji->j", h_dot, w_a - w_b)[:, None]
        angular = Rows(phi_a, phi_b, bias, np.einsum("ji,ji->j", n1, n2)[:, None])
        return stack_rows(point_rows(a, b, parameters), angular)

    def _angle_error(self, a: Pose, b: Pose) -> float:
        return float(abs(np.arcsin(np.clip((a.R @ self.axis) @ (b.R @ self.axis_b), -1, 1))))


JOINT_TYPES: dict[str, type[Joint]] = {
    "weld": Weld,
    "revolute": Revolute,
    "universal": Universal,
    "spherical": Spherical,
    "fixed": Weld,  # a weld to the world
}
