"""The summary figure of a run (``summary.png``): one page with a panel for each thing the run
has, made from its files (``timeseries.csv`` or ``timeseries.parquet``, ``events.csv``,
``scenario.toml``) and, for the docking ports, its FMUs' parameters.

Panels, where the run has what they need: plan view, depth, attitude and speed of the
principal bodies (not parts such as arm links, :mod:`orchestrator.scenario.body_roles`), each
body in its colour of :func:`orchestrator.visualization.palette.body_colours` (the replay's
too); the gap between
the ports of every docking pair against the capture distance (a run with docking pairs, its
FMUs found); thrust, a panel per vehicle with a line per thruster; power (thrust on each
vehicle, tau . nu, and each joint motor, torque x rate); the largest constraint violation
over the joints; joint tracking errors against the joint PID's recorded references; buoy
pointing errors; the recorded signals of every other model (wave fields, servos, FMUs from
other tools), or a line under the figure saying why a model has no panel. Events of every kind
are marked on every time axis, a legend entry per kind; each line has its own colour; axis
limits keep a variation smaller than a stated span flat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from orchestrator.errors import MurcosimError
from orchestrator.fmi.parameters import ComponentParameters
from orchestrator.kinematics import euler_angles
from orchestrator.scenario import body_roles
from orchestrator.scenario.model import JointPIDConfig, PointingConfig, Scenario
from orchestrator.visualization.palette import body_colours, distinct_colours
from orchestrator.visualization.port_gap import PortGap, port_gaps
from orchestrator.visualization.style import event_legend, least_span, mark_events, plan_limits, plt

# Least axis spans (data units): variations below these are drawn flat
POSITION_SPAN = 0.05  # m
PLAN_SPAN = 1.0  # m, each axis of the plan view
ANGLE_SPAN = 2.0  # deg
SPEED_SPAN = 0.05  # m/s
FORCE_SPAN = 1.0  # N
POWER_SPAN = 1.0  # W
TRACKING_SPAN = 1.0  # deg
GAP_SPAN = 0.1  # m
RELATIVE_SPAN = 1e-3  # of the largest magnitude, for signals of other models
MAX_SIGNALS = 8  # lines in the panel of another model
ANGLES = (("yaw", 2, "-"), ("roll", 0, "--"), ("pitch", 1, ":"))


@dataclass
class Run:
    """What the panels draw from."""

    columns: dict[str, np.ndarray]
    events: list[dict[str, str]]
    scenario: Scenario | None
    title: str
    notes: list[str] = field(default_factory=list)
    # the components' parameters (their FMUs found); None: no port-gap panel
    parameters: ComponentParameters | None = None

    @property
    def time(self) -> np.ndarray:
        return self.columns["time"]

    def vector(self, name: str, size: int) -> np.ndarray:
        return np.column_stack([self.columns[f"{name}[{i}]"] for i in range(1, size + 1)])

    def vector_of(self, names: list[str], variable: str) -> np.ndarray:
        """Columns ``<name>.<variable>`` side by side, one per name."""
        return np.column_stack([self.columns[f"{n}.{variable}"] for n in names])

    def owned(self, component: str) -> list[str]:
        return [n for n in self.columns if n.startswith(f"{component}.")]


def bodies(run: Run) -> list[str]:
    """Components with a recorded pose (``p[1..3]``, ``q[1..4]``)."""
    found = {n.split(".")[0] for n in run.columns if n.endswith(".q[4]")}
    return sorted(b for b in found if all(f"{b}.p[{i}]" in run.columns for i in (1, 2, 3)))


def principal_bodies(run: Run) -> list[str]:
    """Bodies that are not parts such as arm links (:mod:`orchestrator.scenario.body_roles`)."""
    return body_roles.principal_bodies(run.scenario, bodies(run))


def thrusters(run: Run) -> list[str]:
    return sorted({n.split(".")[0] for n in run.columns if n.endswith(".thrust")})


def thruster_groups(scenario: Scenario | None, names: list[str]) -> dict[str, list[str]]:
    """The thrusters ``names`` grouped by the vehicle they are mounted on (the scenario's
    ``mount``), vehicles and thrusters in the scenario's order; thrusters on no vehicle, or
    all of them without a scenario, in a group ``thrusters``."""
    groups: dict[str, list[str]] = {}
    components = scenario.components if scenario is not None else {}
    for name, component in components.items():
        if name in names and component.mount is not None:
            groups.setdefault(component.mount, []).append(name)
    mounted = {n for group in groups.values() for n in group}
    if rest := [n for n in names if n not in mounted]:
        groups["thrusters"] = rest
    return groups


def colours_of(run: Run) -> dict[str, str]:
    """Colour of every body of the run (:func:`orchestrator.visualization.palette.body_colours`)."""
    return body_colours(run.scenario, bodies(run))


def joints(run: Run) -> list[str]:
    return sorted({n.split(".")[0] for n in run.columns if n.endswith(".position_error")})


def tracked_joints(run: Run) -> list[tuple[str, str]]:
    """(joint, reference column) of every joint PID loop with a recorded reference and angle."""
    if run.scenario is None:
        return []
    return [
        (joint, f"{name}.{joint}_reference")
        for name, config in run.scenario.controllers.items()
        if isinstance(config, JointPIDConfig)
        for joint in config.loops
        if f"{name}.{joint}_reference" in run.columns and f"{joint}.angle" in run.columns
    ]


def _panel_plan(ax: plt.Axes, run: Run, names: list[str], colours: dict[str, str]) -> None:
    for body in names:
        north, east = run.columns[f"{body}.p[1]"], run.columns[f"{body}.p[2]"]
        ax.plot(east, north, color=colours[body], label=body)
        ax.plot(east[0], north[0], "o", color=colours[body], markersize=4)
        ax.plot(east[-1], north[-1], "x", color=colours[body])
    ax.set(xlabel="East (m)", ylabel="North (m)", title="plan view (o start, x end)")
    east, north = (np.concatenate([run.columns[f"{b}.p[{k}]"] for b in names]) for k in (2, 1))
    plan_limits(ax, east, north, PLAN_SPAN)
    ax.legend(fontsize="small")


def _panel_depth(ax: plt.Axes, run: Run, names: list[str], colours: dict[str, str]) -> None:
    depth = [run.columns[f"{b}.p[3]"] for b in names]
    for body, z in zip(names, depth, strict=True):
        ax.plot(run.time, z, color=colours[body], label=body)
    least_span(ax, np.concatenate(depth), POSITION_SPAN)
    ax.invert_yaxis()
    ax.set(ylabel="depth z (m, down)", title="depth")


def _panel_attitude(ax: plt.Axes, run: Run, names: list[str], colours: dict[str, str]) -> None:
    values = []
    for body in names:
        angles = np.degrees(np.unwrap(euler_angles(run.vector(f"{body}.q", 4)), axis=0))
        for _, k, style in ANGLES:
            ax.plot(run.time, angles[:, k], color=colours[body], linestyle=style)
            values.append(angles[:, k])
    least_span(ax, np.concatenate(values), ANGLE_SPAN)
    handles = [plt.Line2D([], [], color="k", linestyle=s) for _, _, s in ANGLES]
    ax.legend(handles, [a for a, _, _ in ANGLES], fontsize="small")
    ax.set(ylabel="angle (deg)", title="attitude (zyx Euler, unwrapped; colour: body)")


def _panel_speed(ax: plt.Axes, run: Run, names: list[str], colours: dict[str, str]) -> None:
    speeds = [np.linalg.norm(run.vector(f"{b}.nu", 3), axis=1) for b in names]
    for body, speed in zip(names, speeds, strict=True):
        ax.plot(run.time, speed, color=colours[body])
    least_span(ax, np.concatenate(speeds), SPEED_SPAN)
    ax.set(ylabel="speed (m/s)", title="speed |(u, v, w)|")


def _panel_thrust(
    ax: plt.Axes, run: Run, vehicle: str, names: list[str], colours: dict[str, str]
) -> None:
    values = [run.columns[f"{n}.thrust"] for n in names]
    for name, thrust, colour in zip(names, values, distinct_colours(len(names)), strict=True):
        ax.plot(run.time, thrust, color=colour, label=name, linewidth=0.9)
    least_span(ax, np.concatenate(values), FORCE_SPAN)
    ax.set_ylabel("thrust (N)")
    ax.set_title(f"thrust of {vehicle} ({len(names)} thrusters)", color=colours.get(vehicle, "k"))
    ax.legend(fontsize="x-small", ncol=max(1, math.ceil(len(names) / 4)))


def _panel_port_gap(ax: plt.Axes, run: Run, gaps: list[PortGap]) -> None:
    """Gaps on a log scale, to show the last centimetres of an approach beside its metres."""
    for gap, colour in zip(gaps, distinct_colours(len(gaps)), strict=True):
        ax.semilogy(run.time, gap.gap, color=colour, label=gap.pair)
    captures = sorted({g.capture_distance for g in gaps})
    for capture in captures:
        ax.axhline(capture, color="k", linestyle="--", linewidth=0.9)
        ax.annotate(
            f"capture distance {capture:g} m",
            (1.0, capture),
            xycoords=("axes fraction", "data"),
            xytext=(-4, 3),
            textcoords="offset points",
            ha="right",
            fontsize="small",
        )
    smallest = min(float(np.nanmin(g.gap)) for g in gaps)
    largest = max(float(np.nanmax(g.gap)) for g in gaps)
    ax.set_ylim(min(captures[0] / 3, 0.8 * smallest), max(GAP_SPAN, 1.5 * largest))
    ax.set(ylabel="gap (m)", title="port gap (distance between the docking ports)")
    ax.legend(fontsize="small", loc="upper center")


def docking_gaps(run: Run) -> list[PortGap]:
    """The port gaps of the run's docking pairs (none without ``run.parameters``); a note
    says why there are none where the run has a ``dock`` event but no scenario to place its
    ports or its ports cannot be placed."""
    if run.scenario is None or not run.scenario.docking:
        if any(e["event"] == "dock" for e in run.events):
            run.notes.append("port gap: no panel, the run's scenario.toml is missing")
        return []
    if run.parameters is None:
        return []
    try:
        return port_gaps(run.columns, run.scenario, run.parameters)
    except (KeyError, MurcosimError) as exc:
        run.notes.append(f"port gap: no panel, {exc}")
        return []


def power_signals(run: Run) -> list[tuple[str, np.ndarray, str | None]]:
    """(label, power in W, vehicle or None): thrust on each vehicle (sum of its thrusters'
    tau . nu) and each joint motor (torque x rate)."""
    signals = []
    if run.scenario is not None:
        for vehicle in bodies(run):
            mounted = [
                n
                for n, c in run.scenario.components.items()
                if c.mount == vehicle and f"{n}.tau[6]" in run.columns
            ]
            if mounted and f"{vehicle}.nu[6]" in run.columns:
                tau = sum(run.vector(f"{n}.tau", 6) for n in mounted)
                power = np.sum(tau * run.vector(f"{vehicle}.nu", 6), 1)
                signals.append((f"{vehicle} thrust", power, vehicle))
    for joint in sorted({n.split(".")[0] for n in run.columns if n.endswith(".rate")}):
        if f"{joint}.torque" in run.columns:
            power = run.columns[f"{joint}.torque"] * run.columns[f"{joint}.rate"]
            signals.append((f"{joint} motor", power, None))
    return signals


def _panel_power(
    ax: plt.Axes,
    run: Run,
    signals: list[tuple[str, np.ndarray, str | None]],
    colours: dict[str, str],
) -> None:
    """Vehicles in their colours, joint motors dashed in colours of their own."""
    motors = iter(distinct_colours(sum(v is None for _, _, v in signals)))
    for label, power, vehicle in signals:
        colour, style = (colours[vehicle], "-") if vehicle else (next(motors), "--")
        ax.plot(run.time, power, color=colour, linestyle=style, label=label, linewidth=1.0)
    least_span(ax, np.concatenate([p for _, p, _ in signals]), POWER_SPAN)
    ax.set(ylabel="power (W)", title="power delivered (thrust: tau . nu; motors: torque x rate)")
    ax.legend(fontsize="x-small", ncol=max(1, math.ceil(len(signals) / 8)))


def _panel_violation(ax: plt.Axes, run: Run, names: list[str]) -> None:
    # fmax skips the NaN of joints not (yet) made: docking pairs before they dock
    position = np.fmax.reduce(np.abs(run.vector_of(names, "position_error")), axis=1)
    angle = np.fmax.reduce(np.abs(run.vector_of(names, "angle_error")), axis=1)
    ax.semilogy(run.time, position + 1e-18, color="tab:blue", label="position (m)")
    ax.semilogy(run.time, angle + 1e-18, color="tab:red", linestyle="--", label="angle (rad)")
    ax.set(ylabel="largest error", title=f"constraint violation over {len(names)} joint(s)")
    ax.legend(fontsize="small")


def _panel_tracking(ax: plt.Axes, run: Run, tracked: list[tuple[str, str]]) -> None:
    errors = [np.degrees(run.columns[r] - run.columns[f"{j}.angle"]) for j, r in tracked]
    for (joint, _), error, colour in zip(
        tracked, errors, distinct_colours(len(tracked)), strict=True
    ):
        ax.plot(run.time, error, color=colour, label=joint, linewidth=1.0)
    least_span(ax, np.concatenate(errors), TRACKING_SPAN)
    ax.set(ylabel="reference - angle (deg)", title="joint tracking error")
    ax.legend(fontsize="x-small", ncol=max(1, math.ceil(len(tracked) / 8)))


def _panel_pointing(ax: plt.Axes, run: Run, names: list[str]) -> None:
    errors = [np.degrees(run.columns[f"{n}.error"]) for n in names]
    for name, error, colour in zip(names, errors, distinct_colours(len(names)), strict=True):
        ax.plot(run.time, error, color=colour, label=name)
    least_span(ax, np.concatenate(errors), TRACKING_SPAN)
    ax.set(ylabel="pointing error (deg)", title="payload pointing error")
    ax.legend(fontsize="small")


def _panel_model(ax: plt.Axes, run: Run, component: str, signals: list[str]) -> None:
    shown = signals[:MAX_SIGNALS]
    values = [run.columns[s] for s in shown]
    for name, value, colour in zip(shown, values, distinct_colours(len(shown)), strict=True):
        ax.plot(run.time, value, color=colour, label=name.split(".", 1)[1], linewidth=1.0)
    largest = max(float(np.nanmax(np.abs(v))) for v in values)
    least_span(ax, np.concatenate(values), max(RELATIVE_SPAN * largest, 1e-12))
    more = f", first {MAX_SIGNALS} of {len(signals)}" if len(signals) > MAX_SIGNALS else ""
    ax.set(title=f"{component} (recorded signals{more})")
    ax.legend(fontsize="x-small", ncol=2)


def other_models(run: Run, drawn: set[str]) -> list[tuple[str, list[str]]]:
    """(component, recorded columns) of the scenario's models that no other panel draws; a
    note for each one with nothing recorded."""
    if run.scenario is None:
        return []
    found = []
    for name, component in run.scenario.components.items():
        if name in drawn or component.mount is not None:
            continue
        signals = run.owned(name)
        if signals:
            found.append((name, signals))
        else:
            run.notes.append(
                f"{name} ({component.fmu}): no panel, nothing of it is recorded "
                "(the scenario's 'record' leaves it out, or it has no states, inputs or "
                "time-varying outputs)"
            )
    return found


def plot_summary(run: Run, path: Path) -> Path:
    """Write the summary figure of ``run`` to ``path``."""
    figure = summary_figure(run)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def summary_figure(run: Run) -> plt.Figure:
    """The summary figure of ``run``; its notes (models without a panel) are written under it."""
    principal = principal_bodies(run)
    colours = colours_of(run)
    panels = []  # (drawing function of an axis, is a time axis)
    if principal:
        panels.append((partial(_panel_plan, run=run, names=principal, colours=colours), False))
        for draw in (_panel_depth, _panel_attitude):
            panels.append((partial(draw, run=run, names=principal, colours=colours), True))
        if all(f"{b}.nu[3]" in run.columns for b in principal):
            panels.append((partial(_panel_speed, run=run, names=principal, colours=colours), True))
    if gaps := docking_gaps(run):
        panels.append((partial(_panel_port_gap, run=run, gaps=gaps), True))
    for vehicle, names in thruster_groups(run.scenario, thrusters(run)).items():
        draw = partial(_panel_thrust, run=run, vehicle=vehicle, names=names, colours=colours)
        panels.append((draw, True))
    if powers := power_signals(run):
        panels.append((partial(_panel_power, run=run, signals=powers, colours=colours), True))
    if constrained := joints(run):
        panels.append((partial(_panel_violation, run=run, names=constrained), True))
    if tracked := tracked_joints(run):
        panels.append((partial(_panel_tracking, run=run, tracked=tracked), True))
    pointing = [
        n
        for n, c in (run.scenario.controllers.items() if run.scenario else [])
        if isinstance(c, PointingConfig) and f"{n}.error" in run.columns
    ]
    if pointing:
        panels.append((partial(_panel_pointing, run=run, names=pointing), True))
    for component, signals in other_models(run, set(bodies(run)) | set(thrusters(run))):
        panels.append((partial(_panel_model, run=run, component=component, signals=signals), True))
    if not panels:
        run.notes.append("nothing recorded to plot besides time")
    rows = max(1, math.ceil(len(panels) / 2))
    figure, axes = plt.subplots(rows, 2, figsize=(13, 3.1 * rows + 1.2 + 0.22 * len(run.notes)))
    axes = np.atleast_1d(axes).ravel()
    for ax, (draw, timed) in zip(axes, panels, strict=False):
        draw(ax)
        if timed:
            mark_events(ax, run.events)
            ax.set_xlabel("time (s)")
            ax.set_xlim(run.time[0], run.time[-1])
    for ax in axes[len(panels) :]:
        ax.set_axis_off()
    height = figure.get_figheight()
    figure.suptitle(run.title, x=0.01, y=1 - 0.1 / height, ha="left", va="top", fontsize="medium")
    top = 1 - 0.4 / height  # under the title
    legend = event_legend(figure, run.events, top)
    if legend is not None:
        figure.canvas.draw()
        top -= legend.get_window_extent().height / figure.bbox.height
    notes_height = 0.22 * len(run.notes) / height
    for k, note in enumerate(run.notes):
        figure.text(0.01, 0.01 + 0.22 * k / height, note, fontsize="small")
    figure.tight_layout(rect=(0, notes_height + 0.01, 1, top))
    return figure
