"""Time tables that keep their event interval themselves, as the MSL's CombiTimeTable does:
tests/data/time_tables/TimeTableLib, a table in C (an external object) whose current segment
moves on at each call of its ``nextTimeEvent`` at a later time, read in MSL's style by a block
with ``when {time >= pre(nextEvent), initial()} then nextEvent = nextTimeEvent(tableID,
time)``, drives a mass; a clock (``sample``) makes events between the table's rows.

A when-equation's body is evaluated only when its branch fires (Modelica Language
Specification 3.6, Sec. 8.3.5): the table's ``nextTimeEvent`` must not be called at the
clock's events, or the table moves to a segment the model's time has not reached (before,
the force took its next row's value at the first tick, 0.125 s, and the mass moved backwards).

References are analytic: the force is the table read by hand (ConstantSegments: 1, -2, 0.5 N;
LinearSegments: 2t, -1 + 4 (t - 1), 1 N, with a jump at 1 s), integrated in closed form for
the velocity and position of the 2 kg mass; CVODE at relative tolerance 1e-10 meets them to
1e-6. The table's events are state events of ``time >= pre(nextEvent)``, located where the
relation's indicator crosses zero, 1e-10 s past the row (the relation's hysteresis): the event
times are held to the rows to 1e-8 s.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, assert_agrees_in_four_variants, built_fmus
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi2 import FMU2Slave
from fmpy.fmi3 import FMU3Slave
from modelica_support import TIME_TABLES

LIBRARY = Path(__file__).parents[1] / "data" / "time_tables" / "TimeTableLib"
MASS = 2.0  # kg
TIMES = np.linspace(0.0, 2.0, 17)  # s: the clock ticks at 0.125 + 0.25 k, between the rows
# (start s, force there N, its slope N/s) of each segment, the last one open
SEGMENTS = {
    "DrivenMass": [(0.0, 1.0, 0.0), (1.0, -2.0, 0.0), (1.5, 0.5, 0.0)],
    "DrivenMassLinear": [(0.0, 0.0, 2.0), (1.0, -1.0, 4.0), (1.5, 1.0, 0.0)],
}
ROWS = (1.0, 1.5)  # s: the table's events before 2 s


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("timetables"))


def driven(t: np.ndarray, segments: list[tuple[float, float, float]]) -> dict[str, np.ndarray]:
    """Velocity and position of the mass, from rest at 0, under the piecewise-linear force of
    ``segments``, in closed form."""
    v, x = np.zeros_like(t), np.zeros_like(t)
    v_start = x_start = 0.0
    ends = [s[0] for s in segments[1:]] + [np.inf]
    for (start, force, slope), end in zip(segments, ends, strict=True):
        inside = (t >= start) & (t < end)
        h = t[inside] - start
        v[inside] = v_start + (force * h + slope * h**2 / 2) / MASS
        x[inside] = x_start + v_start * h + (force * h**2 / 2 + slope * h**3 / 6) / MASS
        if np.isfinite(end):
            h = end - start
            x_start += v_start * h + (force * h**2 / 2 + slope * h**3 / 6) / MASS
            v_start += (force * h + slope * h**2 / 2) / MASS
    return {"v": v, "x": x}


def force(t: np.ndarray, segments: list[tuple[float, float, float]]) -> np.ndarray:
    """The force of ``segments`` at ``t`` (N)."""
    index = np.searchsorted([s[0] for s in segments], t, side="right") - 1
    start, value, slope = (np.array([s[k] for s in segments])[index] for k in range(3))
    return value + slope * (t - start)


@pytest.mark.parametrize("model", sorted(SEGMENTS))
def test_time_table_drives_a_mass_in_four_variants(fmus, model):
    reference = driven(TIMES, SEGMENTS[model])
    assert_agrees_in_four_variants(lambda variant: fmus[(variant, model)], reference, TIMES, model)


@pytest.mark.parametrize("model", sorted(SEGMENTS))
def test_time_table_events_at_its_rows_and_not_at_the_clock(fmus, model):
    # between events the force is the table's, and its events are at the rows, to 1e-8 s
    middles = np.array([0.6, 1.3, 1.8])  # s: inside each segment, after a clock tick
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmus[(variant, model)]),
            fmi_type=interface,
            stop_time=2.0,
            output_interval=0.1,
            relative_tolerance=1e-10,
            output=["force.y", "eventTime", "ticks", "force.nextEvent"],
        )
        t = result["time"]
        label = f"{model} {variant} {interface}"
        got = np.interp(middles, t, result["force.y"])
        assert np.max(np.abs(got - force(middles, SEGMENTS[model]))) < 1e-9, label
        assert result["ticks"][-1] == 8, label  # the clock's events did happen
        for row, after in zip(ROWS, (1.3, 1.8), strict=True):
            at = result["eventTime"][np.searchsorted(t, after)]
            assert abs(at - row) < 1e-8, f"{label}: event at {at!r} s, row at {row} s"
        assert result["force.nextEvent"][-1] == 4.0, label  # the last row, still ahead


def _co_simulation(path: Path, version: str) -> tuple[object, dict[str, int]]:
    """An initialized Co-Simulation instance (FMI ``version`` "2" or "3") of the FMU at
    ``path`` at time 0, and its value references by name."""
    md = read_model_description(str(path))
    common = dict(
        unzipDirectory=extract(str(path)),
        modelIdentifier=md.coSimulation.modelIdentifier,
        instanceName="table",
    )
    if version == "2":
        fmu = FMU2Slave(guid=md.guid, **common)
        fmu.instantiate()
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
    else:
        fmu = FMU3Slave(guid=md.instantiationToken, **common)
        fmu.instantiate()
        fmu.enterInitializationMode(startTime=0.0)
    fmu.exitInitializationMode()
    return fmu, {v.name: v.valueReference for v in md.modelVariables}


@pytest.mark.parametrize("version", ["2", "3"])
def test_restored_fmu_state_gives_the_table_its_segment_again(fmus, version):
    # Co-Simulation to 0.5 s, the state saved, on to 2 s (the table moves through its rows),
    # the state restored and on to 1.25 s again: the force and the motion are the first
    # run's, bit for bit, and the closed form's. Without the table meeting the restored time
    # it held the segment of 2 s (0.5 N) until its next event, and the mass moved on wrongly.
    path = fmus[("fmi2" if version == "2" else "fmi3", "DrivenMass")]
    fmu, refs = _co_simulation(path, version)
    names = ["x", "v", "force.y"]
    get = fmu.getReal if version == "2" else fmu.getFloat64

    def run(t: float, end: float) -> tuple[float, list[float]]:
        while t < end - 1e-12:
            fmu.doStep(t, 0.125)
            t += 0.125
        return t, list(get([refs[n] for n in names]))

    t, _ = run(0.0, 0.5)
    saved = fmu.getFMUstate() if version == "2" else fmu.getFMUState()
    _, first = run(t, 1.25)
    run(1.25, 2.0)
    if version == "2":
        fmu.setFMUstate(saved)
    else:
        fmu.setFMUState(saved)
    _, again = run(t, 1.25)
    fmu.terminate()
    fmu.freeInstance()
    assert again == first
    expected = driven(np.array([1.25]), SEGMENTS["DrivenMass"])
    assert abs(again[0] - expected["x"][0]) < 1e-6 and abs(again[1] - expected["v"][0]) < 1e-6
    assert again[2] == -2.0


def test_construct_table_names_these_tests():
    assert {test for _, test in TIME_TABLES} <= {n for n in globals() if n.startswith("test_")}
