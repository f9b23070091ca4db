"""Causalization: turn implicit scalar residual equations into ordered explicit assignments.

The Modelica front end (pymoca) gives a model as residuals ``0 = f(der(x), x, z, u, p)`` in
which the unknowns are the state derivatives ``der(x)`` and the algebraic variables ``z``.
Here the residuals are

1. matched to unknowns (maximum bipartite matching on the incidence pattern),
2. sorted into blocks (strongly connected components of the equation dependency graph) in
   evaluation order (block lower triangular form),
3. solved block by block: blocks linear in their own unknowns are solved symbolically
   (``casadi.solve``; large ones torn first, :mod:`orchestrator.compiler.tearing`); a
   nonlinear algebraic loop is torn the same way and solved by Newton's method on its
   tearing variables (CasADi's ``fast_newton``, generated into the model's C code) at every
   evaluation, the loop's other unknowns computed from them (and, where that Newton fails,
   on the whole loop as a fallback; where every other solver fails, Newton with a line
   search, :mod:`orchestrator.compiler.damped_newton`). Where the loops
   are asked for, Newton starts from a guess symbol per iteration variable, which the FMU
   holds: the iteration variables' start values at first (the Modelica meaning of ``start``
   for them; 0 without one), then the previous solution, so that a loop with several roots
   stays on the one it is on. Without, it starts from the start values at every evaluation.
   Newton's result is guarded: where the loop's residual stays above ``LOOP_TOLERANCE``, or
   an unknown ends outside its declared ``min`` or ``max`` (a root no state of the device:
   :mod:`orchestrator.compiler.root_bounds`), the next solver runs, and after the last the
   loop's unknowns are NaN, so a loop that does not converge never gives a silently wrong value,
   and the loop is also returned as a :class:`Loop` whose ``converged`` condition a model can
   check with a message naming its equations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from graphlib import TopologicalSorter

import casadi as ca
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

from orchestrator.compiler.damped_newton import damped_solution
from orchestrator.compiler.external_c import jacobian, refuse_in_jacobian
from orchestrator.compiler.fallbacks import only_where
from orchestrator.compiler.piecewise import held_relations, piecewise_solution
from orchestrator.compiler.root_bounds import bounded, within
from orchestrator.compiler.tearing import torn_loop, torn_solution
from orchestrator.errors import BuildError

LOOP_TOLERANCE = 1e-9  # largest |residual| of a solved nonlinear loop (the equations' units)
LOOP_ITERATIONS = 50  # Newton iterations per evaluation
# iterations of Newton with a line search, the last resort: from where a junction barely
# conducts, its full steps bring the junction towards the root by about one thermal voltage
# each (4.3 V at 26 mV: 165 steps); a loop of the generated code, run only where needed
DAMPED_ITERATIONS = 500
_STEP_TOLERANCE = 1e-14  # Newton stops when its residual or its step is this small
# linear blocks above this size are torn (tearing.py); smaller ones, MurCoSim's among them
# (a vehicle's 6 accelerations), are solved whole
TEARING_SIZE = 12
_OPTIONS = {  # of CasADi's fast_newton
    "abstol": _STEP_TOLERANCE,
    "abstolStep": _STEP_TOLERANCE,
    "max_iter": LOOP_ITERATIONS,
    "error_on_fail": False,  # judged by the residual
}


class CausalizationError(BuildError):
    """The equation system cannot be brought into explicit form."""


@dataclass(frozen=True)
class Assignment:
    """One explicit assignment ``unknown := expression`` in evaluation order."""

    unknown: ca.SX
    expression: ca.SX


@dataclass(frozen=True)
class Loop:
    """A nonlinear algebraic loop solved by Newton's method: ``converged`` is 1 where its
    residual at Newton's result is within ``LOOP_TOLERANCE`` and its unknowns within their
    declared ``min`` and ``max`` (root_bounds.py); ``text`` names its equations;
    Newton starts from the symbols ``guesses`` (one per iteration variable ``unknowns``,
    whose start values are ``starts``); ``pieces`` are the relations inside its equations
    (in ``noEvent``: an op-amp's limits), each as its zero-crossing function (positive where
    it holds) and whether it is strict."""

    converged: ca.SX
    text: str
    unknowns: tuple[ca.SX, ...] = ()
    guesses: tuple[ca.SX, ...] = ()
    starts: tuple[float, ...] = ()
    pieces: tuple[tuple[ca.SX, bool], ...] = ()


def scalarize(equations: list[ca.SX]) -> list[ca.SX]:
    """Split vector-valued residuals into scalar residuals."""
    scalars: list[ca.SX] = []
    for eq in equations:
        scalars.extend(ca.vertsplit(ca.vec(eq)) if eq.numel() > 1 else [eq])
    return scalars


def _describe(eq: ca.SX, limit: int = 160) -> str:
    text = str(eq)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def causalize(
    residuals: list[ca.SX],
    unknowns: list[ca.SX],
    model: str,
    guesses: dict[str, float] | None = None,
    loops: list[Loop] | None = None,
    places: list[str] | None = None,
    bounds: Mapping[str, tuple[float, float]] | None = None,
) -> list[Assignment]:
    """Return explicit assignments for ``unknowns`` such that all ``residuals`` vanish.

    ``residuals`` are scalar expressions, ``unknowns`` scalar symbols; the system must be
    square. ``guesses`` are Newton's start values of iteration variables by name (0 for the
    others); the nonlinear loops found are appended to ``loops`` when given, and Newton then
    starts from each loop's guess symbols instead of the start values; ``places`` (the
    source ``file:line:column`` of each residual, "" where unknown) name a loop's equations in
    its text; ``bounds`` (``min`` and ``max`` by name) hold a loop's solution within them
    (:mod:`orchestrator.compiler.root_bounds`). Raises
    :class:`CausalizationError` naming the model and the offending equations when the system
    is structurally singular.
    """
    n_eq, n_var = len(residuals), len(unknowns)
    if n_eq != n_var:
        raise CausalizationError(
            f"{model}: {n_eq} equations for {n_var} unknowns; the model is not balanced"
        )
    if n_eq == 0:
        return []
    incidence = ca.jacobian_sparsity(ca.vertcat(*residuals), ca.vertcat(*unknowns))
    rows, cols = incidence.get_triplet()
    pattern = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_eq, n_var))
    match = maximum_bipartite_matching(pattern, perm_type="column")
    unmatched = [i for i in range(n_eq) if match[i] < 0]
    if unmatched:
        named = "; ".join(_describe(residuals[i]) for i in unmatched[:5])
        raise CausalizationError(
            f"{model}: structurally singular, no unknown left for equation(s): {named}"
        )
    equation_of = np.empty(n_var, dtype=int)
    equation_of[match] = np.arange(n_eq)
    # Equation i needs equation k when it uses the unknown that equation k solves for.
    dep_rows = rows
    dep_cols = equation_of[np.asarray(cols, dtype=int)]
    graph = csr_matrix((np.ones(len(dep_rows)), (dep_rows, dep_cols)), shape=(n_eq, n_eq))
    n_blocks, labels = connected_components(graph, directed=True, connection="strong")
    members: list[list[int]] = [[] for _ in range(n_blocks)]
    for i, b in enumerate(labels):
        members[b].append(i)
    sorter: TopologicalSorter[int] = TopologicalSorter()
    for b in range(n_blocks):
        sorter.add(b)
    for i, k in zip(dep_rows, dep_cols, strict=True):
        if labels[i] != labels[k]:
            sorter.add(int(labels[i]), int(labels[k]))
    assignments: list[Assignment] = []
    # the relations' memories (events.py) and the unknowns whose values depend on them
    switching = {s.name() for s in ca.symvar(ca.vertcat(*residuals))}
    switching = {name for name in switching if name.startswith("relation[")}
    for b in sorter.static_order():
        eqs = members[b]
        block_res = ca.vertcat(*[residuals[i] for i in eqs])
        block_vars = ca.vertcat(*[unknowns[match[i]] for i in eqs])
        jac = jacobian(block_res, block_vars)
        if ca.depends_on(jac, block_vars):
            named = "; ".join(_describe(residuals[i]) for i in eqs[:5])
            refused = refuse_in_jacobian([block_res], "a nonlinear loop", newton=True)
            if refused:
                first = next((places[i] for i in eqs if i < len(places or []) and places[i]), "")
                where = f"{first}: " if first else ""
                raise CausalizationError(
                    f"{where}{model}: unsupported Modelica construct {refused}"
                )
            torn, left, in_tears = torn_loop(
                [residuals[i] for i in eqs], ca.vertsplit(block_vars), set(guesses or {})
            )
            iteration = [block_vars[k] for k in torn]
            starts = tuple(float((guesses or {}).get(v.name(), 0.0)) for v in iteration)
            start: ca.SX = ca.DM(starts)
            symbols = tuple(ca.SX.sym(f"guess({v.name()})") for v in iteration)
            if loops is not None:
                start = ca.vertcat(*symbols)
            tears = ca.vertcat(*iteration)
            number = len(assignments)
            limits = bounded(ca.vertsplit(block_vars), bounds or {})
            accepted = partial(_accepted, block_res, block_vars, limits)
            found = _newton(ca.vertcat(*left), tears, start, f"loop{number}")
            values = ca.substitute(ca.vertcat(*in_tears), tears, found)
            # where Newton on the tearing variables fails (it may cycle between the pieces of
            # a piecewise-linear limiter), Newton on the whole loop, from the tearing
            # variables' guesses and the others' start values
            guess_of = dict(zip(torn, ca.vertsplit(start), strict=True))
            whole_start = ca.vertcat(
                *[
                    guess_of.get(k, ca.SX(float((guesses or {}).get(v.name(), 0.0))))
                    for k, v in enumerate(ca.vertsplit(block_vars))
                ]
            )
            first_failed = ca.logic_not(accepted(values))
            whole = _newton(block_res, block_vars, whole_start, f"loop{number}_whole", first_failed)
            attempts = [values, whole]
            if loops is not None:
                # where both fail from the last solution, the root the loop was on has ended
                # (an op-amp Schmitt trigger at its threshold, its limits in noEvent): Newton
                # on the tearing variables again, from their start values
                both_failed = ca.logic_not(ca.logic_or(accepted(values), accepted(whole)))
                restart = _newton(
                    ca.vertcat(*left), tears, ca.DM(starts), f"loop{number}_start", both_failed
                )
                attempts.append(ca.substitute(ca.vertcat(*in_tears), tears, restart))
            solved = [accepted(x) for x in attempts]
            # where all those fail on a loop with relations (an op-amp limiter in noEvent),
            # Katzenelson's method from the point the tearing variables' guesses give
            held = held_relations([residuals[i] for i in eqs], f"loop{number}")
            if held is not None:
                failed = ca.logic_not(ca.mmax(ca.vertcat(*solved)))
                consistent = ca.substitute(ca.vertcat(*in_tears), tears, start)
                attempts.append(
                    piecewise_solution(
                        held, block_vars, consistent, failed, f"loop{number}", _OPTIONS
                    )
                )
                solved.append(accepted(attempts[-1]))
            # where all those fail (a junction's exponential law: full Newton steps overshoot
            # into overflow), Newton with a line search on the tearing variables from their
            # guesses, then on the whole loop from the point they give (a junction's voltage
            # among its unknowns)
            failed = ca.logic_not(ca.mmax(ca.vertcat(*solved)))
            damped = damped_solution(
                ca.vertcat(*left), tears, start, failed, f"loop{number}", DAMPED_ITERATIONS
            )
            attempts.append(ca.substitute(ca.vertcat(*in_tears), tears, damped))
            solved.append(accepted(attempts[-1]))
            failed = ca.logic_not(ca.mmax(ca.vertcat(*solved)))
            attempts.append(
                damped_solution(
                    block_res,
                    block_vars,
                    ca.substitute(ca.vertcat(*in_tears), tears, start),
                    failed,
                    f"loop{number}_whole",
                    DAMPED_ITERATIONS,
                )
            )
            solved.append(accepted(attempts[-1]))
            converged = solved[0]
            solution = ca.DM.nan(len(eqs))
            for attempt, ok in reversed(list(zip(attempts, solved, strict=True))):
                solution = ca.if_else(ok, attempt, solution)
            for ok in solved[1:]:
                converged = ca.logic_or(converged, ok)
            if loops is not None:
                known = places or []
                where = list(dict.fromkeys(known[i] for i in eqs if i < len(known) and known[i]))
                at = f" at {', '.join(where[:5])}" if where else ""
                text = f"{len(eqs)} equation(s){at}: {named}"
                if limits:  # first: the FMU's log line may be cut after a few hundred characters
                    names = ", ".join(block_vars[k].name() for k, _, _ in limits[:5])
                    text = f"solutions counted only within the min and max of {names}; {text}"
                pieces = _pieces([residuals[i] for i in eqs])
                loops.append(Loop(converged, text, tuple(iteration), symbols, starts, pieces))
        else:
            switched = bool(switching and _names(jac) & switching)
            solution = _linear_solution(block_res, block_vars, jac, switched)
        for j, i in enumerate(eqs):
            assignments.append(Assignment(unknowns[match[i]], solution[j]))
            if switching and _names(solution[j]) & switching:
                switching.add(unknowns[match[i]].name())
    return assignments


def _names(expression: ca.SX) -> set[str]:
    return {s.name() for s in ca.symvar(expression)}


def _linear_solution(residual: ca.SX, unknowns: ca.SX, jac: ca.SX, switched: bool) -> ca.SX:
    """The ``unknowns`` for which ``residual`` (linear in them, Jacobian ``jac``) vanishes:
    torn above :data:`TEARING_SIZE` equations, else solved whole. Where the coefficients
    switch with relations (``switched``: a piecewise-linear network, an ideal diode's ``s``
    scaled by 1 or ``Ron``), one step of iterative refinement follows (the residual at the solution
    solved for a correction; J. H. Wilkinson, "Rounding Errors in Algebraic Processes",
    Prentice-Hall, 1963): there the solution decides relations at events, and the solve
    alone left a residual of 1.7e-11 A in MSL's ``Rectifier``, whose floating phase node
    (its voltage a current over a leakage of 1e-3 S) then had an ideal diode's ``s`` at
    +1.0e-10 instead of -5.1e-8, past its switching point while it blocks and short of it
    while it conducts, so that no pass of the event iteration settled."""
    size = residual.numel()
    offset = ca.substitute(residual, unknowns, ca.DM.zeros(size))

    def solve(offset: ca.SX) -> ca.SX:
        if size > TEARING_SIZE:
            shifted = ca.vertsplit(ca.mtimes(jac, unknowns) + offset)
            return ca.vertcat(*torn_solution(shifted, ca.vertsplit(unknowns)))
        return -offset / jac if size == 1 else ca.solve(jac, -offset)

    if size > TEARING_SIZE:  # the torn solution as before, from the residuals themselves
        solution = ca.vertcat(*torn_solution(ca.vertsplit(residual), ca.vertsplit(unknowns)))
    else:
        solution = solve(offset)
    if not switched:
        return solution
    left = ca.substitute(residual, unknowns, solution)  # the residual the solve left
    shift = ca.SX.sym("shift", size)
    return solution + ca.substitute(solve(shift), shift, left)


def _pieces(residuals: list[ca.SX]) -> tuple[tuple[ca.SX, bool], ...]:
    """The relations ``a < b`` and ``a <= b`` inside ``residuals``, each once: their
    zero-crossing functions ``b - a`` (positive where they hold) and whether they are
    strict."""
    every = ca.Function("pieces", ca.symvar(ca.vertcat(*residuals)), residuals).instructions_sx()
    found: list[tuple[ca.SX, bool]] = []
    for k in range(every.numel()):
        node = every[k]
        if node.op() not in (ca.OP_LT, ca.OP_LE):
            continue
        piece = (node.dep(1) - node.dep(0), node.op() == ca.OP_LT)
        if not any(ca.is_equal(piece[0], c, 3) and piece[1] == s for c, s in found):
            found.append(piece)
    return tuple(found)


def _settled(residual: ca.SX, unknowns: ca.SX, values: ca.SX) -> ca.SX:
    """1 where ``residual`` at ``unknowns = values`` is within ``LOOP_TOLERANCE``, else 0."""
    return ca.mmax(ca.fabs(ca.substitute(residual, unknowns, values))) <= LOOP_TOLERANCE


def _accepted(
    residual: ca.SX, unknowns: ca.SX, limits: list[tuple[int, float, float]], values: ca.SX
) -> ca.SX:
    """1 where ``values`` solve the loop: :func:`_settled`, and within the declared bounds
    ``limits`` of its unknowns (root_bounds.py), else 0."""
    settled = _settled(residual, unknowns, values)
    return ca.logic_and(settled, within(values, limits)) if limits else settled


def _newton(
    residual: ca.SX, unknowns: ca.SX, start: ca.SX, name: str, wanted: ca.SX | None = None
) -> ca.SX:
    """Newton's result for ``unknowns`` from ``start``, in the residual's other symbols;
    whether it converged is judged by the caller on the whole loop. A fallback is computed
    only where ``wanted`` (the attempts before it failed), NaN elsewhere (fallbacks.py)."""
    knowns = [s for s in ca.symvar(residual) if not ca.depends_on(s, unknowns)]
    given = ca.vertcat(*knowns) if knowns else ca.SX(0, 1)
    problem = ca.Function(name, [unknowns, given], [residual])
    newton = ca.rootfinder(f"{name}_newton", "fast_newton", problem, _OPTIONS)
    if wanted is None:
        return newton(start, given)
    return only_where(f"{name}_fallback", newton, wanted, start, given)
