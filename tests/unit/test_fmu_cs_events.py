"""Events inside the communication steps of our Co-Simulation FMUs, located by their embedded
Dormand-Prince integrator (``orchestrator/compiler/c/model_core.c``), against analytic
instants to 1e-8 s.

``tests/data/cs_events/CSEvents``: an oscillator whose ``x > 0.5`` holds for a third of each
period, so that a communication step holds an upward and a downward crossing; a relation on
time alone that is true for 6.7 ms around instants between the integrator's step ends; a
bouncing ball (reinit); state events at, 5e-13 s after and 5e-13 s before time events; a
sliding mode that switches sides at every event; and UserLib's op-amp multivibrator, whose
nonlinear loop changes root where its indicator crosses, with its switching instants
recorded. The discrete variables ``last``, ``up``, ``down``, ``at1`` ... hold the instant of
the event that set them, so a Co-Simulation run shows each instant at the communication
points after it. Each model runs in the four variants (FMI 3.0 and 2.0, Model Exchange by
FMPy's CVode at 1e-10, Co-Simulation by the FMU at its default solver.tolerance 1e-9), both
held to the same analytic instants: a Model Exchange run is a reference only where it is so
checked. The integrator brackets a crossing to 1e-12 s; what remains is the state's error at
the crossing over the indicator's rate, 1e-9 / (5 pi) s for the oscillator.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, built_fmus
from fmpy import extract, instantiate_fmu, read_model_description, simulate_fmu
from modelica_support import CS_EVENTS

DATA = Path(__file__).parents[1] / "data"
LIBRARY = DATA / "cs_events" / "CSEvents"
INSTANT = 1e-8  # s: an event's instant against the analytic one
VALUE = 1e-6  # a state against the analytic solution
CO_SIMULATION = [(v, i) for v, i in VARIANTS if i == "CoSimulation"]
F_SINE = 5.0  # Hz: FastSine's frequency


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    library_path = [DATA / "modelica_path", DATA / "user_library"]
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("cs_events"), library_path=library_path)


def _run(fmus, model, variant, interface, stop, interval, outputs):
    return simulate_fmu(
        str(fmus[(variant, model)]),
        fmi_type=interface,
        stop_time=stop,
        output_interval=interval,
        relative_tolerance=1e-10,
        output=outputs,
    )


def _at_points(result, name, times):
    """``name`` at ``times``: the value recorded last at each (after an event there)."""
    return np.array(
        [result[name][np.nonzero(np.isclose(result["time"], t, atol=1e-12))[0][-1]] for t in times]
    )


def _count(instants, times):
    """How many of ``instants`` are at or before each of ``times``."""
    return np.searchsorted(instants, times + 1e-12, side="right")


def test_crossing_up_and_down_within_one_communication_step(fmus):
    # x = sin(2 pi 5 t) crosses 0.5 upwards at 1/60 + k/5 s and downwards 1/15 s later; at a
    # communication step of 0.1 s a step holds both crossings of a period, at 1 s ten
    ups = 1.0 / 60.0 + np.arange(10) / F_SINE
    downs = ups + 1.0 / 15.0
    for interval in (0.1, 1.0):
        times = np.linspace(0.0, 2.0, round(2.0 / interval) + 1)
        for variant, interface in VARIANTS:
            label = (variant, interface, interval)
            outputs = ["x", "n", "last", "sum", "downs"]
            result = _run(fmus, "FastSine", variant, interface, 2.0, interval, outputs)
            n = _at_points(result, "n", times).astype(int)
            assert np.array_equal(n, _count(ups, times)), (label, n)
            assert np.array_equal(_at_points(result, "downs", times), _count(downs, times)), label
            seen = n > 0
            error = _at_points(result, "last", times)[seen] - ups[n[seen] - 1]
            assert np.max(np.abs(error)) < INSTANT, (label, error)
            total = _at_points(result, "sum", times)
            expected = np.array([ups[:k].sum() for k in n])
            assert np.max(np.abs(total - expected) / np.maximum(n, 1)) < INSTANT, label
            x = _at_points(result, "x", times)
            assert np.max(np.abs(x - np.sin(2 * math.pi * F_SINE * times))) < VALUE, label


def test_relation_on_time_true_only_between_step_ends(fmus):
    # sin(2 pi 50 t) > 0.5 from 1/600 + k/50 s for 6.7 ms, false at every multiple of 10 ms,
    # where the integrator's steps (solver.max_step 0.01 s, no states to slow them) end: seen
    # at the steps' inner stages. FMPy's Model Exchange run of a model without states checks
    # the indicators only at its output points, so it runs at 1 ms
    ups = 1.0 / 600.0 + np.arange(50) / 50.0
    for variant, interface in VARIANTS:
        interval = 0.1 if interface == "CoSimulation" else 1e-3
        result = _run(fmus, "FastClock", variant, interface, 1.0, interval, ["n", "sum"])
        assert result["n"][-1] == 50, (variant, interface, result["n"][-1])
        assert abs(result["sum"][-1] - ups.sum()) < 50 * INSTANT, (variant, interface)


def _bounces(stop, e=0.8, g=9.81, h0=1.0):
    """The bouncing ball's impact instants before ``stop`` and its velocity after each."""
    instants, speeds = [math.sqrt(2 * h0 / g)], []
    while True:
        speeds.append(e ** len(instants) * g * instants[0])
        following = instants[-1] + 2 * speeds[-1] / g
        if following > stop:
            return np.array(instants), np.array(speeds)
        instants.append(following)


def test_reinit_at_each_bounce(fmus):
    g = 9.81
    instants, speeds = _bounces(3.0)
    times = np.linspace(0.0, 3.0, 31)
    k = _count(instants, times)  # bounces so far
    since = times - np.concatenate([[0.0], instants])[k]
    up = np.concatenate([[0.0], speeds])[k]
    height = np.where(k == 0, 1.0, 0.0) + up * since - 0.5 * g * since**2
    for variant, interface in VARIANTS:
        result = _run(fmus, "BouncingBall", variant, interface, 3.0, 0.1, ["h", "n", "last"])
        assert np.array_equal(_at_points(result, "n", times), k), (variant, interface)
        last = _at_points(result, "last", times)[k > 0]
        assert np.max(np.abs(last - instants[k[k > 0] - 1])) < INSTANT, (variant, interface)
        h = _at_points(result, "h", times)
        assert np.max(np.abs(h - height)) < VALUE, (variant, interface, h - height)


def test_state_events_within_1e_12_s_of_time_events(fmus):
    # samples at 0.05 + 0.1 k s; x = t crosses its three levels (1e-10 past each relation's
    # switching point) at 0.25 s, 0.35 s + 5e-13 s and 0.45 s - 5e-13 s, on time events; at a
    # communication step of 0.05 s all of them are at communication points, at 0.1 s inside
    samples = 0.05 + 0.1 * np.arange(10)
    crossings = {"at1": 0.25, "at2": 0.35 + 5e-13, "at3": 0.45 - 5e-13}
    for interval in (0.1, 0.05):
        times = np.linspace(0.0, 1.0, round(1.0 / interval) + 1)
        count = _count(samples, times)
        for variant, interface in VARIANTS:
            label = (variant, interface, interval)
            outputs = ["samples", "sampleSum", *crossings]
            result = _run(fmus, "SampleAndState", variant, interface, 1.0, interval, outputs)
            assert np.array_equal(_at_points(result, "samples", times), count), label
            total = _at_points(result, "sampleSum", times)
            expected = np.array([samples[:k].sum() for k in count])
            assert np.max(np.abs(total - expected)) < INSTANT, label
            for name, instant in crossings.items():
                got = _at_points(result, name, times)
                assert np.all(got[times < instant - INSTANT] == -1.0), (label, name)
                after = got[times > instant + INSTANT]
                assert np.max(np.abs(after - instant)) < INSTANT, (label, name, after - instant)


def test_chattering_ends_the_step_with_one_line(fmus, capfd):
    # der(x) = -1 above 0, +1 below: from 1 s the relation switches at every event, 2e-10 s
    # apart (1e-10 past the switching point on each side): a Zeno point, not a hang
    for variant, interface in CO_SIMULATION:
        with pytest.raises(Exception, match="DoStep failed"):
            _run(fmus, "Chattering", variant, interface, 2.0, 0.1, ["x"])
        lines = [line for line in capfd.readouterr().out.splitlines() if "doStep" in line]
        assert len(lines) == 1, (variant, lines)
        assert re.search(
            r"doStep: 100 events in a row less than 1e-08 s apart up to t = 1\.00000002\d* s: "
            r"the model chatters \(switches back at each event\)$",
            lines[0],
        ), (variant, lines)


def _slave(fmus, variant, model):
    """A Co-Simulation instance of ``model`` initialized at 0 s, and its reader by name."""
    path = fmus[(variant, model)]
    description = read_model_description(path)
    fmu = instantiate_fmu(extract(path), description, fmi_type="CoSimulation")
    if variant == "fmi2":
        fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    refs = {v.name: v.valueReference for v in description.modelVariables}
    get = fmu.getReal if variant == "fmi2" else fmu.getFloat64
    return fmu, lambda names: get([refs[n] for n in names])


def test_do_step_of_size_zero_and_much_larger_than_the_event_spacing(fmus):
    names = ["x", "y", "n", "downs", "last", "sum"]
    ups = 1.0 / 60.0 + np.arange(10) / F_SINE
    for variant, _ in CO_SIMULATION:
        plain, read_plain = _slave(fmus, variant, "FastSine")
        zeros, read_zeros = _slave(fmus, variant, "FastSine")
        for k in range(20):  # a step of size 0 before and after each: the same values, bit for bit
            t = 0.1 * k
            zeros.doStep(t, 0.0)
            zeros.doStep(t, 0.1)
            zeros.doStep(t + 0.1, 0.0)
            plain.doStep(t, 0.1)
            assert read_zeros(names) == read_plain(names), (variant, t)
        whole, read_whole = _slave(fmus, variant, "FastSine")
        whole.doStep(0.0, 2.0)  # 20 crossings in one step
        x, y, n, downs, last, total = read_whole(names)
        assert (n, downs) == (10, 10), variant
        assert abs(last - ups[-1]) < INSTANT and abs(total - ups.sum()) < 10 * INSTANT, variant
        phase = 2 * math.pi * F_SINE * 2.0
        assert abs(x - math.sin(phase)) < VALUE and abs(y - math.cos(phase)) < VALUE, variant
        for fmu in (plain, zeros, whole):
            fmu.terminate()
            fmu.freeInstance()


def test_steps_without_events_as_without_indicators(fmus):
    """Until its first event (1/60 s) FastSine's oscillator takes the same steps, bit for bit,
    as the same oscillator without relations: the indicators checked at each stage do not
    change a step in which nothing crosses."""
    for variant, interface in CO_SIMULATION:
        with_events = _run(fmus, "FastSine", variant, interface, 0.016, 1e-3, ["x", "y"])
        alone = _run(fmus, "Sine", variant, interface, 0.016, 1e-3, ["x", "y"])
        for name in ("x", "y"):
            assert np.array_equal(with_events[name], alone[name]), (variant, name)


def test_multivibrator_switches_in_co_simulation(fmus):
    # UserLib's multivibrator (test_build_schmitt_trigger.py): the capacitor (tau = 2 s) from
    # 0 V towards +15 V switches the output where it reaches 12 V - 1 mV, the root the loop
    # was on ending there, then towards -15 V down to -(12 V - 1 mV), and so on. Before the
    # stages were checked, the embedded integrator slid along the first threshold
    supply, tau = 15.0, 2.0
    threshold = 0.8 * supply - supply / 15000.0
    down = -tau * math.log(1.0 - threshold / supply)  # 3.22 s
    up = down + tau * math.log((supply + threshold) / (supply - threshold))  # 7.61 s
    times = np.linspace(0.0, 10.0, 41)
    segment = _count(np.array([down, up]), times)
    target = supply * (-1.0) ** segment
    start = np.array([0.0, threshold, -threshold])[segment]
    since = times - np.array([0.0, down, up])[segment]
    expected = target + (start - target) * np.exp(-since / tau)
    for variant, interface in VARIANTS:
        outputs = ["v_c", "down", "up"]
        result = _run(fmus, "MultivibratorSwitches", variant, interface, 10.0, 0.25, outputs)
        label = (variant, interface)
        assert abs(result["down"][-1] - down) < INSTANT, (label, result["down"][-1] - down)
        assert abs(result["up"][-1] - up) < INSTANT, (label, result["up"][-1] - up)
        v_c = _at_points(result, "v_c", times)
        assert np.max(np.abs(v_c - expected)) < VALUE, (label, v_c - expected)


def test_construct_table_names_these_tests():
    assert {test for _, _, test in CS_EVENTS} <= {n for n in globals() if n.startswith("test_")}
