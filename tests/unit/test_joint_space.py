"""The sparse joint-space Udwadia-Kalaba solve against the dense SVD form (no FMUs).

Random chains, trees and closed loops of bodies with random masses and poses, joints of every
kind made at the bodies' present poses (so positions are on the constraint manifold) and
velocities projected onto it by a dense pseudo-inverse written here. There the kept rows span
the row space of all rows, so the banded solve must give the pseudo-inverse's accelerations
and, from them, its minimum-norm multipliers: agreement to 1e-10 relative (both are backward
stable; the random masses are well conditioned, so round-off stays near 1e-13).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy.linalg import null_space
from threadpoolctl import threadpool_limits

from orchestrator.coupling.assembly import Assembly
from orchestrator.coupling.joints import (
    WORLD,
    Frames,
    Joint,
    Revolute,
    Spherical,
    Universal,
    Weld,
)
from orchestrator.coupling.udwadia_kalaba import udwadia_kalaba
from orchestrator.kinematics import rotation_matrix


@pytest.fixture(autouse=True)
def one_blas_thread():
    """Small dense algebra, as in runs: BLAS on one thread."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


Joints = Callable[[list[str], Frames, np.random.Generator], list[Joint]]


def random_mass(rng: np.random.Generator) -> np.ndarray:
    A = rng.normal(size=(6, 6))
    return A @ A.T + 6 * np.eye(6)


def any_joint(name, a, pa, b, pb, rng) -> Joint:
    """A weld, revolute, universal or spherical joint at a random point of a."""
    at = rng.normal(size=3) * 0.3
    kind = rng.integers(4)
    if kind == 0:
        return Weld.at_current_pose(name, a, pa, b, pb, at)
    if kind == 1:
        axis = rng.normal(size=3)
        return Revolute.at_current_pose(name, a, pa, b, pb, at, axis=axis / np.linalg.norm(axis))
    if kind == 2:
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        other = np.cross(axis, rng.normal(size=3))
        axis_b = pb.R.T @ pa.R @ (other / np.linalg.norm(other))  # perpendicular, in b's frame
        return Universal.at_current_pose(name, a, pa, b, pb, at, axis=axis, axis_b=axis_b)
    return Spherical.at_current_pose(name, a, pa, b, pb, at)


def chain(n, p, rng):
    return [any_joint(f"j{k}", n[k], p[k], n[k + 1], p[k + 1], rng) for k in range(len(n) - 1)]


def tree(n, p, rng):
    """Every body hangs from an earlier one; the first is fixed to the world."""
    joints = [Weld.at_current_pose("ground", n[0], p[0], None, WORLD, np.zeros(3))]
    for k in range(1, len(n)):
        parent = int(rng.integers(k))
        joints.append(any_joint(f"j{k}", n[parent], p[parent], n[k], p[k], rng))
    return joints


def weld_ring(n, p, rng):
    return [
        Weld.at_current_pose(
            f"w{k}", n[k], p[k], n[(k + 1) % len(n)], p[(k + 1) % len(n)], np.full(3, 0.1)
        )
        for k in range(len(n))
    ]


def weld_grid(n, p, rng):
    """3 x 3 bodies, welded to their right and lower neighbours: four closed loops."""
    joints = []
    for k in range(9):
        for other in (k + 1, k + 3):
            if (other == k + 1 and k % 3 == 2) or other >= 9:
                continue
            joints.append(
                Weld.at_current_pose(f"w{k}_{other}", n[k], p[k], n[other], p[other], np.zeros(3))
            )
    return joints


def hinge_loop(n, p, rng):
    """Revolute joints with parallel axes (world z) closing a loop: a spatial loop of
    planar hinges, where only some rows of the closing joint are redundant."""
    return [
        Revolute.at_current_pose(
            f"r{k}",
            n[k],
            p[k],
            n[(k + 1) % len(n)],
            p[(k + 1) % len(n)],
            rng.normal(size=3) * 0.2,
            axis=p[k].R.T @ np.array([0.0, 0.0, 1.0]),
        )
        for k in range(len(n))
    ]


def build(n_bodies: int, joints_of: Joints, seed: int) -> tuple[Assembly, Frames, np.ndarray]:
    """Assembly, poses on the manifold, random unconstrained accelerations."""
    rng = np.random.default_rng(seed)
    names = [f"B{k}" for k in range(n_bodies)]
    q = rng.normal(size=(n_bodies, 4))
    P = rng.normal(size=(n_bodies, 3))
    if joints_of is hinge_loop:  # planar bodies: the hinge axes must be parallel
        q[:, 1:3] = 0.0
        P[:, 2] = 0.0
    assembly = Assembly(names, [random_mass(rng) for _ in range(n_bodies)])
    R = rotation_matrix(q / np.linalg.norm(q, axis=1, keepdims=True))
    frames = Frames(P, R, np.zeros((n_bodies, 6)))
    for joint in joints_of(names, frames, rng):
        assembly.add(joint, frames)
    # Velocities on the velocity manifold, by a dense projection in the mass metric.
    s = assembly.stack(frames)
    nu = rng.normal(size=6 * n_bodies)
    basis = null_space(s.phi)
    M = assembly.M
    nu = basis @ np.linalg.solve(basis.T @ M @ basis, basis.T @ M @ nu)
    return assembly, Frames(frames.p, frames.R, nu.reshape(-1, 6)), rng.normal(size=6 * n_bodies)


CASES = [
    *[("chain", n, chain, seed) for n, seed in ((2, 0), (7, 1), (16, 2))],
    *[("tree", n, tree, seed) for n, seed in ((5, 3), (12, 4), (20, 5))],
    ("weld ring", 6, weld_ring, 6),
    ("weld grid", 9, weld_grid, 7),
    ("hinge loop", 5, hinge_loop, 8),
]


@pytest.mark.parametrize(("shape", "n_bodies", "joints_of", "seed"), CASES)
def test_sparse_solve_equals_dense_svd(shape, n_bodies, joints_of, seed):
    """Accelerations, multipliers and rank equal the dense pseudo-inverse's (1e-10 rel.)."""
    assembly, frames, a_u = build(n_bodies, joints_of, seed)
    s = assembly.stack(frames)
    a_ref, lam_ref = udwadia_kalaba(a_u, s.phi, s.b, assembly.M_inv_sqrt, assembly.rank)
    a_c, lam, _ = assembly.accelerations(frames, a_u)
    singular = np.linalg.svd(s.phi @ assembly.M_inv_sqrt, compute_uv=False)
    assert assembly.rank == int(np.sum(singular > 1e-8 * singular[0])), shape
    if shape.startswith(("chain", "tree")):
        assert assembly.full_rank
    else:
        assert not assembly.full_rank
    change = np.linalg.norm(a_ref - a_u)
    assert change > 1e-3 * np.linalg.norm(a_u)  # the constraints do act
    np.testing.assert_allclose(a_c, a_ref, rtol=0, atol=1e-10 * change, err_msg=shape)
    np.testing.assert_allclose(lam, lam_ref, rtol=0, atol=1e-10 * np.linalg.norm(lam_ref))


@pytest.mark.parametrize(("shape", "n_bodies", "joints_of", "seed"), CASES)
def test_velocity_projection_equals_dense(shape, n_bodies, joints_of, seed):
    """Projecting velocities off the manifold gives the dense mass-metric projection."""
    assembly, frames, _ = build(n_bodies, joints_of, seed)
    rng = np.random.default_rng(seed + 100)
    moved = Frames(frames.p, frames.R, rng.normal(size=(n_bodies, 6)))
    s = assembly.stack(moved)
    basis = null_space(s.phi)
    M = assembly.M
    nu = moved.nu.ravel()
    expected = basis @ np.linalg.solve(basis.T @ M @ basis, basis.T @ M @ nu)
    got = assembly.project_velocities(moved).ravel()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10 * np.linalg.norm(nu))


@pytest.mark.parametrize("n_bodies", [4, 16, 64])
def test_chain_band_does_not_grow(n_bodies):
    """A chain of welds listed in scrambled order: in reverse Cuthill-McKee order G's band is
    two joints' rows (11) at any length, so the banded Cholesky costs O(N)."""
    rng = np.random.default_rng(n_bodies)
    names = [f"B{k}" for k in range(n_bodies)]
    assembly = Assembly(names, [random_mass(rng) for _ in names])
    R = np.tile(np.eye(3), (n_bodies, 1, 1))
    frames = Frames(rng.normal(size=(n_bodies, 3)), R, np.zeros((n_bodies, 6)))
    for k in rng.permutation(n_bodies - 1):
        weld = Weld.at_current_pose(
            f"w{k}", names[k], frames[k], names[k + 1], frames[k + 1], np.zeros(3)
        )
        assembly.add(weld, frames)
    assert assembly.full_rank
    assert assembly.joint_space().band == 11
