"""Planar prediction model of the rendezvous MPC (Nielsen 2018, eqs. 8.3-8.7).

State x = [N, E, psi, u, v, r] (NED position in m, heading in rad, body velocities in m/s and
rad/s), input tau = [X, Y, N] (N, N, N.m): eta_dot = R(psi) nu, M nu_dot + D nu = tau with
diagonal M and D (no Coriolis), discretized by one RK4 step with zero-order hold.
"""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np


@dataclass(frozen=True)
class PlanarModel:
    """Diagonal mass and damping, input bounds and sample time of the prediction model."""

    mass: tuple[float, float, float] = (10.0, 10.0, 1.0)  # Table 8.1, M_i
    damping: tuple[float, float, float] = (30.0, 30.0, 1.0)  # Table 8.1, D_i
    max_input: tuple[float, float, float] = (5.0, 5.0, 1.5)  # Table 8.1, ||u||_inf
    dt: float = 0.05  # s, Table 8.1, delta t

    def __post_init__(self) -> None:
        for name, lowest in (("mass", 1e-12), ("damping", 0.0), ("max_input", 1e-12)):
            values = getattr(self, name)
            if len(values) != 3 or min(values) < lowest:
                raise ValueError(
                    f"prediction model: {name} must be 3 positive numbers, got {values}"
                )
        if self.dt <= 0:
            raise ValueError(f"prediction model: dt must be positive, got {self.dt}")

    def derivative(self, x: ca.SX | ca.MX, u: ca.SX | ca.MX) -> ca.SX | ca.MX:
        """Continuous dynamics x_dot = f(x, u) (works on CasADi and NumPy values)."""
        psi, nu = x[2], x[3:6]
        c, s = ca.cos(psi), ca.sin(psi)
        eta_dot = ca.vertcat(c * nu[0] - s * nu[1], s * nu[0] + c * nu[1], nu[2])
        nu_dot = ca.vertcat(*[(u[k] - self.damping[k] * nu[k]) / self.mass[k] for k in range(3)])
        return ca.vertcat(eta_dot, nu_dot)

    def step_function(self) -> ca.Function:
        """One RK4 step of length dt with the input held: x_next = F(x, u)."""
        x, u = ca.SX.sym("x", 6), ca.SX.sym("u", 3)
        h = self.dt
        k1 = self.derivative(x, u)
        k2 = self.derivative(x + h / 2 * k1, u)
        k3 = self.derivative(x + h / 2 * k2, u)
        k4 = self.derivative(x + h * k3, u)
        return ca.Function("rk4", [x, u], [x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)])

    def simulate(self, x0: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """States (n+1, 6) under a sequence of held inputs (n, 3); for tests and warm starts."""
        step = self.step_function()
        xs = [np.asarray(x0, dtype=float)]
        for u in inputs:
            xs.append(np.asarray(step(xs[-1], u)).ravel())
        return np.array(xs)
