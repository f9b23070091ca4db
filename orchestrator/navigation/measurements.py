"""What the aiding sensors measure, as functions of the navigation state: the predicted
measurement h(x), its residual against a reading, and its Jacobian with respect to the error
state of :mod:`orchestrator.navigation.eskf` (Sola 2017, Sec. 6.1: the chain through
q (x) exp(dtheta), dR/d(dtheta) = -R [r]x for a body-fixed point r).

Each sensor sits on a mount (position ``r`` in the body frame, m; axes ``M`` sensor to body),
as the sensor models of ``orchestrator.sensors`` place it.
"""

from __future__ import annotations

import numpy as np

from orchestrator.coupling.joints import skew
from orchestrator.kinematics import (
    cross,
    euler_from_rotation,
    euler_rate_matrix,
    rotation_matrix,
    wrap_angle,
)
from orchestrator.navigation.eskf import (
    ATTITUDE,
    GYRO_BIAS,
    HEADING_ERROR,
    POSITION,
    SIZE,
    VELOCITY,
    NavigationState,
    Update,
)
from orchestrator.sensors.mount import Mount


def velocity_over_ground(
    state: NavigationState, rate: np.ndarray, mount: Mount, reading: np.ndarray, cov: np.ndarray
) -> Update:
    """A DVL's velocity ``reading`` (sensor frame, m/s) with its covariance ``cov``: the mount
    point's velocity M' (v + w x r), ``rate`` the bias-corrected body rate (rad/s)."""
    predicted = mount.rotation.T @ (state.v + cross(rate, mount.position))
    H = np.zeros((3, SIZE))
    H[:, VELOCITY] = mount.rotation.T
    H[:, GYRO_BIAS] = mount.rotation.T @ skew(mount.position)
    return Update(reading - predicted, H, cov)


def depth(state: NavigationState, mount: Mount, reading: float, std: float) -> Update:
    """A pressure sensor's depth ``reading`` (m) with noise ``std`` (m): the NED z of the
    mount point, p_z + (R r)_z."""
    R = rotation_matrix(state.q)
    predicted = state.p[2] + (R @ mount.position)[2]
    H = np.zeros((1, SIZE))
    H[0, 2] = 1.0
    H[0, ATTITUDE] = -(R @ skew(mount.position))[2]
    return Update(np.array([reading - predicted]), H, np.array([[std**2]]))


def attitude(
    state: NavigationState,
    mount: Mount,
    reading: np.ndarray,
    std: np.ndarray,
    heading_offset: float = 0.0,
) -> Update:
    """An AHRS's roll, pitch and heading ``reading`` (rad) with white noise ``std`` (3, rad):
    the zyx Euler angles of the sensor axes R M, the heading plus the fixed ``heading_offset``
    and the compass's wandering error d. A body-frame error dtheta turns the sensor axes by
    M' dtheta, which moves the Euler angles by T(Theta) M' dtheta (Fossen 2011, eq. 2.29)."""
    sensor = rotation_matrix(state.q) @ mount.rotation
    angles = euler_from_rotation(sensor)
    predicted = angles + np.array([0.0, 0.0, heading_offset + state.heading_error])
    residual = reading - predicted
    residual[2] = wrap_angle(float(residual[2]))
    H = np.zeros((3, SIZE))
    H[:, ATTITUDE] = np.array(euler_rate_matrix(angles[0], angles[1])) @ mount.rotation.T
    H[2, HEADING_ERROR] = 1.0
    return Update(residual, H, np.diag(np.square(std)))


def position(state: NavigationState, mount: Mount, reading: np.ndarray, std: float) -> Update:
    """An acoustic fix ``reading`` (NED, m) of the mount point p + R r, isotropic noise
    ``std`` per axis (m)."""
    R = rotation_matrix(state.q)
    predicted = state.p + R @ mount.position
    H = np.zeros((3, SIZE))
    H[:, POSITION] = np.eye(3)
    H[:, ATTITUDE] = -R @ skew(mount.position)
    return Update(reading - predicted, H, std**2 * np.eye(3))
