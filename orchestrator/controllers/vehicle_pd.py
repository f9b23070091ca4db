"""PD control of a vehicle's position and attitude (León-González et al. 2024, Table 4 and Fig.
10)."""

from __future__ import annotations

import math

import numpy as np

from orchestrator.controllers.base import Controller, body_state_signals
from orchestrator.controllers.reference import TimeReference
from orchestrator.kinematics import euler_from_rotation, rotation_matrix, wrap_angle
from orchestrator.scenario import VehiclePDConfig


def euler_rate_matrix(roll: float, pitch: float) -> np.ndarray:
    """T(Theta) of Fossen (2011, eq. 2.29): zyx Euler-angle rates = T @ body angular velocity."""
    sr, cr, tp, cp = math.sin(roll), math.cos(roll), math.tan(pitch), math.cos(pitch)
    return np.array([[1.0, sr * tp, cr * tp], [0.0, cr, -sr], [0.0, sr / cp, cr / cp]])


class VehiclePD(Controller):
    """PD law on the pose error eta_d - eta, eta = [x, y, z, roll, pitch, yaw] (NED m, zyx
    Euler angles rad), mapped into the body frame by the transpose of the velocity map
    J(eta) = diag(R, T(Theta)) (eta' = J nu):

        tau = J(eta)' (Kp e + Kd (eta_d' - J(eta) nu)),   e = [p_d - p; wrap(Theta_d - Theta)]

    The position part is León-González et al. (2024)'s law (error rotated into the body frame by R',
    Fig. 10). For the attitude, León-González et al. (2024) takes the NED angular velocity for the
    Euler-angle rates (Eq. 13) and rotates the command by R' as well, which holds only near zero
    attitude (at a heading of 180 deg its roll and pitch damping change sign); with the exact rates
    T(Theta) w and the map T(Theta)' the law is the same near zero attitude and stays stable at any
    heading. Angle errors are wrapped into [-pi, pi) (León-González et al. (2024)'s modulus block).
    Inputs: the vehicle's p, q, nu. Output: ``tau`` (6), body frame at the origin (N, N.m), for a
    thrust allocation.
    """

    def __init__(self, name: str, config: VehiclePDConfig) -> None:
        outputs = [f"{name}.tau[{i}]" for i in range(1, 7)]
        super().__init__(name, config.sample_time, body_state_signals(config.vehicle), outputs)
        self.kp, self.kd = np.array(config.kp), np.array(config.kd)
        r = config.reference
        self.reference = [TimeReference(c) for c in (r.x, r.y, r.z, r.roll, r.pitch, r.yaw)]

    def set_point(self, time: float) -> tuple[np.ndarray, np.ndarray]:
        """Reference pose eta_d and its rate at ``time``."""
        values = np.array([r(time) for r in self.reference])
        return values[:, 0], values[:, 1]

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        p, q, nu = inputs[:3], inputs[3:7], inputs[7:13]
        R = rotation_matrix(q)
        attitude = euler_from_rotation(R)
        T = euler_rate_matrix(attitude[0], attitude[1])
        eta_d, rate_d = self.set_point(time)
        error = np.concatenate([eta_d[:3] - p, wrap_angle(eta_d[3:] - attitude)])
        error_rate = rate_d - np.concatenate([R @ nu[:3], T @ nu[3:]])
        command = self.kp * error + self.kd * error_rate
        return np.concatenate([R.T @ command[:3], T.T @ command[3:]])
