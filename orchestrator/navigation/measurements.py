"""What the aiding sensors measure, as functions of the navigation state: the predicted
measurement h(x), its residual against a reading, and its Jacobian with respect to the error
state of :mod:`orchestrator.navigation.eskf` (Sola 2017, Sec. 6.1: the chain through
q (x) exp(dtheta), dR/d(dtheta) = -R [r]x for a body-fixed point r).

Each class here is a sensor's model, set up once; it packs a reading into a
:class:`~orchestrator.navigation.eskf.Measurement`;
the filter evaluates the model at its state each time it fuses it (again when it re-runs
from a late measurement), compiled, and
:meth:`~orchestrator.navigation.eskf.ErrorStateFilter.linearised` shows the result.

Each sensor sits on a mount (position ``r`` in the body frame, m; axes ``M`` sensor to body),
as the sensor models of ``orchestrator.sensors`` place it.
"""

from __future__ import annotations

import numpy as np

from orchestrator.native import navigation as native
from orchestrator.navigation.eskf import Measurement
from orchestrator.sensors.mount import Mount


class SensorModel:
    """A sensor's measurement model of ``kind``: its constant inputs (mount, noise) packed once
    with zeros where each reading goes."""

    def __init__(self, kind: int, *parts: float | np.ndarray) -> None:
        self.kind = kind
        self._data = np.concatenate([np.ravel(p) for p in parts]).astype(float)

    def _measurement(self, *entries: tuple[slice, float | np.ndarray]) -> Measurement:
        data = self._data.copy()
        for slot, value in entries:
            data[slot] = np.ravel(value)
        return Measurement(self.kind, data)


class VelocityOverGround(SensorModel):
    """A DVL's velocity (sensor frame, m/s) with its covariance: the mount point's velocity
    M' (v + w x r), w = rate - b_g the bias-corrected body rate."""

    def __init__(self, mount: Mount) -> None:
        zero = np.zeros(3)
        super().__init__(native.VELOCITY, zero, mount.position, mount.rotation, zero, np.zeros(9))

    def reading(self, rate: np.ndarray, velocity: np.ndarray, cov: np.ndarray) -> Measurement:
        """One ping: ``velocity`` (m/s) with covariance ``cov`` ((3, 3) or its 9 entries,
        (m/s)^2), and the body ``rate`` (rad/s) measured when it arrived."""
        return self._measurement(
            (slice(0, 3), rate), (slice(15, 18), velocity), (slice(18, 27), cov)
        )


class Depth(SensorModel):
    """A pressure sensor's depth with noise ``std`` (m): the NED z of the mount point,
    p_z + (R r)_z."""

    def __init__(self, mount: Mount, std: float) -> None:
        super().__init__(native.DEPTH, mount.position, 0.0, std)

    def reading(self, depth: float) -> Measurement:
        """One reading (m)."""
        return self._measurement((slice(3, 4), depth))


class Attitude(SensorModel):
    """An AHRS's roll, pitch and heading with white noise ``std`` (3, rad): the zyx Euler
    angles of the sensor axes R M, the heading plus the fixed ``heading_offset`` (rad) and the
    compass's wandering error d (the heading residual wrapped into [-pi, pi)). A body-frame
    error dtheta turns the sensor axes by M' dtheta, which moves the Euler angles by
    T(Theta) M' dtheta (Fossen 2011, eq. 2.29)."""

    def __init__(self, mount: Mount, std: np.ndarray, heading_offset: float = 0.0) -> None:
        zero = np.zeros(3)
        super().__init__(native.ATTITUDE, mount.rotation, zero, std, heading_offset)

    def reading(self, angles: np.ndarray) -> Measurement:
        """One reading: roll, pitch, heading (rad)."""
        return self._measurement((slice(9, 12), angles))


class Position(SensorModel):
    """An acoustic fix (NED, m) of the mount point p + R r, isotropic noise per axis ``std``
    (m) plus ``std_per_metre`` times the predicted slant range from the ``transceiver`` (NED,
    m)."""

    def __init__(
        self,
        mount: Mount,
        std: float,
        std_per_metre: float = 0.0,
        transceiver: tuple[float, float, float] | np.ndarray = (0.0, 0.0, 0.0),
    ) -> None:
        zero = np.zeros(3)
        parts = (mount.position, zero, std, std_per_metre, transceiver)
        super().__init__(native.POSITION, *parts)

    def reading(self, fix: np.ndarray) -> Measurement:
        """One fix (NED, m)."""
        return self._measurement((slice(3, 6), fix))
