"""Planar geometry of a docking pair's ports and the capture envelope.

The target's port (first vehicle of the pair) defines the approach axis: a = R(psi_t) p_t /
|p_t|, the port's outward normal in the horizontal plane (NED), p_t its rendezvous point in the
body frame. The chaser's port relative to the target's, e = h_c - h_t (north, east, m), splits
into the axial distance e . a (positive in front of the target's port) and the lateral offset
e . a_perp (a_perp = a turned 90 deg clockwise, towards east when a points north). The ports
are aligned when their rendezvous headings agree (the heading part of the consensus).

A capture needs the ports within ``distance``, closing at most at ``speed`` and misaligned by
at most ``angle``, the rule of the coupling's docking check with the vehicles' capture_distance,
capture_speed and capture_angle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from orchestrator.controllers.mpc.problem import VehicleSpec


def wrap(angle: float) -> float:
    """Angle (rad) into [-pi, pi)."""
    return float((angle + np.pi) % (2 * np.pi) - np.pi)


def port_velocity(spec: VehicleSpec, x: np.ndarray) -> np.ndarray:
    """NED velocity (m/s) of the vehicle's rendezvous point: R(psi) (nu + r x port)."""
    c, s = np.cos(x[2]), np.sin(x[2])
    body = np.array([x[3] - x[5] * spec.port[1], x[4] + x[5] * spec.port[0]])
    return np.array([c * body[0] - s * body[1], s * body[0] + c * body[1]])


def approach_axis(spec: VehicleSpec, x: np.ndarray) -> np.ndarray:
    """Outward normal (NED, unit) of the vehicle's port at state ``x``."""
    direction = np.asarray(spec.port, dtype=float) / np.linalg.norm(spec.port)
    c, s = np.cos(x[2]), np.sin(x[2])
    return np.array([c * direction[0] - s * direction[1], s * direction[0] + c * direction[1]])


@dataclass(frozen=True)
class PortGeometry:
    """Relative pose and motion of the chaser's port with respect to the target's."""

    gap: float  # m, distance between the ports
    axial: float  # m, along the target port's normal (negative: the ports passed each other)
    lateral: float  # m, across it
    closing: float  # m/s, rate at which the gap shrinks
    misalignment: float  # rad, chaser's rendezvous heading minus the target's, wrapped

    @property
    def off_axis(self) -> float:
        """Angle (rad) of the chaser's port seen from the target's, off the approach axis."""
        return float(np.arctan2(abs(self.lateral), self.axial))


def port_geometry(
    target: VehicleSpec, x_target: np.ndarray, chaser: VehicleSpec, x_chaser: np.ndarray
) -> PortGeometry:
    """The pair's port geometry at planar states [N, E, psi, u, v, r]."""
    h_t, h_c = target.rendezvous_point(x_target), chaser.rendezvous_point(x_chaser)
    e = h_c[:2] - h_t[:2]
    a = approach_axis(target, x_target)
    gap = float(np.linalg.norm(e))
    relative = port_velocity(chaser, x_chaser) - port_velocity(target, x_target)
    closing = float(-relative @ e / gap) if gap > 0 else 0.0
    return PortGeometry(gap, float(e @ a), float(e @ [-a[1], a[0]]), closing, wrap(h_c[2] - h_t[2]))


@dataclass(frozen=True)
class CaptureEnvelope:
    """Largest gap (m), closing speed (m/s) and misalignment (rad) that still capture."""

    distance: float = 0.05  # MurCoSim.Vehicles.Vehicle: capture_distance
    speed: float = 0.3  # capture_speed
    angle: float = np.radians(10.0)  # capture_angle (0.1745 rad)

    def rejects(self, g: PortGeometry) -> bool:
        """True when the ports are close enough but close too fast (a rejected capture)."""
        return g.gap <= self.distance and g.closing > self.speed


class CaptureCheck:
    """The coupling's docking check on the planar port geometry, for loops without the
    coupling: a contact inside the envelope captures, a too fast one is rejected, and after a
    rejection the pair is disarmed until its ports are twice the capture distance apart."""

    def __init__(self, envelope: CaptureEnvelope) -> None:
        self.envelope = envelope
        self.armed = True

    def __call__(self, g: PortGeometry) -> str | None:
        """The outcome for the present geometry: "dock", "dock_rejected" or None."""
        e = self.envelope
        if not self.armed:
            self.armed = g.gap > 2 * e.distance
            return None
        if g.gap > e.distance or abs(g.misalignment) > e.angle:
            return None
        if e.rejects(g):
            self.armed = False
            return "dock_rejected"
        return "dock"
