"""Quaternion states held by their unit norm, as MSL's MultiBody writes them.

MSL's ``Parts.Body`` and ``Joints.FreeMotion`` give a frame's orientation by four quaternion
components ``Q`` (``StateSelect.avoid``) with one constraint, ``{0} =
orientationConstraint(Q)`` (``Q*Q = 1``), and the angular velocity ``w =
angularVelocity2(Q, der(Q))``; Dymola selects three of the four as states dynamically.
States chosen once, when the model is built, cannot: with ``Q[4]`` solved from the norm, the
solve is singular where ``Q[4] = 0`` (a turn by pi), with ``Q[1]`` at the start, and MSL's
``Examples.Elementary.PointGravityWithPointMasses2`` stopped at 1.62 s where the positions
of other point masses, chosen in their place at the start, stopped determining the
orientation. Index reduction keeps all four as states instead (the norm is used
differentiated, ``Q*der(Q) = 0``, and as written as an initial condition: the bodies fix
``Q[1:3]`` at the start and give ``Q[4]`` the start 0.5, a guess from which the norm gives 1).

``tests/data/multibody_quaternions/QuaternionLib`` holds a free rigid body spinning near its
intermediate principal axis, which flips over (Dzhanibekov's effect): its orientation turns by
more than pi about every axis in 6 s, ``Q[4]`` passes through 0. ``TumblingBody`` is that
body, ``TumblingMarker`` adds a point fixed on it whose position and velocity are candidate
states (as a point mass's ``r_0``, ``v_0``), so that the norm is differentiated twice. Both
are held in all four variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation) to
Euler's equations and ``der(Q) = G(Q)' w / 2`` integrated by SciPy (DOP853 at 1e-12), to 1e-6
(CVode at 1e-10 in FMPy for Model Exchange; the FMUs' Dormand-Prince at 1e-9 for
Co-Simulation).
"""

from __future__ import annotations

from pathlib import Path

import casadi as ca
import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, shared_fmus
from fmpy import read_model_description
from modelica_support import QUATERNION_STATES
from scipy.integrate import solve_ivp

from orchestrator.compiler.index_reduction import reduce_index

DATA = Path(__file__).parents[1] / "data"
LIBRARY = DATA / "multibody_quaternions" / "QuaternionLib"
MODELICA_PATH = DATA / "modelica_path"
TIMES = np.linspace(0.0, 6.0, 25)
INERTIA = np.array([1.0, 2.0, 3.0])  # kg m^2: principal moments
W0 = np.array([0.05, 2.0, 0.05])  # rad/s: start angular velocity, in the body frame
MARKER = np.array([0.0, 0.0, 1.0])  # m: TumblingMarker's point, in the body frame


def _g(q: np.ndarray) -> np.ndarray:
    """MSL's angularVelocity2 matrix: w = 2 G(Q) der(Q), G G' = I, G Q = 0 (Q scalar last)."""
    q1, q2, q3, q4 = q
    return np.array([[q4, q3, -q2, -q1], [-q3, q4, q1, -q2], [q2, -q1, q4, -q3]])


def _resolve1(q: np.ndarray, v2: np.ndarray) -> np.ndarray:
    """A body-frame vector resolved in the world frame (MSL's Quaternions.resolve1)."""
    return 2 * ((q[3] ** 2 - 0.5) * v2 + (q[:3] @ v2) * q[:3] - q[3] * np.cross(q[:3], v2))


def tumbling() -> dict[str, np.ndarray]:
    """The body at TIMES: Euler's equations and der(Q) = G(Q)' w / 2 from Q = (0, 0, 0, 1)."""
    i1, i2, i3 = INERTIA

    def rate(_t, z):
        q, w = z[:4], z[4:]
        torque_free = [(i2 - i3) * w[1] * w[2] / i1, (i3 - i1) * w[2] * w[0] / i2,
                       (i1 - i2) * w[0] * w[1] / i3]  # fmt: skip
        return np.concatenate([_g(q).T @ w / 2, torque_free])

    start = np.concatenate([[0.0, 0.0, 0.0, 1.0], W0])
    sol = solve_ivp(rate, (0, TIMES[-1]), start, t_eval=TIMES, method="DOP853", rtol=1e-12,
                    atol=1e-12)  # fmt: skip
    q, w = sol.y[:4], sol.y[4:]
    solution = {f"Q[{k + 1}]": q[k] for k in range(4)} | {f"w[{k + 1}]": w[k] for k in range(3)}
    return solution


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return shared_fmus(tmp_path_factory, LIBRARY, [MODELICA_PATH])


def _states(fmu: Path) -> set[str]:
    return {d.variable.derivative.name for d in read_model_description(str(fmu)).derivatives}


def test_quaternion_components_stay_states_through_a_turn_by_pi(fmus):
    reference = tumbling()
    assert reference["Q[4]"].min() < -0.5 < 0.5 < reference["Q[4]"].max()  # Q[4] crosses 0
    assert reference["Q[1]"].min() < -0.5 or reference["Q[1]"].max() > 0.5
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "TumblingBody")], reference, TIMES, "TumblingBody"
    )
    assert _states(fmus[("me", "TumblingBody")]) == {"Q[1]", "Q[2]", "Q[3]", "Q[4]", "w[1]",
                                                     "w[2]", "w[3]"}  # fmt: skip


def test_point_on_the_body_leaves_the_quaternions_states(fmus):
    reference = tumbling()
    q = np.array([reference[f"Q[{k + 1}]"] for k in range(4)])
    r = np.array([_resolve1(q[:, j], MARKER) for j in range(len(TIMES))]).T
    reference |= {f"r[{k + 1}]": r[k] for k in range(3)}
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "TumblingMarker")], reference, TIMES, "TumblingMarker"
    )
    assert {"Q[1]", "Q[2]", "Q[3]", "Q[4]"} <= _states(fmus[("me", "TumblingMarker")])


def test_norm_is_held_differentiated_and_returned_as_an_invariant():
    """reduce_index on TumblingBody's kinematics: the four components stay states, the norm's
    derivative takes its place among the residuals, the norm itself is the invariant."""
    q, dq = ca.SX.sym("Q", 4), ca.SX.sym("der_Q", 4)
    w, dw, t = ca.SX.sym("w", 3), ca.SX.sym("der_w", 3), ca.SX.sym("t")
    g = ca.vertcat(
        ca.horzcat(q[3], q[2], -q[1], -q[0]),
        ca.horzcat(-q[2], q[3], q[0], -q[1]),
        ca.horzcat(q[1], -q[0], q[3], -q[2]),
    )
    norm = ca.dot(q, q) - 1
    residuals = ca.vertsplit(w - 2 * g @ dq) + [norm] + ca.vertsplit(dw)
    states, rates = ca.vertsplit(q) + ca.vertsplit(w), ca.vertsplit(dq) + ca.vertsplit(dw)
    reduced = reduce_index(residuals, states, rates, [], t, [1] * 7, "TumblingBody")
    assert [x.name() for x in reduced.states] == [x.name() for x in states]
    assert reduced.dummy_states == [] and len(reduced.invariants) == 1
    held = reduced.residuals[3]  # in the norm's place: 2 Q der(Q)
    differences = ca.vertcat(reduced.invariants[0] - norm, held - 2 * ca.dot(q, dq))
    at = ca.Function("differences", [q, dq], [differences])
    assert np.abs(at([0.1, -0.4, 0.3, 0.8], [0.5, 0.2, -0.7, 0.1]).full()).max() < 1e-15
    assert len(reduced.residuals) == len(reduced.derivatives) + len(reduced.algebraics)


def test_readme_rows_name_tests_of_this_file():
    tests = {name for name in globals() if name.startswith("test_")}
    assert {test for _, test in QUATERNION_STATES} <= tests
