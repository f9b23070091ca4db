"""Thrust allocation: a body-frame generalized force command to thruster PWM commands."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from orchestrator.controllers.base import Controller


@dataclass(frozen=True)
class ThrusterModel:
    """What the allocation needs to know of one mounted thruster (from its FMU parameters)."""

    instance: str
    position: np.ndarray  # m, vehicle body frame
    direction: np.ndarray  # unit vector, vehicle body frame
    spin: float
    torque_arm: float  # m, shaft torque per thrust
    K_L: float  # N/us
    K_Q: float  # N/us^2
    dead_zone: float  # us
    pwm_neutral: float  # us
    pwm_min: float  # us
    pwm_max: float  # us

    @property
    def column(self) -> np.ndarray:
        """Generalized force per newton of thrust: [d; r x d - spin*torque_arm*d]."""
        moment = (
            np.cross(self.position, self.direction) - self.spin * self.torque_arm * self.direction
        )
        return np.concatenate([self.direction, moment])

    def thrust(self, offset: float) -> float:
        """Static thrust (N) at a command offset (us), no advance speed."""
        return self.K_L * offset + self.K_Q * abs(offset) * offset

    def max_thrust(self) -> float:
        """Largest thrust magnitude reachable in both directions (N)."""
        return min(
            self.thrust(self.pwm_max - self.pwm_neutral),
            -self.thrust(self.pwm_min - self.pwm_neutral),
        )

    def pwm(self, thrust: float) -> float:
        """PWM command (us) giving ``thrust`` (N): inverse of the static map with dead zone."""
        magnitude = abs(thrust)
        offset = (-self.K_L + np.sqrt(self.K_L**2 + 4 * self.K_Q * magnitude)) / (2 * self.K_Q)
        if offset <= self.dead_zone:
            # Below the dead-zone edge: round to zero or to the edge, whichever is closer.
            edge = self.thrust(self.dead_zone + 1e-9)
            offset = 0.0 if magnitude < 0.5 * edge else self.dead_zone + 1e-9
        return self.pwm_neutral + np.copysign(offset, thrust)


class ThrustAllocation(Controller):
    """Least-squares allocation u = T^+ tau with uniform scaling into the thrust limits.

    T (6 x n) holds one column per mounted thruster; the minimum-norm solution of T u = tau
    is scaled down as a whole when a thruster would exceed its limit, so that the direction
    of the commanded force is kept. Thrusts are mapped to PWM by the inverse static map.
    """

    def __init__(
        self,
        name: str,
        sample_time: float,
        command: str,
        thrusters: Callable[[np.ndarray], list[ThrusterModel]],
        x: np.ndarray,
    ) -> None:
        """``thrusters(x)`` lists the thrusters of the present morphology in the commanded
        vehicle's frame; it is asked again after every docking or undocking."""
        super().__init__(name, sample_time, [f"{command}[{i}]" for i in range(1, 7)], [])
        self._thrusters = thrusters
        self._configure(thrusters(x))

    def _configure(self, thrusters: list[ThrusterModel]) -> None:
        self.thrusters = thrusters
        self.outputs = [f"{t.instance}.pwm" for t in thrusters]
        self.configuration = np.column_stack([t.column for t in thrusters])
        self.pseudo_inverse = np.linalg.pinv(self.configuration)
        self.limits = np.array([t.max_thrust() for t in thrusters])

    def reconfigure(self, x: np.ndarray) -> bool:
        before = list(self.outputs)
        self._configure(self._thrusters(x))
        return self.outputs != before

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        thrusts = self.pseudo_inverse @ inputs
        peak = np.max(np.abs(thrusts) / self.limits)
        if peak > 1.0:
            thrusts = thrusts / peak
        return np.array([t.pwm(f) for t, f in zip(self.thrusters, thrusts, strict=True)])
