"""Depth, heading and surge-speed autopilot for a fully actuated vehicle."""

from __future__ import annotations

import numpy as np

from orchestrator.controllers.base import Controller, PIDLoop, body_state_signals
from orchestrator.kinematics import euler_angles, rotation_matrix, wrap_angle
from orchestrator.scenario import AutopilotConfig


class DepthHeadingSpeedAutopilot(Controller):
    """PID loops on depth, heading and surge speed; roll and pitch held level, sway damped.

    Inputs: the vehicle's ``p`` (NED, m), ``q`` (quaternion) and ``nu`` (body velocity).
    Output: ``tau`` (6), the generalized force command at the body origin, body frame
    (N, N.m). The depth loop acts along NED z and is rotated into the body frame.
    """

    def __init__(self, name: str, config: AutopilotConfig) -> None:
        outputs = [f"{name}.tau[{i}]" for i in range(1, 7)]
        super().__init__(name, config.sample_time, body_state_signals(config.vehicle), outputs)
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
        p, q, nu = inputs[:3], inputs[3:7], inputs[7:13]
        R = rotation_matrix(q)
        roll, pitch, yaw = euler_angles(q)
        heave_rate = float(R[2] @ nu[:3])
        depth, heading, speed = self.set_points(time)
        force_down = self.depth.update(depth - p[2], -heave_rate)
        tau = np.zeros(6)
        tau[:3] = R[2] * force_down  # R' [0, 0, F] : the NED vertical force in body axes
        tau[0] += self.surge.update(speed - nu[0], 0.0)
        tau[1] += self.sway.update(0.0, -nu[1])
        tau[3] = self.roll.update(-roll, -nu[3])
        tau[4] = self.pitch.update(-pitch, -nu[4])
        tau[5] = self.heading.update(float(wrap_angle(np.radians(heading) - yaw)), -nu[5])
        return tau
