"""Tearing of large linear blocks: the torn solution is the block's exact solution."""

from __future__ import annotations

import casadi as ca
import numpy as np

from orchestrator.compiler.causalize import TEARING_SIZE, causalize
from orchestrator.compiler.tearing import torn_solution


def _chain(count: int, rng: np.random.Generator) -> tuple[list[ca.SX], list[ca.SX], ca.SX]:
    """A linear system shaped like a chain of bodies: each unknown from its neighbour with a
    coefficient 1, the last ones coupled back to the first through state-dependent
    coefficients (cos x), so that no order solves it without tearing."""
    x = ca.SX.sym("x")
    unknowns = [ca.SX.sym(f"u{k}") for k in range(count)]
    weights = rng.uniform(0.5, 2.0, count)
    residuals = [unknowns[k] - weights[k] * unknowns[k + 1] - k for k in range(count - 1)]
    residuals.append(ca.cos(x) * unknowns[-1] + 3.0 * unknowns[0] - x)
    return residuals, unknowns, x


def test_torn_solution_equals_a_numeric_solve():
    rng = np.random.default_rng(7)
    residuals, unknowns, x = _chain(40, rng)
    values = ca.Function("f", [x], [ca.vertcat(*torn_solution(residuals, unknowns))])
    for point in (0.1, 1.3, -2.0):
        system = ca.Function("r", [x, ca.vertcat(*unknowns)], [ca.vertcat(*residuals)])
        jac = ca.Function("j", [x], [ca.jacobian(ca.vertcat(*residuals), ca.vertcat(*unknowns))])
        matrix = np.array(jac(point))
        offset = np.array(system(point, np.zeros(len(unknowns)))).ravel()
        expected = np.linalg.solve(matrix, -offset)
        got = np.array(values(point)).ravel()
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-12), np.max(np.abs(got - expected))


def test_causalize_tears_large_blocks_into_small_expressions():
    rng = np.random.default_rng(3)
    residuals, unknowns, y = _chain(3 * TEARING_SIZE, rng)
    assignments = causalize(residuals, unknowns, "Large")
    assert not any(ca.depends_on(a.expression, ca.vertcat(*unknowns)) for a in assignments)
    torn = ca.Function("torn", [y], [ca.vertcat(*[a.expression for a in assignments])])
    order = [next(k for k, u in enumerate(unknowns) if ca.is_equal(u, a.unknown))
             for a in assignments]  # fmt: skip
    values = np.empty(len(order))
    values[order] = np.array(torn(0.7)).ravel()
    check = ca.Function("r", [y, ca.vertcat(*unknowns)], [ca.vertcat(*residuals)])
    assert np.max(np.abs(np.array(check(0.7, values)))) < 1e-9
    # the whole block solved symbolically takes many more operations
    block = ca.vertcat(*residuals)
    matrix = ca.jacobian(block, ca.vertcat(*unknowns))
    offset = ca.substitute(block, ca.vertcat(*unknowns), ca.DM.zeros(len(unknowns)))
    whole = ca.Function("whole", [y], [ca.solve(matrix, -offset)])
    assert torn.n_instructions() * 5 < whole.n_instructions()
