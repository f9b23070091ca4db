"""Kinematics of a 3-DOF anthropomorphic arm: base yaw, then shoulder and elbow pitch.

The joint conventions are those of León-González et al. (2024)'s arm as the scenarios build it
(Table 1 with alpha_2 = +pi/2): joint 1 turns about the vehicle's z axis (down) at the attachment
point; joints 2 and 3 turn about the horizontal axis -y of the yawed arm; at q = 0 both links hang
straight down. With the upper arm a and the forearm l, the end effector relative to the attachment
point, in the vehicle frame (m), is

    p = R_z(q1) [-(a sin q2 + l sin(q2 + q3)), 0, a cos q2 + l cos(q2 + q3)].
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def forward(q: np.ndarray, upper_arm: float, forearm: float) -> np.ndarray:
    """End-effector position (m) relative to the attachment point, vehicle frame."""
    reach = -(upper_arm * np.sin(q[1]) + forearm * np.sin(q[1] + q[2]))
    depth = upper_arm * np.cos(q[1]) + forearm * np.cos(q[1] + q[2])
    return np.array([reach * np.cos(q[0]), reach * np.sin(q[0]), depth])


def inverse(
    point: Sequence[float], upper_arm: float, forearm: float, elbow_down: bool
) -> tuple[float, float, float]:
    """Joint angles (rad) that put the end effector at ``point`` (m, as :func:`forward`).

    The arm reaches out along its yaw (q1 = atan2(y, x), 0 on the vertical through the
    attachment). ``elbow_down``: the elbow below the line from shoulder to end effector.
    Raises ValueError for a point out of reach.
    """
    return _Solution(point, upper_arm, forearm, elbow_down).angles


def inverse_motion(
    point: Sequence[float],
    velocity: Sequence[float],
    upper_arm: float,
    forearm: float,
    elbow_down: bool,
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Joint angles (rad) and rates (rad/s) that move the end effector through ``point`` (m)
    at ``velocity`` (m/s, same frame): :func:`inverse` and its time derivative. Raises
    ValueError for a point out of reach or at its edge (arm stretched: the rates are
    unbounded there)."""
    solution = _Solution(point, upper_arm, forearm, elbow_down)
    return solution.angles, solution.rates(velocity)


class _Solution:
    """The inverse kinematics of one point and the quantities its time derivative needs."""

    def __init__(
        self, point: Sequence[float], upper_arm: float, forearm: float, elbow_down: bool
    ) -> None:
        x, y, z = (float(v) for v in point)  # plain floats: math is many times NumPy's speed
        reach = math.hypot(x, y)
        cosine = (reach**2 + z**2 - upper_arm**2 - forearm**2) / (2 * upper_arm * forearm)
        if abs(cosine) > 1.0:
            distance = math.hypot(reach, z)
            raise ValueError(
                f"end-effector point {np.round(point, 4).tolist()} m is out of reach "
                f"({distance:.4g} m from the shoulder; reach {abs(upper_arm - forearm):.4g} to "
                f"{upper_arm + forearm:.4g} m)"
            )
        self.sign = 1.0 if elbow_down else -1.0
        bend = math.acos(cosine) * self.sign  # forearm from upper arm
        shoulder = math.atan2(reach, z) - math.atan2(
            forearm * math.sin(bend), upper_arm + forearm * math.cos(bend)
        )
        yaw = math.atan2(y, x) if reach > 0 else 0.0
        self.angles = yaw, -shoulder, -bend
        self.point, self.reach, self.cosine, self.bend = (x, y, z), reach, cosine, bend
        self.upper_arm, self.forearm = upper_arm, forearm

    def rates(self, velocity: Sequence[float]) -> tuple[float, float, float]:
        """Joint rates (rad/s) at end-effector ``velocity`` (m/s): the chain rule through
        reach, the law of cosines and the two atan2 terms; d atan2(u, v) = (v du - u dv) /
        (u^2 + v^2)."""
        (x, y, z), (vx, vy, vz) = self.point, (float(v) for v in velocity)
        upper, fore, reach, bend = self.upper_arm, self.forearm, self.reach, self.bend
        if 1.0 - abs(self.cosine) < 1e-12:
            raise ValueError(
                f"end-effector point {np.round(self.point, 4).tolist()} m is at the edge of "
                "reach (arm stretched or folded): the joint rates are unbounded"
            )
        reach_rate = (x * vx + y * vy) / reach if reach > 0 else math.hypot(vx, vy)
        yaw_rate = (x * vy - y * vx) / reach**2 if reach > 0 else 0.0
        cosine_rate = (reach * reach_rate + z * vz) / (upper * fore)
        bend_rate = -self.sign * cosine_rate / math.sqrt(1.0 - self.cosine**2)
        u, v = fore * math.sin(bend), upper + fore * math.cos(bend)
        shoulder_rate = (z * reach_rate - reach * vz) / (reach**2 + z**2) - fore * (
            upper * math.cos(bend) + fore
        ) * bend_rate / (u * u + v * v)
        return yaw_rate, -shoulder_rate, -bend_rate
