"""The compiled navigation filter against a straightforward reference written here: the
error-state Kalman filter of Sola (Quaternion kinematics for the error-state Kalman filter,
2017, Sec. 5 to 7, local angular error) with the velocity in the body frame, as the module
docstring of ``orchestrator.navigation.eskf`` states it, in dense NumPy matrices, with SciPy's
rotations for the attitude algebra; the late measurements by running the reference again from
its first step. Random states, covariances, IMU samples and readings of every aiding sensor,
outliers that the gate rejects, late and stale measurements.

Tolerance: 1e-11 relative to each quantity's scale (a block of the nominal state by its
largest entry, a covariance entry P_ij by sqrt(P_ii P_jj)). The two compute the same
expressions in another order (sparse against dense products, Cholesky against explicit
inverses, SciPy's rotations against quaternion products), so they part by rounding only: a few
1e-16 per operation, amplified where an update subtracts terms much larger than its result (a
precise reading shrinking a variance; a small bias corrected through gains of a large
position covariance). Measured over these cases: up to 2e-12 for the covariance and the
accelerometer and gyroscope biases, 5e-12 for the compass error, below 5e-14 for position,
velocity and attitude.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import block_diag
from scipy.spatial.transform import Rotation
from scipy.stats import chi2

from orchestrator.navigation import measurements
from orchestrator.navigation.eskf import (
    ErrorStateFilter,
    Measurement,
    NavigationState,
    ProcessNoise,
)
from orchestrator.navigation.history import LaggedFusion, measurement_step, propagation_step
from orchestrator.sensors.mount import Mount

DT, G, GATE = 0.01, 9.81, 0.9999
I3 = np.eye(3)


def matrix(q: np.ndarray) -> np.ndarray:
    """Body to NED rotation of a scalar-first quaternion (SciPy's are scalar last)."""
    return Rotation.from_quat(np.roll(q, -1)).as_matrix()


def quaternion(R: Rotation, near: np.ndarray) -> np.ndarray:
    """Scalar-first quaternion of ``R``, of the sign that keeps it ``near`` the last one."""
    q = np.roll(R.as_quat(), 1)
    return q if q @ near >= 0 else -q


def sk(a: np.ndarray) -> np.ndarray:
    return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


class Reference:
    """The filter as dense matrices: x = (p, v, q, b_a, b_g, d), P (16, 16)."""

    def __init__(self, state: NavigationState, P: np.ndarray, noise: ProcessNoise) -> None:
        self.p, self.v, self.q = state.p.copy(), state.v.copy(), state.q.copy()
        self.ba, self.bg, self.d = (
            state.accel_bias.copy(),
            state.gyro_bias.copy(),
            state.heading_error,
        )
        self.P = P.copy()
        self.noise = noise
        self.decay = np.exp(-DT / noise.heading_time_constant)
        tau = noise.heading_time_constant
        self.heading_variance = noise.heading_driving**2 * tau / 2 * (1 - np.exp(-2 * DT / tau))

    def copy(self) -> Reference:
        other = object.__new__(Reference)
        other.__dict__ = {
            k: np.copy(v) if isinstance(v, np.ndarray) else v for k, v in vars(self).items()
        }
        return other

    def propagate(self, rate: np.ndarray, force: np.ndarray) -> None:
        n, R = self.noise, matrix(self.q)
        w = rate - self.bg
        a = force - self.ba + R.T @ np.array([0, 0, G]) - np.cross(w, self.v)
        F = np.eye(16)
        F[0:3, 3:6] = R * DT
        F[0:3, 6:9] = -R @ sk(self.v) * DT
        F[3:6, 3:6] = I3 - sk(w) * DT
        F[3:6, 6:9] = sk(R.T @ np.array([0, 0, G])) * DT
        F[3:6, 9:12] = -I3 * DT
        F[3:6, 12:15] = -sk(self.v) * DT
        F[6:9, 6:9] = Rotation.from_rotvec(w * DT).as_matrix().T
        F[6:9, 12:15] = -I3 * DT
        F[15, 15] = self.decay
        # noise impulses: accelerometer into dv, gyroscope into dtheta and (through w x v) dv,
        # bias walks, the compass error's driving noise
        Fi = np.zeros((16, 13))
        Fi[3:6, 0:3] = I3
        Fi[3:6, 3:6] = -sk(self.v)  # the gyroscope's noise enters as its bias does
        Fi[6:9, 3:6] = -I3
        Fi[9:15, 6:12] = np.eye(6)
        Fi[15, 12] = 1.0
        Qi = block_diag(
            n.accel_density**2 * DT * I3,
            n.gyro_density**2 * DT * I3,
            n.accel_bias_driving**2 * DT * I3,
            n.gyro_bias_driving**2 * DT * I3,
            [[self.heading_variance]],
        )
        Q = Fi @ Qi @ Fi.T
        self.P = F @ self.P @ F.T + Q
        middle = Rotation.from_quat(np.roll(self.q, -1)) * Rotation.from_rotvec(w * DT / 2)
        self.p = self.p + middle.as_matrix() @ (self.v * DT + a * DT**2 / 2)
        self.v = self.v + a * DT
        turned = Rotation.from_quat(np.roll(self.q, -1)) * Rotation.from_rotvec(w * DT)
        self.q = quaternion(turned, self.q)
        self.d = self.d * self.decay

    def model(self, kind: str, z: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Residual z - h(x), H and the noise covariance of a reading."""
        R, H = matrix(self.q), None
        mount = z.get("mount")
        if kind == "dvl":
            M, r = mount.rotation, mount.position
            w = z["rate"] - self.bg
            h = M.T @ (self.v + np.cross(w, r))
            H = np.zeros((3, 16))
            H[:, 3:6] = M.T
            H[:, 12:15] = M.T @ sk(r)  # d((rate - b_g) x r)/d(b_g) = [r]x
            return z["reading"] - h, H, z["cov"]
        if kind == "depth":
            r = mount.position
            h = self.p[2] + (R @ r)[2]
            H = np.zeros((1, 16))
            H[0, 2] = 1.0
            H[0, 6:9] = (-R @ sk(r))[2]
            return np.array([z["reading"] - h]), H, np.array([[z["std"] ** 2]])
        if kind == "ahrs":
            M = mount.rotation
            roll, pitch, yaw = Rotation.from_matrix(R @ M).as_euler("ZYX")[::-1]
            y = z["reading"] - np.array([roll, pitch, yaw + z["offset"] + self.d])
            y[2] = np.angle(np.exp(1j * y[2]))
            if y[2] == np.pi:
                y[2] = -np.pi
            T = np.array(
                [
                    [1, np.sin(roll) * np.tan(pitch), np.cos(roll) * np.tan(pitch)],
                    [0, np.cos(roll), -np.sin(roll)],
                    [0, np.sin(roll) / np.cos(pitch), np.cos(roll) / np.cos(pitch)],
                ]
            )
            H = np.zeros((3, 16))
            H[:, 6:9] = T @ M.T
            H[2, 15] = 1.0
            return y, H, np.diag(np.square(z["std"]))
        r = mount.position
        point = self.p + R @ r
        std = z["std"] + z["per_metre"] * np.linalg.norm(point - z["transceiver"])
        H = np.zeros((3, 16))
        H[:, 0:3] = I3
        H[:, 6:9] = -R @ sk(r)
        return z["reading"] - point, H, std**2 * I3

    def update(self, kind: str, z: dict) -> float | None:
        y, H, Rn = self.model(kind, z)
        S = H @ self.P @ H.T + Rn
        nis = float(y @ np.linalg.inv(S) @ y)
        if nis > chi2.ppf(GATE, len(y)):
            return None
        K = self.P @ H.T @ np.linalg.inv(S)
        dx = K @ y
        A = np.eye(16) - K @ H
        P = A @ self.P @ A.T + K @ Rn @ K.T
        self.p, self.v = self.p + dx[0:3], self.v + dx[3:6]
        turned = Rotation.from_quat(np.roll(self.q, -1)) * Rotation.from_rotvec(dx[6:9])
        self.q = quaternion(turned, self.q)
        self.ba, self.bg, self.d = self.ba + dx[9:12], self.bg + dx[12:15], self.d + dx[15]
        Gr = np.eye(16)
        Gr[6:9, 6:9] = I3 - sk(dx[6:9] / 2)
        self.P = Gr @ P @ Gr.T
        return nis

    def nominal(self) -> np.ndarray:
        return np.concatenate([self.p, self.v, self.q, self.ba, self.bg, [self.d]])


def random_mount(rng: np.random.Generator) -> Mount:
    return Mount.from_euler(tuple(rng.normal(0, 0.3, 3)), tuple(rng.uniform(-0.5, 0.5, 3)))


def random_start(rng: np.random.Generator) -> tuple[NavigationState, np.ndarray, ProcessNoise]:
    euler = [rng.uniform(-3, 3), rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4)]
    q = np.roll(Rotation.from_euler("ZYX", euler).as_quat(), 1)
    state = NavigationState(
        rng.normal(0, 5, 3),
        rng.normal(0, 0.5, 3),
        q,
        rng.normal(0, 0.05, 3),
        rng.normal(0, 0.005, 3),
        rng.normal(0, 0.05),
    )
    A = rng.normal(0, 1, (16, 16)) * np.repeat(
        [0.3, 0.05, 0.02, 0.01, 0.002, 0.02], [3, 3, 3, 3, 3, 1]
    )
    P = A @ A.T + np.diag(np.repeat([0.1, 0.01, 1e-3, 1e-4, 1e-6, 1e-3], [3, 3, 3, 3, 3, 1]))
    noise = ProcessNoise(
        accel_density=rng.uniform(1e-3, 1e-2),
        gyro_density=rng.uniform(1e-4, 1e-3),
        accel_bias_driving=rng.uniform(1e-5, 1e-4),
        gyro_bias_driving=rng.uniform(1e-6, 1e-5),
        heading_driving=rng.uniform(1e-4, 1e-3),
        heading_time_constant=rng.uniform(50, 500),
    )
    return state, P, noise


def random_reading(
    rng: np.random.Generator, kind: str, reference: Reference, outlier: bool
) -> tuple[dict, Measurement]:
    """A reading near (or, ``outlier``, far off) what the reference predicts, as the
    reference's dict and the filter's measurement."""
    mount = random_mount(rng)
    off = 50.0 if outlier else 1.0
    if kind == "dvl":
        cov = np.diag(rng.uniform(1e-4, 1e-2, 3))
        z = {"mount": mount, "rate": rng.normal(0, 0.2, 3), "cov": cov, "reading": np.zeros(3)}
        z["reading"] = z["reading"] - reference.model(kind, z)[0] + off * rng.normal(0, 0.05, 3)
        return z, measurements.VelocityOverGround(mount).reading(z["rate"], z["reading"], cov)
    if kind == "depth":
        z = {"mount": mount, "std": rng.uniform(0.01, 0.1), "reading": 0.0}
        z["reading"] = -reference.model(kind, z)[0][0] + off * rng.normal(0, 0.05)
        return z, measurements.Depth(mount, z["std"]).reading(z["reading"])
    if kind == "ahrs":
        std = rng.uniform(0.005, 0.05, 3)
        z = {"mount": mount, "std": std, "offset": rng.uniform(-0.3, 0.3), "reading": np.zeros(3)}
        z["reading"] = -reference.model(kind, z)[0] + off * rng.normal(0, 0.02, 3)
        z["reading"][2] = (z["reading"][2] + np.pi) % (
            2 * np.pi
        ) - np.pi  # a heading near +-pi wraps
        return z, measurements.Attitude(mount, std, z["offset"]).reading(z["reading"])
    z = {"mount": mount, "std": rng.uniform(0.05, 0.2), "per_metre": rng.uniform(0, 0.02)}
    z |= {"transceiver": rng.normal(0, 10, 3), "reading": np.zeros(3)}
    z["reading"] = -reference.model(kind, z)[0] + off * rng.normal(0, 0.1, 3)
    u = measurements.Position(mount, z["std"], z["per_metre"], z["transceiver"])
    return z, u.reading(z["reading"])


BLOCKS = np.repeat(np.arange(6), [3, 3, 4, 3, 3, 1])  # p, v, q, b_a, b_g, d


def assert_same(f: ErrorStateFilter, reference: Reference) -> None:
    """Nominal state to 1e-11 of each block's largest entry, covariance entry (i, j) to 1e-11
    of sqrt(P_ii P_jj)."""
    x, expected = f.nominal, reference.nominal()
    scale = np.array([np.abs(expected[b == BLOCKS]).max() for b in range(6)])[BLOCKS]
    np.testing.assert_array_less(np.abs(x - expected), 1e-11 * scale)
    sigma = np.sqrt(np.diag(reference.P))
    np.testing.assert_array_less(np.abs(f.covariance - reference.P), 1e-11 * np.outer(sigma, sigma))


KINDS = ("dvl", "depth", "ahrs", "usbl")


@pytest.mark.parametrize("seed", range(20))
def test_steps_match_the_reference(seed):
    """From a random state and covariance: IMU propagations with random rates and forces and
    updates by each sensor's reading, a third of them outliers; after each step the nominal
    state and covariance agree with the reference, and so do the normalized innovations
    squared and which readings the gate rejects."""
    rng = np.random.default_rng(seed)
    state, P, noise = random_start(rng)
    f = ErrorStateFilter(state, P, noise, DT, G, GATE)
    reference = Reference(state, P, noise)
    rejected = 0
    for _ in range(40):
        rate, force = rng.normal(0, 0.3, 3), rng.normal(0, 1, 3) + [0, 0, -G]
        f.propagate(rate, force)
        reference.propagate(rate, force)
        assert_same(f, reference)
        kind = KINDS[rng.integers(4)]
        z, measurement = random_reading(rng, kind, reference, outlier=rng.random() < 1 / 3)
        nis, expected = f.update(measurement), reference.update(kind, z)
        assert (nis is None) == (expected is None)
        if nis is not None:
            assert nis == pytest.approx(expected, rel=1e-10)
        rejected += nis is None
        assert_same(f, reference)
    assert 3 <= rejected <= 30  # both branches taken


def test_late_and_stale_measurements_match_the_reference_run_again():
    """A history of 0.3 s: at each of 80 IMU ticks readings of random kinds arrive, some with
    a time of validity up to 0.25 s back (fused there, the filter re-run from it), some
    outliers, and now and then one older than the history (dropped as stale). After every tick
    the filter equals the reference run from its first step over all steps kept, in time order
    (readings after the propagation ending at their time of validity), and the history holds
    the steps of the last 0.3 s."""
    rng = np.random.default_rng(7)
    state, P, noise = random_start(rng)
    horizon = 0.3
    f = ErrorStateFilter(state, P, noise, DT, G, GATE)
    fusion = LaggedFusion(f, horizon)
    start = Reference(state, P, noise)
    steps: list[tuple[float, int, str, object]] = []  # time, order of arrival, kind, inputs
    stale = 0
    oldest = -np.inf
    reference = start
    for k in range(1, 81):
        t = k * DT
        rate, force = rng.normal(0, 0.3, 3), rng.normal(0, 1, 3) + [0, 0, -G]
        batch = [propagation_step(t, np.concatenate([rate, force]))]
        steps.append((t, len(steps), "imu", (rate, force)))
        for _ in range(rng.integers(0, 3)):
            kind = KINDS[rng.integers(4)]
            late = rng.choice([0, rng.integers(1, 26), 35]) * DT
            when = t - late
            z, measurement = random_reading(rng, kind, reference, outlier=rng.random() < 0.2)
            batch.append(measurement_step(when, measurement))
            if when < oldest - 1e-9:
                stale += 1
                continue
            steps.append((when, len(steps), kind, z))
        fusion.add(batch)
        reference = run_reference(start, steps)
        assert_same(f, reference)
        kept = [s for s in in_order(steps) if s[0] >= t - horizon - 1e-9]
        assert fusion.times == [s[0] for s in kept]  # the history's last 0.3 s, in order
        oldest = kept[0][0]
    assert fusion.stale == stale > 0
    expected = run_reference(start, steps, count_rejected=True)
    assert fusion.rejected == expected > 0


def in_order(steps: list) -> list:
    """The steps in time order and, at one time (to 1e-9 s), in order of arrival."""
    return sorted(steps, key=lambda s: (round(s[0], 9), s[1]))


def run_reference(start: Reference, steps: list, count_rejected: bool = False) -> Reference | int:
    """The reference after the steps (:func:`in_order`), or how many readings it rejected."""
    reference, rejected = start.copy(), 0
    for _, _, kind, inputs in in_order(steps):
        if kind == "imu":
            reference.propagate(*inputs)
        else:
            rejected += reference.update(kind, inputs) is None
    return rejected if count_rejected else reference
