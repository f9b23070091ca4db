"""The master's compiled ticks (``orchestrator.master.ticks``) against its Python loop: the same
rows bit for bit, the same events and counters, on runs where the compiled ticks make most
ticks (asserted) and hand back to Python for what they do not make: recording points, a
Python controller's samples, samples that read the bodies' accelerations, failing members,
FMU time events and an FMU's request to end the run after a step, with both compiled
integrators (RK4, and Dormand-Prince, which steps across recording points)."""

from __future__ import annotations

import ctypes
import tomllib
from pathlib import Path

import numpy as np
import pytest
import tomli_w
from conftest import ROOT
from event_fmus import staircase_fmu

from orchestrator.master import ticks
from orchestrator.master.master import Master
from orchestrator.recording.tables import read_events, read_timeseries
from orchestrator.runner.breadcrumbs import NAMES_BYTES, Breadcrumbs
from orchestrator.runner.run import run_scenario

PD_GAINS = {"kp": [300.0, 500.0, 300.0, 300.0, 300.0, 300.0], "kd": [100.0] * 6}


def spiral(stop: float, **changes: object) -> dict:
    """uvms_spiral to ``stop`` (s) with ``changes`` of its tables (merged one level deep)."""
    document = tomllib.loads((ROOT / "scenarios" / "uvms_spiral.toml").read_text())
    document["simulation"]["stop_time"] = stop
    for table, values in changes.items():
        document.setdefault(table, {}).update(values)
    return document


def vehicle(stop: float, solver: str, staircase: Path | None = None, rows: float = 0.05) -> dict:
    """A BlueROV2 Heavy under the compiled vehicle PD and pseudo-inverse allocation every
    10 ms, rows every ``rows`` s; with ``staircase``, that FMU alongside (time events at 1, 2,
    ... s; the run ends after the first step past 3 s)."""
    thrusters = {f"t{k}": {"fmu": "Thruster", "mount": "rov", "slot": k} for k in range(1, 9)}
    components = {"rov": {"fmu": "BlueROV2Heavy", "start": {"nu[1]": 0.2}}, **thrusters}
    if staircase is not None:
        components["it"] = {"fmu": staircase.as_posix(), "parameters": {"limit": 3, "ask": 1}}
    return {
        "simulation": {"stop_time": stop, "output_interval": rows, "solver": solver, "step": 0.01},
        "components": components,
        "controllers": {
            "pd": {
                "type": "vehicle_pd",
                "sample_time": 0.01,
                "vehicle": "rov",
                **PD_GAINS,
                "reference": {"x": [{"slope": 0.2}], "z": [{"offset": 1.0}]},
            },
            "allocation": {
                "type": "thrust_allocation",
                "sample_time": 0.01,
                "vehicle": "rov",
                "command": "pd.tau",
                "method": "pseudo_inverse",
            },
        },
    }


def both_ways(document: dict, tmp_path: Path, fmu_dir: Path, monkeypatch, **options) -> tuple:
    """Run ``document`` with the compiled ticks and with the Python loop alone (``options``:
    of ``run_scenario``, a dict by compiled or not where they differ); the two results and the
    number of ticks the compiled ones made."""
    path = tmp_path / "scenario.toml"
    path.write_text(tomli_w.dumps(document))
    made = []
    run = ticks.CompiledTicks.run

    def counted(self, index, bound, x):
        reached, x = run(self, index, bound, x)
        made.append(reached - index)
        return reached, x

    monkeypatch.setattr(ticks.CompiledTicks, "run", counted)
    results = {}
    for compiled in (True, False):
        monkeypatch.setattr(Master, "compiled_ticks", compiled)
        out = tmp_path / ("compiled" if compiled else "python")
        given = {k: v[compiled] if isinstance(v, dict) else v for k, v in options.items()}
        results[compiled] = run_scenario(path, out, fmu_dir, plots=False, **given)
    return results[True], results[False], sum(made)


def assert_same(compiled, python) -> None:
    """Every recorded column bit for bit, the events (the stop row's wall time aside) and the
    run's counters equal."""
    assert compiled.columns == python.columns
    rows = [read_timeseries(r.timeseries) for r in (compiled, python)]
    assert list(rows[0]) == list(rows[1])
    for column in rows[0]:
        np.testing.assert_array_equal(rows[0][column], rows[1][column], err_msg=column)
    events = [read_events(r.events) for r in (compiled, python)]
    for rows in events:
        rows[-1]["detail"] = rows[-1]["detail"].rsplit(",", 1)[0]  # without the wall time
    assert events[0] == events[1]
    for counter in ("rhs_evaluations", "controller_samples", "controller_faults"):
        assert getattr(compiled.statistics, counter) == getattr(python.statistics, counter)
    np.testing.assert_array_equal(compiled.final_state, python.final_state)


def test_spiral_ticks_compiled_as_the_python_loop(tmp_path, fmu_dir, monkeypatch):
    """uvms_spiral for 0.5 s (RK4, joints with motors, three compiled controllers every 2 ms
    step): all ticks but the 11 recording points compiled, the run bit for bit the same."""
    compiled, python, made = both_ways(spiral(0.5), tmp_path, fmu_dir, monkeypatch)
    assert made == 250 - 10
    assert compiled.statistics.controller_samples == 3 * 251
    assert_same(compiled, python)


def test_breadcrumbs_and_progress_left_at_every_compiled_tick(tmp_path, fmu_dir, monkeypatch):
    """A supervised run's breadcrumbs (time, macro steps, evaluations, the last FMI call) and
    the progress bar do not stop the compiled ticks: the breadcrumbs end as the Python loop
    leaves them, one macro step per tick."""
    crumbs = {
        c: Breadcrumbs((ctypes.c_double * 6)(), (ctypes.c_char * NAMES_BYTES)())
        for c in (True, False)
    }
    compiled, python, made = both_ways(
        spiral(0.3),
        tmp_path,
        fmu_dir,
        monkeypatch,
        breadcrumbs=crumbs,
        progress=True,
    )
    assert made == 150 - 6
    assert list(crumbs[True].values) == list(crumbs[False].values)
    assert crumbs[True].steps() == 151 and crumbs[True].time() == 0.3
    assert_same(compiled, python)


def test_ticks_stop_for_python_samples_and_failing_members(tmp_path, fmu_dir, monkeypatch):
    """The spiral with an IMU on the vehicle every 10 ms (a Python controller reading the
    constrained accelerations) and arm 1's circle out of reach (the joint PID fails at every
    sample: a fault row each, logged from the compiled ticks): the same rows and events."""
    document = spiral(0.2)
    document["controllers"]["imu"] = {"type": "imu", "vehicle": "rov", "sample_time": 0.01}
    arm = document["controllers"]["joints"]["targets"]["arm1"]
    arm["x"] = [{"offset": 0.74, "amplitude": 0.08, "period": 5.0}]
    document["record"] = ["rov.p*", "imu.*", "joints.*", "arm1_q1.*"]
    compiled, python, made = both_ways(document, tmp_path, fmu_dir, monkeypatch)
    assert made == 100 - 20  # the IMU's samples made in Python
    faults = [e for e in read_events(compiled.events) if e["event"] == "controller_fault"]
    assert len(faults) == 101
    assert_same(compiled, python)


@pytest.mark.parametrize("budget", [{"wall_time_limit": 60.0}, {"step_limit": 10**6}])
def test_budgets_keep_every_tick_in_python(tmp_path, fmu_dir, monkeypatch, budget):
    """A wall-time or step limit is checked at every tick, as in the Python loop: no tick is
    compiled, and the run is the same."""
    document = vehicle(0.5, "RK4")
    document["simulation"].update(budget)
    compiled, python, made = both_ways(document, tmp_path, fmu_dir, monkeypatch)
    assert made == 0
    assert_same(compiled, python)


@pytest.mark.parametrize("solver", ["RK4", "RK45"])
def test_vehicle_ticks_compiled_with_either_integrator(tmp_path, fmu_dir, monkeypatch, solver):
    """A vehicle under the compiled PD and allocation every 10 ms, rows every 50 ms, no joints
    (Dormand-Prince steps across recording points there, not across samples): all ticks but
    the recording points compiled."""
    compiled, python, made = both_ways(vehicle(2.0, solver), tmp_path, fmu_dir, monkeypatch)
    assert made == 200 - 40
    assert_same(compiled, python)


@pytest.mark.parametrize("solver", ["RK4", "RK45"])
def test_time_events_and_a_request_to_end_after_a_step(tmp_path, fmu_dir, monkeypatch, solver):
    """The vehicle with the staircase FMU alongside, rows every 70 ms: its time events at 1, 2
    and 3 s (the compiled ticks leave the intervals that hold one to Python) and its request
    to end the run after the first step past 3 s (3 s is no recording point: that step is the
    compiled ticks', the strategy finishes it): the same rows, the same ``time_event`` and
    ``terminated`` rows."""
    (tmp_path / "fmu").mkdir()
    staircase = staircase_fmu(tmp_path / "fmu", "3.0")
    flagged = []
    finish = ticks.CompiledTicks._flags

    def counted(self, tick, jump, reached, flags):
        flagged.append((tick, flags & 3))  # the bits above: the instance
        finish(self, tick, jump, reached, flags)

    monkeypatch.setattr(ticks.CompiledTicks, "_flags", counted)
    document = vehicle(5.0, solver, staircase, rows=0.07)
    compiled, python, made = both_ways(document, tmp_path, fmu_dir, monkeypatch)
    assert made > 0
    assert flagged == [(300, 2)]  # terminate (flag 2), in the step from 3 s
    events = [e["event"] for e in read_events(compiled.events)]
    assert events.count("time_event") == 3
    assert events[-2:] == ["terminated", "stop"]
    assert_same(compiled, python)
