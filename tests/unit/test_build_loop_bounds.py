"""Build: while loops that end early by setting their counter to the bound (``i := n;`` where
the condition is ``i <= n``, then the step ``i := i + 1;``), as MSL's ``Matrices.isEqual``
leaves its two loops at the first differing element; their passes are bounded by the whole
numbers from the counter's start to the bound, and rumoca 0.10 translates them in the form
:mod:`orchestrator.compiler.function_loops` gives them (a for loop over those numbers, each
statement guarded by the condition taken at the start of the pass).

``tests/data/loop_bounds/path/CompareLib`` (on the library path) compares two matrices with two
such nested loops inside an if-statement, for a Boolean that chooses between an ideal and a
lossy gear on a shaft; ``tests/data/loop_bounds/GearUser`` (the user's library) drives the shaft
with a table of no losses and one of two rows (a table rumoca 0.10 refuses as written: "requires
assignments or nested conditionals in every checked branch") and has a search of its own that
leaves its loop at the first differing element. Each model is checked in all four variants (FMI
3.0 and 2.0, Model Exchange and Co-Simulation) to 1e-6 against the solution by hand: the shaft
J w' = eta (1 + t) - tau_f from rest, w = (eta (t + t^2/2) - tau_f t)/J, is a polynomial the
integrators (CVode at 1e-10 in FMPy, the FMUs' Dormand-Prince at 1e-9) follow to far below that;
the search's index is NumPy's first differing element.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus, one_line_refusal
from modelica_support import LOOP_BOUNDS

from orchestrator.compiler.function_loops import function_loops
from orchestrator.compiler.source_rewrites import Rewrite

DATA = Path(__file__).parents[1] / "data" / "loop_bounds"
TIMES = np.linspace(0.0, 1.0, 11)
J = 2.0  # LossyShaft's inertia, kg m2


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(
        DATA / "GearUser", tmp_path_factory.mktemp("bounds"), library_path=[DATA / "path"]
    )


def _speed(eta: float, tau_f: float) -> np.ndarray:
    return (eta * (TIMES + TIMES**2 / 2) - tau_f * TIMES) / J


def test_a_table_of_no_losses_makes_the_gear_ideal_in_four_variants(fmus):
    """IdealDrive: lossTable = [0, 1, 0] equals the comparison's matrix: eta = 1, tau_f = 0."""
    reference = {"shaft.w": _speed(1.0, 0.0), "shaft.eta": np.ones_like(TIMES)}
    assert_agrees_in_four_variants(lambda v: fmus[(v, "IdealDrive")], reference, TIMES, "Ideal")


def test_a_table_of_two_rows_keeps_the_losses_in_four_variants(fmus):
    """LossyDrive: a table of two rows differs in size: its first row's eta = 0.8 and
    tau_f = 0.3 N m."""
    reference = {"shaft.w": _speed(0.8, 0.3), "shaft.tau_f": np.full_like(TIMES, 0.3)}
    assert_agrees_in_four_variants(lambda v: fmus[(v, "LossyDrive")], reference, TIMES, "Lossy")


def test_the_search_stops_at_the_first_differing_element_in_four_variants(fmus):
    """Differences: a = {1, 2, 3, 4}, b = {1, 2.5, 3, 5}: the first element differing by more
    than 0.1 is the 2nd (the 4th, had the loop gone on, would overwrite it); none differs by
    more than 1."""
    a, b = np.array([1, 2, 3, 4.0]), np.array([1, 2.5, 3, 5.0])
    second = np.flatnonzero(np.abs(a - b) > 0.1)[0] + 1
    reference = {"second": np.full_like(TIMES, second), "close": np.zeros_like(TIMES)}
    assert_agrees_in_four_variants(lambda v: fmus[(v, "Differences")], reference, TIMES, "Diff")


SEARCH = """function f
  input Real x[:];
  output Integer found = 0;
protected
  Integer n = size(x, 1);
  Integer k{start};
algorithm
  {before}while k <= n loop
    {body}
  end while;
end f;
"""
EXIT = "if x[k] > 0 then found := k; k := n; end if;"


@pytest.mark.parametrize(
    "start, before, body, proved",
    [
        (" = 1", "", f"{EXIT} k := k + 1;", True),
        ("", "k := 2; ", f"{EXIT} k := k + 1;", True),
        # the jump after the step: k = n holds the condition, the loop may never end
        (" = 1", "", f"k := k + 1; {EXIT}", False),
        # a jump below the bound, back to the start, the bound moved in the loop
        (" = 1", "", f"{EXIT.replace('k := n', 'k := n - 1')} k := k + 1;", False),
        (" = 1", "", f"{EXIT.replace('k := n', 'k := 1')} k := k + 1;", False),
        (" = 1", "", f"{EXIT} k := k + 1; n := n + 1;", False),
        # no start known: none declared, or assigned before the loop elsewhere
        ("", "", f"{EXIT} k := k + 1;", False),
        (" = 1", "k := size(x, 1); found := 0; ", f"{EXIT} k := k + 1;", False),
    ],
)
def test_a_rising_counter_is_rewritten_only_where_its_bound_is_proved(start, before, body, proved):
    text = SEARCH.format(start=start, before=before, body=body)
    rewritten = Rewrite(text, function_loops(text)).text
    first = "2" if before.startswith("k := 2") else "1"
    if proved:
        expected = f"for __pass1 in {first}:n loop __run1 := k <= n;"
        assert expected in rewritten and "while" not in rewritten, rewritten
        assert f"if __run1 then {EXIT} end if;" in rewritten, rewritten
        assert "if __run1 then k := k + 1; end if;" in rewritten, rewritten
    else:
        assert rewritten == text


def test_nested_rising_loops_take_the_inner_condition_only_where_the_outer_holds():
    """sameMatrix's two loops: the inner for loop stands outside any branch (rumoca 0.10
    refuses a loop in a branch it cannot decide), its condition taken where the outer's holds;
    the column counter, declared without a value, gets 0 first."""
    text = (DATA / "path" / "CompareLib" / "package.mo").read_text()
    rewritten = Rewrite(text, function_loops(text)).text
    for line in [
        "for __pass1 in 1:rows loop __run1 := r <= rows;",
        "if __run1 then c := 1; end if;",
        "for __pass2 in 1:columns loop if __run1 then __run2 := c <= columns; else __run2 "
        ":= false; end if;",
        "if __run2 then c := c + 1; end if;",
        "if __run1 then r := r + 1; end if;",
        "protected Boolean __run1; protected Boolean __run2; algorithm __run1 := false; "
        "__run2 := false; c := 0;",
    ]:
        assert line in rewritten, rewritten


def test_a_counter_set_back_below_its_bound_is_refused_in_one_line(tmp_path):
    message = one_line_refusal(
        tmp_path,
        "package Bad\n  function f\n    input Real x[:];\n    output Integer k = 1;\n"
        "  algorithm\n    while k <= size(x, 1) loop\n      if x[k] > 0 then\n        k := 1;\n"
        "      end if;\n      k := k + 1;\n    end while;\n  end f;\n"
        "  model M\n    parameter Real x[2] = {-1, -2};\n    Real y = f(x) + time;\n"
        "  end M;\nend Bad;\n",
    )
    assert message.startswith("Bad/package.mo:6:5: Bad.M: unsupported Modelica construct in "
                              "function 'f': a while loop"), message  # fmt: skip


def test_construct_table_names_these_tests():
    assert {test for _, _, test in LOOP_BOUNDS} <= {n for n in globals() if n.startswith("test_")}
