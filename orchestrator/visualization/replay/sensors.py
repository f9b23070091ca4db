"""What a replay draws of the sensors (:mod:`orchestrator.scenario.sensors`) on the bodies it
draws: the fiducial cameras' fields of view, their markers and detections, and the DVLs' beams.

A camera's field of view is the pyramid of its image (sensor x along the optical axis, y right,
z down) out to the range at which the marker still spans ``min_pixels``: the marker side is
f s / x pixels at depth x, so the range is f s / min_pixels (m); its half-angles are
atan(width / 2f) and atan(height / 2f). The marker is a square of side s in its frame's y-z
plane (x its outward normal), fixed in NED or on the camera's target body; the recorded
``<camera>.detected`` marks the rows it was seen, and the intervals it was seen (each row held
until the next one) go on the time line.

A DVL's four beams leave the sensor at ``tilt`` from its z axis at azimuths 45, 135, 225 and
315 deg (:mod:`orchestrator.sensors.dvl`), each drawn to the flat seabed along its axis, or
to the slant range of the DVL's maximum altitude, max_altitude / cos(tilt), whichever is
nearer; a beam that does not point down ends at that slant range. The recorded
``<dvl>.beam_valid[1..4]`` say which beams had bottom lock.
"""

from __future__ import annotations

import math

import numpy as np

from orchestrator.kinematics import quaternion_from_euler, rotation_matrix
from orchestrator.scenario.model import Scenario
from orchestrator.scenario.sensors import DvlConfig, FiducialCameraConfig
from orchestrator.sensors.dvl import beam_directions
from orchestrator.sensors.mount import Mount


def _mount(config: DvlConfig | FiducialCameraConfig) -> Mount:
    return Mount.from_euler(config.position, tuple(np.radians(config.orientation)))


def _vector(columns: dict[str, np.ndarray], name: str, size: int) -> np.ndarray:
    return np.column_stack([columns[f"{name}[{i}]"] for i in range(1, size + 1)])


def seen_intervals(time: np.ndarray, detected: np.ndarray) -> list[list[float]]:
    """[first time, end time] (s) of every run of rows with ``detected`` set, each row held
    until the next one (the last row: until its own time)."""
    on = np.concatenate([[False], detected > 0.5, [False]])
    starts = np.flatnonzero(on[1:] & ~on[:-1])
    ends = np.flatnonzero(~on[1:] & on[:-1])  # one past the last row of each run
    last = len(time) - 1
    return [[float(time[a]), float(time[min(b, last)])] for a, b in zip(starts, ends, strict=True)]


def camera_view(name: str, config: FiducialCameraConfig, columns: dict, rows: np.ndarray) -> dict:
    """Field of view, marker and detections of fiducial camera ``name``: ``position`` and
    ``corners`` of the view's far rectangle (body frame, m), ``half_angles`` (horizontal,
    vertical; rad), ``range`` (m), the ``marker`` (``target`` body or None for NED,
    ``position`` (m) and ``q`` (marker axes, scalar first) in its frame, ``size`` (m)),
    ``detected`` per drawn row (None where not recorded) and the ``seen`` intervals (s)."""
    mount = _mount(config)
    f = config.focal_length
    half = (math.atan(config.width / (2 * f)), math.atan(config.height / (2 * f)))
    reach = f * config.marker_size / config.min_pixels
    corners = [
        mount.position
        + mount.rotation @ (reach * np.array([1.0, y * math.tan(half[0]), z * math.tan(half[1])]))
        for y, z in ((1, 1), (1, -1), (-1, -1), (-1, 1))
    ]
    detected = columns.get(f"{name}.detected")
    return {
        "name": name,
        "body": config.vehicle,
        "position": list(config.position),
        "corners": np.array(corners).tolist(),
        "half_angles": list(half),
        "range": reach,
        "marker": {
            "target": config.target,
            "position": list(config.marker_position),
            "q": quaternion_from_euler(*np.radians(config.marker_orientation)).tolist(),
            "size": config.marker_size,
        },
        "detected": None if detected is None else (detected[rows] > 0.5).astype(int).tolist(),
        "seen": [] if detected is None else seen_intervals(columns["time"], detected),
    }


def dvl_beams(name: str, config: DvlConfig, seabed: float, columns: dict, rows: np.ndarray) -> dict:
    """Beams of DVL ``name`` over the flat seabed at NED depth ``seabed`` (m; inf: none):
    ``position`` (body frame, m), ``directions`` (4 unit vectors, body frame), ``tilt``
    (rad), ``lengths`` (m, 4 per drawn row) and ``valid`` (4 flags per drawn row, None where
    not recorded)."""
    mount = _mount(config)
    tilt = math.radians(config.tilt)
    directions = beam_directions(tilt) @ mount.rotation.T  # rows: body frame
    body = config.vehicle
    p = _vector(columns, f"{body}.p", 3)[rows]
    R = rotation_matrix(_vector(columns, f"{body}.q", 4)[rows])
    origin = p + R @ mount.position
    down = np.einsum("rj,bj->rb", R[:, 2, :], directions)  # NED z of each beam per row
    slant = config.max_altitude / math.cos(tilt)
    height = (seabed - origin[:, 2])[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        to_seabed = np.where(down > 1e-9, height / np.maximum(down, 1e-9), np.inf)
    lengths = np.minimum(np.where(to_seabed >= 0, to_seabed, np.inf), slant)
    valid = None
    if all(f"{name}.beam_valid[{i}]" in columns for i in range(1, 5)):
        valid = (_vector(columns, f"{name}.beam_valid", 4)[rows] > 0.5).astype(int).tolist()
    return {
        "name": name,
        "body": body,
        "position": list(config.position),
        "directions": directions.tolist(),
        "tilt": tilt,
        "lengths": np.round(lengths, 4).tolist(),
        "valid": valid,
    }


def sensor_views(
    scenario: Scenario, columns: dict[str, np.ndarray], bodies: list[str], rows: np.ndarray
) -> tuple[list[dict], list[dict]]:
    """Camera views (:func:`camera_view`) and DVL beams (:func:`dvl_beams`) of the sensors on
    ``bodies`` (a camera whose target is not drawn is left out)."""
    cameras, dvls = [], []
    for name, config in scenario.controllers.items():
        if getattr(config, "vehicle", None) not in bodies:
            continue
        if isinstance(config, FiducialCameraConfig) and config.target in (None, *bodies):
            cameras.append(camera_view(name, config, columns, rows))
        elif isinstance(config, DvlConfig):
            seabed = config.seabed_depth
            if math.isinf(seabed):
                seabed = scenario.environment.seabed_depth
            dvls.append(dvl_beams(name, config, seabed, columns, rows))
    return cameras, dvls
