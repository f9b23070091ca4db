"""Events of a flat model: relations, when-equations, samples and asserts, as CasADi symbols.

Modelica's relations (``h < 0``, ``time > t0``) change their value only at events. Each
relation outside ``noEvent`` and functions whose operands vary in time becomes

- a zero-crossing function ``g`` (positive where the relation is true: ``lhs - rhs`` for
  ``>``/``>=``, ``rhs - lhs`` for ``<``/``<=``),
- a Boolean memory ``c`` (a symbol the equations use), set to ``g > 0`` (``g >= 0`` for the
  non-strict relations) at events and held in between,
- an event indicator ``z = g + (2 c - 1) eps`` reported to the importer: it crosses zero
  ``eps`` past the relation's switching point, so that at the located event the relation's
  new value is decided with a margin of ``eps`` rather than by the sign of round-off.

In the passes of an event iteration after the first, a relation whose ``g`` depends on the
states, inputs or a nonlinear loop's unknowns and is not exactly at its switching point is
decided by the sign of its indicator instead of ``g``: it keeps the value the pass before gave
it unless ``g`` has passed the switching point by more than ``eps`` the other way (a relation
memory with a hysteresis in the direction of its last change, as OpenModelica's runtime
evaluates relations in its event iteration: P. Fritzson et al., "The OpenModelica integrated
environment for modeling, simulation, and model-based development", Modeling, Identification
and Control 41(4), 2020). A relation of discrete values alone (``count >= nperiod``), or one
exactly at its switching point (``integer(x/h) > pre(n)`` once ``n`` has counted), is
decided by ``g`` in every pass: its value jumps by whole steps, and a memory would keep it on
the side it left.
A diagonal pair of a diode bridge that starts conducting together, fed by a line inductor and
leakage, is past its knee by ``eps`` while it blocks; conducting, the pair's ``s`` (now the
current both carry, less the knee current) is within ``eps`` of zero with a sign set by
round-off, so that by its sign alone a diode flipped at every pass (``tests/data/commutation``).
A model whose state truly cycles changes its relations by more than ``eps`` at each pass and
still ends at the iteration's limit of passes. The memory cannot make up for unknowns off by
more than ``eps``: MSL's ``Rectifier`` cycled until the linear systems whose coefficients
switch with relations were solved to round-off (``causalize.py``).

A mixed system: the sides of a relation depend on relation memories (MSL's friction
elements, by the method of M. Otter, H. Elmqvist and S. E. Mattsson, "Hybrid modeling in
Modelica based on the synchronous data flow principle", CACSD'99, 1999: ``startForward =
pre(mode) == Stuck and sa > tau0_max or ...``, ``sa`` the friction torque while stuck and
the shifted acceleration while sliding), or the equations read ``initial()``. Each pass
decides its relations again with each unknown ``pre`` reads at its new ``pre`` value, the
value the pass gives it: the next pass starts from the discrete unknowns as they were, as
Modelica tools start the fixed-point iteration of a mixed system, not from relations decided
in another configuration. The memories of ``pre`` move on at every pass: held until the
relations agree (Modelica Language Specification 3.6, Sec. 8.6, solves the mixed system with
the ``pre`` values fixed), MSL's ``OneWayClutch`` differed from its reference, its start to
slide ``pre(startForward) and sa > tau0`` needing ``pre(startForward)`` on the way.
Such a system may have several consistent solutions: where a friction element
that slid backward comes to rest under a torque within ``tau0_max`` but above the sliding
friction, both sticking and a forward slide are consistent, and a memory ``sa > tau0_max``
held from the backward slide (``sa`` its acceleration there) chose the slide (in MSL's
``Rotational.Examples.Friction`` at 6.78 ms, whose events then came 1.3e-13 s apart);
started from ``startForward`` false, the iteration sticks.
``initial()`` in the equations outside when-conditions reads a memory (:meth:`EventRecord.
initializing`) that is 1 in the initial system and through the passes of the update on
leaving initialization mode until their relations agree, 0 from then on: a clutch that
``initial() and w_relfric < 0`` starts sliding backward slides from the start.

A when-equation fires when its condition becomes true (its value at the last event is kept in
a memory ``w``); ``elsewhen`` branches fire only when no earlier branch of the chain does.
The condition and the values its body assigns and reinits read the relations of the same
pass, as decided in it.
``sample(start, interval)`` is a time event: its next time ``s`` is kept in a memory, the
FMU reports it as its next event time and advances it when it fires; one due when the FMU
leaves initialization mode (``start`` the start time) fires in the pass after that update, at
the start time, as the MSL's reference results have it (``BooleanNetwork1``: its flip-flop set
by ``SampleTrigger(startTime = 0)`` at 0 s): the memories of the conditions leave that update
with their values at the start, where no sample fires. ``pre(v)`` is the value
of ``v`` when the event update starts; ``initial()`` is true in the update made when the FMU
leaves initialization mode, where no other branch fires; ``terminal()`` is true in one
update the FMU makes when it is terminated, where no other branch fires. ``change(v)`` is
``v <> m`` with a
memory ``m`` that takes ``v``'s value at each pass of the event iteration: true in the pass
after one that changed ``v``, false between events.

A relation on time alone, whose zero-crossing function is ``time - c`` or ``c - time`` with
``c`` reading no state, input, loop guess or delay (MSL's ``Ramp``: ``time < startTime +
duration``), is a time event as Modelica tools make it: the FMU reports ``c`` as its next
event time (``model_time_events``) and at that event the relation takes the value it has
after ``c``, from ``TIME_EVENT_SLACK`` before it on (``time > c`` too, which keeps its old
value at ``c`` itself; no later event would switch it). The first pass of the update on
leaving initialization mode decides it as written, as the initial equations did, and the pass
after it as after ``c``: ``when time > 0`` fires at a start time of 0, in that update, as a
sample due there does. Its indicator stays: an importer that does not stop at the time event
finds the crossing ``eps`` later, as before. Where ``c`` reads discrete variables or memories
(MSL's ``Pulse``: ``time < T_start + T_width``), they hold between events and ``c`` is
computed anew after each event. Held with the hysteresis and found by the integrator, such a
relation switched ``eps`` late: MSL's 1 ns ramps in ``Analog.Examples.DifferenceAmplifier``
ended at 1.1 ns.

``delay(e, T)`` and ``delay(e, T, T_max)`` (Modelica Language Specification 3.6, Sec. 3.7.4.1)
stand for a symbol ``y`` that the FMU sets before each evaluation of the equations from a
history of ``e`` it keeps (``model_core.c``), as it sets the memories: ``y`` is a known of the
equations, like a relation's memory, and ``model_delay`` gives the FMU ``T``, ``e`` and the
bound ``T_max`` (``T`` itself where no ``T_max`` is given) from the knowns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import casadi as ca

HIDDEN = ("ND", "NC", "NG", "NCHANGE", "NDELAY")  # sizes of the knowns kept between events
RELATION_HYSTERESIS = 1e-10  # eps: how far past a switching point its indicator crosses zero
TIME_EVENT_SLACK = 1e-12  # relative: a sample fires when time >= next sample time - slack


class WarningMessage(str):
    """The message of an assert at ``AssertionLevel.warning`` (Modelica Language Specification
    3.6, Sec. 8.3.7): where its condition starts to fail, at a completed integrator step or an
    event, the FMU logs it with a warning status once and the run goes on; errors (any other
    message) end the run."""


@dataclass(frozen=True)
class Relation:
    """A relation with its memory symbol and zero-crossing function."""

    memory: ca.SX
    crossing: ca.SX
    strict: bool


@dataclass(frozen=True)
class Sample:
    """``sample(start, interval)``: the symbol standing for 'fires now' and its times."""

    fires: ca.SX
    start: ca.SX
    interval: ca.SX


@dataclass(frozen=True)
class Delay:
    """``delay(expression, delay_time, delay_max)``: the symbol of its value and its
    arguments; ``delay_max`` is ``delay_time`` where the model gives none (then a parameter
    expression)."""

    value: ca.SX
    expression: ca.SX
    delay_time: ca.SX
    delay_max: ca.SX


@dataclass(frozen=True)
class WhenBranch:
    """One branch of a when-equation chain: its condition and what it assigns."""

    chain: int
    condition: ca.SX
    assignments: list[tuple[ca.SX, ca.SX]]  # discrete variable, new value
    reinits: list[tuple[ca.SX, ca.SX]]  # state, new value
    # where the values call external C functions: the symbol of their calls' guard, which
    # stands for 'the branch fires' (a call whose guard is 0 is not made)
    guard: ca.SX | None = None
    # the values' reads of variables other branches assign: a placeholder standing for the
    # variable's value after this event's update, and the variable (when-equations hold
    # together with the other active ones, Modelica Language Specification 3.6, Sec. 8.6)
    reads: tuple[tuple[ca.SX, ca.SX], ...] = ()

    def fired(self, fire: ca.SX | float) -> tuple[list, list]:
        """The assignments and reinits with the external calls made where ``fire`` is 1."""
        if self.guard is None:
            return self.assignments, self.reinits

        def at(value: ca.SX) -> ca.SX:
            return ca.substitute(value, self.guard, ca.SX(fire))

        return (
            [(target, at(value)) for target, value in self.assignments],
            [(state, at(value)) for state, value in self.reinits],
        )


@dataclass
class EventRecord:
    """What the translation of a model found: relations, samples, when-branches, asserts."""

    initial: ca.SX = field(default_factory=lambda: ca.SX.sym("initial()"))
    terminal: ca.SX = field(default_factory=lambda: ca.SX.sym("terminal()"))
    relations: list[Relation] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    branches: list[WhenBranch] = field(default_factory=list)
    asserts: list[tuple[ca.SX, str]] = field(default_factory=list)
    changes: list[tuple[ca.SX, ca.SX]] = field(default_factory=list)  # memory, watched value
    delays: list[Delay] = field(default_factory=list)
    # values initial equations give pre(v) of variables read through a memory (held): the
    # memory's value in the update on leaving initialization mode, by the memory's name
    held_starts: dict[str, ca.SX] = field(default_factory=dict)
    # the memory the equations read initial() from (:meth:`initializing`), where they do
    initializing_memory: ca.SX | None = None

    def relation(self, op: str, lhs: ca.SX, rhs: ca.SX) -> ca.SX:
        """The memory symbol of relation ``lhs op rhs`` (``Lt``, ``Le``, ``Gt``, ``Ge``)."""
        crossing = lhs - rhs if op in ("Gt", "Ge") else rhs - lhs
        for known in self.relations:  # the same relation twice shares one memory
            if ca.is_equal(known.crossing, crossing, 3) and known.strict == (op in ("Gt", "Lt")):
                return known.memory
        memory = ca.SX.sym(f"relation[{len(self.relations) + 1}]")
        self.relations.append(Relation(memory, crossing, op in ("Gt", "Lt")))
        return memory

    def new_chain(self) -> int:
        """The number of a when-chain after those recorded (a chain's branches exclude one
        another: ``elsewhen``, the elements of a vector condition)."""
        return max((branch.chain for branch in self.branches), default=-1) + 1

    def sample(self, start: ca.SX, interval: ca.SX) -> ca.SX:
        """The symbol standing for 'sample(start, interval) fires now'."""
        fires = ca.SX.sym(f"sample[{len(self.samples) + 1}]")
        self.samples.append(Sample(fires, ca.SX(start), ca.SX(interval)))
        return fires

    def sampled(self, start: ca.SX, interval: ca.SX) -> ca.SX:
        """``sample(start, interval)`` as a Boolean value, outside a when-condition: a memory
        that takes, at each pass of the event iteration, whether the sample fires in that
        pass; true from the pass that fires it to the next, false between events (Modelica
        Language Specification 3.6, Sec. 3.7.5)."""
        fires = self.sample(start, interval)
        memory = ca.SX.sym(f"change[{len(self.changes) + 1}]")
        self.changes.append((memory, fires))
        return memory

    def change(self, value: ca.SX) -> ca.SX:
        """``change(value)``: whether ``value`` differs from its memory."""
        return ca.logic_not(value == self.held(value))

    def held(self, value: ca.SX) -> ca.SX:
        """The memory of ``value``, taken at each pass of the event iteration: ``value`` as
        it was at the last pass, held between events."""
        for memory, known in self.changes:  # the same variable twice shares one memory
            if ca.is_equal(known, value, 3):
                return memory
        memory = ca.SX.sym(f"change[{len(self.changes) + 1}]")
        self.changes.append((memory, ca.SX(value)))
        return memory

    def initializing(self) -> ca.SX:
        """``initial()`` as the equations outside when-conditions read it: a memory among
        those of ``change``, 1 from the start (its held start) through the initial system
        and the passes of the update on leaving initialization mode until the relations
        agree with the unknowns, 0 from then on (module docstring)."""
        if self.initializing_memory is None:
            memory = ca.SX.sym(f"change[{len(self.changes) + 1}]")
            self.changes.append((memory, ca.SX(0)))
            self.held_starts[memory.name()] = ca.SX(1)
            self.initializing_memory = memory
        return self.initializing_memory

    def flag(self) -> ca.SX:
        """A memory that only a when-branch sets (assigning it as a discrete variable: 1
        where an assert of the branch fails at its event), held from event to event."""
        memory = ca.SX.sym(f"change[{len(self.changes) + 1}]")
        self.changes.append((memory, memory))
        return memory

    def delay(self, expression: ca.SX, delay_time: ca.SX, delay_max: ca.SX) -> ca.SX:
        """The symbol standing for ``delay(expression, delay_time, delay_max)``."""
        value = ca.SX.sym(f"delay[{len(self.delays) + 1}]")
        self.delays.append(Delay(value, ca.SX(expression), ca.SX(delay_time), ca.SX(delay_max)))
        return value

    @property
    def any(self) -> bool:
        """Whether the model has events (or delays, which the same memory carries) at all."""
        return bool(
            self.relations
            or self.samples
            or self.branches
            or self.asserts
            or self.changes
            or self.delays
        )


@dataclass(frozen=True)
class EventFunctions:
    """The CasADi functions of a model's events, over the vectors ``t``, ``x`` (states),
    ``u`` (inputs), ``p`` (parameters), ``d`` (discrete states), ``c`` (memories), ``w``
    (when-condition memories), ``s`` (next sample times), ``initial`` (1 in the update on
    leaving initialization mode), ``terminal`` (1 in the update on termination). ``c`` holds
    the relation memories, then Newton's guesses of the nonlinear loops' iteration variables
    (the last solution; the event update passes them on), then the memories of ``change``,
    then the values of the delays (set by the FMU before each evaluation):

    - ``model_zc (t, x, u, p, d, c) -> z``: the event indicators;
    - ``model_event (t, x, u, p, d, c, w, s, initial, terminal, settling) -> (x, d, c, w,
      s)``: one pass of the event iteration (relations decided, when-branches fired, samples
      advanced); ``settling`` 1 in the passes after the first, where the relations are
      decided by their indicators' signs (module docstring);
    - ``model_assert (t, x, u, p, d, c) -> ok``: 1 where an assert holds (its message a
      :class:`WarningMessage` for one at warning level);
    - ``model_delay``: see :func:`delay_function`.
    """

    functions: list[ca.Function]
    messages: list[str]
    sizes: dict[str, int]
    discrete: list[dict] = field(default_factory=list)  # name, start, unit, description,
    # causality of each discrete state, in the order of ``d``
    iteration: list[str] = field(default_factory=list)  # the nonlinear loops' iteration
    # variables, in the order of their guesses in ``c``
    guess_starts: list[float] = field(default_factory=list)  # their first guesses
    change_starts: list[float] = field(default_factory=list)  # the memories of change and
    # pre before the first event update, in the order of ``record.changes``


def in_knowns(expressions: list[ca.SX], explicit: tuple[list[ca.SX], list[ca.SX]]) -> ca.SX:
    """The ``expressions`` stacked into one column, every causalized unknown in them replaced
    by its value in the knowns (``explicit``: the unknowns and their values)."""
    unknowns, values = explicit
    joined = ca.vertcat(*expressions) if expressions else ca.SX(0, 1)
    if unknowns and joined.numel():
        joined = ca.substitute(joined, ca.vertcat(*unknowns), ca.vertcat(*values))
    return joined


def event_functions(
    record: EventRecord,
    time: ca.SX,
    states: list[ca.SX],
    inputs: list[ca.SX],
    parameters: list[ca.SX],
    discrete: list[ca.SX],
    explicit: tuple[list[ca.SX], list[ca.SX]],
    guesses: list[ca.SX] = (),
    at_pre: tuple[list[ca.SX], list[ca.SX]] | None = None,
) -> EventFunctions:
    """Build the event functions of ``record``; ``explicit`` gives every causalized unknown
    (derivatives, algebraic variables) as a value in the knowns, so that conditions and
    assigned values can use them; ``guesses`` are the nonlinear loops' Newton guesses;
    ``at_pre`` the same values with each unknown that ``pre`` reads at its memory (the
    configuration a mixed system's iteration starts from, :func:`_settled_pass`)."""
    x, u, p, d = (ca.vertcat(*v) for v in (states, inputs, parameters, discrete))
    changes = [m for m, _ in record.changes]
    memories = ca.vertcat(*[r.memory for r in record.relations])
    delayed = [delay.value for delay in record.delays]
    c = ca.vertcat(memories, *guesses, *changes, *delayed)
    fires = ca.vertcat(*[s.fires for s in record.samples])
    n_chains = max((b.chain for b in record.branches), default=-1) + 1
    w = ca.SX.sym("w", len(record.branches))
    s = ca.SX.sym("s", len(record.samples))
    initial, terminal = record.initial, record.terminal

    def known(expressions: list[ca.SX]) -> ca.SX:
        return in_knowns(expressions, explicit)

    crossing = known([r.crossing for r in record.relations])
    settling = ca.SX.sym("settling")  # 1 in the passes after the first: decided with memory
    continuous = ca.vertcat(x, u, *guesses)
    slack = TIME_EVENT_SLACK * ca.fmax(1.0, ca.fabs(time))
    timed = [
        switching_time(crossing[k], time, ca.vertcat(continuous, *delayed))
        for k in range(len(record.relations))
    ]

    def indicated(crossing: ca.SX) -> ca.SX:
        return ca.vertcat(
            *[
                crossing[k] + (2 * r.memory - 1) * RELATION_HYSTERESIS
                for k, r in enumerate(record.relations)
            ]
        )

    def decide(crossing: ca.SX) -> ca.SX:
        indicators = indicated(crossing)
        return ca.vertcat(
            *[
                ca.if_else(
                    initial,
                    _true(crossing[k], r.strict),
                    _after_switch(crossing[k], timed[k][0], slack),
                )
                if timed[k] is not None
                else _true(
                    ca.if_else(settling * (crossing[k] != 0), indicators[k], crossing[k])
                    if ca.depends_on(crossing[k], continuous)
                    else crossing[k],
                    r.strict,
                )
                for k, r in enumerate(record.relations)
            ]
        )

    indicators = indicated(crossing)
    decided = decide(crossing)
    due = ca.vertcat(*[time >= s[k] - slack for k in range(len(record.samples))])
    conditions = known([b.condition for b in record.branches])
    if record.relations and conditions.numel():
        conditions = ca.substitute(conditions, memories, decided)
    # no sample fires in the updates on leaving initialization mode and on termination, also
    # where a condition is evaluated as if they were not those updates (``running`` below:
    # ``initial() or sample(0.25, 0.25)`` fires at the start)
    quiet = ca.SX.sym("quiet", 2)  # initial, terminal: of the pass, never substituted by at()
    if record.samples and conditions.numel():
        conditions = ca.substitute(conditions, fires, due * (1 - quiet[0]) * (1 - quiet[1]))
    watched = known([v for _, v in record.changes])
    if record.samples and watched.numel():  # the samples taken as values (sampled)
        watched = ca.substitute(watched, fires, due * (1 - initial) * (1 - terminal))
    if record.held_starts:  # pre(v) = start, from initial equations
        watched = ca.vertcat(
            *[
                ca.if_else(initial, known([record.held_starts[m.name()]]), watched[k])
                if m.name() in record.held_starts
                else watched[k]
                for k, (m, _) in enumerate(record.changes)
            ]
        )
    flags = ca.vertcat(initial, terminal)

    def at(values: list[float]) -> ca.SX:
        if not conditions.numel():
            return conditions
        return ca.substitute(ca.substitute(conditions, flags, ca.DM(values)), quiet, flags)

    at_start, running, at_end = at([1.0, 0.0]), at([0.0, 0.0]), at([0.0, 1.0])
    fired = []
    taken = [ca.SX(0)] * n_chains  # whether an earlier branch of the chain fires
    for j, branch in enumerate(record.branches):
        rising = ca.if_else(
            initial,
            at_start[j] * (1 - running[j]),
            ca.if_else(terminal, at_end[j] * (1 - running[j]), running[j] * (1 - w[j])),
        )
        fire = ca.logic_and(rising, ca.logic_not(taken[branch.chain]))
        taken[branch.chain] = ca.logic_or(taken[branch.chain], fire)
        fired.append(fire)
    d_new = list(ca.vertsplit(d)) if discrete else []
    x_new = list(ca.vertsplit(x)) if states else []
    index_d = {v.name(): k for k, v in enumerate(discrete)}
    index_x = {v.name(): k for k, v in enumerate(states)}
    index_c = {m.name(): k for k, (m, _) in enumerate(record.changes)}
    c_new = list(ca.vertsplit(watched)) if record.changes else []
    relations_new = decided
    if record.changes:
        sides = [r.crossing for r in record.relations]
        relations_new, c_new = _settled_pass(
            record,
            c_new,
            (crossing, decided),
            (lambda: in_knowns(sides, at_pre or explicit), decide),
            fires,
            initial,
        )

    def as_decided(value: ca.SX) -> ca.SX:
        """``value`` in the knowns, with the relations as the conditions read them: a body
        sees the pass that fires it (MSL's MassWithStopAndFriction: ``when stopped <> 0 then
        reinit(s, if stopped < 0 then smin + L/2 else smax - L/2)``, where ``stopped`` reads
        the relation on ``s`` that has just switched)."""
        value = known([value])
        if record.relations:
            value = ca.substitute(value, memories, decided)
        return value

    for j, branch in enumerate(record.branches):
        assignments, reinits = branch.fired(fired[j])  # no external call where it does not
        for target, value in assignments:
            if target.name() in index_c:  # a flag (EventRecord.flag)
                k = index_c[target.name()]
                c_new[k] = ca.if_else(fired[j], as_decided(value), c_new[k])
                continue
            k = index_d[target.name()]
            d_new[k] = ca.if_else(fired[j], as_decided(value), d_new[k])
        for state, value in reinits:
            if state.name() not in index_x:
                raise ValueError(f"reinit of '{state.name()}', which is not a state")
            k = index_x[state.name()]
            x_new[k] = ca.if_else(fired[j], as_decided(value), x_new[k])
    d_new, x_new = _with_new_reads(record.branches, d_new, x_new, index_d)
    starts = known([sample.start for sample in record.samples])
    if record.samples and discrete:  # with the values initialization gives fixed = false
        starts = ca.substitute(starts, d, ca.vertcat(*d_new))  # parameters in this pass
    steps = known([sample.interval for sample in record.samples])
    s_new = ca.vertcat(
        *[
            ca.if_else(initial, starts[k], ca.if_else(due[k], s[k] + steps[k], s[k]))
            for k in range(len(record.samples))
        ]
    )
    memories = [time, x, u, p, d, c]
    names = ["t", "x", "u", "p", "d", "c"]
    updated = [
        ca.vertcat(*x_new),
        ca.vertcat(*d_new),
        ca.vertcat(relations_new, *guesses, *c_new, *delayed),
        ca.if_else(initial, at_start, running),
        s_new,
    ]
    # the flattened equations repeat whole subexpressions, and a mixed system's update builds
    # the unknowns twice, at pre and as they are: merged, as in the model's own functions
    # (model_code._shared), each merged node the same operation on the same operands, so
    # that the results are bit-identical (MSL's Translational.Examples.Friction: indicators
    # 69,672 operations, now 41,452; update 125,630, now 42,473; asserts 65,912, now 39,592)
    updated = ca.cse(updated)
    functions = [
        ca.Function("model_zc", memories, ca.cse([indicators]), names, ["z"]),
        ca.Function(
            "model_event",
            [*memories, w, s, initial, terminal, settling],
            updated,
            [*names, "w", "s", "initial", "terminal", "settling"],
            ["x_new", "d_new", "c_new", "w_new", "s_new"],
        ),
    ]
    if record.delays:
        functions.append(delay_function(record.delays, memories, names, known))
    if record.asserts:
        checks = known([condition for condition, _ in record.asserts])
        functions.append(ca.Function("model_assert", memories, ca.cse([checks]), names, ["ok"]))
    switches = [switch[1] for switch in timed if switch is not None]
    if switches:
        times = ca.vertcat(*switches)
        functions.append(ca.Function("model_time_events", memories, [times], names, ["times"]))
    sizes = dict(
        ND=len(discrete),
        NC=len(record.relations),
        NG=len(guesses),
        NCHANGE=len(record.changes),
        NDELAY=len(record.delays),
        NWHEN=len(record.branches),
        NSAMPLE=len(record.samples),
        NASSERT=len(record.asserts),
    )
    if switches:  # only where there are: the FMU's core takes 0 where the size is not given
        sizes["NTIME"] = len(switches)
    return EventFunctions(functions, [message for _, message in record.asserts], sizes)


def _settled_pass(
    record: EventRecord,
    c_new: list[ca.SX],
    relations: tuple[ca.SX, ca.SX],
    at_pre: tuple[Callable[[], ca.SX], Callable[[ca.SX], ca.SX]],
    fires: ca.SX,
    initial: ca.SX,
) -> tuple[ca.SX, list[ca.SX]]:
    """The relations and the memories of ``pre`` and ``change`` after a pass of a model with
    a mixed system: one whose equations read ``initial()`` or whose relations' sides depend
    on relation memories (``relations``: the zero-crossing functions and the pass's
    decisions); elsewhere the pass's decisions and ``c_new`` as they are.

    The memory of ``initial()`` keeps 1 through the pass on leaving initialization mode and
    the passes whose relations do not yet agree with the unknowns they were computed from,
    and falls to 0 in the first pass where they agree. The relations are decided in the
    configuration the next pass starts from: each unknown that ``pre`` reads at its new
    ``pre`` value (``at_pre``: the zero-crossing functions with those unknowns at their
    memories, and the decision), as Modelica tools start the fixed-point iteration of a
    mixed system from the discrete unknowns' values before it; where ``pre`` keeps its
    values, that is the pass's own decision. A relation whose memory comes from another
    configuration would otherwise decide it: a friction element that sticks after sliding
    backward read ``sa > tau0_max`` from the sliding torque and started to slide forward.
    The memories of ``pre`` themselves move on at every pass, as before: MSL's
    ``OneWayClutch`` starts to slide through ``pre(startForward) and sa > tau0``, which
    needs ``pre(startForward)`` true before its relations agree (held until they agree, it
    differed from its reference in 4 of 4 signals).

    Only the relations whose sides read a memory that moves (of ``pre``, ``change``,
    ``initial()``), directly or through the unknowns, are decided again: the sides of the
    others are the same in both configurations, and so is their decision. The unknowns are
    built twice, at pre and as they are, as separate expressions whose parts that read no
    memory that moves are the same: merged (:func:`event_functions`), MSL's
    ``Translational.Examples.Friction``'s update takes 42,473 operations instead of
    125,630."""
    crossing, decided = relations
    memories = ca.vertcat(*[r.memory for r in record.relations])
    mixed = bool(record.relations) and ca.depends_on(crossing, memories)
    if not mixed and record.initializing_memory is None:
        return decided, c_new
    agree = ca.SX(1)
    for k, relation in enumerate(record.relations):
        agree = ca.logic_and(agree, decided[k] == relation.memory)
    settled = ca.logic_and(ca.logic_not(initial), agree)
    held = list(c_new)
    olds, news = [], []
    for k, (memory, watched) in enumerate(record.changes):
        if ca.is_equal(watched, memory) or ca.depends_on(watched, fires):
            continue  # a flag a when-branch sets, a sample taken as a value: as they were
        if memory is record.initializing_memory:
            held[k] = ca.if_else(ca.logic_or(settled, initial), c_new[k], memory)
        olds.append(memory)
        news.append(held[k])
    if not record.relations or not olds:
        return decided, held
    at_pre_crossing, decide = at_pre[0](), at_pre[1]
    moved = ca.vertcat(*olds)
    again = [ca.depends_on(at_pre_crossing[k], moved) for k in range(len(record.relations))]
    if not any(again):
        return decided, held
    at_pre_crossing = ca.substitute(at_pre_crossing, moved, ca.vertcat(*news))
    redecided = decide(at_pre_crossing)
    chosen = [redecided[k] if again[k] else decided[k] for k in range(len(again))]
    return ca.vertcat(*chosen), held


def switching_time(crossing: ca.SX, time: ca.SX, varying: ca.SX) -> tuple[int, ca.SX] | None:
    """For a relation on time alone, whose zero-crossing function is ``sign (time - c)``
    with ``c`` free of ``time`` and of the values that vary between events (``varying``:
    states, inputs, Newton's guesses, delays), ``sign`` and the switching time ``c`` (s); else
    None. ``c`` may read parameters, discrete variables and memories: they hold between
    events, and the FMU computes the time anew after each event (MSL's ``Pulse``: ``time <
    T_start + T_width``, ``T_start`` set where a period starts)."""
    if not ca.depends_on(crossing, time) or ca.depends_on(crossing, varying):
        return None
    slope = ca.jacobian(crossing, time)  # a number: the crossing is affine in time
    if not slope.is_constant() or abs(float(ca.evalf(slope))) != 1.0:
        return None
    sign = int(float(ca.evalf(slope)))
    at_zero = ca.substitute(crossing, time, ca.SX(0))  # -sign c, exactly as the sides give it
    return sign, -sign * at_zero


def _after_switch(crossing: ca.SX, sign: int, slack: ca.SX) -> ca.SX:
    """A relation on time alone (:func:`switching_time`), as a time event decides it: from
    ``slack`` (s) before its switching time on, the value it has after that time, also for
    ``time > c`` and ``time <= c``, which hold their old value at ``c`` itself: the FMU
    reports ``c`` as its next event time, and no event comes right after it (outside the
    first pass of the update on leaving initialization mode, module docstring)."""
    return crossing >= -slack if sign > 0 else crossing > slack


def _true(crossing: ca.SX, strict: bool) -> ca.SX:
    """Whether a relation with zero-crossing function value ``crossing`` is true."""
    return crossing > 0 if strict else crossing >= 0


def _with_new_reads(
    branches: list[WhenBranch], d_new: list, x_new: list, index_d: dict[str, int]
) -> tuple[list, list]:
    """``d_new`` and ``x_new`` with each branch's reads of what other branches assign
    (:attr:`WhenBranch.reads`) replaced by those variables' new values, in the order of their
    dependencies: a chain ``c = b``, ``b = a`` resolves in as many substitutions as it is
    long (the translation refuses cycles)."""
    reads = [read for branch in branches for read in branch.reads]
    if not reads:
        return d_new, x_new
    placeholders = ca.vertcat(*[placeholder for placeholder, _ in reads])
    count = len(d_new)
    joined = ca.vertcat(*d_new, *x_new)
    for _ in range(len(reads) + 1):
        if not ca.depends_on(joined, placeholders):
            break
        news = ca.vertcat(*[joined[index_d[variable.name()]] for _, variable in reads])
        joined = ca.substitute(joined, placeholders, news)
    else:
        raise ValueError("when-equations that read one another's new values in a loop")
    values = ca.vertsplit(joined)
    return values[:count], values[count:]


def delay_function(
    delays: list[Delay],
    knowns: list[ca.SX],
    names: list[str],
    known: Callable[[list[ca.SX]], ca.SX],
) -> ca.Function:
    """``model_delay (t, x, u, p, d, c) -> (delay_time, value, delay_max)``: each delay's
    delay time and bound (s) and the value of its expression now, the FMU's history of it."""
    return ca.Function(
        "model_delay",
        knowns,
        [
            known([delay.delay_time for delay in delays]),
            known([delay.expression for delay in delays]),
            known([delay.delay_max for delay in delays]),
        ],
        names,
        ["delay_time", "value", "delay_max"],
    )


def hidden_parameters(events: EventFunctions | None) -> int:
    """How many trailing DaeBuilder parameters are discrete states, relation memories and
    Newton's guesses: the explicit model treats them as knowns, the FMU keeps them apart from
    its parameters."""
    return sum(events.sizes[k] for k in HIDDEN) if events else 0
