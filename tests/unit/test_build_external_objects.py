"""External objects in our FMUs: tests/data/external_objects/TableLib, an interpolation table
kept in C as the MSL's tables keep theirs (``extends ExternalObject``, constructor and
destructor in C, a function taking the object), with ModelicaUtilities messages and errors.

References are analytic: a table of straight segments read at t is its piecewise-linear
function of t, and its integral the piecewise quadratic one; CVODE at relative tolerance 1e-10
meets them to 1e-6 (the kink at t = 1 is not an event).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import extract, read_model_description
from fmpy.fmi3 import FMU3Model
from test_build_rumoca import TIMES, _failed_run, check

from orchestrator.compiler import build_library

TABLE_LIBRARY = Path(__file__).parents[1] / "data" / "external_objects" / "TableLib"


@pytest.fixture(scope="module")
def table_fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("tablelib")
    built = build_library(TABLE_LIBRARY, out, backend="rumoca", report=lambda _: None)
    return {(p.parent.name if p.parent != out else "me", p.stem): p for p in built}


def ramp(t: np.ndarray, last: float = 3.0) -> np.ndarray:
    """The table [0, 0; 1, 2; 2, last] read at t."""
    return np.where(t <= 1.0, 2.0 * t, 2.0 + (last - 2.0) * (t - 1.0))


def test_external_object_tables_interpolate_in_four_variants(table_fmus):
    # y: the ramp table; z: the falling line [0, 1; 2, -1] (column 2 of a 3-column matrix,
    # the second object of the model); x' = y from 0: t^2, then 1 + 2 (t - 1) + (t - 1)^2 / 2
    late = TIMES - 1.0
    x = np.where(TIMES <= 1.0, TIMES**2, 1.0 + 2.0 * late + late**2 / 2.0)
    check(table_fmus, "Profiles", {"y": ramp(TIMES), "z": 1.0 - TIMES, "x": x})
    # the library "LinearTables" has no prebuilt binary: compiled from its source into the
    # FMU, which ships it with the header the Include names and the runtime
    with zipfile.ZipFile(table_fmus[("me", "Profiles")]) as archive:
        names = set(archive.namelist())
    shipped = {"LinearTables.c", "linear_table.h", "external_runtime.c", "model_external.c"}
    assert {f"sources/{name}" for name in shipped} <= names


def _instance(path: Path, messages: list[str]) -> tuple[FMU3Model, dict[str, int]]:
    """An FMI 3.0 Model Exchange instance of the FMU at ``path`` with logging on, its
    messages appended to ``messages``; its value references by name."""
    md = read_model_description(str(path))
    fmu = FMU3Model(
        guid=md.instantiationToken,
        unzipDirectory=extract(str(path)),
        modelIdentifier=md.modelExchange.modelIdentifier,
        instanceName="tables",
    )
    fmu.instantiate(
        loggingOn=True,
        logMessage=lambda env, status, category, text: messages.append(text.decode()),
    )
    return fmu, {v.name: v.valueReference for v in md.modelVariables}


def test_objects_constructed_once_shared_by_fmu_states_and_destructed_at_reset_and_free(
    table_fmus,
):
    # FMI 3.0 Model Exchange: each table is constructed once (its message through
    # ModelicaFormatMessage to the FMI logger) however often the model is evaluated; an FMU
    # state saved and restored keeps the same objects; reset destructs them, a new table
    # parameter set afterwards reaches the object constructed again; freeInstance destructs
    messages: list[str] = []
    fmu, refs = _instance(table_fmus[("me", "Profiles")], messages)
    y = refs["y"]

    def built() -> tuple[int, int]:
        constructed = sum("constructed" in m for m in messages)
        return constructed, sum("destructed" in m for m in messages)

    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    fmu.enterContinuousTimeMode()
    assert built() == (2, 0)
    values = []
    for t in (0.25, 1.5, 0.75, 1.5):
        fmu.setTime(t)
        values.append(fmu.getFloat64([y])[0])
    assert values == [0.5, 2.5, 1.5, 2.5]
    state = fmu.getFMUState()
    fmu.setTime(0.5)
    assert fmu.getFloat64([y])[0] == 1.0
    fmu.setFMUState(state)
    assert fmu.getFloat64([y])[0] == 2.5
    assert built() == (2, 0)
    assert sorted(m for m in messages if "constructed" in m) == [
        "LinearTable of 2 rows: constructed",
        "LinearTable of 3 rows: constructed",
    ]
    fmu.freeFMUState(state)
    fmu.reset()
    assert built() == (2, 2)
    fmu.setFloat64([refs["ramp[3,2]"]], [5.0])
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    fmu.enterContinuousTimeMode()
    fmu.setTime(1.5)
    assert fmu.getFloat64([y])[0] == ramp(np.array(1.5), last=5.0)
    assert built() == (4, 2)
    fmu.terminate()
    fmu.freeInstance()
    assert built() == (4, 4)


def test_modelica_error_in_c_is_an_error_status_with_its_message(table_fmus):
    # the table [0, 0; 1, 1] without extrapolation read after t = 1: ModelicaFormatError in
    # the C function ends the run with an error status and its message, in each variant; the
    # process goes on (no exit())
    for variant, interface in (("me", "ModelExchange"), ("fmi2", "CoSimulation")):
        said = _failed_run(table_fmus[(variant, "OutOfRange")], interface, "y")
        assert "LinearTable: u = " in said and "outside [0, 1]" in said, said
    messages: list[str] = []
    fmu, refs = _instance(table_fmus[("me", "OutOfRange")], messages)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    fmu.enterContinuousTimeMode()
    fmu.setTime(0.5)
    assert fmu.getFloat64([refs["y"]])[0] == 0.5
    fmu.setTime(1.5)
    with pytest.raises(Exception, match="fmi3GetFloat64 failed"):
        fmu.getFloat64([refs["y"]])
    assert any("u = 1.5 outside [0, 1]" in m for m in messages), messages
    fmu.freeInstance()


def test_when_equation_reads_the_new_values_it_assigns(table_fmus):
    # the MSL's time tables compute their next event and the values that depend on it in one
    # when-equation (Sec. 8.3.5: its equations hold together): next = t_event + 0.7 and
    # doubled = 2 next from next's new value, at t = 0 and then each time t reaches next;
    # with next's old value doubled would lag one event behind (0 at the start); a relation in
    # the body (capped = next if next < 1.5, else 1.5) is evaluated there, on next's new value
    next_time = 0.7 * (np.floor(TIMES / 0.7) + 1.0)
    reference = {"next": next_time, "doubled": 2.0 * next_time}
    check(table_fmus, "NextEvent", reference | {"capped": np.minimum(next_time, 1.5)})
