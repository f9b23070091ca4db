"""Index reduction (Pantelides + dummy derivatives): reduced models checked against physics."""

from __future__ import annotations

import math
import re

import casadi as ca
import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.special import ellipk

from orchestrator.compiler import index_reduction
from orchestrator.compiler.causalize import CausalizationError, causalize
from orchestrator.compiler.index_reduction import reduce_index
from orchestrator.errors import BuildError

DEFAULT, PREFER = 2, 3
TIME = ca.SX.sym("time")


def declare(*names: str) -> tuple[list[ca.SX], list[ca.SX]]:
    """States and their der-symbols, named as the Modelica front end names them."""
    return [ca.SX.sym(n) for n in names], [ca.SX.sym(f"der({n})") for n in names]


def names(symbols: list[ca.SX]) -> list[str]:
    return [s.name() for s in symbols]


def explicit(residuals, unknowns, model) -> dict[str, ca.SX]:
    """Every unknown as an expression of the knowns, from the causalized assignments."""
    solved: list[ca.SX] = []
    values: list[ca.SX] = []
    for item in causalize(residuals, unknowns, model):
        expression = ca.substitute([item.expression], solved, values)[0]
        solved.append(item.unknown)
        values.append(expression)
    return {s.name(): v for s, v in zip(solved, values, strict=True)}


def of_states(reduced, wanted: list[str]) -> ca.Function:
    """The variables named ``wanted`` as a function of the reduced model's states."""
    solved = explicit(reduced.residuals, reduced.derivatives + reduced.algebraics, "Model")
    state = dict(zip(names(reduced.states), reduced.states, strict=True))
    outputs = [solved[n] if n in solved else state[n] for n in wanted]
    return ca.Function("of_states", [ca.vertcat(*reduced.states)], [ca.vertcat(*outputs)])


def test_index_one_system_is_returned_unchanged():
    (x, v), (dx, dv) = declare("x", "v")
    f = ca.SX.sym("f")
    residuals = [dx - v, 2 * dv - f, f + 3 * x + 0.5 * v]
    reduced = reduce_index(residuals, [x, v], [dx, dv], [f], TIME, [DEFAULT] * 2, "Spring")
    assert all(a is b for a, b in zip(reduced.residuals, residuals, strict=True))
    assert names(reduced.states) == ["x", "v"]
    assert names(reduced.derivatives) == ["der(x)", "der(v)"]
    assert names(reduced.algebraics) == ["f"]
    assert reduced.dummy_states == []
    assert reduced.differentiated == [0, 0, 0]


def test_fast_path_on_a_long_chain_builds_no_reduction(monkeypatch):
    """900 equations of index 1 (a chain of 300 masses and springs) take the matching only."""

    def refuse(*_):
        raise AssertionError("the index-1 system went into index reduction")

    monkeypatch.setattr(index_reduction, "_check_nonsingular", refuse)
    monkeypatch.setattr(index_reduction, "_pantelides", refuse)
    n = 300
    xs, dxs = declare(*[f"x{i}" for i in range(n)])
    vs, dvs = declare(*[f"v{i}" for i in range(n)])
    forces = [ca.SX.sym(f"f{i}") for i in range(n)]
    residuals = [dx - v for dx, v in zip(dxs, vs, strict=True)]
    residuals += [dv - forces[i] + (forces[i + 1] if i + 1 < n else 0) for i, dv in enumerate(dvs)]
    residuals += [forces[i] - 10 * (xs[i] - (xs[i - 1] if i else 0)) for i in range(n)]
    reduced = reduce_index(residuals, xs + vs, dxs + dvs, forces, TIME, [DEFAULT] * 2 * n, "Chain")
    assert reduced.differentiated == [0] * 3 * n
    assert all(a is b for a, b in zip(reduced.residuals, residuals, strict=True))


def spring_damper_mass(priority: list[int]):
    """A mass on a spring-damper whose relative position and speed are states too.

    MSL style: the fixed flange at s_a = 0, ``s_rel = s - s_a``, ``v_rel = der(s_rel)``,
    ``a_rel = der(v_rel)``, ``f = c s_rel + d v_rel`` and the mass ``m der(v) = -f``.
    """
    m, c, d = 1.5, 40.0, 0.9
    states, ders = declare("s", "v", "s_rel", "v_rel")
    s, v, s_rel, v_rel = states
    ds, dv, ds_rel, dv_rel = ders
    s_a, f, a_rel = ca.SX.sym("s_a"), ca.SX.sym("f"), ca.SX.sym("a_rel")
    residuals = [
        s_a,
        s_rel - (s - s_a),
        v_rel - ds_rel,
        f - (c * s_rel + d * v_rel),
        ds - v,
        m * dv + f,
        a_rel - dv_rel,
    ]
    reduced = reduce_index(residuals, states, ders, [s_a, f, a_rel], TIME, priority, "Mass")
    return reduced, (m, c, d)


@pytest.mark.parametrize(
    ("priority", "kept", "demoted"),
    [
        ([DEFAULT] * 4, ["s", "v"], ["s_rel", "v_rel"]),
        ([DEFAULT, DEFAULT, PREFER, PREFER], ["s_rel", "v_rel"], ["s", "v"]),
    ],
)
def test_mass_with_relative_states_integrates_as_damped_oscillator(priority, kept, demoted):
    reduced, (m, c, d) = spring_damper_mass(priority)
    assert names(reduced.states) == kept
    assert names(reduced.dummy_states) == demoted
    # s_a = 0 and s_rel = s - s_a are differentiated twice, v_rel = der(s_rel) and der(s) = v once.
    assert reduced.differentiated == [2, 2, 1, 0, 1, 0, 0]
    assert len(reduced.residuals) == len(reduced.derivatives) + len(reduced.algebraics)
    rhs = of_states(reduced, names(reduced.derivatives))
    position = of_states(reduced, ["s"])

    s0, v0 = 0.1, 0.3  # both pairs of states start at these values: s_a = 0
    t = np.linspace(0.0, 3.0, 61)
    sol = solve_ivp(
        lambda _, z: np.asarray(rhs(z)).ravel(),
        (t[0], t[-1]),
        [s0, v0],
        method="DOP853",
        t_eval=t,
        rtol=1e-11,
        atol=1e-13,
    )
    assert sol.success
    simulated = np.array([float(position(z)) for z in sol.y.T])

    w0 = math.sqrt(c / m)
    zeta = d / (2 * math.sqrt(c * m))
    wd = w0 * math.sqrt(1 - zeta**2)
    exact = np.exp(-zeta * w0 * t) * (
        s0 * np.cos(wd * t) + (v0 + zeta * w0 * s0) / wd * np.sin(wd * t)
    )
    assert np.max(np.abs(simulated - exact)) < 1e-6


def test_rigidly_coupled_inertias_accelerate_as_one_inertia():
    """Inertia 1, driven by an input torque and a spring, drives inertia 2 through an ideal gear.

    ``phi2 = ratio phi1`` and the gear transmits power, so the combined inertia seen from
    shaft 1 is ``J1 + ratio^2 J2``: ``der(w1) = (tau - k phi1) / (J1 + ratio^2 J2)``.
    """
    J1, J2, ratio, k = 0.4, 1.3, 2.5, 7.0
    states, ders = declare("phi1", "w1", "phi2", "w2")
    phi1, w1, phi2, w2 = states
    dphi1, dw1, dphi2, dw2 = ders
    tau_gear, tau = ca.SX.sym("tau_gear"), ca.SX.sym("tau")
    residuals = [
        dphi1 - w1,
        J1 * dw1 - (tau - k * phi1 - tau_gear),
        dphi2 - w2,
        J2 * dw2 - tau_gear / ratio,
        phi2 - ratio * phi1,
    ]
    reduced = reduce_index(
        residuals, states, ders, [tau_gear], TIME, [DEFAULT] * 4, "Gear", inputs=[tau]
    )
    assert names(reduced.states) == ["phi1", "w1"]
    assert names(reduced.dummy_states) == ["phi2", "w2"]
    assert reduced.differentiated == [1, 0, 1, 0, 2]
    assert len(reduced.residuals) == len(reduced.derivatives) + len(reduced.algebraics)
    solved = explicit(reduced.residuals, reduced.derivatives + reduced.algebraics, "Gear")
    wanted = ["der(w1)", "der(w2)", "w2", "phi2"]
    evaluate = ca.Function("gear", [phi1, w1, tau], [solved[n] for n in wanted])
    phi1_value, w1_value, tau_value = 0.2, -0.7, 3.0
    acceleration = (tau_value - k * phi1_value) / (J1 + ratio**2 * J2)
    values = [float(v) for v in evaluate(phi1_value, w1_value, tau_value)]
    expected = [acceleration, ratio * acceleration, ratio * w1_value, ratio * phi1_value]
    assert values == pytest.approx(expected, rel=1e-12)


def test_pendulum_in_cartesian_coordinates_keeps_its_period_and_energy():
    """Index 3: ``x^2 + y^2 = L^2``, ``m der(vx) = -lambda x``, ``m der(vy) = -lambda y - m g``.

    x and vx are preferred states, so y and vy become dummy states; that choice holds while
    the pendulum hangs well below the pivot (y stays away from 0), hence the small amplitude:
    the states are chosen once, dynamic state selection is not done.
    The constraint is nonlinear in y, which causalize() rejects as a nonlinear loop, so the
    reduced equations are solved by Newton's method at every right-hand side evaluation.
    """
    m, g, L, amplitude = 0.8, 9.81, 1.2, 0.05
    states, ders = declare("x", "y", "vx", "vy")
    x, y, vx, vy = states
    dx, dy, dvx, dvy = ders
    lam = ca.SX.sym("lambda")
    residuals = [dx - vx, dy - vy, m * dvx + lam * x, m * dvy + lam * y + m * g, x**2 + y**2 - L**2]
    reduced = reduce_index(
        residuals, states, ders, [lam], TIME, [PREFER, DEFAULT, PREFER, DEFAULT], "Pendulum"
    )
    assert names(reduced.states) == ["x", "vx"]
    assert names(reduced.dummy_states) == ["y", "vy"]
    assert reduced.differentiated == [1, 1, 0, 0, 2]
    assert {"der(der(x))", "der(der(y))"} <= set(names(reduced.algebraics))
    unknowns = ca.vertcat(*reduced.derivatives, *reduced.algebraics)
    assert unknowns.numel() == len(reduced.residuals)

    known = ca.vertcat(*reduced.states)
    equations = ca.Function("equations", [unknowns, known], [ca.vertcat(*reduced.residuals)])
    newton = ca.rootfinder("newton", "newton", equations, {"abstol": 1e-14})
    order = names(reduced.derivatives) + names(reduced.algebraics)
    guess = np.zeros(len(order))
    guess[order.index("y")] = -L
    guess[order.index("lambda")] = m * g / L
    last = [guess]

    def solve(state: np.ndarray) -> dict[str, float]:
        last[0] = np.asarray(newton(last[0], state)).ravel()
        return dict(zip(order, last[0], strict=True))

    def rhs(_: float, state: np.ndarray) -> list[float]:
        solution = solve(state)
        return [solution["der(x)"], solution["der(vx)"]]

    def crossing(_: float, state: np.ndarray) -> float:
        return state[0]

    crossing.direction = -1.0
    start = [L * math.sin(amplitude), 0.0]
    period = 2 * math.pi * math.sqrt(L / g)
    sol = solve_ivp(
        rhs,
        (0.0, 3.2 * period),
        start,
        method="DOP853",
        events=crossing,
        dense_output=True,
        rtol=1e-11,
        atol=1e-12,
    )
    assert sol.success

    (downward,) = sol.t_events
    measured = np.diff(downward)
    assert len(measured) == 2
    # Small-angle period to 1e-3; exact period (complete elliptic integral) to 1e-7.
    exact = 4 * math.sqrt(L / g) * ellipk(math.sin(amplitude / 2) ** 2)
    assert measured == pytest.approx([period] * 2, rel=1e-3)
    assert measured == pytest.approx([exact] * 2, rel=1e-7)

    def energy(state: np.ndarray) -> float:
        solution = solve(state)
        return 0.5 * m * (state[1] ** 2 + solution["vy"] ** 2) + m * g * solution["y"]

    energies = [energy(sol.sol(t)) for t in np.linspace(0.0, sol.t[-1], 200)]
    assert energies[0] == pytest.approx(-m * g * L * math.cos(amplitude), rel=1e-12)
    assert max(abs(e - energies[0]) for e in energies) < 1e-6


def test_input_in_a_differentiated_equation_is_a_one_line_error():
    (x, v), (dx, dv) = declare("x", "v")
    f, u = ca.SX.sym("f"), ca.SX.sym("u")
    residuals = [dx - v, 2 * dv - f, x - u]  # the position follows the input u: index 3
    with pytest.raises(BuildError) as error:
        reduce_index(residuals, [x, v], [dx, dv], [f], TIME, [DEFAULT] * 2, "Follower", inputs=[u])
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("Follower: ")
    assert "0 = (x-u)" in message
    assert "needs the derivative of input 'u'" in message


def test_time_in_a_differentiated_equation_is_differentiated():
    """The position follows sin(2 t): the force is m der(der(x)) = -4 m sin(2 t)."""
    (x, v), (dx, dv) = declare("x", "v")
    f = ca.SX.sym("f")
    residuals = [dx - v, 2 * dv - f, x - ca.sin(2 * TIME)]
    reduced = reduce_index(residuals, [x, v], [dx, dv], [f], TIME, [DEFAULT] * 2, "Follower")
    assert reduced.states == []
    assert names(reduced.dummy_states) == ["x", "v"]
    solved = explicit(reduced.residuals, reduced.derivatives + reduced.algebraics, "Follower")
    force = ca.Function("f", [TIME], [solved["f"]])
    assert float(force(0.3)) == pytest.approx(-8 * math.sin(0.6), rel=1e-12)


@pytest.mark.parametrize(
    ("residuals", "named"),
    [
        (  # two equations for z1, none for z2
            lambda dx, x, z1, z2: [dx + x - z1, z1 - 1, 2 * z1 - 3],
            r"equation\(s\): (\(z1-1\)|\(\(2\.\*z1\)-3\)); no equation left for: z2$",
        ),
        (  # x is fixed twice, z1 and z2 share one equation
            lambda dx, x, z1, z2: [dx + z1 + z2, x - 1, x - 2],
            r"equation\(s\): \(x-[12]\); no equation left for: z[12]$",
        ),
    ],
)
def test_structurally_singular_system_is_a_one_line_error(residuals, named):
    (x,), (dx,) = declare("x")
    z1, z2 = ca.SX.sym("z1"), ca.SX.sym("z2")
    with pytest.raises(CausalizationError) as error:
        reduce_index(residuals(dx, x, z1, z2), [x], [dx], [z1, z2], TIME, [DEFAULT], "Broken")
    message = str(error.value)
    assert "\n" not in message
    prefix = "Broken: structurally singular, not a higher-index problem: no unknown left for "
    assert message.startswith(prefix)
    assert re.search(named, message), message


@pytest.mark.parametrize(
    ("priority", "dummy"),
    [([PREFER, DEFAULT], "x2"), ([DEFAULT, PREFER], "x1"), ([DEFAULT, DEFAULT], "x2")],
)
def test_the_state_of_lower_priority_becomes_the_dummy(priority, dummy):
    """``x1 + x2 = 1`` leaves one state; ``der(x1) = -x1 + z``, ``der(x2) = -2 x2 + 3 z``.

    Differentiating the constraint gives ``z = (x1 + 2 x2) / 4``.
    """
    (x1, x2), (dx1, dx2) = declare("x1", "x2")
    z = ca.SX.sym("z")
    residuals = [dx1 + x1 - z, dx2 + 2 * x2 - 3 * z, x1 + x2 - 1]
    reduced = reduce_index(residuals, [x1, x2], [dx1, dx2], [z], TIME, priority, "Pair")
    assert names(reduced.dummy_states) == [dummy]
    (kept,) = reduced.states
    assert names(reduced.algebraics) == ["z", dummy, f"der({dummy})"]
    assert reduced.differentiated == [0, 0, 1]
    solved = explicit(reduced.residuals, reduced.derivatives + reduced.algebraics, "Pair")
    rates = ca.Function("rates", [kept], [solved["der(x1)"], solved["der(x2)"]])
    value = 0.3 if kept.name() == "x1" else 0.7  # x1 = 0.3, x2 = 0.7 either way
    rate = -0.3 + (0.3 + 2 * 0.7) / 4
    assert [float(r) for r in rates(value)] == pytest.approx([rate, -rate], rel=1e-12)
