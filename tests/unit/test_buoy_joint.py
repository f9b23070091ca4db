"""The driven universal joint (rheonomic Udwadia-Kalaba rows) and the joint servo."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT
from reference import coriolis
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

from orchestrator.coupling.assembly import Assembly
from orchestrator.coupling.driven import DrivenUniversal, JointMotion
from orchestrator.coupling.joints import WORLD, Pose, Weld
from orchestrator.errors import ScenarioError
from orchestrator.kinematics import rotation_matrix
from orchestrator.runner.run import run_scenario

AXIS, AXIS_B = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
R_A, R_B = np.array([0.0, 0.0, -0.3]), np.array([0.0, 0.1, 0.1])


def mass(m: float, inertia: tuple[float, float, float], r_g: np.ndarray) -> np.ndarray:
    """Generalized mass about a body origin with the centre of gravity at r_g."""
    S = np.array([[0, -r_g[2], r_g[1]], [r_g[2], 0, -r_g[0]], [-r_g[1], r_g[0], 0]])
    return np.block([[m * np.eye(3), -m * S], [m * S, np.diag(inertia) - m * S @ S]])


def angles(t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A prescribed motion of both axes: angles, rates, accelerations."""
    return (
        np.array([0.4 * np.sin(2 * t), -0.3 * np.sin(3 * t) + 0.2 * t]),
        np.array([0.8 * np.cos(2 * t), -0.9 * np.cos(3 * t) + 0.2]),
        np.array([-1.6 * np.sin(2 * t), 2.7 * np.sin(3 * t)]),
    )


def prescribed_rotation(theta: np.ndarray) -> np.ndarray:
    """B -> A rotation of a universal joint: turn about A's x, then about B's y (R_0 = I)."""
    return (
        Rotation.from_rotvec(theta[0] * AXIS) * Rotation.from_rotvec(theta[1] * AXIS_B)
    ).as_matrix()


def test_bodies_follow_the_prescribed_joint_motion():
    """Two free bodies (no external force; their unconstrained accelerations are the Coriolis
    terms of the independent reference, Fossen's Thm 3.2) joined by the driven joint,
    integrated at the acceleration level only (no projection, no Baumgarte): after 3 s of a
    motion with both axes moving, the joint points coincide to 1e-7 m and the relative rotation
    is the prescribed one to 1e-7 rad (integrator tolerance 1e-11; a wrong prescribed
    acceleration, e.g. without the theta_1' theta_2' term, drifts by 1e-2). The internal forces
    keep the total linear momentum
    (1e-9 kg.m/s)."""
    masses = [
        mass(2.0, (0.05, 0.06, 0.02), np.array([0, 0, -0.1])),
        mass(1.0, (0.03, 0.03, 0.01), R_B),
    ]
    assembly = Assembly(["a", "b"], masses)
    joint = DrivenUniversal("u", "a", "b", R_A, R_B, np.eye(3), axis=AXIS, axis_b=AXIS_B)
    pose_a = Pose(np.zeros(3), np.eye(3), np.zeros(6))
    p_b = R_A - prescribed_rotation(np.zeros(2)) @ R_B
    theta, rate, _ = angles(0.0)
    w_b = prescribed_rotation(theta).T @ (AXIS * rate[0] + AXIS_B * rate[1])
    pose_b = Pose(p_b, np.eye(3), np.concatenate([-np.cross(w_b, R_B), w_b]))
    assembly.add(joint, [pose_a, pose_b])

    def rhs(t: float, y: np.ndarray) -> np.ndarray:
        P, Q, NU = y[:6].reshape(2, 3), y[6:14].reshape(2, 4), y[14:].reshape(2, 6)
        joint.motion = JointMotion(*angles(t))
        poses = assembly.poses(P, Q, NU)
        free = [-np.linalg.solve(M, coriolis(M, nu) @ nu) for M, nu in zip(masses, NU, strict=True)]
        a_c, _, _ = assembly.accelerations(poses, np.concatenate(free))
        q_dot = [
            0.5 * np.concatenate([[-q[1:] @ nu[3:]], q[0] * nu[3:] + np.cross(q[1:], nu[3:])])
            for q, nu in zip(Q, NU, strict=True)
        ]
        p_dot = [p.R @ p.v for p in poses]
        return np.concatenate([*p_dot, *q_dot, a_c])

    y0 = np.concatenate([np.zeros(3), p_b, [1, 0, 0, 0, 1, 0, 0, 0], pose_a.nu, pose_b.nu])
    end = solve_ivp(rhs, (0, 3), y0, method="DOP853", rtol=1e-11, atol=1e-13).y[:, -1]
    P, Q, NU = end[:6].reshape(2, 3), end[6:14].reshape(2, 4), end[14:].reshape(2, 6)
    R = rotation_matrix(Q / np.linalg.norm(Q, axis=1, keepdims=True))
    assert np.linalg.norm(P[0] + R[0] @ R_A - P[1] - R[1] @ R_B) < 1e-7
    relative = R[0].T @ R[1] @ prescribed_rotation(angles(3.0)[0]).T
    assert np.linalg.norm(Rotation.from_matrix(relative).as_rotvec()) < 1e-7
    momentum = R[0] @ (masses[0][:3] @ NU[0]) + R[1] @ (masses[1][:3] @ NU[1])  # NED
    assert np.linalg.norm(momentum - masses[1][:3] @ pose_b.nu) < 1e-9


def test_joint_torques_hold_the_weight_of_a_hanging_body():
    """Body A welded to the world, body B hanging on the driven joint at fixed angles (0.5,
    -0.3 rad), at rest, pulled by its weight: the joint torques are minus the moment of B's
    weight about the pivot along the two axes (statics by hand, to 1e-9 N.m)."""
    m_b, r_g = 3.0, np.array([0.02, -0.01, 0.25])
    M_b = mass(m_b, (0.04, 0.05, 0.01), r_g)
    assembly = Assembly(["a", "b"], [mass(1.0, (1, 1, 1), np.zeros(3)), M_b])
    theta = np.array([0.5, -0.3])
    joint = DrivenUniversal("u", "a", "b", R_A, R_B, np.eye(3), axis=AXIS, axis_b=AXIS_B)
    joint.motion = JointMotion(theta, np.zeros(2), np.zeros(2))
    R_b = prescribed_rotation(theta)
    pose_a = Pose(np.zeros(3), np.eye(3), np.zeros(6))
    pose_b = Pose(R_A - R_b @ R_B, R_b, np.zeros(6))
    assembly.add(Weld("ground", "a", None, np.zeros(3), np.zeros(3), np.eye(3)), [pose_a, WORLD])
    assembly.add(joint, [pose_a, pose_b])
    weight = R_b.T @ np.array([0.0, 0.0, m_b * 9.81])  # NED down, in B's frame
    a_u = np.concatenate(
        [np.zeros(6), np.linalg.solve(M_b, np.concatenate([weight, np.cross(r_g, weight)]))]
    )
    a_c, lam, stacked = assembly.accelerations([pose_a, pose_b], a_u)
    np.testing.assert_allclose(a_c, 0.0, atol=1e-12)
    on_b = assembly.joint_forces(stacked, lam)["u"][1]
    gravity_moment = np.cross(r_g - R_B, weight)  # about the pivot, B's frame
    expected = -np.array([(R_b.T @ AXIS) @ gravity_moment, AXIS_B @ gravity_moment])
    np.testing.assert_allclose(joint.torques(pose_a, pose_b, on_b), expected, atol=1e-9)


def test_velocity_projection_keeps_the_prescribed_joint_rates():
    """Between steps the velocities are projected onto the joint's velocity rows: the relative
    angular velocity becomes the prescribed one (axis rates 0.7 and -0.4 rad/s), not zero
    (to 1e-12 rad/s)."""
    masses = [mass(2.0, (0.05, 0.06, 0.02), np.zeros(3)), mass(1.0, (0.03, 0.03, 0.01), R_B)]
    assembly = Assembly(["a", "b"], masses)
    joint = DrivenUniversal("u", "a", "b", R_A, R_B, np.eye(3), axis=AXIS, axis_b=AXIS_B)
    joint.motion = JointMotion(np.array([0.2, 0.1]), np.array([0.7, -0.4]), np.zeros(2))
    R_b = prescribed_rotation(joint.motion.angle)
    poses = [Pose(np.zeros(3), np.eye(3), np.zeros(6)), Pose(R_A - R_b @ R_B, R_b, np.zeros(6))]
    assembly.add(joint, poses)
    nu = assembly.project_velocities(poses)
    relative = R_b @ nu[1, 3:] - nu[0, 3:]
    e2 = Rotation.from_rotvec(0.2 * AXIS).apply(AXIS_B)
    np.testing.assert_allclose(relative, 0.7 * AXIS - 0.4 * e2, atol=1e-12)


SERVO = """
[simulation]
stop_time = 3.0
output_interval = 0.005
solver = "RK4"
step = 0.001

[components.servo]
fmu = "JointServo"

[controllers.command]
type = "schedule"
sample_time = 0.5
steps = [{ time = 0.0, values = { "servo.theta_cmd[1]" = 1.4, "servo.theta_cmd[2]" = -0.3 } },
         { time = 1.5, values = { "servo.theta_cmd[1]" = -1.4 } }]
"""


def test_servo_respects_stops_rate_and_acceleration_limits(run):
    """Commands beyond the +-45 deg stops (80 deg, then -80 deg, the second at full rate): the
    axis never passes the stop by more than 0.01 deg (integration error of the 1 ms RK4 steps),
    never exceeds 90 deg/s or 500 deg/s2 (the limits, 1e-9), comes to rest at the stop and the
    other axis reaches its -0.3 rad command (1e-3 rad)."""
    cols, _ = run(SERVO, "servo")
    stop, rate, accel = np.radians(45), np.radians(90), np.radians(500)
    theta = np.column_stack([cols["servo.theta[1]"], cols["servo.theta[2]"]])
    assert np.abs(theta).max() <= stop + np.radians(0.01)
    assert np.abs(cols["servo.omega[1]"]).max() <= rate + 1e-9
    assert np.abs(cols["servo.alpha[1]"]).max() <= accel + 1e-9
    t = cols["time"]
    assert theta[np.searchsorted(t, 1.4), 0] == pytest.approx(stop, abs=np.radians(0.1))
    assert theta[-1, 0] == pytest.approx(-stop, abs=np.radians(0.1))
    assert theta[-1, 1] == pytest.approx(-0.3, abs=1e-3)


def test_driven_joint_scenario_errors(tmp_path, fmu_dir):
    """A driven joint without an actuator, or with one that is no servo, is a one-line error
    naming the file and the key."""
    text = (ROOT / "scenarios" / "buoy_drop.toml").read_text()
    for old, new, message in [
        ('actuator = "servo"\n', "", r"joints\[0\]\.actuator: missing"),
        (
            'actuator = "servo"\n',
            'actuator = "housing"\n',
            r"joints\[0\]\.actuator: 'housing' has no",
        ),
    ]:
        path = tmp_path / "bad.toml"
        path.write_text(text.replace(old, new))
        with pytest.raises(ScenarioError, match=rf"bad\.toml: {message}"):
            run_scenario(path, tmp_path / "out", fmu_dir, plots=False)
