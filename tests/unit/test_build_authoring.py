"""Modelica in the forms library authors write it, each model against its known solution.

``tests/data/authoring/Authoring`` is a small library spread over files and sub-folders
(``package.mo``, ``package.order``): SI types declared in it with display units, connectors,
records extending records, functions with defaults, records in and out, ``derivative`` and
``inverse`` annotations, components one a file, and examples that combine the forms: imports
(qualified, ``.*``, renaming), ``extends`` with modifiers, ``redeclare`` of records, record
classes and replaceable models (``redeclare each`` in a component array), ``each`` and
per-element modifiers, ``connect`` in ``for``, arrays of records, conditional components,
``final``, ``inner``/``outer`` and a record bound several levels down, fixed start values
beside initial equations, enumerations, Boolean parameters choosing equations, ``noEvent``
and ``smooth``, ``when`` with vector conditions and ``elsewhen``, ``pre`` of Integer and
Boolean variables, ``sample`` with discrete states, ``reinit``, ``assert`` levels and
``stateSelect``.

Each model is built in all four variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation)
and checked against an analytic solution or SciPy to 1e-6 (CVode at 1e-10 in FMPy for Model
Exchange; the FMUs' Dormand-Prince at 1e-9 for Co-Simulation), at points between events; the
event times FMPy's Model Exchange runs record are checked to 1e-8 s.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, built_fmus
from fmpy import read_model_description, simulate_fmu
from modelica_support import AUTHORING
from scipy.integrate import solve_ivp

LIBRARY = Path(__file__).parents[1] / "data" / "authoring" / "Authoring"
STOP = 2.0
# points between events (every event of the library lies off this grid), on the output grid
TIMES = np.arange(0.02, STOP, 0.1)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("authoring"))


def simulate(path: Path, interface: str, outputs: list[str]) -> np.ndarray:
    return simulate_fmu(
        str(path),
        fmi_type=interface,
        stop_time=STOP,
        output_interval=0.01,
        relative_tolerance=1e-10,
        output=outputs,
    )


def check(fmus, model, reference, events=None):
    """Every variant of ``model`` against ``reference`` (name -> values at TIMES); with
    ``events``, the event times of the Model Exchange runs too."""
    for variant, interface in VARIANTS:
        result = simulate(fmus[(variant, model)], interface, list(reference))
        for name, expected in reference.items():
            got = np.interp(TIMES, result["time"], result[name])
            error = np.max(np.abs(got - expected))
            assert error < 1e-6, f"{model} {variant} {interface} {name}: error {error:.2e}"
        if events is not None and interface == "ModelExchange":
            times = result["time"]
            found = np.unique(times[1:][np.diff(times) == 0])
            # a relation decided at its crossing changes back when a reinit turns the state
            # round, a second event 1e-10 s later: the first of each cluster is the event
            found = found[np.concatenate([[True], np.diff(found) > 1e-6])]
            assert len(found) == len(events), f"{model} {variant}: events at {found}"
            error = np.max(np.abs(found - events))
            assert error < 1e-8, f"{model} {variant}: event times off by {error:.1e} s"


def ode(rhs, y0):
    """SciPy's solution of y' = rhs(t, y) at TIMES (tolerances far below the test's)."""
    sol = solve_ivp(rhs, (0, STOP), y0, t_eval=TIMES, rtol=1e-12, atol=1e-12, method="DOP853")
    return sol.y


def test_imports_and_a_final_modifier(fmus):
    # m = 2 on c = 8 from s = 0.5: s = 0.5 cos(2 t)
    check(fmus, "Oscillator", {"mass.s": 0.5 * np.cos(2 * TIMES)})


def test_extends_with_modifiers_and_a_redeclared_model(fmus):
    # m = 1, c = 4, quadratic damper k = 0.5: s'' = -4 s - 0.5 s'|s'|
    s, v = ode(lambda t, y: [y[1], -4 * y[0] - 0.5 * y[1] * abs(y[1])], [0.5, 0.0])
    check(fmus, "QuadraticDamped", {"mass.s": s, "mass.v": v})


def test_redeclare_each_and_per_element_modifiers(fmus):
    # m = 1, 2, 4 coasting from v = 1 against d = 2: s = m/d (1 - exp(-d t/m))
    reference = {
        f"mass[{i}].s": m / 2 * (1 - np.exp(-2 * TIMES / m)) for i, m in enumerate((1, 2, 4), 1)
    }
    check(fmus, "DamperArray", reference)


def test_connect_in_a_for_loop_over_a_component_array(fmus):
    # y_i' = (k_i y_(i-1) - y_i)/T, y_0 = 1, k = 1, 2, 3, T = 0.5
    y = ode(
        lambda t, y: [(1 - y[0]) / 0.5, (2 * y[0] - y[1]) / 0.5, (3 * y[1] - y[2]) / 0.5],
        [0.0, 0.0, 0.0],
    )
    check(fmus, "LagChain", {"lag[1].y": y[0], "lag[2].y": y[1], "y": y[2]})


def test_flow_connectors_connected_in_for_loops(fmus):
    # m = 1, 2, 1 in a row, springs c = 4 (from the wall), 2, 3: M s'' = -K s
    mass = np.array([1.0, 2.0, 1.0])
    stiffness = np.array([[6.0, -2.0, 0.0], [-2.0, 5.0, -3.0], [0.0, -3.0, 3.0]])
    y = ode(
        lambda t, y: np.concatenate([y[3:], -stiffness @ y[:3] / mass]),
        [0.1, 0.0, -0.2, 0.0, 0.0, 0.0],
    )
    check(fmus, "SpringChain", {f"mass[{i + 1}].s": y[i] for i in range(3)})


def test_array_of_records_from_constructors(fmus):
    check(fmus, "RecordArray", {"v[1]": np.exp(-TIMES), "v[2]": np.exp(-TIMES / 2)})


def test_inner_outer_and_a_record_bound_two_levels_down(fmus):
    # m = 3, d = 1.5, g = 1.62, current 0.5: w = (c + g m/d)(1 - exp(-d t/m))
    w = (0.5 + 1.62 * 3 / 1.5) * (1 - np.exp(-1.5 * TIMES / 3))
    check(fmus, "Sinking", {"carrier.sinker.w": w})


def test_record_fields_passed_down_follow_their_parameter(fmus):
    # body(m = 3, ...) bound as carrier(data = body), sinker(data = data): with body.m = 6
    # set in the FMU, the fields passed down are 6 too and cannot be set apart from it
    w = (0.5 + 1.62 * 6 / 1.5) * (1 - np.exp(-1.5 * TIMES / 6))
    for variant, interface in VARIANTS:
        path = fmus[(variant, "Sinking")]
        outputs = ["carrier.sinker.w", "carrier.sinker.data.m", "carrier.data.m"]
        result = simulate_fmu(
            str(path),
            fmi_type=interface,
            stop_time=STOP,
            output_interval=0.01,
            relative_tolerance=1e-10,
            output=outputs,
            start_values={"body.m": 6.0},
        )
        got = np.interp(TIMES, result["time"], result["carrier.sinker.w"])
        assert np.max(np.abs(got - w)) < 1e-6, f"{variant} {interface}"
        assert set(result["carrier.sinker.data.m"]) == set(result["carrier.data.m"]) == {6.0}
        causality = {v.name: v.causality for v in read_model_description(path).modelVariables}
        assert causality["body.m"] == "parameter"
        assert causality["carrier.data.m"] != "parameter" != causality["carrier.sinker.data.m"]


def test_redeclared_record_whose_type_extends_one_with_modifiers(fmus):
    # StiffBody extends HeavyBody(d = 1) extends BodyData(m = 4, d = 2): m = 4, d = 1
    w = 9.81 * 4 * (1 - np.exp(-TIMES / 4))
    check(fmus, "HeavySinker", {"sinker.w": w})


def test_redeclared_record_class_in_extends(fmus):
    # m = 4, d = 1, c = body.c = 16: 4 s'' = -16 s - s'
    s, v = ode(lambda t, y: [y[1], (-16 * y[0] - y[1]) / 4], [1.0, 0.0])
    check(fmus, "StiffMountUsed", {"s": s, "v": v})


def test_conditional_component_and_boolean_parameters_choose_equations(fmus):
    # with the damper (d = 1) on m = 2: v = exp(-t/2); with drag 0.5 v|v| instead:
    # v = 1/(1 + t/4), s = 4 ln(1 + t/4)
    check(fmus, "Coasting", {"mass.v": np.exp(-TIMES / 2), "mass.s": 2 * (1 - np.exp(-TIMES / 2))})
    check(fmus, "Dragged", {"mass.v": 1 / (1 + TIMES / 4), "mass.s": 4 * np.log(1 + TIMES / 4)})
    names = {v.name for v in read_model_description(fmus[("me", "Dragged")]).modelVariables}
    assert not any(name.startswith("damper.") for name in names)


def test_enumeration_parameters_in_if_expressions_and_as_integers(fmus):
    reference = {
        "v": 1 / (1 + TIMES),
        "w": np.exp(-2 * TIMES),
        "modeNumber": np.full_like(TIMES, 3),
        "strong": np.ones_like(TIMES),
    }
    check(fmus, "Modes", reference)
    reference = {"v": np.exp(-TIMES), "w": np.exp(-TIMES), "modeNumber": np.full_like(TIMES, 2)}
    check(fmus, "LinearMode", reference | {"strong": np.zeros_like(TIMES)})


def test_fixed_start_values_beside_initial_equations(fmus):
    reference = {
        "x": 2 * np.exp(-TIMES),
        "y": 4 * np.exp(-2 * TIMES),
        "z": 3 * (1 - np.exp(-TIMES)),
    }
    check(fmus, "InitialForms", reference)


def test_min_max_abs_and_sign(fmus):
    reference = {
        "x": np.where(TIMES < 1, TIMES, 2 - TIMES),
        "u": np.where(TIMES < 1, TIMES - TIMES**2 / 2, 0.5),
        "y": np.maximum(TIMES - 0.5, 0) + np.minimum(TIMES - 1.5, 0),
        "z": np.abs(TIMES - 1.2),
    }
    check(fmus, "Kinks", reference)


def test_no_event_and_smooth(fmus):
    reference = {
        "x": np.where(TIMES < 1, TIMES - TIMES**2 / 2, 0.5),
        "y": np.where(TIMES > 0.75, (TIMES - 0.75) ** 2, 0),
    }
    check(fmus, "Smooth", reference)
    assert read_model_description(fmus[("fmi2", "Smooth")]).numberOfEventIndicators == 0


def test_when_with_a_vector_condition_elsewhen_and_pre(fmus):
    n = np.select([TIMES < 0.5, TIMES < 1.25, TIMES < 1.75], [0, 1, 2], 12)
    reference = {"nReal": n, "toggledReal": (TIMES > 0.8).astype(float)}
    check(fmus, "Counter", reference, events=[0.5, 0.8, 1.25, 1.75])


def test_sample_halves_a_discrete_state(fmus):
    # k halves at 0.125 + 0.25 i; x = exp(-integral of k)
    samples = 0.125 + 0.25 * np.arange(8)

    def integral(t):
        edges = np.concatenate([[0.0], samples[samples < t], [t]])
        return sum(0.5**i * step for i, step in enumerate(np.diff(edges)))

    fired = np.array([np.sum(samples < t) for t in TIMES])
    reference = {"k": 0.5**fired, "x": np.exp(-np.array([integral(t) for t in TIMES]))}
    check(fmus, "Sampled", reference, events=samples)


def test_integer_functions_change_at_events(fmus):
    # integer(x), floor(2 t), div(3 t, 1.5) and mod(t, 0.5) jump at events (Modelica 3.6,
    # Sec. 3.7.1.1): at 0.5, 1 and 1.5 s; change(k) sees k = integer(t) change at 1 s
    half = np.floor(2 * TIMES)
    reference = {
        "k": np.floor(TIMES),
        "steps": half,
        "quotient": half,
        "saw": half * 0.125 + np.mod(TIMES, 0.5) ** 2 / 2,
        "changes": np.floor(TIMES),
    }
    check(fmus, "IntegerFunctions", reference, events=[0.5, 1.0, 1.5])
    assert read_model_description(fmus[("fmi2", "IntegerFunctions")]).numberOfEventIndicators > 0


def test_replaceable_functions_redeclared(fmus):
    check(fmus, "Decay", {"x": np.exp(-TIMES)})
    check(fmus, "CubicDecay", {"x": 1 / np.sqrt(1 + 2 * TIMES)})
    check(fmus, "ScaledDecay", {"x": np.exp(-3 * TIMES)})


def test_reinit_at_two_walls(fmus):
    # from s = 0.5 at 0.8 m/s between walls at 0 and 1: bounces at 0.625 s and 1.875 s
    s = np.select([TIMES < 0.625, TIMES < 1.875], [0.5 + 0.8 * TIMES, 1 - 0.8 * (TIMES - 0.625)])
    s = np.where(TIMES >= 1.875, 0.8 * (TIMES - 1.875), s)
    check(fmus, "Walls", {"s": s}, events=[0.625, 1.875])


def test_assert_at_warning_level_does_not_stop_the_run(fmus):
    check(fmus, "Warning", {"x": np.exp(-TIMES)})


def test_default_and_named_arguments(fmus):
    check(fmus, "Arguments", {"x": np.exp(-2 * TIMES)})


def test_records_into_and_out_of_functions(fmus):
    reference = {
        "s": np.cos(2 * TIMES),
        "v": -2 * np.sin(2 * TIMES),
        "E": np.full_like(TIMES, 8.0),
        "w": np.exp(-TIMES / 4),
    }
    check(fmus, "RecordCalls", reference)


def test_der_of_a_function_with_a_derivative_annotation(fmus):
    check(fmus, "Derivatives", {"z": np.exp(-3 * TIMES), "w": -3 * np.exp(-3 * TIMES)})


def test_unknown_inside_a_function_with_an_inverse(fmus):
    check(fmus, "Inverse", {"y": 8 * np.exp(-3 * TIMES), "x": 2 * np.exp(-TIMES)})


def test_state_select_of_a_variable_whose_derivative_does_not_appear(fmus):
    # x has stateSelect = always, y = 2 x avoid, but only der(y) appears: y = 2 x is
    # differentiated, so that x is the state and y is computed from it
    check(fmus, "StateChoice", {"x": np.exp(-TIMES), "y": 2 * np.exp(-TIMES)})
    md = read_model_description(fmus[("fmi2", "StateChoice")])
    assert [d.variable.derivative.name for d in md.derivatives] == ["x"]


def test_units_of_si_types_declared_in_the_library(fmus):
    check(fmus, "DisplayUnits", {"phi": TIMES, "T": 293.15 + TIMES})
    md = read_model_description(fmus[("fmi3", "DisplayUnits")])
    units = {v.name: v.unit for v in md.modelVariables}
    assert (units["phi"], units["w"], units["T"]) == ("rad", "rad/s", "K")


def test_supported_forms_name_their_tests():
    tests = {name for name in globals() if name.startswith("test_")}
    assert {test for _, test in AUTHORING} <= tests
