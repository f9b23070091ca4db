"""Ideal diodes commutating at events, and a switch whose event iteration truly cycles.

``tests/data/commutation/Commutation``: ``BridgeRectifier``, a single-phase bridge of four
ideal diodes (MSL's characteristic: ``Ron`` conducting, ``Goff`` blocking, knee ``Vknee``;
1 mOhm, 1 mS, 2 V as MSL's ``Rectifier``) fed from 325 V, 50 Hz through a 1 mH line inductor,
charging 2 mF with a 10 Ohm load. The line current flows in pulses; each starts where a
diagonal pair reaches its knee together, fed only by the line inductor and the other pair's
leakage. Conducting, the pair's ``s`` (the current both carry, less the knee current) is
within the indicator's hysteresis (1e-10) of zero with a sign set by round-off: decided by its
sign at each pass, the event iteration flipped a diode at every pass and stopped at 2.43591 ms
("did not settle in 100 passes", in all four variants). Decided with the relation memory of
the passes after the first (``orchestrator/compiler/events.py``), the pair conducts.

Its reference is written here: in each conduction mode (which diodes conduct) the circuit is
linear, ``y' = A y + g sin(w t) + c`` over the line current and the DC voltage, given by the
nodal analysis of the bridge and solved exactly (matrix exponential and the forced sinusoidal
response); a diode's mode changes where its voltage crosses its knee (located by Brent's
method), and a diode that the crossing leaves inconsistent a nanosecond later (its partner in
the pair) changes with it. The FMUs agree to 1e-6 A and 1e-6 V (CVode and the embedded
integrator at 1e-10, on a line current of up to 150 A and 340 V) in all four variants.

``Flipping``: ``on = u > 0`` with ``u = time - 1 + (if on then -0.5 else 0.5)`` has no
consistent state from 0.5 s to 1.5 s; each pass changes ``u`` by 1, far more than the
hysteresis, and every variant stops at 0.5 s with the one line of the iteration's limit.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, assert_agrees_in_four_variants, built_fmus, fmpy_messages
from fmpy import simulate_fmu
from modelica_support import COMMUTATION
from scipy.optimize import brentq
from test_build_rumoca import MODELICA_PATH

LIBRARY = Path(__file__).parents[1] / "data" / "commutation" / "Commutation"
V, F, L, C, R = 325.0, 50.0, 1e-3, 2e-3, 10.0  # V, Hz, H, F, Ohm
RON, GOFF, VKNEE = 1e-3, 1e-3, 2.0  # Ohm, S, V
OMEGA = 2 * math.pi * F
V_DC_START = 250.0  # V
# each diode's anode and cathode: upperA, upperB, lowerA, lowerB; nodes: a (line side of the
# bridge), p and n (the DC rails), g (ground, the line's return)
DIODES = (("a", "p"), ("g", "p"), ("n", "a"), ("n", "g"))
AHEAD = 1e-9  # s: how far past a crossing the other diodes' modes are checked
GRID = 1e-5  # s: the spacing at which each mode's knee distances are searched for a crossing
TIMES = np.linspace(0.0, 0.04, 81)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("commutation")
    return built_fmus(LIBRARY, out, library_path=[MODELICA_PATH])


def _network(on: tuple[bool, ...], i_line: float, v_dc: float, line: float) -> np.ndarray:
    """The derivatives of the line current (A/s) and the DC voltage (V/s) and each diode's
    voltage less its knee (V) in mode ``on``, by Kirchhoff's current law at the nodes a, p
    and n with the DC voltage given (unknowns: the potentials of a, p, n and the capacitor's
    current); each diode a conductance 1/Ron or Goff through its knee point (Vknee, Goff
    Vknee)."""

    def residual(x: np.ndarray) -> np.ndarray:
        potential = {"a": x[0], "p": x[1], "n": x[2], "g": 0.0}
        current = [
            (1 / RON if conducting else GOFF) * (potential[a] - potential[c] - VKNEE) + GOFF * VKNEE
            for (a, c), conducting in zip(DIODES, on, strict=True)
        ]
        load = (x[1] - x[2]) / R
        return np.array(
            [
                i_line - current[0] + current[2],
                current[0] + current[1] - x[3] - load,
                x[3] + load - current[2] - current[3],
                x[1] - x[2] - v_dc,
            ]
        )

    constant = residual(np.zeros(4))
    matrix = np.column_stack([residual(unit) - constant for unit in np.eye(4)])
    x = np.linalg.solve(matrix, -constant)
    potential = {"a": x[0], "p": x[1], "n": x[2], "g": 0.0}
    knees = [potential[a] - potential[c] - VKNEE for a, c in DIODES]
    return np.array([(line - x[0]) / L, x[3] / C, *knees])


@cache
def _mode(on: tuple[bool, ...]) -> np.ndarray:
    """``M`` with [y', knee distances] = M [i_line, v_dc, sin(w t), 1] in mode ``on``."""
    constant = _network(on, 0.0, 0.0, 0.0)
    columns = [_network(on, *unit) - constant for unit in ((1, 0, 0), (0, 1, 0), (0, 0, V))]
    return np.column_stack([*columns, constant])


def _segment(on: tuple[bool, ...], t0: float, y0: np.ndarray):
    """The exact solution y(t) from (t0, y0) in mode ``on`` (t: one instant or several):
    the free response expm(A (t - t0)) (y0 - y_p(t0)) plus the forced one y_p = p cos(w t) +
    q sin(w t) + r."""
    m = _mode(on)
    a, g, c = m[:2, :2], m[:2, 2], m[:2, 3]
    p = np.linalg.solve(a @ a + OMEGA**2 * np.eye(2), -OMEGA * g)
    q = a @ p / OMEGA
    r = np.linalg.solve(a, -c)

    def forced(t: np.ndarray) -> np.ndarray:
        return np.outer(p, np.cos(OMEGA * t)) + np.outer(q, np.sin(OMEGA * t)) + r[:, None]

    rates, vectors = np.linalg.eig(a)  # expm(A s) = V diag(exp(rates s)) V^-1
    free = np.linalg.solve(vectors, y0 - forced(np.array([t0]))[:, 0])

    def solution(t: float | np.ndarray) -> np.ndarray:
        t = np.atleast_1d(t)
        decay = np.exp(np.outer(rates, t - t0)) * free[:, None]
        return (vectors @ decay).real + forced(t)

    return solution


def _knees(on: tuple[bool, ...], t: float | np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each diode's voltage less its knee (V) at (t, y) in mode ``on`` (t and the columns
    of y: several instants at once)."""
    inputs = np.vstack([y[0], y[1], np.sin(OMEGA * t), np.ones_like(t)])
    return (_mode(on) @ inputs)[2:]


def _consistent(on: tuple[bool, ...], t: float, y: np.ndarray, crossed: int) -> tuple:
    """Mode ``on`` with every diode but ``crossed`` conducting where its knee distance is
    positive AHEAD after t (the pair that reaches its knee together changes together)."""
    for _ in range(len(DIODES)):
        derivative = (_mode(on) @ np.array([y[0], y[1], math.sin(OMEGA * t), 1.0]))[:2]
        ahead = _knees(on, np.array([t + AHEAD]), (y + AHEAD * derivative)[:, None])[:, 0]
        wrong = [k for k in range(len(DIODES)) if k != crossed and (ahead[k] > 0) != on[k]]
        if not wrong:
            return on
        on = tuple(not mode if k in wrong else mode for k, mode in enumerate(on))
    raise AssertionError(f"no consistent mode at {t} s")


def _left(s: float | np.ndarray, on: tuple[bool, ...], solution, k: int) -> np.ndarray | float:
    """> 0 where diode ``k`` has left its mode ``on[k]`` at ``s`` on ``solution``."""
    distance = _knees(on, np.atleast_1d(s), solution(s))[k]
    distance = -distance if on[k] else distance
    return distance if np.ndim(s) else float(distance[0])


def bridge_rectifier(times: np.ndarray) -> tuple[np.ndarray, list[float]]:
    """Line current (A) and DC voltage (V) at ``times``, and the instants (s) where the
    conducting pair changes."""
    on, t, y = (False,) * len(DIODES), 0.0, np.array([0.0, V_DC_START])
    values, switches = np.zeros((len(times), 2)), []
    while t < times[-1]:
        solution = _segment(on, t, y)

        grid = np.append(np.arange(t + AHEAD, times[-1], GRID), times[-1])
        first = [np.argmax(_left(grid, on, solution, k) > 0) for k in range(len(DIODES))]
        found = [
            (brentq(_left, grid[j - 1], grid[j], args=(on, solution, k), xtol=1e-16), k)
            for k, j in enumerate(first)
            if j > 0
        ]
        crossing = min(found) if found else None
        end = crossing[0] if crossing else times[-1]
        inside = (times >= t) & (times <= end)
        values[inside] = solution(times[inside]).T
        if crossing is None:
            break
        t, y = end, solution(end)[:, 0]
        k = crossing[1]
        on = _consistent(tuple(not m if i == k else m for i, m in enumerate(on)), t, y, k)
        switches.append(t)
    return values, switches


def test_bridge_rectifier_commutates_in_four_variants(fmus):
    values, switches = bridge_rectifier(TIMES)
    # the line current's four pulses, each begun and ended by a diagonal pair
    assert len(switches) == 8 and 2.4e-3 < switches[0] < 2.5e-3, switches
    assert np.max(values[:, 0]) > 100.0 and np.min(values[:, 0]) < -60.0
    reference = {"i_line": values[:, 0], "v_dc": values[:, 1]}
    model = "BridgeRectifier"
    assert_agrees_in_four_variants(lambda v: fmus[(v, model)], reference, TIMES, model)


def test_truly_cycling_switch_stops_in_one_line(fmus):
    for variant, interface in VARIANTS:
        with (
            fmpy_messages() as (logged, logger),
            pytest.raises(Exception, match="failed with status 3"),
        ):
            simulate_fmu(
                str(fmus[(variant, "Flipping")]),
                fmi_type=interface,
                stop_time=2.0,
                output_interval=0.05,
                logger=logger,
            )
        lines = b"\n".join(logged).decode().splitlines()
        expected = "event iteration at t = 0.5 s did not settle in 100 passes"
        assert lines == [expected], (variant, interface, lines)


def test_construct_table_names_these_tests():
    assert {test for _, _, test in COMMUTATION} <= {n for n in globals() if n.startswith("test_")}
