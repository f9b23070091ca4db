"""Nonlinear loops through a junction's exponential law, where Newton's full steps overshoot.

``tests/data/junction_loops/JunctionLoops``: ``SteppedDiode``, a diode behind 100 Ohm whose
source steps from 0.3 V (the junction barely conducts, 1 nA) to 5 V at 0.525 s; the diode's
saturation current and thermal voltage follow its junction temperature, which its loss
raises above its case (a state: heat capacity and a thermal resistance to the ambient). At
the step the loop is solved again from its last solution: there the junction's slope is
small, Newton's first full step lands near 5 V, where ``exp(v/Vt)`` is 1e84, and from there
each step brings the voltage back by about one thermal voltage, more steps than the
iteration has. Newton with a line search (``orchestrator/compiler/damped_newton.py``)
solves it.

Reference: the same circuit's equations written here and solved independently, the
operating point by SciPy's ``brentq`` on the diode voltage (the junction temperature given
by it and the case temperature), the case temperature by ``solve_ivp`` (RK45 at rtol = atol =
1e-12, restarted at the step). Tolerance 1e-6 in all four variants (Newton's residual
tolerance is 1e-9, the FMUs run at rtol 1e-10).
"""

from __future__ import annotations

import math
from pathlib import Path

import casadi as ca
import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus
from scipy.integrate import solve_ivp
from scipy.optimize import brentq
from test_build_rumoca import MODELICA_PATH

from orchestrator.compiler.damped_newton import damped_solution

LIBRARY = Path(__file__).parents[1] / "data" / "junction_loops" / "JunctionLoops"
BOLTZMANN, CHARGE = 1.380649e-23, 1.602176634e-19  # J/K, C
IS, TNOM, XTI, EG = 1e-14, 300.15, 3.0, 1.11  # A, K, -, V
RTH, RAMB, CTH, TAMB = 200.0, 100.0, 0.05, 300.15  # K/W, K/W, J/K, K
R, LOW, HIGH, STEP = 100.0, 0.3, 5.0, 0.525  # Ohm, V, V, s (the step between output points)
TIMES = np.linspace(0.0, 2.0, 41)
NEWTON = {"abstol": 1e-14, "abstolStep": 1e-14, "max_iter": 50, "error_on_fail": False}


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("junction_loops")
    return built_fmus(LIBRARY, out, library_path=[MODELICA_PATH])


def _operating_point(source: float, case: float) -> tuple[float, float]:
    """Diode voltage (V) and junction temperature (K) at a source voltage and case
    temperature: the diode's current equals the resistor's."""

    def junction(v: float) -> tuple[float, float]:
        i = (source - v) / R
        tj = case + RTH * v * i
        vt = BOLTZMANN * tj / CHARGE
        saturation = IS * (tj / TNOM) ** XTI * math.exp((tj / TNOM - 1) * EG / vt)
        return saturation * math.expm1(v / vt) - i, tj

    v = brentq(lambda v: junction(v)[0], 0.0, source, xtol=1e-15, rtol=1e-15)
    return v, junction(v)[1]


def _stepped_diode() -> dict[str, np.ndarray]:
    def source(t: float) -> float:
        return LOW if t < STEP else HIGH

    def heating(t: float, y: np.ndarray) -> list[float]:
        v, _ = _operating_point(source(t), y[0])
        return [(v * (source(t) - v) / R - (y[0] - TAMB) / RAMB) / CTH]

    before = solve_ivp(heating, (0.0, STEP), [TAMB], rtol=1e-12, atol=1e-12, dense_output=True)
    after = solve_ivp(
        heating, (STEP, TIMES[-1]), before.y[:, -1], rtol=1e-12, atol=1e-12, dense_output=True
    )
    case = np.array([(before if t < STEP else after).sol(t)[0] for t in TIMES])
    points = np.array([_operating_point(source(t), c) for t, c in zip(TIMES, case, strict=True)])
    return {"v": points[:, 0], "Tj": points[:, 1], "Tcase": case}


def test_stepped_diode_in_four_variants(fmus):
    reference = _stepped_diode()
    assert reference["v"][-1] > 0.7 and reference["Tj"][-1] - reference["Tcase"][-1] > 5.0
    model = "SteppedDiode"
    assert_agrees_in_four_variants(lambda v: fmus[(v, model)], reference, TIMES, model)


def test_line_search_solves_where_full_newton_steps_overshoot():
    """The diode's loop alone (the case at the ambient): Newton's method from the operating
    point at 0.3 V, with the source at 5 V, ends far from the root after 50 iterations; with
    the line search it gives brentq's root to 1e-12 V."""
    v, source = ca.SX.sym("v"), ca.SX.sym("source")
    vt = BOLTZMANN * TAMB / CHARGE
    residual = IS * (ca.exp(v / vt) - 1) - (source - v) / R
    problem = ca.Function("diode", [v, source], [residual])
    newton = ca.rootfinder("diode_newton", "fast_newton", problem, NEWTON)
    start = brentq(lambda x: float(problem(x, LOW)), 0.0, LOW, xtol=1e-15)
    overshot = float(newton(start, HIGH))
    assert abs(float(problem(overshot, HIGH))) > 1.0  # Newton alone fails
    solved = damped_solution(residual, v, ca.SX(start), ca.SX(1), "diode", 50)
    value = float(ca.Function("solved", [source], [solved])(HIGH))
    root = brentq(lambda x: float(problem(x, HIGH)), 0.0, HIGH, xtol=1e-15)
    assert value == pytest.approx(root, abs=1e-12)


def test_line_search_is_skipped_where_not_wanted():
    """Where the loop's other solvers converged, the line search's branch gives NaN (not
    run)."""
    v = ca.SX.sym("v")
    solved = damped_solution(ca.exp(v) - 2, v, ca.SX(0.0), ca.SX(0), "skipped", 50)
    assert math.isnan(float(ca.evalf(solved)))
