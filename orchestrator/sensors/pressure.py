"""Pressure depth sensor under a regular deep-water wave (linear wave theory).

The gauge pressure at NED point (x, y, z) under an Airy wave zeta = a sin(w t - k chi + phi),
chi = x cos(beta) + y sin(beta), k = w^2 / g (deep water), as the wave components of
``MurCoSim.Ocean`` define it (Cortesi 2012, App. A), is to first order in the amplitude

    p = rho g (z + a exp(-k z) sin(w t - k chi + phi))

(the hydrostatic part from the mean level and the wave's dynamic pressure, which decays with
depth as the orbits do; Newman, Marine Hydrodynamics, MIT Press, 1977, Ch. 6). A sensor held
at depth z reads a depth swinging by a exp(-k z) about z; a sensor riding a water particle's
orbit reads a constant depth to first order. The sensor reports p / (rho_set g) with the
density ``rho_set`` it was configured with (a wrong water density scales the depth) plus white
noise; out of the water (p < 0) it reads 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RegularWave:
    """A regular Airy wave: ``amplitude`` (m), ``period`` (s), ``direction`` of propagation
    (rad from north towards east), ``phase`` (rad at t = 0, chi = 0), gravity ``g`` (m/s^2)."""

    amplitude: float
    period: float
    direction: float = 0.0
    phase: float = 0.0
    g: float = 9.8

    @property
    def wavenumber(self) -> float:
        """k = w^2 / g (rad/m), deep water."""
        return (2 * math.pi / self.period) ** 2 / self.g

    def argument(self, time: float, north: float, east: float) -> float:
        """w t - k chi + phi (rad)."""
        chi = north * math.cos(self.direction) + east * math.sin(self.direction)
        return 2 * math.pi / self.period * time - self.wavenumber * chi + self.phase

    def pressure_head(self, time: float, position: np.ndarray) -> float:
        """Gauge pressure over rho g (m of water) at NED ``position`` (m), first order."""
        swing = self.amplitude * math.exp(-self.wavenumber * position[2])
        return float(position[2] + swing * math.sin(self.argument(time, *position[:2])))


STILL_WATER = RegularWave(amplitude=0.0, period=1.0)


@dataclass(frozen=True)
class PressureSettings:
    """Water density ``rho`` and the density the sensor converts with, ``rho_set`` (kg/m^3),
    gravity ``g`` (m/s^2), white noise ``noise`` (m of depth per sample)."""

    rho: float = 1025.0
    rho_set: float = 1025.0
    g: float = 9.81
    noise: float = 0.002


class PressureDepth:
    """Depth from pressure at the sensor's point; noise from ``rng``."""

    def __init__(
        self, settings: PressureSettings, wave: RegularWave, rng: np.random.Generator
    ) -> None:
        self.settings, self.wave, self.rng = settings, wave, rng

    def measure(self, time: float, position: np.ndarray) -> tuple[float, float]:
        """Gauge pressure (Pa, noise-free) and measured depth (m) at NED ``position`` (m)."""
        s = self.settings
        xi = float(self.rng.standard_normal())
        pressure = max(0.0, s.rho * s.g * self.wave.pressure_head(time, position))
        return pressure, pressure / (s.rho_set * s.g) + s.noise * xi
