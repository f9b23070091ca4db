"""PD control of a vehicle's position and attitude (León-González et al. 2024, Table 4 and Fig.
10)."""

from __future__ import annotations

import numpy as np

from orchestrator.controllers.base import Controller, body_state_signals
from orchestrator.controllers.reference import reference_terms
from orchestrator.native import controllers as native
from orchestrator.scenario.model import VehiclePDConfig


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

    The step is compiled (:attr:`compiled_law`, ``orchestrator/native/_controllers.c``);
    R is the rotation matrix of q and T of Fossen (2011, eq. 2.29), as in
    :mod:`orchestrator.kinematics`.
    """

    def __init__(self, name: str, config: VehiclePDConfig) -> None:
        outputs = [f"{name}.tau[{i}]" for i in range(1, 7)]
        super().__init__(
            name, config.sample_time, body_state_signals(config.state or config.vehicle), outputs
        )
        self.kp, self.kd = list(config.kp), list(config.kd)
        r = config.reference
        pose = [reference_terms(c) for c in (r.x, r.y, r.z, r.roll, r.pitch, r.yaw)]
        self.compiled_law = native.vehicle_pd(self.kp, self.kd, pose)

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        tau = np.empty(6)
        self.compiled_law.step(time, np.ascontiguousarray(inputs, dtype=float), tau)
        return tau
