"""3D replay: what the scene holds (sizes from the FMU records, ports, thrusters, events, the
bodies' colours of the plots, the floor grid and scale), the page's self-containment, bad
input, and the pages of real runs in headless Chromium (the scale bar's length too)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from browser import SIZE, disc, focal_length, open_views, project
from conftest import ROOT

from orchestrator.cli import main
from orchestrator.visualization.replay import write_replay
from orchestrator.visualization.replay.frame import round_length
from orchestrator.visualization.replay.page import render_page, three_folder
from orchestrator.visualization.replay.scene import MAX_FRAMES, build_scene, read_results
from orchestrator.visualization.style import EVENT_STYLES, plt
from orchestrator.visualization.summary import Run, summary_figure

# Two BlueROV2 Heavy (record: ports at x = +-0.25 m, thrusters at y = +-0.218 m and z = 0 or
# 0.085 m, volume 11.702e-3 m3), a GenericVehicle block welded to the leader (volume 0.02 m3,
# no ports or thrusters), a buoy housing (PrototypeHousingData: radius 0.0395 m, length 0.215 m)
SCENARIO = """
[simulation]
stop_time = 1.0

[components.leader]
fmu = "BlueROV2Heavy"
parameters = { "data.volume" = 0.008 }

[components.follower]
fmu = "BlueROV2Heavy"

[components.t5]
fmu = "Thruster"
mount = "follower"
slot = 5

[components.block]
fmu = "GenericVehicle"

[components.buoy]
fmu = "PrototypeHousing"

[[joints]]
name = "rod"
type = "weld"
a = "leader"
b = "block"
at = [0.5, 0.0, 0.0]

[[docking]]
name = "dock"
a = "leader"
port_a = 2
b = "follower"
port_b = 1
"""
EVENTS = """time,event,detail
0.0,start,"solver RK45, 52 states"
0.4,dock,"dock: leader port 2 + follower port 1; gap 0.04 m"
0.8,undock,"dock: leader - follower released (scheduled at 0.8 s)"
"""
# block: 1 m north of the leader, turned 90 deg about z (scalar-first quaternion)
POSES = {
    "leader": ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]),
    "follower": ([-1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]),
    "block": ([1.0, 0.0, 1.0], [float(np.cos(np.pi / 4)), 0.0, 0.0, float(np.sin(np.pi / 4))]),
    "buoy": ([3.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]),
}


def results_folder(folder: Path, rows: int = 2) -> Path:
    """A results folder as 'murcosim run' writes it, with ``rows`` rows 1 s apart."""
    folder.mkdir()
    (folder / "scenario.toml").write_text(SCENARIO)
    (folder / "events.csv").write_text(EVENTS)
    header, values = ["time"], []
    for body, (p, q) in POSES.items():
        header += [f"{body}.p[{i}]" for i in (1, 2, 3)] + [f"{body}.q[{i}]" for i in (1, 2, 3, 4)]
        values += [*p, *q]
    header.append("t5.thrust")
    lines = [",".join(header)]
    lines += [",".join(map(repr, [float(k), *values, 2.0 * k])) for k in range(rows)]
    (folder / "timeseries.csv").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture
def scene(fmu_dir, tmp_path):
    return build_scene(read_results(results_folder(tmp_path / "run")), fmu_dir)


def test_bodies_are_sized_from_their_records(scene):
    """Boxes span the ports and thrusters; a thin axis gets the edge of the displaced volume's
    cube (scenario override 0.008 m3 -> 0.2 m; record 11.702e-3 m3 -> 0.22706 m); the block's
    box reaches its weld point, (0, 0.5, 0) m in its own frame; the buoy is its cylinder."""
    bodies = {b["name"]: b for b in scene["bodies"]}
    leader, follower, block, buoy = (bodies[n]["shape"] for n in POSES)
    assert leader["kind"] == "box"
    assert leader["size"] == pytest.approx([0.5, 0.436, 0.2])
    assert leader["centre"] == pytest.approx([0.0, 0.0, 0.0425])
    assert follower["size"] == pytest.approx([0.5, 0.436, 0.011702 ** (1 / 3)])
    edge = 0.02 ** (1 / 3)
    assert block["size"] == pytest.approx([edge, 0.5, edge])
    assert block["centre"] == pytest.approx([0.0, 0.25, 0.0])
    assert buoy == {
        "kind": "cylinder",
        "radius": 0.0395,
        "length": 0.215,
        "centre": [0, 0, -0.1075],
    }
    assert {n: b["principal"] for n, b in bodies.items()} == {
        "leader": True,
        "follower": True,
        "block": False,
        "buoy": True,
    }
    assert bodies["block"]["q"][0] == pytest.approx(POSES["block"][1])


def test_thrusters_ports_joints_and_events(scene):
    """Mount 5 of the BlueROV2 Heavy record: (0.12, 0.218, 0) m, thrust down the body z axis
    (0, 0, -1); the docked interval of the pair comes from its dock and undock events."""
    (thruster,) = scene["thrusters"]
    assert thruster["body"] == "follower"
    assert thruster["position"] == pytest.approx([0.12, 0.218, 0.0])
    assert thruster["direction"] == pytest.approx([0.0, 0.0, -1.0])
    assert thruster["thrust"] == [0.0, 2.0] and scene["thrust_peak"] == 2.0
    ports = {(p["body"], p["number"]): p for p in scene["ports"]}
    assert len(ports) == 4
    stern = ports[("leader", 2)]
    assert stern["position"] == pytest.approx([-0.25, 0.0, 0.0])
    assert stern["normal"] == pytest.approx([-1.0, 0.0, 0.0])
    assert stern["pair"] == "dock" and stern["docked"] == [[0.4, 0.8]]
    assert ports[("follower", 1)]["docked"] == [[0.4, 0.8]]
    assert ports[("follower", 2)]["pair"] is None and ports[("follower", 2)]["docked"] == []
    assert scene["joints"] == [
        {
            "name": "rod",
            "type": "weld",
            "a": "leader",
            "b": "block",
            "at": [0.5, 0, 0],
            "axis": None,
        }
    ]
    assert [e["event"] for e in scene["events"]] == ["start", "dock", "undock"]
    assert scene["sea_elevation"] == [0.0, 0.0]


def test_bodies_have_the_colours_of_the_plots(fmu_dir, tmp_path):
    """Each body has in the replay's data the colour of its track in the summary's plan view,
    though the summary lists bodies by name and the scenario lists the leader first; the
    events' colours are the plots'."""
    folder = results_folder(tmp_path / "run")
    read = read_results(folder)
    scene = build_scene(read, fmu_dir)
    figure = summary_figure(Run(read.columns, read.events, read.scenario, "run"))
    (plan,) = [ax for ax in figure.axes if ax.get_title().startswith("plan view")]
    drawn = {
        line.get_label(): matplotlib.colors.to_hex(line.get_color())
        for line in plan.get_lines()
        if not line.get_label().startswith("_")
    }
    plt.close(figure)
    replayed = {b["name"]: b["colour"] for b in scene["bodies"]}
    assert set(drawn) == {"leader", "follower", "buoy"}
    assert {name: replayed[name] for name in drawn} == drawn
    assert len(set(replayed.values())) == len(replayed)
    assert scene["event_colours"] == {k: EVENT_STYLES[k].colour for k in ("dock", "undock")}


def test_floor_grid_and_scale_are_in_round_metres(scene):
    """Bodies 4.03 m apart (north -1 to 3 m, down 0 to 1 m) with the 0.5 m box of the leader:
    a view radius of 2.52 m; floor grid cells of 1 m (the round length at most half of it),
    an even number of them across, a radius below the deepest point; the scale bar's round
    lengths run from a thousandth to a thousand times the radius."""
    frame = scene["frame"]
    radius = np.hypot(4.0, 1.0) / 2 + 0.5
    assert frame["radius"] == pytest.approx(radius)
    assert frame["grid"]["cell"] == 1.0 and frame["grid"]["label"] == "1 m"
    assert frame["grid"]["cells"] % 2 == 0 and frame["grid"]["cells"] >= 6 * radius
    assert frame["grid"]["origin"] == pytest.approx([1.0, 0.0, 1.0 + radius])
    lengths = frame["scale"]["lengths"]
    assert lengths[0] == [0.001, "0.001 m"] and lengths[-1] == [5000.0, "5000 m"]
    assert [label for _, label in lengths[9:12]] == ["1 m", "2 m", "5 m"]
    assert [round_length(x) for x in (0.99, 1.0, 4.9, 0.03)] == [0.5, 1.0, 2.0, 0.02]


def test_long_runs_are_thinned_to_the_frame_limit(fmu_dir, tmp_path):
    rows = MAX_FRAMES * 2 + 1
    scene = build_scene(read_results(results_folder(tmp_path / "run", rows)), fmu_dir)
    time = np.array(scene["time"])
    assert len(time) == MAX_FRAMES and time[0] == 0.0 and time[-1] == rows - 1
    assert np.all(np.diff(time) > 0)
    assert len(scene["bodies"][0]["p"]) == MAX_FRAMES


def test_page_is_self_contained(scene):
    """No file or address is loaded at view time: no src or href attributes; three.js is
    inlined byte for byte and the scene is the page's JSON."""
    page = render_page(scene)
    assert not re.search(r"<(script|link|img)[^>]*\b(src|href)=", page)
    blocks = dict(re.findall(r'<script type="text/plain" id="([\w-]+)">([^<]*)</script>', page))
    assert (
        base64.b64decode(blocks["three-core"])
        == (three_folder() / "build" / "three.core.js").read_bytes()
    )
    assert set(blocks) == {"three-core", "three", "orbit-controls", "viewer"}
    data = re.search(r'<script type="application/json" id="scene">(.*?)</script>', page, re.S)
    assert json.loads(data.group(1)) == scene


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], "missing: not found (expected a results folder of 'murcosim run')"),
        (["--fmu-dir", "nowhere"], "--fmu-dir: FMU folder nowhere does not exist"),
    ],
)
def test_bad_input_is_one_line(args, expected, tmp_path, capsys):
    folder = results_folder(tmp_path / "run") if args else tmp_path / "missing"
    status = main(["replay", str(folder), *args])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert expected in err and str(folder) in err


def test_missing_three_js_names_its_path_and_the_fix(scene, tmp_path):
    from orchestrator.errors import MurcosimError

    with pytest.raises(MurcosimError, match=r"three\.core\.js: not found .*'make web'"):
        render_page(scene, tmp_path / "three")


# -- real runs in headless Chromium ------------------------------------------------------------


def check_in_browser(page: Path, columns: dict, bodies: dict[str, float], times, camera, target):
    """Screenshots of ``page`` at two times, seen from ``camera`` (NED, m) towards ``target``:
    no console error; the pictures differ near every body that moved more than 5 cm (both at
    its old and its new place) and nowhere else, 'near' being ``bodies[name]`` metres (the
    body with its thrust arrows, ports and arm links) projected at the body's distance."""
    view = "follow=free&ui=0&camera={}&target={}".format(
        *(",".join(map(str, v)) for v in (camera, target))
    )
    ready = "document.body.dataset.ready === 'true' && document.body.dataset.time === '{:.3f}'"
    shots = []
    for t in times:
        views = open_views(page, [f"t={t}&{view}"], ready.format(t))
        assert views.errors == []
        shots += views.screenshots
    changed = np.abs(shots[1] - shots[0]).max(axis=2) > 40
    near = np.zeros(changed.shape, dtype=bool)
    time = columns["time"]
    for body, reach in bodies.items():
        p = np.column_stack([columns[f"{body}.p[{i}]"] for i in (1, 2, 3)])
        at = p[[np.argmin(np.abs(time - t)) for t in times]]
        for column, row, depth in project(at, np.array(camera), np.array(target)):
            assert 0 < column < SIZE[0] and 0 < row < SIZE[1] and depth > 0, "body out of view"
            near |= disc((column, row), focal_length() * reach / depth)
            if np.linalg.norm(at[1] - at[0]) > 0.05:
                assert changed[disc((column, row), focal_length() * 0.1 / depth)].sum() > 20
    assert changed.sum() > 500
    assert changed[near].sum() / changed.sum() > 0.999


@pytest.mark.slow
def test_docking_mpc_replay_in_browser(run, fmu_dir, tmp_path):
    """The first 3 s of the docking demo: both vehicles close in by about 0.28 m."""
    text = (ROOT / "scenarios" / "docking_mpc.toml").read_text()
    columns, _ = run(text.replace("stop_time = 60.0", "stop_time = 3.0"), "docking")
    page = write_replay(tmp_path / "docking_results", fmu_dir=fmu_dir)
    camera, target = (-1.5, 3.5, -2.0), (-1.5, 0.5, 1.0)
    check_in_browser(page, columns, {"leader": 0.6, "follower": 0.6}, (0.0, 3.0), camera, target)


@pytest.mark.slow
def test_uvms_spiral_replay_in_browser(run, fmu_dir, tmp_path):
    """The first second of the spiral: the vehicle moves 0.31 m and turns 36 deg, its four
    arms (0.7 m reach below it) with it."""
    text = (ROOT / "scenarios" / "uvms_spiral.toml").read_text()
    columns, _ = run(text.replace("stop_time = 20.0", "stop_time = 1.0"), "uvms")
    page = write_replay(tmp_path / "uvms_results", fmu_dir=fmu_dir)
    camera, target = (-1.0, 2.0, -0.6), (0.15, 0.45, 0.3)
    check_in_browser(page, columns, {"rov": 1.0}, (0.0, 1.0), camera, target)


@pytest.mark.slow
def test_scale_bar_measures_the_view(fmu_dir, tmp_path):
    """The scale bar is as long on screen as its length at the distance of the view's
    centre, the longest round length within 160 px: camera 8 m from the target, 1 m is
    focal / 8 = 87 px (2 m would be too long); 60 m away with the 3D view alone (ui=0, a
    taller view), 10 m is 129 px."""
    page = write_replay(results_folder(tmp_path / "run"), fmu_dir=fmu_dir)
    target = np.array([1.0, 0.0, 0.5])
    cameras = [target + [-8.0, 0.0, 0.0], target + [-36.0, 0.0, -48.0]]
    fragments = [
        "follow=free&camera={}&target={}{}".format(
            ",".join(map(str, c)), ",".join(map(str, target)), ui
        )
        for c, ui in zip(cameras, ("", "&ui=0"), strict=True)
    ]
    probe = (
        "[document.getElementById('scale-text').textContent,"
        " document.getElementById('scale-line').getBoundingClientRect().width,"
        " document.getElementById('scale').getBoundingClientRect().height]"
    )
    views = open_views(page, fragments, "document.body.dataset.ready === 'true'", probe)
    assert views.errors == []
    cases = [(SIZE[1] - 64, 8.0, 1.0, "1 m"), (SIZE[1], 60.0, 10.0, "10 m")]  # time bar: 64 px
    for (text, width, height), (view_height, distance, length, label) in zip(
        views.values, cases, strict=True
    ):
        focal = view_height / 2 / np.tan(np.radians(45.0) / 2)
        assert text == label and height > 0
        assert width == pytest.approx(length * focal / distance, abs=0.5)
        assert 2 * width > 160  # the next round length would not fit


@pytest.mark.slow
def test_replay_plays(fmu_dir, tmp_path):
    """Opened with play=1 (at 4x, following the scene), the page's clock runs from 0 to the
    end of the 1 s record, without a console error."""
    page = write_replay(results_folder(tmp_path / "run"), fmu_dir=fmu_dir)
    views = open_views(page, ["t=0&play=1&speed=4"], "document.body.dataset.time === '1.000'")
    assert views.errors == []
