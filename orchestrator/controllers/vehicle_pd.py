"""PD control of a vehicle's position and attitude (León-González et al. 2024, Table 4 and Fig.
10)."""

from __future__ import annotations

import numpy as np

from orchestrator.controllers.base import Controller, body_state_signals
from orchestrator.controllers.reference import TimeReference
from orchestrator.kinematics import (
    Rows,
    euler_from_rows,
    euler_rate_matrix,
    rotation_rows,
    wrap_angle,
)
from orchestrator.scenario.model import VehiclePDConfig


def _times(A: Rows, v: list[float]) -> list[float]:
    """A v of a 3x3 matrix and a 3-vector (plain floats)."""
    return [row[0] * v[0] + row[1] * v[1] + row[2] * v[2] for row in A]


def _transpose_times(A: Rows, v: list[float]) -> list[float]:
    """A' v of a 3x3 matrix and a 3-vector (plain floats)."""
    return [A[0][i] * v[0] + A[1][i] * v[1] + A[2][i] * v[2] for i in range(3)]


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
    Inputs: the vehicle's p, q, nu (true, or a navigation filter's estimate with ``state``).
    Output: ``tau`` (6), body frame at the origin (N, N.m), for a thrust allocation.
    """

    def __init__(self, name: str, config: VehiclePDConfig) -> None:
        outputs = [f"{name}.tau[{i}]" for i in range(1, 7)]
        super().__init__(
            name, config.sample_time, body_state_signals(config.state or config.vehicle), outputs
        )
        self.kp, self.kd = list(config.kp), list(config.kd)
        r = config.reference
        self.reference = [TimeReference(c) for c in (r.x, r.y, r.z, r.roll, r.pitch, r.yaw)]

    def set_point(self, time: float) -> tuple[list[float], list[float]]:
        """Reference pose eta_d and its rate at ``time``."""
        values, rates = zip(*(r(time) for r in self.reference), strict=True)
        return list(values), list(rates)

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        # plain floats throughout: NumPy's per-call cost exceeds this arithmetic many times
        state = inputs.tolist()
        position, velocity, angular_velocity = state[:3], state[7:10], state[10:13]
        R = rotation_rows(state[3:7])
        attitude = euler_from_rows(R)
        T = euler_rate_matrix(attitude[0], attitude[1])
        eta_d, rate_d = self.set_point(time)
        error = [eta_d[i] - position[i] for i in range(3)] + [
            wrap_angle(eta_d[3 + i] - attitude[i]) for i in range(3)
        ]
        rate = _times(R, velocity) + _times(T, angular_velocity)
        command = [
            kp * e + kd * (r_d - r)
            for kp, kd, e, r_d, r in zip(self.kp, self.kd, error, rate_d, rate, strict=True)
        ]
        return np.array(_transpose_times(R, command[:3]) + _transpose_times(T, command[3:]))
