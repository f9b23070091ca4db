"""Initialization as its own system: the states' initial values from the model's conditions.

At the start time the model's equations hold together with its initial conditions:
``initial equation`` sections, ``fixed = true`` start values of any variable (a state, an
algebraic variable, a state that index reduction demoted), and start values bound to
parameters. With the explicit model (every derivative and algebraic variable a function of
the states, inputs and parameters, from causalization) these conditions become ``n`` equations
``F(x) = 0`` in the ``n`` states. States that no condition determines keep their start value
as a condition, as Modelica tools do for states without ``fixed = true``.

States whose only condition is their own literal start value stay what they were: ``initial =
"exact"`` FMU variables that an importer may set. The others are ``initial = "calculated"``:
the FMU computes them when it leaves initialization mode, by an exact linear solve where the
conditions are linear in them, else by Newton's method (CasADi's code-generated
``fast_newton``, started from the start values; the FMU reports an error when the residual is
not below the tolerance). Conditions that are too many, or that leave a state undetermined,
fail the build with one line naming them.
"""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from orchestrator.compiler import external_c
from orchestrator.compiler.causalize import Assignment
from orchestrator.errors import BuildError

NEWTON_TOLERANCE = 1e-12  # absolute residual at which Newton's iteration stops
NEWTON_ITERATIONS = 50
RESIDUAL_TOLERANCE = 1e-8  # largest residual the FMU accepts after the solve


@dataclass(frozen=True)
class Condition:
    """One initial condition ``0 = residual`` and how to name it in a message."""

    residual: ca.SX
    text: str
    state: str | None = None  # set when it is the literal start value of this state


@dataclass(frozen=True)
class Initialization:
    """The FMU's initialization: ``function (t, x, u, p) -> (x0, residual)``, the states
    in the model's order with the calculated ones replaced, and the largest residual of the
    conditions at ``x0``; ``calculated`` names the states it computes."""

    function: ca.Function
    calculated: frozenset[str]


def explicit_values(assignments: list[Assignment]) -> tuple[list[ca.SX], list[ca.SX]]:
    """Each causalized unknown and its value in states, inputs, parameters and time only."""
    symbols: list[ca.SX] = []
    values: list[ca.SX] = []
    for item in assignments:
        value = item.expression
        if symbols:
            value = ca.substitute([value], symbols, values)[0]
        symbols.append(item.unknown)
        values.append(value)
    return symbols, values


def initialization(
    model: str,
    time: ca.SX,
    states: list[ca.SX],
    starts: list[ca.SX | None],
    inputs: list[ca.SX],
    parameters: list[ca.SX],
    conditions: list[Condition],
    assignments: list[Assignment],
    held: tuple[list[ca.SX], list[ca.SX]] = ([], []),
) -> Initialization | None:
    """The initialization of ``model``, or ``None`` when every state starts at its literal
    start value (the FMU then behaves as before: the states are ``exact`` start values).

    ``held`` replaces the symbols of values held between events (discrete states, relation
    memories) by their values at the start."""
    n = len(states)
    if len(conditions) > n:
        listed = "; ".join(c.text for c in conditions[:6])
        raise BuildError(
            f"{model}: {len(conditions)} initial conditions for {n} states, too many: {listed}"
        )
    symbols, values = explicit_values(assignments)
    equations = [c.residual for c in conditions]
    if equations and symbols:
        equations = ca.vertsplit(
            ca.substitute(ca.vertcat(*equations), ca.vertcat(*symbols), ca.vertcat(*values))
        )
    if equations and held[0]:
        equations = ca.vertsplit(
            ca.substitute(ca.vertcat(*equations), ca.vertcat(*held[0]), ca.vertcat(*held[1]))
        )
        # values held from initialization may be in dependent parameters (a filter's
        # coefficients from its cut-off frequency f_cut = 2*f)
        if symbols and ca.depends_on(ca.vertcat(*held[1]), ca.vertcat(*symbols)):
            equations = ca.vertsplit(
                ca.substitute(ca.vertcat(*equations), ca.vertcat(*symbols), ca.vertcat(*values))
            )
    conditions = [Condition(e, c.text, c.state) for e, c in zip(equations, conditions, strict=True)]
    conditions += _default_starts(model, states, starts, conditions)
    exact = {c.state for c in conditions if c.state and _literal(c.residual, states)}
    calculated = [k for k, x in enumerate(states) if x.name() not in exact]
    if not calculated:
        return None
    unknowns = ca.vertcat(*[states[k] for k in calculated])
    residual = ca.vertcat(*[c.residual for c in conditions if c.state not in exact])
    knowns = [time, ca.vertcat(*states), ca.vertcat(*inputs), ca.vertcat(*parameters)]
    guess = ca.vertcat(*[_start(starts[k]) for k in calculated])
    if symbols:  # a start value given by a dependent parameter (y(start = y_start))
        guess = ca.substitute(guess, ca.vertcat(*symbols), ca.vertcat(*values))
    jacobian = external_c.jacobian(residual, unknowns)
    if not ca.depends_on(jacobian, unknowns):
        offset = ca.substitute(residual, unknowns, ca.DM.zeros(unknowns.numel()))
        solution = ca.solve(jacobian, -offset)
    else:
        refused = external_c.refuse_in_jacobian([residual], "initial equations", newton=True)
        if refused:
            raise BuildError(f"{model}: {refused}")
        given = [time, ca.vertcat(*[x for k, x in enumerate(states) if k not in calculated])]
        given += knowns[2:]
        problem = ca.Function("initial_conditions", [unknowns, *given], [residual])
        newton = ca.rootfinder(
            "initial_newton",
            "fast_newton",
            problem,
            {"abstol": NEWTON_TOLERANCE, "max_iter": NEWTON_ITERATIONS},
        )
        solution = newton(guess, *given)
    x0 = _replace(states, calculated, solution)
    at_solution = ca.substitute(residual, unknowns, solution)
    worst = ca.mmax(ca.fabs(at_solution)) if at_solution.numel() else ca.SX(0)
    function = ca.Function(
        "model_init", knowns, [x0, worst], ["t", "x", "u", "p"], ["x0", "residual"]
    )
    return Initialization(function, frozenset(states[k].name() for k in calculated))


def _replace(states: list[ca.SX], calculated: list[int], solution: ca.SX) -> ca.SX:
    values = list(states)
    for j, k in enumerate(calculated):
        values[k] = solution[j]
    return ca.vertcat(*values)


def _start(start: ca.SX | None) -> ca.SX:
    return ca.SX(0.0) if start is None else ca.SX(start)


def _literal(residual: ca.SX, states: list[ca.SX]) -> bool:
    """Whether ``residual`` is ``x - number``: a state's own literal start value."""
    return len(ca.symvar(residual)) == 1 and not ca.depends_on(
        ca.gradient(residual, ca.vertcat(*states)), ca.vertcat(*states)
    )


def _default_starts(
    model: str, states: list[ca.SX], starts: list[ca.SX | None], conditions: list[Condition]
) -> list[Condition]:
    """Start-value conditions for the states the given conditions leave undetermined."""
    n = len(states)
    defaults: list[Condition] = []
    given = [c.residual for c in conditions]
    if given:
        pattern = ca.jacobian_sparsity(ca.vertcat(*given), ca.vertcat(*states))
        rows, cols = pattern.get_triplet()
    else:
        rows, cols = [], []
    incidence = csr_matrix(
        (np.ones(len(rows)), (np.asarray(rows, dtype=int), np.asarray(cols, dtype=int))),
        shape=(len(given), n),
    )
    match = maximum_bipartite_matching(incidence, perm_type="column") if given else []
    unmatched = [i for i, j in enumerate(match) if j < 0]
    if unmatched:
        listed = "; ".join(conditions[i].text for i in unmatched[:5])
        raise BuildError(
            f"{model}: initial conditions that determine no state (structurally singular): {listed}"
        )
    taken = {int(j) for j in match}
    for k, state in enumerate(states):
        if k not in taken:
            name = state.name()
            defaults.append(
                Condition(state - _start(starts[k]), f"{name} = start value", state=name)
            )
    return defaults
