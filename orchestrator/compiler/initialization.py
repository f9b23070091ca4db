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
not below the tolerance).

Parameters with ``fixed = false`` and no value (MSL's ``InitSpringConstant``: a spring
constant such that the pendulum rests at the given angle, ``der(w) = 0``) are unknowns of the
same system beside the states; the FMU computes them when it leaves initialization mode and
holds them afterwards. Conditions that repeat others (a joint's angle fixed in the joint and
again in the component holding it) are found by the rank of their Jacobian in the unknowns at
a fixed pseudo-random point, as index reduction chooses its dummy derivatives: a condition is
kept when it raises the rank of those kept before it. The others are dropped with a warning
when they hold at the solution for the parameters' values (the FMU checks them again with its
own parameters) and fail the build with one line naming them when they do not. Conditions
that leave a state undetermined fail the build with one line naming them; a state that no
condition determines keeps its start value.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import casadi as ca
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from orchestrator.compiler import external_c
from orchestrator.compiler.causalize import Assignment
from orchestrator.compiler.index_reduction import generic_jacobian, independent_columns
from orchestrator.errors import BuildError

LOG = logging.getLogger(__name__)

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
    # each parameter with fixed = false and its value in (t, x, u, p), the same the function
    # computes with the states
    parameters: tuple[tuple[ca.SX, ca.SX], ...] = ()


def explicit_values(assignments: list[Assignment]) -> tuple[list[ca.SX], list[ca.SX]]:
    """Each causalized unknown and its value in states, inputs, parameters and time only.
    Each expression gets the values of the unknowns it contains (substituting all those
    before it, in each, took minutes for the thousands of a MultiBody model)."""
    symbols: list[ca.SX] = []
    values: list[ca.SX] = []
    value_of: dict[int, ca.SX] = {}  # by the unknown's symbol
    for item in assignments:
        value = item.expression
        inner = [s for s in ca.symvar(value) if s.element_hash() in value_of]
        if inner:
            value = ca.substitute([value], inner, [value_of[s.element_hash()] for s in inner])[0]
        symbols.append(item.unknown)
        values.append(value)
        value_of[item.unknown.element_hash()] = value
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
    free: tuple[tuple[ca.SX, ca.SX], ...] = (),
    nominal: tuple[list[float], list[float]] | None = None,
    place: Callable[[ca.SX], str] | None = None,
) -> Initialization | None:
    """The initialization of ``model``, or ``None`` when every state starts at its literal
    start value (the FMU then behaves as before: the states are ``exact`` start values).

    ``held`` replaces the symbols of values held between events (discrete states, relation
    memories) by their values at the start. ``free`` are the parameters with ``fixed =
    false`` the conditions determine beside the states, each with its start value (Newton's
    guess). ``nominal``, the inputs' start values and the parameters' values, is where
    conditions dropped as redundant are checked when the model is built. ``place`` gives the
    file:line:column of an equation that reads a held symbol, for messages."""
    symbols, values = explicit_values(assignments)
    equations = [c.residual for c in conditions]
    if equations and symbols:
        equations = ca.vertsplit(
            ca.substitute(ca.vertcat(*equations), ca.vertcat(*symbols), ca.vertcat(*values))
        )
    if equations and held[0]:
        equations = _at_start(model, equations, held, (symbols, values), place)
    conditions = [Condition(e, c.text, c.state) for e, c in zip(equations, conditions, strict=True)]
    free_symbols = [symbol for symbol, _ in free]
    conditions, redundant = _independent(conditions, states + free_symbols)
    defaults = _default_starts(model, states, starts, conditions, free_symbols)
    conditions += defaults
    exact = {c.state for c in conditions if c.state and _literal(c.residual, states)}
    calculated = [k for k, x in enumerate(states) if x.name() not in exact]
    if not calculated and not free:
        return None
    unknowns = ca.vertcat(*[states[k] for k in calculated], *free_symbols)
    residual = ca.vertcat(*[c.residual for c in conditions if c.state not in exact])
    knowns = [time, ca.vertcat(*states), ca.vertcat(*inputs), ca.vertcat(*parameters)]
    if defaults:
        _warn_started(model, defaults, knowns, (symbols, values), nominal)
    guess = ca.vertcat(*[_start(starts[k]) for k in calculated], *[ca.SX(s) for _, s in free])
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
    # the redundant conditions are checked with the others, at the solution
    checked = ca.vertcat(residual, *[c.residual for c in redundant])
    at_solution = ca.substitute(checked, unknowns, solution)
    if redundant:
        at_starts = ca.vertcat(*[_start(s) for s in starts])
        if symbols:
            at_starts = ca.substitute(at_starts, ca.vertcat(*symbols), ca.vertcat(*values))
        dropped = at_solution[residual.numel() :]
        _check_redundant(model, redundant, dropped, knowns, at_starts, nominal)
    worst = ca.mmax(ca.fabs(at_solution)) if at_solution.numel() else ca.SX(0)
    function = ca.Function(
        "model_init", knowns, [x0, worst], ["t", "x", "u", "p"], ["x0", "residual"]
    )
    found = tuple((symbol, solution[len(calculated) + j]) for j, symbol in enumerate(free_symbols))
    return Initialization(function, frozenset(states[k].name() for k in calculated), found)


def _at_start(
    model: str,
    equations: list[ca.SX],
    held: tuple[list[ca.SX], list[ca.SX]],
    explicit: tuple[list[ca.SX], list[ca.SX]],
    place: Callable[[ca.SX], str] | None,
) -> list[ca.SX]:
    """``equations`` (in time, states, inputs, parameters and held symbols) with the values
    held between events at the start in place of their symbols. A held value may name other
    held symbols (a relation on ``pre(n)``) and variables the equations compute (a relation's
    sides: a clutch's ``fn <= 0``, where ``fn`` is a step's output, itself a relation on
    ``time``; a dependent parameter: a filter's coefficient from its cut-off frequency), whose
    ``explicit`` values name held symbols again. Both are substituted, one level per pass,
    until none is left: a branch that a value at the start decides drops what the other
    branch reads (``pre(mode) == Stuck and sa > f0_max`` with ``pre(mode)`` at its start
    value ``Unknown``). A held value that still reads itself after as many levels as there
    are held values (a relation whose sides depend on its own value at the start: a mixed
    system of the initial conditions, not solved here) fails in one line naming it and,
    where ``place`` knows it, the equation that reads it."""
    joined = ca.vertcat(*equations)
    held_of = {s.element_hash(): (s, v) for s, v in zip(*held, strict=True)}
    computed = {s.element_hash(): (s, v) for s, v in zip(*explicit, strict=True)}
    for _ in range(2 * len(held_of) + 2):
        read = [s.element_hash() for s in ca.symvar(joined)]
        pairs = [held_of.get(k) or computed[k] for k in read if k in held_of or k in computed]
        if not pairs:
            return ca.vertsplit(joined)
        joined = ca.substitute(
            joined, ca.vertcat(*[s for s, _ in pairs]), ca.vertcat(*[v for _, v in pairs])
        )
    looped = [held_of[s.element_hash()] for s in ca.symvar(joined) if s.element_hash() in held_of]
    where = place(looped[0][0]) if place is not None else ""
    raise BuildError(
        f"{where + ': ' if where else ''}{model}: the initial conditions read a value held "
        "between events that depends on itself at the start (a mixed system of the initial "
        "conditions, not solved at initialization): "
        + "; ".join(f"{s.name()} = {v}" for s, v in looped[:3])
    )


def _independent(
    conditions: list[Condition], unknowns: list[ca.SX]
) -> tuple[list[Condition], list[Condition]]:
    """The conditions that raise the rank of those before them (kept) and the others
    (redundant), by their Jacobian in ``unknowns`` at a fixed pseudo-random point; every
    condition is kept when none repeats another."""
    if not conditions:
        return conditions, []
    residuals = ca.vertcat(*[c.residual for c in conditions])
    rows = independent_columns(generic_jacobian(residuals, ca.vertcat(*unknowns)).T)
    if len(rows) == len(conditions):
        return conditions, []
    kept = set(rows)
    return [conditions[k] for k in rows], [c for k, c in enumerate(conditions) if k not in kept]


def _check_redundant(
    model: str,
    redundant: list[Condition],
    residuals: ca.SX,
    knowns: list[ca.SX],
    starts: ca.SX,
    nominal: tuple[list[float], list[float]] | None,
) -> None:
    """Fail in one line where a redundant condition does not hold at the solution for the
    nominal inputs and parameters at time 0, the states given by ``starts`` where they are
    not computed; else say which ones are dropped."""
    listed = "; ".join(c.text for c in redundant[:6])
    more = f" and {len(redundant) - 6} more" if len(redundant) > 6 else ""
    if nominal is not None:
        time, states, inputs, parameters = knowns
        at = ca.Function("redundant", [time, states, inputs, parameters], [residuals, starts])
        u, p = ca.DM(nominal[0]), ca.DM(nominal[1])
        x = at(0.0, ca.DM.zeros(states.numel()), u, p)[1]
        value = at(0.0, x, u, p)[0].full().ravel()
        wrong = [
            f"{c.text} (residual {r:.3g})"
            for c, r in zip(redundant, value, strict=True)
            if np.isfinite(r) and abs(r) > RESIDUAL_TOLERANCE
        ]
        if wrong:
            raise BuildError(
                f"{model}: too many initial conditions, contradicting the others: "
                + "; ".join(wrong[:6])
            )
    LOG.warning(
        "%s: initial conditions redundant with the others, dropped: %s%s", model, listed, more
    )


def _warn_started(
    model: str,
    defaults: list[Condition],
    knowns: list[ca.SX],
    explicit: tuple[list[ca.SX], list[ca.SX]],
    nominal: tuple[list[float], list[float]] | None,
) -> None:
    """One line naming the states that no initial condition determines beside those that
    others do, and the start values they take. Which variables the initial system leaves
    free follows from the states index reduction chose, so a tool choosing others starts
    the model elsewhere: in MSL's ``PrismaticConstraint`` a body's position along its free
    axis starts at a frame's position here, at the joint's ``r_rel_a_1`` start value in the
    reference (Dymola). Each value is the start at the nominal inputs and parameters (in
    the state's unit), or its expression where it reads anything else."""
    time, states = knowns[0], knowns[1]
    values = ca.vertcat(*[-ca.substitute(c.residual, states, 0 * states) for c in defaults])
    symbols, bound = explicit
    if symbols:
        values = ca.substitute(values, ca.vertcat(*symbols), ca.vertcat(*bound))
    known = ca.vertcat(*knowns)
    if nominal is not None and all(ca.depends_on(known, s) for s in ca.symvar(values)):
        at = ca.Function("started", [time, states, *knowns[2:]], [values])
        numbers = at(0.0, ca.DM.zeros(states.numel()), ca.DM(nominal[0]), ca.DM(nominal[1]))
        shown = [f"{v:.6g}" for v in numbers.full().ravel()]
    else:
        shown = [str(v) for v in ca.vertsplit(values)]
    listed = "; ".join(f"{c.state} = {v}" for c, v in zip(defaults[:6], shown, strict=False))
    more = f" and {len(defaults) - 6} more" if len(defaults) > 6 else ""
    LOG.warning(
        "%s: initial conditions leave %d state(s) free, started at their start values "
        "(another choice of states starts elsewhere): %s%s",
        model,
        len(defaults),
        listed,
        more,
    )


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
    model: str,
    states: list[ca.SX],
    starts: list[ca.SX | None],
    conditions: list[Condition],
    free: list[ca.SX],
) -> list[Condition]:
    """Start-value conditions for the states the given conditions leave undetermined; the
    ``free`` parameters need a condition each."""
    n = len(states) + len(free)
    defaults: list[Condition] = []
    given = [c.residual for c in conditions]
    if given:
        pattern = ca.jacobian_sparsity(ca.vertcat(*given), ca.vertcat(*states, *free))
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
    undetermined = [x.name() for k, x in enumerate(free) if len(states) + k not in taken]
    if undetermined:
        raise BuildError(
            f"{model}: no initial condition determines parameter {undetermined[0]} "
            "(fixed = false, no value)"
        )
    for k, state in enumerate(states):
        if k not in taken:
            name = state.name()
            defaults.append(
                Condition(state - _start(starts[k]), f"{name} = start value", state=name)
            )
    return defaults
