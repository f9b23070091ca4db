"""The test FMUs with events, checked in FMPy against their analytic solutions: the bouncing
ball (state events) and the staircase (time events, and its requests to end the run), FMI 2.0
and 3.0, Model Exchange run by FMPy's CVode and Co-Simulation with the events handled inside
the step."""

from __future__ import annotations

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
from fmpy import read_model_description, simulate_fmu
from fmpy.validation import validate_fmu

VERSIONS = pytest.mark.parametrize("version", ["2.0", "3.0"], ids=["FMI2", "FMI3"])
G = 9.81  # m/s2, the ball's default gravity


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("event_fmus")


def event_rows(result: np.ndarray) -> np.ndarray:
    """Indices of the rows recorded just before an event: FMPy's record_events writes the
    event time twice, before and after the event."""
    return np.flatnonzero(np.diff(result["time"]) == 0)


def take_off_times(result: np.ndarray, g: float) -> np.ndarray:
    """When the ball last left the ground, from each recorded (t, h, v) of a rising or falling
    ball in free flight: h = u s - g s^2 / 2, v = u - g s, solved for the time s since."""
    t, h, v = result["time"], result["h"], result["v"]
    return t - (np.sqrt(v**2 + 2 * g * h) - v) / g


def test_bounce_times_follow_free_flight():
    """The analytic helper itself: the first bounce ends a free fall from h0, each flight after
    bounce k lasts 2 v_k / g with v_k = e^k v_1 (checked against the textbook numbers)."""
    times = bounce_times(1.0, 0.7, G, 3)
    assert times[0] == pytest.approx(np.sqrt(2 / G), rel=1e-15)
    v1 = np.sqrt(2 * G)
    assert np.diff(times) == pytest.approx([2 * 0.7 * v1 / G, 2 * 0.49 * v1 / G], rel=1e-14)
    h, v = ball_state(times + 1e-9, 1.0, 0.7, G)  # just after each bounce: on the ground, rising
    assert h == pytest.approx([0, 0, 0], abs=1e-8)
    assert v == pytest.approx(0.7 ** np.arange(1, 4) * v1, rel=1e-8)


@VERSIONS
@pytest.mark.parametrize(
    ("make", "states"),
    [(bouncing_ball_fmu, 2), (staircase_fmu, 1), (counter_fmu, 0)],
    ids=["ball", "staircase", "counter"],
)
def test_event_fmus_are_valid_with_both_interfaces(folder, make, states, version):
    path = str(make(folder, version))
    assert validate_fmu(path) == []
    md = read_model_description(path)
    assert md.modelExchange is not None and md.coSimulation is not None
    assert md.numberOfEventIndicators == (1 if make is bouncing_ball_fmu else 0)
    assert md.numberOfContinuousStates == states


@VERSIONS
def test_bouncing_ball_model_exchange_finds_the_bounces(folder, version):
    """CVode's root finding on z = h: each bounce within 1e-6 s of the analytic time (CVode at
    rtol 1e-10 locates the root to round-off; its error control on the flight dominates), the
    speed reversed by e at each event, and the trajectory within 1e-6 m, 1e-5 m/s."""
    result = simulate_fmu(
        str(bouncing_ball_fmu(folder, version)),
        fmi_type="ModelExchange",
        stop_time=2.1,
        output_interval=0.01,
        relative_tolerance=1e-10,
        record_events=True,
    )
    before = event_rows(result)
    expected = bounce_times(1.0, 0.7, G, 5)  # the fifth at 2.053 s, the sixth after 2.1 s
    assert result["time"][before] == pytest.approx(expected, abs=1e-6)
    assert result["v"][before + 1] == pytest.approx(-0.7 * result["v"][before], rel=1e-12)
    h, v = ball_state(result["time"], 1.0, 0.7, G)
    regular = np.setdiff1d(np.arange(len(result)), np.concatenate([before, before + 1]))
    assert np.abs(result["h"][regular] - h[regular]).max() < 1e-6
    assert np.abs(result["v"][regular] - v[regular]).max() < 1e-5


@VERSIONS
def test_bouncing_ball_co_simulation_lands_exactly(folder, version):
    """A ball from 2 m with e = 0.5 (parameters set by the importer): the step's RK4 is exact on
    the parabola and the landing is solved for, so h and v equal the analytic ones to round-off
    (1e-12) and the take-off times read back from the samples equal the bounce times to 1e-9 s.
    """
    result = simulate_fmu(
        str(bouncing_ball_fmu(folder, version)),
        fmi_type="CoSimulation",
        stop_time=1.8,
        output_interval=0.01,
        start_values={"h": 2.0, "e": 0.5},
    )
    h, v = ball_state(result["time"], 2.0, 0.5, G)
    assert np.abs(result["h"] - h).max() < 1e-12
    assert np.abs(result["v"] - v).max() < 1e-12
    expected = bounce_times(2.0, 0.5, G, 4)  # the fourth at 1.756 s, the fifth after 1.8 s
    after = np.searchsorted(result["time"], expected)  # the first sample after each bounce
    assert take_off_times(result[after], G) == pytest.approx(expected, abs=1e-9)


@VERSIONS
def test_staircase_model_exchange_steps_at_the_time_events(folder, version):
    """The next event times reported by the FMU (initial event iteration included) stop CVode
    at t = 1 ... 5 s: count equals floor(t) exactly, before each event its left limit, and x,
    piecewise linear, is integrated to round-off (1e-12 s)."""
    result = simulate_fmu(
        str(staircase_fmu(folder, version)),
        fmi_type="ModelExchange",
        stop_time=5.0,
        output_interval=0.1,
        record_events=True,
    )
    before = event_rows(result)
    assert result["time"][before].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert result["count"][before].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    after = np.delete(np.arange(len(result)), before)
    count, x = staircase(result["time"][after])
    assert np.array_equal(result["count"][after], count)
    assert np.abs(result["x"] - staircase(result["time"])[1]).max() < 1e-12


@VERSIONS
def test_staircase_co_simulation_stops_substeps_at_the_events(folder, version):
    """Communication points every 0.03 s fall between the event times: count equals floor(t)
    exactly at every point, x to the round-off of 5000 RK4 substeps (1e-11 s)."""
    result = simulate_fmu(
        str(staircase_fmu(folder, version)),
        fmi_type="CoSimulation",
        stop_time=5.0,
        output_interval=0.03,
    )
    count, x = staircase(result["time"])
    assert np.array_equal(result["count"], count)
    assert np.abs(result["x"] - x).max() < 1e-11


@VERSIONS
@pytest.mark.parametrize(
    ("fmi_type", "ask"),
    [("ModelExchange", 0), ("ModelExchange", 1), ("CoSimulation", 0)],
    ids=["ME-update", "ME-after-step", "CS"],
)
def test_staircase_asks_fmpy_to_end_the_run_at_its_limit(folder, version, fmi_type, ask):
    """With limit = 3 FMPy ends the run at t = 3 s: in the event update there, in the next
    completedIntegratorStep (CVode's first step after the event) or in the Co-Simulation step
    that reaches 3 s (FMI 2.0: fmi2Discard, fmi2Terminated, last successful time 3 s)."""
    result = simulate_fmu(
        str(staircase_fmu(folder, version)),
        fmi_type=fmi_type,
        stop_time=5.0,
        output_interval=0.1,
        start_values={"limit": 3.0, "ask": float(ask)},
    )
    assert 3.0 - 1e-9 <= result["time"][-1] <= 3.1
    assert result["count"].max() <= 3.0
