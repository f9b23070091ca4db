"""The replay of the ocean, the tether and the sensors, checked on short runs of the shipped
scenarios: the scene's surface, seabed, tether, camera view and DVL beams against the
scenario's settings and the recorded columns, and the page in headless Chromium."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from browser import open_views
from conftest import ROOT

from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario
from orchestrator.visualization.replay import write_replay
from orchestrator.visualization.replay.scene import build_scene, read_results

# shipped scenario -> stop time here (s): the camera sees its marker from 0.5 s on
RUNS = {
    "bluerov2_heavy_sensors": ("stop_time = 30.0", "stop_time = 3.0"),
    "bluerov2_heavy_tethered": ("stop_time = 60.0", "stop_time = 3.0"),
    "bluerov2_heavy_current_waves": ("stop_time = 60.0", "stop_time = 3.0"),
}


@pytest.fixture(scope="module")
def runs(fmu_dir, tmp_path_factory) -> dict[str, Path]:
    """Results folders of the short runs, by scenario name."""
    folders = {}
    for name, (old, new) in RUNS.items():
        text = (ROOT / "scenarios" / f"{name}.toml").read_text()
        assert old in text
        path = tmp_path_factory.mktemp(name) / f"{name}.toml"
        path.write_text(text.replace(old, new))
        folders[name] = path.parent / "out"
        run_scenario(path, folders[name], fmu_dir, plots=False)
    return folders


def columns_and_scene(runs, fmu_dir, name):
    folder = runs[name]
    return read_timeseries(folder / "timeseries.csv"), build_scene(read_results(folder), fmu_dir)


def vector(columns, name, size):
    return np.column_stack([columns[f"{name}[{i}]"] for i in range(1, size + 1)])


def rotation(q):
    """Body to NED of scalar-first unit quaternions (n, 4), written out here."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


def airy(wave, north, east, t):
    """sum A sin(w t - k chi + phase), chi along the wave's direction (m, up)."""
    chi = north * math.cos(wave["direction"]) + east * math.sin(wave["direction"])
    terms = zip(wave["amplitude"], wave["omega"], wave["k"], wave["phase"], strict=True)
    return sum(a * np.sin(w * t - k * chi + ph) for a, w, k, ph in terms)


@pytest.mark.slow
def test_surface_is_the_wave_the_fmu_recorded(runs, fmu_dir):
    """The surface's Airy components give the elevation the wave FMU recorded at the point it
    was given (sea.r), to round-off: the regular wave of the sensor scenario (0.3 m, 5 s,
    northwards) and the irregular sea of the current-and-waves scenario, whose 128 seeded
    components are recomputed for the page; k = w^2/g (deep water); 4 sqrt(sum A^2/2) is
    within 3 % of H_s = 0.5 m (the spectrum's variance, as IrregularSea documents)."""
    for name in ("bluerov2_heavy_sensors", "bluerov2_heavy_current_waves"):
        columns, scene = columns_and_scene(runs, fmu_dir, name)
        wave = scene["wave"]
        assert wave["component"] == "sea"
        omega = np.array(wave["omega"])
        assert np.allclose(wave["k"], omega**2 / wave["g"], rtol=1e-15)
        zeta = airy(wave, columns["sea.r[1]"], columns["sea.r[2]"], columns["time"])
        assert np.max(np.abs(zeta - columns["sea.zeta"])) < 1e-12
        assert np.std(columns["sea.zeta"]) > 0.05  # the wave moved
    _, regular = columns_and_scene(runs, fmu_dir, "bluerov2_heavy_sensors")
    assert regular["wave"]["amplitude"] == [0.3]
    assert regular["wave"]["omega"] == pytest.approx([2 * math.pi / 5.0], rel=1e-15)
    _, irregular = columns_and_scene(runs, fmu_dir, "bluerov2_heavy_current_waves")
    amplitude = np.array(irregular["wave"]["amplitude"])
    assert 4 * math.sqrt(np.sum(amplitude**2) / 2) == pytest.approx(0.5, rel=0.03)


@pytest.mark.slow
def test_seabed_is_the_declared_one(runs, fmu_dir):
    """The environment's seabed (20 m), the DVL's own (10 m), none for the tethered run; the
    floor grid lies on the seabed where that is at most three radii of the run's extent below
    its deepest point, else a radius below that point."""
    expected = {
        "bluerov2_heavy_current_waves": [20.0],
        "bluerov2_heavy_sensors": [10.0],
        "bluerov2_heavy_tethered": [],
    }
    for name, seabeds in expected.items():
        _, scene = columns_and_scene(runs, fmu_dir, name)
        assert scene["seabeds"] == seabeds
        frame = scene["frame"]
        deepest = max(max(p[2] for p in body["p"]) for body in scene["bodies"])
        if seabeds and seabeds[0] - deepest <= 3 * frame["radius"]:
            assert frame["grid"]["origin"][2] == seabeds[0]
        else:
            assert frame["grid"]["origin"][2] == pytest.approx(deepest + frame["radius"])


@pytest.mark.slow
def test_tether_is_drawn_through_its_recorded_nodes(runs, fmu_dir):
    """11 nodes (10 segments) per row equal to the recorded x[i, j] (to the 1e-5 m they are
    rounded to); the first is the vehicle's attachment p + R r_a with the scenario's
    r_a = (-0.22, 0, -0.05) m, the last the fixed point r_b = 0 at the surface; the tensions
    are the recorded ones."""
    columns, scene = columns_and_scene(runs, fmu_dir, "bluerov2_heavy_tethered")
    (tether,) = scene["tethers"]
    nodes = np.array(tether["nodes"])
    assert nodes.shape == (len(columns["time"]), 11, 3)
    recorded = np.stack(
        [[columns[f"tether.x[{i},{j}]"] for j in (1, 2, 3)] for i in range(1, 12)]
    ).transpose(2, 0, 1)
    assert np.max(np.abs(nodes - recorded)) <= 5e-6
    attachment = vector(columns, "rov.p", 3) + rotation(vector(columns, "rov.q", 4)) @ [
        -0.22,
        0.0,
        -0.05,
    ]
    assert np.max(np.abs(nodes[:, 0] - attachment)) < 2e-5
    assert np.max(np.abs(nodes[:, -1])) < 1e-5
    tension = np.array(tether["tension"])
    assert np.max(np.abs(tension[:, 0] - columns["tether.tension_a"])) <= 5e-4
    assert np.max(np.abs(tension[:, 1] - columns["tether.tension_b"])) <= 5e-4


@pytest.mark.slow
def test_camera_view_and_detections(runs, fmu_dir):
    """The camera's view (1920 x 1080 px, f = 1078 px, a 0.2 m marker seen down to 25 px):
    half-angles atan(960/1078) and atan(540/1078), range 1078 x 0.2 / 25 = 8.624 m, the far
    rectangle at that range ahead of the mount (0.2, 0, 0) m; the marker where the scenario
    puts it, turned -135 deg about down; lit on the rows the recorded column says it was
    detected, and the time line's intervals covering exactly those rows."""
    columns, scene = columns_and_scene(runs, fmu_dir, "bluerov2_heavy_sensors")
    (camera,) = scene["cameras"]
    horizontal, vertical = math.atan(960 / 1078), math.atan(540 / 1078)
    assert camera["half_angles"] == pytest.approx([horizontal, vertical], rel=1e-12)
    assert camera["range"] == pytest.approx(8.624, rel=1e-12)
    half_width, half_height = 8.624 * 960 / 1078, 8.624 * 540 / 1078
    expected = [
        [8.824, y * half_width, z * half_height] for y, z in ((1, 1), (1, -1), (-1, -1), (-1, 1))
    ]
    assert np.allclose(camera["corners"], expected, atol=1e-12)
    assert camera["position"] == [0.2, 0.0, 0.0]
    marker = camera["marker"]
    assert marker["target"] is None and marker["position"] == [5.66, 5.66, 2.0]
    half_turn = math.radians(-135) / 2
    assert marker["q"] == pytest.approx([math.cos(half_turn), 0, 0, math.sin(half_turn)], abs=1e-15)
    detected = columns["camera.detected"]
    assert camera["detected"] == [int(d) for d in detected]
    assert 0 < sum(camera["detected"]) < len(detected)  # seen, and not from the start
    time = columns["time"]
    inside = np.zeros(len(time), dtype=bool)
    for start, end in camera["seen"]:
        inside |= (time >= start) & (time < end)
    inside[-1] |= any(end == time[-1] for _, end in camera["seen"])
    assert np.array_equal(inside, detected > 0.5)


@pytest.mark.slow
def test_dvl_beams_reach_the_seabed(runs, fmu_dir):
    """Four beams 22.5 deg off the body's z axis at azimuths 45 + 90 k deg, each ending on the
    DVL's 10 m seabed (its end's NED depth 10 m, to the 1e-4 m lengths are rounded to, times
    the beam's slope) from the mount (-0.1, 0, 0.1) m, and valid where the recorded
    beam_valid says."""
    columns, scene = columns_and_scene(runs, fmu_dir, "bluerov2_heavy_sensors")
    (dvl,) = scene["dvls"]
    tilt = math.radians(22.5)
    azimuth = np.radians([45, 135, 225, 315])
    expected = np.column_stack(
        [
            math.sin(tilt) * np.cos(azimuth),
            math.sin(tilt) * np.sin(azimuth),
            np.full(4, math.cos(tilt)),
        ]
    )
    assert np.allclose(dvl["directions"], expected, atol=1e-15)
    R = rotation(vector(columns, "rov.q", 4))
    origin = vector(columns, "rov.p", 3) + R @ np.array([-0.1, 0.0, 0.1])
    ends = (
        origin[:, None, :]
        + np.einsum("rij,bj->rbi", R, expected) * np.array(dvl["lengths"])[..., None]
    )
    assert np.max(np.abs(ends[..., 2] - 10.0)) < 1e-4 / math.cos(tilt) * 1.01
    assert (
        np.array(dvl["valid"]).tolist() == vector(columns, "dvl.beam_valid", 4).astype(int).tolist()
    )


# What the page holds at time t, NED: named objects, their visibility, the tether's and the
# beams' vertices, some surface vertices
PROBE = """(() => {
  const r = window.replay;
  const ned = (object, attribute, i) => {
    const local = object.position.clone().fromBufferAttribute(attribute, i);
    return r.world.worldToLocal(object.localToWorld(local)).toArray();
  };
  const vertices = (object) => {
    const attribute = object.geometry.attributes.position;
    return Array.from({ length: attribute.count }, (_, i) => ned(object, attribute, i));
  };
  const names = ['surface', 'seabed', 'tether:tether', 'view:camera', 'beams:dvl',
    'marker:camera', 'sight:camera'];
  const found = Object.fromEntries(
    names.map((n) => [n, r.scene.getObjectByName(n)]).filter(([, o]) => o));
  const surface = found.surface;
  const vertex = (i) => ned(surface, surface.geometry.attributes.position, i);
  const some = [0, 1000, 8000, 16640].map(vertex);
  return {
    visible: Object.fromEntries(Object.entries(found).map(([n, o]) => [n, o.visible])),
    tether: found['tether:tether'] ? vertices(found['tether:tether']) : null,
    beams: found['beams:dvl'] ? vertices(found['beams:dvl']) : null,
    surface: some,
  };
})()"""


@pytest.mark.slow
def test_ocean_tether_and_sensors_in_browser(runs, fmu_dir, tmp_path):
    """In headless Chromium, without a console error: the sensor run's page at t = 2 s holds
    the surface (its vertices at the wave's elevation, to the page's table interpolation),
    the seabed, the camera's view, its marker and line of sight (seen at 2 s), and the DVL's
    beams ending on the 10 m seabed; hide=beams opens it with the beams hidden; the tethered
    run's page holds the tether through the recorded nodes of t = 2 s."""
    columns, scene = columns_and_scene(runs, fmu_dir, "bluerov2_heavy_sensors")
    row = int(np.argmin(np.abs(columns["time"] - 2.0)))
    assert columns["camera.detected"][row] == 1.0
    page = write_replay(runs["bluerov2_heavy_sensors"], tmp_path / "sensors.html", fmu_dir)
    ready = "document.body.dataset.ready === 'true' && document.body.dataset.time === '2.000'"
    views = open_views(page, ["t=2&follow=scene", "t=2&follow=scene&hide=beams"], ready, PROBE)
    assert views.errors == []
    shown, hidden = views.values
    for name in ("surface", "seabed", "view:camera", "beams:dvl", "marker:camera", "sight:camera"):
        assert shown["visible"][name] is True, name
    assert hidden["visible"]["beams:dvl"] is False and hidden["visible"]["surface"] is True
    # the page's table: 2048 samples along the direction; linear interpolation errs by at
    # most (k dchi)^2 / 8 of the amplitude
    wave = scene["wave"]
    surface = np.array(shown["surface"])
    span = 6 * scene["frame"]["radius"] * math.sqrt(2)
    bound = wave["amplitude"][0] * (wave["k"][0] * span / 2047) ** 2 / 8 + 1e-5  # + float32
    assert np.max(np.abs(-surface[:, 2] - airy(wave, surface[:, 0], surface[:, 1], 2.0))) < bound
    assert np.max(np.abs(surface[:, 2])) > 0.05  # not the flat plane: the 0.3 m wave
    beams = np.array(shown["beams"]).reshape(4, 2, 3)
    assert np.max(np.abs(beams[:, 1, 2] - 10.0)) < 1e-3  # float32 vertices, 1e-4 m lengths

    columns, scene = columns_and_scene(runs, fmu_dir, "bluerov2_heavy_tethered")
    page = write_replay(runs["bluerov2_heavy_tethered"], tmp_path / "tether.html", fmu_dir)
    views = open_views(page, ["t=2&follow=scene"], ready, PROBE)
    assert views.errors == []
    (value,) = views.values
    assert value["visible"]["tether:tether"] is True and "seabed" not in value["visible"]
    row = int(np.argmin(np.abs(columns["time"] - 2.0)))
    recorded = np.array(
        [[columns[f"tether.x[{i},{j}]"][row] for j in (1, 2, 3)] for i in range(1, 12)]
    )
    assert np.max(np.abs(np.array(value["tether"]) - recorded)) < 1e-4  # float32 of 8 m


# A camera on the follower watching a marker on the leader, 3 m ahead, both drifting
TARGET_SCENARIO = """
[simulation]
stop_time = 1.0
output_interval = 0.1

[components.leader]
fmu = "BlueROV2Heavy"
start = { "p[1]" = 3.0, "p[3]" = 2.0, "q[1]" = 0.9238795325112867, "q[4]" = 0.3826834323650898 }

[components.follower]
fmu = "BlueROV2Heavy"
start = { "p[3]" = 2.0 }

[controllers.camera]
type = "fiducial_camera"
vehicle = "follower"
target = "leader"
position = [0.2, 0.0, 0.0]
orientation = [0.0, 10.0, 0.0]
marker_position = [-0.25, 0.0, 0.0]
marker_orientation = [0.0, 0.0, 180.0]
dropout = 0.0
"""

MARKER_PROBE = """(() => {
  const r = window.replay;
  const marker = r.scene.getObjectByName('marker:camera');
  const view = r.scene.getObjectByName('view:camera');
  const ned = (object, point) => r.world.worldToLocal(object.localToWorld(point)).toArray();
  return {
    marker: ned(marker, marker.position.clone().set(0, 0, 0)),
    apex: ned(view, view.position.clone().set(0.2, 0, 0)),
    seen: marker.userData.seen,
  };
})()"""


@pytest.mark.slow
def test_marker_on_a_target_body_moves_with_it(run, fmu_dir, tmp_path):
    """A marker on the camera's target body is drawn at p_t + R_t r_m of the target's
    recorded pose (the scenario's marker_position r_m, the leader turned 45 deg); the view
    hangs at the camera's mount on its own body, pitched 10 deg up by its orientation (the
    far rectangle's centre 8.624 sin(10 deg) m above the body's x axis, z down); the marker,
    2.8 m ahead, its normal 42 deg off the line of sight, is seen (no dropouts) at t = 1 s,
    in headless Chromium as in the scene."""
    columns, _ = run(TARGET_SCENARIO, "target")
    folder = tmp_path / "target_results"
    scene = build_scene(read_results(folder), fmu_dir)
    (camera,) = scene["cameras"]
    assert camera["marker"]["target"] == "leader"
    centre = np.mean(camera["corners"], axis=0)
    pitch = math.radians(10.0)
    assert centre == pytest.approx([0.2 + 8.624 * math.cos(pitch), 0.0, -8.624 * math.sin(pitch)])
    assert camera["detected"][-1] == 1
    page = write_replay(folder, tmp_path / "target.html", fmu_dir)
    ready = "document.body.dataset.ready === 'true' && document.body.dataset.time === '1.000'"
    views = open_views(page, ["t=1&follow=scene"], ready, MARKER_PROBE)
    assert views.errors == []
    (value,) = views.values
    last = -1
    p_t, q_t = vector(columns, "leader.p", 3)[last], vector(columns, "leader.q", 4)[last]
    p_c, q_c = vector(columns, "follower.p", 3)[last], vector(columns, "follower.q", 4)[last]
    assert value["marker"] == pytest.approx(p_t + rotation(q_t) @ [-0.25, 0.0, 0.0], abs=1e-4)
    assert value["apex"] == pytest.approx(p_c + rotation(q_c) @ [0.2, 0.0, 0.0], abs=1e-4)
    assert value["seen"] is True
