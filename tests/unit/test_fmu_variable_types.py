"""Integer, Boolean and enumeration variables keep their types in our FMUs.

FMI 2.0 declares them ``Integer``/``Boolean``/``Enumeration`` and FMI 3.0
``Int32``/``Boolean``/``Enumeration`` (FMI 2.0 Sec. 2.2.3, FMI 3.0 Sec. 2.4.7.6), enumerations
with their type definitions, all of them discrete (FMI allows continuous variability for Real
variables only), start values in their own syntax; each is read and set through the functions
of its type only (FMI 3.0 enumerations as Int64), a call of another type's function returns
an error status and logs why. ``tests/data/variable_types/TypedLib`` holds a tank whose
level rises at 1 m/s with Boolean, Integer and enumeration outputs decided by relations and an
Integer counter of a when-equation, and a block with Boolean, Integer and enumeration inputs.
Their typed outputs are exact (whole numbers and truth values, compared for equality) away
from the event times by 1e-6 s, the time of the last crossing (Real) is its event time to
1e-8 s; FMPy simulates with CVode at 1e-10, the FMUs' own Dormand-Prince at
1e-9 locates events to 1e-12 s, so every output of a grid point further than 1e-6 s from an
event is the analytic value.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, built_fmus, fmpy_messages
from fmpy import extract, instantiate_fmu, read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException
from fmpy.validation import validate_fmu
from modelica_support import VARIABLE_TYPES

LIBRARY = Path(__file__).parents[1] / "data" / "variable_types" / "TypedLib"
STOP = 2.5
TIMES = np.linspace(0.0, STOP, 251)
MODE = {"Off": 1, "Slow": 2, "Fast": 3}


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("variable_types"))


def _elements(path: Path) -> dict[str, ET.Element]:
    """The variables of an FMU's model description by name: FMI 3.0's typed elements, FMI
    2.0's type element inside each ScalarVariable (with the ScalarVariable's attributes)."""
    with zipfile.ZipFile(path) as archive:
        root = ET.fromstring(archive.read("modelDescription.xml"))
    found = {}
    for element in root.find("ModelVariables"):
        if element.tag == "ScalarVariable":
            typed = element[0]
            typed.attrib.update({k: v for k, v in element.attrib.items() if k != "start"})
            found[element.get("name")] = typed
        else:
            found[element.get("name")] = element
    return found


@pytest.mark.parametrize("variant", ["me", "fmi2"])
def test_model_description_declares_the_types(fmus, variant):
    fmi3 = variant == "me"
    tank, selector = _elements(fmus[(variant, "Tank")]), _elements(fmus[(variant, "Selector")])
    integer = "Int32" if fmi3 else "Integer"
    expected = {
        "high": ("Boolean", None),
        "stage": (integer, None),
        "mode": ("Enumeration", None),
        "crossings": (integer, "0"),
        "lastCrossing": ("Float64" if fmi3 else "Real", "-1.0"),
    }
    for name, (tag, start) in expected.items():
        assert tank[name].tag == tag, name
        assert tank[name].get("variability") == "discrete", name
        assert tank[name].get("start") == start, name
    assert tank["mode"].get("declaredType") == "TypedLib.Mode"
    assert tank["level"].get("variability") == "continuous"
    inputs = {"enable": ("Boolean", "false"), "factor": (integer, "3"), "mode": (None, "1")}
    for name, (tag, start) in inputs.items():
        assert selector[name].tag == (tag or "Enumeration"), name
        assert (selector[name].get("causality"), selector[name].get("start")) == ("input", start)
        assert selector[name].get("variability") == "discrete"
    description = read_model_description(fmus[(variant, "Tank")])
    (mode_type,) = description.typeDefinitions
    assert mode_type.name == "TypedLib.Mode"
    assert {item.name: int(item.value) for item in mode_type.items} == MODE


@pytest.mark.parametrize(("variant", "interface"), VARIANTS)
def test_enumerations_whose_literals_the_model_does_not_name(fmus, variant, interface):
    # the relay names no literal: its types' literals still come with their names and values
    path = fmus[(variant, "Relay")]
    definitions = {t.name: t for t in read_model_description(path).typeDefinitions}
    gears = {"Reverse": 1, "Neutral": 2, "Drive": 3}
    assert {i.name: int(i.value) for i in definitions["TypedLib.Gear"].items} == gears
    assert {i.name: int(i.value) for i in definitions["TypedLib.Mode"].items} == MODE
    result = simulate_fmu(
        str(path),
        fmi_type=interface,
        stop_time=1.0,
        output_interval=0.5,
        output=["gearOut", "modeOut"],
        start_values={"gear": gears["Drive"], "modeIn": MODE["Slow"]},
    )
    assert np.all(result["gearOut"] == gears["Drive"])
    assert np.all(result["modeOut"] == MODE["Slow"])


def test_every_variant_validates(fmus):
    for path in fmus.values():
        assert validate_fmu(str(path)) == [], path


def _away_from_events(times: np.ndarray, events: list[float]) -> np.ndarray:
    return np.all([np.abs(times - e) > 1e-6 for e in events], axis=0)


@pytest.mark.parametrize(("variant", "interface"), VARIANTS)
@pytest.mark.parametrize("first_count", [0, 1])
def test_tank_outputs_are_typed_and_exact(fmus, variant, interface, first_count):
    # level = t; high = t > 0.5; stage = 2 and mode Fast above 1 m, else 1 and Slow; the
    # counter passes a whole metre above its own value + 1: crossings from its start c at
    # t = c + 1, c + 2, ..., lastCrossing the time of the last one (-1 before)
    result = simulate_fmu(
        str(fmus[(variant, "Tank")]),
        fmi_type=interface,
        stop_time=STOP,
        output_interval=TIMES[1] - TIMES[0],
        relative_tolerance=1e-10,
        output=["high", "stage", "mode", "crossings", "lastCrossing"],
        start_values={"crossings": first_count} if first_count else {},
    )
    assert result["high"].dtype == np.bool_
    assert np.issubdtype(result["stage"].dtype, np.integer)
    assert np.issubdtype(result["crossings"].dtype, np.integer)
    assert np.issubdtype(result["mode"].dtype, np.integer)
    t = result["time"]
    kept = _away_from_events(t, [0.5, 1.0, 2.0])
    t = t[kept]
    passed = np.maximum(np.floor(t), first_count)
    expected = {
        "high": t > 0.5,
        "stage": np.where(t > 1, 2, 1),
        "mode": np.where(t > 1, MODE["Fast"], MODE["Slow"]),
        "crossings": passed,
    }
    for name, want in expected.items():
        assert np.array_equal(result[name][kept], want), f"{variant} {interface} {name}"
    # the Real time of the last crossing: its event time, located to 1e-8 s
    last = np.where(passed > first_count, passed, -1.0)
    error = np.max(np.abs(result["lastCrossing"][kept] - last))
    assert error < 1e-8, f"{variant} {interface} lastCrossing off by {error:.1e} s"


@pytest.mark.parametrize(("variant", "interface"), VARIANTS)
@pytest.mark.parametrize(
    ("enable", "factor", "mode", "y"),
    [(True, 4, "Slow", 4.0), (True, 4, "Fast", 8.0), (False, 4, "Fast", 0.0), (True, 5, "Off", 0)],
)
def test_typed_inputs_set_and_read(fmus, variant, interface, enable, factor, mode, y):
    # y = factor * u (u = 2), halved in Slow, 0 unless enabled and not Off
    result = simulate_fmu(
        str(fmus[(variant, "Selector")]),
        fmi_type=interface,
        stop_time=1.0,
        output_interval=0.5,
        output=["y", "passing", "doubled"],
        start_values={"enable": enable, "factor": factor, "mode": MODE[mode], "u": 2.0},
    )
    assert np.all(result["y"] == y)
    assert np.all(result["passing"] == (enable and mode != "Off"))
    assert np.all(result["doubled"] == 2 * factor)


def _instance(path: Path, folder: Path, logger: Callable[..., None]):
    """An FMI instance of ``path`` (Model Exchange) that logs through ``logger``."""
    description = read_model_description(path)
    instance = instantiate_fmu(
        extract(path, unzipdir=folder), description, "ModelExchange", logger=logger
    )
    return instance, {v.name: v.valueReference for v in description.modelVariables}


def test_fmi2_getters_and_setters_of_each_type(fmus, tmp_path):
    with fmpy_messages() as (messages, logger):
        instance, vr = _instance(fmus[("fmi2", "Selector")], tmp_path, logger)
        try:
            instance.setBoolean([vr["enable"]], [True])
            instance.setInteger([vr["factor"], vr["mode"]], [3, MODE["Fast"]])
            instance.setReal([vr["u"]], [1.5])
            instance.enterInitializationMode()
            instance.exitInitializationMode()
            assert instance.getBoolean([vr["passing"]]) == [True]
            assert instance.getInteger([vr["doubled"], vr["mode"]]) == [6, MODE["Fast"]]
            assert instance.getReal([vr["y"]]) == [4.5]
            wrong = [
                (instance.getInteger, [vr["y"]], b"is not of type Integer"),
                (instance.getReal, [vr["passing"]], b"is not of type Real"),
                (instance.getBoolean, [vr["doubled"]], b"is not of type Boolean"),
                (lambda refs: instance.setBoolean(refs, [True]), [vr["factor"]], b"Boolean"),
                (lambda refs: instance.setReal(refs, [1.0]), [vr["enable"]], b"Real"),
            ]
            for call, references, words in wrong:
                messages.clear()
                with pytest.raises(FMICallException):
                    call(references)
                assert any(words in m and str(references[0]).encode() in m for m in messages)
            # a failed set leaves the value as it was
            assert instance.getInteger([vr["factor"]]) == [3]
        finally:
            instance.freeInstance()


def test_fmi3_getters_and_setters_of_each_type(fmus, tmp_path):
    with fmpy_messages() as (messages, logger):
        instance, vr = _instance(fmus[("me", "Selector")], tmp_path, logger)
        try:
            instance.setBoolean([vr["enable"]], [True])
            instance.setInt32([vr["factor"]], [3])
            instance.setInt64([vr["mode"]], [MODE["Slow"]])
            instance.setFloat64([vr["u"]], [1.5])
            instance.enterInitializationMode()
            instance.exitInitializationMode()
            assert instance.getBoolean([vr["passing"]]) == [True]
            assert instance.getInt32([vr["doubled"]]) == [6]
            assert instance.getInt64([vr["mode"]]) == [MODE["Slow"]]
            assert instance.getFloat64([vr["y"]]) == [2.25]
            wrong = [
                (instance.getInt32, [vr["y"]], b"is not of type Int32"),
                (instance.getInt32, [vr["mode"]], b"is not of type Int32"),
                (instance.getInt64, [vr["doubled"]], b"is not of type Int64"),
                (instance.getFloat64, [vr["passing"]], b"is not of type Float64"),
            ]
            for call, references, words in wrong:
                messages.clear()
                with pytest.raises(FMICallException):
                    call(references)
                assert any(words in m and str(references[0]).encode() in m for m in messages)
        finally:
            instance.freeInstance()


def test_construct_table_names_these_tests():
    assert {test for _, test in VARIABLE_TYPES} <= {n for n in globals() if n.startswith("test_")}
