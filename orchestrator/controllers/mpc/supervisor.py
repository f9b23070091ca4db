"""Docking supervisor around the distributed MPC: search, approach, final approach, abort/retry.

Algorithm 1 assumes every vehicle starts with its partners inside its camera cones; from a
start where they are not, both vehicles turn at once, the line-of-sight prices grow without
bound and the pair spins. Near the ports the MPC's consensus converges only asymptotically
(the ports creep together ever slower) and nothing checks the capture envelope. The
supervisor runs the pair (the first vehicle is the target, the second the chaser) through the
phases, each change an event:

- ``search``: some camera has its partner outside its cone by more than ``lost``. Every
  vehicle holds position and turns in place (PD on the partner's bearing, which the vehicles
  exchange over their link as they exchange plans) until every partner lies within
  ``acquired`` times the half-angle of its camera (event ``acquired``);
- ``approach``: the distributed MPC, from fresh prices and plans at each (re-)entry;
- ``final`` (event ``final_approach``): the ports within ``final_distance`` and both the
  misalignment and the chaser port's angle off the target port's axis within ``final_angle``.
  The target holds its port where it is; the chaser closes along the axis at
  ``closing_speed`` (below the capture speed, so that the contact captures) with lateral
  offset and misalignment held near zero (:mod:`orchestrator.controllers.mpc.final_approach`;
  with ``lateral_integral``, the lateral offset's integral over the final approach times it is
  added to the correction, so that a steady cross current does not hold the port off the axis);
- a miss (event ``abort``): closing faster than the capture speed within the capture distance
  (the coupling rejects such a contact), the ports passed each other by more than the capture
  distance, misalignment beyond ``abort_angle``, lateral offset beyond ``abort_lateral``, or no
  capture within ``final_time``. Then ``backoff``: the chaser backs away along the axis to
  ``standoff`` (event ``retry``) and the approach starts again; after ``retries`` retries the
  next miss ends the docking (event ``docking_failed``) and both vehicles keep station;
- ``docked``: the owner reports the capture (:meth:`DockingSupervisor.captured`); the
  supervisor's commands are zero from then on (the welded pair is the vehicles' own
  controllers' to hold).

Per sample the MPC's time is bounded by its ``budget`` (see :class:`DistributedMPC`).
"""

from __future__ import annotations

import numpy as np

from orchestrator.controllers.mpc.distributed import DistributedMPC, SampleReport
from orchestrator.controllers.mpc.final_approach import hold, move_along_axis
from orchestrator.controllers.mpc.ports import CaptureEnvelope, PortGeometry, port_geometry
from orchestrator.scenario.model import SupervisorConfig

SEARCH_GAINS = (2.0, 2.0)  # N.m/rad, N.m.s/rad of the turn in place


class DockingSupervisor:
    """The phases of a docking over a :class:`DistributedMPC` of two vehicles (planar states
    in, forces out)."""

    # the events its phase changes log (see _enter)
    event_kinds = (
        "search",
        "acquired",
        "final_approach",
        "abort",
        "retry",
        "docking_failed",
        "captured",
    )

    def __init__(self, mpc: DistributedMPC, settings: SupervisorConfig | None = None) -> None:
        if len(mpc.specs) != 2:
            raise ValueError(f"docking supervisor: expected two vehicles, got {len(mpc.specs)}")
        self.mpc = mpc
        self.settings = settings or SupervisorConfig()
        s = self.settings
        self.envelope = CaptureEnvelope(
            s.capture_distance, s.capture_speed, np.radians(s.capture_angle)
        )
        self.target, self.chaser = mpc.specs.values()
        self.phase = "approach"
        self.events: list[tuple[str, str]] = []
        self.misses = 0
        self.elapsed = 0.0  # s in the present phase
        self.held: dict[str, np.ndarray] = {}  # rendezvous points held (north, east, heading)
        self.lateral_sum = 0.0  # m/s, the final approach's integral action on the lateral offset

    def captured(self) -> None:
        """The ports are welded: end the docking."""
        if self.phase != "docked":
            self._enter("docked", "captured", "the ports are welded; supervisor commands off")

    def step(self, states: dict[str, np.ndarray]) -> SampleReport:
        """One sample: the phase from the present states, then that phase's inputs."""
        self.elapsed += self.target.model.dt
        geometry = port_geometry(
            self.target, states[self.target.name], self.chaser, states[self.chaser.name]
        )
        self._transition(states, geometry)
        if self.phase == "final":
            self.lateral_sum += (
                self.settings.lateral_integral * geometry.lateral * self.target.model.dt
            )
        if self.phase == "approach":
            return self.mpc.step(states)
        return self._report(states, self._inputs(states, geometry))

    def _enter(self, phase: str, event: str, detail: str) -> None:
        self.phase, self.elapsed, self.lateral_sum = phase, 0.0, 0.0
        self.events.append((event, detail))

    def _bearings(self, states: dict[str, np.ndarray]) -> list[tuple[str, float, float]]:
        """(vehicle, bearing of its partner from the camera axis, half-angle) per camera link."""
        found = []
        for name, spec in self.mpc.specs.items():
            for other, k in spec.sees.items():
                camera = spec.cameras[k]
                found.append((name, camera.bearing(states[name], states[other]), camera.half_angle))
        return found

    def _transition(self, states: dict[str, np.ndarray], g: PortGeometry) -> None:
        s = self.settings
        if self.phase == "approach":
            looks = self._bearings(states)
            aligned = max(abs(g.misalignment), g.off_axis) <= np.radians(s.final_angle)
            if any(abs(b) > h + np.radians(s.lost) for _, b, h in looks):
                self._enter("search", "search", "a partner left its camera's view")
            elif g.gap <= s.final_distance and aligned:
                self._hold_here(states, [self.target.name])
                self._enter(
                    "final",
                    "final_approach",
                    f"ports {g.gap:.3f} m apart, {np.degrees(g.off_axis):.1f} deg off axis, "
                    f"misaligned {np.degrees(g.misalignment):.1f} deg",
                )
        elif self.phase == "search":
            looks = self._bearings(states)
            if all(abs(b) <= s.acquired * h for _, b, h in looks):
                self.mpc.reset()
                self._enter("approach", "acquired", "every partner in its camera's view")
        elif self.phase == "final":
            miss = self._miss(g)
            if miss and self.misses >= s.retries:
                self._hold_here(states, list(self.mpc.specs))
                self._enter(
                    "failed",
                    "docking_failed",
                    f"{miss} after {s.retries} retries; station keeping",
                )
            elif miss:
                self.misses += 1
                self._enter(
                    "backoff",
                    "abort",
                    f"{miss}; backing off to {s.standoff:g} m (retry {self.misses} of {s.retries})",
                )
        elif self.phase == "backoff" and g.axial >= s.standoff:
            self.mpc.reset()
            self._enter("approach", "retry", f"ports {g.gap:.2f} m apart; approaching again")

    def _miss(self, g: PortGeometry) -> str | None:
        """Why the final approach has missed the capture envelope, or None."""
        s = self.settings
        if self.envelope.rejects(g):
            return (
                f"closing at {g.closing:.2f} m/s within {s.capture_distance:g} m, "
                f"faster than {s.capture_speed:g} m/s"
            )
        if g.axial < -self.envelope.distance:
            return f"the ports passed each other ({g.axial:.3f} m along the axis)"
        if abs(g.misalignment) > np.radians(s.abort_angle):
            return f"misaligned by {np.degrees(g.misalignment):.1f} deg"
        if abs(g.lateral) > s.abort_lateral:
            return f"lateral offset {g.lateral:.3f} m"
        if self.elapsed > s.final_time:
            return f"no capture within {s.final_time:g} s"
        return None

    def _hold_here(self, states: dict[str, np.ndarray], names: list[str]) -> None:
        for name in names:
            self.held[name] = self.mpc.specs[name].rendezvous_point(states[name])

    def _inputs(self, states: dict[str, np.ndarray], g: PortGeometry) -> dict[str, np.ndarray]:
        """Forces of the phases other than the MPC's approach."""
        t, c = self.target, self.chaser
        x_t, x_c = states[t.name], states[c.name]
        if self.phase == "search":
            return self._turn_in_place(states)
        if self.phase == "docked":
            return {n: np.zeros(3) for n in self.mpc.specs}
        if self.phase == "failed":
            return {n: hold(self.mpc.specs[n], states[n], self.held[n]) for n in self.mpc.specs}
        speed = (
            -self.settings.closing_speed if self.phase == "final" else self.settings.backoff_speed
        )
        return {
            t.name: hold(t, x_t, self.held[t.name]),
            c.name: move_along_axis(t, x_t, c, x_c, g, speed, self.lateral_sum),
        }

    def _turn_in_place(self, states: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Search: hold position (damping the body velocities) and turn towards the partner."""
        looks = self._bearings(states)
        kp, kd = SEARCH_GAINS
        inputs = {}
        for name, spec in self.mpc.specs.items():
            turn = sum(b for n, b, _ in looks if n == name)
            limit = spec.model.max_input
            x = states[name]
            inputs[name] = np.array(
                [
                    np.clip(-spec.model.damping[0] * x[3], -limit[0], limit[0]),
                    np.clip(-spec.model.damping[1] * x[4], -limit[1], limit[1]),
                    np.clip(kp * turn - kd * x[5], -limit[2], limit[2]),
                ]
            )
        return inputs

    def _report(self, states: dict[str, np.ndarray], inputs: dict[str, np.ndarray]) -> SampleReport:
        """A sample without MPC solves: zero solve time, the mean rendezvous point."""
        names = list(self.mpc.specs)
        points = [self.mpc.specs[n].rendezvous_point(states[n]) for n in names]
        return SampleReport(
            inputs, dict.fromkeys(names, 0.0), dict.fromkeys(names, 0), np.mean(points, axis=0)
        )
