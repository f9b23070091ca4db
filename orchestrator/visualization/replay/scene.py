"""What a replay draws, taken from a results folder and the FMUs' parameters.

Every body (a component with recorded ``p[1..3]`` and ``q[1..4]``) is drawn in its body
frame, placed by its recorded pose (NED, scalar-first quaternion body to NED):

- a cylinder where its record has ``data.radius`` and ``data.length`` (buoy parts: origin at
  the centre of the bottom face, axis along body z, occupying ``-length <= z <= 0``);
- otherwise a box around the body's origin and its thruster mounts and docking ports, or, for
  a body with neither (an arm link), its joint points. Each edge is at least the edge of the
  cube of the body's displaced volume (``data.volume``, or ``data.m`` over the density of
  water, 1000 kg/m3, for a body that displaces nothing), so a vehicle gets its rough size and
  an arm link the length between its joints.

Thrusters are drawn at their mounts with an arrow along their direction, scaled by the
recorded thrust; joints at their points on body ``a`` (with the hinge axis of revolute
joints); docking ports at their mating points, along their outward normal, marked docked
between the ``dock`` and ``undock`` events of their pair. The free surface at z = 0 moves
with the scenario's wave and the seabeds it declares are drawn
(:mod:`orchestrator.visualization.replay.ocean`), tethers through their recorded nodes
(:mod:`orchestrator.visualization.replay.tether`), the fiducial cameras' fields of view,
markers and detections and the DVLs' beams
(:mod:`orchestrator.visualization.replay.sensors`); a floor grid of round metres (on the
seabed where there is one) and the page's scale bar measure the view
(:mod:`orchestrator.visualization.replay.frame`). Every body has its colour of
:func:`orchestrator.visualization.palette.body_colours`, the one the plots give it, and every
kind of event the colour the plots mark it in. Principal bodies (not parts such as arm links,
:mod:`orchestrator.scenario.body_roles`) get a name label and their trail. Parameter values are the
scenario's settings, else the FMU's start values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from orchestrator.errors import ScenarioError
from orchestrator.fmi.parameters import ComponentParameters
from orchestrator.kinematics import rotation_matrix
from orchestrator.recording.reader import read_recorded
from orchestrator.recording.tables import read_events
from orchestrator.scenario.body_roles import principal_bodies
from orchestrator.scenario.model import Scenario
from orchestrator.scenario.reading import load_scenario
from orchestrator.visualization.palette import body_colours
from orchestrator.visualization.replay.frame import body_size, reference_frame
from orchestrator.visualization.replay.ocean import seabed_depths, surface
from orchestrator.visualization.replay.sensors import sensor_views
from orchestrator.visualization.replay.tether import tethers
from orchestrator.visualization.style import event_styles

WATER_DENSITY = 1000.0  # kg/m3, for the size of a body that displaces no water
MAX_FRAMES = 5000  # longer runs are thinned to this many frames, evenly in record order


@dataclass(frozen=True)
class Results:
    """The files of a results folder, read."""

    folder: Path
    columns: dict[str, np.ndarray]
    events: list[dict[str, str]]
    scenario: Scenario


def read_results(folder: Path) -> Results:
    """The time series (``timeseries.parquet`` or ``timeseries.csv``), ``events.csv`` and
    ``scenario.toml`` of a results folder."""
    folder = Path(folder)
    recorded = read_recorded(folder)
    for name in ("events.csv", "scenario.toml"):
        if not (folder / name).is_file():
            raise ScenarioError(
                f"{folder / name}: not found (expected a results folder of 'murcosim run')"
            )
    columns = recorded.columns
    if len(columns["time"]) == 0:
        raise ScenarioError(f"{recorded.path}: no rows (expected at least one)")
    return Results(
        folder, columns, read_events(folder / "events.csv"), load_scenario(folder / "scenario.toml")
    )


def _vector(columns: dict[str, np.ndarray], name: str, size: int) -> np.ndarray:
    return np.column_stack([columns[f"{name}[{i}]"] for i in range(1, size + 1)])


def _bodies(results: Results) -> list[str]:
    """Components with a recorded pose, in scenario order."""
    columns = results.columns
    needed = [f"p[{i}]" for i in (1, 2, 3)] + [f"q[{i}]" for i in (1, 2, 3, 4)]
    return [
        name
        for name in results.scenario.components
        if all(f"{name}.{v}" in columns for v in needed)
    ]


def _joint_points(results: Results, bodies: list[str]) -> dict[str, list[np.ndarray]]:
    """Joint points of every body in its own frame (body b's point from the first poses
    when the scenario does not give ``at_b``)."""
    points: dict[str, list[np.ndarray]] = {b: [] for b in bodies}
    columns = results.columns
    for joint in results.scenario.joints:
        at = np.array(joint.at)
        if joint.a in points:
            points[joint.a].append(at)
        if joint.b not in points:
            continue
        if joint.at_b is not None:
            points[joint.b].append(np.array(joint.at_b))
        elif joint.a in points:
            p_a, p_b = (_vector(columns, f"{n}.p", 3)[0] for n in (joint.a, joint.b))
            r_a, r_b = (
                rotation_matrix(_vector(columns, f"{n}.q", 4)[0]) for n in (joint.a, joint.b)
            )
            points[joint.b].append(r_b.T @ (p_a + r_a @ at - p_b))
    return points


def _shape(name: str, parameters: ComponentParameters, features: np.ndarray) -> dict:
    """Cylinder of a buoy record, else the box around ``features`` (n, 3) in the body frame."""
    radius, length = parameters.get(name, "data.radius"), parameters.get(name, "data.length")
    if radius is not None and length is not None:
        return {
            "kind": "cylinder",
            "radius": radius,
            "length": length,
            "centre": [0, 0, -length / 2],
        }
    volume = parameters.get(name, "data.volume") or 0.0
    if volume <= 0.0:
        volume = (parameters.get(name, "data.m") or 0.0) / WATER_DENSITY
    low, high = features.min(axis=0), features.max(axis=0)
    edges = np.maximum(high - low, volume ** (1 / 3))
    return {"kind": "box", "size": edges.tolist(), "centre": ((low + high) / 2).tolist()}


def _docked_intervals(results: Results, pair: str) -> list[list[float]]:
    """[dock time, undock time or +inf] of the docking pair ``pair``, from ``events.csv``."""
    intervals: list[list[float]] = []
    for event in results.events:
        if not event["detail"].startswith(f"{pair}:"):
            continue
        if event["event"] == "dock":
            intervals.append([float(event["time"]), math.inf])
        elif event["event"] == "undock" and intervals and intervals[-1][1] == math.inf:
            intervals[-1][1] = float(event["time"])
    return intervals


def _frames(count: int) -> np.ndarray:
    """Indices of the recorded rows drawn: all, or ``MAX_FRAMES`` evenly spread."""
    if count <= MAX_FRAMES:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, MAX_FRAMES).round().astype(int))


def _rounded(values: np.ndarray, digits: int) -> list:
    return np.round(values, digits).tolist()


def build_scene(results: Results, fmu_dir: Path) -> dict:
    """The replay's scene as plain data (JSON-ready): lengths in m, NED and body frames."""
    columns, scenario = results.columns, results.scenario
    bodies = _bodies(results)
    if not bodies:
        raise ScenarioError(
            f"{results.folder}: no body to draw in the recorded time series "
            "(expected the columns <body>.p[1..3] and <body>.q[1..4] of at least one component)"
        )
    parameters = ComponentParameters(scenario, results.folder / "scenario.toml", fmu_dir)
    rows = _frames(len(columns["time"]))
    joint_points = _joint_points(results, bodies)
    pairs = {}
    for dock in scenario.docking:
        pair = dock.name or f"dock_{dock.a}_{dock.b}"
        pairs[(dock.a, dock.port_a)] = pairs[(dock.b, dock.port_b)] = pair
    thrusters = [
        (n, c) for n, c in scenario.components.items() if c.mount in bodies and c.slot is not None
    ]
    thrust_peak = max(
        (
            float(np.max(np.abs(columns[f"{n}.thrust"])))
            for n, _ in thrusters
            if f"{n}.thrust" in columns
        ),
        default=0.0,
    )
    principal = principal_bodies(scenario, bodies)
    scene_bodies, scene_thrusters, scene_ports = [], [], []
    colours = body_colours(scenario, bodies)
    for body in bodies:
        mounts = parameters.rows(body, "data.thruster_position")
        directions = parameters.rows(body, "data.thruster_direction")
        ports = parameters.rows(body, "data.port_position")
        normals = parameters.rows(body, "data.port_normal")
        hardware = np.vstack([mounts, ports])
        own = [hardware] if len(hardware) else joint_points[body]
        features = np.vstack([np.zeros((1, 3)), *own])
        p = _vector(columns, f"{body}.p", 3)[rows]
        q = _vector(columns, f"{body}.q", 4)[rows]
        shape = _shape(body, parameters, features)
        scene_bodies.append(
            {
                "name": body,
                "colour": colours[body],
                "shape": shape,
                "size": body_size(shape),
                "principal": body in principal,
                "p": _rounded(p, 5),
                "q": _rounded(q / np.linalg.norm(q, axis=1, keepdims=True), 6),
            }
        )
        for k, (position, normal) in enumerate(zip(ports, normals, strict=True), 1):
            pair = pairs.get((body, k))
            scene_ports.append(
                {
                    "body": body,
                    "number": k,
                    "position": position.tolist(),
                    "normal": (normal / np.linalg.norm(normal)).tolist(),
                    "pair": pair,
                    "docked": _docked_intervals(results, pair) if pair else [],
                }
            )
        for name, component in thrusters:
            if component.mount != body or component.slot > len(mounts):
                continue
            thrust = columns.get(f"{name}.thrust")
            scene_thrusters.append(
                {
                    "name": name,
                    "body": body,
                    "position": mounts[component.slot - 1].tolist(),
                    "direction": directions[component.slot - 1].tolist(),
                    "thrust": None if thrust is None else _rounded(thrust[rows], 4),
                }
            )
    sea = surface(scenario, parameters, columns, bodies, rows)
    seabeds = seabed_depths(scenario)
    cables = tethers(scenario, columns, rows)
    cameras, dvls = sensor_views(scenario, columns, bodies, rows)
    extra = [np.reshape(c["nodes"], (-1, 3)) for c in cables]
    extra += [c["marker"]["position"] for c in cameras if c["marker"]["target"] is None]
    return {
        "title": results.folder.name,
        "description": " ".join(scenario.description.split("\n\n")[0].split()),
        "time": _rounded(columns["time"][rows], 6),
        "bodies": scene_bodies,
        "thrusters": scene_thrusters,
        "thrust_peak": thrust_peak,
        "joints": [
            {
                "name": j.name,
                "type": j.type,
                "a": j.a,
                "b": j.b,
                "at": list(j.at),
                "axis": list(j.axis) if j.axis else None,
            }
            for j in scenario.joints
            if j.a in bodies
        ],
        "ports": scene_ports,
        "events": [
            {"time": float(e["time"]), "event": e["event"], "detail": e["detail"]}
            for e in results.events
        ],
        "event_colours": {k: s.colour for k, s in event_styles(results.events).items()},
        "sea_elevation": _rounded(sea["level"], 4),
        "wave": sea["wave"],
        "seabeds": seabeds,
        "tethers": cables,
        "cameras": cameras,
        "dvls": dvls,
        "frame": reference_frame(
            scene_bodies,
            np.vstack(extra) if extra else None,
            seabeds[0] if seabeds else math.inf,
        ),
    }
