"""Doppler velocity log: four beams in a Janus configuration, bottom tracking.

Beam i points into the lower half-space of the sensor frame (z down, towards the seabed),
tilted ``tilt`` from the z axis at azimuths 45, 135, 225 and 315 deg. Each valid beam measures
the sensor's velocity over the seabed along its axis with white noise of standard deviation
``beam_noise`` (m/s); the velocity is the least-squares solution over the valid beams, with
covariance beam_noise^2 (B' B)^-1. With all four beams

    std(v_x) = std(v_y) = beam_noise / (sqrt(2) sin(tilt)),  std(v_z) = beam_noise / (2 cos(tilt)),

so the horizontal noise is sqrt(2) cot(tilt) times the vertical (3.41 at 22.5 deg). A beam is
valid when it reaches a flat seabed at a beam altitude (slant range times cos(tilt), the
altitude of a level sensor) within [min_altitude, max_altitude], and is not lost (probability
``beam_dropout`` per ping); the velocity is valid with three or more valid beams (bottom
lock) and a speed within ``max_speed``. The figure of merit is the standard deviation of the
noisiest axis, sqrt(max diag covariance) (m/s), as in the Water Linked DVL
protocol's ``fom``. Outputs are in the sensor frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

BEAM_AZIMUTHS = np.radians([45.0, 135.0, 225.0, 315.0])
MIN_BEAMS = 3


def beam_directions(tilt: float) -> np.ndarray:
    """Unit vectors of the four beams (4, 3), sensor frame, ``tilt`` (rad) from the z axis."""
    return np.column_stack(
        [
            math.sin(tilt) * np.cos(BEAM_AZIMUTHS),
            math.sin(tilt) * np.sin(BEAM_AZIMUTHS),
            np.full(4, math.cos(tilt)),
        ]
    )


@dataclass(frozen=True)
class DvlSettings:
    """Geometry, noise and limits of a DVL (angles rad, lengths m, speeds m/s)."""

    tilt: float
    beam_noise: float
    range_noise: float
    min_altitude: float
    max_altitude: float
    max_speed: float
    beam_dropout: float


@dataclass(frozen=True)
class DvlReading:
    """One ping: ``velocity`` (3, m/s) and ``covariance`` (3, 3, (m/s)^2), zero when not
    valid; ``fom`` (m/s); ``altitude`` (m, slant range times cos(tilt), mean over the valid
    beams with range noise, 0 without any); ``beam_valid`` (4 booleans);
    ``velocity_valid``."""

    velocity: np.ndarray
    covariance: np.ndarray
    fom: float
    altitude: float
    beam_valid: np.ndarray
    velocity_valid: bool


class Dvl:
    """A DVL pinging on demand; noise from ``rng``."""

    def __init__(self, settings: DvlSettings, rng: np.random.Generator) -> None:
        self.settings = settings
        self.beams = beam_directions(settings.tilt)
        self.rng = rng
        # B' B and the velocity's covariance by set of valid beams (16 at most): the same
        # for every ping with that set
        self._geometry: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    def _beam_geometry(self, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """B' B of the ``valid`` beams and the covariance beam_noise^2 (B' B)^-1."""
        key = valid.tobytes()
        if key not in self._geometry:
            beams = self.beams[valid]
            information = beams.T @ beams
            covariance = self.settings.beam_noise**2 * np.linalg.inv(information)
            self._geometry[key] = (information, covariance)
        return self._geometry[key]

    def beam_ranges(self, attitude: np.ndarray, height: float) -> np.ndarray:
        """Slant ranges (m) of the beams to a flat seabed ``height`` (m) below the sensor,
        ``attitude`` the sensor-to-NED rotation; inf for a beam that does not point down."""
        down = self.beams @ attitude[2]  # NED z component of each beam
        with np.errstate(divide="ignore"):
            return np.where(down > 1e-9, height / np.maximum(down, 1e-9), np.inf)

    def ping(self, velocity: np.ndarray, attitude: np.ndarray, height: float) -> DvlReading:
        """Measure the true ``velocity`` over ground (sensor frame, m/s) at ``height`` (m)
        above a flat seabed (inf: no seabed in reach)."""
        s = self.settings
        draws = self.rng.standard_normal((2, 4))
        lost = self.rng.uniform(size=4) < s.beam_dropout
        ranges = self.beam_ranges(attitude, height)
        altitudes = ranges * math.cos(s.tilt)
        valid = (altitudes >= s.min_altitude) & (altitudes <= s.max_altitude) & ~lost
        beams = self.beams[valid]
        ok = valid.sum() >= MIN_BEAMS
        if ok:
            measured = beams @ velocity + s.beam_noise * draws[0, valid]
            information, covariance = self._beam_geometry(valid)
            estimate = np.linalg.solve(information, beams.T @ measured)
            covariance = covariance.copy()
            ok = bool(np.linalg.norm(estimate) <= s.max_speed)
        altitude = 0.0
        if valid.any():
            slant = ranges[valid] + s.range_noise * draws[1, valid]
            altitude = float(np.mean(slant * math.cos(s.tilt)))
        if not ok:
            estimate, covariance = np.zeros(3), np.zeros((3, 3))
        fom = math.sqrt(float(np.max(np.diag(covariance))))
        return DvlReading(estimate, covariance, fom, altitude, valid, bool(ok))
