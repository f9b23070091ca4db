"""A vehicle's planar pose relative to its partner from a fiducial camera's detections.

For docking what matters is the pose of one vehicle relative to the other, which two
navigation filters, each drifting on its own, know only to the sum of their errors. A camera
on the chaser that sees a marker on the target measures it directly: the marker's centre r in
the camera frame (m) and its yaw phi in the camera frame (rad). With the camera at c and with
axes R_m on the chaser, the marker at m with yaw y_m on the target, the target's planar pose
(N_t, E_t, psi_t) and the chaser's roll and pitch (its own estimate, to level the line of
sight), the chaser's planar pose is

    psi_c = psi_t + y_m - yaw(R_m) - phi,
    (N_c, E_c) = (N_t, E_t) + R(psi_t) m - R(psi_c) h,   h = level(c + R_m r) (horizontal part),

so that the pair's relative pose is the camera's, whatever the target's estimate is off by.
A detection arrives a latency after its frame (its ``time_of_validity``): it is referred to
the states of that time (the sample nearest to it, kept in a short history), and between
detections, or when frames are dropped or the marker is out of view, the last one is held and
moved on with the chaser's own estimate (its displacement since the frame, turned by the
heading correction). Before the first detection the chaser flies on its own estimate.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from orchestrator.kinematics import euler_from_rotation, rotation_matrix
from orchestrator.scenario.sensors import FiducialCameraConfig
from orchestrator.sensors.mount import Mount

HISTORY = 4.0  # s of states kept to refer a detection to its frame (latencies are below 0.5 s)


def _wrap(angle: float) -> float:
    """An angle (rad) into [-pi, pi)."""
    return (angle + math.pi) % (2 * math.pi) - math.pi


def _turn(angle: float, v: np.ndarray) -> np.ndarray:
    """A horizontal vector (north, east) turned by ``angle`` (rad, clockwise seen from above)."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


class FiducialFix:
    """The chaser's planar pose [N, E, psi] relative to its target, from ``camera``'s
    detections (the camera's scenario entry: its mount on the chaser, the marker's on the
    target); samples every ``sample_time`` (s)."""

    def __init__(self, camera: FiducialCameraConfig, sample_time: float) -> None:
        mount = Mount.from_euler(camera.position, tuple(np.radians(camera.orientation)))
        self.camera_position, self.camera_rotation = mount.position, mount.rotation
        self.camera_yaw = float(euler_from_rotation(mount.rotation)[2])
        marker = Mount.from_euler(
            camera.marker_position, tuple(np.radians(camera.marker_orientation))
        )
        self.marker_position = marker.position[:2]
        self.marker_yaw = float(euler_from_rotation(marker.rotation)[2])
        self.states: deque[tuple[float, np.ndarray, np.ndarray, np.ndarray]] = deque(
            maxlen=max(2, math.ceil(HISTORY / sample_time))
        )
        self.reset()

    def reset(self) -> None:
        """Before the first detection."""
        self.states.clear()
        self.anchor: tuple[np.ndarray, np.ndarray] | None = None  # (fixed pose, own pose) at it
        self.frame = -math.inf  # time of validity of the detection held (s), -inf: none

    def pose(
        self,
        time: float,
        own: np.ndarray,
        attitude: np.ndarray,
        target: np.ndarray,
        detection: np.ndarray,
    ) -> np.ndarray:
        """The chaser's planar pose [N, E, psi] (m, rad) at ``time`` (s), from its ``own``
        estimated pose [N, E, psi], its estimated quaternion ``attitude`` (body to NED), the
        ``target``'s planar pose and the camera's outputs ``detection`` = [detected,
        position[1..3], relative_yaw, time_of_validity]."""
        self.states.append((time, own.copy(), attitude.copy(), target.copy()))
        frame = float(detection[5])
        if detection[0] > 0.5 and frame > self.frame:
            _, own_then, attitude_then, target_then = min(
                self.states, key=lambda s: abs(s[0] - frame)
            )
            fixed = self._fixed(detection[1:4], float(detection[4]), attitude_then, target_then)
            self.anchor, self.frame = (fixed, own_then), frame
        if self.anchor is None:
            return own.copy()
        fixed, own_then = self.anchor
        heading = _wrap(fixed[2] - own_then[2])
        moved = _turn(heading, own[:2] - own_then[:2])
        return np.array([fixed[0] + moved[0], fixed[1] + moved[1], own[2] + heading])

    def _fixed(
        self, seen: np.ndarray, relative_yaw: float, attitude: np.ndarray, target: np.ndarray
    ) -> np.ndarray:
        """The chaser's planar pose from one detection (see the module's equations)."""
        roll, pitch, _ = euler_from_rotation(rotation_matrix(attitude))
        cp, sp, cr, sr = math.cos(pitch), math.sin(pitch), math.cos(roll), math.sin(roll)
        level = np.array([[cp, sp * sr, sp * cr], [0.0, cr, -sr]])  # rows of Ry(pitch) Rx(roll)
        line = level @ (self.camera_position + self.camera_rotation @ seen)
        psi = _wrap(target[2] + self.marker_yaw - self.camera_yaw - relative_yaw)
        marker = target[:2] + _turn(target[2], self.marker_position)
        origin = marker - _turn(psi, line)
        return np.array([origin[0], origin[1], psi])
