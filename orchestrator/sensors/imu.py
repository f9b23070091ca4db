"""IMU: gyroscope and accelerometer with white noise, Gauss-Markov bias and turn-on bias.

Per axis (the model of Maybeck 1979 in the discretisation of the RotorS IMU (Furrer et al.
2016), which the UUV Simulator IMU uses (Manhães et al. 2016)):

    measured = true + turn_on + b + noise_density / sqrt(dt) xi,
    b' = -b / tau + w,  w white of density bias_driving,

b discretised exactly (:class:`~orchestrator.sensors.noise.GaussMarkov`). Densities are
continuous-time, so the Allan deviation at 1 s equals ``noise_density`` at any sample rate.
Gyro in rad/s (densities rad/s/sqrt(Hz), drivers rad/s^2/sqrt(Hz)), accelerometer in m/s^2
(m/s^2/sqrt(Hz), m/s^3/sqrt(Hz)); sensor frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from orchestrator.sensors.noise import GaussMarkov, NormalDraws, white_noise_std


@dataclass(frozen=True)
class InertialNoise:
    """Noise of one three-axis inertial sensor (gyroscope or accelerometer)."""

    noise_density: float
    bias_driving: float
    bias_time_constant: float
    turn_on_std: float


# Analog Devices ADIS16448, the RotorS and UUV Simulator IMU defaults (Furrer et al. 2016).
ADIS16448_GYRO = InertialNoise(3.394e-4, 3.8785e-5, 1000.0, 0.0087)
ADIS16448_ACCEL = InertialNoise(4.0e-3, 6.0e-3, 300.0, 0.196)


class InertialAxes:
    """Three axes of one inertial sensor sampled every ``interval`` (s); the bias starts from
    its stationary distribution, the turn-on bias is drawn once (``bias``, ``turn_on``: three
    plain floats each, the sensor's units)."""

    def __init__(self, noise: InertialNoise, interval: float, rng: np.random.Generator) -> None:
        self.bias_process = GaussMarkov(noise.bias_driving, noise.bias_time_constant, interval)
        self.white_std = white_noise_std(noise.noise_density, interval)
        stationary = self.bias_process.stationary_std
        self.turn_on = (noise.turn_on_std * rng.standard_normal(3)).tolist()
        start = rng.standard_normal(3)
        self.bias = (stationary * start if np.isfinite(stationary) else np.zeros(3)).tolist()

    def measure(
        self, true: Sequence[float], white: Sequence[float], step: Sequence[float]
    ) -> list[float]:
        """One sample of the 3-vector ``true`` with standard normal draws ``white`` (white
        noise) and ``step`` (bias step), in plain floats (NumPy's per-call cost on 3-vectors
        is many times the arithmetic; the same operations in the same order, so the same
        numbers); the bias then steps to the next sample."""
        turn_on, bias, std = self.turn_on, self.bias, self.white_std
        out = [true[i] + turn_on[i] + bias[i] + std * white[i] for i in range(3)]
        self.bias = [self.bias_process.step(bias[i], step[i]) for i in range(3)]
        return out

    def record(self, true: np.ndarray, xi: np.ndarray) -> np.ndarray:
        """Samples of ``true`` (n, 3) with draws ``xi`` (n, 2, 3): the same as ``measure`` on
        each row in turn, vectorised for long records."""
        start = np.array([self.bias])
        biases = np.concatenate([start, self.bias_process.sequence(start[0], xi[:, 1])])
        self.bias = biases[-1].tolist()
        return true + self.turn_on + biases[:-1] + self.white_std * xi[:, 0]


class Imu:
    """Gyroscope and accelerometer, sampled every ``interval`` (s), noise from ``rng``."""

    def __init__(
        self,
        interval: float,
        rng: np.random.Generator,
        gyro: InertialNoise = ADIS16448_GYRO,
        accel: InertialNoise = ADIS16448_ACCEL,
    ) -> None:
        self.gyro = InertialAxes(gyro, interval, rng)
        self.accel = InertialAxes(accel, interval, rng)
        # per sample: gyro white noise and bias step, then the accelerometer's (3 each)
        self.draws = NormalDraws(rng, 12)

    def measure(self, rate: Sequence[float], force: Sequence[float]) -> list[float]:
        """Measured angular rate (rad/s) and specific force (m/s^2), sensor frame, one after
        the other, of the true ``rate`` and ``force``."""
        xi = self.draws.sample()
        return self.gyro.measure(rate, xi[0:3], xi[3:6]) + self.accel.measure(
            force, xi[6:9], xi[9:12]
        )

    def record(self, rate: np.ndarray, force: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Measurements of the true records ``rate`` and ``force`` (n, 3), the same as
        :meth:`measure` row by row, with the same draws."""
        xi = self.draws.samples(len(rate)).reshape(len(rate), 2, 2, 3)
        return self.gyro.record(rate, xi[:, 0]), self.accel.record(force, xi[:, 1])
