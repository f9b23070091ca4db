"""Joint rows and the Udwadia-Kalaba solve, as pure NumPy (no FMUs)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from orchestrator.coupling.assembly import Assembly
from orchestrator.coupling.joints import WORLD, Pose, Revolute, Spherical, Universal, Weld
from orchestrator.coupling.udwadia_kalaba import udwadia_kalaba
from orchestrator.kinematics import rotate_quaternion, rotation_matrix


def random_pose(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q = rng.normal(size=4)
    return rng.normal(size=3), q / np.linalg.norm(q), rng.normal(size=6)


def random_mass(rng: np.random.Generator) -> np.ndarray:
    A = rng.normal(size=(6, 6))
    return A @ A.T + 6 * np.eye(6)


def advance(p, q, nu, h):
    """Exact motion over h at constant body-frame velocity nu (screw motion)."""
    R = rotation_matrix(q)
    w = nu[3:]
    # Integrate p_dot = R(t) v with R(t) = R exp(S(w) t) by fine sub-steps (Simpson).
    n = 64
    ts = np.linspace(0, h, n + 1)
    Rs = [R @ Rotation.from_rotvec(w * t).as_matrix() for t in ts]
    weights = np.ones(n + 1)
    weights[1:-1:2], weights[2:-1:2] = 4, 2
    dp = sum(wk * Rk @ nu[:3] for wk, Rk in zip(weights, Rs, strict=True)) * h / (3 * n)
    return p + dp, rotate_quaternion(q, w * h)


def joint_cases(rng):
    pa, qa, nua = random_pose(rng)
    pb, qb, nub = random_pose(rng)
    a = Pose(pa, rotation_matrix(qa), nua)
    b = Pose(pb, rotation_matrix(qb), nub)
    at = rng.normal(size=3)
    axis = np.array([0.0, 0.6, 0.8])
    axis_b = b.R.T @ a.R @ np.array([0.0, 1.0, 0.0])  # A's y axis, fixed in B: perpendicular
    u = Universal.at_current_pose(
        "u", "A", a, "B", b, at, axis=np.array([1.0, 0, 0]), axis_b=axis_b
    )
    return (
        [
            Weld.at_current_pose("w", "A", a, "B", b, at),
            Spherical.at_current_pose("s", "A", a, "B", b, at),
            Revolute.at_current_pose("r", "A", a, "B", b, at, axis=axis),
            u,
            Weld.at_current_pose("f", "A", a, None, WORLD, at),
        ],
        (pa, qa, nua),
        (pb, qb, nub),
    )


def _rows_along(joint, a0, b0, nua, nub):
    """Rows of ``joint`` as a function of time along constant-velocity motion from a0, b0."""

    def rows(t):
        ja = advance(*a0, nua, t)
        jb = advance(*b0, nub, t)
        a = Pose(ja[0], rotation_matrix(ja[1]), nua)
        b = WORLD if joint.b is None else Pose(jb[0], rotation_matrix(jb[1]), nub)
        return joint.rows(a, b)

    return rows


@pytest.mark.parametrize("case", range(5))
def test_bias_is_the_exact_derivative_of_the_velocity_rows(case):
    """b = -d(Phi)/dt nu at constant nu, anywhere (bodies moved 0.3 s off the joint's pose).

    Central differences with h = 1e-4 s: O(h^2) ~ 1e-8; tolerance 1e-6.
    """
    rng = np.random.default_rng(case)
    joints, (pa, qa, nua), (pb, qb, nub) = joint_cases(rng)
    for joint in joints:
        nu_b = np.zeros(6) if joint.b is None else nub
        rows = _rows_along(joint, advance(pa, qa, nua, 0.3), advance(pb, qb, nub, 0.3), nua, nu_b)
        h = 1e-4
        now, ahead, behind = rows(0.0), rows(h), rows(-h)
        phi_dot_nu = ((ahead.phi_a - behind.phi_a) @ nua + (ahead.phi_b - behind.phi_b) @ nu_b) / (
            2 * h
        )
        np.testing.assert_allclose(-phi_dot_nu, now.b, atol=1e-6, err_msg=joint.kind)
        # Point rows (the first three) and the universal joint's row are exact residuals.
        exact = slice(None) if joint.kind in ("spherical", "universal") else slice(0, 3)
        c_dot = now.phi_a @ nua + now.phi_b @ nu_b
        np.testing.assert_allclose(((ahead.c - behind.c) / (2 * h))[exact], c_dot[exact], atol=1e-6)


@pytest.mark.parametrize("case", range(5))
def test_velocity_rows_are_the_residual_derivative_on_the_manifold(case):
    """At the joint's own pose (c = 0) every row satisfies dc/dt = Phi nu (tolerance 1e-6)."""
    rng = np.random.default_rng(case)
    joints, (pa, qa, nua), (pb, qb, nub) = joint_cases(rng)
    for joint in joints:
        nu_b = np.zeros(6) if joint.b is None else nub
        rows = _rows_along(joint, (pa, qa), (pb, qb), nua, nu_b)
        h = 1e-5
        now, ahead, behind = rows(0.0), rows(h), rows(-h)
        assert np.max(np.abs(now.c)) < 1e-12, joint.kind
        c_dot = now.phi_a @ nua + now.phi_b @ nu_b
        np.testing.assert_allclose(
            (ahead.c - behind.c) / (2 * h), c_dot, atol=1e-6, err_msg=joint.kind
        )


def assembly_of(n, rng, joints_of):
    names = [f"B{k}" for k in range(n)]
    states = [random_pose(rng) for _ in range(n)]
    assembly = Assembly(names, [random_mass(rng) for _ in range(n)])
    poses = assembly.poses(*(np.array([s[i] for s in states]) for i in range(3)))
    for joint in joints_of(names, poses):
        assembly.add(joint, poses)
    return assembly, poses


def test_uk_satisfies_constraints_and_gauss_principle():
    """a_c satisfies Phi a = b and minimizes (a - a_u)'M(a - a_u) (checked by the KKT system)."""
    rng = np.random.default_rng(1)
    assembly, poses = assembly_of(
        3,
        rng,
        lambda n, p: [
            Weld.at_current_pose("w", n[0], p[0], n[1], p[1], np.ones(3)),
            Revolute.at_current_pose(
                "r", n[1], p[1], n[2], p[2], np.zeros(3), axis=np.array([1.0, 0, 0])
            ),
        ],
    )
    s = assembly.stack(poses)
    a_u = rng.normal(size=18)
    a_svd, lam_svd = udwadia_kalaba(a_u, s.phi, s.b, assembly.M_inv_sqrt)
    a_chol, lam_chol, _ = assembly.accelerations(poses, a_u)  # banded joint-space Cholesky
    np.testing.assert_allclose(s.phi @ a_svd, s.b, atol=1e-10)
    np.testing.assert_allclose(a_chol, a_svd, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(lam_chol, lam_svd, rtol=1e-8, atol=1e-8)
    kkt = np.block([[assembly.M, -s.phi.T], [s.phi, np.zeros((len(s.b), len(s.b)))]])
    solution = np.linalg.solve(kkt, np.concatenate([assembly.M @ a_u, s.b]))
    np.testing.assert_allclose(a_svd, solution[:18], atol=1e-9)
    np.testing.assert_allclose(assembly.M @ (a_svd - a_u), s.phi.T @ lam_svd, atol=1e-9)


def test_redundant_loop_is_solved_by_the_pseudo_inverse():
    """A ring of four welds has 6 redundant rows: rank deficient, still consistent."""
    rng = np.random.default_rng(2)
    assembly, poses = assembly_of(
        4,
        rng,
        lambda n, p: [
            Weld.at_current_pose(f"w{k}", n[k], p[k], n[(k + 1) % 4], p[(k + 1) % 4], np.zeros(3))
            for k in range(4)
        ],
    )
    assert not assembly.full_rank
    poses = assembly.poses(
        np.array([p.p for p in poses]),
        np.array([Rotation.from_matrix(p.R).as_quat(scalar_first=True) for p in poses]),
        assembly.project_velocities(poses),
    )
    a_u = rng.normal(size=24)
    a_c, _, s = assembly.accelerations(poses, a_u)
    np.testing.assert_allclose(s.phi @ a_c, s.b, atol=1e-9)
    # Same as the tree (one weld removed): the loop's last weld adds no information.
    tree = Assembly(
        assembly.bodies, [assembly.M[6 * k : 6 * k + 6, 6 * k : 6 * k + 6] for k in range(4)]
    )
    for joint in assembly.joints[:3]:
        tree.add(joint, poses)
    a_tree, _, _ = tree.accelerations(poses, a_u)
    np.testing.assert_allclose(a_c, a_tree, atol=1e-9)


def test_projection_reaches_the_manifold():
    rng = np.random.default_rng(3)
    assembly, poses = assembly_of(
        3,
        rng,
        lambda n, p: [
            Weld.at_current_pose("w", n[0], p[0], n[1], p[1], np.ones(3)),
            Spherical.at_current_pose("s", n[1], p[1], n[2], p[2], np.zeros(3)),
        ],
    )
    P = np.array([p.p for p in poses]) + 1e-3 * rng.normal(size=(3, 3))
    Q = np.array([Rotation.from_matrix(p.R).as_quat(scalar_first=True) for p in poses])
    Q = np.array([rotate_quaternion(q, 1e-3 * rng.normal(size=3)) for q in Q])
    P, Q = assembly.project_positions(P, Q)
    moved = assembly.poses(P, Q, np.array([p.nu for p in poses]))
    assert max(max(v) for v in assembly.violations(moved).values()) < 1e-12
    nu = assembly.project_velocities(moved)
    assert np.max(np.abs(assembly.stack(assembly.poses(P, Q, nu)).phi @ nu.ravel())) < 1e-12


def test_impact_conserves_momentum_and_dissipates_energy():
    """Plastic impact of a new weld: linear and angular momentum (about the NED origin, with
    added mass in M) conserved to 1e-9 relative; kinetic energy does not increase."""
    rng = np.random.default_rng(4)
    names = ["A", "B"]
    masses = [random_mass(rng) for _ in names]
    states = [random_pose(rng) for _ in names]
    P, Q, NU = (np.array([s[i] for s in states]) for i in range(3))
    assembly = Assembly(names, masses)
    poses = assembly.poses(P, Q, NU)
    assembly.add(
        Weld.at_current_pose("dock", "A", poses[0], "B", poses[1], np.array([0.3, 0, 0])), poses
    )
    after = assembly.impact(poses)

    def momentum(nu):
        linear, angular = np.zeros(3), np.zeros(3)
        for pose, M, v in zip(poses, masses, nu, strict=True):
            h = M @ v
            linear += pose.R @ h[:3]
            angular += np.cross(pose.p, pose.R @ h[:3]) + pose.R @ h[3:]
        return np.concatenate([linear, angular])

    before_m, after_m = momentum(NU), momentum(after)
    np.testing.assert_allclose(after_m, before_m, rtol=1e-9, atol=1e-9 * np.linalg.norm(before_m))
    energy = lambda nu: sum(0.5 * v @ M @ v for M, v in zip(masses, nu, strict=True))  # noqa: E731
    assert energy(after) < energy(NU)
    assert np.max(np.abs(assembly.stack(assembly.poses(P, Q, after)).phi @ after.ravel())) < 1e-12


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda a, b: Revolute.at_current_pose(
                "r", "A", a, "B", b, np.zeros(3), axis=np.array([1.0, 1.0, 0])
            ),
            "axis must be a unit 3-vector",
        ),
        (
            lambda a, b: Weld.at_current_pose("w", "A", a, "A", a, np.zeros(3)),
            "connects body 'A' to itself",
        ),
        (
            lambda a, b: Universal.at_current_pose(
                "u",
                "A",
                a,
                "B",
                b,
                np.zeros(3),
                axis=np.array([1.0, 0, 0]),
                axis_b=np.array([1.0, 0, 0]),
            ),
            "must be perpendicular",
        ),
    ],
)
def test_bad_joints_are_rejected(make, message):
    a = Pose(np.zeros(3), np.eye(3), np.zeros(6))
    b = Pose(np.ones(3), np.eye(3), np.zeros(6))
    with pytest.raises(ValueError, match=message):
        make(a, b)


def test_unknown_body_is_rejected():
    assembly = Assembly(["A"], [np.eye(6)])
    pose = Pose(np.zeros(3), np.eye(3), np.zeros(6))
    with pytest.raises(ValueError, match="unknown body 'C'"):
        assembly.add(Weld("w", "A", "C", np.zeros(3), np.zeros(3), np.eye(3)), [pose])
