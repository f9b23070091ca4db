"""Plots of a run, made from its files (``timeseries.csv`` or ``timeseries.parquet``,
``events.csv``, ``scenario.toml``; the FMUs' parameters for the docking ports): the summary
figure, the figures of what a study looks at (autopilot tracking, rendezvous, joint tracking,
thrusters per vehicle, constraint violation, plan view of several bodies) and, on request,
trajectory, attitude and velocity of every body. A body has the same colour in all of them
(:func:`orchestrator.visualization.palette.body_colours`)."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np

from orchestrator.errors import ScenarioError
from orchestrator.fmi.folder import results_fmu_folder
from orchestrator.fmi.parameters import ComponentParameters
from orchestrator.kinematics import euler_angles
from orchestrator.recording.reader import read_recorded
from orchestrator.recording.tables import read_events
from orchestrator.scenario.model import AutopilotConfig, RendezvousConfig
from orchestrator.scenario.navigation import NavigationFilterConfig
from orchestrator.scenario.reading import load_scenario
from orchestrator.visualization.navigation import plot_navigation
from orchestrator.visualization.palette import distinct_colours
from orchestrator.visualization.style import least_span, mark_events, plan_limits, plt
from orchestrator.visualization.summary import (
    ANGLE_SPAN,
    PLAN_SPAN,
    POSITION_SPAN,
    SPEED_SPAN,
    Run,
    colours_of,
    plot_summary,
    principal_bodies,
    thruster_groups,
    tracked_joints,
)


def _bodies(columns: dict[str, np.ndarray]) -> list[str]:
    return sorted({n.split(".")[0] for n in columns if n.endswith(".q[4]")})


def _vector(columns: dict[str, np.ndarray], name: str, size: int) -> np.ndarray:
    return np.column_stack([columns[f"{name}[{i}]"] for i in range(1, size + 1)])


def _save(figure: plt.Figure, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def plot_body(
    columns: dict[str, np.ndarray], body: str, out_dir: Path, colour: str = "C0"
) -> list[Path]:
    """Trajectory, attitude and velocity of one rigid body, its track in ``colour``."""
    t = columns["time"]
    p = _vector(columns, f"{body}.p", 3)
    angles = np.degrees(euler_angles(_vector(columns, f"{body}.q", 4)))
    nu = _vector(columns, f"{body}.nu", 6)
    made = []
    fig, (plan, depth) = plt.subplots(1, 2, figsize=(11, 4.5))
    plan.plot(p[:, 1], p[:, 0], color=colour)
    plan.plot(p[0, 1], p[0, 0], "o", color=colour, label="start")
    plan.set(xlabel="East (m)", ylabel="North (m)", title=f"{body}: plan view")
    plan_limits(plan, p[:, 1], p[:, 0], PLAN_SPAN)
    plan.legend()
    depth.plot(t, p[:, 2], color=colour)
    least_span(depth, p[:, 2], POSITION_SPAN)
    depth.invert_yaxis()
    depth.set(xlabel="time (s)", ylabel="depth z (m, down)", title=f"{body}: depth")
    made.append(_save(fig, out_dir / f"{body}_trajectory.png"))
    fig, ax = plt.subplots(figsize=(8, 4))
    for k, label in enumerate(("roll", "pitch", "yaw")):
        ax.plot(t, angles[:, k], label=label)
    least_span(ax, angles, ANGLE_SPAN)
    ax.set(xlabel="time (s)", ylabel="angle (deg)", title=f"{body}: attitude (zyx Euler)")
    ax.legend()
    made.append(_save(fig, out_dir / f"{body}_attitude.png"))
    fig, (lin, ang) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for k, label in enumerate("uvw"):
        lin.plot(t, nu[:, k], label=label)
    for k, label in enumerate("pqr"):
        ang.plot(t, nu[:, 3 + k], label=label)
    least_span(lin, nu[:, :3], SPEED_SPAN)
    least_span(ang, nu[:, 3:], np.radians(ANGLE_SPAN))
    lin.set(ylabel="m/s", title=f"{body}: body-frame velocity")
    ang.set(xlabel="time (s)", ylabel="rad/s")
    lin.legend()
    ang.legend()
    made.append(_save(fig, out_dir / f"{body}_velocity.png"))
    return made


def plot_thrusters(run: Run, out_dir: Path) -> list[Path]:
    """Thrust and command of every thruster, a row of panels per vehicle."""
    names = sorted({n.split(".")[0] for n in run.columns if n.endswith(".thrust")})
    if not names:
        return []
    groups = thruster_groups(run.scenario, names)
    colours = colours_of(run)
    fig, axes = plt.subplots(
        len(groups), 2, figsize=(12, 3.0 * len(groups)), sharex=True, squeeze=False
    )
    for (force, command), (vehicle, group) in zip(axes, groups.items(), strict=True):
        for name, colour in zip(group, distinct_colours(len(group)), strict=True):
            force.plot(run.time, run.columns[f"{name}.thrust"], label=name, color=colour)
            if f"{name}.pwm" in run.columns:
                command.plot(run.time, run.columns[f"{name}.pwm"], label=name, color=colour)
        for ax in (force, command):
            mark_events(ax, run.events)
        force.set_title(f"{vehicle}: thrust", color=colours.get(vehicle, "k"))
        command.set_title(f"{vehicle}: command", color=colours.get(vehicle, "k"))
        force.set_ylabel("thrust (N)")
        command.set_ylabel("command (us)")
        force.legend(ncol=max(1, math.ceil(len(group) / 4)), fontsize="x-small")
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    return [_save(fig, out_dir / "thrusters.png")]


def plot_autopilot(
    columns: dict[str, np.ndarray],
    name: str,
    config: AutopilotConfig,
    out_dir: Path,
    colour: str = "C0",
) -> Path:
    """Depth, heading and surge speed (in the vehicle's ``colour``) against the set points
    autopilot ``name`` recorded."""
    t = columns["time"]
    v = config.vehicle
    yaw = np.degrees(euler_angles(_vector(columns, f"{v}.q", 4))[:, 2])
    fig, axes = plt.subplots(3, 1, figsize=(8, 7), sharex=True)
    rows = [
        (columns[f"{v}.p[3]"], columns[f"{name}.depth_set"], "depth z (m)"),
        (yaw, columns[f"{name}.heading_set"], "heading (deg)"),
        (columns[f"{v}.nu[1]"], columns[f"{name}.speed_set"], "surge speed u (m/s)"),
    ]
    for ax, (signal, target, label) in zip(axes, rows, strict=True):
        ax.plot(t, signal, color=colour, label="measured")
        ax.plot(t, target, color="k", linestyle="--", label="set point")
        ax.set(ylabel=label)
    axes[0].legend()
    axes[0].set_title(f"{v}: autopilot tracking")
    axes[-1].set_xlabel("time (s)")
    return _save(fig, out_dir / "autopilot.png")


def plot_assembly(columns: dict[str, np.ndarray], colours: dict[str, str], out_dir: Path) -> Path:
    """Plan view of every body of ``colours`` together, each in its colour."""
    fig, ax = plt.subplots(figsize=(7, 6))
    for body, colour in colours.items():
        ax.plot(columns[f"{body}.p[2]"], columns[f"{body}.p[1]"], color=colour, label=body)
        ax.plot(columns[f"{body}.p[2]"][0], columns[f"{body}.p[1]"][0], "k.")
    ax.set(xlabel="East (m)", ylabel="North (m)", title="bodies: plan view", aspect="equal")
    ax.legend()
    return _save(fig, out_dir / "bodies_plan.png")


def plot_joints(columns: dict[str, np.ndarray], out_dir: Path) -> list[Path]:
    """Position and angle error of every joint (log scale)."""
    joints = sorted({n.split(".")[0] for n in columns if n.endswith(".position_error")})
    if not joints:
        return []
    t = columns["time"]
    fig, (position, angle) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for joint, colour in zip(joints, distinct_colours(len(joints)), strict=True):
        error = np.abs(columns[f"{joint}.position_error"]) + 1e-18
        position.semilogy(t, error, label=joint, color=colour)
        angle.semilogy(t, np.abs(columns[f"{joint}.angle_error"]) + 1e-18, color=colour)
    position.set(ylabel="position error (m)", title="joint constraint violation")
    angle.set(xlabel="time (s)", ylabel="angle error (rad)")
    position.legend(fontsize="small")
    return [_save(fig, out_dir / "joints.png")]


def plot_rendezvous(
    columns: dict[str, np.ndarray],
    name: str,
    config: RendezvousConfig,
    out_dir: Path,
    docks: tuple[float, ...] = (),
    colours: dict[str, str] | None = None,
) -> list[Path]:
    """Trajectories (start o, end x) with camera cones at five instants, bearings against the
    limits, object distance, solve times; ``docks``: times of dock events (s), marked;
    ``colours``: of the vehicles (matplotlib's cycle without)."""
    t = columns["time"]
    made = []
    fig, ax = plt.subplots(figsize=(7, 6))
    for v in config.vehicles:
        north, east = columns[f"{v.name}.p[1]"], columns[f"{v.name}.p[2]"]
        yaw = euler_angles(_vector(columns, f"{v.name}.q", 4))[:, 2]
        line = ax.plot(east, north, color=(colours or {}).get(v.name), label=v.name)[0]
        ax.plot(east[0], north[0], "o", color=line.get_color())
        ax.plot(east[-1], north[-1], "x", color=line.get_color())
        for k in np.linspace(0, len(t) - 1, 5).astype(int):
            for cam in v.cameras:
                for side in (-1, 1):
                    a = yaw[k] + np.radians(cam.mount + side * cam.half_angle)
                    ax.plot(
                        [east[k], east[k] + 0.6 * np.sin(a)],
                        [north[k], north[k] + 0.6 * np.cos(a)],
                        color=line.get_color(),
                        linewidth=0.6,
                    )
        if v.observe is not None:
            obj = v.observe
            ax.plot(obj.position[1], obj.position[0], "k*", markersize=12, label="object")
            circle = plt.Circle(
                (obj.position[1], obj.position[0]), obj.max_distance, fill=False, linestyle="--"
            )
            ax.add_patch(circle)
    ax.set(
        xlabel="East (m)",
        ylabel="North (m)",
        title="rendezvous: trajectories and camera cones",
        aspect="equal",
    )
    ax.legend()
    made.append(_save(fig, out_dir / "rendezvous_trajectories.png"))
    fig, (bearing, solve) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    for v in config.vehicles:
        colour = (colours or {}).get(v.name)
        for target, number in [
            *v.sees.items(),
            *([("object", v.observe.camera)] if v.observe else []),
        ]:
            key = f"{name}.{v.name}_sees_{target}_bearing"
            bearing.plot(t, columns[key], color=colour, label=f"{v.name} sees {target}")
            limit = v.cameras[number - 1].half_angle
            bearing.axhline(limit, color="k", linestyle="--", linewidth=0.7)
            bearing.axhline(-limit, color="k", linestyle="--", linewidth=0.7)
        solve.plot(t, 1000 * columns[f"{name}.{v.name}_solve_time"], color=colour, label=v.name)
    solve.axhline(1000 * config.sample_time, color="r", linestyle="--", label="sample time")
    for k, time in enumerate(docks):
        for axis in (bearing, solve):
            axis.axvline(time, color="g", linewidth=0.8, label="dock" if k == 0 else None)
    bearing.set(ylabel="bearing in camera (deg)", title="line of sight")
    solve.set(xlabel="time (s)", ylabel="solve time per sample (ms)")
    bearing.legend(fontsize="small")
    solve.legend(fontsize="small")
    made.append(_save(fig, out_dir / "rendezvous_bearings.png"))
    observers = [v for v in config.vehicles if v.observe is not None]
    if observers:
        fig, ax = plt.subplots(figsize=(8, 4))
        for v in observers:
            north, east = columns[f"{v.name}.p[1]"], columns[f"{v.name}.p[2]"]
            distance = np.hypot(north - v.observe.position[0], east - v.observe.position[1])
            ax.plot(t, distance, color=(colours or {}).get(v.name), label=v.name)
            ax.axhline(v.observe.max_distance, color="k", linestyle="--", label="d_max")
        ax.set(xlabel="time (s)", ylabel="distance to object (m)", title="monitoring constraint")
        ax.legend()
        made.append(_save(fig, out_dir / "rendezvous_object_distance.png"))
    return made


def plot_joint_tracking(run: Run, out_dir: Path) -> list[Path]:
    """Angle of every joint PID loop against its recorded reference, one panel per joint."""
    tracked = tracked_joints(run)
    if not tracked:
        return []
    rows = math.ceil(len(tracked) / 3)
    fig, axes = plt.subplots(rows, 3, figsize=(12, 2.6 * rows), sharex=True, squeeze=False)
    for ax, (joint, reference) in zip(axes.ravel(), tracked, strict=False):
        angle, target = (
            np.degrees(run.columns[f"{joint}.angle"]),
            np.degrees(run.columns[reference]),
        )
        ax.plot(run.time, angle, label="angle")
        ax.plot(run.time, target, color="k", linestyle="--", linewidth=0.9, label="reference")
        least_span(ax, np.concatenate([angle, target]), ANGLE_SPAN)
        mark_events(ax, run.events)
        ax.set(title=joint, ylabel="deg")
    for ax in axes.ravel()[len(tracked) :]:
        ax.set_axis_off()
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    axes[0, 0].legend(fontsize="small")
    return [_save(fig, out_dir / "joint_tracking.png")]


def plot_run(out_dir: Path, per_body: bool = False) -> list[Path]:
    """The plots of the run in ``out_dir`` (per-body plots when ``per_body``); returns the
    PNG paths, the summary figure first."""
    out_dir = Path(out_dir)
    columns = read_recorded(out_dir).columns
    scenario_file, events_file = out_dir / "scenario.toml", out_dir / "events.csv"
    events = read_events(events_file) if events_file.exists() else []
    scenario = load_scenario(scenario_file) if scenario_file.exists() else None
    title = out_dir.name
    if scenario is not None and scenario.description.strip():
        first = " ".join(scenario.description.split("\n\n")[0].split())
        title += ": " + textwrap.shorten(first, 110, placeholder=" ...")
    run = Run(columns, events, scenario, title)
    if scenario is not None and scenario.docking:
        try:
            fmu_dir = results_fmu_folder(out_dir)
            run.parameters = ComponentParameters(scenario, scenario_file, fmu_dir)
        except ScenarioError as exc:
            run.notes.append(f"port gap: no panel, {exc}")
    made = [plot_summary(run, out_dir / "summary.png")]
    colours = colours_of(run)
    if per_body:
        for body in _bodies(columns):
            made += plot_body(columns, body, out_dir, colours.get(body, "C0"))
    principal = principal_bodies(run)
    if len(principal) > 1:
        made.append(plot_assembly(columns, {b: colours[b] for b in principal}, out_dir))
    made += plot_thrusters(run, out_dir)
    made += plot_joints(columns, out_dir)
    made += plot_joint_tracking(run, out_dir)
    docks = [float(e["time"]) for e in events if e["event"] == "dock"]
    if scenario is not None:
        for name, config in scenario.controllers.items():
            if isinstance(config, RendezvousConfig):
                made += plot_rendezvous(columns, name, config, out_dir, tuple(docks), colours)
            elif (
                isinstance(config, AutopilotConfig)
                and f"{config.vehicle}.q[1]" in columns
                and f"{name}.depth_set" in columns
                and (config.gains.heading.kp or config.gains.surge.kp)  # not only a hold loop
            ):
                colour = colours.get(config.vehicle, "C0")
                made.append(plot_autopilot(columns, name, config, out_dir, colour))
            elif isinstance(config, NavigationFilterConfig) and f"{name}.p[1]" in columns:
                path = out_dir / f"navigation_{name}.png"
                made.append(plot_navigation(columns, name, config.vehicle, path))
    return made
