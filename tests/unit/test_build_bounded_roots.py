"""Nonlinear loops whose roots lie outside an unknown's declared ``min`` or ``max``.

``tests/data/bounded_roots/BoundedRoots``: ``PoweredBus``, a bus fed by a source stepping from
4 V to 12 V at 0.525 s through a conductance G1 = 1 S and by a constant-power source (5 W into
the circuit, its voltage declared ``min = 0``), loading a capacitor (C = 0.01 F) through G2 =
0.01 S. The bus voltage ``v`` solves ``a v^2 - b v - P = 0`` (a = G1 + G2, b = G1 vs + G2 vc),
whose roots are one above and one below zero; the loop is torn on ``v``, and Newton from the
bus voltage before the step (5 V, left of the parabola's vertex at 6 V after it) converges to
the root below zero, -0.40 V. Before the bounds counted, the FMU went on with that root
without a message; now a solution outside ``min`` counts as not solved
(``orchestrator/compiler/root_bounds.py``), and Newton from the start value (12 V) gives the
root the source feeds, 12.3 V. ``CappedBus`` rates the feed up to 10 V (``max = 10``): after
the step neither root lies within the range, and the run stops there with one line naming the
loop and the bounds.

Reference: the positive root in closed form and the capacitor's ``C vc' = G2 (v - vc)`` by
SciPy's ``solve_ivp`` (RK45 at rtol = atol = 1e-12, restarted at the step). Tolerance 1e-6 in
all four variants.
"""

from __future__ import annotations

import math
from pathlib import Path

import casadi as ca
import numpy as np
import pytest
from build_variants import VARIANTS, assert_agrees_in_four_variants, built_fmus, fmpy_messages
from fmpy import simulate_fmu
from modelica_support import BOUNDED_ROOTS
from scipy.integrate import solve_ivp
from test_build_rumoca import MODELICA_PATH

from orchestrator.compiler.root_bounds import bounded, within

LIBRARY = Path(__file__).parents[1] / "data" / "bounded_roots" / "BoundedRoots"
G1, G2, C, P = 1.0, 0.01, 0.01, 5.0  # S, S, F, W
LOW, HIGH, STEP = 4.0, 12.0, 0.525  # V, V, s (the step between output points)
TIMES = np.linspace(0.0, 2.0, 41)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("bounded_roots")
    return built_fmus(LIBRARY, out, library_path=[MODELICA_PATH])


def _bus(source: float, vc: float) -> float:
    """The bus voltage (V) above zero at a source voltage and capacitor voltage."""
    a, b = G1 + G2, G1 * source + G2 * vc
    return (b + math.sqrt(b * b + 4 * a * P)) / (2 * a)


def _powered_bus() -> dict[str, np.ndarray]:
    def source(t: float) -> float:
        return LOW if t < STEP else HIGH

    def charging(t: float, y: np.ndarray) -> list[float]:
        return [G2 * (_bus(source(t), y[0]) - y[0]) / C]

    before = solve_ivp(charging, (0.0, STEP), [0.0], rtol=1e-12, atol=1e-12, dense_output=True)
    after = solve_ivp(
        charging, (STEP, TIMES[-1]), before.y[:, -1], rtol=1e-12, atol=1e-12, dense_output=True
    )
    vc = np.array([(before if t < STEP else after).sol(t)[0] for t in TIMES])
    v = np.array([_bus(source(t), c) for t, c in zip(TIMES, vc, strict=True)])
    return {"v": v, "vc": vc}


def test_a_root_below_min_counts_as_unsolved_in_four_variants(fmus):
    reference = _powered_bus()
    # Newton from the bus voltage just before the step lands on the root below zero
    vc = float(np.interp(STEP, TIMES, reference["vc"]))
    a, b = G1 + G2, G1 * HIGH + G2 * vc
    before = _bus(LOW, vc)
    assert before < b / (2 * a) and reference["v"][-1] > 12.0
    model = "PoweredBus"
    assert_agrees_in_four_variants(lambda v: fmus[(v, model)], reference, TIMES, model)


def test_no_root_within_min_and_max_stops_in_one_line(fmus):
    """CappedBus: both roots after the step lie outside [0, 10] V; the run stops at the step
    with the loop's message, which names the bounds."""
    for variant, interface in VARIANTS:
        with fmpy_messages() as (logged, logger), pytest.raises(Exception, match="failed"):
            simulate_fmu(
                str(fmus[(variant, "CappedBus")]),
                fmi_type=interface,
                stop_time=1.0,
                output_interval=0.05,
                relative_tolerance=1e-10,
                logger=logger,
            )
        text = b"\n".join(logged).decode()
        assert "nonlinear algebraic loop did not converge" in text, (variant, interface, text)
        assert "within the min and max of feed.v" in text, (variant, interface, text)
        failed_at = float(text.split("assert failed at t = ")[1].split(" s")[0])
        assert STEP - 1e-6 <= failed_at < 0.6, (variant, interface, failed_at)


def test_within_holds_values_to_their_bounds_with_the_loops_slack():
    """A root at its bound passes with Newton's round-off; beyond the slack it does not."""
    x = [ca.SX.sym("x"), ca.SX.sym("free"), ca.SX.sym("y")]
    limits = bounded(x, {"x": (0.0, math.inf), "y": (-1.0, 2.0), "free": (-math.inf, math.inf)})
    assert limits == [(0, 0.0, math.inf), (2, -1.0, 2.0)]
    inside = ca.Function("inside", [ca.vertcat(*x)], [within(ca.vertcat(*x), limits)])
    assert float(inside([-1e-12, -1e9, 2.0])) == 1.0
    assert float(inside([-1e-6, 0.0, 0.0])) == 0.0
    assert float(inside([0.0, 0.0, 2.0 + 1e-6])) == 0.0


def test_construct_table_names_these_tests():
    assert {test for _, _, test in BOUNDED_ROOTS} <= {n for n in globals() if n.startswith("test_")}
