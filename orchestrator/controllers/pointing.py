"""Payload pointing of a joint-actuated buoy (Cortesi 2012, Ch. 4): the joint angles that aim the
payload's axis at a point in the sky, by sliding mode + feed-forward (eq. 4.38) or PID +
feed-forward (eq. 4.44).

Frames: NED; the payload's body z points down its axis, so it points at -R[:, 2]. The aim is
given by its angle from the zenith (vertical) and its azimuth from north towards east. The
payload's roll and pitch are the angles of the universal joint's order, R = Rz(psi) Rx(roll)
Ry(pitch) (heading psi): with the housing upright they equal the joint angles (axis 1 along
the housing's x, axis 2 along the payload's y), so each axis loop controls one joint axis.
"""

from __future__ import annotations

import numpy as np

from orchestrator.controllers.base import Controller
from orchestrator.kinematics import rotation_matrix
from orchestrator.scenario.model import PointingConfig


def payload_angles(R: np.ndarray) -> tuple[float, float, float]:
    """Roll, pitch and heading (rad) of R = Rz(heading) Rx(roll) Ry(pitch), body to NED."""
    roll = float(np.arcsin(np.clip(R[2, 1], -1.0, 1.0)))
    pitch = float(np.arctan2(-R[2, 0], R[2, 2]))
    heading = float(np.arctan2(-R[0, 1], R[1, 1]))
    return roll, pitch, heading


def reference_angles(vertical: float, azimuth: float, heading: float) -> tuple[float, float]:
    """Payload roll and pitch (rad) that aim its axis ``vertical`` from the zenith towards
    ``azimuth`` at its present ``heading`` (Cortesi 2012, eqs. 4.34-4.35, rad)."""
    joint_azimuth = azimuth - heading
    pitch = -np.arcsin(np.cos(joint_azimuth) * np.sin(vertical))
    roll = np.arcsin(np.sin(joint_azimuth) * np.sin(vertical) / np.cos(pitch))
    return float(roll), float(pitch)


def aim_vector(vertical: float, azimuth: float) -> np.ndarray:
    """Unit vector (NED) ``vertical`` rad from the zenith towards ``azimuth`` rad."""
    return np.array(
        [np.cos(azimuth) * np.sin(vertical), np.sin(azimuth) * np.sin(vertical), -np.cos(vertical)]
    )


def pointing_error(R: np.ndarray, vertical: float, azimuth: float) -> float:
    """Composite pointing error (rad): angle between the payload's axis and the aim (Cortesi (2012)
    eqs. 4.45-4.47)."""
    axis, aim = -R[:, 2], aim_vector(vertical, azimuth)
    return float(np.arctan2(np.linalg.norm(np.cross(axis, aim)), axis @ aim))


class BuoyPointing(Controller):
    """Joint commands of the payload's two axes from its attitude and body rates.

    Inputs: the payload's ``q`` and its roll and pitch rates ``nu[4]``, ``nu[5]``. Outputs: the
    actuator's ``theta_cmd[1]``, ``theta_cmd[2]`` (rad, delayed by the latency) and
    ``<name>.error`` (composite pointing error, rad, published at the sample).
    """

    def __init__(self, name: str, config: PointingConfig) -> None:
        p, a = config.payload, config.actuator
        inputs = [f"{p}.q[{i}]" for i in range(1, 5)] + [f"{p}.nu[4]", f"{p}.nu[5]"]
        outputs = [f"{a}.theta_cmd[1]", f"{a}.theta_cmd[2]", f"{name}.error"]
        super().__init__(name, config.sample_time, inputs, outputs)
        self.config = config
        self.latency = config.latency
        self.monitors = (f"{name}.error",)
        self.integral = np.zeros(2)

    def aim(self, time: float) -> tuple[float, float]:
        """Vertical angle and azimuth (rad) of the aim in force at ``time``."""
        c = self.config
        vertical, azimuth = c.vertical, c.azimuth
        for change in sorted(c.changes, key=lambda k: k.time):
            if change.time <= time + 1e-12:
                vertical = vertical if change.vertical is None else change.vertical
                azimuth = azimuth if change.azimuth is None else change.azimuth
        return np.radians(vertical), np.radians(azimuth)

    def law(self, error: np.ndarray, rate: np.ndarray) -> np.ndarray:
        """Feedback part of the joint commands (rad) of both axes, without feed-forward."""
        c = self.config
        self.integral += error * c.sample_time
        if c.law == "pid":
            g = c.pid
            return -g.kp * error - g.kd * rate - g.ki * self.integral
        g = c.sliding_mode
        surface = rate + g.C * error
        amplitude = g.alpha * np.hypot(rate, error) + np.radians(g.delta)
        return -amplitude * np.clip(surface / g.h, -1.0, 1.0) - g.ki * self.integral

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        R = rotation_matrix(inputs[:4])
        rate = inputs[4:6]
        vertical, azimuth = self.aim(time)
        roll, pitch, heading = payload_angles(R)
        reference = np.array(reference_angles(vertical, azimuth, heading))
        error = np.array([roll, pitch]) - reference
        command = self.law(error, rate) + self.config.K_ff * reference
        limit = np.radians(self.config.limit)
        return np.concatenate(
            [np.clip(command, -limit, limit), [pointing_error(R, vertical, azimuth)]]
        )
