"""FMI events in the masters, on the test FMUs of ``event_fmus.py`` run as Model Exchange: the
bouncing ball's state events located on the dense output, the staircase's time events as hard
stops, both against their analytic solutions, in FMI 2.0 and 3.0; under weak coupling, time
events ending macro steps (also of the staircase's counter alone, without states) and state
events refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from event_fmus import (
    ball_state,
    bounce_times,
    bouncing_ball_fmu,
    counter_fmu,
    staircase,
    staircase_fmu,
)

from orchestrator.errors import ScenarioError
from orchestrator.fmi.fmu import FMU, MODEL_EXCHANGE
from orchestrator.recording.tables import read_events, read_timeseries
from orchestrator.runner.run import run_scenario

VERSIONS = pytest.mark.parametrize("version", ["2.0", "3.0"], ids=["FMI2", "FMI3"])
G, E, H0 = 9.81, 0.7, 1.0  # the ball's defaults: m/s2, restitution, m


def run(tmp_path: Path, fmu: Path, stop: float, interval: float, solver: str = "RK45") -> Path:
    scenario = tmp_path / "events.toml"
    scenario.write_text(
        f"""[simulation]
stop_time = {stop}
output_interval = {interval}
solver = "{solver}"
rtol = 1e-10
atol = 1e-12
step = 0.1
[components.it]
fmu = "{fmu.as_posix()}"
"""
    )
    out = tmp_path / "out"
    run_scenario(scenario, out, tmp_path, plots=False)
    return out


@VERSIONS
def test_bouncing_ball_bounces_at_the_analytic_times(tmp_path, version):
    """Five bounces within 1e-6 s of t_k (state events by bisection on the dense output to
    1e-12 s; the integrator's error at rtol 1e-10 moves them by far less), the trajectory
    between them within 1e-6 m."""
    fmu = bouncing_ball_fmu(tmp_path, version)
    assert FMU(fmu).kind == MODEL_EXCHANGE
    expected = bounce_times(H0, E, G, 5)
    out = run(tmp_path, fmu, stop=float(expected[-1]) + 0.05, interval=0.01)
    events = [e for e in read_events(out / "events.csv") if e["event"] == "state_event"]
    landings = np.array([float(e["time"]) for e in events])
    # the ball is put back just above the ground after a landing: every event is a landing
    assert len(landings) == len(expected)
    assert np.abs(landings - expected).max() < 1e-6
    data = read_timeseries(out / "timeseries.csv")
    h, v = ball_state(data["time"], H0, E, G)
    assert np.abs(data["it.h"] - h).max() < 1e-6
    assert np.abs(data["it.v"] - v).max() < 1e-5


@VERSIONS
@pytest.mark.parametrize("interval", [0.01, 0.3])
def test_staircase_counts_at_time_events(tmp_path, version, interval):
    """The count steps at t = 1..5 s exactly (time events, also between recording points) and
    x = integral of the count is exact up to the integrator's round-off."""
    out = run(tmp_path, staircase_fmu(tmp_path, version), stop=5.5, interval=interval)
    events = [e for e in read_events(out / "events.csv") if e["event"] == "time_event"]
    assert [float(e["time"]) for e in events] == [1.0, 2.0, 3.0, 4.0, 5.0]
    data = read_timeseries(out / "timeseries.csv")
    count, x = staircase(data["time"])
    np.testing.assert_array_equal(data["it.count"], count)
    assert np.abs(data["it.x"] - x).max() < 1e-9


def test_state_events_need_dense_output(tmp_path):
    """RK4 has no dense output to locate a state event on: one line, not a silent miss."""
    with pytest.raises(ScenarioError, match=r"it ha\(s\) state events.*not RK4"):
        run(tmp_path, bouncing_ball_fmu(tmp_path, "2.0"), stop=1.0, interval=0.1, solver="RK4")


@VERSIONS
def test_bouncing_ball_as_co_simulation_in_the_weak_master(tmp_path, version):
    """The same FMU's Co-Simulation interface handles its events inside doStep; stepped by the
    weak master it lands at the analytic bounce times (its own exact event location)."""
    source = bouncing_ball_fmu(tmp_path, version)
    expected = bounce_times(H0, E, G, 3)
    scenario = tmp_path / "weak.toml"
    scenario.write_text(
        f"""[simulation]
stop_time = {float(expected[-1]) + 0.05}
output_interval = 0.01
[cosimulation]
macro_step = 0.01
[components.it]
fmu = "{source.as_posix()}"
"""
    )
    run_scenario(scenario, tmp_path / "out", tmp_path, plots=False)
    data = read_timeseries(tmp_path / "out" / "timeseries.csv")
    h, v = ball_state(data["time"], H0, E, G)
    assert np.abs(data["it.h"] - h).max() < 1e-9
    assert np.abs(data["it.v"] - v).max() < 1e-9


def run_weak(tmp_path: Path, fmu: Path, macro_step: float, interval: float) -> Path:
    """Run ``fmu`` as Model Exchange under weak coupling to 8.5 s; the results folder."""
    scenario = tmp_path / "weak.toml"
    scenario.write_text(
        f"""[simulation]
stop_time = 8.5
output_interval = {interval}
step = 0.1
[cosimulation]
macro_step = {macro_step}
[components.it]
fmu = "{fmu.as_posix()}"
interface = "model_exchange"
"""
    )
    out = tmp_path / "out"
    run_scenario(scenario, out, tmp_path, plots=False)
    return out


@VERSIONS
@pytest.mark.parametrize("make", [counter_fmu, staircase_fmu], ids=["counter", "staircase"])
def test_time_events_end_macro_steps_under_weak_coupling(tmp_path, version, make):
    """Macro steps of 0.3 s and rows every 0.7 s put the time events at 1 ... 8 s between
    communication points: the step that holds one ends on it, the count steps there exactly (8
    by 8.5 s), and x (the staircase's integral of the count, RK4 within each step) is exact up
    to round-off."""
    out = run_weak(tmp_path, make(tmp_path, version), macro_step=0.3, interval=0.7)
    events = [e for e in read_events(out / "events.csv") if e["event"] == "time_event"]
    assert [float(e["time"]) for e in events] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    assert {e["detail"] for e in events} == {"it"}
    data = read_timeseries(out / "timeseries.csv")
    count, x = staircase(data["time"])
    np.testing.assert_array_equal(data["it.count"], count)
    if make is staircase_fmu:
        assert np.abs(data["it.x"] - x).max() < 1e-12


def test_state_events_are_refused_under_weak_coupling(tmp_path):
    """Weak coupling does not locate state events: a Model Exchange unit with event indicators
    is one line naming it, not a silent miss."""
    with pytest.raises(ScenarioError, match=r"components\.it: .* has state events"):
        run_weak(tmp_path, bouncing_ball_fmu(tmp_path, "2.0"), macro_step=0.1, interval=0.1)
