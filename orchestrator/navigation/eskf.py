"""Error-state extended Kalman filter with IMU mechanisation (Sola, Quaternion kinematics for
the error-state Kalman filter, 2017, Sec. 5 and 7, local angular error).

Nominal state: position ``p`` (NED, m), velocity ``v`` (body frame, m/s, as the DVL measures
it), attitude ``q`` (body to NED, scalar first), accelerometer bias ``b_a`` (body frame,
m/s^2), gyroscope bias ``b_g`` (body frame, rad/s) and ``d``, the slowly wandering heading
error of a compass (rad). The error state has 16 components, in the order of
:data:`ERROR_STATE`: dp, dv, dtheta (body frame: the true attitude is q (x) exp(dtheta)),
db_a, db_g, dd.

The IMU drives the propagation at its own rate: with the measured angular rate w and specific
force f (body frame, at the body origin),

    v' = (f - b_a) + R' g e_z - (w - b_g) x v,   p <- p + R_mid (v dt + v' dt^2 / 2),
    v <- v + v' dt,   q <- q (x) exp((w - b_g) dt),

(R_mid the attitude half an interval on), the biases are random walks driven by the IMU's bias
densities (a Gauss-Markov bias with a time constant much longer than a run is one to first
order), and ``d`` is the compass's first-order Gauss-Markov process discretised exactly. The
accelerometer's white noise of density N enters the velocity with variance N^2 dt per step,
the gyroscope's the attitude likewise (and the velocity through w x v), so the filter's
statistics hold at any IMU rate.

The velocity is carried in the body frame, not in NED as Sola does: a body velocity does not
depend on the heading, which the IMU, the DVL and a compass with a wandering error cannot
observe, so the Jacobians keep that direction unobservable at any linearisation point. With
the velocity in NED the DVL's Jacobian depends on the velocity estimate, and the filter,
linearised at estimates that change with every update, gains heading information that is not
there (the inconsistency of Huang, Mourikis and Roumeliotis, Observability-based rules for
designing consistent EKF SLAM estimators, International Journal of Robotics Research, 2010):
with the compass's few degrees of heading error it doubled the normalized errors of heading,
tilt and velocity over 10 s.

Updates are the Joseph form with the error reset of Sola (2017, eq. 287); a measurement whose
normalized innovation squared exceeds its gate is rejected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from orchestrator.coupling.joints import skew
from orchestrator.kinematics import cross, quaternion_product, rotate_quaternion, rotation_matrix
from orchestrator.sensors.noise import GaussMarkov

ERROR_STATE = (
    "position north, east, down (m)",
    "velocity forward, starboard, down: body frame (m/s)",
    "attitude about body x, y, z (rad)",
    "accelerometer bias x, y, z (m/s^2)",
    "gyroscope bias x, y, z (rad/s)",
    "compass heading error (rad)",
)
POSITION, VELOCITY, ATTITUDE = slice(0, 3), slice(3, 6), slice(6, 9)
ACCEL_BIAS, GYRO_BIAS, HEADING_ERROR = slice(9, 12), slice(12, 15), 15
SIZE = 16
UNIT_QUATERNION = np.array([1.0, 0.0, 0.0, 0.0])


@dataclass(frozen=True)
class NavigationState:
    """The nominal state (see the module's docstring for frames and units)."""

    p: np.ndarray
    v: np.ndarray
    q: np.ndarray
    accel_bias: np.ndarray
    gyro_bias: np.ndarray
    heading_error: float = 0.0

    def corrected(self, dx: np.ndarray) -> NavigationState:
        """The state with the error ``dx`` (16) injected."""
        q = rotate_quaternion(self.q, dx[ATTITUDE])
        return NavigationState(
            self.p + dx[POSITION],
            self.v + dx[VELOCITY],
            q / np.linalg.norm(q),
            self.accel_bias + dx[ACCEL_BIAS],
            self.gyro_bias + dx[GYRO_BIAS],
            self.heading_error + float(dx[HEADING_ERROR]),
        )


@dataclass(frozen=True)
class ProcessNoise:
    """Continuous-time noise of the propagation: IMU white-noise densities (m/s^2/sqrt(Hz),
    rad/s/sqrt(Hz)), bias random-walk densities (m/s^3/sqrt(Hz), rad/s^2/sqrt(Hz)) and the
    compass heading error's driving density (rad/s/sqrt(Hz)) and time constant (s)."""

    accel_density: float
    gyro_density: float
    accel_bias_driving: float
    gyro_bias_driving: float
    heading_driving: float = 0.0
    heading_time_constant: float = math.inf


@dataclass(frozen=True)
class Update:
    """A linearised measurement: ``residual`` z - h(x) (m), ``jacobian`` dh/d(error state)
    (m, 16) and the measurement noise ``covariance`` (m, m)."""

    residual: np.ndarray
    jacobian: np.ndarray
    covariance: np.ndarray


class ErrorStateFilter:
    """The filter at a fixed IMU ``interval`` (s), from ``state`` with error ``covariance``
    (16, 16); gravity ``g`` (m/s^2, NED down); measurements whose normalized innovation squared
    exceeds the chi-square quantile ``gate`` (a probability) of their dimension are rejected."""

    def __init__(
        self,
        state: NavigationState,
        covariance: np.ndarray,
        noise: ProcessNoise,
        interval: float,
        g: float = 9.81,
        gate: float = 0.9999,
    ) -> None:
        self.state, self.covariance = state, np.array(covariance, dtype=float)
        self.interval, self.gravity, self.gate = interval, np.array([0.0, 0.0, g]), gate
        dt = interval
        heading = GaussMarkov(noise.heading_driving, noise.heading_time_constant, dt)
        self._heading_decay = heading.decay
        Q = np.zeros((SIZE, SIZE))
        self._accel_variance = noise.accel_density**2 * dt
        self._gyro_variance = noise.gyro_density**2 * dt
        Q[VELOCITY, VELOCITY] = self._accel_variance * np.eye(3)
        Q[ATTITUDE, ATTITUDE] = self._gyro_variance * np.eye(3)
        Q[ACCEL_BIAS, ACCEL_BIAS] = noise.accel_bias_driving**2 * dt * np.eye(3)
        Q[GYRO_BIAS, GYRO_BIAS] = noise.gyro_bias_driving**2 * dt * np.eye(3)
        Q[HEADING_ERROR, HEADING_ERROR] = heading.step_std**2
        self.process_covariance = Q
        self._gates: dict[int, float] = {}
        # the transition's constant entries; propagate fills in the state-dependent blocks
        self._transition = np.eye(SIZE)
        self._transition[VELOCITY, ACCEL_BIAS] = -dt * np.eye(3)
        self._transition[ATTITUDE, GYRO_BIAS] = -dt * np.eye(3)
        self._transition[HEADING_ERROR, HEADING_ERROR] = heading.decay

    def propagate(self, rate: np.ndarray, force: np.ndarray) -> None:
        """Advance one interval with the measured angular rate (rad/s) and specific force
        (m/s^2), body frame, held over the interval."""
        s, dt = self.state, self.interval
        R = rotation_matrix(s.q)
        w = rate - s.gyro_bias
        gravity = R.T @ self.gravity
        acceleration = force - s.accel_bias + gravity - cross(w, s.v)
        half = rotate_quaternion(UNIT_QUATERNION, w * dt / 2)
        turn = quaternion_product(half, half)
        F, V = self._transition, skew(s.v)
        F[POSITION, VELOCITY] = R * dt
        F[POSITION, ATTITUDE] = -R @ V * dt
        F[VELOCITY, VELOCITY] = np.eye(3) - skew(w) * dt
        F[VELOCITY, ATTITUDE] = skew(gravity) * dt
        F[VELOCITY, GYRO_BIAS] = -V * dt
        F[ATTITUDE, ATTITUDE] = rotation_matrix(turn).T
        # the gyroscope's noise reaches the velocity through w x v
        Q = self.process_covariance.copy()
        Q[VELOCITY, VELOCITY] += self._gyro_variance * V @ V.T
        Q[VELOCITY, ATTITUDE] = self._gyro_variance * V
        Q[ATTITUDE, VELOCITY] = -self._gyro_variance * V
        q = quaternion_product(s.q, turn)
        self.state = replace(
            s,
            # the displacement in the attitude at mid-interval (second order in dt)
            p=s.p
            + rotation_matrix(quaternion_product(s.q, half))
            @ (s.v * dt + acceleration * dt**2 / 2),
            v=s.v + acceleration * dt,
            q=q / math.sqrt(q @ q),
            heading_error=s.heading_error * self._heading_decay,
        )
        self.covariance = F @ self.covariance @ F.T + Q

    def update(self, measurement: Update) -> float | None:
        """Fuse one measurement; its normalized innovation squared, or None if gated out."""
        H, R, y = measurement.jacobian, measurement.covariance, measurement.residual
        P = self.covariance
        PHt = P @ H.T
        S = H @ PHt + R
        nis = float(y @ np.linalg.solve(S, y))
        if nis > self._gate(len(y)):
            return None
        K = np.linalg.solve(S, PHt.T).T
        dx = K @ y
        A = np.eye(SIZE) - K @ H
        P = A @ P @ A.T + K @ R @ K.T
        self.state = self.state.corrected(dx)
        G = np.eye(SIZE)
        G[ATTITUDE, ATTITUDE] -= skew(dx[ATTITUDE] / 2)
        self.covariance = G @ P @ G.T
        return nis

    def _gate(self, dimension: int) -> float:
        if dimension not in self._gates:
            from scipy.stats import chi2  # 0.3 s of imports, for the first gate only

            self._gates[dimension] = float(chi2.ppf(self.gate, dimension))
        return self._gates[dimension]
