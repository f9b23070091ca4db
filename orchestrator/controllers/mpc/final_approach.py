"""Control laws near the ports: the slow final approach, the back-off and station keeping.

Each law sets a velocity of the vehicle's rendezvous point (NED, m/s) and a yaw rate (rad/s),
and :func:`track` turns them into the planar force [X, Y, N] (N, N, N.m) with the prediction
model M nu_dot + D nu = tau: the damping D nu_d as feedforward plus a velocity loop
M k (nu_d - nu), k = ``VELOCITY_RATE``, clipped to the input bounds. On the model, without
saturation and with the force held over a sample dt, a velocity error shrinks per sample by
the factor exp(-a dt) - (1 - exp(-a dt)) k / a, a = D / M (0.77 for Table 8.1's surge at
50 ms: it settles in about 0.5 s).

- closing: the chaser's port moves towards the target's along the approach axis at a set
  speed, while the lateral offset and the misalignment decay with the rates ``LATERAL_RATE``
  and ``HEADING_RATE`` (the target port's velocity is added, so the laws act on the relative
  motion);
- back-off: the same with the axial motion reversed;
- holding: the port returns to a held point and heading with the rates ``HOLD_RATE`` and
  ``HEADING_RATE``.
"""

from __future__ import annotations

import numpy as np

from orchestrator.controllers.mpc.ports import PortGeometry, approach_axis, port_velocity, wrap
from orchestrator.controllers.mpc.problem import VehicleSpec

VELOCITY_RATE = 2.0  # 1/s
LATERAL_RATE = 1.0  # 1/s: a lateral offset decays by e in 1 s, 5 times faster than the
# final approach's 0.45 m at 0.1 m/s take
HEADING_RATE = 1.0  # 1/s, the same for the misalignment
HOLD_RATE = 0.5  # 1/s: slower than the velocity loop by 4, so the position loop stays damped


def track(spec: VehicleSpec, x: np.ndarray, velocity: np.ndarray, yaw_rate: float) -> np.ndarray:
    """Force [X, Y, N] that brings the rendezvous point of the vehicle at planar state ``x`` to
    the NED ``velocity`` (m/s) and the vehicle to ``yaw_rate`` (rad/s)."""
    c, s = np.cos(x[2]), np.sin(x[2])
    port = np.array([c * velocity[0] + s * velocity[1], -s * velocity[0] + c * velocity[1]])
    nu_d = np.array(
        [port[0] + yaw_rate * spec.port[1], port[1] - yaw_rate * spec.port[0], yaw_rate]
    )
    model = spec.model
    tau = np.array(model.damping) * nu_d + np.array(model.mass) * VELOCITY_RATE * (nu_d - x[3:])
    return np.clip(tau, -np.array(model.max_input), model.max_input)


def move_along_axis(
    target: VehicleSpec,
    x_target: np.ndarray,
    chaser: VehicleSpec,
    x_chaser: np.ndarray,
    geometry: PortGeometry,
    speed: float,
    lateral_sum: float = 0.0,
) -> np.ndarray:
    """Chaser's force: its port moves at ``speed`` (m/s) along the target port's axis,
    towards the target's port when negative, away when positive, lateral offset and
    misalignment decaying; ``lateral_sum`` (m/s) is added to the lateral correction (the
    integral action against a steady drift)."""
    a = approach_axis(target, x_target)
    across = np.array([-a[1], a[0]])
    correction = LATERAL_RATE * geometry.lateral + lateral_sum
    velocity = port_velocity(target, x_target) + speed * a - correction * across
    yaw_rate = x_target[5] - HEADING_RATE * geometry.misalignment
    return track(chaser, x_chaser, velocity, yaw_rate)


def hold(spec: VehicleSpec, x: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Force that keeps the vehicle's rendezvous point at ``point`` (north, east in m, heading
    in rad)."""
    here = spec.rendezvous_point(x)
    velocity = -HOLD_RATE * (here[:2] - point[:2])
    return track(spec, x, velocity, -HEADING_RATE * wrap(here[2] - point[2]))
