"""No ignored setting: every variable an FMU lists as settable changes its behaviour as the
physics says, and what a set could not change is not listed as settable.

FMI 2.0 (Sec. 2.2.7) and FMI 3.0 (Sec. 2.4.7.4) let an importer set, before initialization,
every parameter (causality ``parameter``, variability ``fixed`` or ``tunable``) and every
variable with ``initial = "exact"`` or ``"approx"``; a set the FMU then ignores is a silently
wrong result. ``tests/data/parameter_settings/ParamLib`` holds one small model per way a
parameter reaches the equations: bindings over other parameters, protected parameters, start
values bound to parameters, ``final`` modifications copying an outer parameter, record fields
passed down and modified, ``fixed = false`` parameters (without a binding, from initial
equations; with one, its binding the initial equation), structural parameters (an Integer
sizing an array, Boolean, enumeration and Real ones marked ``Evaluate = true``, String),
parameters of time events and relations (Integer, Boolean and enumeration parameters that only
enter equations are settable: ``test_build_typed_parameters.py``).

The test is a property of the class: for each model, the names FMPy finds settable are
exactly those its analytic solution takes as arguments (so structural, protected, dependent
and computed parameters are not listed), and for each of them, set alone to another value
through ``fmpy.simulate_fmu(start_values=...)``, every output agrees with the analytic
solution at the new value to 1e-6 in all four variants (FMI 3.0 and 2.0, Model Exchange and
Co-Simulation; CVode at 1e-10 in FMPy, the FMUs' Dormand-Prince at 1e-9), away from event
times by 1e-6 s where an output jumps (there the values are exact, so the tolerance holds).
Each new value moves some output by more than 1e-3, so an ignored set cannot pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, built_fmus
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Model, FMU2Slave
from fmpy.fmi3 import FMU3Model, FMU3Slave
from modelica_support import PARAMETER_SETTINGS

from orchestrator.fmi.log import FMULog

LIBRARY = Path(__file__).parents[1] / "data" / "parameter_settings" / "ParamLib"
STOP = 2.0
TIMES = np.linspace(0.0, STOP, 201)


@dataclass(frozen=True)
class Case:
    """A model's settable variables with their defaults, its analytic outputs at times ``t``
    for given values, and the times an output jumps (s) for given values."""

    defaults: dict[str, float]
    outputs: Callable[[dict[str, float], np.ndarray], dict[str, np.ndarray]]
    edges: Callable[[dict[str, float]], list[float]] = lambda _: []


def _oscillation(s0: float, v0: float, m: float, c: float, t: np.ndarray) -> np.ndarray:
    """Extension of an undamped mass m on a spring c from s0, v0 (m, m/s, kg, N/m, s)."""
    w = math.sqrt(c / m)
    return s0 * np.cos(w * t) + v0 / w * np.sin(w * t)


def _bindings(p: dict[str, float], t: np.ndarray) -> dict[str, np.ndarray]:
    # x' = -2 k x from x0; y = 3 x + 3 x0 (gain and offset protected)
    x = p["x0"] * np.exp(-2.0 * p["k"] * t)
    return {"x": x, "y": 3.0 * x + 3.0 * p["x0"]}


def _final_copy(p: dict[str, float], t: np.ndarray) -> dict[str, np.ndarray]:
    # two ramps of slope k from t0 (n = 2, structural), ending at t0 + 10 s
    k, t0 = p["src.k"], p["src.t0"]
    return {"y": np.where((t > t0) & (t < t0 + 10.0), 2.0 * k * (t - t0), 0.0)}


def _record_fields(p: dict[str, float], t: np.ndarray) -> dict[str, np.ndarray]:
    s = _oscillation(p["osc.s0"], p["osc.v"], p["body.m"], p["body.c"], t)
    r = _oscillation(p["other.s0"], p["other.v"], p["other.data.m"], p["other.data.c"], t)
    return {"s": s, "r": r}


def _initial_equations(p: dict[str, float], t: np.ndarray) -> dict[str, np.ndarray]:
    # x' = -a x + b + t, x(0) = x_ss, x'(0) = 0, so b = a x_ss and
    # x = x_ss + t/a - (1 - exp(-a t))/a^2
    a, x_ss = p["a"], p["x_ss"]
    x = x_ss + t / a - (1.0 - np.exp(-a * t)) / a**2
    return {"x": x, "held": np.full_like(t, a * x_ss)}


def _fixed_false_binding(p: dict[str, float], t: np.ndarray) -> dict[str, np.ndarray]:
    return {"y": _oscillation(p["s"], p["v"], p["m"], p["c"], t)}


def _structural(p: dict[str, float], t: np.ndarray) -> dict[str, np.ndarray]:
    # x[i]' = -(d i + k) x[i] with d = 0.5 (Evaluate = true), damping on, the linear law
    return {"y": sum(p[f"x[{i}]"] * np.exp(-(0.5 * i + p["k"]) * t) for i in (1, 2, 3))}


def _sample_times(p: dict[str, float]) -> list[float]:
    return [p["t0"] + j * p["period"] for j in range(int(STOP / p["period"]) + 2)]


def _events(p: dict[str, float], t: np.ndarray) -> dict[str, np.ndarray]:
    # samples at t0 + j period (the first at t0 > 0), the step at the level time
    taken = np.where(t >= p["t0"], np.floor((t - p["t0"]) / p["period"] + 1e-12) + 1.0, 0.0)
    return {"count": p["n"] + taken, "step": np.where(t > p["level"], 1.0, 0.0)}


def _discrete_in_init(p: dict[str, float], t: np.ndarray) -> dict[str, np.ndarray]:
    # x(0) = n(0) = 2, x' = -rate x; a sample each second from 1 s
    count = 2.0 + np.where(t >= 1.0, np.floor(t + 1e-12), 0.0)
    return {"x": 2.0 * np.exp(-p["rate"] * t), "count": count}


CASES = {
    "Bindings": Case({"k": 1.0, "x0": 2.0}, _bindings),
    "FinalCopy": Case(
        {"src.k": 3.0, "src.t0": 0.5}, _final_copy, lambda p: [p["src.t0"], p["src.t0"] + 10]
    ),
    "RecordFields": Case(
        {
            "body.m": 1.0,
            "body.c": 8.0,
            "osc.s0": 0.5,
            "osc.v": 0.0,
            "other.data.m": 2.0,
            "other.data.c": 4.0,
            "other.s0": 1.0,
            "other.v": 0.0,
        },
        _record_fields,
    ),
    "InitialEquations": Case({"a": 2.0, "x_ss": 3.0}, _initial_equations),
    "FixedFalseBinding": Case({"c": 20.0, "m": 1.0, "s": 1.0, "v": 0.0}, _fixed_false_binding),
    "Structural": Case({"k": 2.0, "x[1]": 1.0, "x[2]": 1.0, "x[3]": 1.0}, _structural),
    "Events": Case(
        {"t0": 0.1, "period": 0.3, "level": 0.55, "n": 0.0},
        _events,
        lambda p: [*_sample_times(p), p["level"]],
    ),
    "DiscreteInInit": Case({"rate": 1.0}, _discrete_in_init, lambda _: [1.0, 2.0]),
}


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("parameter_settings"))


def settable(path: Path) -> dict[str, float]:
    """The variables an importer may set before initialization, with their start values:
    parameters (the solver's aside) and variables with an exact or approximate start."""
    return {
        v.name: float(v.start)
        for v in read_model_description(path).modelVariables
        if (v.causality == "parameter" and not v.name.startswith("solver."))
        or (v.causality in ("local", "output") and v.initial in ("exact", "approx"))
    }


def moved(value: float) -> float:
    """Another value of a parameter: positive where it was, never equal to it."""
    return 1.5 * value + 0.25


def away_from_edges(times: np.ndarray, edges: list[float]) -> np.ndarray:
    """The indices of ``times`` farther than 1e-6 s from every edge."""
    if not edges:
        return np.arange(len(times))
    distance = np.min(np.abs(times[:, None] - np.asarray(edges)[None, :]), axis=1)
    return np.flatnonzero(distance > 1e-6)


@pytest.mark.parametrize("model", sorted(CASES))
def test_every_settable_variable_takes_effect(fmus, model):
    case = CASES[model]
    for variant, interface in VARIANTS:
        path = fmus[(variant, model)]
        listed = settable(path)
        assert listed == case.defaults, f"{model} {variant}: settable {listed}"
        for name in [None, *listed]:
            values = dict(case.defaults)
            if name is not None:
                values[name] = moved(values[name])
                before = case.outputs(case.defaults, TIMES)
                after = case.outputs(values, TIMES)
                change = max(np.max(np.abs(after[k] - before[k])) for k in after)
                assert change > 1e-3, f"{model}: {name} moves no output"
            result = simulate_fmu(
                str(path),
                fmi_type=interface,
                stop_time=STOP,
                output_interval=TIMES[1] - TIMES[0],
                relative_tolerance=1e-10,
                output=list(case.outputs(values, TIMES[:1])),
                start_values={name: values[name]} if name is not None else {},
            )
            times = result["time"]
            kept = away_from_edges(times, case.edges(values))
            expected = case.outputs(values, times[kept])
            for output, want in expected.items():
                error = np.max(np.abs(result[output][kept] - want))
                assert error < 1e-6, (
                    f"{model} {variant} {interface}: {name} = {values.get(name)}: "
                    f"{output} off by {error:.2e}"
                )


def _instance(path: Path, unzipped: Path, log: FMULog, co_simulation: bool = False):
    """An instance of the FMU at ``path`` (Model Exchange or Co-Simulation) logging into
    ``log``, with its getter and setter of Float64 (FMI 3.0) or Real (FMI 2.0) values."""
    description = read_model_description(path)
    extract(path, unzipdir=unzipped)
    fmi2 = description.fmiVersion == "2.0"
    interface = description.coSimulation if co_simulation else description.modelExchange
    kind = {(True, False): FMU2Model, (True, True): FMU2Slave}.get((fmi2, co_simulation))
    kind = kind or (FMU3Slave if co_simulation else FMU3Model)
    instance = kind(
        guid=description.guid,
        unzipDirectory=str(unzipped),
        modelIdentifier=interface.modelIdentifier,
        instanceName="probe",
    )
    if fmi2:
        instance.instantiate(callbacks=log.fmi2_callbacks())
        return instance, instance.getReal, instance.setReal
    instance.instantiate(logMessage=log.fmi3_logger())
    return instance, instance.getFloat64, instance.setFloat64


@pytest.mark.parametrize("variant", ["me", "fmi2"])
@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("InitialEquations", "b"),
        ("Bindings", "rate"),
        ("FinalCopy", "src.ramp.k"),
        ("DiscreteInInit", "n"),
    ],
)
def test_a_set_of_what_is_not_settable_is_an_error(fmus, tmp_path, variant, model, name):
    # a parameter computed at initialization (b), one bound to another (rate), a final copy
    # (src.ramp.k), a discrete start the initial system is built with (n): listed, not
    # settable; a set returns an error status and logs why
    path = fmus[(variant, model)]
    variable = next(v for v in read_model_description(path).modelVariables if v.name == name)
    assert variable.causality != "parameter" and variable.initial not in ("exact", "approx")
    log = FMULog()
    instance, _, put = _instance(path, tmp_path, log)
    try:
        with pytest.raises(FMICallException):
            put([variable.valueReference], [1.0])
    finally:
        instance.freeInstance()
    assert f"value reference {variable.valueReference} cannot be set" in log.said()


SWITCH_TIMES = np.linspace(0.0, STOP, 41)


def _co_simulation(path: Path, unzipped: Path, outputs: list[str], change: dict | None):
    """The ``outputs`` (name -> values at SWITCH_TIMES) of a Co-Simulation run of the FMU at
    ``path`` in steps of 0.05 s, with ``change`` (value reference -> value) set at 1 s, read
    after the set; and what the FMU said where that set failed, else None."""
    vrs = {v.name: v.valueReference for v in read_model_description(path).modelVariables}
    log = FMULog()
    slave, get, put = _instance(path, unzipped, log, co_simulation=True)
    if isinstance(slave, FMU2Slave):
        slave.setupExperiment(startTime=0.0)
        slave.enterInitializationMode()
    else:
        slave.enterInitializationMode(startTime=0.0)
    slave.exitInitializationMode()
    rows, refused = [], None
    for k, t in enumerate(SWITCH_TIMES):
        if k:
            slave.doStep(SWITCH_TIMES[k - 1], t - SWITCH_TIMES[k - 1])
        if change and abs(t - 1.0) < 1e-12:
            try:
                put(list(change), list(change.values()))
            except FMICallException:
                refused = log.said()
        rows.append(get([vrs[name] for name in outputs]))
    slave.terminate()
    slave.freeInstance()
    values = np.array(rows)
    return {name: values[:, i] for i, name in enumerate(outputs)}, refused


@pytest.mark.parametrize("variant", ["fmi3", "fmi2"])
@pytest.mark.parametrize("model", sorted(CASES))
def test_tunable_parameters_take_effect_after_initialization(fmus, tmp_path, variant, model):
    # a tunable parameter set at 1 s in Co-Simulation leaves the outputs before 1 s as they
    # were and moves one from then on (a relation it enters decided again at the set); a
    # fixed one (read only at initialization: a start value, an initial equation, the first
    # sample time) is refused then, with a message
    case = CASES[model]
    path = fmus[(variant, model)]
    outputs = list(case.outputs(case.defaults, TIMES[:1]))
    variables = read_model_description(path).modelVariables
    kinds = {
        v.name: v.variability
        for v in variables
        if v.causality == "parameter" and not v.name.startswith("solver.")
    }
    assert set(kinds.values()) <= {"tunable", "fixed"}
    vrs = {v.name: v.valueReference for v in variables}
    unchanged, _ = _co_simulation(path, tmp_path / "unchanged", outputs, None)
    later = SWITCH_TIMES > 1.0 - 1e-9
    for name, kind in kinds.items():
        change = {vrs[name]: moved(case.defaults[name])}
        got, refused = _co_simulation(path, tmp_path / name, outputs, change)
        for output in outputs:
            np.testing.assert_array_equal(got[output][~later], unchanged[output][~later])
        if kind == "fixed":
            assert refused and "is fixed" in refused, f"{model} {variant}: {name} set late"
            continue
        assert refused is None, f"{model} {variant}: {name}: {refused}"
        change_after = max(np.max(np.abs(got[o][later] - unchanged[o][later])) for o in outputs)
        assert change_after > 1e-6, f"{model} {variant}: tunable {name} set at 1 s moved nothing"


def test_fixed_parameters_are_those_only_the_initialization_reads(fmus):
    # a start value (osc.s0), an initial equation (x_ss), the first sample time (t0) against
    # parameters of the equations (k), of a dependent variable (x0 through offset), of a
    # relation (level) and of the sample interval (period)
    kinds = {}
    for model in ("RecordFields", "InitialEquations", "Events", "Bindings"):
        for variable in read_model_description(fmus[("fmi2", model)]).modelVariables:
            kinds[variable.name] = variable.variability
    assert [kinds[n] for n in ("osc.s0", "other.s0", "x_ss", "t0")] == ["fixed"] * 4
    assert [kinds[n] for n in ("k", "x0", "level", "period", "a")] == ["tunable"] * 5


def test_construct_table_names_these_tests():
    assert {test for _, test in PARAMETER_SETTINGS} <= {
        n for n in globals() if n.startswith("test_")
    }
