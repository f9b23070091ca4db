"""From a flat model (rumoca front end) to the explicit model the FMUs are generated from.

The scalar variables of :class:`~orchestrator.compiler.flat_model.FlatModel` are sorted into
FMI's roles — tunable parameters, inputs, states, dependent variables — and its residuals are
brought into explicit form: structural index reduction where the residuals cannot be matched
to the derivatives and algebraic variables (``index_reduction``), then matching, block sorting
and symbolic solution (``causalize``). The result is the same ``DaeBuilder`` the pymoca path
gives, so code generation and the FMI layer are shared.
"""

from __future__ import annotations

import logging
import math
from dataclasses import fields, is_dataclass, replace
from functools import partial

import casadi as ca

from orchestrator.compiler.causalize import Assignment, CausalizationError, Loop, causalize
from orchestrator.compiler.events import (
    EventFunctions,
    EventRecord,
    Relation,
    WhenBranch,
    event_functions,
)
from orchestrator.compiler.flat_model import STATE_SELECT, FlatModel, FlatVariable
from orchestrator.compiler.fmu_export import DeclaredVariable, explicit_dae
from orchestrator.compiler.homotopy import homotopy_function
from orchestrator.compiler.index_reduction import ReducedSystem, alias_classes, reduce_index
from orchestrator.compiler.initialization import (
    Condition,
    Initialization,
    explicit_values,
    initialization,
)
from orchestrator.compiler.units import display_scale
from orchestrator.errors import BuildError

LOG = logging.getLogger(__name__)
ALWAYS = STATE_SELECT["Always"]
PREFER = STATE_SELECT["Prefer"]


def _value(expression: object, what: str, model: str) -> float:
    """The number of a start or parameter value that must be known when the FMU is built."""
    if expression is None:
        raise BuildError(f"{model}: {what} has no value")
    sx = ca.SX(expression)
    if not sx.is_constant():
        raise _not_a_number(what, sx, model)
    return float(ca.evalf(sx))


def _not_a_number(what: str, value: ca.SX, model: str) -> BuildError:
    """The one-line error for a value the build needs as a number that depends on other
    variables."""
    return BuildError(
        f"{model}: {what} = {value} depends on other variables; such values are computed "
        "at initialization, which this build does not do yet: give a number"
    )


def _bindings(roles: _Roles) -> tuple[ca.SX, ca.SX]:
    """The symbols of the constants and parameters and their bindings, as two vectors."""
    given = roles.constants + roles.parameters + roles.dependent
    symbols = ca.vertcat(*[v.symbol for v in given]) if given else ca.SX(0, 1)
    bindings = ca.vertcat(*[ca.SX(v.binding) for v in given]) if given else ca.SX(0, 1)
    return symbols, bindings


def _at_defaults(expression: object, bound: tuple[ca.SX, ca.SX]) -> float | None:
    """The number ``expression`` (a start value) has at the parameters' own values, its
    parameters replaced by their ``bound`` bindings (:func:`_bindings`) as long as they
    depend on others (``Q(start = Q_start)`` with ``Q_start = from_T(R_start.T)``); None
    when it depends on anything else. Newton's first guess of a loop: a guess, exact for the
    defaults."""
    value = ca.SX(expression)
    symbols, bindings = bound
    for _ in range(symbols.numel() + 1):
        if value.is_constant():
            return float(ca.evalf(value))
        if not ca.depends_on(value, symbols):
            return None
        value = ca.substitute(value, symbols, bindings)
    return None


class _Roles:
    """The flat variables sorted by what the FMU does with them."""

    def __init__(self, model: FlatModel) -> None:
        self.model = model
        self.when_targets = {
            target.name() for b in model.events.branches for target, _ in b.assignments
        }
        self.discrete: list[FlatVariable] = []
        self.free: list[FlatVariable] = []  # fixed = false without a value: initial unknowns
        used = set()
        for residual in model.residuals:
            used.update(s.name() for s in ca.symvar(residual))
        self.needed = _needed(model, used | _mentioned(model))
        self.constants: list[FlatVariable] = []
        self.parameters: list[FlatVariable] = []
        self.dependent: list[FlatVariable] = []
        self.inputs: list[FlatVariable] = []
        self.states: list[FlatVariable] = []
        self.algebraics: list[FlatVariable] = []
        for var in model.variables:
            self._sort(var)

    def _sort(self, var: FlatVariable) -> None:
        name = self.model.name
        if (
            var.variability in ("parameter", "discrete")
            and var.fixed is False
            and var.binding is None
            and var.name not in self.when_targets
        ):  # computed with the states when the FMU leaves initialization mode, then held
            self.free.append(var)
            self.discrete.append(var)
            return
        if var.variability in ("constant", "parameter"):
            binding = var.binding
            if binding is None:
                raise BuildError(f"{name}: parameter {var.name} has no value")
            if not ca.SX(binding).is_constant():
                if var.type_name == "Real" or var.name in self.needed:
                    self.dependent.append(var)
                # else an Integer or Boolean bound to another that only chose components
                # (MultiBody's angles_fixed = body.angles_fixed): the other is not declared
                return
            elif var.variability == "constant" or var.protected:
                # a protected parameter is no part of the interface (Modelica 3.6, Sec.
                # 4.1): a number of the FMU, as a constant is, not a parameter to set
                self.constants.append(var)
            elif var.type_name == "Real" or var.name in self.needed:
                self.parameters.append(var)
            # Unused Integer and Boolean parameters only sized arrays or chose components.
            return
        if var.name in self.when_targets:
            self.discrete.append(var)  # held between events, assigned by when-equations
        elif var.name in self.model.derivatives:
            self.states.append(var)
        elif var.causality == "input":
            self.inputs.append(var)
        else:
            self.algebraics.append(var)


def _mentioned(model: FlatModel) -> set[str]:
    """The names the model refers to outside its residuals: in start values, initial
    equations, relations, samples, when-branches, asserts and delays."""
    found: set[str] = set()

    def visit(item: object) -> None:
        if isinstance(item, ca.SX):
            found.update(s.name() for s in ca.symvar(item))
        elif is_dataclass(item):
            for entry in fields(item):
                visit(getattr(item, entry.name))
        elif isinstance(item, list | tuple):
            for entry in item:
                visit(entry)
        elif isinstance(item, dict):
            for entry in item.values():
                visit(entry)

    visit([model.initial_residuals, model.events, [v.start for v in model.variables]])
    return found


def _needed(model: FlatModel, used: set[str]) -> set[str]:
    """The names ``used`` in the equations and those the bindings of dependent parameters
    among them (and of the Real ones, which are always kept) refer to, transitively."""
    bindings = {
        v.name: ca.SX(v.binding)
        for v in model.variables
        if v.variability in ("constant", "parameter")
        and v.binding is not None
        and not ca.SX(v.binding).is_constant()
    }
    reals = {v.name for v in model.variables if v.type_name == "Real"}
    needed = set(used)
    frontier = [name for name in bindings if name in needed or name in reals]
    while frontier:
        for symbol in ca.symvar(bindings[frontier.pop()]):
            if symbol.name() not in needed:
                needed.add(symbol.name())
                if symbol.name() in bindings:
                    frontier.append(symbol.name())
    return needed


def _substitute(expressions: list[ca.SX], symbols: list[ca.SX], values: list[ca.SX]) -> list:
    if not expressions or not symbols:
        return list(expressions)
    joined = ca.substitute(ca.vertcat(*expressions), ca.vertcat(*symbols), ca.vertcat(*values))
    return list(ca.vertsplit(joined))


def _reduce(
    model: FlatModel,
    roles: _Roles,
    residuals: list[ca.SX],
    inputs: list[ca.SX],
    rates: dict[str, ca.SX],
    selected: dict[str, int],
) -> ReducedSystem:
    """Index reduction of ``residuals`` with ``roles.states`` as the candidate states
    (``rates`` their derivative symbols, ``selected`` their stateSelect)."""
    # stateSelect first; among equal ones a state with a fixed start value stays a state, so
    # that its initial value needs no initial system.
    known, guesses = _start_values(roles)
    return reduce_index(
        residuals,
        [v.symbol for v in roles.states],
        [rates[v.name] for v in roles.states],
        [v.symbol for v in roles.algebraics] + [v.symbol for v in roles.dependent],
        model.time,
        [2 * selected[v.name] + bool(v.fixed) for v in roles.states],
        model.name,
        inputs=inputs,
        known=known,
        guesses=guesses,
    )


def _start_values(roles: _Roles) -> tuple[dict[str, float], dict[str, float]]:
    """Where the model starts, as far as numbers are known when it is built: the
    parameters' values, the inputs' start values and the fixed start values, then the
    other start values (guesses), at the parameters' own values (index reduction checks
    its choice of states there)."""
    bound = _bindings(roles)
    known = {v.name: float(ca.evalf(ca.SX(v.binding))) for v in roles.parameters}
    guesses: dict[str, float] = {}
    for var in roles.inputs + roles.states + roles.algebraics:
        if var.start is not None and (value := _at_defaults(var.start, bound)) is not None:
            exact = var.fixed or var.causality == "input"
            (known if exact else guesses)[var.name] = value
    return known, guesses


def _reduce_with_state_select(
    model: FlatModel,
    roles: _Roles,
    residuals: list[ca.SX],
    inputs: list[ca.SX],
    rates: dict[str, ca.SX],
) -> ReducedSystem:
    """Index reduction that honors ``stateSelect`` (Modelica Language Specification 3.6,
    section 4.9.4.1) as written on aliases: a variable tied to others by equations
    ``a = b`` or ``a = -b`` is one variable, whose stateSelect is the highest of its
    aliases (MSL's ``Parts.RollingWheel`` declares ``x`` and ``angles`` always, aliases of
    its joint's variables that are avoid). An alias class with a variable that is always or
    prefer but no variable whose derivative appears (``der_angles``; MSL's Translational
    ``PartialCompliantWithRelativeStates``, whose ``v_rel = der(s_rel)`` is prefer and no
    equation reads its derivative) makes that variable a candidate state: its derivative, a
    new symbol added to ``rates``, is an unknown only differentiated equations determine, so
    Pantelides' algorithm differentiates the equations that give it, and the dummy
    derivatives, chosen lowest priority first, leave it a state where another candidate can
    be demoted. The variables promoted move from ``roles.algebraics`` to ``roles.states``;
    where their equations cannot be differentiated (an input, a function without
    derivative) the prefer ones stay algebraic, and then the always ones too, with a
    warning.

    Which variables are states decides what ``reinit`` leaves unchanged: in MSL's
    ``Translational.Examples.HeatLosses`` a hard stop sets a mass's velocity to 0, and a
    stiff spring-damper behind it whose ``v_rel`` is a state keeps its relative velocity,
    so that the mass before it stops too (as the reference, Dymola's, has it); with that
    mass's velocity a state instead, ``v_rel`` jumped to -0.68 m/s and the damper's force
    to 679 N (test_build_relative_states.py)."""
    members = roles.states + roles.algebraics
    classes = alias_classes(residuals, [v.symbol for v in members])
    highest: dict[int, int] = {}
    for c, v in zip(classes, members, strict=True):
        highest[c] = max(highest.get(c, 0), v.state_select)
    selected = {v.name: highest[c] for c, v in zip(classes, members, strict=True)}
    declared_names = {v.name for v in roles.states}
    with_state = {c for c, v in zip(classes, members, strict=True) if v.name in declared_names}
    always = _candidates(classes, members, with_state, ALWAYS)
    preferred = _candidates(classes, members, with_state | {c for c, _ in always}, PREFER)
    declared, algebraics = roles.states, roles.algebraics
    error = None
    for promoted in [always + preferred, always] if preferred else [always]:
        if not promoted:
            break
        added = {v.name: ca.SX.sym(f"der({v.name})") for _, v in promoted}
        roles.states = declared + [v for _, v in promoted]
        roles.algebraics = [v for v in algebraics if v.name not in added]
        try:
            reduced = _reduce(model, roles, residuals, inputs, rates | added, selected)
        except CausalizationError as failed:
            roles.states, roles.algebraics = declared, algebraics
            error = failed
            continue
        rates.update(added)
        return reduced
    if always:
        names = ", ".join(v.name for _, v in always[:5]) + (", ..." if len(always) > 5 else "")
        LOG.warning(
            "%s: stateSelect = always of %s not honored (their derivatives cannot be found): %s",
            model.name,
            names,
            str(error).removeprefix(f"{model.name}: "),
        )
    return _reduce(model, roles, residuals, inputs, rates, selected)


def _candidates(
    classes: list[int], members: list[FlatVariable], taken: set[int], state_select: int
) -> list[tuple[int, FlatVariable]]:
    """The first variable declared with ``state_select`` of each alias class not ``taken``
    (a class with a declared state, or one already promoted), with its class."""
    found: dict[int, FlatVariable] = {}
    for c, v in zip(classes, members, strict=True):
        if v.state_select == state_select and c not in taken and c not in found:
            found[c] = v
    return list(found.items())


def _conditions(
    model: FlatModel, roles: _Roles, kept: list[FlatVariable], dummy: set[str]
) -> list[Condition]:
    """The model's initial conditions: initial equations, then ``fixed = true`` start values
    of the states kept, of the states index reduction demoted and of algebraic variables.
    A discrete-time variable's ``fixed = true`` (an Integer or Boolean its equation gives,
    as a friction's ``mode``) is no condition on the variable: it means ``pre(v) = start``
    (Modelica Language Specification 3.6, Sec. 8.6), which the memories of ``pre`` hold at
    the start (:func:`_change_starts`)."""
    conditions = [Condition(r, f"initial equation 0 = {r}") for r in model.initial_residuals]
    kept_names = {v.name for v in kept}
    others = [v for v in roles.states if v.name in dummy] + roles.algebraics
    for var in kept + others:
        if not var.fixed or var.variability == "discrete":
            continue
        if var.start is None:
            raise BuildError(f"{model.name}: {var.name} has fixed = true but no start value")
        state = var.name if var.name in kept_names else None
        conditions.append(
            Condition(var.symbol - var.start, f"{var.name} = {var.start} (fixed)", state)
        )
    return conditions


def flat_dae(
    model: FlatModel,
) -> tuple[ca.DaeBuilder, Initialization | None, EventFunctions | None]:
    """The explicit model of ``model`` as a CasADi ``DaeBuilder``, its initialization
    (``None`` when every state starts at its own literal start value) and its events
    (``None`` when it has none)."""
    name = model.name
    roles = _Roles(model)
    constants = [v.symbol for v in roles.constants]
    values = [ca.SX(_value(v.binding, f"constant {v.name}", name)) for v in roles.constants]
    residuals = list(model.residuals) + [v.symbol - v.binding for v in roles.dependent]
    # initial() in the equations is a memory, 1 while the model initializes (events.py);
    # constants are numbers
    initial = model.events.initial
    reads_initial = any(ca.depends_on(r, initial) for r in residuals)
    initializing = model.events.initializing() if reads_initial else ca.SX(0)
    residuals = _substitute(residuals, [*constants, initial], [*values, initializing])
    inputs = [v.symbol for v in roles.inputs]
    rates = dict(model.derivatives)
    reduced = _reduce_with_state_select(model, roles, residuals, inputs, rates)
    loops: list[Loop] = []
    bound = _bindings(roles)  # once: a MultiBody model has thousands of start values
    first_guesses = {
        v.name: guess
        for v in roles.states + roles.algebraics
        if v.start is not None and (guess := _at_defaults(v.start, bound)) is not None
    }
    # where the states were chosen at the start point, the loops start from it too (a line
    # force's length solved from its s, the start value 0 outside the equation's domain)
    unfixed = {v.name for v in roles.states + roles.algebraics if not v.fixed}
    first_guesses |= {n: value for n, value in reduced.start.items() if n in unfixed}
    # the residuals keep their order through index reduction, which appends its own
    places = model.residual_places
    assignments = causalize(
        reduced.residuals,
        reduced.derivatives + reduced.algebraics,
        name,
        first_guesses,
        loops,
        places,
        {v.name: v.bounds for v in roles.states + roles.algebraics},
    )
    dummy = {s.name() for s in reduced.dummy_states}
    kept_states = [v for v in roles.states if v.name not in dummy]
    varying = [model.time, *[v.symbol for v in kept_states], *inputs]
    varying += [v.symbol for v in roles.discrete] + [d.value for d in model.events.delays]
    if reads_initial:  # a relation on what initial() gives changes when it falls
        varying.append(initializing)
    if model.homotopy is not None:
        varying.append(model.homotopy)
    # constants are numbers in the events too (an assert on a vector that is a constant)
    events_at = _substituted(model.events, constants, values)
    record, assignments, steady = _without_steady_relations(events_at, assignments, varying)
    unsolved = [(loop.converged, f"nonlinear algebraic loop did not converge: {loop.text}")
                for loop in loops]  # fmt: skip
    # the relations inside a loop's equations (in noEvent) give events too, not memories:
    # where the root the loop is on ends (an op-amp Schmitt trigger at its threshold) and
    # Newton finds another on other pieces, the integrator stops there and goes on from it
    pieces = [piece for loop in loops for piece in loop.pieces]
    switches = [
        Relation(ca.SX.sym(f"piece[{k + 1}]"), crossing, strict)
        for k, (crossing, strict) in enumerate(pieces)
    ]
    record = replace(
        record, relations=[*record.relations, *switches], asserts=[*record.asserts, *unsolved]
    )
    continuation = (record, assignments)  # with lambda, for the homotopy at initialization
    if model.homotopy is not None:  # lambda = 1 once initialized: the actual expressions
        record, assignments = _actual(record, assignments, model.homotopy)
    guesses = [g for loop in loops for g in loop.guesses]
    conditions = _conditions(model, roles, kept_states, dummy)
    # a unit norm that index reduction holds differentiated holds as written at the start
    conditions += [Condition(r, f"0 = {r} (held differentiated)") for r in reduced.invariants]
    # the initial equations with homotopy's actual expressions (lambda = 1), as the states'
    # initial system is solved before the continuation
    given = [*constants, *([model.homotopy] if model.homotopy is not None else [])]
    numbers = [*values, *([ca.SX(1)] if model.homotopy is not None else [])]
    conditions = [
        Condition(r, c.text, c.state)
        for r, c in zip(
            _substitute([c.residual for c in conditions], given, numbers),
            conditions,
            strict=True,
        )
    ]
    # a state chosen at the start point starts Newton there, unless its start value is fixed
    starts = _substitute(
        [
            ca.SX(reduced.start[v.name])
            if v.name in reduced.start and not v.fixed
            else ca.SX(v.start)
            if v.start is not None
            else ca.SX(0.0)
            for v in kept_states
        ],
        constants,
        values,
    )
    init = initialization(
        name,
        model.time,
        [v.symbol for v in kept_states],
        starts,
        inputs,
        [v.symbol for v in roles.parameters],
        conditions,
        assignments,
        _held_at_start(record, roles, name, steady, loops, _change_starts(record, model.variables)),
        tuple((v.symbol, _free_start(v, roles, constants, values)) for v in roles.free),
        (
            [_value(v.start, "start", name) if v.start is not None else 0.0 for v in roles.inputs],
            [_value(v.binding, f"parameter {v.name}", name) for v in roles.parameters],
        ),
        partial(_place, model),
    )
    calculated = init.calculated if init else frozenset()
    if init is not None and init.parameters:  # held from the initialization on
        chain = max((b.chain for b in record.branches), default=-1) + 1
        found = WhenBranch(chain, record.initial, list(init.parameters), [])
        record = replace(record, branches=[*record.branches, found])
    events = None
    if record.any:
        events = event_functions(
            record,
            model.time,
            [v.symbol for v in kept_states],
            inputs,
            [v.symbol for v in roles.parameters],
            [v.symbol for v in roles.discrete],
            explicit_values(assignments),
            guesses,
            _at_pre_values(record, assignments),
        )
        # the start values of discrete variables computed at initialization (fixed = false
        # parameters, initial algorithms, when initial()) are no initial values to set, nor
        # are those the initial system reads: it is built with them
        computed = set(_initially_assigned(record)) | {v.name for v in roles.free}
        if init is not None:
            computed |= _read_at_start(conditions, assignments, roles.discrete)
        events = replace(
            events,
            discrete=[_discrete_item(v, name, v.name in computed) for v in roles.discrete],
            iteration=[v.name() for loop in loops for v in loop.unknowns],
            guess_starts=[g for loop in loops for g in loop.starts],
            change_starts=_change_starts(record, model.variables),
        )
        events.sizes.update(HAS_HOMOTOPY=0, NLOOP=len(loops))
        if model.homotopy is not None and (record.relations or loops):
            knowns = [model.time, ca.vertcat(*[v.symbol for v in kept_states]), ca.vertcat(*inputs)]
            knowns += [ca.vertcat(*[v.symbol for v in roles.parameters])]
            knowns += [ca.vertcat(*[v.symbol for v in roles.discrete])]
            with_lambda, explicit = continuation[0], explicit_values(continuation[1])
            events.functions.append(
                homotopy_function(with_lambda, model.homotopy, knowns, explicit, loops)
            )
            events.sizes["HAS_HOMOTOPY"] = 1

    mx: dict[str, ca.MX] = {}

    def symbol(var_name: str) -> ca.MX:
        return mx.setdefault(var_name, ca.MX.sym(var_name))

    def meta(var: FlatVariable) -> dict:
        opts: dict = {}
        if var.unit:
            opts["unit"] = var.unit
        if shown := _display_unit(var, name):
            opts["display_unit"] = shown
        if var.description:
            opts["description"] = var.description
        return opts | _finite_bounds(var)

    declared = [
        DeclaredVariable("time", "independent", "continuous", symbol("time"), dict(unit="s"))
    ]
    for var in roles.parameters:
        opts = dict(start=_value(var.binding, f"parameter {var.name}", name), **meta(var))
        declared.append(DeclaredVariable(var.name, "parameter", "tunable", symbol(var.name), opts))
    for var in roles.inputs:
        start = 0.0
        if var.start is not None:
            start = _value(var.start, f"start value of input {var.name}", name)
        opts = dict(start=start, **meta(var))
        # an Integer, Boolean or enumeration input changes at events only: importers hold it
        # between them instead of interpolating (FMI 3.0, Sec. 2.4.7.4)
        variability = "discrete" if var.variability == "discrete" else "continuous"
        declared.append(DeclaredVariable(var.name, "input", variability, symbol(var.name), opts))
    for var, start in zip(kept_states, starts, strict=True):
        causality = "output" if var.causality == "output" else "local"
        if var.name in calculated:
            opts = dict(initial="calculated", **meta(var))
        else:
            opts = dict(start=_value(start, f"start of {var.name}", name), initial="exact")
            opts.update(meta(var))
        declared.append(DeclaredVariable(var.name, causality, "continuous", symbol(var.name), opts))
    for var in roles.discrete:  # knowns of the equations, kept apart from the parameters
        declared.append(DeclaredVariable(var.name, "parameter", "tunable", symbol(var.name), {}))
    for relation in record.relations:
        memory = relation.memory.name()
        declared.append(DeclaredVariable(memory, "parameter", "tunable", symbol(memory), {}))
    hidden_values = [*guesses, *(m for m, _ in record.changes), *(d.value for d in record.delays)]
    for hidden in hidden_values:
        declared.append(
            DeclaredVariable(hidden.name(), "parameter", "tunable", symbol(hidden.name()), {})
        )
    by_name = {v.name: v for v in model.variables}
    for unknown in reduced.algebraics:
        var = by_name.get(unknown.name())
        causality = "output" if var is not None and var.causality == "output" else "local"
        opts = meta(var) if var is not None else {}
        declared.append(
            DeclaredVariable(unknown.name(), causality, "continuous", symbol(unknown.name()), opts)
        )
    state_of = {rates[v.name].name(): symbol(v.name) for v in kept_states}
    dae = explicit_dae(name.split(".")[-1], declared, assignments, state_of)
    return dae, init, events


def _free_start(
    var: FlatVariable, roles: _Roles, constants: list[ca.SX], values: list[ca.SX]
) -> ca.SX:
    """Newton's guess of a parameter with ``fixed = false``: its start value, else 0. A start
    value over other parameters (MSL's ``SaturatingInductor``: ``Ipar(start = Inom/10)``) is
    a guess computed from them when the FMU initializes, with the ``constants`` at their
    ``values``; over anything else it is refused."""
    if var.start is None:
        return ca.SX(0.0)
    start = _substitute([ca.SX(var.start)], constants, values)[0]
    known = {v.name for v in roles.parameters + roles.dependent}
    if any(s.name() not in known for s in ca.symvar(start)):
        raise _not_a_number(f"start value of {var.name}", start, roles.model.name)
    return start


def _at_pre_values(
    record: EventRecord, assignments: list[Assignment]
) -> tuple[list[ca.SX], list[ca.SX]] | None:
    """Each causalized unknown's value in the knowns with the unknowns that ``pre`` reads
    through a memory (a friction's ``mode``, ``startForward``) at their memories: the
    configuration a mixed system's iteration starts from (events.py); None where ``pre``
    reads no unknown."""
    memory_of = {
        watched.name(): memory
        for memory, watched in record.changes
        if watched.is_symbolic() and not ca.is_equal(watched, memory)
    }
    if not any(a.unknown.name() in memory_of for a in assignments):
        return None
    return explicit_values(
        [Assignment(a.unknown, memory_of.get(a.unknown.name(), a.expression)) for a in assignments]
    )


def _place(model: FlatModel, symbol: ca.SX) -> str:
    """file:line:column of the first of ``model``'s equations that reads ``symbol`` (a
    relation's memory), or an empty string."""
    # the places may stop short of the residuals: those appended after them have none
    for residual, where in zip(model.residuals, model.residual_places, strict=False):
        if where and ca.depends_on(residual, symbol):
            return where
    return ""


def _read_at_start(
    conditions: list[Condition], assignments: list[Assignment], discrete: list[FlatVariable]
) -> set[str]:
    """The names of the ``discrete`` variables the initial conditions read, directly or
    through the variables the ``assignments`` compute: the initial system holds them at the
    start values the model declares, so a start value set in the FMU would not reach it."""
    if not conditions or not discrete:
        return set()
    residuals = ca.vertcat(*[c.residual for c in conditions])
    symbols, values = explicit_values(assignments)
    if symbols:
        residuals = ca.substitute(residuals, ca.vertcat(*symbols), ca.vertcat(*values))
    read = {s.name() for s in ca.symvar(residuals)}
    return {v.name for v in discrete if v.name in read}


def _discrete_item(var: FlatVariable, model: str, computed: bool = False) -> dict:
    """A discrete state as the FMU declares it: its start an exact initial value, unless
    the initialization ``computed`` it (then ``calculated``: a set would be overwritten)."""
    start = 0.0
    # a computed value's start over parameters is a guess of its initial system, declared nowhere
    if var.start is not None and (not computed or ca.SX(var.start).is_constant()):
        start = _value(var.start, f"start value of {var.name}", model)
    causality = "output" if var.causality == "output" else "local"
    return dict(
        name=var.name,
        start=start,
        unit=var.unit,
        display_unit=_display_unit(var, model),
        description=var.description,
        causality=causality,
        bounds=var.bounds,
        initial="calculated" if computed else "exact",
    )


def _display_unit(var: FlatVariable, model: str) -> str:
    """The display unit the FMU declares for ``var``: its ``displayUnit`` where that differs
    from its unit and converts from it by a factor and an offset; none otherwise, with a
    warning naming the variable (a display unit equal to the unit is the default)."""
    if not var.display_unit or var.display_unit == var.unit:
        return ""
    scale = display_scale(var.unit, var.display_unit) if var.unit else "the variable has no unit"
    if isinstance(scale, tuple):
        return var.display_unit
    LOG.warning(
        "%s: display unit '%s' of %s (unit '%s') left out of the FMU: %s",
        model,
        var.display_unit,
        var.name,
        var.unit,
        scale,
    )
    return ""


def _finite_bounds(var: FlatVariable) -> dict[str, float]:
    """The DaeBuilder options ``min`` and ``max`` of ``var`` where they are finite."""
    low, high = var.bounds
    return {k: v for k, v in (("min", low), ("max", high)) if math.isfinite(v)}


def _without_steady_relations(
    record: EventRecord, assignments: list[Assignment], varying: list[ca.SX]
) -> tuple[EventRecord, list[Assignment], tuple[list, list]]:
    """``record`` without the relations whose sides depend on parameters only (through
    variables the equations compute from them, as an array of frequencies): they never
    change, so they are decided in the equations and give no event indicator."""
    symbols, values = explicit_values(assignments)
    memories = [r.memory for r in record.relations]
    moving = ca.vertcat(*varying, *memories)
    kept, fixed, decided = [], [], []
    for relation in record.relations:
        crossing = relation.crossing
        if symbols:
            crossing = ca.substitute(crossing, ca.vertcat(*symbols), ca.vertcat(*values))
        if ca.depends_on(crossing, moving):
            kept.append(relation)
        else:
            fixed.append(relation.memory)
            decided.append(crossing > 0 if relation.strict else crossing >= 0)
    if not fixed:
        return record, assignments, ([], [])
    old, new = ca.vertcat(*fixed), ca.vertcat(*decided)
    assignments = [
        Assignment(a.unknown, ca.substitute(a.expression, old, new)) for a in assignments
    ]
    branches = [replace(b, condition=ca.substitute(b.condition, old, new)) for b in record.branches]
    return replace(record, relations=kept, branches=branches), assignments, (fixed, decided)


def _actual(
    record: EventRecord, assignments: list[Assignment], lam: ca.SX
) -> tuple[EventRecord, list[Assignment]]:
    """``record`` and ``assignments`` with ``homotopy`` at lambda = 1: the actual expressions
    exactly (``1 * a + 0 * s`` simplifies to ``a`` as the expression is rebuilt)."""
    one = ca.SX(1)
    assignments = [
        Assignment(a.unknown, ca.substitute(a.expression, lam, one)) for a in assignments
    ]
    return _substituted(record, [lam], [one]), assignments


def _substituted(record: EventRecord, symbols: list[ca.SX], values: list[ca.SX]) -> EventRecord:
    """``record`` with ``values`` in place of ``symbols`` in every expression it holds."""
    if not symbols:
        return record
    old, new = ca.vertcat(*symbols), ca.vertcat(*values)

    def at(expression: ca.SX) -> ca.SX:
        return ca.substitute(expression, old, new)

    relations = [replace(r, crossing=at(r.crossing)) for r in record.relations]
    branches = [
        replace(
            b,
            condition=at(b.condition),
            assignments=[(t, at(v)) for t, v in b.assignments],
            reinits=[(x, at(v)) for x, v in b.reinits],
        )
        for b in record.branches
    ]
    asserts = [(at(c), text) for c, text in record.asserts]
    delays = [
        replace(
            d,
            expression=at(d.expression),
            delay_time=at(d.delay_time),
            delay_max=at(d.delay_max),
        )
        for d in record.delays
    ]
    samples = [replace(s, start=at(s.start), interval=at(s.interval)) for s in record.samples]
    changes = [(memory, at(value)) for memory, value in record.changes]
    return replace(
        record,
        relations=relations,
        branches=branches,
        asserts=asserts,
        samples=samples,
        delays=delays,
        changes=changes,
    )


def _change_starts(record: EventRecord, variables: list[FlatVariable]) -> list[float]:
    """The values of the memories of ``change`` and ``pre`` (``record.changes``) before the
    first event update, in initialization mode: a memory of a variable holds its start value
    (``pre(v) = v.start``, Modelica Language Specification 3.6, Sec. 8.6), or the number an
    initial equation gives ``pre(v)``; the others (samples, flags) 0."""
    starts = {v.name: v.start for v in variables if v.start is not None}
    values = []
    for memory, watched in record.changes:
        given = record.held_starts.get(memory.name())
        if given is None and watched.is_symbolic() and not ca.is_equal(watched, memory):
            given = starts.get(watched.name())
        given = ca.SX(given if given is not None else 0.0)
        values.append(float(ca.evalf(given)) if given.is_constant() else 0.0)
    return values


def _initially_assigned(record: EventRecord) -> dict[str, ca.SX]:
    """The values the when-branches on ``initial()`` alone give discrete variables."""
    return {
        target.name(): value
        for branch in record.branches
        if ca.is_equal(branch.condition, record.initial)
        for target, value in branch.fired(1.0)[0]
    }


def _held_at_start(
    record: EventRecord,
    roles: _Roles,
    name: str,
    steady: tuple[list, list],
    loops: list[Loop],
    change_starts: list[float],
) -> tuple[list, list]:
    """Values held between events, at the start: discrete states at their start values,
    relations decided as written at the start point (``steady`` ones as decided always),
    Newton's guesses at the iteration variables' start values, the memories of ``change`` and
    ``pre`` at ``change_starts`` (their values before the first event update). A value may
    name other held symbols (a relation on ``pre(n)``, a relation inside another's operand)
    and variables the equations compute (a relation's sides): :func:`initialization`
    resolves each after those it reads."""
    discrete = [v for v in roles.discrete if v not in roles.free]  # free: initial unknowns
    symbols = [v.symbol for v in discrete] + list(steady[0])
    values = [ca.SX(_discrete_item(v, name)["start"]) for v in discrete]
    at_start = _initially_assigned(record)  # initial algorithms, initial equations
    if at_start:
        starts = ca.vertcat(*values)
        held = ca.vertcat(*symbols[: len(values)])
        values = [
            ca.substitute(at_start[v.name], held, starts) if v.name in at_start else value
            for v, value in zip(discrete, values, strict=True)
        ]
    values += list(steady[1])
    symbols += [g for loop in loops for g in loop.guesses]
    values += [ca.SX(v) for loop in loops for v in loop.starts]
    for relation in record.relations:
        symbols.append(relation.memory)
        values.append(relation.crossing > 0 if relation.strict else relation.crossing >= 0)
    symbols += [d.value for d in record.delays]
    values += _undelayed(record)
    symbols += [memory for memory, _ in record.changes]
    values += [ca.SX(v) for v in change_starts]
    return symbols, values


def _undelayed(record: EventRecord) -> list[ca.SX]:
    """The delays' values at the start: their expressions now (Modelica Language
    Specification 3.6, Sec. 3.7.4.1: before the start, ``delay(e, T)`` is ``e`` at the start),
    a delay of a delay resolved to its innermost expression."""
    if not record.delays:
        return []
    delayed = ca.vertcat(*[d.value for d in record.delays])
    values = ca.vertcat(*[d.expression for d in record.delays])
    for _ in record.delays:
        if not ca.depends_on(values, delayed):
            break
        values = ca.substitute(values, delayed, values)
    return list(ca.vertsplit(values))
