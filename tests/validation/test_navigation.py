"""The navigation filter: its propagation against closed forms, its measurement Jacobians
against finite differences, late measurements fused as if on time, and its consistency over
50 Monte-Carlo runs (normalized estimation error squared in the chi-square band)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from navigation_truth import run
from scipy.stats import chi2

from orchestrator.kinematics import quaternion_from_euler, quaternion_product
from orchestrator.navigation import measurements
from orchestrator.navigation.eskf import (
    POSITION,
    SIZE,
    VELOCITY,
    ErrorStateFilter,
    Measurement,
    NavigationState,
    ProcessNoise,
    Update,
)
from orchestrator.navigation.history import LaggedFusion, Step, measurement_step, propagation_step
from orchestrator.sensors.mount import Mount

G = 9.81
LEVEL = np.array([1.0, 0.0, 0.0, 0.0])


def at_rest(**noise: float) -> ErrorStateFilter:
    """A filter at rest at the origin, level, with zero covariance."""
    densities = {"accel_density": 0.0, "gyro_density": 0.0}
    densities |= {"accel_bias_driving": 0.0, "gyro_bias_driving": 0.0} | noise
    zero = np.zeros(3)
    state = NavigationState(zero, zero, LEVEL, zero, zero)
    return ErrorStateFilter(state, np.zeros((SIZE, SIZE)), ProcessNoise(**densities), 0.01, G)


def test_random_walk_of_accelerometer_noise():
    """Accelerometer white noise of density N at rest: velocity variance N^2 t exactly
    (a random walk), position variance N^2 t^3 / 3 (its integral) within 1 % at 10 s
    (the sum over 1000 steps of 10 ms differs from the integral by O(dt / t))."""
    density, t = 4e-3, 10.0
    f = at_rest(accel_density=density)
    for _ in range(1000):
        f.propagate(np.zeros(3), np.array([0.0, 0.0, -G]))
    P = f.covariance
    np.testing.assert_allclose(np.diag(P)[VELOCITY], density**2 * t, rtol=1e-12)
    np.testing.assert_allclose(np.diag(P)[POSITION], density**2 * t**3 / 3, rtol=0.01)
    np.testing.assert_allclose(f.state.p, 0.0, atol=1e-15)  # gravity cancelled exactly


def test_constant_rate_turn_and_circle():
    """A constant yaw rate w with surge speed u and the centripetal specific force u w: the
    attitude turns by w t exactly and the position runs on the circle of radius u / w (to the
    step's O(dt^2) error: 1e-4 m over a quarter turn)."""
    u, w, steps, dt = 1.0, 0.2, 785, 0.01
    f = at_rest()
    f.state = NavigationState(np.zeros(3), np.array([u, 0.0, 0.0]), LEVEL, *[np.zeros(3)] * 2)
    for _ in range(steps):
        f.propagate(np.array([0.0, 0.0, w]), np.array([0.0, u * w, -G]))
    angle = w * steps * dt
    np.testing.assert_allclose(f.state.q, quaternion_from_euler(0, 0, angle), atol=1e-12)
    circle = u / w * np.array([math.sin(angle), 1 - math.cos(angle), 0.0])
    np.testing.assert_allclose(f.state.p, circle, atol=1e-4)


def perturbed(state: NavigationState, dx: np.ndarray) -> NavigationState:
    return state.corrected(dx)


MOUNT = Mount.from_euler((0.3, -0.1, 0.2), (0.1, -0.2, 0.3))
STATE = NavigationState(
    np.array([1.0, -2.0, 3.0]),
    np.array([0.5, 0.1, -0.05]),
    quaternion_from_euler(0.1, -0.05, 0.8),
    np.array([0.01, -0.02, 0.03]),
    np.array([1e-3, -2e-3, 3e-3]),
    0.02,
)
RATE = np.array([0.05, -0.02, 0.1])
MODELS = {
    "dvl": measurements.VelocityOverGround(MOUNT).reading(RATE, np.zeros(3), np.eye(3)),
    "depth": measurements.Depth(MOUNT, 1.0).reading(0.0),
    "ahrs": measurements.Attitude(MOUNT, np.ones(3), 0.1).reading(np.zeros(3)),
    "usbl": measurements.Position(MOUNT, 1.0, 0.01, (5.0, 0.0, 0.0)).reading(np.zeros(3)),
}


def linearised(measurement: Measurement, state: NavigationState) -> Update:
    """The measurement's model at ``state``."""
    f = at_rest()
    f.state = state
    return f.linearised(measurement)


@pytest.mark.parametrize("sensor", MODELS)
def test_jacobians_against_finite_differences(sensor):
    """Each Jacobian equals the central difference of the residual over the error state
    (step 1e-6: truncation ~1e-12, rounding ~1e-10), to 1e-7."""
    model = MODELS[sensor]
    H = linearised(model, STATE).jacobian
    numeric = np.zeros_like(H)
    for i in range(SIZE):
        dx = np.zeros(SIZE)
        dx[i] = 1e-6
        plus = linearised(model, STATE.corrected(dx))
        minus = linearised(model, STATE.corrected(-dx))
        numeric[:, i] = -(plus.residual - minus.residual) / 2e-6  # residual = z - h
    np.testing.assert_allclose(H, numeric, atol=1e-7)


def test_late_measurement_fused_as_if_on_time():
    """A velocity fix arriving 0.19 s late and fused at its time of validity leaves the
    filter where the same fix fused on time does (to rounding)."""

    def fusion() -> LaggedFusion:
        f = at_rest(accel_density=4e-3, gyro_density=3e-4)
        f.covariance = np.eye(SIZE) * 0.01
        return LaggedFusion(f, horizon=1.0)

    mount = Mount.from_euler((0, 0, 0), (0, 0, 0))
    ping = measurements.VelocityOverGround(mount).reading(
        np.zeros(3), np.array([0.1, 0.0, 0.0]), 1e-4 * np.eye(3)
    )
    fix = measurement_step(0.3, ping)
    sample = np.array([0.0, 0.0, 0.1, 0.05, 0.0, -G])  # rate, specific force
    on_time, late = fusion(), fusion()
    for k in range(1, 61):
        t = k * 0.01
        on_time.add([propagation_step(t, sample)] + ([fix] if k == 30 else []))
        late.add([propagation_step(t, sample)] + ([fix] if k == 49 else []))
    np.testing.assert_allclose(late.filter.state.v, on_time.filter.state.v, atol=1e-14)
    np.testing.assert_allclose(late.filter.covariance, on_time.filter.covariance, atol=1e-14)
    assert on_time.filter.state.v[0] > 0.05  # the fix was fused


def test_stale_and_outlying_fixes_are_dropped_and_counted():
    f = at_rest()
    f.covariance = np.eye(SIZE) * 0.01
    fusion = LaggedFusion(f, horizon=0.5)
    mount = Mount.from_euler((0, 0, 0), (0, 0, 0))

    def fix(t: float, where: float) -> Step:
        point = np.array([where, 0.0, 0.0])
        return measurement_step(t, measurements.Position(mount, 0.1).reading(point))

    for k in range(1, 101):
        fusion.add([propagation_step(k * 0.01, np.array([0.0, 0.0, 0.0, 0.0, 0.0, -G]))])
    fusion.add([fix(0.2, 0.0)])  # 0.8 s late, beyond the 0.5 s history
    fusion.add([fix(0.95, 5.0)])  # 5 m off a position known to 0.1 m
    assert (fusion.stale, fusion.rejected) == (1, 1)
    np.testing.assert_allclose(fusion.filter.state.p, 0.0, atol=1e-15)


RUNS, DURATION = 50, 10.0


def attitude_error(estimate: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """dtheta with truth = estimate (x) exp(dtheta), body frame (rad)."""
    dq = quaternion_product(estimate * np.array([1, -1, -1, -1]), truth)
    return 2 * np.sign(dq[0]) * dq[1:]


@pytest.mark.slow
def test_nees_in_chi_square_band_over_50_runs():
    """Bar-Shalom, Li and Kirubarajan (2001, Sec. 5.4.2): over N runs the average NEES of a
    consistent filter is chi-square with N n degrees of freedom over N; the two-sided 95 %
    band for N = 50 and the n = 16 error states is [14.5, 17.6]. The BlueROV2-class suite
    (IMU at 100 Hz, DVL 0.19 s late, depth, AHRS with its wandering heading error, acoustic
    fixes 1 s apart) on a 10 s manoeuvre (up to 1 m/s, 46 deg of yaw), sampled every 0.1 s:
    the full 16-state NEES, and that of position, velocity and attitude alone (n = 9, what the
    controllers fly on), lie in their bands at least 90 % of the time. The truth is the
    closed-form manoeuvre and the sensor models' own bias and drift states; the filter is
    matched to the sensors (still water, no USBL outliers), as the test presumes."""
    nees: dict[int, list[list[float]]] = {16: [], 9: []}
    for seed in range(1, RUNS + 1):
        _, record = run(seed, DURATION)
        rows: dict[int, list[float]] = {16: [], 9: []}
        for k in range(0, len(record.time), 10):
            p, v, q, accel_bias, gyro_bias, heading = record.truth[k]
            p_, v_, q_, accel_bias_, gyro_bias_, heading_, P = record.estimate[k]
            e = np.concatenate(
                [
                    p - p_,
                    v - v_,
                    attitude_error(q_, q),
                    accel_bias - accel_bias_,
                    gyro_bias - gyro_bias_,
                    [heading - heading_],
                ]
            )
            for n in rows:
                rows[n].append(float(e[:n] @ np.linalg.solve(P[:n, :n], e[:n])))
        for n in rows:
            nees[n].append(rows[n])
    for n, runs in nees.items():
        average = np.mean(runs, axis=0)
        low, high = chi2.ppf([0.025, 0.975], RUNS * n) / RUNS
        inside = np.mean((average >= low) & (average <= high))
        print(
            f"n = {n}: band [{low:.2f}, {high:.2f}], mean {average.mean():.2f}, inside {inside:.1%}"
        )
        assert inside >= 0.9, (n, inside, average.round(1))
