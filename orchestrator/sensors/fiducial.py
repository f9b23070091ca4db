"""Camera seeing a fiducial marker (ArUco/AprilTag-like) for docking: relative pose and bearing.

Pinhole camera, sensor frame x along the optical axis, y right, z down (the body's FRD axes
when mounted without rotation). The marker is a square of side ``marker_size`` (m) whose
frame has x along its outward normal. It is detected when it lies in front of the camera
within the field of view (|y / x| <= width / 2f, |z / x| <= height / 2f), faces the camera
within ``max_view_angle``, spans at least ``min_pixels`` (P = f s / x pixels), and the frame is
not dropped (probability ``dropout``). Image noise of ``pixel_noise`` (px) on the marker's
centre gives bearing errors pixel_noise / f (rad) and the depth error x^2 pixel_noise / (f s)
(m) of a size-based range; the relative yaw carries 2 pixel_noise / P (rad). Outputs are zero
when nothing is detected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from orchestrator.kinematics import euler_from_rotation, wrap_angle


@dataclass(frozen=True)
class CameraSettings:
    """Intrinsics (px), marker side (m), detection limits and noise."""

    focal_length: float
    width: int
    height: int
    marker_size: float
    min_pixels: float
    max_view_angle: float
    pixel_noise: float
    dropout: float


@dataclass(frozen=True)
class Detection:
    """One frame: ``detected``; marker centre in the camera frame ``position`` (m);
    ``azimuth`` (right of the axis) and ``elevation`` (below it) image angles (rad);
    ``relative_yaw`` of the marker frame in the camera frame (rad); ``pixels`` (marker side
    in px, noise-free, 0 behind the camera)."""

    detected: bool
    position: np.ndarray
    azimuth: float
    elevation: float
    relative_yaw: float
    pixels: float


class FiducialCamera:
    """A camera detecting one marker per frame; noise from ``rng``."""

    def __init__(self, settings: CameraSettings, rng: np.random.Generator) -> None:
        self.settings, self.rng = settings, rng

    def visible(self, relative: np.ndarray, facing: float) -> tuple[bool, float]:
        """Whether a marker at ``relative`` (camera frame, m) whose normal makes the angle
        ``facing`` (rad) with the line to the camera is detectable, and its size in px."""
        s = self.settings
        x, y, z = relative
        if x <= 0:
            return False, 0.0
        pixels = s.focal_length * s.marker_size / x
        in_view = abs(y / x) <= s.width / (2 * s.focal_length) and abs(z / x) <= s.height / (
            2 * s.focal_length
        )
        return bool(in_view and pixels >= s.min_pixels and facing <= s.max_view_angle), pixels

    def observe(
        self,
        camera_position: np.ndarray,
        camera_attitude: np.ndarray,
        marker_position: np.ndarray,
        marker_attitude: np.ndarray,
    ) -> Detection:
        """Detect the marker at NED ``marker_position`` (m) with axes ``marker_attitude``
        (marker to NED) from the camera at ``camera_position`` with ``camera_attitude``."""
        s = self.settings
        xi = self.rng.standard_normal(4)
        dropped = self.rng.uniform() < s.dropout
        line = camera_position - marker_position
        distance = float(np.linalg.norm(line))
        normal = marker_attitude[:, 0]
        facing = math.acos(min(1.0, max(-1.0, float(normal @ line) / max(distance, 1e-12))))
        relative = camera_attitude.T @ (marker_position - camera_position)
        seen, pixels = self.visible(relative, facing)
        if not seen or dropped:
            return Detection(False, np.zeros(3), 0.0, 0.0, 0.0, pixels)
        f = s.focal_length
        depth = relative[0] + relative[0] ** 2 * s.pixel_noise / (f * s.marker_size) * xi[0]
        u = f * relative[1] / relative[0] + s.pixel_noise * xi[1]
        v = f * relative[2] / relative[0] + s.pixel_noise * xi[2]
        yaw = euler_from_rotation(camera_attitude.T @ marker_attitude)[2]
        return Detection(
            True,
            np.array([depth, depth * u / f, depth * v / f]),
            math.atan(u / f),
            math.atan(v / f),
            float(wrap_angle(float(yaw + 2 * s.pixel_noise / pixels * xi[3]))),
            pixels,
        )
