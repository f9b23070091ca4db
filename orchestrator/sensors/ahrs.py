"""Attitude and heading reference: roll, pitch and compass heading with noise and drift.

Roll and pitch carry white noise per sample; the heading carries white noise plus a slowly
wandering error (a first-order Gauss-Markov process, :class:`~orchestrator.sensors.noise.
GaussMarkov`: magnetic disturbances and gyro drift) and a fixed offset (uncorrected
declination or mounting). Angles in rad, zyx Euler angles of the sensor frame in NED; the
heading is wrapped to [-pi, pi).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from orchestrator.kinematics import euler_from_rotation, wrap_angle
from orchestrator.sensors.noise import GaussMarkov


@dataclass(frozen=True)
class AhrsSettings:
    """Noise of an AHRS (rad per sample; drift driver rad/s/sqrt(Hz), time constant s)."""

    tilt_noise: float
    heading_noise: float
    heading_drift: float
    drift_time_constant: float
    heading_offset: float


class Ahrs:
    """Roll, pitch, heading every ``interval`` (s); the drift starts from its stationary
    distribution; noise from ``rng``."""

    def __init__(self, settings: AhrsSettings, interval: float, rng: np.random.Generator) -> None:
        self.settings, self.rng = settings, rng
        self.drift_process = GaussMarkov(
            settings.heading_drift, settings.drift_time_constant, interval
        )
        std = self.drift_process.stationary_std
        self.drift = float(std * rng.standard_normal()) if np.isfinite(std) else 0.0

    def measure(self, attitude: np.ndarray) -> np.ndarray:
        """Measured roll, pitch, heading (rad) of the sensor-to-NED rotation ``attitude``."""
        s = self.settings
        xi = self.rng.standard_normal(4)
        roll, pitch, yaw = euler_from_rotation(attitude)
        heading = yaw + s.heading_offset + self.drift + s.heading_noise * xi[2]
        self.drift = float(self.drift_process.step(self.drift, xi[3]))
        return np.array(
            [roll + s.tilt_noise * xi[0], pitch + s.tilt_noise * xi[1], wrap_angle(heading)]
        )
