"""Nonlinear loops of analog circuits that Newton's method alone does not solve.

An op-amp limited to its supplies without events (``noEvent``, as MSL's
``IdealizedOpAmpLimited``) makes a loop piecewise linear, its linear piece 3 mV of input wide
at a gain of 1e4. Started on a saturated piece, Newton's method cycles between the two
saturations; the loop is solved by Katzenelson's method
(``orchestrator/compiler/piecewise.py``).

``tests/data/analog_loops/AnalogLoops``: ``FloatingDifference``, a difference amplifier on two
sine phases (300 V, 50 Hz, 120 degrees apart) whose supplies' common is tied to the sources'
ground through 100 kOhm only, so that the supply potentials are unknowns of the loop (its
tearing variables at their start values put the limiter at -5 kV of gain times input, and
Newton on the whole loop from the start values divides by the supply voltage 0). Its
reference is the circuit's nodal analysis written here (Kirchhoff's current law at the four
nodes, the op-amp on its linear piece, checked to stay there), solved by numpy: values to
1e-6 V in all four variants (Newton's residual tolerance is 1e-9).
"""

from __future__ import annotations

import math
from pathlib import Path

import casadi as ca
import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus
from test_build_rumoca import MODELICA_PATH

from orchestrator.compiler.piecewise import held_relations, piecewise_solution

LIBRARY = Path(__file__).parents[1] / "data" / "analog_loops" / "AnalogLoops"
AMPLITUDE, FREQUENCY, SUPPLY, GAIN = 300.0, 50.0, 15.0, 1e4
R1 = R2 = 1e5  # Ohm: inputs
R3 = R4 = 1e3  # Ohm: feedback, non-inverting input to the common
R_LOAD = R_COMMON = 1e5  # Ohm
TIMES = np.linspace(0.0, 0.04, 81)
NEWTON = {"abstol": 1e-14, "abstolStep": 1e-14, "max_iter": 50, "error_on_fail": False}


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("analog_loops")
    return built_fmus(LIBRARY, out, library_path=[MODELICA_PATH])


def _floating_difference(t: float) -> tuple[float, float]:
    """Output to the common and the common's potential (V) at time ``t`` by nodal analysis:
    unknowns the potentials of the inverting input n, the non-inverting input p, the output o
    and the common c (the supplies' currents cancel at c); the op-amp on its linear piece."""
    a = AMPLITUDE * math.sin(2 * math.pi * FREQUENCY * t + math.pi / 3)
    b = AMPLITUDE * math.sin(2 * math.pi * FREQUENCY * t - math.pi / 3)
    #            n                  p                          o                        c
    matrix = [
        [-1 / R1 - 1 / R3, 0.0, 1 / R3, 0.0],
        [0.0, -1 / R2 - 1 / R4, 0.0, 1 / R4],
        [0.0, 1 / R4, 1 / R_LOAD, -1 / R4 - 1 / R_LOAD - 1 / R_COMMON],
        [GAIN, -GAIN, 1.0, 0.0],
    ]
    n, p, o, c = np.linalg.solve(matrix, [-a / R1, -b / R2, 0.0, 0.0])
    assert c - SUPPLY < GAIN * (p - n) < c + SUPPLY  # the linear piece
    return o - c, c


def test_floating_difference_amplifier_in_four_variants(fmus):
    values = np.array([_floating_difference(t) for t in TIMES])
    reference = {"v_out": values[:, 0], "v_common": values[:, 1]}
    model = "FloatingDifference"
    assert_agrees_in_four_variants(lambda v: fmus[(v, model)], reference, TIMES, model)


def test_piecewise_loop_where_newton_cycles():
    """v = sat(V0 (u - k v)) with saturation at +-15 (a follower with feedback k): Newton
    from v = 15 jumps between +15 and -15; Katzenelson's method gives the root on the linear
    piece, V0 u / (1 + V0 k), to 1e-12."""
    v, u = ca.SX.sym("v"), ca.SX.sym("u")
    k = 0.5
    drive = GAIN * (u - k * v)
    residual = v - ca.if_else(drive > SUPPLY, SUPPLY, ca.if_else(drive < -SUPPLY, -SUPPLY, drive))
    problem = ca.Function("limiter", [v, u], [residual])
    newton = ca.rootfinder("limiter_newton", "fast_newton", problem, NEWTON)
    cycled = float(newton(SUPPLY, 3.0))
    assert abs(float(problem(cycled, 3.0))) > 1.0  # Newton alone fails
    held = held_relations([residual], "limiter")
    assert held is not None and len(held.memories) == 2
    solved = piecewise_solution(held, v, ca.SX(SUPPLY), ca.SX(1), "limiter", NEWTON)
    value = float(ca.Function("solved", [u], [solved])(3.0))
    assert value == pytest.approx(GAIN * 3.0 / (1 + GAIN * k), abs=1e-12)


def test_piecewise_solution_is_skipped_where_not_wanted():
    """Where the loop's other solvers converged, the method's branch gives NaN (not run)."""
    v = ca.SX.sym("v")
    residual = v - ca.if_else(v > 1, 1, 2 * v) - 0.5
    held = held_relations([residual], "step")
    solved = piecewise_solution(held, v, ca.SX(0.0), ca.SX(0), "step", NEWTON)
    assert math.isnan(float(ca.evalf(solved)))
