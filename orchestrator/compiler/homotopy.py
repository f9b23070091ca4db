"""Initialization by homotopy: ``homotopy(actual, simplified)`` as the FMU leaves initialization.

Modelica defines ``homotopy(actual, simplified)`` (Modelica Language Specification 3.6,
Sec. 3.7.4.4) as ``actual`` during simulation, while at initialization a tool may solve the
problem with ``simplified`` first and follow ``lambda actual + (1 - lambda) simplified`` from
lambda = 0 to 1. The equations are translated with that blend (``flat_model``); here they give
one function of the FMU,

``model_homotopy (t, x, u, p, d, c, lambda) -> (c_new, converged)``,

one pass at a given lambda: the relations decided by the equations with the memories ``c``,
the nonlinear loops solved by Newton's method from the guesses in ``c`` (where a loop does not
converge its guesses stay and ``converged`` is 0 for it; the memories of ``change`` and the
values of the delays stay).
The FMU repeats the pass until the relations settle, for lambda = 0 and then in steps to 1,
each step starting from the previous solution, so that it leaves initialization on the root
the simplified problem leads to (an op-amp Schmitt trigger at its supply voltage rather than
on the trivial 0 V root).
"""

from __future__ import annotations

from collections.abc import Sequence

import casadi as ca

from orchestrator.compiler.causalize import Loop
from orchestrator.compiler.events import EventRecord, in_knowns


def homotopy_function(
    record: EventRecord,
    lam: ca.SX,
    knowns: Sequence[ca.SX],
    explicit: tuple[list[ca.SX], list[ca.SX]],
    loops: Sequence[Loop],
) -> ca.Function:
    """``model_homotopy`` of a model whose explicit values ``explicit`` (every causalized
    unknown as a value in the knowns, with ``lam`` in them) come from its equations with
    ``homotopy``; ``knowns`` are the vectors ``t, x, u, p, d`` of the other model functions."""

    def known(expressions: list[ca.SX]) -> ca.SX:
        return in_knowns(expressions, explicit)

    crossing = known([r.crossing for r in record.relations])
    decided = [
        crossing[k] > 0 if r.strict else crossing[k] >= 0 for k, r in enumerate(record.relations)
    ]
    guesses = [g for loop in loops for g in loop.guesses]
    converged = known([loop.converged for loop in loops])
    solved = known([v for loop in loops for v in loop.unknowns])
    new_guesses = []
    k = 0
    for j, loop in enumerate(loops):
        for guess in loop.guesses:
            new_guesses.append(ca.if_else(converged[j], solved[k], guess))
            k += 1
    changes = [m for m, _ in record.changes]
    delays = [d.value for d in record.delays]
    c = ca.vertcat(*[r.memory for r in record.relations], *guesses, *changes, *delays)
    return ca.Function(
        "model_homotopy",
        [*knowns, c, lam],
        [ca.vertcat(*decided, *new_guesses, *changes, *delays), converged],
        ["t", "x", "u", "p", "d", "c", "lambda"],
        ["c_new", "converged"],
    )
