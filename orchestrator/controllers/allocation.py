"""Thrust allocation: a body-frame generalized force command to thruster PWM commands."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from orchestrator.controllers.base import Controller
from orchestrator.controllers.constrained_allocation import ConstrainedAllocator
from orchestrator.native import controllers as native


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

    def dead_band(self) -> float:
        """Smallest thrust magnitude outside the dead zone (N)."""
        return self.thrust(self.dead_zone)

    def max_thrust(self) -> float:
        """Largest thrust magnitude reachable in both directions (N)."""
        return min(
            self.thrust(self.pwm_max - self.pwm_neutral),
            -self.thrust(self.pwm_min - self.pwm_neutral),
        )

    @cached_property
    def _inverse(self) -> tuple[float, ...]:
        """Constants of :meth:`pwm`: -K_L, K_L^2, 4 K_Q, 2 K_Q, the offset just outside the
        dead zone (us) and half the thrust there (N)."""
        edge = self.dead_zone + 1e-9
        return -self.K_L, self.K_L**2, 4 * self.K_Q, 2 * self.K_Q, edge, 0.5 * self.thrust(edge)

    @cached_property
    def pwm_constants(self) -> tuple[float, ...]:
        """What the compiled :meth:`pwm` needs: :attr:`_inverse`, the dead zone and the
        neutral command (us)."""
        return (*self._inverse, self.dead_zone, self.pwm_neutral)

    def pwm(self, thrust: float) -> float:
        """PWM command (us) giving ``thrust`` (N): inverse of the static map with dead zone,
        offset = (-K_L + sqrt(K_L^2 + 4 K_Q |thrust|)) / (2 K_Q) with the sign of the thrust;
        an offset inside the dead zone is rounded to zero or to its edge, whichever is closer
        in thrust (compiled: ``orchestrator/native/_controllers.c``)."""
        return native.thrust_pwm(self.pwm_constants, thrust)


class ThrusterMaps:
    """The static maps of several thrusters on arrays (one entry per thruster): thrust to
    PWM (:meth:`ThrusterModel.pwm`, compiled) and PWM to the thrust it gives."""

    def __init__(self, thrusters: list[ThrusterModel]) -> None:
        self._pwm_constants = np.array([t.pwm_constants for t in thrusters]).ravel()
        self._k_l = np.array([t.K_L for t in thrusters])
        self._k_q = np.array([t.K_Q for t in thrusters])
        self._dead_zone = np.array([t.dead_zone for t in thrusters])
        self._neutral = np.array([t.pwm_neutral for t in thrusters])

    def pwm(self, thrusts: np.ndarray, available: np.ndarray) -> np.ndarray:
        """PWM commands (us) giving ``thrusts`` (N), neutral where not ``available``."""
        pwm = np.empty(len(self._neutral))
        flags = np.asarray(available, dtype=float)
        native.thrust_pwm_many(self._pwm_constants, np.asarray(thrusts, float), flags, pwm)
        return pwm

    def realized(self, pwm: np.ndarray) -> np.ndarray:
        """Static thrusts (N) PWM commands (us) give, no advance speed: K_L o + K_Q |o| o at
        the offset o from neutral, none inside the dead zone."""
        offset = pwm - self._neutral
        thrust = self._k_l * offset + self._k_q * np.abs(offset) * offset
        return np.where(np.abs(offset) > self._dead_zone, thrust, 0.0)


def balanced_groups(configuration: np.ndarray) -> list[np.ndarray]:
    """Null-space directions of T whose entries share one sign: thrusters that can all push
    together without any net force (e.g. the four vectored thrusters of a BlueROV2 Heavy)."""
    _, singular, v_transposed = np.linalg.svd(configuration)
    rank = int(np.sum(singular > 1e-9 * singular[0]))
    groups = []
    for vector in v_transposed[rank:]:  # orthonormal basis of the null space
        support = np.abs(vector) > 1e-9
        if support.sum() >= 2 and (np.all(vector[support] > 0) or np.all(vector[support] < 0)):
            # outside the support zero, not round-off: a thruster of weight 1e-17 is no member
            groups.append(np.where(support, np.abs(vector), 0.0) / np.max(np.abs(vector)))
    return groups


class ThrustAllocation(Controller):
    """Thrust allocation over a vehicle's mounted thrusters, thrusts mapped to PWM by the
    inverse static map.

    ``method = "qp"`` (default): the constrained allocation of
    :mod:`orchestrator.controllers.constrained_allocation` (thrust and rate limits, dead zones,
    minimum power, priorities per degree of freedom). ``method = "pseudo_inverse"``: u = T^+ tau
    scaled down as a whole when a thruster would exceed its limit (keeps the direction of the
    commanded force); with ``bias`` > 0 (N), thrust biasing: along each balanced null-space
    group every thruster of the group is raised to at least ``bias``, which changes no net force
    but keeps small commands out of the dead zones.

    ``failed`` maps thruster instances to the time (s) they fail: from then on their command is
    neutral (no thrust) and the others carry the load.
    """

    def __init__(
        self,
        name: str,
        sample_time: float,
        commands: list[str],
        thrusters: Callable[[np.ndarray], list[ThrusterModel]],
        x: np.ndarray,
        method: str,
        bias: float,
        priorities: tuple[float, ...],
        max_thrust_rate: float,
        failed: dict[str, float],
    ) -> None:
        """``commands`` are 6-vector signals that are added; ``thrusters(x)`` lists the
        thrusters of the present morphology in the commanded vehicle's frame (asked again
        after every docking or undocking). ``max_thrust_rate`` in N/s."""
        inputs = [f"{c}[{i}]" for c in commands for i in range(1, 7)]
        super().__init__(name, sample_time, inputs, [])
        self.method = method
        self.bias = bias
        self.priorities = priorities
        self.max_thrust_rate = max_thrust_rate
        self.failed = failed
        self._thrusters = thrusters
        self._configure(thrusters(x))

    def _configure(self, thrusters: list[ThrusterModel]) -> None:
        previous = dict(
            zip(getattr(self, "outputs", []), getattr(self, "thrusts", []), strict=True)
        )
        self.thrusters = thrusters
        self.outputs = [f"{t.instance}.pwm" for t in thrusters]
        self.thrusts = np.array([previous.get(o, 0.0) for o in self.outputs])
        self.fail_times = np.array([self.failed.get(t.instance, np.inf) for t in thrusters])
        self.configuration = np.column_stack([t.column for t in thrusters])
        self.limits = np.array([t.max_thrust() for t in thrusters])
        self.maps = ThrusterMaps(thrusters)
        self.groups = balanced_groups(self.configuration) if self.bias > 0 else []
        self._inverses: dict[bytes, np.ndarray] = {}
        self.compiled_law = None
        if self.method == "pseudo_inverse":
            self._law = native.pseudo_inverse(
                len(self.inputs) // 6,
                self.bias,
                self.limits,
                self.groups,
                [t.pwm_constants for t in thrusters],
            )
            self._available = np.zeros(len(thrusters), bool)
            self._use(np.ones(len(thrusters), bool))
            if np.isinf(self.fail_times).all():  # availability fixed: sampled without Python
                self.compiled_law = self._law
        if self.method == "qp":
            self.allocator = ConstrainedAllocator(
                self.configuration,
                self.limits,
                np.array([t.dead_band() for t in thrusters]),
                self.max_thrust_rate,
                self.sample_time,
                self.priorities,
            )

    def _inverse_of(self, available: np.ndarray) -> np.ndarray:
        """T^+ of the available thrusters' columns (the others zero), computed once per set
        of available thrusters."""
        key = available.tobytes()
        inverse = self._inverses.get(key)
        if inverse is None:
            inverse = self._inverses[key] = np.linalg.pinv(self.configuration * available)
        return inverse

    def _use(self, available: np.ndarray) -> None:
        """Hand the compiled law the pseudo-inverse of the ``available`` thrusters."""
        m = len(available)
        self._law.state[: 6 * m] = self._inverse_of(available).ravel()
        self._law.state[6 * m :] = available
        self._available = available

    def reconfigure(self, x: np.ndarray) -> bool:
        before = list(self.outputs)
        self._configure(self._thrusters(x))
        return self.outputs != before

    def pseudo_inverse_law(self, available: np.ndarray) -> native.Law:
        """The compiled pseudo-inverse law, set for the ``available`` thrusters (its
        pseudo-inverse recomputed when they changed)."""
        if not np.array_equal(available, self._available):
            self._use(available)
        return self._law

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        available = time < self.fail_times
        if self.method == "pseudo_inverse":
            pwm = np.empty(len(self.thrusters))
            law = self.pseudo_inverse_law(available)
            law.step(time, np.ascontiguousarray(inputs, dtype=float), pwm)
            return pwm
        tau = inputs if len(inputs) == 6 else inputs.reshape(-1, 6).sum(axis=0)  # N, N.m
        thrusts = self.allocator.allocate(tau, self.thrusts, available)
        pwm = self.maps.pwm(thrusts, available)
        self.thrusts = self.maps.realized(pwm)  # its rate limits start from these thrusts
        return pwm
