"""The chaser's pose from a fiducial camera: the camera model's detections of a marker seen
from known poses, inverted by the fix, give back the chaser's pose relative to the target's
(whatever the target's estimate is off by); a late detection is referred to its frame's
states, and between detections the fix moves on with the chaser's own estimate."""

from __future__ import annotations

import math

import numpy as np
import pytest

from orchestrator.controllers.fiducial_fix import FiducialFix
from orchestrator.controllers.sensing import FiducialCameraSensor
from orchestrator.kinematics import quaternion_from_euler
from orchestrator.scenario.sensors import FiducialCameraConfig

CAMERA = FiducialCameraConfig(
    type="fiducial_camera",
    vehicle="follower",
    target="leader",
    position=(0.1, 0.05, -0.08),
    orientation=(0.0, 0.0, 4.0),
    marker_position=(-0.25, 0.02, 0.03),
    marker_orientation=(0.0, 0.0, 180.0),
    pixel_noise=0.0,
    dropout=0.0,
)


def _detection(chaser: np.ndarray, target: np.ndarray, time: float) -> np.ndarray:
    """The camera model's outputs [detected, position[1..3], relative_yaw, time] for the
    chaser and the target at planar poses [N, E, psi] (same depth, level)."""
    sensor = FiducialCameraSensor("camera", CAMERA)
    state = []
    for pose in (chaser, target):
        state.append(np.array([pose[0], pose[1], 3.0, *quaternion_from_euler(0, 0, pose[2])]))
    inputs = np.concatenate([state[0], np.zeros(6), state[1]])
    out = sensor.step(time, inputs)
    return np.array([out[0], *out[1:4], out[6], out[8]])


def _level(heading: float) -> np.ndarray:
    return quaternion_from_euler(0.0, 0.0, heading)


@pytest.mark.parametrize("seed", range(5))
def test_a_detection_gives_the_pose_relative_to_the_target(seed):
    """Level vehicles, noise-free camera: the fixed pose puts the chaser where it is relative
    to the target's pose as given, to round-off (1e-12 m, rad), its own estimate being off by
    decimetres; the target's pose given off by a shift and a turn moves the fix with it."""
    rng = np.random.default_rng(seed)
    target = np.array([*rng.uniform(-5, 5, 2), rng.uniform(-math.pi, math.pi)])
    heading = target[2] + rng.uniform(-0.3, 0.3)
    distance = rng.uniform(1.0, 4.0)
    offset = rng.uniform(-0.2, 0.2) * distance
    back = np.array([-math.cos(target[2]), -math.sin(target[2])])
    across = np.array([-back[1], back[0]])
    chaser = np.array([*(target[:2] + distance * back + offset * across), heading])
    detection = _detection(chaser, target, 0.0)
    assert detection[0] == 1.0
    own = chaser + np.array([0.3, -0.2, 0.05])  # the chaser's own estimate, off
    fix = FiducialFix(CAMERA, 0.05)
    pose = fix.pose(0.0, own, _level(own[2]), target, detection)
    np.testing.assert_allclose(pose, chaser, rtol=0, atol=1e-12)
    turn = 0.1
    moved = np.array([target[0] + 1.0, target[1] - 2.0, target[2] + turn])
    fix.reset()
    pose = fix.pose(0.0, own, _level(own[2]), moved, detection)
    c, s = math.cos(turn), math.sin(turn)
    relative = chaser[:2] - target[:2]
    expected = moved[:2] + np.array(
        [c * relative[0] - s * relative[1], s * relative[0] + c * relative[1]]
    )
    np.testing.assert_allclose(pose[:2], expected, rtol=0, atol=1e-12)
    assert pose[2] == pytest.approx(heading + turn, abs=1e-12)


def test_late_detections_are_held_and_moved_on_with_the_estimate():
    """The chaser moves north at 0.2 m/s and turns at 0.1 rad/s; frames every 0.1 s arrive
    0.15 s late and every other one is dropped. Its own estimate is off by a shift (0.4 m,
    -0.3 m) and a heading error of 3 deg, so that its track is the true one turned by 3 deg,
    as a filter's dead reckoning with that heading error is. From the first detection's
    arrival on, each sample's fix is the true pose (1e-12 m, rad): the detection is referred
    to the estimate at its frame's time, and the estimate's displacement since, turned back
    by the heading error the detection revealed, carries it. Before, the fix is the own
    estimate."""
    target = np.array([0.0, 0.0, 0.0])
    shift, turn = np.array([0.4, -0.3]), math.radians(3.0)
    c, s = math.cos(turn), math.sin(turn)

    def truth(t: float) -> np.ndarray:
        return np.array([-3.0 + 0.2 * t, 0.1, 0.1 * t])

    def estimate(t: float) -> np.ndarray:
        moved = truth(t)[:2] - truth(0.0)[:2]
        turned = np.array([c * moved[0] - s * moved[1], s * moved[0] + c * moved[1]])
        return np.array([*(truth(0.0)[:2] + shift + turned), truth(t)[2] + turn])

    fix = FiducialFix(CAMERA, 0.05)
    held = np.array([0.0, 0, 0, 0, 0, -math.inf])
    arriving = {}
    for k in range(41):
        t = 0.05 * k
        if k % 4 == 0:  # a frame every 0.2 s: the frames between are dropped
            arriving[k + 3] = _detection(truth(t), target, t)
        held = arriving.pop(k, held)
        own = estimate(t)
        pose = fix.pose(t, own, _level(own[2]), target, held)
        if k < 3:
            np.testing.assert_array_equal(pose, own)
        else:
            np.testing.assert_allclose(pose, truth(t), rtol=0, atol=1e-12)
