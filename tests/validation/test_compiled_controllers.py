"""The compiled controller laws (orchestrator/native/_controllers.c) against references written
here from the control laws with NumPy and SciPy, on random inputs: the vehicle PD (rotation
and Euler angles by SciPy's Rotation, the angle errors wrapped, the Euler-rate map of Fossen
2011, eq. 2.29), the joint PID (integral clamped, references by inverse kinematics checked
through the forward kinematics and its Jacobian) and the pseudo-inverse allocation (thrust
limits, bias along a balanced group, the PWM map with its dead band).

Tolerances: the references compute the same quantities by other operations (SciPy's rotation
matrices, a least-squares pseudo-inverse, the roots of the thrust polynomial), so they agree to
round-off of the largest term: 1e-9 relative to the gains times the errors (|tau| ~ 1e3 N at
most), 1e-9 us on PWM commands near 1500 us. The task-space rates are checked against a
central-difference Jacobian (step 1e-6 rad, error ~1e-10 rad/s), hence 1e-7.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from orchestrator.controllers.allocation import ThrustAllocation, ThrusterModel
from orchestrator.controllers.autopilot import DepthHeadingSpeedAutopilot
from orchestrator.controllers.joint_control import JointPID
from orchestrator.controllers.vehicle_pd import VehiclePD
from orchestrator.native.controllers import AT_EDGE, NOT_FINITE, OUT_OF_REACH, LawGroup, step_laws
from orchestrator.scenario.model import AutopilotConfig, JointPIDConfig, VehiclePDConfig

rng = np.random.default_rng(20240601)

KP = np.array([300.0, 500.0, 300.0, 300.0, 300.0, 300.0])
KD = np.array([100.0, 90.0, 80.0, 70.0, 60.0, 50.0])
# x: a sine (2 s period), y: a ramp from 1 s, z: constant, yaw: a fast ramp that wraps
TERMS = {
    "x": [{"amplitude": 0.5, "period": 2.0, "phase": 0.3}],
    "y": [{"slope": 0.2, "start": 1.0}],
    "z": [{"offset": 2.0}],
    "yaw": [{"offset": 3.0, "slope": 1.5}],
}


def pose_reference(t: float) -> tuple[np.ndarray, np.ndarray]:
    """eta_d (m, rad) and its rate at time t, written from TERMS."""
    w = 2 * np.pi / 2.0
    eta = np.array(
        [0.5 * np.sin(w * t + 0.3), 0.2 * t if t > 1.0 else 0.0, 2.0, 0, 0, 3.0 + 1.5 * t]
    )
    rate = np.array([0.5 * w * np.cos(w * t + 0.3), 0.2 if t > 1.0 else 0.0, 0, 0, 0, 1.5])
    return eta, rate


def pd_reference(t: float, u: np.ndarray) -> np.ndarray:
    """tau = J' (Kp e + Kd (eta_d' - J nu)), J = diag(R, T),
    e = [p_d - p, wrap(Theta_d - Theta)]."""
    p, q, nu = u[:3], u[3:7], u[7:]
    rotation = Rotation.from_quat(np.roll(q, -1))  # SciPy: scalar last
    R = rotation.as_matrix()
    yaw, pitch, roll = rotation.as_euler("ZYX")
    T = np.array(
        [
            [1, np.sin(roll) * np.tan(pitch), np.cos(roll) * np.tan(pitch)],
            [0, np.cos(roll), -np.sin(roll)],
            [0, np.sin(roll) / np.cos(pitch), np.cos(roll) / np.cos(pitch)],
        ]
    )
    J = np.block([[R, np.zeros((3, 3))], [np.zeros((3, 3)), T]])
    eta_d, rate_d = pose_reference(t)
    error = np.concatenate(
        [eta_d[:3] - p, np.mod(eta_d[3:] - [roll, pitch, yaw] + np.pi, 2 * np.pi) - np.pi]
    )
    return J.T @ (KP * error + KD * (rate_d - J @ nu))


def vehicle_pd(name: str) -> VehiclePD:
    """The vehicle PD of the gains KP, KD on the reference TERMS, sampled every 10 ms."""
    config = VehiclePDConfig(
        type="vehicle_pd",
        sample_time=0.01,
        vehicle="rov",
        kp=KP.tolist(),
        kd=KD.tolist(),
        reference=TERMS,
    )
    return VehiclePD(name, config)


def test_vehicle_pd_equals_the_law_on_random_states():
    pd = vehicle_pd("pd")
    wrapped = 0
    for _ in range(2000):
        t = rng.uniform(0.0, 10.0)
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        if abs(Rotation.from_quat(np.roll(q, -1)).as_euler("ZYX")[1]) > 1.4:
            continue  # T is singular at pitch +-90 deg
        u = np.concatenate([rng.normal(size=3), q, rng.normal(size=6)])
        tau, expected = pd.step(t, u), pd_reference(t, u)
        np.testing.assert_allclose(tau, expected, rtol=0, atol=1e-9 * np.abs(expected).max() + 1e-9)
        wrapped += (
            abs(3.0 + 1.5 * t - Rotation.from_quat(np.roll(q, -1)).as_euler("ZYX")[0]) > np.pi
        )
    assert wrapped > 500  # the yaw error was wrapped in many of the samples


def forward(q: np.ndarray, upper: float, fore: float) -> np.ndarray:
    """End effector of the arm (the module docstring of arm_kinematics), written here."""
    reach = -(upper * np.sin(q[1]) + fore * np.sin(q[1] + q[2]))
    return np.array(
        [
            reach * np.cos(q[0]),
            reach * np.sin(q[0]),
            upper * np.cos(q[1]) + fore * np.cos(q[1] + q[2]),
        ]
    )


def jacobian(q: np.ndarray, upper: float, fore: float) -> np.ndarray:
    h = 1e-6
    return np.column_stack(
        [
            (forward(q + h * e, upper, fore) - forward(q - h * e, upper, fore)) / (2 * h)
            for e in np.eye(3)
        ]
    )


GAINS = [
    {"kp": 2.0, "ki": 0.5, "kd": 0.3, "integral_limit": 0.05},  # the integral saturates
    {"kp": 0.8, "ki": 0.05, "kd": 0.004},
    {"kp": 0.5, "ki": 0.0, "kd": 0.5},  # no integral
    {"kp": 1.5, "ki": 2.0, "kd": 0.1, "integral_limit": 0.5},
]


def joint_pid(elbow: str = "down", radius: float = 0.08) -> JointPID:
    config = JointPIDConfig(
        type="joint_pid",
        sample_time=0.01,
        loops={
            "q1": {"gains": GAINS[0]},
            "q2": {"gains": GAINS[1]},
            "q3": {"gains": GAINS[2]},
            "q4": {
                "gains": GAINS[3],
                "reference": [{"amplitude": 0.7, "period": 3.0}],
                "feedforward": [{"offset": 0.25}],
            },
        },
        targets={
            "arm": {
                "joints": ["q1", "q2", "q3"],
                "upper_arm": 0.12,
                "forearm": 0.25,
                "elbow": elbow,
                "x": [{"offset": 0.2, "amplitude": radius, "period": 5.0}],
                "y": [{"offset": 0.05, "slope": 0.002}],
                "z": [{"offset": 0.11, "amplitude": radius, "period": 5.0, "phase": np.pi / 2}],
            }
        },
    )
    return JointPID("joints", config)


def path(t: float) -> tuple[np.ndarray, np.ndarray]:
    w = 2 * np.pi / 5.0
    point = np.array(
        [0.2 + 0.08 * np.sin(w * t), 0.05 + 0.002 * t, 0.11 + 0.08 * np.sin(w * t + np.pi / 2)]
    )
    velocity = np.array([0.08 * w * np.cos(w * t), 0.002, 0.08 * w * np.cos(w * t + np.pi / 2)])
    return point, velocity


@pytest.mark.parametrize("elbow", ["down", "up"])
def test_joint_pid_equals_the_law_with_clamped_integrals(elbow):
    pid = joint_pid(elbow)
    integral, dt = np.zeros(4), 0.01
    limits = np.array([0.05 / 0.5, np.inf, 0.0, 0.5 / 2.0])  # integral_limit / ki
    clamped = np.zeros(4, bool)
    for k in range(1, 1500):
        t = k * dt
        u = rng.normal(size=8) * np.array([0.3, 1.0] * 4)
        out = pid.step(t, u)
        angles_d = out[4:]
        point, velocity = path(t)
        np.testing.assert_allclose(forward(angles_d[:3], 0.12, 0.25), point, atol=1e-12)
        elbow_sign = np.sign(-angles_d[2])  # bend = -q3: positive with the elbow down
        assert elbow_sign == (1 if elbow == "down" else -1)
        rates_d = np.zeros(4)
        rates_d[:3] = np.linalg.solve(jacobian(angles_d[:3], 0.12, 0.25), velocity)
        w = 2 * np.pi / 3.0
        assert angles_d[3] == pytest.approx(0.7 * np.sin(w * t), abs=1e-15)
        rates_d[3] = 0.7 * w * np.cos(w * t)
        error, error_rate = angles_d - u[0::2], rates_d - u[1::2]
        ki = np.array([g["ki"] for g in GAINS])
        integral = np.where(ki != 0, np.clip(integral + error * dt, -limits, limits), integral)
        clamped |= (ki != 0) & (np.abs(integral) == limits)
        kp, kd = np.array([g["kp"] for g in GAINS]), np.array([g["kd"] for g in GAINS])
        expected = kp * error + ki * integral + kd * error_rate + [0, 0, 0, 0.25]
        # the reference rates from a finite-difference Jacobian: 1e-7 rad/s, times kd
        np.testing.assert_allclose(out[:4], expected, atol=1e-7)
        np.testing.assert_allclose(pid.compiled_law.state, integral, atol=1e-12)
    assert clamped[0] and clamped[3]  # the anti-windup bound acted
    assert pid.compiled_law.state[2] == 0.0  # no integral without ki


def test_joint_pid_out_of_reach_is_an_error_naming_the_point():
    pid = joint_pid(radius=0.3)  # the circle leaves the arm's reach (0.37 m)
    with pytest.raises(ValueError, match=r"end-effector point \[.*\] m is out of reach"):
        for k in range(500):
            pid.step(k * 0.01, np.zeros(8))


def thrusters() -> list[ThrusterModel]:
    """Seven thrusters: four vectored ones as on a BlueROV2 Heavy, whose equal thrusts cancel
    (the one balanced group), and three vertical ones."""
    c = math.sqrt(0.5)
    corners = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    placed = [([0.156 * sx, 0.111 * sy, 0.085], [c * sx, -c * sy, 0.0]) for sx, sy in corners]
    vertical = [(0.12, 0.218), (0.12, -0.218), (-0.2, 0.0)]
    placed += [([x, y, 0.0], [0.0, 0.0, 1.0]) for x, y in vertical]
    spins = [1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0]
    return [
        ThrusterModel(
            instance=f"t{k + 1}",
            position=np.array(position),
            direction=np.array(direction),
            spin=spins[k],
            torque_arm=0.01,
            K_L=0.01,
            K_Q=1.2e-4,
            dead_zone=25.0,
            pwm_neutral=1500.0,
            pwm_min=1100.0,
            pwm_max=1900.0,
        )
        for k, (position, direction) in enumerate(placed)
    ]


def allocation(bias: float) -> ThrustAllocation:
    return ThrustAllocation(
        "allocation",
        0.01,
        ["pd.tau", "extra.tau"],
        lambda x: thrusters(),
        np.zeros(1),
        "pseudo_inverse",
        bias,
        (),
        np.inf,
        {},
    )


def pwm_reference(t: ThrusterModel, thrust: float) -> float:
    """The PWM whose static thrust K_L o + K_Q |o| o is ``thrust`` (a root of the polynomial),
    an offset inside the dead zone rounded to 0 or to its edge, whichever gives the closer
    thrust."""
    roots = np.roots([t.K_Q, t.K_L, -abs(thrust)])
    offset = float(max(roots.real))
    if offset <= t.dead_zone:
        edge = t.dead_zone + 1e-9
        offset = 0.0 if abs(thrust) < 0.5 * (t.K_L * edge + t.K_Q * edge * edge) else edge
    return t.pwm_neutral + math.copysign(offset, thrust)


@pytest.mark.parametrize("bias", [0.0, 1.5])
def test_pseudo_inverse_allocation_equals_the_law(bias):
    alloc = allocation(bias)
    models = alloc.thrusters
    T = alloc.configuration
    T_plus = np.linalg.lstsq(T, np.eye(6), rcond=None)[0]  # the least-norm solution map
    limits = np.array([t.max_thrust() for t in models])
    group = np.array([1.0, 1, 1, 1, 0, 0, 0])  # the vectored four push against each other
    np.testing.assert_allclose(T @ group, 0.0, atol=1e-15)
    saturated = dead = 0
    for k in range(3000):
        scale = [0.5, 30.0, 200.0][k % 3]  # inside the dead band, ordinary, saturated
        commands = rng.normal(size=12) * scale
        thrust = T_plus @ (commands[:6] + commands[6:])
        if bias:
            thrust = (
                thrust + max(0.0, np.max((bias - thrust[group > 0]) / group[group > 0])) * group
            )
        peak = np.max(np.abs(thrust) / limits)
        saturated += peak > 1
        thrust = thrust / max(peak, 1.0)
        expected = [pwm_reference(t, u) for t, u in zip(models, thrust, strict=True)]
        dead += sum(abs(u) < t.dead_band() for t, u in zip(models, thrust, strict=True))
        np.testing.assert_allclose(alloc.step(0.0, commands), expected, rtol=0, atol=1e-9)
    assert saturated > 500 and dead > 500


def test_group_samples_laws_on_the_state_and_the_bus_and_holds_a_failed_one():
    """One LawGroup call equals the members' own steps, reads the bus as the members before it
    left it, and holds a member's outputs when it fails (out of reach, non-finite)."""
    pd = vehicle_pd("pd")
    alloc = allocation(0.0)
    alloc_self = allocation(0.0)
    twin = vehicle_pd("twin")
    pid, pid_twin = joint_pid(radius=0.15), joint_pid(radius=0.15)
    x = rng.normal(size=30)
    x[3:7] /= np.linalg.norm(x[3:7])
    bus = np.zeros(
        6 + 8 + 8 + 6
    )  # pd.tau, joint angles and rates, torques and references, extra tau
    bus[6:14] = rng.normal(size=8)
    bus[22:] = rng.normal(size=6)
    fmu = np.zeros(7)
    group = LawGroup(len(x), len(bus))
    buffers = {}
    for name, law, sources, slots, entries in [
        ("pd", pd.compiled_law, list(range(13)), list(range(6)), [-1] * 6),
        (
            "alloc",
            alloc.compiled_law,
            [-1 - s for s in range(6)] + [-1 - s for s in range(22, 28)],
            [-1] * 7,
            list(range(7)),
        ),
        ("pid", pid.compiled_law, [-1 - s for s in range(6, 14)], list(range(14, 22)), [-1] * 8),
    ]:
        n_in, n_out = len(sources), len(slots)
        buffers[name] = (np.zeros(n_in), np.zeros(n_out), np.zeros(n_out))
        group.add(law, sources, slots, entries, fmu, *buffers[name])
    held_pid = np.zeros(8)
    for k in range(400):
        t = k * 0.01
        faults = group.sample(t, x, bus)
        tau = twin.step(t, x[:13])
        np.testing.assert_array_equal(bus[:6], tau)
        np.testing.assert_array_equal(fmu, alloc_self.step(t, np.concatenate([tau, bus[22:]])))
        try:
            expected = pid_twin.step(t, bus[6:14])
        except ValueError:
            assert faults == 1 and group.statuses()[2] in (OUT_OF_REACH, AT_EDGE)
            np.testing.assert_array_equal(bus[14:22], held_pid)
            break
        np.testing.assert_array_equal(bus[14:22], expected)
        held_pid = expected
    else:
        pytest.fail("the path never left the arm's reach")
    x[7] = np.nan  # a non-finite state: the PD's outputs are held, the allocation keeps them
    before = bus[:6].copy()
    assert group.sample(5.0, x, bus) >= 1 and group.statuses()[0] == NOT_FINITE
    np.testing.assert_array_equal(bus[:6], before)


# the autopilot's loops (depth, surge, sway, roll, pitch, heading): an integral in every loop
# but the heading's, the bounds small enough that random errors drive them to the clamp (the
# sway's error is zero: its integral stays zero)
AUTOPILOT_GAINS = {
    "depth": {"kp": 60.0, "ki": 6.0, "kd": 50.0, "integral_limit": 2.0},
    "surge": {"kp": 60.0, "ki": 15.0, "integral_limit": 3.0},
    "sway": {"ki": 5.0, "kd": 20.0, "integral_limit": 0.5},
    "roll": {"kp": 6.0, "ki": 2.0, "kd": 1.5, "integral_limit": 0.1},
    "pitch": {"kp": 6.0, "ki": 4.0, "kd": 1.5, "integral_limit": 0.2},
    "heading": {"kp": 4.0, "kd": 2.0},
}
# set points: a heading of 180 deg (the wrap at +-pi), changed at 1 s (depth only) and 2 s
# (heading -180 deg and speed), given out of order
SET_POINT_CHANGES = [
    {"time": 2.0, "heading": -180.0, "surge_speed": -0.3},
    {"time": 1.0, "depth": 4.5},
]


def autopilot(name: str = "autopilot") -> DepthHeadingSpeedAutopilot:
    config = AutopilotConfig(
        type="depth_heading_speed",
        sample_time=0.05,
        vehicle="rov",
        depth=2.0,
        heading=180.0,
        surge_speed=0.5,
        changes=SET_POINT_CHANGES,
        gains=AUTOPILOT_GAINS,
    )
    return DepthHeadingSpeedAutopilot(name, config)


def autopilot_set_points(t: float) -> tuple[float, float, float]:
    """Depth (m), heading (deg), speed (m/s) of SET_POINT_CHANGES at t, written here."""
    if t >= 2.0:
        return 4.5, -180.0, -0.3
    return (4.5 if t >= 1.0 else 2.0), 180.0, 0.5


class AutopilotReference:
    """The autopilot's law with NumPy and SciPy: R and the zyx angles by SciPy's Rotation,
    the heading error wrapped by np.mod, the integrals advanced and clipped here."""

    def __init__(self, dt: float) -> None:
        loops = [AUTOPILOT_GAINS[k] for k in ("depth", "surge", "sway", "roll", "pitch", "heading")]
        self.kp, self.ki, self.kd = (
            np.array([g.get(k, 0.0) for g in loops]) for k in ["kp", "ki", "kd"]
        )
        self.bound = np.array([g.get("integral_limit", np.inf) for g in loops]) / np.where(
            self.ki > 0, self.ki, 1.0
        )
        self.integral = np.zeros(6)
        self.dt = dt

    def step(self, t: float, u: np.ndarray) -> np.ndarray:
        p, q, nu = u[:3], u[3:7], u[7:]
        rotation = Rotation.from_quat(np.roll(q, -1))  # SciPy: scalar last
        down = rotation.as_matrix()[2]  # NED z in body axes: R' e_z
        yaw, pitch, roll = rotation.as_euler("ZYX")
        depth, heading, speed = autopilot_set_points(t)
        yaw_error = np.mod(np.radians(heading) - yaw + np.pi, 2 * np.pi) - np.pi
        error = np.array([depth - p[2], speed - nu[0], 0.0, -roll, -pitch, yaw_error])
        rate = np.array([-down @ nu[:3], 0.0, -nu[1], -nu[3], -nu[4], -nu[5]])
        integrating = self.ki > 0
        advanced = np.clip(self.integral + error * self.dt, -self.bound, self.bound)
        self.integral = np.where(integrating, advanced, self.integral)
        action = self.kp * error + self.ki * self.integral + self.kd * rate
        force = down * action[0] + np.array([action[1], action[2], 0.0])
        return np.concatenate([force, action[3:], [depth, heading, speed]])


def body_state(heading_near_pi: bool) -> np.ndarray:
    """A random body state (p, unit q, nu); with ``heading_near_pi`` a yaw within 0.2 rad of
    +-pi (the heading error then wraps), pitch and roll below 0.5 rad."""
    if heading_near_pi:
        yaw = np.pi + rng.uniform(-0.2, 0.2)
        q = Rotation.from_euler("ZYX", [yaw, *rng.uniform(-0.5, 0.5, 2)]).as_quat()
        q = np.roll(q, 1)
    else:
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
    return np.concatenate([rng.normal(size=3) * [5, 5, 2], q, rng.normal(size=6)])


def test_autopilot_equals_the_law_with_clamped_integrals_and_the_heading_wrapped():
    """2000 samples at random times and states (a third with the yaw near +-pi, where the
    180 deg heading error wraps): tau within 1e-9 of the largest term (the same quantities by
    SciPy's rotations), the integrals within 1e-12 and at their bound exactly when clamped,
    the set points exact."""
    pilot, reference = autopilot(), AutopilotReference(0.05)
    clamped = np.zeros(6, int)
    wrapped = 0
    for k in range(2000):
        t = rng.uniform(0.0, 3.0)
        u = body_state(heading_near_pi=k % 3 == 0)
        if abs(Rotation.from_quat(np.roll(u[3:7], -1)).as_euler("ZYX")[1]) > 1.4:
            continue  # roll and yaw are ill-conditioned near pitch +-90 deg
        outputs, expected = pilot.step(t, u), reference.step(t, u)
        scale = 1e-9 * np.abs(expected[:6]).max() + 1e-9
        np.testing.assert_allclose(outputs[:6], expected[:6], rtol=0, atol=scale)
        np.testing.assert_array_equal(outputs[6:], expected[6:])
        state = pilot.compiled_law.state
        np.testing.assert_allclose(state, reference.integral, rtol=0, atol=1e-12)
        at_bound = np.abs(reference.integral) == reference.bound
        np.testing.assert_array_equal(np.abs(state[at_bound]), reference.bound[at_bound])
        clamped += at_bound
        yaw = Rotation.from_quat(np.roll(u[3:7], -1)).as_euler("ZYX")[0]
        wrapped += abs(np.radians(expected[7]) - yaw) > np.pi
    # each integral clamped in many samples, but the sway's (its error is zero) and the
    # heading's (no ki), which stay zero
    assert (clamped[[0, 1, 3, 4]] > 100).all() and not clamped[[2, 5]].any()
    assert pilot.compiled_law.state[2] == pilot.compiled_law.state[5] == 0.0
    assert wrapped > 300  # the heading error was wrapped in many samples


def test_autopilots_stepped_in_one_call_equal_each_alone_bit_for_bit():
    """step_laws over autopilots (each its own integrals) and a joint PID whose target is out
    of reach: every autopilot's outputs are those of its twin stepped alone, bit for bit, and
    the failing law leaves its part of the outputs as it was."""
    pilots, twins = [autopilot(f"a{k}") for k in range(4)], [autopilot(f"a{k}") for k in range(4)]
    arm = joint_pid(radius=2.0)  # the path, 1.8 m from the shoulder or more, out of reach
    laws = [p.compiled_law for p in pilots[:2]] + [arm.compiled_law]
    laws += [p.compiled_law for p in pilots[2:]]
    for _ in range(200):
        t = rng.uniform(0.0, 3.0)
        states = [body_state(heading_near_pi=True) for _ in pilots]
        angles = rng.normal(size=8)
        inputs = np.concatenate([*states[:2], angles, *states[2:]])
        outputs = np.full(4 * 9 + 8, 7.0)
        statuses = step_laws(laws, t, inputs, outputs)
        assert statuses == [0, 0, OUT_OF_REACH, 0, 0]
        np.testing.assert_array_equal(outputs[18:26], 7.0)  # the failed law's part untouched
        alone = np.concatenate([twin.step(t, s) for twin, s in zip(twins, states, strict=True)])
        np.testing.assert_array_equal(np.concatenate([outputs[:18], outputs[26:]]), alone)
    for pilot, twin in zip(pilots, twins, strict=True):
        np.testing.assert_array_equal(pilot.compiled_law.state, twin.compiled_law.state)


def test_autopilot_reset_starts_it_anew():
    """After reset, the same inputs give the outputs of the first run (the integrals zero)."""
    pilot = autopilot()
    samples = [(0.05 * k, body_state(False)) for k in range(5)]
    first = [pilot.step(t, u) for t, u in samples]
    assert pilot.compiled_law.state.any()
    pilot.reset()
    assert not pilot.compiled_law.state.any()
    np.testing.assert_array_equal([pilot.step(t, u) for t, u in samples], first)
