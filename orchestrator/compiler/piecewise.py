"""Nonlinear loops with piecewise equations solved piece by piece (Katzenelson's method).

An op-amp limiter written with ``noEvent`` (``v_out = if V0*v_in > vps then vps else if
V0*v_in < vns then vns else V0*v_in``, MSL's ``IdealizedOpAmpLimited``) makes a loop
piecewise: linear on each piece, with a linear piece only ``(vps - vns)/V0`` wide (3 mV of
input at a gain of 1e4). Newton's method started on a saturated piece sees no gain there; its
step crosses the narrow linear piece and lands on the opposite saturation, whence it steps
back: it cycles, and a line search stalls at the edge of the linear piece (the residual's
norm is smallest there, outside it). Katzenelson's method for piecewise-linear networks
(J. Katzenelson, "An algorithm for solving nonlinear resistor networks", Bell System
Technical Journal 44(8), 1965) follows Newton's step only as far as the next piece: with
the relations held at their values at the current point (each relation a symbol here), the
loop is smooth and Newton solves it; along the segment to that solution, the first relation
that changes sign bounds the step, which stops midway between that crossing and the next,
inside the piece entered, where the relations are evaluated again. Where no relation
changes sign, the solution's relations are those it was solved with: it solves the loop's
own equations.

The passes run in a function of their own, only where the loop's other solvers failed
(a branch of the generated C code: ``fallbacks.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca

from orchestrator.compiler.fallbacks import only_where

PASSES_PER_RELATION = 2  # passes of the method per relation of the loop, plus two
_RELATIONS = (ca.OP_LT, ca.OP_LE)


@dataclass(frozen=True)
class Held:
    """A loop's residuals with each relation replaced by a symbol of ``memories`` (1 where
    it holds), each relation's value in the loop's symbols (``relations``) and its
    zero-crossing function (``crossings``, positive where it holds)."""

    residuals: list[ca.SX]
    memories: list[ca.SX]
    relations: list[ca.SX]
    crossings: list[ca.SX]


def held_relations(residuals: list[ca.SX], name: str) -> Held | None:
    """``residuals`` with their relations ``a < b`` and ``a <= b`` held as symbols; ``None``
    where they have none, or call a function (an external one: left as it is)."""
    symbols = ca.symvar(ca.vertcat(*residuals))
    graph = ca.Function(f"{name}_graph", symbols, residuals)
    work: dict[int, ca.SX] = {}
    outputs: list[ca.SX] = [ca.SX(0)] * len(residuals)
    memories: list[ca.SX] = []
    relations: list[ca.SX] = []
    crossings: list[ca.SX] = []
    for k in range(graph.n_instructions()):
        op = graph.instruction_id(k)
        inputs = graph.instruction_input(k)
        output = graph.instruction_output(k)
        if op == ca.OP_INPUT:
            work[output[0]] = symbols[inputs[0]]
        elif op == ca.OP_OUTPUT:
            outputs[output[0]] = work[inputs[0]]
        elif op == ca.OP_CONST:
            work[output[0]] = ca.SX(graph.instruction_constant(k))
        elif op == ca.OP_CALL:
            return None
        elif op in _RELATIONS:
            a, b = (work[i] for i in inputs)
            crossing = b - a
            strict = op == ca.OP_LT
            found = next(
                (
                    j
                    for j, c in enumerate(crossings)
                    if ca.is_equal(c, crossing, 3) and (relations[j].op() == ca.OP_LT) == strict
                ),
                None,
            )
            if found is None:
                found = len(memories)
                memories.append(ca.SX.sym(f"{name}_relation[{found + 1}]"))
                relations.append(ca.SX.binary(op, a, b))
                crossings.append(crossing)
            work[output[0]] = memories[found]
        elif len(inputs) == 1:
            work[output[0]] = ca.SX.unary(op, work[inputs[0]])
        else:
            work[output[0]] = ca.SX.binary(op, work[inputs[0]], work[inputs[1]])
    if not memories:
        return None
    return Held(outputs, memories, relations, crossings)


def piecewise_solution(
    held: Held,
    unknowns: ca.SX,
    start: ca.SX,
    wanted: ca.SX,
    name: str,
    newton: dict,
) -> ca.SX:
    """The loop's unknowns by Katzenelson's method from ``start`` (a point of the loop's
    unknowns), in its other symbols; computed where ``wanted`` is nonzero, NaN elsewhere.
    ``newton`` are the options of CasADi's ``fast_newton`` for each piece."""
    residual = ca.vertcat(*held.residuals)
    memories = ca.vertcat(*held.memories)
    knowns = [
        s
        for s in ca.symvar(ca.vertcat(residual, *held.crossings))
        if not ca.depends_on(s, ca.vertcat(unknowns, memories))
    ]
    given = ca.vertcat(*knowns) if knowns else ca.SX(0, 1)
    frozen = ca.Function(f"{name}_piece", [unknowns, ca.vertcat(memories, given)], [residual])
    solve = ca.rootfinder(f"{name}_piece_newton", "fast_newton", frozen, newton)
    relations = ca.Function(f"{name}_relations", [unknowns, given], [ca.vertcat(*held.relations)])
    crossings = ca.Function(f"{name}_crossings", [unknowns, given], [ca.vertcat(*held.crossings)])

    x0 = ca.MX.sym("start", unknowns.numel())
    p = ca.MX.sym("given", given.numel())
    x = x0
    for _ in range(PASSES_PER_RELATION * len(held.memories) + 2):
        target = solve(x, ca.vertcat(relations(x, p), p))
        before, after = crossings(x, p), crossings(target, p)
        # the fraction of the step at which each crossing changes sign, 1 where it does not
        changes = before * after < 0
        fraction = ca.if_else(changes, before / ca.if_else(changes, before - after, 1), 1)
        first = ca.mmin(fraction)
        second = ca.mmin(ca.if_else(fraction > first, fraction, 1))
        x = x + ca.if_else(first < 1, (first + second) / 2, 1) * (target - x)
    passes = ca.Function(f"{name}_pieces", [x0, p], [x])
    return only_where(f"{name}_piecewise", passes, wanted, start, given)
