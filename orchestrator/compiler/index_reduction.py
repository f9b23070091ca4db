"""Structural index reduction: Pantelides' algorithm with dummy derivatives.

A model arrives as scalar residuals ``0 = f(t, x, der(x), z, u, p)``. Causalization
(:mod:`orchestrator.compiler.causalize`) needs a perfect matching of the residuals to the unknowns
``der(x)`` and ``z``, i.e. a DAE of index 0 or 1. A constraint between states (two rigidly
coupled inertias, a pendulum of fixed length, a spring-damper whose relative position is a
state beside the absolute positions) leaves no such matching: the DAE is of higher index.
:func:`reduce_index` turns it into an equivalent index-1 system in three steps.

1. Structural check. A state with all its derivatives is one *variable*, and so is every
   algebraic variable. If the equations cannot be matched perfectly to the variables, with an
   equation incident to a variable when it contains the variable or any derivative of it, the
   system is structurally singular (an equation missing, or two equations for one variable):
   differentiation cannot help, and the equations left over are reported. This is the
   condition under which Pantelides' algorithm terminates (J. D. Pryce, "A simple structural
   analysis method for DAEs", BIT Numerical Mathematics, 2001).

2. Pantelides' algorithm (C. C. Pantelides, "The consistent initialization of
   differential-algebraic systems", SIAM Journal on Scientific and Statistical Computing,
   1988). Each equation is matched to the highest derivative of a variable by an augmenting
   path search. When the search from an equation fails, every equation and every variable it
   visited is differentiated once, the equations symbolically with respect to time and the
   variables by a new symbol for their next derivative (``der(z)``, ``der(der(x))``), and the
   search is repeated from the differentiated equation. The result is the smallest set of
   differentiations after which all highest derivatives can be matched.

3. Dummy derivatives (S. E. Mattsson and G. Söderlind, "Index reduction in
   differential-algebraic equations using dummy derivatives", SIAM Journal on Scientific
   Computing, 1993). All original and differentiated equations are kept. To balance them, as
   many derivatives as there are differentiated equations become algebraic unknowns, the
   dummy derivatives. At the first level the equations are the differentiated ones in their
   highest form and the candidates are the highest derivatives in them; columns of their
   Jacobian with respect to the candidates are chosen that form a nonsingular square matrix.
   At the next level the equations are those differentiated at least once more, one
   differentiation lower, and the candidates are the chosen derivatives, one order lower; and
   so on. A declared state whose derivative is a dummy derivative is a dummy state: it and its
   derivative symbol become algebraic unknowns.

Choice of the dummy derivatives: the derivatives introduced here come first, since they must
not stay derivatives of states; then the derivatives of the declared states, the lowest
state-selection priority first (Modelica's ``stateSelect``: always 4, prefer 3, default 2,
avoid 1, never 0) and, among equal priorities, the state declared later first. In this order a
column is taken when it raises the rank of the columns taken so far, the Jacobian being
evaluated at a fixed pseudo-random point (an entry that is not finite there is replaced by a
random number, i.e. judged structurally). That is the generic rank: a choice that is singular
only at particular values (a pendulum whose chosen coordinate has a vanishing coefficient as
the rod passes the horizontal) is not detected by it. The choice is then checked where the
model starts: the matrices chosen are evaluated at the start point (:func:`start_point`: the
parameters' values and the fixed start values, what equations with one unknown give from them,
then the other start values), and where one of them is singular there (a position's component
solved from a spring's length where that component is 0 at the start: the length does not
determine it there), the dummy derivatives are chosen again in the same order with the
Jacobians evaluated at that point, so that a column singular there is passed over for the next
one; otherwise the generic choice stands. This is the static choice Modelica tools make without
dynamic state selection: by priority, checked at the consistent initial point. The states are
selected once, when the model is built; dynamic state selection (switching dummy states during
a simulation: Mattsson, Olsson and Elmqvist, "Dynamic selection of states in Dymola", Modelica
Workshop 2000) is not done, so the model is valid only where the chosen matrices stay
nonsingular.

A unit norm of states (MSL's quaternions: four components ``Q`` of a frame's orientation with
``Q*Q = 1``, their derivatives given by the angular velocity, ``w = angularVelocity2(Q,
der(Q))``) has no static choice that holds over a run: with one component solved from the norm
the solve is singular where that component is 0, and a body turning by pi takes every
component through 0 (MSL's ``PointGravityWithPointMasses2`` stopped at 1.62 s). An equation
that index reduction differentiates, whose unknowns are declared states of the first order (no
equation ``der(x) = v`` makes another declared state the derivative of one of them: a
pendulum's ``x^2 + y^2 = L^2`` on positions with their velocities is not one), none of them in
it linearly (so none could be solved from it explicitly), is therefore held differentiated:
its differentiated versions are equations of the system, the equation as written is not, and
it chooses no dummy derivative at its lowest level, so that all its states stay states; the
equation is returned as an initial condition (``ReducedSystem.invariants``). The integration
keeps it to its tolerance, since its derivative is kept exactly (the overdetermined approach
to constrained mechanical systems: E. Eich-Soellner and C. Führer, "Numerical Methods in
Multibody Dynamics", Teubner, 1998, Sec. 5.3). Where the dummy derivatives cannot be chosen
this way, the equation is reduced as the others.

Every symbol in the residuals besides the variables and ``time`` is known: a parameter is
constant in time, and an input whose derivative a differentiated equation would need is an
error.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import casadi as ca
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from orchestrator.compiler.causalize import CausalizationError, _describe
from orchestrator.compiler.external_c import refuse_in_jacobian

LOG = logging.getLogger(__name__)
# Fixed seed: the same model always gets the same states.
_SEED = 1988
# Range of the pseudo-random values: inside the domains of sqrt, log, asin and acos.
_LOW, _HIGH = 0.1, 0.9
# A normalized column raises the rank when its part outside the span of those taken is larger.
_RANK_TOLERANCE = 1e-8
# A column this much smaller than the matrix's largest is round-off of a zero one: MSL's
# PrismaticConstraint fixes a position its constraint already locks, r_rel_a_3 = 0, whose
# derivatives in the states come out near 1e-18, and normalized it counted as a condition.
_ROUND_OFF = 1e-12


@dataclass(frozen=True)
class ReducedSystem:
    """An index-1 system equivalent to a DAE of any index.

    ``causalize(residuals, derivatives + algebraics, model)`` sees as many equations as
    unknowns; ``states`` are the knowns that an integrator advances.
    """

    residuals: list[ca.SX]  # the original residuals, then the differentiated ones
    states: list[ca.SX]  # the input states that stay states, in input order
    derivatives: list[ca.SX]  # their der-symbols, in the same order
    algebraics: list[ca.SX]  # input algebraics, dummy states, then dummy derivatives
    dummy_states: list[ca.SX]  # the input states demoted to algebraic unknowns
    differentiated: list[int]  # per original residual: how many times it was differentiated
    # where the states were chosen at the start point: the values there that the equations
    # give from the known ones, by name (Newton's first guesses at initialization)
    start: dict[str, float] = field(default_factory=dict)
    # equations held differentiated (a unit norm of states): initial conditions, as written
    invariants: list[ca.SX] = field(default_factory=list)


@dataclass
class _Variable:
    """A state or algebraic variable with the symbols of its derivatives."""

    chain: list[ca.SX]  # chain[k] is the k-th time derivative
    state: bool  # a declared state: chain[0] is the state, chain[1] its der-symbol
    priority: int  # state-selection priority; unused for algebraic variables


class _System:
    """Equations with their time derivatives and variables with theirs, during the reduction."""

    def __init__(
        self,
        residuals: list[ca.SX],
        variables: list[_Variable],
        time: ca.SX,
        inputs: Sequence[ca.SX],
        model: str,
    ) -> None:
        # versions[e][c]: residual e differentiated c times
        self.versions = [[r] for r in residuals]
        self.variables = variables
        self.model = model
        self._time = time.element_hash()
        self._inputs = {u.element_hash(): u for u in inputs}
        self._position = {
            s.element_hash(): (b, k) for b, v in enumerate(variables) for k, s in enumerate(v.chain)
        }
        # incidence[e]: variable -> highest derivative order in the newest version of equation e
        self.incidence: list[dict[int, int]] = [{} for _ in residuals]

    def order(self, b: int) -> int:
        """Order of the highest derivative of variable ``b`` so far."""
        return len(self.variables[b].chain) - 1

    def highest(self, e: int) -> list[int]:
        """Variables whose highest derivative occurs in the newest version of equation ``e``."""
        return [b for b, k in self.incidence[e].items() if k == self.order(b)]

    def preference(self, candidate: tuple[int, int]) -> tuple[bool, int, int]:
        """Sort key of a candidate (variable, order): the smallest is made a dummy first."""
        b, k = candidate
        variable = self.variables[b]
        free = variable.state and k == 1  # it may stay the derivative of a declared state
        # a higher derivative of a state, made a dummy here, makes the one below it a
        # candidate at the next level: its state's priority counts already
        return free, variable.priority if variable.state else 0, -b

    def note(self, e: int, b: int, k: int) -> None:
        """Record that the newest version of equation ``e`` contains ``b``'s derivative ``k``."""
        self.incidence[e][b] = max(k, self.incidence[e].get(b, -1))

    def differentiate_variable(self, b: int) -> None:
        """Add the symbol of the next derivative of variable ``b``."""
        chain = self.variables[b].chain
        symbol = ca.SX.sym(f"der({chain[-1].name()})")
        self._position[symbol.element_hash()] = (b, len(chain))
        chain.append(symbol)

    def differentiate_equation(self, e: int) -> None:
        """Append the time derivative of the newest version of equation ``e``."""
        newest = self.versions[e][-1]
        arguments: list[ca.SX] = []
        rates: list[ca.SX] = []
        for symbol in ca.symvar(newest):
            key = symbol.element_hash()
            if key == self._time:
                arguments.append(symbol)
                rates.append(ca.SX(1))
            elif key in self._position:
                b, k = self._position[key]
                arguments.append(symbol)
                rates.append(self.variables[b].chain[k + 1])
            elif key in self._inputs:
                raise CausalizationError(
                    f"{self.model}: index reduction differentiates the equation "
                    f"0 = {_describe(self.versions[e][0])}, which needs the derivative of input "
                    f"'{symbol.name()}'; inputs cannot be differentiated"
                )
        refused = refuse_in_jacobian([newest], "an equation index reduction differentiates", False)
        if refused:
            raise CausalizationError(f"{self.model}: {refused}")
        derivative = ca.jtimes(newest, ca.vertcat(*arguments), ca.vertcat(*rates))
        self.versions[e].append(derivative)
        self.incidence[e] = {}
        for symbol in ca.symvar(derivative):
            if symbol.element_hash() in self._position:
                self.note(e, *self._position[symbol.element_hash()])


def reduce_index(
    residuals: list[ca.SX],
    states: list[ca.SX],
    derivatives: list[ca.SX],
    algebraics: list[ca.SX],
    time: ca.SX,
    priority: list[int],
    model: str,
    *,
    inputs: Sequence[ca.SX] = (),
    known: Mapping[str, float] | None = None,
    guesses: Mapping[str, float] | None = None,
) -> ReducedSystem:
    """Reduce the DAE ``0 = residuals`` to index 1 (see the module docstring).

    ``states[i]`` and ``derivatives[i]`` are the symbols of a state and of its derivative,
    ``priority[i]`` its state-selection priority; ``algebraics`` are the other unknowns;
    ``inputs`` are the symbols whose derivative is not available (every other symbol but
    ``time`` is constant). ``known`` (parameters' values, fixed start values) and
    ``guesses`` (the other start values), by symbol name, give the start point where the
    choice of states is checked; without them it is not. A system that is already of index
    0 or 1 is returned unchanged.
    Raises :class:`CausalizationError` naming the model and the equations when the system is
    structurally singular, or when an equation that must be differentiated contains an input.
    """
    n_x, n_z = len(states), len(algebraics)
    n_unknowns = n_x + n_z
    if not residuals:
        return ReducedSystem([], list(states), list(derivatives), list(algebraics), [], [])
    pattern = ca.jacobian_sparsity(
        ca.vertcat(*residuals), ca.vertcat(*derivatives, *algebraics, *states)
    )
    rows, cols = (np.asarray(a, dtype=int) for a in pattern.get_triplet())
    unknown = cols < n_unknowns
    match = _matching(rows[unknown], cols[unknown], len(residuals), n_unknowns)
    if len(residuals) == n_unknowns and (match >= 0).all():
        return ReducedSystem(
            list(residuals),
            list(states),
            list(derivatives),
            list(algebraics),
            [],
            [0] * len(residuals),
        )
    # Columns [der(x), z, x]: the variable of a state's column is that of its derivative's.
    variable_of = np.where(unknown, cols, cols - n_unknowns)
    _check_nonsingular(residuals, rows, variable_of, states, algebraics, model)

    variables = [
        _Variable([x, dx], True, p) for x, dx, p in zip(states, derivatives, priority, strict=True)
    ] + [_Variable([z], False, 0) for z in algebraics]
    system = _System(residuals, variables, time, inputs, model)
    for e, b, k in zip(rows, variable_of, (cols < n_x).astype(int), strict=True):
        system.note(int(e), int(b), int(k))
    assign = np.full(n_unknowns, -1)  # variable -> equation matched to its highest derivative
    matched = match >= 0
    assign[match[matched]] = np.flatnonzero(matched)
    _pantelides(system, assign, [int(e) for e in np.flatnonzero(~matched)])
    held = _norm_constraints(system)
    try:
        dummies, levels = _dummy_derivatives(system, held=held)
    except CausalizationError:
        if not held:
            raise
        held = []
        dummies, levels = _dummy_derivatives(system)
    start: dict[str, float] = {}
    if known is not None:
        given, point = start_point(residuals, time, known, guesses or {})
        if not all(_nonsingular(matrix, point) for matrix in levels):
            chosen = _chosen_at(system, point, dummies, held)
            if chosen != dummies:
                dummies = chosen
                names = {s.element_hash(): s.name() for r in residuals for s in ca.symvar(r)}
                start = {names[h]: value for h, value in given.items() if h in names}

    demoted = [i for i in range(n_x) if (i, 1) in dummies]
    kept = [i for i in range(n_x) if (i, 1) not in dummies]
    introduced = [s for v in variables for s in v.chain[2 if v.state else 1 :]]
    # a held equation's first derivative takes its place (and its source place)
    written = [system.versions[e][1] if e in held else r for e, r in enumerate(residuals)]
    return ReducedSystem(
        residuals=written
        + [
            r
            for e, versions in enumerate(system.versions)
            for r in versions[2 if e in held else 1 :]
        ],
        states=[states[i] for i in kept],
        derivatives=[derivatives[i] for i in kept],
        algebraics=list(algebraics)
        + [states[i] for i in demoted]
        + [derivatives[i] for i in demoted]
        + introduced,
        dummy_states=[states[i] for i in demoted],
        differentiated=[len(versions) - 1 for versions in system.versions],
        start=start,
        invariants=[residuals[e] for e in held],
    )


def _matching(rows: np.ndarray, cols: np.ndarray, n_rows: int, n_cols: int) -> np.ndarray:
    """Maximum matching of rows to columns: the column of each row, -1 where none."""
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_rows, n_cols))
    return maximum_bipartite_matching(graph, perm_type="column")


def _check_nonsingular(
    residuals: list[ca.SX],
    rows: np.ndarray,
    variable_of: np.ndarray,
    states: list[ca.SX],
    algebraics: list[ca.SX],
    model: str,
) -> None:
    """Raise unless the equations match the variables, a derivative standing for its variable."""
    names = [x.name() for x in states] + [z.name() for z in algebraics]
    match = _matching(rows, variable_of, len(residuals), len(names))
    left_equations = [_describe(residuals[e]) for e in np.flatnonzero(match < 0)]
    left_variables = sorted(set(range(len(names))) - set(match[match >= 0].tolist()))
    if not left_equations and not left_variables:
        return
    parts = []
    if left_equations:
        parts.append("no unknown left for equation(s): " + "; ".join(left_equations[:5]))
    if left_variables:
        parts.append("no equation left for: " + ", ".join(names[b] for b in left_variables[:10]))
    raise CausalizationError(
        f"{model}: structurally singular, not a higher-index problem: " + "; ".join(parts)
    )


def _augment(
    root: int, highest: Callable[[int], list[int]], assign: np.ndarray
) -> tuple[set[int], set[int]] | None:
    """Search an augmenting path from the unmatched equation ``root``, depth first.

    On success the matching ``assign`` (variable -> equation) is changed along the path and
    None is returned; otherwise ``assign`` is unchanged and the equations and variables the
    search visited are returned.
    """
    equations = {root}
    variables: set[int] = set()
    stack: list[tuple[int, Iterator[int]]] = [(root, iter(highest(root)))]
    path: list[int] = []  # path[i] leads from the equation of stack[i] to that of stack[i + 1]
    while stack:
        e, candidates = stack[-1]
        for b in candidates:
            if b in variables:
                continue
            variables.add(b)
            if assign[b] < 0:
                assign[b] = e
                for (previous, _), variable in zip(stack, path, strict=False):
                    assign[variable] = previous
                return None
            path.append(b)
            equations.add(int(assign[b]))
            stack.append((int(assign[b]), iter(highest(int(assign[b])))))
            break
        else:
            stack.pop()
            if path:
                path.pop()
    return equations, variables


def _pantelides(system: _System, assign: np.ndarray, unmatched: list[int]) -> None:
    """Differentiate equations and variables until every equation has a highest derivative."""
    # A safeguard against a search that symbolic cancellations would keep from ending: no
    # model this is meant for differentiates an equation as often as it has equations.
    limit = len(system.versions)
    for root in unmatched:
        while visited := _augment(root, system.highest, assign):
            if len(system.versions[root]) > limit:
                raise CausalizationError(
                    f"{system.model}: index reduction stopped after differentiating "
                    f"0 = {_describe(system.versions[root][0])} {limit} times"
                )
            equations, variables = visited
            for b in sorted(variables):
                system.differentiate_variable(b)
            for e in sorted(equations):
                system.differentiate_equation(e)


def _norm_constraints(system: _System) -> list[int]:
    """The differentiated equations held differentiated (see the module docstring): their
    unknowns two or more declared states of the first order, none of them in it linearly."""
    position = system._position
    # states whose derivative an equation der(x) = v (or -v) equates to another declared state
    second_order: set[int] = set()
    for versions in system.versions:
        symbols = ca.symvar(versions[0])
        places = [position.get(s.element_hash()) for s in symbols]
        if len(symbols) != 2 or None in places:
            continue
        if not ca.jacobian(versions[0], ca.vertcat(*symbols)).is_constant():
            continue
        for (b, k), (c, j) in (places, places[::-1]):
            if k == 1 and j == 0 and system.variables[b].state and system.variables[c].state:
                second_order.add(b)
    held = []
    for e, versions in enumerate(system.versions):
        if len(versions) < 2:
            continue
        unknowns = [s for s in ca.symvar(versions[0]) if s.element_hash() in position]
        places = [position[s.element_hash()] for s in unknowns]
        if len(unknowns) < 2 or any(
            k != 0 or not system.variables[b].state or b in second_order for b, k in places
        ):
            continue
        if all(ca.depends_on(ca.jacobian(versions[0], s), s) for s in unknowns):
            held.append(e)
    return held


def _chosen_at(
    system: _System, point: dict[int, float], generic: set[tuple[int, int]], held: list[int]
) -> set[tuple[int, int]]:
    """The dummy derivatives chosen with the Jacobians at ``point``; the ``generic`` ones
    where no choice is nonsingular there either."""
    try:
        dummies, _ = _dummy_derivatives(system, point, held)
    except CausalizationError:
        return generic
    states = [v.chain[0].name() for b, v in enumerate(system.variables) if v.state]
    demoted = {system.variables[b].chain[0].name() for b, k in dummies if k == 1}
    before = {system.variables[b].chain[0].name() for b, k in generic if k == 1}
    LOG.info(
        "%s: the states chosen by priority are singular at the start; states chosen there: %s",
        system.model,
        ", ".join(s for s in states if s not in demoted and s in before),
    )
    return dummies


def _dummy_derivatives(
    system: _System, point: Mapping[int, float] | None = None, held: Sequence[int] = ()
) -> tuple[set[tuple[int, int]], list[ca.SX]]:
    """Mattsson and Söderlind's dummy derivatives, as (variable, derivative order) pairs,
    and the matrix chosen at each level (the Jacobian of its equations in its dummy
    derivatives). The Jacobians are evaluated at ``point`` (values by symbol hash), the
    pseudo-random point elsewhere. The equations ``held`` take no dummy derivative at their
    lowest level, and their states none of the first order."""
    rng = np.random.default_rng(_SEED)
    values: dict[int, float] = dict(point or {})
    levels: list[ca.SX] = []
    counts = [len(versions) - 1 for versions in system.versions]
    depth = [c - (e in held) for e, c in enumerate(counts)]
    kept = {
        system._position[s.element_hash()][0]
        for e in held
        for s in ca.symvar(system.versions[e][0])
        if s.element_hash() in system._position
    }
    rows = [e for e, c in enumerate(depth) if c > 0]
    highest = sorted({b for e in rows for b in system.highest(e)})
    candidates = [(b, system.order(b)) for b in highest]
    dummies: set[tuple[int, int]] = set()
    level = 1
    while rows:
        candidates = sorted(
            (c for c in candidates if c[1] >= 1 and not (c[1] == 1 and c[0] in kept)),
            key=system.preference,
        )
        equations = ca.vertcat(*[system.versions[e][counts[e] - level + 1] for e in rows])
        unknowns = ca.vertcat(*[system.variables[b].chain[k] for b, k in candidates])
        matrix = _evaluate(ca.jacobian(equations, unknowns), rng, values)
        chosen = [candidates[c] for c in independent_columns(matrix)]
        if len(chosen) < len(rows):
            named = "; ".join(_describe(system.versions[e][0]) for e in rows[:5])
            raise CausalizationError(
                f"{system.model}: index reduction: the differentiated equations are singular in "
                f"their highest derivatives: {named}"
            )
        dummies.update(chosen)
        chosen_unknowns = [system.variables[b].chain[k] for b, k in chosen]
        levels.append(ca.jacobian(equations, ca.vertcat(*chosen_unknowns)))
        candidates = [(b, k - 1) for b, k in chosen]
        level += 1
        rows = [e for e in rows if depth[e] >= level]
    for b, variable in enumerate(system.variables):
        for k in range(2 if variable.state else 1, len(variable.chain)):
            if (b, k) not in dummies:
                raise CausalizationError(
                    f"{system.model}: index reduction would need '{variable.chain[k - 1].name()}' "
                    "as a state; only declared states can be states"
                )
    return dummies, levels


def _nonsingular(matrix: ca.SX, point: Mapping[int, float]) -> bool:
    """Whether the square ``matrix`` has full rank at ``point`` (values by symbol hash; the
    fixed pseudo-random point for the other symbols)."""
    numeric = _evaluate(matrix, np.random.default_rng(_SEED), dict(point))
    return len(independent_columns(numeric)) == numeric.shape[0]


def start_point(
    residuals: Sequence[ca.SX],
    time: ca.SX,
    known: Mapping[str, float],
    guesses: Mapping[str, float],
) -> tuple[dict[int, float], dict[int, float]]:
    """Values of the symbols of ``residuals`` where the model starts, by symbol hash: the
    ``known`` ones (parameters' values, fixed start values; ``time`` 0), then each unknown
    an equation with no other unknown gives, where the equation is linear in it (a spring's
    length from the positions, a relative position from two absolute ones), then the
    ``guesses`` (start values that are not fixed) for symbols still without a value and
    again what equations give from them. A consistent point where the equations that
    determine each value this way are the only ones; others may not hold there (a guess
    beside a value an equation gives), and symbols no equation gives have none. Returned
    twice: as the known values give it, and with the guesses."""
    symbols = [ca.symvar(r) for r in residuals]
    by_name: dict[str, ca.SX] = {}
    users: dict[int, list[int]] = defaultdict(list)
    for e, found in enumerate(symbols):
        for s in found:
            by_name[s.name()] = s
            users[s.element_hash()].append(e)
    values: dict[int, float] = {time.element_hash(): 0.0}
    open_count = [len(found) for found in symbols]

    def assign(symbol: ca.SX, value: float, queue: list[int]) -> None:
        values[symbol.element_hash()] = value
        for e in users[symbol.element_hash()]:
            open_count[e] -= 1
            if open_count[e] == 1:
                queue.append(e)

    def settle(queue: list[int]) -> None:
        while queue:
            e = queue.pop()
            unknown = [s for s in symbols[e] if s.element_hash() not in values]
            if len(unknown) == 1 and (value := _linear_root(residuals[e], unknown[0], values)):
                assign(unknown[0], value[0], queue)

    for e, found in enumerate(symbols):
        open_count[e] -= sum(s.element_hash() == time.element_hash() for s in found)
    queue: list[int] = []
    for name, value in known.items():
        if name in by_name and by_name[name].element_hash() not in values:
            assign(by_name[name], value, queue)
    settle(queue + [e for e, n in enumerate(open_count) if n == 1])
    given = dict(values)
    for name, value in guesses.items():
        if name in by_name and by_name[name].element_hash() not in values:
            assign(by_name[name], value, queue)
    settle(queue)
    return given, values


def _linear_root(
    residual: ca.SX, unknown: ca.SX, values: Mapping[int, float]
) -> tuple[float] | None:
    """The root of ``residual`` in ``unknown``, the other symbols at ``values``, where the
    residual is linear in it with a nonzero coefficient; else None."""
    others = [s for s in ca.symvar(residual) if not ca.is_equal(s, unknown)]
    if others:
        numbers = ca.DM([values[s.element_hash()] for s in others])
        residual = ca.substitute(residual, ca.vertcat(*others), numbers)
    slope = ca.jacobian(residual, unknown)
    if ca.depends_on(slope, unknown):
        return None
    coefficient = float(ca.evalf(slope))
    offset = float(ca.evalf(ca.substitute(residual, unknown, ca.DM(0.0))))
    root = -offset / coefficient if coefficient != 0.0 else math.nan
    return (root,) if math.isfinite(root) else None


def alias_classes(residuals: Sequence[ca.SX], variables: Sequence[ca.SX]) -> list[int]:
    """Per variable, the first variable of its alias class: the variables that equations of
    the form ``0 = a - b`` or ``0 = a + b`` between two of ``variables`` tie together, as a
    connection or a component's ``x = joint.x`` writes them (transitively)."""
    index = {v.element_hash(): i for i, v in enumerate(variables)}
    parent = list(range(len(variables)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for residual in residuals:
        symbols = ca.symvar(residual)
        if len(symbols) != 2 or any(s.element_hash() not in index for s in symbols):
            continue
        pair = ca.vertcat(*symbols)
        gradient = ca.jacobian(residual, pair)
        if not gradient.is_constant():
            continue
        unit = np.array_equal(np.abs(ca.evalf(gradient).full()).ravel(), [1.0, 1.0])
        if not unit or float(ca.evalf(ca.substitute(residual, pair, ca.DM.zeros(2)))) != 0.0:
            continue
        first, second = (root(index[s.element_hash()]) for s in symbols)
        parent[max(first, second)] = min(first, second)
    return [root(i) for i in range(len(variables))]


def _evaluate(matrix: ca.SX, rng: np.random.Generator, values: dict[int, float]) -> np.ndarray:
    """``matrix`` at the pseudo-random point ``values`` (drawn on first use of each symbol).

    Entries that are not finite there are replaced by random numbers.
    """
    symbols = ca.symvar(matrix)
    for s in symbols:
        if s.element_hash() not in values:
            values[s.element_hash()] = rng.uniform(_LOW, _HIGH)
    point = [values[s.element_hash()] for s in symbols]
    numeric = ca.Function("jacobian", symbols, [matrix]).call(point)[0].full()
    bad = ~np.isfinite(numeric)
    numeric[bad] = rng.uniform(_LOW, _HIGH, int(bad.sum()))
    return numeric


def generic_jacobian(expressions: ca.SX, unknowns: ca.SX) -> np.ndarray:
    """The Jacobian of ``expressions`` in ``unknowns`` at the fixed pseudo-random point of
    :func:`_evaluate` (every symbol drawn from the same seed): its rank is the generic one."""
    return _evaluate(ca.jacobian(expressions, unknowns), np.random.default_rng(_SEED), {})


def independent_columns(matrix: np.ndarray) -> list[int]:
    """Columns of ``matrix``, in order, each taken when it raises the rank of those taken;
    a column of round-off beside the largest (:data:`_ROUND_OFF`) raises none."""
    basis = np.zeros((matrix.shape[0], 0))
    chosen: list[int] = []
    norms = np.linalg.norm(matrix, axis=0)
    negligible = _ROUND_OFF * norms.max(initial=0.0)
    for c in range(matrix.shape[1]):
        if len(chosen) == matrix.shape[0]:
            break
        norm = norms[c]
        if norm <= negligible:
            continue
        rest = matrix[:, c] / norm
        for _ in range(2):  # Gram-Schmidt, twice for accuracy
            rest = rest - basis @ (basis.T @ rest)
        size = np.linalg.norm(rest)
        if size > _RANK_TOLERANCE:
            basis = np.column_stack([basis, rest / size])
            chosen.append(c)
    return chosen
