"""Run plots: the summary figure's panels, colours, event marks and axis spans; thrusters per
vehicle; the port gap of a docking run; joint references recorded and plotted; per-body plots
only on request; bad input."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from validation.test_arms import FIXED_ARM

from orchestrator.cli import main
from orchestrator.fmi.parameters import ComponentParameters
from orchestrator.recording.tables import read_timeseries
from orchestrator.scenario.reading import parse_scenario
from orchestrator.visualization.style import EVENT_STYLES, MANY_EVENTS, least_span, plt
from orchestrator.visualization.summary import Run, summary_figure

DOCK_TIME = 5.0  # s
THRUSTERS = 16
SCENARIO = (
    """
[simulation]
stop_time = 10.0

[components.a]
fmu = "BlueROV2Heavy"

[components.b]
fmu = "BlueROV2Heavy"

[components.sea]
fmu = "RegularWave"

[components.logger]
fmu = "RegularWave"
"""
    + "".join(
        f'\n[components.t{k}]\nfmu = "Thruster"\nmount = "{"a" if k <= 8 else "b"}"\n'
        f"slot = {(k - 1) % 8 + 1}\n"
        for k in range(1, THRUSTERS + 1)
    )
    + """
[[docking]]
name = "dock"
a = "a"
port_a = 2
b = "b"
port_b = 1
"""
)
EVENTS = [
    {"time": "0.0", "event": "start", "detail": ""},
    {"time": str(DOCK_TIME), "event": "dock", "detail": "dock: a port 2 + b port 1"},
]


def columns() -> dict[str, np.ndarray]:
    """Two vehicles at 1 m depth with a 0.1 mm wobble, a 0.5 m/s surge of a, 16 thrusters
    (t1 pushes a with 2 N along x), a docking pair made at 5 s, a wave elevation."""
    t = np.linspace(0.0, 10.0, 101)
    zero, one = np.zeros_like(t), np.ones_like(t)
    c = {"time": t}
    for body, north in (("a", 0.0), ("b", -1.0)):
        for i, value in enumerate((north * one, zero, 1.0 + 1e-4 * np.sin(t)), 1):
            c[f"{body}.p[{i}]"] = value
        for i in range(1, 5):
            c[f"{body}.q[{i}]"] = one if i == 1 else zero
        for i in range(1, 7):
            c[f"{body}.nu[{i}]"] = 0.5 * one if (body, i) == ("a", 1) else zero
    for k in range(1, THRUSTERS + 1):
        c[f"t{k}.thrust"] = k * one
        for i in range(1, 7):
            c[f"t{k}.tau[{i}]"] = 2.0 * one if (k, i) == (1, 1) else zero
    docked = t >= DOCK_TIME
    c["dock.position_error"] = np.where(docked, 1e-9, np.nan)
    c["dock.angle_error"] = np.where(docked, 2e-9, np.nan)
    c["sea.zeta"] = 0.05 * np.sin(t)
    return c


def docking_run(events: list[dict[str, str]], fmu_dir, docking: bool = True) -> Run:
    """The run of ``columns()`` with ``events``; without ``docking``, the scenario has no
    docking pair (nor its recorded joint)."""
    text = SCENARIO if docking else SCENARIO[: SCENARIO.index("[[docking]]")]
    scenario = parse_scenario(text)
    c = columns() if docking else {k: v for k, v in columns().items() if ".dock" not in k}
    parameters = ComponentParameters(scenario, fmu_dir / "scenario.toml", fmu_dir)
    return Run(c, events, scenario, "test run", parameters=parameters)


@pytest.fixture(scope="module")
def figure(fmu_dir):
    fig = summary_figure(docking_run(EVENTS, fmu_dir))
    yield fig
    plt.close(fig)


def panels(fig) -> dict[str, plt.Axes]:
    return {ax.get_title(): ax for ax in fig.axes if ax.get_title()}


def test_least_span_keeps_a_wobble_flat_and_an_excursion_visible():
    fig, ax = plt.subplots()
    wobble = 1.0 + 1e-4 * np.sin(np.linspace(0, 10, 50))  # m, 0.1 mm
    ax.plot(wobble)
    least_span(ax, wobble, 0.05)
    low, high = ax.get_ylim()
    assert high - low >= 0.05 and low < wobble.min() and high > wobble.max()
    fig, ax = plt.subplots()
    excursion = np.linspace(0.0, 1.0, 50)
    ax.plot(excursion)
    least_span(ax, excursion, 0.05)
    low, high = ax.get_ylim()
    assert 1.0 <= high - low < 1.2  # matplotlib's own margins, not widened
    plt.close("all")


def test_summary_has_a_panel_for_each_thing_recorded(figure):
    titles = set(panels(figure))
    assert {
        "plan view (o start, x end)",
        "depth",
        "speed |(u, v, w)|",
        "thrust of a (8 thrusters)",
        "thrust of b (8 thrusters)",
        "port gap (distance between the docking ports)",
        "constraint violation over 1 joint(s)",
        "sea (recorded signals)",
    } <= titles
    notes = [t.get_text() for t in figure.texts]
    assert any(
        n.startswith("logger (RegularWave): no panel, nothing of it is recorded") for n in notes
    )


def test_sixteen_thrusters_are_shown_per_vehicle(figure):
    """A panel per vehicle, holding the thrusters mounted on it (t1-t8 on a, t9-t16 on b),
    each in a colour of its own, the panel's title in the vehicle's colour."""
    found = panels(figure)
    for vehicle, numbers in (("a", range(1, 9)), ("b", range(9, 17))):
        ax = found[f"thrust of {vehicle} (8 thrusters)"]
        lines = [line for line in ax.get_lines() if line.get_label().startswith("t")]
        assert [line.get_label() for line in lines] == [f"t{k}" for k in numbers]
        assert len({matplotlib.colors.to_hex(line.get_color()) for line in lines}) == 8
        for line, k in zip(lines, numbers, strict=True):
            np.testing.assert_allclose(line.get_ydata(), k)  # t<k> pushes k N
    plan = {line.get_label(): line for line in found["plan view (o start, x end)"].get_lines()}
    for vehicle in ("a", "b"):
        title = found[f"thrust of {vehicle} (8 thrusters)"].title.get_color()
        assert matplotlib.colors.same_color(title, plan[vehicle].get_color())


def test_a_docking_run_has_a_port_gap_panel(figure, fmu_dir):
    """a's stern port (x = -0.25 m) and b's bow port (x = +0.25 m), b 1 m behind a at the same
    depth and attitude: 0.5 m apart all along; the capture distance of the BlueROV2 Heavy
    record (0.05 m) drawn. A run without docking pairs has no such panel."""
    ax = panels(figure)["port gap (distance between the docking ports)"]
    (gap,) = [line for line in ax.get_lines() if line.get_label() == "dock"]
    np.testing.assert_allclose(gap.get_ydata(), 0.5, rtol=1e-12)
    assert any(list(line.get_ydata()) == [0.05, 0.05] for line in ax.get_lines())
    assert "capture distance 0.05 m" in [t.get_text() for t in ax.texts]
    undocked = summary_figure(docking_run(EVENTS[:1], fmu_dir, docking=False))
    assert not any(title.startswith("port gap") for title in panels(undocked))
    plt.close(undocked)


def test_every_kind_of_event_is_marked_and_in_the_legend(fmu_dir):
    """Every kind in events.csv but start and stop gets a legend entry (with its count) and
    a style of its own, known kinds and others alike; a kind of many events is marked by
    ticks at the top of each time axis."""
    kinds = ["dock", "undock", "controller_fault", "terminated", "interrupted", "my_event"]
    events = [{"time": "0.0", "event": "start", "detail": ""}]
    events += [{"time": str(1.0 + k), "event": kind, "detail": ""} for k, kind in enumerate(kinds)]
    ticks = [{"time": f"{0.1 * k:.1f}", "event": "time_event", "detail": ""} for k in range(60)]
    events += ticks + [{"time": "10.0", "event": "stop", "detail": ""}]
    fig = summary_figure(docking_run(events, fmu_dir))
    (legend,) = fig.legends
    labels = [t.get_text() for t in legend.get_texts()]
    assert sorted(labels) == sorted([f"{k} (1)" for k in kinds] + ["time_event (60)"])
    styles = {
        (matplotlib.colors.to_hex(h.get_color()), h.get_marker()) for h in legend.legend_handles
    }
    assert len(styles) == len(labels)
    depth = panels(fig)["depth"]
    for kind, k in zip(kinds, range(len(kinds)), strict=True):
        colour = next(
            matplotlib.colors.to_hex(h.get_color())
            for h, t in zip(legend.legend_handles, labels, strict=True)
            if t.startswith(f"{kind} (")
        )
        marks = [
            line
            for line in depth.get_lines()
            if list(line.get_xdata()) == [1.0 + k] * 2
            and matplotlib.colors.to_hex(line.get_color()) == colour
        ]
        assert len(marks) == 1, kind
    assert len(ticks) > MANY_EVENTS
    rug = [line for line in depth.get_lines() if len(line.get_xdata()) == len(ticks)]
    assert len(rug) == 1 and rug[0].get_linestyle() == "None"
    plt.close(fig)


def test_events_are_marked_on_every_time_axis(figure):
    colour = matplotlib.colors.to_hex(EVENT_STYLES["dock"].colour)
    for title, ax in panels(figure).items():
        if title.startswith("plan view"):
            continue
        marks = [
            line
            for line in ax.get_lines()
            if list(line.get_xdata()) == [DOCK_TIME, DOCK_TIME]
            and matplotlib.colors.to_hex(line.get_color()) == colour
        ]
        assert len(marks) == 1, title


def test_depth_wobble_is_drawn_flat_and_power_is_thrust_times_speed(figure):
    """0.1 mm depth wobble inside an axis of at least 5 cm; the plan view at one scale, the
    vehicles 1 m apart inside; thrust power of a: t1's 2 N
    surge force at 0.5 m/s surge = 1 W (the other thrusters' tau is zero); the violation
    panel shows the docking pair from its dock on (NaN before)."""
    ax = panels(figure)["depth"]
    low, high = sorted(ax.get_ylim())
    assert high - low >= 0.05
    plan = panels(figure)["plan view (o start, x end)"]
    (west, east), (south, north) = plan.get_xlim(), plan.get_ylim()
    assert east - west == pytest.approx(north - south) and east - west >= 1.0
    assert west < 0.0 < east and south < -1.0 and north > 0.0  # both tracks inside
    power = panels(figure)["power delivered (thrust: tau . nu; motors: torque x rate)"]
    by_label = {line.get_label(): line.get_ydata() for line in power.get_lines()}
    np.testing.assert_allclose(by_label["a thrust"], 1.0)
    np.testing.assert_allclose(by_label["b thrust"], 0.0)
    violation = panels(figure)["constraint violation over 1 joint(s)"]
    position = {line.get_label(): line.get_ydata() for line in violation.get_lines()}[
        "position (m)"
    ]
    t = columns()["time"]
    assert np.all(np.isnan(position[t < DOCK_TIME]))
    np.testing.assert_allclose(position[t >= DOCK_TIME], 1e-9)


def test_joint_references_are_recorded_and_plotted(run, tmp_path):
    """A joint PID loop with reference 0.3 sin(pi t) rad: the recorded reference equals it at
    every sample (recording and samples at the same 0.05 s instants); the run's plots hold
    the joint tracking figure."""
    text = FIXED_ARM.replace("stop_time = 0.1", "stop_time = 0.3")
    text += """
[controllers.drive]
type = "joint_pid"
sample_time = 0.05
[controllers.drive.loops.arm_q1]
gains = { kp = 0.005, kd = 0.003 }
reference = [{ amplitude = 0.3, period = 2.0 }]
"""
    cols, _ = run(text, "reference")
    np.testing.assert_allclose(
        cols["drive.arm_q1_reference"], 0.3 * np.sin(np.pi * cols["time"]), atol=1e-12
    )
    assert main(["plot", str(tmp_path / "reference_results")]) == 0
    assert (tmp_path / "reference_results" / "joint_tracking.png").is_file()


def write_results(folder, cols: dict[str, np.ndarray]) -> None:
    folder.mkdir()
    (folder / "scenario.toml").write_text(SCENARIO)
    (folder / "events.csv").write_text(
        "time,event,detail\n" + "".join(f"{e['time']},{e['event']},{e['detail']}\n" for e in EVENTS)
    )
    data = np.column_stack(list(cols.values()))
    np.savetxt(folder / "timeseries.csv", data, delimiter=",", header=",".join(cols), comments="")


def test_per_body_plots_only_on_request(tmp_path, capsys):
    folder = tmp_path / "results"
    poses = {n: v for n, v in columns().items() if n == "time" or n.startswith("a.")}
    write_results(folder, poses)
    assert read_timeseries(folder / "timeseries.csv").keys() == poses.keys()
    assert main(["plot", str(folder)]) == 0
    written = {p.name for p in folder.glob("*.png")}
    assert "summary.png" in written and not any(n.endswith("_trajectory.png") for n in written)
    assert main(["plot", str(folder), "--per-body"]) == 0
    for kind in ("trajectory", "attitude", "velocity"):
        assert (folder / f"a_{kind}.png").is_file()
    capsys.readouterr()
    assert main(["plot", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "missing: not found (expected a results folder" in err
