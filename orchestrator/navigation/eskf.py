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

The arithmetic runs compiled (``orchestrator.native.navigation``, the C source
``_navigation.c``) on the nominal state (17 numbers: p, v, q, the biases, d) and the
covariance, two arrays this class owns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from orchestrator.kinematics import rotate_quaternion
from orchestrator.native import navigation as native
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


@dataclass(frozen=True)
class Measurement:
    """What an aiding sensor read, for the filter: ``kind`` (a step code of
    :mod:`orchestrator.native.navigation`) and its ``data`` (float64, the layout of that kind);
    :mod:`orchestrator.navigation.measurements` makes them."""

    kind: int
    data: np.ndarray


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
        from scipy.special import chdtri  # chi2.ppf(p, k) = chdtri(k, 1 - p), without scipy.stats

        heading = GaussMarkov(noise.heading_driving, noise.heading_time_constant, interval)
        process = np.zeros(SIZE)
        process[VELOCITY] = noise.accel_density**2 * interval
        process[ATTITUDE] = noise.gyro_density**2 * interval
        process[ACCEL_BIAS] = noise.accel_bias_driving**2 * interval
        process[GYRO_BIAS] = noise.gyro_bias_driving**2 * interval
        process[HEADING_ERROR] = heading.step_std**2
        gates = chdtri([1.0, 2.0, 3.0], 1.0 - gate)
        self.nominal = np.zeros(native.NOMINAL)  # p, v, q, biases, d (see the docstring)
        self._covariance = np.zeros((SIZE, SIZE))
        self.state, self.covariance = state, covariance
        self._native = native.Filter(
            self.nominal,
            self._covariance,
            interval,
            g,
            heading.decay,
            process,
            float(process[ATTITUDE][0]),
            gates,
        )

    @property
    def state(self) -> NavigationState:
        """The nominal state (a copy)."""
        x = self.nominal
        return NavigationState(
            x[0:3].copy(),
            x[3:6].copy(),
            x[6:10].copy(),
            x[10:13].copy(),
            x[13:16].copy(),
            float(x[16]),
        )

    @state.setter
    def state(self, state: NavigationState) -> None:
        x = self.nominal
        x[0:3], x[3:6], x[6:10] = state.p, state.v, state.q
        x[10:13], x[13:16], x[16] = state.accel_bias, state.gyro_bias, state.heading_error

    @property
    def covariance(self) -> np.ndarray:
        """The error state's covariance (16, 16; a copy)."""
        return self._covariance.copy()

    @covariance.setter
    def covariance(self, covariance: np.ndarray) -> None:
        self._covariance[:] = covariance

    @property
    def variances(self) -> np.ndarray:
        """The error state's variances (16; a read-only view of the covariance's diagonal)."""
        return np.diagonal(self._covariance)

    @property
    def gyro_bias(self) -> np.ndarray:
        """The gyroscope bias estimate (body frame, rad/s; a view of the nominal state)."""
        return self.nominal[13:16]

    def propagate(self, rate: np.ndarray, force: np.ndarray) -> None:
        """Advance one interval with the measured angular rate (rad/s) and specific force
        (m/s^2), body frame, held over the interval."""
        self._native.propagate(np.concatenate([rate, force]).astype(float))

    def update(self, measurement: Measurement) -> float | None:
        """Fuse one measurement; its normalized innovation squared, or None if gated out (or
        if its innovation covariance is not positive definite, which a positive noise
        covariance rules out)."""
        return self._native.update(measurement.kind, measurement.data)

    def linearised(self, measurement: Measurement) -> Update:
        """The measurement's residual, Jacobian and noise covariance at the current state."""
        y, H, R = self._native.linearise(measurement.kind, measurement.data)
        m = len(y)
        return Update(np.array(y), np.reshape(H, (m, SIZE)), np.reshape(R, (m, m)))
