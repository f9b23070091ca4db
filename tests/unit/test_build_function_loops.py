"""Build: functions with while loops whose bound their text proves and with returns inside
loops, which rumoca 0.10 refuses as written and translates in an equivalent form
(orchestrator.compiler.function_loops), in the user's library and on the library path.

``tests/data/function_loops/path/TableLib`` (on the library path) interpolates in a table with
a search down and a search up from a guessed interval, as table functions are written, and a
friction law reads its torque from such a table; ``tests/data/function_loops/LoopUser`` (the
user's library) has a first-true-index function with a ``return`` inside its loop and a
statement after the loop, and a search down from the end of a vector. Each model is checked
in all four variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation) against SciPy's
linear interpolation with extrapolation, NumPy's ``searchsorted`` and a SciPy solution of the
friction ODE to 1e-6: CVode at 1e-10 in FMPy for Model Exchange, the FMUs' Dormand-Prince at
1e-9 for Co-Simulation; the reference ODE solution at 1e-12 (its own error far below).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus, one_line_refusal
from scipy.integrate import solve_ivp
from scipy.interpolate import interp1d

from orchestrator.compiler.function_loops import function_loops
from orchestrator.compiler.source_rewrites import Rewrite

DATA = Path(__file__).parents[1] / "data" / "function_loops"
# steps of 0.065 s: no sample at an event (0.1, 0.3, 0.7 s) or a jump of lastAtMost (0.2 k s)
TIMES = np.linspace(0.0, 1.04, 17)
TABLE = np.array([[0, 0], [1, 2], [2, 3], [4, 3.5]])  # TableFriction's default table


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(
        DATA / "LoopUser", tmp_path_factory.mktemp("loops"), library_path=[DATA / "path"]
    )


def _check(fmus, model: str, reference: dict[str, np.ndarray]) -> None:
    assert_agrees_in_four_variants(lambda v: fmus[(v, model)], reference, TIMES, model)


def test_table_search_down_and_up_interpolates_as_scipy_in_four_variants(fmus):
    """Sweep: the speed 6t - 1 runs from below the table (-1 rad/s) through all its intervals
    to past its end (5 rad/s), the search starting in interval 3: down below 2 rad/s, up
    above 4. The torque is SciPy's linear interpolation, extrapolated at both ends; the torque
    at 0.5 rad/s the first of the function's two outputs, a call in an expression."""
    law = interp1d(TABLE[:, 0], TABLE[:, 1], fill_value="extrapolate")
    w = 6 * TIMES - 1
    half = np.full_like(TIMES, law(0.5))
    _check(fmus, "Sweep", {"w": w, "friction.tau": law(w), "friction.tau_half": half})


def test_friction_from_a_table_slows_a_wheel_as_scipy_solves_it_in_four_variants(fmus):
    """SpinDown: 0.5 w' = -tau(w) from 3.5 rad/s, the search from interval 2 going up at
    first and down below 1 rad/s, against the same ODE solved by SciPy (DOP853, 1e-12)."""
    law = interp1d(TABLE[:, 0], TABLE[:, 1], fill_value="extrapolate")
    solution = solve_ivp(
        lambda t, w: -law(w) / 0.5, (0, TIMES[-1]), [3.5], "DOP853", rtol=1e-12, atol=1e-12,
        dense_output=True,
    )  # fmt: skip
    _check(fmus, "SpinDown", {"w": solution.sol(TIMES)[0]})


def test_one_row_table_gives_its_value_in_four_variants(fmus):
    """Sweep's v: the searches stand in the branch a one-row table does not take."""
    _check(fmus, "Sweep", {"v": np.full_like(TIMES, 2.5)})


def test_return_inside_a_loop_ends_the_function_in_four_variants(fmus):
    """FirstTrue: the first of {t > 0.3, t > 0.7, t > 0.1} that holds: none (-1, the statement
    after the loop) before 0.1 s, the third to 0.3 s, then the first (the loop returns there,
    or the third would overwrite it). lastAtMost: NumPy's searchsorted of t in {0.2, 0.4, 0.6,
    0.8} from the right."""
    first = np.where(TIMES > 0.3, 1, np.where(TIMES > 0.1, 3, -1))
    passed = np.searchsorted([0.2, 0.4, 0.6, 0.8], TIMES, side="right")
    _check(fmus, "FirstTrue", {"first": first, "passed": passed})


SEARCH = """function f
  input Real x[:];
  input Real xi;
  output Integer i = size(x, 1);
algorithm
  while {condition} loop
    {step}
  end while;
end f;
"""


@pytest.mark.parametrize(
    "condition, step, proved",
    [
        ("i > 1 and xi < x[i]", "i := i - 1;", True),
        ("i < size(x, 1) - 1 and x[i + 1] <= xi", "i := i + 1;", True),
        # no subscript by the counter: nothing bounds the passes
        ("i > 1 and xi < 2*i", "i := i - 1;", False),
        # the subscript read only on one side of 'or'
        ("i > 1 and (xi < x[i] or xi > 3)", "i := i - 1;", False),
        ("i > 1 or xi < x[i]", "i := i - 1;", False),
        # a step of 2, a second assignment of the counter, the array resized in the loop
        ("i > 1 and xi < x[i]", "i := i - 2;", False),
        ("i > 1 and xi < x[i]", "i := i - 1; if xi < 0 then i := 1; end if;", False),
        ("i > 1 and xi < x[i]", "i := i - 1; x := {1, 2};", False),
    ],
)
def test_a_while_loop_is_rewritten_only_where_its_bound_is_proved(condition, step, proved):
    text = SEARCH.format(condition=condition, step=step)
    rewritten = Rewrite(text, function_loops(text)).text
    if proved:
        expected = f"for __pass1 in 1:size(x, 1) loop if {condition} then"
        assert expected in rewritten and "end if; end for;" in rewritten, rewritten
        assert rewritten.replace(expected, "").count(condition) == 0
    else:
        assert rewritten == text


def test_a_while_loop_without_a_proved_bound_is_refused_in_one_line(tmp_path):
    message = one_line_refusal(
        tmp_path,
        "package Bad\n  function halvings\n    input Real x;\n    output Integer n;\n"
        "  protected\n    Real r;\n  algorithm\n    n := 0;\n    r := x;\n"
        "    while r >= 1 loop\n      r := r/2;\n      n := n + 1;\n    end while;\n"
        "  end halvings;\n  model M\n    Real y = halvings(1 + 10*time);\n  end M;\nend Bad;\n",
    )
    # at the while loop (line 10), not at the function's name
    assert message.startswith("Bad/package.mo:10:5: Bad.M: unsupported Modelica construct in "
                              "function 'halvings': a while loop"), message  # fmt: skip
