"""Initial values that a model's conditions leave free, as MSL's MultiBody examples leave them.

``tests/data/free_start/FreeStartLib`` holds ``SlidingMass``, MSL's
``Constraints.PrismaticConstraint`` in small: a point mass held on a line (``LineConstraint``
on frame_b of a ``FixedRotation``: through (0.2, -0.3) m at 0.5 rad), pulled by a spring of
20 N/m to the world's origin and observed from the line's frame by ``LinePosition`` (as
``FreeMotionScalarInit``), whose position across the line and velocities along and across it
are fixed at 0. Two of these conditions repeat the constraint, and no condition fixes the
position along the line: the initial system leaves it to a start value. Index reduction keeps
the mass's ``r[1]`` and ``v[1]`` as states; the FMU starts ``r[1]`` at its start value, 0.6 m,
and says so at build time in one line, with the repeated conditions dropped in another.

Repeated conditions are found by the rank of their Jacobian at a pseudo-random point; the
Jacobian row of a repeated condition can come out as round-off rather than 0 (8.7e-19 for
``PrismaticConstraint``'s ``r_rel_a_3 = 0``), which, normalized, counted as a condition: the
initial system looked determined, its Newton step divided by round-off, and the body started
1.47 m along its line, silently.

The FMUs are held in all four variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation) to
the motion along the line in closed form, to 1e-6: ``m s'' = -c (a.e + s)`` with ``a`` the
line's origin and ``e`` its direction, from ``s0 = (0.6 - a_1)/e_1`` at rest.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus_logged, one_line_refusal
from modelica_support import FREE_START

from orchestrator.compiler.index_reduction import independent_columns

DATA = Path(__file__).parents[1] / "data"
LIBRARY = DATA / "free_start" / "FreeStartLib"
MODELICA_PATH = DATA / "modelica_path"
TIMES = np.linspace(0.0, 2.0, 9)
# SlidingMass: mass (kg), spring constant (N/m), the line's origin (m) and angle (rad), the
# start value of the mass's r[1] (m)
MASS, C = 1.0, 20.0
ORIGIN, ANGLE = np.array([0.2, -0.3]), 0.5
R1_START = 0.6


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return built_fmus_logged(
        LIBRARY,
        tmp_path_factory.mktemp("free_start"),
        "orchestrator.compiler.initialization",
        library_path=[MODELICA_PATH],
        models=["FreeStartLib.SlidingMass"],
    )


def sliding(times: np.ndarray) -> dict[str, np.ndarray]:
    """The mass's position (m) on the line from r[1] = 0.6 m at rest, in closed form."""
    e = np.array([math.cos(ANGLE), math.sin(ANGLE)])
    s0 = (R1_START - ORIGIN[0]) / e[0]
    rest = -ORIGIN @ e  # where the spring's pull along the line vanishes
    s = rest + (s0 - rest) * np.cos(math.sqrt(C / MASS) * times)
    return {"mass.r[1]": ORIGIN[0] + s * e[0], "mass.r[2]": ORIGIN[1] + s * e[1]}


def test_a_position_no_condition_fixes_starts_at_a_state_start_with_a_warning(built):
    fmus, warnings = built
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "SlidingMass")], sliding(TIMES), TIMES, "SlidingMass"
    )
    started = [line for line in warnings if "state(s) free" in line]
    assert started == [
        "FreeStartLib.SlidingMass: initial conditions leave 1 state(s) free, started at their "
        "start values (another choice of states starts elsewhere): mass.r[1] = 0.6"
    ], warnings
    dropped = [line for line in warnings if "redundant" in line]
    assert len(dropped) == 1 and "position.n = " in dropped[0] and "position.v_n = " in dropped[0]


def test_a_condition_whose_jacobian_row_is_round_off_repeats_the_others():
    """The rows of PrismaticConstraint's r_rel_a_2 = 0 and r_rel_a_3 = 0 in the two
    position states, as measured: the second is round-off and raises no rank."""
    rows = np.array([[-0.0133, 0.9999], [0.0, 8.6736e-19]])
    assert independent_columns(rows.T) == [0]
    assert independent_columns(np.array([[1.0, 0.0], [0.0, 1e-9]]).T) == [0, 1]


def test_a_free_parameter_started_at_a_variable_is_refused_in_one_line(tmp_path):
    """A fixed = false parameter's start is Newton's guess, computed from parameters when
    the FMU initializes; a start over a variable is refused, naming it."""
    message = one_line_refusal(
        tmp_path,
        """package Bad
  model M
    Real x(start = 1, fixed = true) "State";
    Real y "Twice the state";
    parameter Real k(fixed = false, start = y) "Rate the initial equation gives";
  initial equation
    k*x = 2;
  equation
    y = 2*x;
    der(x) = -k*x;
  end M;
end Bad;
""",
    )
    assert message == (
        "Bad.M: start value of k = y depends on other variables; such values are computed "
        "at initialization, which this build does not do yet: give a number"
    )


def test_readme_rows_name_tests_of_this_file():
    tests = {name for name in globals() if name.startswith("test_")}
    assert {test for _, test in FREE_START} <= tests
