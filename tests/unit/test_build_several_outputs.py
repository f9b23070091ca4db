"""Build: parameters bound through calls of functions with several outputs, whose first output
a call in an expression gives (Modelica Language Specification 3.6, Sec. 12.4.3), where rumoca
0.10 evaluates such a call to an array and refuses a binding compared over it
(orchestrator.compiler.first_outputs), in the user's library and on the library path.

``tests/data/several_outputs/path/GearLib`` (on the library path) holds a two-output table
function (value and interval, as MSL's ``Vectors.interpolate``) extending an icon, and a lossy
gear whose efficiency and bearing friction at rest come from it in parameter bindings and whose
friction at the input side is bound by comparing them (as MSL's ``LossyGear``);
``tests/data/several_outputs/GearUser`` (the user's library) drives a load through that gear,
has a two-output function of its own in the same use, and calls the library's function both in
an expression and in a tuple equation. Each model is checked in all four variants (FMI 3.0 and
2.0, Model Exchange and Co-Simulation) against solutions by hand and SciPy's to 1e-6: CVode at
1e-10 in FMPy for Model Exchange, the FMUs' Dormand-Prince at 1e-9 for Co-Simulation; the
reference ODE solution at 1e-12 (its own error far below).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, assert_agrees_in_four_variants, built_fmus, one_line_refusal
from fmpy import simulate_fmu
from scipy.integrate import solve_ivp

from orchestrator.compiler.first_outputs import first_outputs
from orchestrator.compiler.source_rewrites import Rewrite

DATA = Path(__file__).parents[1] / "data" / "several_outputs"
TIMES = np.linspace(0.0, 2.0, 21)
LOSS_TABLE = np.array([[0, 0.9, 0.2], [20, 0.7, 0.2]])  # GearLib's LossyGear's default


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(
        DATA / "GearUser", tmp_path_factory.mktemp("several"), library_path=[DATA / "path"]
    )


def test_lossy_gear_from_a_table_spins_up_its_load_as_scipy_solves_it_in_four_variants(fmus):
    """Drive: 3 N.m on an input inertia of 0.1 kg.m2, a gear of ratio 2, a load of 2 kg.m2.
    With the input torque tau_a, J2 a2 = 2 (eta tau_a - tau_bf) and tau_a = 3 - J1 2 a2, so
    a2 = 2 (3 eta - tau_bf) / (J2 + 4 eta J1), eta the table's efficiency at the input speed
    2 w2 and tau_bf = 0.2/(2*0.9), the bearing friction bound over the efficiency at rest
    (0.9 < 1: the binding's second branch)."""
    speeds, efficiencies = LOSS_TABLE[:, 0], LOSS_TABLE[:, 1]
    tau_bf = LOSS_TABLE[0, 2] / (2 * LOSS_TABLE[0, 1])

    def rates(_, state):
        eta = np.interp(2 * abs(state[1]), speeds, efficiencies)
        return [state[1], 2 * (3 * eta - tau_bf) / (2 + 4 * eta * 0.1)]

    solution = solve_ivp(rates, (0, TIMES[-1]), [0, 0], "DOP853", rtol=1e-12, atol=1e-12,
                         dense_output=True)  # fmt: skip
    phi, w = solution.sol(TIMES)
    reference = {"load.phi": phi, "load.w": w, "gear.eta": np.interp(2 * w, speeds, efficiencies)}
    assert_agrees_in_four_variants(lambda v: fmus[(v, "Drive")], reference, TIMES, "Drive")


def test_users_function_of_two_outputs_in_a_compared_binding_in_four_variants(fmus):
    """Belt: the efficiency at half load is 0.5 + 0.4/2 = 0.7 < 0.75, so the drag is
    2 (1 - 0.7) = 0.6 /s and w = 4 exp(-0.6 t)."""
    reference = {"w": 4 * np.exp(-0.6 * TIMES)}
    assert_agrees_in_four_variants(lambda v: fmus[(v, "Belt")], reference, TIMES, "Belt")


def test_call_in_an_expression_is_the_tuple_equations_first_output_in_four_variants(fmus):
    """FirstOutput: eta0 = 1 at rest, so k = 1 and xi = 3t sweeps the table {0, 1, 3} ->
    {1, 0.8, 0.5}; the call in an expression gives NumPy's interpolation, bit for bit the
    tuple equation's first output, whose second is the interval (1, then 2 from xi = 1)."""
    times = np.linspace(0.0, 1.0, 21)
    xi = 3 * times
    reference = {"inExpression": np.interp(xi, [0, 1, 3], [1, 0.8, 0.5]),
                 "interval": np.where(xi >= 1, 2, 1)}  # fmt: skip
    # grid points away from xi = 1 (t = 1/3), where the interval changes
    assert not np.any(np.isclose(times, 1 / 3))
    assert_agrees_in_four_variants(
        lambda v: fmus[(v, "FirstOutput")], reference, times, "FirstOutput"
    )
    for variant, interface in VARIANTS:
        result = simulate_fmu(str(fmus[(variant, "FirstOutput")]), fmi_type=interface,
                              stop_time=1.0, output_interval=0.05,
                              output=["inExpression", "inTuple"])  # fmt: skip
        assert np.array_equal(result["inExpression"], result["inTuple"]), (variant, interface)


LIBRARY = """within Lib;
package Funcs
  function two
    extends Lib.Icon;
    import M = Modelica.Math;
    input Real u;
    input Real v[2] = {1, 2} "Weights";
    output Real y(unit = "m") = 0;
    output Integer n;
  algorithm
    (y, n) := (u*v[1], 2);
  end two;
  function one
    input Real u;
    output Real y;
  algorithm
    y := two(u) + 1;
  end one;
end Funcs;
"""
ICON = "within Lib;\npartial function Icon\n  annotation (Icon());\nend Icon;\n"
USER = """within Lib;
model User
  import Lib.Funcs.two;
  parameter Real a = two(1);
  parameter Real b = Funcs.two(1, {2, 3});
  Real c, d;
  Integer n;
equation
  (c, n) = Funcs.two(time);
  d = Lib.Funcs.one(time);
end User;
"""


def test_wrapper_beside_the_function_and_calls_in_expressions_rewritten():
    """The wrapper has the function's import and inputs as written, its first output without
    binding, the others protected; calls in expressions reach it by the names they were
    written with (an import, a class's name, the function's own package), the tuple equation
    keeps its call."""
    rewriter = first_outputs.prepare([LIBRARY, ICON, USER])
    library = Rewrite(LIBRARY, rewriter(LIBRARY)).text
    wrapper = library[library.index("end two;") + len("end two;") :]
    assert wrapper.startswith(
        "\n  function two_first\n    import M = Modelica.Math;\n    input Real u;\n"
        '    input Real v[2] = {1, 2} "Weights";\n    output Real y(unit = "m");\n'
        "  protected\n    Integer n;\n  algorithm\n    (y, n) := two(u, v);\n  end two_first;"
    ), wrapper
    assert "y := two_first(u) + 1;" in library
    user = Rewrite(USER, rewriter(USER)).text
    assert "a = two_first(1);" in user and "b = Funcs.two_first(1, {2, 3});" in user
    assert "(c, n) = Funcs.two(time);" in user and "Lib.Funcs.one(time)" in user
    assert rewriter(ICON) == []


@pytest.mark.parametrize(
    "icon",
    [
        # a base class declaring an input: the wrapper would not have it
        "within Lib;\npartial function Icon\n  input Real w;\nend Icon;\n",
        # a base class the library does not hold
        "within Lib;\npackage Other\nend Other;\n",
    ],
)
def test_a_function_extending_a_class_that_declares_something_keeps_its_calls(icon):
    rewriter = first_outputs.prepare([LIBRARY, icon, USER])
    assert rewriter(LIBRARY) == [] and rewriter(USER) == []


def test_a_while_loop_on_a_parameter_is_refused_in_one_line_naming_its_function(tmp_path):
    """A while loop that rumoca 0.10 translates whose condition depends on a parameter the FMU
    lets the user set, and whose passes its text does not bound (the counter jumps by two
    where an element is at the limit; the form of MSL's Matrices.isEqual, the counter set to
    the bound, is bounded: test_build_loop_bounds.py)."""
    message = one_line_refusal(
        tmp_path,
        "package Bad\n  function allBelow\n    input Real x[:];\n    input Real limit;\n"
        "    output Boolean result = true;\n  protected\n    Integer i = 1;\n  algorithm\n"
        "    while i <= size(x, 1) loop\n      if x[i] >= limit then\n"
        "        result := false;\n        i := i + 2;\n      end if;\n"
        "      i := i + 1;\n    end while;\n  end allBelow;\n"
        "  model M\n    parameter Real table[2] = {1, 2};\n    Boolean below;\n"
        "    Real x(start = 1, fixed = true);\n  equation\n    below = allBelow(table, 3);\n"
        "    der(x) = if below then -x else x;\n  end M;\nend Bad;\n",
    )
    expected = "Bad/package.mo:9:5: Bad.M: unsupported Modelica construct in function 'allBelow'"
    assert message.startswith(expected + ": a while loop whose passes its text does not bound"), (
        message
    )
