"""PD control of a vehicle's position and attitude (seed 004, Table 4 and Fig. 10)."""

from __future__ import annotations

import numpy as np

from orchestrator.controllers.base import Controller
from orchestrator.controllers.reference import TimeReference
from orchestrator.kinematics import euler_angles, rotation_matrix, wrap_angle
from orchestrator.scenario import VehiclePDConfig


class VehiclePD(Controller):
    """PD law on the NED pose error, rotated into the body frame.

    With eta = [x, y, z, roll, pitch, yaw] (NED m, zyx Euler angles rad):

        f = R' (Kp_xyz (eta_d - eta)_xyz + Kd_xyz (eta_d' - R v))
        m = R' (Kp_rpy wrap(eta_d - eta)_rpy + Kd_rpy (eta_d' - R w))

    Seed 004 (Eq. 13) takes the NED angular velocity R w for the Euler-angle rates, and maps
    the angle error through a modulus before rotating the command into the body frame (Fig.
    10); the error is wrapped into [-pi, pi) here, so that the vehicle turns the short way.
    Inputs: the vehicle's p, q, nu. Output: ``tau`` (6), body frame at the origin (N, N.m),
    for a thrust allocation.
    """

    def __init__(self, name: str, config: VehiclePDConfig) -> None:
        v = config.vehicle
        inputs = [f"{v}.p[{i}]" for i in range(1, 4)] + [f"{v}.q[{i}]" for i in range(1, 5)]
        inputs += [f"{v}.nu[{i}]" for i in range(1, 7)]
        super().__init__(
            name, config.sample_time, inputs, [f"{name}.tau[{i}]" for i in range(1, 7)]
        )
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
        eta_d, rate_d = self.set_point(time)
        error = np.concatenate([eta_d[:3] - p, wrap_angle(eta_d[3:] - euler_angles(q))])
        error_rate = rate_d - np.concatenate([R @ nu[:3], R @ nu[3:]])
        command = self.kp * error + self.kd * error_rate
        return np.concatenate([R.T @ command[:3], R.T @ command[3:]])
