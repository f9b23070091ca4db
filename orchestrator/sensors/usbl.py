"""Acoustic positioning (USBL/SBL): position fixes of a transponder, late by the sound's travel.

Every ``interval`` the transceiver at ``transceiver`` (NED, m) interrogates the transponder;
the reply reaches it 2 R / c + ``turnaround`` after the ping (R the slant range, c the speed of
sound), so the latency grows with range (67 ms of travel each way at 100 m). A fix is the
position at the ping (its time of validity) plus isotropic Gaussian error of standard
deviation ``noise_floor + noise_fraction R`` per axis (m); with probability
``outlier_probability`` it is an outlier, off by ``outlier_std`` per axis instead (multipath).
Beyond ``max_range`` there is no reply.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class UsblSettings:
    """Geometry, acoustics and noise of an acoustic positioning system (m, s, m/s)."""

    transceiver: tuple[float, float, float]
    sound_speed: float
    turnaround: float
    noise_floor: float
    noise_fraction: float
    outlier_probability: float
    outlier_std: float
    max_range: float


@dataclass(frozen=True)
class Fix:
    """A position fix: NED ``position`` (m), slant ``range`` (m), ``time_of_validity`` (the
    ping, s) and ``arrival`` (s), ``outlier`` whether it is one (for analysis only)."""

    position: np.ndarray
    range: float
    time_of_validity: float
    arrival: float
    outlier: bool


class Usbl:
    """Pings on demand and delivers each fix when its reply has arrived; noise from ``rng``."""

    def __init__(self, settings: UsblSettings, rng: np.random.Generator) -> None:
        self.settings, self.rng = settings, rng
        self.in_flight: deque[Fix] = deque()

    def ping(self, time: float, position: np.ndarray) -> None:
        """Interrogate the transponder at NED ``position`` (m) at ``time`` (s)."""
        s = self.settings
        draws = self.rng.standard_normal((2, 3))
        outlier = bool(self.rng.uniform() < s.outlier_probability)
        slant = float(np.linalg.norm(position - np.asarray(s.transceiver)))
        if slant > s.max_range:
            return
        std = s.outlier_std if outlier else s.noise_floor + s.noise_fraction * slant
        arrival = time + travel_latency(slant, s.sound_speed, s.turnaround)
        measured = position + std * draws[1 if outlier else 0]
        self.in_flight.append(Fix(measured, slant, time, arrival, outlier))

    def arrived(self, time: float) -> list[Fix]:
        """The fixes whose replies have arrived by ``time`` (s), oldest first, taken out."""
        fixes = []
        while self.in_flight and self.in_flight[0].arrival <= time + 1e-12:
            fixes.append(self.in_flight.popleft())
        return fixes


def travel_latency(slant_range: float, sound_speed: float, turnaround: float) -> float:
    """Ping-to-fix latency (s) at ``slant_range`` (m): two-way travel plus turnaround."""
    return 2 * slant_range / sound_speed + turnaround
