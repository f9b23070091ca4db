"""The compiled Udwadia-Kalaba coupling against the Python assembly.

Welded chains, revolute chains with motors, a tree, a body fixed to the world, chains and trees
of every joint kind (universal, spherical, driven universal joints whose actuator's angles,
rates and accelerations sit in the state vector and its derivative), and closed loops (welded
rings and grids whose loop rows are all redundant, a ring of revolute joints whose loop rows
are independent, a welded ring closed by a ball joint), with random masses, joints made at
random poses, then random states off the constraint manifold (positions, attitudes far from
the joints' -- so the weld's rotation vector takes both of its branches -- and velocities), so
that every term of b, the Baumgarte terms included, acts. The bodies' states sit scattered in
a longer state vector between other states, which the kernel must leave alone. The compiled
path must give the Python path's accelerations to 1e-12 relative for trees (both solve the
same well-conditioned system, differing only in the order of round-off) and 1e-10 for closed
loops (the same kept rows, factorized in another order with fill). The same holds for the
projection onto the constraint manifold (from states near it) and for the recorded joint
columns (errors and generalized constraint forces; with redundant rows the least-norm
multipliers); besides agreeing with Python, the projected states must satisfy the joints and
the forces must sum, on every body, to M (a_c - a_u) of the compiled accelerations. The last
tests check the wiring to a running system's state vector on shipped scenarios.
"""

from __future__ import annotations

import gc
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from orchestrator.coupling.assembly import Assembly
from orchestrator.coupling.compiled import CompiledCoupling, parameters
from orchestrator.coupling.driven import Drive, DrivenUniversal
from orchestrator.coupling.joint_space import spanning_forest
from orchestrator.coupling.joints import WORLD, Frames, Revolute, Spherical, Universal, Weld
from orchestrator.coupling.motors import JointMotors, Motor
from orchestrator.coupling.runtime import ConstraintCoupling
from orchestrator.kinematics import rotation_matrix
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System


@pytest.fixture(autouse=True)
def one_blas_thread():
    """Small dense algebra, as in runs: BLAS on one thread."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def random_mass(rng: np.random.Generator) -> np.ndarray:
    A = rng.normal(size=(6, 6))
    return A @ A.T + 6 * np.eye(6)


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def weld_chain(names, poses, rng):
    return [
        Weld.at_current_pose(f"w{k}", a, poses[k], b, poses[k + 1], rng.normal(size=3) * 0.3)
        for k, (a, b) in enumerate(zip(names, names[1:], strict=False))
    ]


def revolute_chain(names, poses, rng):
    return [
        Revolute.at_current_pose(
            f"r{k}",
            a,
            poses[k],
            b,
            poses[k + 1],
            rng.normal(size=3) * 0.3,
            axis=unit(rng.normal(size=3)),
        )  # fmt: skip
        for k, (a, b) in enumerate(zip(names, names[1:], strict=False))
    ]


def tree(names, poses, rng):
    """The first body fixed to the world; every other hangs from an earlier one by a weld
    or a revolute joint."""
    joints = [Weld.at_current_pose("ground", names[0], poses[0], None, WORLD, np.zeros(3))]
    for k in range(1, len(names)):
        parent = int(rng.integers(k))
        at = rng.normal(size=3) * 0.3
        a, pa, b, pb = names[parent], poses[parent], names[k], poses[k]
        if k % 2:
            joints.append(Weld.at_current_pose(f"j{k}", a, pa, b, pb, at))
        else:
            axis = unit(rng.normal(size=3))
            joints.append(Revolute.at_current_pose(f"j{k}", a, pa, b, pb, at, axis=axis))
    return joints


def fixed(names, poses, rng):
    """One body fixed to the world at a point off its origin."""
    return [Weld.at_current_pose("fixed", names[0], poses[0], None, WORLD, rng.normal(size=3))]


def two_axes(kind, name, a, pose_a, b, pose_b, rng):
    """A universal joint (or a driven one) at a random point with random perpendicular axes
    at the bodies' present poses."""
    axis = unit(rng.normal(size=3))
    across = unit(np.cross(axis, rng.normal(size=3)))  # perpendicular, in A's frame
    relative = pose_a.R.T @ pose_b.R
    point = rng.normal(size=3) * 0.3
    return kind.at_current_pose(
        name, a, pose_a, b, pose_b, point, axis=axis, axis_b=relative.T @ across
    )


def mixed(names, poses, rng):
    """Every joint kind: the first body on a ball joint to the world, then a chain of a
    universal, a driven universal, a spherical, a revolute joint and a weld, repeated, and
    a branch off the second body."""
    joints = [Spherical.at_current_pose("ball", names[0], poses[0], None, WORLD, np.ones(3))]
    for k in range(1, len(names)):
        a, pa, b, pb = names[k - 1], poses[k - 1], names[k], poses[k]
        if k == len(names) - 1:
            a, pa = names[1], poses[1]  # a branch
        at = rng.normal(size=3) * 0.3
        choice = (k - 1) % 5
        if choice == 0:
            joints.append(two_axes(Universal, f"j{k}", a, pa, b, pb, rng))
        elif choice == 1:
            joints.append(two_axes(DrivenUniversal, f"j{k}", a, pa, b, pb, rng))
        elif choice == 2:
            joints.append(Spherical.at_current_pose(f"j{k}", a, pa, b, pb, at))
        elif choice == 3:
            axis = unit(rng.normal(size=3))
            joints.append(Revolute.at_current_pose(f"j{k}", a, pa, b, pb, at, axis=axis))
        else:
            joints.append(Weld.at_current_pose(f"j{k}", a, pa, b, pb, at))
    return joints


def driven_pair(names, poses, rng):
    """Two bodies on a driven universal joint, the first free (the buoy's layout)."""
    return [two_axes(DrivenUniversal, "gimbal", names[0], poses[0], names[1], poses[1], rng)]


def weld_ring(names, poses, rng):
    """A welded chain closed into a ring by one more weld: its six rows are redundant."""
    closing = Weld.at_current_pose("close", names[-1], poses[-1], names[0], poses[0], np.ones(3))
    return [*weld_chain(names, poses, rng), closing]


def ball_ring(names, poses, rng):
    """A welded chain closed by a ball joint: its three rows are redundant."""
    point = np.full(3, 0.2)
    closing = Spherical.at_current_pose("close", names[-1], poses[-1], names[0], poses[0], point)
    return [*weld_chain(names, poses, rng), closing]


def revolute_ring(names, poses, rng):
    """Revolute joints with random axes around a ring: the loop rows stay independent (a
    spatial loop of four hinges has 20 rows on 24 velocities), so G has fill but full rank."""
    ring = list(zip(names, [*names[1:], names[0]], strict=True))
    joints = []
    for k, (a, b) in enumerate(ring):
        at, axis = rng.normal(size=3) * 0.3, unit(rng.normal(size=3))
        pa, pb = poses[names.index(a)], poses[names.index(b)]
        joints.append(Revolute.at_current_pose(f"r{k}", a, pa, b, pb, at, axis=axis))
    return joints


def weld_grid(names, poses, rng):
    """A 3 x 3 grid of bodies welded to their neighbours: four closed loops, every loop
    weld's rows redundant."""
    size, joints = 3, []
    for i in range(size):
        for j in range(size):
            k = size * i + j
            neighbours = [k + size] * (i + 1 < size) + [k + 1] * (j + 1 < size)
            for n in neighbours:
                at = rng.normal(size=3) * 0.3
                joints.append(
                    Weld.at_current_pose(f"w{k}_{n}", names[k], poses[k], names[n], poses[n], at)
                )
    return joints


def setup(n_bodies, joints_of, seed):
    """Assembly, its joints made at random poses, and the state layout: each body's 13
    states at scattered places of a vector with other states between them, and four more
    (an actuator's theta[1..2], omega[1..2]) for every driven joint."""
    rng = np.random.default_rng(seed)
    names = [f"B{k}" for k in range(n_bodies)]
    assembly = Assembly(names, [random_mass(rng) for _ in range(n_bodies)])
    q = np.array([unit(v) for v in rng.normal(size=(n_bodies, 4))])
    frames = Frames(rng.normal(size=(n_bodies, 3)), rotation_matrix(q), np.zeros((n_bodies, 6)))
    for joint in joints_of(names, frames, rng):  # at these poses
        assembly.add(joint, frames)
    driven = [j for j in assembly.joints if isinstance(j, DrivenUniversal)]
    n_states = 13 * n_bodies + 7 + 4 * len(driven)
    order = rng.permutation(n_states)
    index = order[: 13 * n_bodies].reshape(n_bodies, 13)
    actuators = order[13 * n_bodies : 13 * n_bodies + 4 * len(driven)].reshape(-1, 4)
    drives = [Drive(j, s[:2], s[2:]) for j, s in zip(driven, actuators, strict=True)]
    return Layout(assembly, index, n_states, q, frames.p, drives), rng


@dataclass
class Layout:
    """An assembly, where its bodies' states sit, and their attitudes and positions when
    joined."""

    assembly: Assembly
    index: np.ndarray
    n_states: int
    joined: np.ndarray
    positions: np.ndarray
    drives: list[Drive]

    def compiled(self, fallback=lambda x, dx: None, baumgarte=(0.0, 0.0)) -> CompiledCoupling:
        """The kernel's coupling of this layout, its driven joints bound to their actuators."""
        drives = {d.joint.name: np.concatenate([d.angles, d.rates]) for d in self.drives}
        return CompiledCoupling(self.assembly, self.index, fallback, baumgarte, drives)

    def frames(self, x: np.ndarray, dx: np.ndarray | None = None) -> Frames:
        """The bodies' frames at state x, the driven joints following their actuators."""
        for drive in self.drives:
            drive.follow(x, dx)
        index = self.index
        return self.assembly.poses(x[index[:, :3]], x[index[:, 3:7]], x[index[:, 7:]])


def random_state(rng, layout, spread):
    """State and unconstrained rates; attitudes turned from those at joining by random
    rotations of about ``spread`` rad (unit quaternions)."""
    x, dx = rng.normal(size=layout.n_states), rng.normal(size=layout.n_states)
    turn = rng.normal(size=(len(layout.index), 4)) * spread / 2
    turn[:, 0] = 1.0
    turn /= np.linalg.norm(turn, axis=1, keepdims=True)
    x[layout.index[:, 3:7]] = [product(q, t) for q, t in zip(layout.joined, turn, strict=True)]
    return x, dx


def product(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamilton product of scalar-first quaternions."""
    return np.concatenate(
        [[p[0] * q[0] - p[1:] @ q[1:]], p[0] * q[1:] + q[0] * p[1:] + np.cross(p[1:], q[1:])]
    )


def python_accelerations(layout, x, dx, motor, baumgarte):
    """The Python path's constrained der(nu) (N, 6) at state x."""
    frames = layout.frames(x, dx)
    a_u = dx[layout.index[:, 7:]].ravel() + motor
    a_c, _, _ = layout.assembly.constrained(frames, a_u, baumgarte)
    return a_c.reshape(-1, 6)


def assert_agrees_at_random_state(layout, compiled, rng, relative):
    """The compiled kernel's accelerations at a random state (spread 0.5, no motor, no
    Baumgarte terms) equal the Python path's to ``relative`` times their norm."""
    x, dx = random_state(rng, layout, 0.5)
    out = dx.copy()
    compiled.kernel(x, out)
    expected = python_accelerations(layout, x, dx, 0.0, (0.0, 0.0))
    scale = np.linalg.norm(expected)
    np.testing.assert_allclose(out[layout.index[:, 7:]], expected, rtol=0, atol=relative * scale)


def tolerance(layout) -> float:
    """Relative agreement of the two paths: round-off of the same solve for a forest, 1e-10
    with closed loops (the same kept rows, eliminated in another order, with fill)."""
    return 1e-12 if layout.assembly.full_rank and not has_loop(layout.assembly) else 1e-10


def has_loop(assembly) -> bool:
    """Whether the joints close a loop (not all in a spanning forest of the bodies)."""
    index = assembly.index
    ends = [(index[j.a], -1 if j.b is None else index[j.b]) for j in assembly.joints]
    body_a, body_b = np.array(ends).T
    return not np.all(spanning_forest(body_a, body_b, len(assembly.bodies)))


def check(layout, rng, baumgarte, motors=None, samples=4):
    index, n_states = layout.index, layout.n_states
    fallback_calls = []
    compiled = layout.compiled(lambda x, dx: fallback_calls.append(1), baumgarte)
    assert compiled.compiled
    motor = np.zeros(6 * len(index))
    if motors is not None:
        motors.set_command_values(rng.normal(size=len(motors.command_names())) * 5)
        motor = motors.accelerations()
        assert np.any(motor != 0)
        compiled.set_motor(motor)
    for spread in (0.05, 2.0):
        for _ in range(samples):
            x, dx = random_state(rng, layout, spread)
            expected = python_accelerations(layout, x, dx, motor, baumgarte)
            out = dx.copy()
            compiled.kernel(x, out)
            scale = np.linalg.norm(expected)
            atol = tolerance(layout) * scale
            np.testing.assert_allclose(out[index[:, 7:]], expected, rtol=0, atol=atol)
            others = np.setdiff1d(np.arange(n_states), index[:, 7:])
            np.testing.assert_array_equal(out[others], dx[others])  # only der(nu) replaced
            assert np.linalg.norm(expected - dx[index[:, 7:]]) > 1e-3 * scale  # joints act
    assert not fallback_calls


CASES = [
    ("welded pair", 2, weld_chain, 0),
    ("welded chain", 6, weld_chain, 1),
    ("revolute chain", 7, revolute_chain, 2),
    ("tree", 9, tree, 3),
    ("fixed", 1, fixed, 4),
    ("mixed joints", 11, mixed, 12),
    ("driven pair", 2, driven_pair, 13),
    ("welded ring", 5, weld_ring, 14),
    ("ring closed by a ball joint", 4, ball_ring, 15),
    ("revolute ring", 4, revolute_ring, 16),
    ("welded grid", 9, weld_grid, 17),
]


@pytest.mark.parametrize(("shape", "n_bodies", "joints_of", "seed"), CASES)
@pytest.mark.parametrize("baumgarte", [(0.0, 0.0), (2.0, 3.0)])
def test_compiled_equals_python(shape, n_bodies, joints_of, seed, baumgarte):
    """Constrained accelerations agree to 1e-12 relative, with and without stabilisation."""
    layout, rng = setup(n_bodies, joints_of, seed)
    check(layout, rng, baumgarte)


def test_revolute_chain_with_motors():
    """The motors' accelerations, set once per command, enter as the Python path adds them."""
    layout, rng = setup(6, revolute_chain, 5)
    joints = layout.assembly.joints[::2]
    motors = JointMotors(layout.assembly, [Motor(j, max_torque=3.0) for j in joints])
    check(layout, rng, (2.0, 3.0), motors)


def near_manifold(rng, layout, size):
    """A state whose bodies are displaced from their joined poses by about ``size`` (m, rad),
    their quaternions off unit length, the driven joints' angles about ``size`` (their pose
    at joining is at zero angles), with random velocities."""
    x, _ = random_state(rng, layout, size)
    index = layout.index
    x[index[:, :3]] = layout.positions + size * rng.normal(size=layout.positions.shape)
    x[index[:, 3:7]] *= 1.0 + size * rng.normal(size=(len(index), 1))
    for drive in layout.drives:
        x[drive.angles] = size * rng.normal(size=2)
    return x


def python_projection(layout, x):
    """The Python path's projected positions, quaternions and velocities of state x."""
    assembly, index = layout.assembly, layout.index
    layout.frames(x)  # the driven joints at the actuators' angles
    P, Q = assembly.project_positions(x[index[:, :3]], x[index[:, 3:7]])
    nu = assembly.project_velocities(assembly.poses(P, Q, x[index[:, 7:]]))
    return P, Q, nu


@pytest.mark.parametrize(("shape", "n_bodies", "joints_of", "seed"), CASES)
def test_compiled_projection_equals_python(shape, n_bodies, joints_of, seed):
    """Positions, attitudes and velocities projected in C agree with Assembly's projection to
    1e-12 relative (the Newton iterations may stop one step apart, below 1e-13); the result
    satisfies the joints (errors below 1e-12 m / rad, Phi nu below 1e-12 of the velocities)
    and leaves other states alone."""
    layout, rng = setup(n_bodies, joints_of, seed + 20)
    assembly, index = layout.assembly, layout.index
    compiled = layout.compiled()
    agreement = tolerance(layout)
    for size in (1e-6, 1e-3, 3e-2):
        x = near_manifold(rng, layout, size)
        P, Q, nu = python_projection(layout, x)
        out = compiled.project(x)
        for got, expected in ((out[index[:, :3]], P), (out[index[:, 3:7]], Q)):
            np.testing.assert_allclose(got, expected, rtol=0, atol=agreement * np.abs(P).max())
        speed = np.abs(x[index[:, 7:]]).max()  # the velocities' scale before projection
        np.testing.assert_allclose(out[index[:, 7:]], nu, rtol=0, atol=agreement * speed)
        others = np.setdiff1d(np.arange(layout.n_states), index)
        np.testing.assert_array_equal(out[others], x[others])
        assert np.abs(out[index] - x[index]).max() > 0.1 * size  # the projection acts
        frames = assembly.poses(P, Q, nu)
        errors = np.array(list(assembly.violations(frames).values()))
        assert errors.max() < 1e-12
        stacked = assembly.stack(frames)
        assert np.abs(stacked.times(nu) - stacked.velocity).max() < 1e-12 * speed


@pytest.mark.parametrize(("shape", "n_bodies", "joints_of", "seed"), CASES)
def test_compiled_columns_equal_python(shape, n_bodies, joints_of, seed):
    """Position and angle errors and the generalized forces on a and b from C agree with
    Assembly.violations and joint_forces to 1e-12 relative; on every body the forces sum to
    M (a_c - a_u) of the compiled accelerations (the motors' included)."""
    layout, rng = setup(n_bodies, joints_of, seed + 40)
    assembly, index = layout.assembly, layout.index
    baumgarte = (2.0, 3.0)
    compiled = layout.compiled(baumgarte=baumgarte)
    agreement = tolerance(layout)
    motors = JointMotors(assembly, [Motor(j, 3.0) for j in assembly.joints if j.kind == "revolute"])
    motors.set_command_values(rng.normal(size=len(motors.command_names())) * 5)
    compiled.set_motor(motors.accelerations())
    for spread in (0.05, 2.0):
        x, dx = random_state(rng, layout, spread)
        columns = dict(zip(compiled.names, compiled.columns(x, dx), strict=True))
        assert set(columns) == {j.name for j in assembly.joints}
        frames = layout.frames(x, dx)
        a_u = dx[index[:, 7:]].ravel() + motors.accelerations()
        _, lam, stacked = assembly.accelerations(frames, a_u, baumgarte)
        forces = assembly.joint_forces(stacked, lam)
        violations = assembly.violations(frames)
        errors = np.array([violations[name] for name in columns])
        got = np.array(list(columns.values()))
        np.testing.assert_allclose(got[:, :2], errors, rtol=0, atol=1e-12 * errors.max())
        expected = np.array([np.concatenate(forces[name]) for name in columns])
        scale = np.abs(expected).max()
        np.testing.assert_allclose(got[:, 2:], expected, rtol=0, atol=agreement * scale)
        a_c = dx.copy()
        compiled.kernel(x, a_c)
        change = (a_c[index[:, 7:]].ravel() - a_u).reshape(-1, 6)
        total = np.zeros_like(change)
        for joint in assembly.joints:
            total[assembly.index[joint.a]] += columns[joint.name][2:8]
            if joint.b is not None:
                total[assembly.index[joint.b]] += columns[joint.name][8:]
        mass = np.array([np.linalg.inv(m) for m in assembly.inverse_blocks])
        np.testing.assert_allclose(
            total, np.einsum("nij,nj->ni", mass, change), rtol=0, atol=1e-10 * scale
        )


@pytest.mark.parametrize(("shape", "n_bodies", "joints_of", "seed"), CASES)
def test_compiled_joint_motion_equals_python(shape, n_bodies, joints_of, seed):
    """Angles and rates of the revolute joints from C agree with Revolute.batch_motion (the
    Python motors' measurement) to 1e-12 rad and 1e-12 of the speeds, on the joints' manifold
    and far from it; welds give none."""
    layout, rng = setup(n_bodies, joints_of, seed + 60)
    assembly, index = layout.assembly, layout.index
    compiled = layout.compiled()
    hinges = [j for j in assembly.joints if j.kind == "revolute"]
    motors = JointMotors(assembly, [Motor(j, 1.0) for j in hinges])
    revolute = {j.name for j in hinges}
    for spread in (0.05, 2.0):
        x, _ = random_state(rng, layout, spread)
        motion = dict(zip(compiled.signals, compiled.motion_values(x), strict=True))
        assert set(motion) == {f"{j}.{s}" for j in revolute for s in ("angle", "rate")}
        frames = assembly.poses(x[index[:, :3]], x[index[:, 3:7]], x[index[:, 7:]])
        expected = motors.measure(frames) if revolute else {}
        speed = np.abs(x[index[:, 7:]]).max()
        for name in revolute:
            turn = motion[f"{name}.angle"] - expected[f"{name}.angle"]
            assert abs((turn + np.pi) % (2 * np.pi) - np.pi) < 1e-12, (name, turn)
            assert abs(motion[f"{name}.rate"] - expected[f"{name}.rate"]) < 1e-12 * speed
        if revolute:
            angles = [motion[f"{name}.angle"] for name in revolute]
            assert np.ptp(angles) > 1e-3  # the joints are turned, not all at rest


def test_topology_changes_follow_the_assembly():
    """Adding and removing joints, then describing again, keeps the two paths equal, also
    when a joint closes a loop; under the "svd" solver every evaluation goes to the
    fallback."""
    layout, rng = setup(4, weld_chain, 6)
    assembly, index = layout.assembly, layout.index
    calls = []
    compiled = layout.compiled(lambda x, dx: calls.append(1), (1.0, 1.0))
    x, dx = random_state(rng, layout, 0.1)
    frames = layout.frames(x)

    def agree(atol: float) -> None:
        compiled.describe()
        assert compiled.compiled
        out = dx.copy()
        compiled.kernel(x, out)
        expected = python_accelerations(layout, x, dx, 0.0, (1.0, 1.0))
        scale = np.linalg.norm(expected)
        np.testing.assert_allclose(out[index[:, 7:]], expected, rtol=0, atol=atol * scale)

    assembly.remove("w1", frames)
    agree(1e-12)
    ball = Spherical.at_current_pose("ball", "B1", frames[1], "B2", frames[2], np.zeros(3))
    assembly.add(ball, frames)
    agree(1e-12)
    ring = Weld.at_current_pose("close", "B3", frames[3], "B0", frames[0], np.zeros(3))
    assembly.add(ring, frames)
    assert not assembly.full_rank  # the ball and the welds close a loop: 3 rows redundant
    agree(1e-10)
    assert not calls
    assembly.solver = "svd"
    compiled.describe()
    assert not compiled.compiled
    compiled.kernel(x, dx.copy())
    assert calls == [1]


def test_another_elimination_order_fills_in_and_agrees():
    """The kernel factorizes G block by block in the given joint order: a forest's
    deepest-first order has no fill (the tree cases above run in it); on a chain B0-B1-B2-B3
    the order w1, w0, w2 fills in (w0 and w2, both later neighbours of w1, share no body),
    and the factorization with that fill block gives the same accelerations."""
    layout, rng = setup(4, weld_chain, 8)
    compiled = layout.compiled()
    assert compiled.names == ["w2", "w1", "w0"]  # from the free end: B0 is the first root
    joints = {j.name: j for j in layout.assembly.joints}
    bodies = {"w0": (0, 1), "w1": (1, 2), "w2": (2, 3)}
    order = ["w1", "w0", "w2"]
    compiled.kernel.set_joints(
        np.zeros(3, dtype=np.int64),
        np.array([bodies[n] for n in order], dtype=np.int64).ravel(),
        np.array([parameters(joints[n]) for n in order]).ravel(),
        np.full(3, 0b111111, dtype=np.int64),
        np.full(12, -1, dtype=np.int64),
        0.0,
        0.0,
    )
    assert_agrees_at_random_state(layout, compiled, rng, 1e-12)


@pytest.mark.parametrize(
    ("shape", "n_bodies", "joints_of", "seed"),
    [case for case in CASES if case[0] in ("tree", "mixed joints", "revolute ring", "welded grid")],
)
def test_any_elimination_order_agrees(monkeypatch, shape, n_bodies, joints_of, seed):
    """In random joint orders (fill wherever two later neighbours of a joint share no body)
    the factorization, whose bodies' terms of G are added just before the first elimination
    that reads or updates their blocks, gives the Python path's accelerations, to 1e-10
    relative (another order: other round-off)."""
    orders = np.random.default_rng(seed)
    monkeypatch.setattr(
        "orchestrator.coupling.compiled.elimination_order",
        lambda body_a, body_b, n: orders.permutation(len(body_a)),
    )
    layout, rng = setup(n_bodies, joints_of, seed)
    for _ in range(3):
        assert_agrees_at_random_state(layout, layout.compiled(), rng, 1e-10)


@pytest.mark.parametrize(
    ("kept", "drive", "match"),
    [
        (0b1000000, -1, "joint 0: unknown kind, bodies, kept rows or actuator states"),
        (0b111111, 3, "joint 0: unknown kind, bodies, kept rows or actuator states"),
    ],
)
def test_joint_description_is_checked(kept, drive, match):
    """A weld has six rows and no actuator: a seventh kept row or actuator states are
    refused with one line naming the joint."""
    layout, _ = setup(2, weld_chain, 9)
    compiled = layout.compiled()
    with pytest.raises(ValueError, match=match):
        compiled.kernel.set_joints(
            np.zeros(1, dtype=np.int64),
            np.array([0, 1], dtype=np.int64),
            parameters(layout.assembly.joints[0]),
            np.array([kept], dtype=np.int64),
            np.full(4, drive, dtype=np.int64),
            0.0,
            0.0,
        )


def test_owner_and_compiled_coupling_are_collected():
    """The fallback is a bound method of the coupling's owner: the reference cycle through
    the compiled object must be collectable (an owner holds the system's FMU instances)."""

    class Owner:
        def __init__(self, layout):
            self.compiled = CompiledCoupling(layout.assembly, layout.index, self.apply, (0, 0))

        def apply(self, x, dx):
            pass

    layout, _ = setup(2, weld_chain, 8)
    owner = Owner(layout)
    alive = weakref.ref(owner)
    del owner
    gc.collect()
    assert alive() is None


@pytest.mark.parametrize("name", ["uvms_spiral", "buoy_calm", "module_ring"])
def test_shipped_scenario_runs_compiled(fmu_dir, name):
    """uvms_spiral (a vehicle with four three-link arms, motors on the joints), buoy_calm (a
    driven universal joint following its servo's states) and module_ring (a closed loop of
    four welds): the system's post-process evaluates in C and gives the Python coupling's
    der(nu), for motor commands, from a state off the joints."""
    path = Path(__file__).resolve().parents[2] / "scenarios" / f"{name}.toml"
    scenario = load_scenario(path)
    system = System(scenario, str(path), fmu_dir)
    try:
        x = system.initialize(0.0, scenario.environment.current)
        coupling = ConstraintCoupling(
            system, scenario.joints, scenario.docking, scenario.coupling, x
        )
        rng = np.random.default_rng(9)
        coupling.command(rng.normal(size=len(coupling.command_names())))
        post = coupling.post_process()
        assert coupling.compiled.compiled and post is coupling.compiled.kernel
        x = x + 0.01 * rng.normal(size=len(x))  # off the joints: Baumgarte terms act
        dx = system.derivatives(0.0, x).copy()
        expected, out = dx.copy(), dx.copy()
        coupling.apply(x, expected)
        post(x, out)
        agreement = 1e-12 if coupling.assembly.full_rank else 1e-10
        atol = agreement * np.abs(expected).max()
        np.testing.assert_allclose(out, expected, rtol=0, atol=atol)
        assert np.abs(expected - dx).max() > 1e-3 * np.abs(expected).max()
    finally:
        system.close()


def by_name(coupling: ConstraintCoupling, x: np.ndarray, dx: np.ndarray) -> dict[str, float]:
    """The recorded joint columns of ``ConstraintCoupling.column_values``, by name."""
    names, values = coupling.column_values(x, dx)
    return dict(zip(names, values.tolist(), strict=True))


@pytest.mark.parametrize(
    "name", ["bluerov2_heavy_welded_pair", "uvms_spiral", "buoy_calm", "module_ring"]
)
def test_shipped_scenario_projects_and_records_compiled(fmu_dir, name):
    """ConstraintCoupling.project and columns of a running system (a welded pair; a vehicle
    with motored arms; a buoy on a driven joint, its torques recorded; a closed ring of welds
    with its least-norm forces) take the compiled path and give what the Python path gives,
    to 1e-12 relative (1e-10 with the ring's redundant rows), from a state off the joints
    (the motors' commands set; projection on)."""
    path = Path(__file__).resolve().parents[2] / "scenarios" / f"{name}.toml"
    scenario = load_scenario(path)
    system = System(scenario, str(path), fmu_dir)
    try:
        x0 = system.initialize(0.0, scenario.environment.current)
        config = scenario.coupling.model_copy(update={"projection": True})
        coupling = ConstraintCoupling(system, scenario.joints, scenario.docking, config, x0)
        rng = np.random.default_rng(11)
        coupling.command(rng.normal(size=len(coupling.command_names())))
        x = x0 + 1e-3 * rng.normal(size=len(x0))
        dx = system.derivatives(0.0, x).copy()
        assert coupling.compiled.compiled
        projected, columns = coupling.project(x), by_name(coupling, x, dx)
        coupling.compiled.kernel.use_fallback()  # the Python path
        expected_x, expected = coupling.project(x), by_name(coupling, x, dx)
        coupling.compiled.describe()
        assert coupling.compiled.compiled
        agreement = 1e-12 if coupling.assembly.full_rank else 1e-10
        np.testing.assert_allclose(projected, expected_x, rtol=0, atol=agreement * np.abs(x).max())
        assert np.abs(expected_x - x).max() > 1e-4  # the projection acts
        assert columns.keys() == expected.keys()
        assert set(coupling.column_names()) >= set(columns)
        names = list(expected)
        got, want = np.array([columns[n] for n in names]), np.array([expected[n] for n in names])
        np.testing.assert_allclose(got, want, rtol=0, atol=agreement * np.abs(want).max())
    finally:
        system.close()


def test_state_vector_shorter_than_the_bodies_states_is_refused():
    layout, rng = setup(2, weld_chain, 10)
    compiled = CompiledCoupling(layout.assembly, layout.index, lambda x, dx: None, (0, 0))
    x, dx = random_state(rng, layout, 0.1)
    short = int(layout.index.max())
    with pytest.raises(ValueError, match="outside the"):
        compiled.kernel(x[:short].copy(), dx[:short].copy())
