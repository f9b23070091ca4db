"""Depth, heading and surge-speed autopilot for a fully actuated vehicle."""

from __future__ import annotations

import math

import numpy as np

from orchestrator.controllers.base import Controller, PIDLoop, body_state_signals
from orchestrator.kinematics import euler_from_rows, rotation_rows, wrap_angle
from orchestrator.scenario.model import AutopilotConfig


class DepthHeadingSpeedAutopilot(Controller):
    """PID loops on depth, heading and surge speed; roll and pitch held level, sway damped.

    Inputs: the vehicle's ``p`` (NED, m), ``q`` (quaternion) and ``nu`` (body velocity), true
    or, with ``state``, a navigation filter's estimate of them.
    Outputs: ``tau`` (6), the generalized force command at the body origin, body frame
    (N, N.m), and the set points in force, ``depth_set`` (m), ``heading_set`` (deg) and
    ``speed_set`` (m/s), recorded as columns (published at the sample). The depth loop acts
    along NED z and is rotated into the body frame.
    """

    def __init__(self, name: str, config: AutopilotConfig) -> None:
        set_points = [f"{name}.{s}" for s in ("depth_set", "heading_set", "speed_set")]
        outputs = [f"{name}.tau[{i}]" for i in range(1, 7)] + set_points
        super().__init__(
            name, config.sample_time, body_state_signals(config.state or config.vehicle), outputs
        )
        self.monitors = tuple(set_points)
        self.config = config
        g, dt = config.gains, config.sample_time
        self.depth = PIDLoop(g.depth, dt)
        self.heading = PIDLoop(g.heading, dt)
        self.surge = PIDLoop(g.surge, dt)
        self.roll = PIDLoop(g.roll, dt)
        self.pitch = PIDLoop(g.pitch, dt)
        self.sway = PIDLoop(g.sway, dt)

    def set_points(self, time: float) -> tuple[float, float, float]:
        """Depth (m), heading (deg) and surge speed (m/s) in force at ``time``."""
        c = self.config
        depth, heading, speed = c.depth, c.heading, c.surge_speed
        for change in sorted(c.changes, key=lambda k: k.time):
            if change.time <= time + 1e-12:
                depth = depth if change.depth is None else change.depth
                heading = heading if change.heading is None else change.heading
                speed = speed if change.surge_speed is None else change.surge_speed
        return depth, heading, speed

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        state = inputs.tolist()  # plain floats
        R = rotation_rows(state[3:7])
        roll, pitch, yaw = euler_from_rows(R)
        down = R[2]  # NED z in body axes (R' [0, 0, 1])
        depth_now = state[2]
        u, v, w, p, q, r = state[7:13]  # body velocity (m/s, rad/s)
        heave_rate = down[0] * u + down[1] * v + down[2] * w
        depth, heading, speed = self.set_points(time)
        force_down = self.depth.update(depth - depth_now, -heave_rate)
        return np.array(
            [
                down[0] * force_down + self.surge.update(speed - u, 0.0),
                down[1] * force_down + self.sway.update(0.0, -v),
                down[2] * force_down,
                self.roll.update(-roll, -p),
                self.pitch.update(-pitch, -q),
                self.heading.update(wrap_angle(math.radians(heading) - yaw), -r),
                depth,
                heading,
                speed,
            ]
        )
