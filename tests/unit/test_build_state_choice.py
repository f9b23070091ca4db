"""States chosen by stateSelect, checked where the model starts.

``tests/data/multibody_state_choice/StateChoice`` holds ``HangingSpring``: a point mass on a
spring-damper to a fixed anchor, whose length ``s = sqrt(r*r)`` is a candidate state beside
the mass's position ``r`` (``StateSelect.avoid``, as a MultiBody body's position is beside a
line force's length, MSL's ``Examples.Elementary.HeatLosses``). Index reduction keeps ``s``
and demotes a component of ``r``, solved from ``s``; by priority alone (the generic rank, the
component declared last first) that is ``r[3]``, which is 0 at the start: there the length
does not determine it, and the FMU stopped at initialization with a derivative that was not
a number. Checked at the start point, ``r[2]`` (-0.2 m there) is demoted instead.

The FMUs are held in all four variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation)
to the same mechanics integrated by SciPy in the mass's position and velocity alone (no
length, no constraint), to 1e-6: CVode at 1e-10 in FMPy for Model Exchange, the FMUs'
Dormand-Prince at 1e-9 for Co-Simulation, SciPy at 1e-12.
"""

from __future__ import annotations

import logging
from pathlib import Path

import casadi as ca
import numpy as np
import pytest
from build_variants import LogLines, assert_agrees_in_four_variants, built_fmus
from fmpy import read_model_description
from modelica_support import STATE_CHOICE
from scipy.integrate import solve_ivp

from orchestrator.compiler.index_reduction import reduce_index, start_point

LIBRARY = Path(__file__).parents[1] / "data" / "multibody_state_choice" / "StateChoice"
TIMES = np.linspace(0.0, 2.0, 9)
# HangingSpring's parameters: mass (kg), spring (N/m) and damping (N s/m) constants,
# unstretched length (m), gravity (m/s^2) along -y; its start position (m) and velocity (m/s)
MASS, C, D, S0, G = 1.0, 30.0, 2.0, 0.1, 9.81
R0, V0 = np.array([0.0, -0.2, 0.0]), np.array([0.5, 0.0, 0.0])


def hanging_spring() -> dict[str, np.ndarray]:
    """HangingSpring at TIMES: m r'' = -(c (|r| - s0) + d d|r|/dt) r / |r| + m g."""

    def rate(_t, z):
        r, v = z[:3], z[3:]
        s = np.linalg.norm(r)
        tension = C * (s - S0) + D * (r @ v) / s
        return np.concatenate([v, -tension * r / (MASS * s) + [0.0, -G, 0.0]])

    sol = solve_ivp(rate, (0, TIMES[-1]), np.concatenate([R0, V0]), t_eval=TIMES, rtol=1e-12,
                    atol=1e-12)  # fmt: skip
    r = sol.y[:3]
    return {"r[1]": r[0], "r[2]": r[1], "v[1]": sol.y[3], "s": np.linalg.norm(r, axis=0)}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    messages = LogLines(logging.INFO)
    logger = logging.getLogger("orchestrator.compiler.index_reduction")
    level = logger.level
    logger.addHandler(messages)
    logger.setLevel(logging.INFO)
    try:
        fmus = built_fmus(LIBRARY, tmp_path_factory.mktemp("state_choice"))
    finally:
        logger.removeHandler(messages)
        logger.setLevel(level)
    return fmus, messages.lines


def test_state_singular_at_the_start_is_chosen_again_there(built):
    fmus, messages = built
    reference = hanging_spring()
    assert np.all(reference["r[2]"] < -0.1)  # r[2] stays away from 0: the choice holds
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "HangingSpring")], reference, TIMES, "HangingSpring"
    )
    states = {
        d.variable.derivative.name
        for d in read_model_description(str(fmus[("me", "HangingSpring")])).derivatives
    }
    assert states == {"r[1]", "r[3]", "v[1]", "v[2]", "v[3]", "s"}
    assert messages == [
        "StateChoice.HangingSpring: the states chosen by priority are singular at the start; "
        "states chosen there: r[3]"
    ]


def _hanging_spring_residuals():
    """HangingSpring's equations as index reduction receives them."""
    r, v, dr, dv = (ca.SX.sym(n, 3) for n in ("r", "v", "der_r", "der_v"))
    s, ds, f, t = (ca.SX.sym(n) for n in ("s", "der_s", "f", "t"))
    residuals = ca.vertsplit(dr - v)
    residuals += [s - ca.sqrt(ca.dot(r, r)), f - (C * (s - S0) + D * ds)]
    residuals += ca.vertsplit(MASS * dv + f * r / s - MASS * ca.DM([0, -G, 0]))
    states = ca.vertsplit(r) + ca.vertsplit(v) + [s]
    derivatives = ca.vertsplit(dr) + ca.vertsplit(dv) + [ds]
    # stateSelect avoid (1) with a fixed start for r and v, default (2) for s: 2 p + fixed
    priority = [3] * 6 + [4]
    return residuals, states, derivatives, [f], t, priority


def test_generic_choice_and_choice_at_the_start_point():
    residuals, states, derivatives, algebraics, t, priority = _hanging_spring_residuals()
    generic = reduce_index(residuals, states, derivatives, algebraics, t, priority, "M")
    assert [x.name() for x in generic.dummy_states] == ["r_2"]  # r[3]: declared last
    known = {"r_0": R0[0], "r_1": R0[1], "r_2": R0[2], "v_0": V0[0], "v_1": V0[1], "v_2": V0[2]}
    at_start = reduce_index(
        residuals, states, derivatives, algebraics, t, priority, "M", known=known, guesses={}
    )
    assert [x.name() for x in at_start.dummy_states] == ["r_1"]
    # the length, from the positions by its equation (linear in s): Newton's guess
    assert at_start.start["s"] == pytest.approx(0.2, abs=1e-15)


def test_start_point_takes_known_values_then_equations_then_guesses():
    x, y, z, p = (ca.SX.sym(n) for n in ("x", "y", "z", "p"))
    t = ca.SX.sym("t")
    residuals = [y - 2 * x - p, z * z - y, x * t]
    given, point = start_point(residuals, t, {"x": 1.5, "p": 0.5}, {"z": -2.0, "y": 9.0})
    named = {s.name(): point[s.element_hash()] for s in (x, y, z, p)}
    # y from its linear equation, not its guess; z, which no equation gives linearly, guessed
    assert named == {"x": 1.5, "y": 3.5, "z": -2.0, "p": 0.5}
    assert z.element_hash() not in given and given[y.element_hash()] == 3.5


def test_readme_rows_name_tests_of_this_file():
    tests = {name for name in globals() if name.startswith("test_")}
    assert {test for _, test in STATE_CHOICE} <= tests
