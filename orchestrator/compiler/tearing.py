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
The same choice serves nonlinear algebraic loops (:func:`torn_loop`): every unknown solved
from an equation where it has a constant nonzero coefficient is computed from the tearing
variables, and Newton's method iterates on the tearing variables alone. Its Jacobian is then
that of the loop reduced to them, and a start value of an eliminated unknown (0 where none is
given) cannot make it singular: a heated resistor's ``v = R_actual*i`` with ``R_actual`` and
``i`` starting at 0 has a zero row in the whole loop's Jacobian, while torn on ``i`` and the
temperature, ``R_actual`` is computed from the temperature's guess. Where Newton on the
tearing variables fails, the loop falls back on Newton over all its unknowns
(:mod:`orchestrator.compiler.causalize`).
"""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca


def _constant_coefficient(coefficient: ca.SX) -> bool:
    return coefficient.is_constant() and float(ca.evalf(coefficient)) != 0.0


@dataclass(frozen=True)
class Tearing:
    """A block torn: ``torn`` (indices of the tearing variables), ``order`` (each other
    unknown with the equation it is solved from, in evaluation order) and ``remaining`` (the
    equations left as residuals, as many as tearing variables); ``jacobian`` is the block's."""

    torn: list[int]
    order: list[tuple[int, int]]
    remaining: list[int]
    jacobian: ca.SX


def tearing(
    residuals: list[ca.SX],
    unknowns: list[ca.SX],
    lookahead: bool = False,
    started: set[str] = frozenset(),
) -> Tearing:
    """The greedy tearing of a square block of scalar ``residuals`` in the scalar symbols
    ``unknowns``; an unknown is solved from an equation where its coefficient is a nonzero
    constant. With ``lookahead`` the
    tearing variable torn next is the one after which most unknowns are solved, then one
    named in ``started`` (a start value given: Newton's first guess is the author's), then the
    one in most remaining equations: the fewest iteration variables of a nonlinear loop."""
    count = len(unknowns)
    jacobian = ca.jacobian(ca.vertcat(*residuals), ca.vertcat(*unknowns))
    rows, columns = jacobian.sparsity().get_triplet()
    of_equation: list[set[int]] = [set() for _ in range(count)]
    in_equations: list[set[int]] = [set() for _ in range(count)]
    solvable: set[tuple[int, int]] = set()
    for row, column in zip(rows, columns, strict=True):
        of_equation[row].add(column)
        in_equations[column].add(row)
        if _constant_coefficient(jacobian[row, column]):
            solvable.add((row, column))

    def propagate(known: set[int], remaining: set[int], order: list[tuple[int, int]]) -> None:
        """Solve, in place, every unknown that an equation with it alone left gives."""
        progress = True
        while progress:
            progress = False
            for equation in sorted(remaining):
                left = of_equation[equation] - known
                if len(left) != 1:
                    continue
                (unknown,) = left
                if (equation, unknown) in solvable:
                    order.append((unknown, equation))
                    known.add(unknown)
                    remaining.discard(equation)
                    progress = True

    def solved_after(tear: int, known: set[int], remaining: set[int]) -> int:
        trial_known, trial_remaining = known | {tear}, set(remaining)
        propagate(trial_known, trial_remaining, [])
        return len(trial_known)

    known: set[int] = set()
    remaining = set(range(count))
    order: list[tuple[int, int]] = []  # (unknown, the equation it is solved from)
    torn: list[int] = []
    while len(known) < count:
        propagate(known, remaining, order)
        if len(known) == count:
            break
        candidates = [u for u in range(count) if u not in known]
        if lookahead:
            tear = max(
                candidates,
                key=lambda u: (
                    solved_after(u, known, remaining),
                    unknowns[u].name() in started,
                    len(in_equations[u] & remaining),
                    -u,
                ),
            )
        else:
            tear = max(candidates, key=lambda u: (len(in_equations[u] & remaining), -u))
        torn.append(tear)
        known.add(tear)
    return Tearing(torn, order, sorted(remaining), jacobian)


def _in_tears(residuals: list[ca.SX], unknowns: list[ca.SX], torn: Tearing) -> list[ca.SX]:
    """The unknowns of ``torn.order``, each solved from its equation, in the tearing
    variables (and the residuals' other symbols), in that order."""
    solved: list[ca.SX] = []  # the solved unknowns so far, in the tearing variables
    symbols: list[ca.SX] = []
    for unknown, equation in torn.order:
        coefficient = torn.jacobian[equation, unknown]
        rest = ca.substitute(residuals[equation], unknowns[unknown], ca.SX(0))
        value = -rest / coefficient
        if symbols:
            value = ca.substitute([value], symbols, solved)[0]
        symbols.append(unknowns[unknown])
        solved.append(value)
    return solved


def torn_solution(residuals: list[ca.SX], unknowns: list[ca.SX]) -> list[ca.SX]:
    """The values of ``unknowns`` (scalar symbols) for which the ``residuals`` (scalar
    expressions linear in them, as many as unknowns, with a nonsingular Jacobian) vanish, in
    the order of ``unknowns``, each in the residuals' other symbols."""
    torn = tearing(residuals, unknowns)
    solved = _in_tears(residuals, unknowns, torn)
    symbols = [unknowns[u] for u, _ in torn.order]
    values = dict(zip((u for u, _ in torn.order), solved, strict=True))
    if torn.torn:
        tears = ca.vertcat(*[unknowns[u] for u in torn.torn])
        left = ca.vertcat(*ca.substitute([residuals[e] for e in torn.remaining], symbols, solved))
        matrix = ca.jacobian(left, tears)
        offset = ca.substitute(left, tears, ca.DM.zeros(len(torn.torn)))
        tear_values = -offset / matrix if len(torn.torn) == 1 else ca.solve(matrix, -offset)
        final = ca.substitute(solved, [unknowns[u] for u in torn.torn], ca.vertsplit(tear_values))
        values = dict(zip((u for u, _ in torn.order), final, strict=True))
        values.update({u: tear_values[k] for k, u in enumerate(torn.torn)})
    return [values[u] for u in range(len(unknowns))]


def torn_loop(
    residuals: list[ca.SX], unknowns: list[ca.SX], started: set[str]
) -> tuple[list[int], list[ca.SX], list[ca.SX]]:
    """A nonlinear loop torn: the indices of its tearing variables, the residuals left in
    them (as many as tearing variables), and every unknown's value in the tearing variables
    (a tearing variable's is itself), in the order of ``unknowns``. Unknowns named in
    ``started`` have start values, preferred as tearing variables."""
    torn = tearing(residuals, unknowns, lookahead=True, started=started)
    solved = _in_tears(residuals, unknowns, torn)
    symbols = [unknowns[u] for u, _ in torn.order]
    left = ca.substitute([residuals[e] for e in torn.remaining], symbols, solved)
    values = dict(zip((u for u, _ in torn.order), solved, strict=True))
    values.update({u: unknowns[u] for u in torn.torn})
    return torn.torn, left, [values[u] for u in range(len(unknowns))]
