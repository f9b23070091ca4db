"""A set of rigid bodies and the joints between them: stacked constraints and their use.

Pure NumPy: bodies are given by their constant generalized masses; states as arrays P (N, 3)
NED positions, Q (N, 4) scalar-first quaternions, NU (N, 6) body-frame velocities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from orchestrator.coupling.joints import WORLD, Joint, Pose
from orchestrator.coupling.udwadia_kalaba import (
    block_diagonal,
    inverse_square_root,
    project_onto_nullspace,
    udwadia_kalaba,
    udwadia_kalaba_cholesky,
)
from orchestrator.kinematics import rotate_quaternion, rotation_matrix

SOLVERS = ("auto", "svd", "cholesky")


@dataclass
class Stacked:
    """All joints' rows: Phi (m, 6N), b (m), residual c (m), each joint's row slice, and the
    velocity the rows prescribe (Phi nu = velocity; nonzero only for driven joints)."""

    phi: np.ndarray
    b: np.ndarray
    c: np.ndarray
    slices: dict[str, slice]
    velocity: np.ndarray


class Assembly:
    """Bodies (by name) with their generalized masses, and the joints between them."""

    def __init__(self, bodies: list[str], masses: list[np.ndarray], solver: str = "auto") -> None:
        if solver not in SOLVERS:
            raise ValueError(f"unknown constraint solver '{solver}', expected one of {SOLVERS}")
        self.bodies = list(bodies)
        self.index = {name: k for k, name in enumerate(bodies)}
        self.M = block_diagonal(masses)
        self.M_inv = np.linalg.inv(self.M)
        self.M_inv_sqrt = block_diagonal([inverse_square_root(m) for m in masses])
        self.solver = solver
        self.joints: list[Joint] = []
        self.full_rank = True
        self.rank = 0

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

    def add(self, joint: Joint, poses: list[Pose]) -> None:
        """Add a joint; the solver path is re-chosen from the new constraint rank."""
        self.check(joint)
        self.joints.append(joint)
        self._rank(poses)

    def remove(self, name: str, poses: list[Pose]) -> Joint:
        """Remove the joint called ``name`` and return it."""
        joint = next((j for j in self.joints if j.name == name), None)
        if joint is None:
            raise ValueError(f"no joint called '{name}'")
        self.joints.remove(joint)
        self._rank(poses)
        return joint

    def _rank(self, poses: list[Pose]) -> None:
        if not self.joints:
            self.full_rank, self.rank = True, 0
            return
        phi = self.stack(poses).phi
        singular = np.linalg.svd(phi @ self.M_inv_sqrt, compute_uv=False)
        self.rank = int(np.sum(singular > 1e-8 * singular[0]))
        self.full_rank = self.rank == len(phi)

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

    def poses(self, P: np.ndarray, Q: np.ndarray, NU: np.ndarray) -> list[Pose]:
        """Pose objects of all bodies from state arrays."""
        R = rotation_matrix(Q)
        return [Pose(P[k], R[k], NU[k]) for k in range(len(self.bodies))]

    def stack(self, poses: list[Pose]) -> Stacked:
        """Stack every joint's rows into one system over all bodies' accelerations."""
        n = 6 * len(self.bodies)
        m = sum(j.n_rows for j in self.joints)
        phi, b, c, velocity = np.zeros((m, n)), np.zeros(m), np.zeros(m), np.zeros(m)
        slices: dict[str, slice] = {}
        row = 0
        for joint in self.joints:
            ia = self.index[joint.a]
            pose_b = WORLD if joint.b is None else poses[self.index[joint.b]]
            rows = joint.rows(poses[ia], pose_b)
            part = slice(row, row + joint.n_rows)
            phi[part, 6 * ia : 6 * ia + 6] = rows.phi_a
            if joint.b is not None:
                ib = self.index[joint.b]
                phi[part, 6 * ib : 6 * ib + 6] += rows.phi_b
            b[part], c[part] = rows.b, rows.c
            if rows.velocity is not None:
                velocity[part] = rows.velocity
            slices[joint.name] = part
            row += joint.n_rows
        return Stacked(phi, b, c, slices, velocity)

    def accelerations(
        self, poses: list[Pose], a_u: np.ndarray, baumgarte: tuple[float, float] = (0.0, 0.0)
    ) -> tuple[np.ndarray, np.ndarray, Stacked]:
        """Constrained accelerations (6N), multipliers and the stacked rows.

        ``baumgarte`` = (alpha, beta) adds -alpha c_dot - beta c to b (c_dot = Phi nu minus
        the prescribed velocity).
        """
        s = self.stack(poses)
        if not self.joints:
            return a_u, np.zeros(0), s
        b = s.b
        alpha, beta = baumgarte
        if alpha or beta:
            nu = np.concatenate([p.nu for p in poses])
            b = b - alpha * (s.phi @ nu - s.velocity) - beta * s.c
        use_cholesky = self.solver == "cholesky" or (self.solver == "auto" and self.full_rank)
        if use_cholesky:
            a_c, lam = udwadia_kalaba_cholesky(a_u, s.phi, b, self.M_inv)
        else:
            a_c, lam = udwadia_kalaba(a_u, s.phi, b, self.M_inv_sqrt, self.rank)
        return a_c, lam, s

    def joint_forces(
        self, stacked: Stacked, lam: np.ndarray
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Generalized constraint force of each joint on body a and on body b (body frames)."""
        forces = {}
        for joint in self.joints:
            part = stacked.slices[joint.name]
            generalized = stacked.phi[part].T @ lam[part]
            ia = self.index[joint.a]
            on_b = np.zeros(6) if joint.b is None else generalized[6 * self.index[joint.b] :][:6]
            forces[joint.name] = (generalized[6 * ia : 6 * ia + 6], on_b)
        return forces

    def violations(self, poses: list[Pose]) -> dict[str, tuple[float, float]]:
        """Position (m) and angle (rad) error of every joint."""
        return {
            j.name: j.violation(
                poses[self.index[j.a]], WORLD if j.b is None else poses[self.index[j.b]]
            )
            for j in self.joints
        }

    # -- projections ------------------------------------------------------------------------

    def project_velocities(self, poses: list[Pose]) -> np.ndarray:
        """Velocities (N, 6) projected onto Phi nu = velocity (the prescribed one of driven
        joints, else 0) in the mass metric."""
        nu = np.concatenate([p.nu for p in poses])
        if not self.joints:
            return nu.reshape(-1, 6)
        s = self.stack(poses)
        return project_onto_nullspace(nu, s.phi, self.M_inv, s.velocity).reshape(-1, 6)

    def project_positions(
        self, P: np.ndarray, Q: np.ndarray, tolerance: float = 1e-13, iterations: int = 8
    ) -> tuple[np.ndarray, np.ndarray]:
        """Positions and attitudes moved (least mass-weighted) onto the constraint manifold."""
        P, Q = P.copy(), Q / np.linalg.norm(Q, axis=1, keepdims=True)
        zero = np.zeros((len(self.bodies), 6))
        for _ in range(iterations):
            poses = self.poses(P, Q, zero)
            s = self.stack(poses)
            if not self.joints or np.max(np.abs(s.c)) < tolerance:
                break
            step = project_onto_nullspace(np.zeros(len(self.M)), s.phi, self.M_inv, -s.c).reshape(
                -1, 6
            )
            for k, pose in enumerate(poses):
                P[k] = P[k] + pose.R @ step[k, :3]
                Q[k] = rotate_quaternion(Q[k], step[k, 3:])
        return P, Q

    def impact(self, poses: list[Pose]) -> np.ndarray:
        """Velocities (N, 6) after a plastic impact that makes the joints' velocity rows zero."""
        return self.project_velocities(poses)
