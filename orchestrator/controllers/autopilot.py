"""Depth, heading and surge-speed autopilot for a fully actuated vehicle."""

from __future__ import annotations

import numpy as np

from orchestrator.controllers.base import Controller, body_state_signals, loop_gains
from orchestrator.native import controllers as native
from orchestrator.scenario.model import AutopilotConfig

LOOPS = ("depth", "surge", "sway", "roll", "pitch", "heading")
"""The PID loops, in the order of the compiled law's settings."""


class DepthHeadingSpeedAutopilot(Controller):
    """PID loops on depth, heading and surge speed; roll and pitch held level, sway damped.

    With R the rotation body to NED of q, roll, pitch, yaw its zyx Euler angles and
    d = R' [0, 0, 1] the NED down axis in body axes, each loop a PID on an error e and its
    rate (``base.loop_gains``):

        f_down = PID_depth(z_d - z, -d . v)        v = [u, v, w], body (m/s)
        tau = [d f_down + [PID_surge(u_d - u, 0), PID_sway(0, -v), 0],
               PID_roll(-roll, -p), PID_pitch(-pitch, -q),
               PID_heading(wrap(psi_d - yaw), -r)]

    the heading error wrapped into [-pi, pi). The set points are the configured ones, each
    replaced by the last change at or before the sample.

    Inputs: the vehicle's ``p`` (NED, m), ``q`` (quaternion) and ``nu`` (body velocity), true
    or, with ``state``, a navigation filter's estimate of them.
    Outputs: ``tau`` (6), the generalized force command at the body origin, body frame
    (N, N.m), and the set points in force, ``depth_set`` (m), ``heading_set`` (deg) and
    ``speed_set`` (m/s), recorded as columns (published at the sample). The step is compiled
    (:attr:`compiled_law`, ``orchestrator/native/_controllers.c``), the loops' integrals its
    state.
    """

    def __init__(self, name: str, config: AutopilotConfig) -> None:
        set_points = [f"{name}.{s}" for s in ("depth_set", "heading_set", "speed_set")]
        outputs = [f"{name}.tau[{i}]" for i in range(1, 7)] + set_points
        super().__init__(
            name, config.sample_time, body_state_signals(config.state or config.vehicle), outputs
        )
        self.monitors = tuple(set_points)
        self.config = config
        self.compiled_law = native.autopilot(
            config.sample_time,
            [loop_gains(getattr(config.gains, loop)) for loop in LOOPS],
            (config.depth, config.heading, config.surge_speed),
            set_point_changes(config),
        )

    def reset(self) -> None:
        """The loops' integrals back to zero."""
        self.compiled_law.state[:] = 0.0

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        outputs = np.empty(len(self.outputs))
        self.compiled_law.step(time, np.ascontiguousarray(inputs, dtype=float), outputs)
        return outputs


def set_point_changes(config: AutopilotConfig) -> list[tuple[float, float, float, float]]:
    """The configured changes in time order, each as its time (s) and the depth (m), heading
    (deg) and surge speed (m/s) in force from then on (a set point a change does not give
    kept from before it)."""
    depth, heading, speed = config.depth, config.heading, config.surge_speed
    table = []
    for change in sorted(config.changes, key=lambda k: k.time):
        depth = depth if change.depth is None else change.depth
        heading = heading if change.heading is None else change.heading
        speed = speed if change.surge_speed is None else change.surge_speed
        table.append((change.time, depth, heading, speed))
    return table
