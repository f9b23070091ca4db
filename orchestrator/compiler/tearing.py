"""Tearing of large linear blocks: a few unknowns solved for by one small symbolic solve.

An acausal multibody model gives one large block linear in its unknowns: the cut forces and
torques of every frame, the bodies' accelerations and the joints' torques (165 equations for
MSL's double pendulum). A symbolic solve of the whole block (``casadi.solve``) gives
expressions that grow with the cube of its size; in such blocks almost every equation holds
one unknown with a constant coefficient once a few others (the joints' accelerations) are
known. Tearing (Elmqvist and Otter, "Methods for tearing systems of equations in
object-oriented modeling", European Simulation Multiconference, 1994) picks those few, the
tearing variables, solves every other unknown in turn from an equation where it has a
constant nonzero coefficient, and leaves as many residual equations as tearing variables:
their linear system is solved symbolically, and its solution substituted back. The result is
the block's exact solution (a Schur complement of the same linear system), not an
approximation: every division is by a nonzero constant, apart from the small solve.

Tearing variables are chosen greedily: while no remaining equation holds a single unknown
with a constant coefficient, the unknown that occurs in most remaining equations is torn.
"""

from __future__ import annotations

import casadi as ca


def _constant_coefficient(coefficient: ca.SX) -> bool:
    return coefficient.is_constant() and float(ca.evalf(coefficient)) != 0.0


def torn_solution(residuals: list[ca.SX], unknowns: list[ca.SX]) -> list[ca.SX]:
    """The values of ``unknowns`` (scalar symbols) for which the ``residuals`` (scalar
    expressions linear in them, as many as unknowns, with a nonsingular Jacobian) vanish, in
    the order of ``unknowns``, each in the residuals' other symbols."""
    count = len(unknowns)
    jacobian = ca.jacobian(ca.vertcat(*residuals), ca.vertcat(*unknowns))
    rows, columns = jacobian.sparsity().get_triplet()
    of_equation: list[set[int]] = [set() for _ in range(count)]
    in_equations: list[set[int]] = [set() for _ in range(count)]
    for row, column in zip(rows, columns, strict=True):
        of_equation[row].add(column)
        in_equations[column].add(row)
    known: set[int] = set()
    remaining = set(range(count))
    order: list[tuple[int, int]] = []  # (unknown, the equation it is solved from)
    torn: list[int] = []
    while len(known) < count:
        progress = True
        while progress:
            progress = False
            for equation in sorted(remaining):
                left = of_equation[equation] - known
                if len(left) != 1:
                    continue
                (unknown,) = left
                if _constant_coefficient(jacobian[equation, unknown]):
                    order.append((unknown, equation))
                    known.add(unknown)
                    remaining.discard(equation)
                    progress = True
        if len(known) == count:
            break
        candidates = [u for u in range(count) if u not in known]
        tear = max(candidates, key=lambda u: (len(in_equations[u] & remaining), -u))
        torn.append(tear)
        known.add(tear)
    solved: list[ca.SX] = []  # the solved unknowns so far, in the tearing variables
    symbols: list[ca.SX] = []
    for unknown, equation in order:
        coefficient = jacobian[equation, unknown]
        rest = ca.substitute(residuals[equation], unknowns[unknown], ca.SX(0))
        value = -rest / coefficient
        if symbols:
            value = ca.substitute([value], symbols, solved)[0]
        symbols.append(unknowns[unknown])
        solved.append(value)
    values = dict(zip((u for u, _ in order), solved, strict=True))
    if torn:
        tears = ca.vertcat(*[unknowns[u] for u in torn])
        left = ca.vertcat(
            *ca.substitute([residuals[e] for e in sorted(remaining)], symbols, solved)
        )
        matrix = ca.jacobian(left, tears)
        offset = ca.substitute(left, tears, ca.DM.zeros(len(torn)))
        tear_values = -offset / matrix if len(torn) == 1 else ca.solve(matrix, -offset)
        final = ca.substitute(solved, [unknowns[u] for u in torn], ca.vertsplit(tear_values))
        values = dict(zip((u for u, _ in order), final, strict=True))
        values.update({u: tear_values[k] for k, u in enumerate(torn)})
    return [values[u] for u in range(count)]
