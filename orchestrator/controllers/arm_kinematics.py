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

from orchestrator.native.controllers import AT_EDGE, arm_inverse


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
    With the reach r = hypot(x, y) and c = (r^2 + z^2 - a^2 - l^2) / (2 a l), the bend is
    b = acos(c) (negated with the elbow up), q2 = -(atan2(r, z) - atan2(l sin b, a + l cos b))
    and q3 = -b (compiled: ``orchestrator/native/_controllers.c``). Raises ValueError for a
    point out of reach.
    """
    target = _point(point)
    status, angles, _ = arm_inverse(target, None, upper_arm, forearm, elbow_down)
    if status:
        raise unreachable(status, target, upper_arm, forearm)
    return angles


def inverse_motion(
    point: Sequence[float],
    velocity: Sequence[float],
    upper_arm: float,
    forearm: float,
    elbow_down: bool,
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Joint angles (rad) and rates (rad/s) that move the end effector through ``point`` (m)
    at ``velocity`` (m/s, same frame): :func:`inverse` and its time derivative, by the chain
    rule through the reach, the law of cosines and the two atan2 terms (d atan2(u, v) =
    (v du - u dv) / (u^2 + v^2)). Raises ValueError for a point out of reach or at its edge
    (arm stretched: the rates are unbounded there)."""
    target = _point(point)
    status, angles, rates = arm_inverse(target, _point(velocity), upper_arm, forearm, elbow_down)
    if status:
        raise unreachable(status, target, upper_arm, forearm)
    return angles, rates


def unreachable(
    status: int, point: tuple[float, float, float], upper_arm: float, forearm: float
) -> ValueError:
    """The error of the compiled inverse kinematics' ``status`` at ``point`` (m)."""
    shown = np.round(point, 4).tolist()
    if status == AT_EDGE:
        return ValueError(
            f"end-effector point {shown} m is at the edge of reach (arm stretched or folded): "
            "the joint rates are unbounded"
        )
    reach = math.hypot(point[0], point[1])
    return ValueError(
        f"end-effector point {shown} m is out of reach ({math.hypot(reach, point[2]):.4g} m "
        f"from the shoulder; reach {abs(upper_arm - forearm):.4g} to "
        f"{upper_arm + forearm:.4g} m)"
    )


def _point(values: Sequence[float]) -> tuple[float, float, float]:
    x, y, z = (float(v) for v in values)
    return x, y, z
