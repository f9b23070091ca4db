"""A set of rigid bodies and the joints between them: stacked constraints and their use.

Pure NumPy/SciPy: bodies are given by their constant generalized masses (kept as 6x6 blocks);
states as arrays P (N, 3) NED positions, Q (N, 4) scalar-first quaternions, NU (N, 6)
body-frame velocities. The rows of all joints of one kind are built at once
(``Joint.batch_rows``), kind after kind; the Udwadia-Kalaba solve and the projections run in
joint space on the sparse, banded G = Phi M^-1 Phi' of the independent rows
(``joint_space.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import block_diag, csr_matrix

from orchestrator.coupling.joint_space import (
    JointSpace,
    independent_rows,
    smallest_multipliers,
    spanning_forest,
)
from orchestrator.coupling.joints import WORLD, Frames, Joint, Pose
from orchestrator.coupling.udwadia_kalaba import (
    block_diagonal,
    inverse_square_root,
    udwadia_kalaba,
)
from orchestrator.kinematics import rotate_quaternion, rotation_matrix

SOLVERS = ("auto", "svd", "cholesky")
# The position projection's Newton iteration: largest residual (m, rad) and step count.
PROJECTION_TOLERANCE = 1e-13
PROJECTION_ITERATIONS = 8


@dataclass
class Stacked:
    """All joints' rows (m of them): each row's coefficients on its bodies a and b
    (``phi_a``, ``phi_b``, (m, 6)) and those bodies (``body_a``, ``body_b``; -1 the world),
    b (m), residual c (m), each joint's row slice, and the velocity the rows prescribe
    (Phi nu = velocity; nonzero only for driven joints)."""

    phi_a: np.ndarray
    phi_b: np.ndarray
    body_a: np.ndarray
    body_b: np.ndarray
    b: np.ndarray
    c: np.ndarray
    slices: dict[str, slice]
    velocity: np.ndarray
    n_bodies: int

    @property
    def phi(self) -> np.ndarray:
        """Phi as a dense (m, 6N) matrix."""
        m, n = len(self.b), 6 * self.n_bodies
        phi = np.zeros((m, n + 6))  # six more columns for the world, dropped
        rows, columns = np.arange(m)[:, None], np.arange(6)
        phi[rows, (6 * self.body_a[:, None]) % (n + 6) + columns] += self.phi_a
        phi[rows, (6 * self.body_b[:, None]) % (n + 6) + columns] += self.phi_b
        return phi[:, :n]

    def sparse(self) -> csr_matrix:
        """Phi as a sparse (m, 6N) matrix."""
        m, n = len(self.b), 6 * self.n_bodies
        rows = np.repeat(np.arange(m), 12)
        columns = np.concatenate(
            [6 * self.body_a[:, None] + np.arange(6), 6 * self.body_b[:, None] + np.arange(6)], 1
        ).ravel()
        values = np.concatenate([self.phi_a, self.phi_b], 1).ravel()
        on_body = columns >= 0
        return csr_matrix((values[on_body], (rows[on_body], columns[on_body])), shape=(m, n))

    def entries(self, keep: np.ndarray) -> np.ndarray:
        """Coefficients of rows ``keep`` on their body a, then on their body b (2k, 6)."""
        return np.concatenate([self.phi_a[keep], self.phi_b[keep]])

    def times(self, nu: np.ndarray) -> np.ndarray:
        """Phi nu (m) for body velocities ``nu`` (N, 6)."""
        extended = np.concatenate([nu, np.zeros((1, 6))])
        return (self.phi_a * extended[self.body_a] + self.phi_b * extended[self.body_b]).sum(1)


@dataclass
class _Kind:
    """The joints of one kind with their stacked parameters and bodies."""

    joints: list[Joint]
    parameters: dict[str, np.ndarray]
    body_a: np.ndarray
    body_b: np.ndarray


@dataclass
class _Layout:
    """What the joints fix: their kinds, each row's bodies, each joint's rows."""

    kinds: list[_Kind]
    body_a: np.ndarray
    body_b: np.ndarray
    slices: dict[str, slice]
    counts: list[int]


class Assembly:
    """Bodies (by name) with their generalized masses, and the joints between them."""

    def __init__(self, bodies: list[str], masses: list[np.ndarray], solver: str = "auto") -> None:
        if solver not in SOLVERS:
            raise ValueError(f"unknown constraint solver '{solver}', expected one of {SOLVERS}")
        self.bodies = list(bodies)
        self.index = {name: k for k, name in enumerate(bodies)}
        self.M = block_diagonal(masses)
        self.inverse_blocks = np.linalg.inv(np.array(masses, dtype=float).reshape(-1, 6, 6))
        self.M_inv = block_diagonal(list(self.inverse_blocks))
        self.M_inv_sqrt = block_diagonal([inverse_square_root(m) for m in masses])
        self.solver = solver
        self.joints: list[Joint] = []
        self._layout: _Layout | None = None
        self._space: JointSpace | None = None
        self._poses_at_change = Frames(np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 6)))

    # -- topology ---------------------------------------------------------------------------

    def check(self, joint: Joint) -> None:
        """Raise ValueError if ``joint`` names unknown bodies, itself, or a used name."""
        for body in (joint.a, joint.b):
            if body is not None and body not in self.index:
                known = ", ".join(self.bodies)
                raise ValueError(f"joint '{joint.name}': unknown body '{body}' (bodies: {known})")
        if joint.a == joint.b:
            raise ValueError(f"joint '{joint.name}' connects body '{joint.a}' to itself")
        if any(j.name == joint.name for j in self.joints):
            raise ValueError(f"joint name '{joint.name}' is used twice")

    def add(self, joint: Joint, poses: list[Pose] | Frames) -> None:
        """Add a joint; the independent rows are found again (at these poses) when needed."""
        self.check(joint)
        self.joints.append(joint)
        self._changed(poses)

    def remove(self, name: str, poses: list[Pose] | Frames) -> Joint:
        """Remove the joint called ``name`` and return it."""
        joint = next((j for j in self.joints if j.name == name), None)
        if joint is None:
            raise ValueError(f"no joint called '{name}'")
        self.joints.remove(joint)
        self._changed(poses)
        return joint

    def _changed(self, poses: list[Pose] | Frames) -> None:
        frames = Frames.of(poses)
        self._poses_at_change = Frames(frames.p.copy(), frames.R.copy(), frames.nu.copy())
        self._layout, self._space = None, None

    def _body(self, name: str | None) -> int:
        return -1 if name is None else self.index[name]

    def _structure(self) -> _Layout:
        """Joint kinds, row bodies and slices of the present joints (once per change). Rows
        are ordered kind by kind, each kind's joints in the order they were added."""
        if self._layout is not None:
            return self._layout
        by_kind: dict[type[Joint], list[Joint]] = {}
        for joint in self.joints:
            by_kind.setdefault(type(joint), []).append(joint)
        ordered = [j for joints in by_kind.values() for j in joints]
        counts = [j.n_rows for j in ordered]
        starts = np.cumsum([0, *counts])
        kinds = [
            _Kind(
                joints,
                cls.parameters(joints),
                np.array([self._body(j.a) for j in joints], dtype=int),
                np.array([self._body(j.b) for j in joints], dtype=int),
            )
            for cls, joints in by_kind.items()
        ]
        self._layout = _Layout(
            kinds,
            np.repeat([self._body(j.a) for j in ordered], counts).astype(int),
            np.repeat([self._body(j.b) for j in ordered], counts).astype(int),
            {j.name: slice(starts[k], starts[k + 1]) for k, j in enumerate(ordered)},
            counts,
        )
        return self._layout

    def joint_space(self) -> JointSpace:
        """The independent rows and their banded G, found from the dense G at the poses of
        the last topology change (once per change)."""
        if self._space is not None:
            return self._space
        layout = self._structure()
        phi = self.stack(self._poses_at_change).sparse()
        G = (phi @ block_diag(self.inverse_blocks, format="csr") @ phi.T).toarray()
        if self.solver == "cholesky":
            keep = np.arange(len(G))
        else:
            ends = np.cumsum(layout.counts) - 1
            forest = spanning_forest(layout.body_a[ends], layout.body_b[ends], len(self.bodies))
            keep = independent_rows(G, np.repeat(forest, layout.counts))
        self._space = JointSpace(layout.body_a, layout.body_b, keep, len(self.bodies))
        return self._space

    def kept_rows(self) -> dict[str, np.ndarray]:
        """Each joint's rows (positions among its own, from 0) that the solve keeps: all of
        them but the redundant rows of closed loops."""
        if not self.joints:
            return {}
        layout = self._structure()
        kept = np.zeros(sum(layout.counts), dtype=bool)
        kept[self.joint_space().keep] = True
        return {name: np.flatnonzero(kept[part]) for name, part in layout.slices.items()}

    @property
    def rank(self) -> int:
        """Number of independent constraint rows."""
        return len(self.joint_space().keep) if self.joints else 0

    @property
    def full_rank(self) -> bool:
        """Whether all constraint rows are independent."""
        return self.rank == sum(j.n_rows for j in self.joints)

    def groups(self, kinds: tuple[str, ...] | None = None) -> list[list[str]]:
        """Bodies joined (directly or through others) into one assembly each.

        ``kinds`` restricts the joints considered, e.g. ("weld",) for rigid groups.
        """
        parent = {b: b for b in self.bodies}

        def root(b: str) -> str:
            while parent[b] != b:
                b = parent[b]
            return b

        for j in self.joints:
            if j.b is not None and (kinds is None or j.kind in kinds):
                parent[root(j.a)] = root(j.b)
        found: dict[str, list[str]] = {}
        for b in self.bodies:
            found.setdefault(root(b), []).append(b)
        return list(found.values())

    # -- evaluation -------------------------------------------------------------------------

    def poses(self, P: np.ndarray, Q: np.ndarray, NU: np.ndarray) -> Frames:
        """Frames of all bodies from state arrays."""
        return Frames(np.asarray(P, dtype=float), rotation_matrix(Q), np.asarray(NU, dtype=float))

    def stack(self, poses: list[Pose] | Frames) -> Stacked:
        """Every joint's rows, built kind by kind, as one system over all bodies."""
        layout = self._structure()
        frames = Frames.of(poses).with_world()
        parts = [
            type(kind.joints[0]).batch_rows(
                kind.joints, kind.parameters, frames.select(kind.body_a), frames.select(kind.body_b)
            )
            for kind in layout.kinds
        ]

        def joined(name: str, width: tuple[int, ...] = ()) -> np.ndarray:
            if not parts:
                return np.zeros((0, *width))
            if name == "velocity" and all(p.velocity is None for p in parts):
                return np.zeros(len(layout.body_a))
            arrays = [
                np.zeros_like(p.b) if getattr(p, name) is None else getattr(p, name) for p in parts
            ]
            if len(arrays) == 1:
                return arrays[0].reshape(-1, *width)
            return np.concatenate([x.reshape(-1, *width) for x in arrays])

        phi_a, phi_b = joined("phi_a", (6,)), joined("phi_b", (6,))
        b, c, velocity = joined("b"), joined("c"), joined("velocity")
        phi_b[layout.body_b < 0] = 0.0
        return Stacked(
            phi_a, phi_b, layout.body_a, layout.body_b, b, c, layout.slices, velocity,
            len(self.bodies),
        )  # fmt: skip

    def _correction(self, s: Stacked, residual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """M^-1 Phi' lam (N, 6) and lam (kept rows) with G lam = residual on the kept rows:
        the smallest change in the mass metric that moves Phi x by ``residual``."""
        space = self.joint_space()
        entries = s.entries(space.keep)
        table, weighted = space.weighted(entries, self.inverse_blocks)
        lam = space.solve(space.matrix(table, weighted), residual[space.keep])
        return space.body_forces(weighted, lam), lam

    def constrained(
        self,
        poses: list[Pose] | Frames,
        a_u: np.ndarray,
        baumgarte: tuple[float, float] = (0.0, 0.0),
    ) -> tuple[np.ndarray, np.ndarray, Stacked]:
        """Constrained accelerations (6N), multipliers of the rows the solve used (all rows,
        zero on redundant ones) and the stacked rows.

        ``baumgarte`` = (alpha, beta) adds -alpha c_dot - beta c to b (c_dot = Phi nu minus
        the prescribed velocity). ``solver`` "svd" takes the dense pseudo-inverse of
        Phi M^(-1/2), truncated at the rank; otherwise the banded joint-space solve.
        """
        frames = Frames.of(poses)
        s = self.stack(frames)
        if not self.joints:
            return a_u, np.zeros(0), s
        b = s.b
        alpha, beta = baumgarte
        if alpha or beta:
            b = b - alpha * (s.times(frames.nu) - s.velocity) - beta * s.c
        if self.solver == "svd":
            return (*udwadia_kalaba(a_u, s.phi, b, self.M_inv_sqrt, self.rank), s)
        residual = b - s.times(a_u.reshape(-1, 6))
        change, kept = self._correction(s, residual)
        lam = np.zeros(len(b))
        lam[self.joint_space().keep] = kept
        return a_u + change.ravel(), lam, s

    def accelerations(
        self,
        poses: list[Pose] | Frames,
        a_u: np.ndarray,
        baumgarte: tuple[float, float] = (0.0, 0.0),
    ) -> tuple[np.ndarray, np.ndarray, Stacked]:
        """Constrained accelerations (6N), the minimum-norm multipliers and the stacked rows.

        With redundant rows the kept rows' multipliers are one of many that give the same
        generalized forces; the multipliers returned are the smallest (as the pseudo-inverse
        gives them), found from those forces (``joint_space.smallest_multipliers``).
        """
        a_c, lam, s = self.constrained(poses, a_u, baumgarte)
        if self.full_rank or self.solver == "svd":
            return a_c, lam, s
        phi = s.sparse()
        return a_c, smallest_multipliers(phi, phi.T @ lam), s

    def joint_forces(
        self, stacked: Stacked, lam: np.ndarray
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Generalized constraint force of each joint on body a and on body b (body frames)."""
        forces = {}
        for joint in self.joints:
            part = stacked.slices[joint.name]
            on_a = stacked.phi_a[part].T @ lam[part]
            on_b = np.zeros(6) if joint.b is None else stacked.phi_b[part].T @ lam[part]
            forces[joint.name] = (on_a, on_b)
        return forces

    def violations(self, poses: list[Pose] | Frames) -> dict[str, tuple[float, float]]:
        """Position (m) and angle (rad) error of every joint."""
        return {
            j.name: j.violation(
                poses[self.index[j.a]], WORLD if j.b is None else poses[self.index[j.b]]
            )
            for j in self.joints
        }

    # -- projections ------------------------------------------------------------------------

    def project_velocities(self, poses: list[Pose] | Frames) -> np.ndarray:
        """Velocities (N, 6) projected onto Phi nu = velocity (the prescribed one of driven
        joints, else 0) in the mass metric. As a plastic impact this conserves the momentum
        that the constraint forces cannot change and never adds kinetic energy."""
        frames = Frames.of(poses)
        if not self.joints:
            return frames.nu.copy()
        s = self.stack(frames)
        change, _ = self._correction(s, s.velocity - s.times(frames.nu))
        return frames.nu + change

    def project_positions(
        self,
        P: np.ndarray,
        Q: np.ndarray,
        tolerance: float = PROJECTION_TOLERANCE,
        iterations: int = PROJECTION_ITERATIONS,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Positions and attitudes moved (least mass-weighted) onto the constraint manifold."""
        P, Q = P.copy(), Q / np.linalg.norm(Q, axis=1, keepdims=True)
        zero = np.zeros((len(self.bodies), 6))
        for _ in range(iterations):
            poses = self.poses(P, Q, zero)
            s = self.stack(poses)
            if not self.joints or np.max(np.abs(s.c)) < tolerance:
                break
            step, _ = self._correction(s, -s.c)
            P = P + np.einsum("nij,nj->ni", poses.R, step[:, :3])
            turns = zip(Q, step[:, 3:], strict=True)
            Q = np.array([rotate_quaternion(q, turn) for q, turn in turns])
        return P, Q

    def impact(self, poses: list[Pose] | Frames) -> np.ndarray:
        """Velocities (N, 6) after a plastic impact that makes the joints' velocity rows zero."""
        return self.project_velocities(poses)
