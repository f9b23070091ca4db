"""Integer, Boolean and enumeration parameters in the FMU: structural ones evaluated and not
listed, the others listed as parameters of their type and settable.

``tests/data/typed_parameters/TypedParams``: ``Modes`` holds parameters that only enter
equations (a mode choosing a level, a Boolean gain, an enumeration choosing how a rate
enters, an Integer used as a number, an Integer start value); ``Structural`` holds one per
structural use (an array size, a size passed down to a component, ``Evaluate = true``,
``final``, a conditional component, an if-equation whose branches determine different
variables). The settable ones, set before initialization through FMPy's ``start_values`` and
through fmi2SetInteger/SetBoolean and fmi3SetInt32/SetInt64/SetBoolean directly, change the
outputs as the analytic solution says, to 1e-6 in all four variants (CVode at 1e-10 in FMPy
for Model Exchange, the FMUs' Dormand-Prince at 1e-9 for Co-Simulation; the solution is
exponential decay, so both integrators are well inside that tolerance).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, built_fmus
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave
from fmpy.fmi3 import FMU3Slave
from fmpy.validation import validate_fmu
from modelica_support import TYPED_PARAMETERS

from orchestrator.compiler.structural_parameters import condition_names, structural_parameters
from orchestrator.fmi.log import FMULog

LIBRARY = Path(__file__).parents[1] / "data" / "typed_parameters" / "TypedParams"
TIMES = np.linspace(0.0, 2.0, 21)
DEFAULTS = {"mode": 1, "useGain": True, "law": 1, "nPoles": 2, "n0": 2, "k": 0.5}


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("typed_parameters"))


def modes(p: dict, t: np.ndarray) -> dict[str, np.ndarray]:
    """Outputs of ``Modes`` for parameter values ``p`` at times ``t`` (s): x decays at
    nPoles k (Linear law) or nPoles k^2 (Quadratic) from 1, y = a (3) in mode 2 else b (5),
    z = 2 x with the gain else x, the count grows by 1/s from n0."""
    rate = p["nPoles"] * (p["k"] if p["law"] == 1 else p["k"] ** 2)
    x = np.exp(-rate * t)
    return {
        "y": np.full_like(t, 3.0 if p["mode"] == 2 else 5.0),
        "z": (2.0 if p["useGain"] else 1.0) * x,
        "count": p["n0"] + t,
    }


def test_parameters_that_only_enter_equations_are_listed_with_their_type(fmus):
    want = {
        "mode": ("Integer", "tunable", "1"),
        "useGain": ("Boolean", "tunable", "true"),
        "law": ("Enumeration", "tunable", "1"),
        "nPoles": ("Integer", "tunable", "2"),
        "n0": ("Integer", "fixed", "2"),  # read only by the initial count
    }
    for variant, kind in (("fmi2", "Integer"), ("me", "Int32")):
        variables = {
            v.name: v for v in read_model_description(fmus[(variant, "Modes")]).modelVariables
        }
        for name, (type_name, variability, start) in want.items():
            found = variables[name]
            expected = kind if type_name == "Integer" else type_name
            assert (found.type, found.causality, found.variability) == (
                expected,
                "parameter",
                variability,
            ), f"{variant} {name}"
            assert str(found.start).lower() == start, f"{variant} {name}: {found.start}"
        assert variables["law"].declaredType.name == "TypedParams.Law"


def test_structural_parameters_are_not_listed(fmus):
    # n sizes x, m sizes the decays' array through decays.n = m, order is Evaluate = true,
    # count is final, use_rate makes rate conditional, frozen chooses v = 2 or der(v) = -v,
    # on0 is the start value of a discrete variable (declared as a number)
    for variant in ("me", "fmi2"):
        names = {
            v.name for v in read_model_description(fmus[(variant, "Structural")]).modelVariables
        }
        structural = {"n", "m", "decays.n", "order", "count", "use_rate", "frozen", "on0"}
        assert not names & structural, f"{variant}: {sorted(names & structural)}"
        assert "rate" not in names and "decays.r" in names


def test_structural_parameters_keep_their_values(fmus):
    # y = n order count m (sum of three exp(-t) + sum of exp(-i t) for i = 1, 2), n = 3,
    # order = 2, count = 4, m = 2; the rate is 1 without the input; level 0; on from true
    # to false at 0.55 s (TIMES are 0.1 s apart, off the event)
    t = TIMES
    y = 3 * 2 * 4 * 2 * (3 * np.exp(-t) + np.exp(-t) + np.exp(-2 * t))
    reference = {"y": y, "level": np.zeros_like(t), "on": np.where(t < 0.55, 1.0, 0.0)}
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmus[(variant, "Structural")]),
            fmi_type=interface,
            stop_time=t[-1],
            output_interval=t[1] - t[0],
            relative_tolerance=1e-10,
            output=list(reference),
        )
        for name, want in reference.items():
            error = np.max(np.abs(np.interp(t, result["time"], result[name]) - want))
            assert error < 1e-6, f"{variant} {interface} {name}: {error:.2e}"


@pytest.mark.parametrize(
    "change",
    [{}, {"mode": 2}, {"useGain": False}, {"law": 2}, {"nPoles": 3}, {"n0": 5}],
    ids=["defaults", "mode", "useGain", "law", "nPoles", "n0"],
)
def test_start_values_reach_the_equations(fmus, change):
    values = DEFAULTS | change
    reference = modes(values, TIMES)
    if change:  # every change moves an output, so an ignored set cannot pass
        before = modes(DEFAULTS, TIMES)
        assert max(np.max(np.abs(reference[k] - before[k])) for k in reference) > 0.1
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmus[(variant, "Modes")]),
            fmi_type=interface,
            stop_time=TIMES[-1],
            output_interval=TIMES[1] - TIMES[0],
            relative_tolerance=1e-10,
            output=list(reference),
            start_values=change,
        )
        for name, want in reference.items():
            error = np.max(np.abs(np.interp(TIMES, result["time"], result[name]) - want))
            assert error < 1e-6, f"{variant} {interface} {change} {name}: {error:.2e}"


def _slave(path: Path, folder: Path, log: FMULog) -> tuple[object, dict[str, int]]:
    """A Co-Simulation instance of the FMU at ``path`` logging into ``log``, and its value
    references by name."""
    description = read_model_description(path)
    extract(path, unzipdir=folder)
    kind = FMU2Slave if description.fmiVersion == "2.0" else FMU3Slave
    slave = kind(
        guid=description.guid,
        unzipDirectory=str(folder),
        modelIdentifier=description.coSimulation.modelIdentifier,
        instanceName="typed",
    )
    if kind is FMU2Slave:
        slave.instantiate(callbacks=log.fmi2_callbacks())
    else:
        slave.instantiate(logMessage=log.fmi3_logger())
    return slave, {v.name: v.valueReference for v in description.modelVariables}


@pytest.mark.parametrize("variant", ["fmi2", "fmi3"])
def test_typed_setters_reach_the_equations_and_refuse_a_late_fixed_set(fmus, tmp_path, variant):
    # before initialization: mode 2, no gain, the quadratic law, 3 poles, count from 5 set
    # through the typed setters; after 1 s mode back to 1 (tunable: y follows at once), and
    # n0 (fixed) refused with a message
    values = DEFAULTS | {"mode": 2, "useGain": False, "law": 2, "nPoles": 3, "n0": 5}
    log = FMULog()
    slave, vr = _slave(fmus[(variant, "Modes")], tmp_path, log)
    fmi2 = isinstance(slave, FMU2Slave)
    integers = [vr["mode"], vr["nPoles"], vr["n0"]]
    try:
        if fmi2:
            slave.setInteger(integers + [vr["law"]], [2, 3, 5, 2])
            slave.setBoolean([vr["useGain"]], [False])
            slave.setupExperiment(startTime=0.0)
            slave.enterInitializationMode()
            get = slave.getReal
        else:
            slave.setInt32(integers, [2, 3, 5])
            slave.setInt64([vr["law"]], [2])  # an enumeration (FMI 3.0, Sec. 2.2.6.1)
            slave.setBoolean([vr["useGain"]], [False])
            slave.enterInitializationMode(startTime=0.0)
            get = slave.getFloat64
        slave.exitInitializationMode()
        outputs = ["y", "z", "count"]
        for k in range(10):
            slave.doStep(0.1 * k, 0.1)
        got = dict(zip(outputs, get([vr[o] for o in outputs]), strict=True))
        want = modes(values, np.array([1.0]))
        for name in outputs:
            assert abs(got[name] - want[name][0]) < 1e-6, f"{variant} {name}: {got[name]}"
        (slave.setInteger if fmi2 else slave.setInt32)([vr["mode"]], [1])
        assert get([vr["y"]])[0] == 5.0
        with pytest.raises(FMICallException):
            (slave.setInteger if fmi2 else slave.setInt32)([vr["n0"]], [7])
        assert "is fixed" in log.said()
        slave.terminate()
    finally:
        slave.freeInstance()


@pytest.mark.parametrize("model", ["Modes", "Structural"])
def test_model_descriptions_validate(fmus, model):
    for variant in ("me", "fmi2"):
        assert validate_fmu(str(fmus[(variant, model)])) == [], f"{variant} {model}"


def _ref(name: str) -> dict:
    return {"VarRef": {"name": {"name": name}}}


def _sub(lhs: dict, rhs: dict) -> dict:
    return {"Binary": {"op": "Sub", "lhs": lhs, "rhs": rhs}}


def test_if_equation_determining_other_variables_makes_its_condition_structural():
    # rumoca gives an if-equation it does not resolve as one residual, an if-expression over
    # its branches' residuals: ``if on then a = 1 else b = 1`` determines a or b, which the
    # causalization must know; ``y = if use then x else 0`` determines y either way
    boolean = {"variability": {"Parameter": {}}, "binding": {"Literal": {"value": True}}}
    real = {"variability": "Empty"}
    one = {"Literal": {"value": {"Integer": 1}}}
    flat = {
        "variables": {"on": boolean, "use": boolean, "a": real, "b": real, "x": real, "y": real},
        "variable_type_names": {"on": "Boolean", "use": "Boolean"},
        "equations": [
            {
                "residual": {
                    "If": {
                        "branches": [[_ref("on"), _sub(_ref("a"), one)]],
                        "else_branch": _sub(_ref("b"), one),
                    }
                }
            },
            {
                "residual": _sub(
                    _ref("y"), {"If": {"branches": [[_ref("use"), _ref("x")]], "else_branch": one}}
                )
            },
        ],
    }
    assert structural_parameters(flat, []) == {"on"}
    # a parameter in question whose conditional components cannot be read: all structural
    assert structural_parameters(flat, None) is None


def test_conditional_component_conditions_are_read_from_the_sources():
    text = (
        'model M\n  parameter Boolean use_u = false "u given";\n'
        '  RealInput u if use_u "Input" annotation(Placement());\n'
        "  Real x[2](each start = 0) if not use_x and n > 1;\n"
        "equation\n  if use_y then\n    y = 1;\n  end if; // not a declaration: z if w\n"
        "end M;\n"
    )
    assert condition_names([text]) >= {"use_u", "use_x", "n"}
    assert not condition_names([text]) & {"use_y", "y", "w", "z"}


def test_construct_table_names_these_tests():
    assert {test for _, test in TYPED_PARAMETERS} <= {n for n in globals() if n.startswith("test_")}
