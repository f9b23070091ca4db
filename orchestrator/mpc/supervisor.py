"""Docking supervisor around the distributed MPC: search and re-acquisition of the partner.

Algorithm 1 assumes every vehicle starts with its partners inside its camera cones; from a
start where they are not, both vehicles turn at once, the line-of-sight prices grow without
bound and the pair spins. The supervisor keeps the MPC out of that situation:

- ``search``: some camera has its partner outside its cone by more than ``lost`` (rad). Every
  vehicle holds position and turns in place (PD on the partner's bearing, which the vehicles
  exchange over their link as they exchange plans) until every partner lies within
  ``acquired`` times the half-angle of its camera;
- ``approach``: the distributed MPC, started from fresh prices and plans at each acquisition.

Per sample the MPC's time is bounded by its ``budget`` (see :class:`DistributedMPC`).
"""

from __future__ import annotations

import numpy as np

from orchestrator.mpc.distributed import DistributedMPC, SampleReport


class DockingSupervisor:
    """Search / approach phases over a :class:`DistributedMPC` (planar states in, forces out)."""

    def __init__(
        self,
        mpc: DistributedMPC,
        lost: float = np.radians(10.0),
        acquired: float = 0.5,
        yaw_gains: tuple[float, float] = (2.0, 2.0),
    ) -> None:
        """``lost`` (rad) beyond a cone starts a search; ``acquired`` (fraction of the
        half-angle) ends it; ``yaw_gains`` (N.m/rad, N.m.s/rad) of the turn in place."""
        self.mpc = mpc
        self.lost, self.acquired, self.kp, self.kd = lost, acquired, *yaw_gains
        self.phase = "approach"
        self.events: list[tuple[str, str]] = []

    def _bearings(self, states: dict[str, np.ndarray]) -> list[tuple[str, float, float]]:
        """(vehicle, bearing of its partner from the camera axis, half-angle) per camera link."""
        found = []
        for name, spec in self.mpc.specs.items():
            for other, k in spec.sees.items():
                camera = spec.cameras[k]
                found.append((name, camera.bearing(states[name], states[other]), camera.half_angle))
        return found

    def step(self, states: dict[str, np.ndarray]) -> SampleReport:
        """One sample: the phase from the present bearings, then that phase's inputs."""
        looks = self._bearings(states)
        if self.phase == "approach" and any(abs(b) > h + self.lost for _, b, h in looks):
            self.phase = "search"
            self.events.append(("search", "a partner left its camera's view"))
        elif self.phase == "search" and all(abs(b) <= self.acquired * h for _, b, h in looks):
            self.phase = "approach"
            self.mpc.reset()
            self.events.append(("acquired", "every partner in its camera's view"))
        if self.phase == "approach":
            return self.mpc.step(states)
        inputs = {}
        for name, spec in self.mpc.specs.items():
            turn = sum(b for n, b, _ in looks if n == name)
            limit = spec.model.max_input
            x = states[name]
            inputs[name] = np.array(
                [
                    np.clip(-spec.model.damping[0] * x[3], -limit[0], limit[0]),
                    np.clip(-spec.model.damping[1] * x[4], -limit[1], limit[1]),
                    np.clip(self.kp * turn - self.kd * x[5], -limit[2], limit[2]),
                ]
            )
        names = list(self.mpc.specs)
        points = [self.mpc.specs[n].rendezvous_point(states[n]) for n in names]
        return SampleReport(
            inputs, dict.fromkeys(names, 0.0), dict.fromkeys(names, 0), np.mean(points, axis=0)
        )
