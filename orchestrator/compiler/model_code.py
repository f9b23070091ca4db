"""The C code of one model: CasADi's generated equations plus the table the FMI layer needs.

A model becomes three CasADi functions, ``model_parametric (p) -> q`` (the parts of the equations
that depend on the parameters only), ``model_eval (t, x, u, p, q) -> (dx/dt, w)`` and its forward
directional derivative ``model_jvp (t, x, u, p, dt, dx, du, dp)``, and a header
``model_config.h`` with the variable layout:
every variable is addressed by its value reference, in the blocks time, parameters ``p``,
inputs ``u``, states ``x``, derivatives ``dx/dt``, dependent variables ``w`` and the two
parameters of the embedded Co-Simulation integrator (``solver.tolerance``,
``solver.max_step``). The same table yields both FMI versions' model descriptions.
"""

from __future__ import annotations

import hashlib
import math
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import casadi as ca

from orchestrator.compiler.events import HIDDEN, EventFunctions, WarningMessage, hidden_parameters
from orchestrator.compiler.external_c import ExternalFunctions
from orchestrator.compiler.initialization import RESIDUAL_TOLERANCE, Initialization
from orchestrator.compiler.value_types import C_CODES, ValueType
from orchestrator.errors import BuildError

SOLVER_TOLERANCE = 1e-9  # relative = absolute error tolerance of one Dormand-Prince step
SOLVER_MAX_STEP = 0.01  # s, upper bound of one internal step


@dataclass(frozen=True)
class FmuVariable:
    """One scalar variable as both FMI versions declare it: Real, unless the model's
    ``ModelCode.value_types`` gives it another type (its values are doubles either way).

    ``bounds`` are its ``min`` and ``max`` (in its unit; infinite where the model gives none),
    ``display_unit`` the unit an importer shows it in. The instantiation token leaves both
    out: it identifies the binary's variables and equations, and the binary neither checks
    bounds (the importer does) nor converts units.
    """

    name: str
    value_reference: int
    causality: str  # independent, parameter, input, output, local
    variability: str  # continuous, discrete, fixed or tunable
    initial: str | None  # exact, calculated or None (time, inputs)
    start: float | None
    unit: str = ""
    description: str = ""
    derivative_of: int | None = None  # value reference of the state, for derivatives
    dependencies: tuple[int, ...] = ()  # value references of the states and inputs it uses
    bounds: tuple[float, float] = field(default=(-math.inf, math.inf), repr=False)
    display_unit: str = field(default="", repr=False)


@dataclass
class ModelCode:
    """Variables, equations and sizes of one model, ready to be written as C."""

    identifier: str
    description: str
    variables: list[FmuVariable]
    blocks: dict[str, int]  # first value reference of p, u, x, dx, w and the solver block
    sizes: dict[str, int]  # NX, NU, NP, NW
    functions: list[ca.Function] = field(default_factory=list)
    assert_messages: list[str] = field(default_factory=list)  # one per model_assert output
    experiment: dict[str, float] | None = None  # DefaultExperiment attributes, e.g. stopTime
    guess_starts: list[float] = field(default_factory=list)  # Newton's first guesses
    external_c: ExternalFunctions | None = None  # external C functions the equations call
    # the Integer, Boolean and enumeration variables by name (the others are Real)
    value_types: dict[str, ValueType] = field(default_factory=dict)
    change_starts: list[float] = field(default_factory=list)  # EventFunctions.change_starts

    def value_type(self, var: FmuVariable) -> ValueType | None:
        """The FMI type of ``var`` where it is not Real, else None."""
        return self.value_types.get(var.name)

    @property
    def token(self) -> str:
        """Instantiation token (FMI 3) and GUID (FMI 2): a hash of variables and equations."""
        digest = hashlib.sha256(self.identifier.encode())
        for var in self.variables:
            digest.update(repr(var).encode())
            if (value_type := self.value_type(var)) is not None:
                digest.update(repr(value_type).encode())
        for function in self.functions:
            digest.update(function.serialize().encode())
        return "{" + str(uuid.UUID(bytes=digest.digest()[:16])) + "}"


def _shared(name: str, inputs: list[ca.SX], outputs: list[ca.SX], *names: list[str]) -> ca.Function:
    """A function of ``outputs`` that computes every repeated subexpression once.

    The flattened equations repeat whole subexpressions (a rigid body's rotation matrix, its
    mass matrix products), which CasADi keeps as separate nodes; common-subexpression
    elimination (``casadi.cse``, over all outputs together) merges them: a rigid body's 3119
    operations per evaluation become 1014 and its directional derivative's 9814 become 2643,
    with bit-identical results (a merged node is the same operation on the same operands)."""
    return ca.Function(name, inputs, ca.cse(outputs), *names)


def _hoisted(p: ca.SX, outputs: list[ca.SX]) -> tuple[ca.SX, ca.SX, list[ca.SX]]:
    """``outputs`` rewritten over new symbols ``q`` that stand for their subexpressions of the
    parameters ``p`` alone, with the definitions of ``q`` over ``p``: ``(q, q(p), outputs)``.

    The C layer computes ``q`` when a parameter changes, not at every evaluation (an irregular
    sea's 128 component amplitudes, each an ``exp`` and a ``sqrt`` of its spectrum, the factors
    of a vehicle's mass matrix in its symbolic solve). Each node of ``q`` is the operation on
    the same operands as before, so the results are bit-identical. Repeated subexpressions are
    merged first, so that each becomes one element of ``q``."""
    rewritten, symbols, definitions = ca.extract_parametric(ca.cse(outputs), p)
    if not symbols:
        return ca.SX.sym("q", 0), ca.SX(0, 1), rewritten
    q, q_of_p = ca.vertcat(*symbols), ca.vertcat(*definitions)
    # a definition may be written over other elements of q (a parametric subexpression inside
    # a larger one, as in the conditional branches of MSL's thyristor): substituted until
    # q(p) reads p alone (each pass resolves one level of nesting)
    for _ in symbols:
        if not ca.depends_on(q_of_p, q):
            break
        q_of_p = ca.substitute(q_of_p, q, q_of_p)
    return q, q_of_p, rewritten


def _meta(dae: ca.DaeBuilder, name: str) -> dict:
    bounds = (float(dae.min(name)), float(dae.max(name)))
    return dict(
        unit=dae.unit(name),
        description=dae.description(name),
        bounds=bounds,
        display_unit=dae.display_unit(name),
    )


def model_code(
    dae: ca.DaeBuilder,
    description: str,
    initialization: Initialization | None = None,
    events: EventFunctions | None = None,
) -> ModelCode:
    """Variables and CasADi functions of the explicit model held by ``dae``.

    With ``initialization``, its function ``model_init (t, x, u, p) -> (x0, residual)`` is
    generated too and the states it computes are ``initial = "calculated"``. With
    ``events``, the last parameters of ``dae`` are its discrete states ``d`` and relation
    memories ``c``: ``model_eval`` (before its ``q``) and ``model_jvp`` take them as two more
    inputs, the
    discrete states and the event indicators become variables after the solver block, and the
    event functions are generated too.
    """
    identifier = dae.name()
    states, inputs, every_parameter = dae.x(), dae.u(), dae.p()
    n_hidden = hidden_parameters(events)
    parameters = every_parameter[: len(every_parameter) - n_hidden]
    derivatives = {f"der({x})" for x in states}
    dependent = _array_order([w for w in dae.w() if w not in derivatives])
    taken = set(states) | set(inputs) | set(parameters) | set(dependent)
    solver = ("solver.tolerance", "solver.max_step")
    if any(name in taken for name in solver):
        raise BuildError(f"{identifier}: variable names {solver} are reserved for the solver")
    function = dae.create("f", ["t", "x", "u", "p"], ["ode", "wdef"]).expand()
    t = ca.SX.sym("t")
    x, u, p = (ca.SX.sym(n, len(v)) for n, v in (("x", states), ("u", inputs), ("p", parameters)))
    d = ca.SX.sym("d", events.sizes["ND"] if events else 0)
    c = ca.SX.sym("c", sum(events.sizes[k] for k in HIDDEN[1:]) if events else 0)
    ode, w_all = function(t, x, u, ca.vertcat(p, d, c))
    memory = [d, c] if events else []
    kept = [dae.w().index(name) for name in dependent]
    w = w_all[kept] if kept else ca.SX(0, 1)
    # The nonlinear loops' solutions: Newton's guesses at the next evaluation
    iteration = [w_all[dae.w().index(name)] for name in events.iteration] if events else []
    # Dense outputs: the C layer reads every element, structural zeros included.
    q, q_of_p, outputs = _hoisted(
        p, [ca.densify(ode), ca.densify(w), *([ca.vertcat(*iteration)] if iteration else [])]
    )
    parametric = _shared("model_parametric", [p], [q_of_p], ["p"], ["q"])
    evaluate = _shared(
        "model_eval",
        [t, x, u, p, *memory, q],
        outputs,
        ["t", "x", "u", "p", *(["d", "c"] if events else []), "q"],
        ["ode", "w", *(["g"] if iteration else [])],
    )
    # model_jvp keeps p: its seeds in p would need dq/dp, and it runs only for Jacobians.
    seeds = [ca.SX.sym(f"d{n}", s.sparsity()) for n, s in zip("txup", (t, x, u, p), strict=True)]
    knowns, directions = ca.vertcat(t, x, u, p), ca.vertcat(*seeds)
    jvp = _shared(
        "model_jvp",
        [t, x, u, p, *seeds, *memory],
        [ca.densify(ca.jtimes(e, knowns, directions)) for e in (ode, w)],
    )
    uses = ca.jacobian_sparsity(ca.vertcat(ode, w), ca.vertcat(x, u))
    rows, cols = uses.get_triplet()
    n_p, n_u, n_x = len(parameters), len(inputs), len(states)
    blocks = dict(p=1, u=1 + n_p, x=1 + n_p + n_u, dx=1 + n_p + n_u + n_x)
    blocks["w"] = blocks["dx"] + n_x
    blocks["solver"] = blocks["w"] + len(dependent)
    blocks["d"] = blocks["solver"] + 2  # discrete states, then event indicators
    blocks["z"] = blocks["d"] + (events.sizes["ND"] if events else 0)
    # Knowns in dependency order: states first (their value references), then inputs.
    known_vr = [blocks["x"] + i for i in range(n_x)] + [blocks["u"] + i for i in range(n_u)]
    depends: dict[int, set[int]] = {}
    for row, col in zip(rows, cols, strict=True):
        depends.setdefault(blocks["dx"] + row, set()).add(known_vr[col])

    def deps(vr: int) -> tuple[int, ...]:
        return tuple(sorted(depends.get(vr, ())))

    variables = [FmuVariable("time", 0, "independent", "continuous", None, None, unit="s")]
    fixed = _read_at_initialization_only(p, [ode, w_all], events, initialization)
    for k, name in enumerate(parameters):
        start = float(dae.start(name)[0])
        variability = "fixed" if fixed[k] else "tunable"
        variables.append(
            FmuVariable(
                name, blocks["p"] + k, "parameter", variability, "exact", start, **_meta(dae, name)
            )
        )
    for k, name in enumerate(inputs):
        start = float(dae.start(name)[0])
        variables.append(
            FmuVariable(
                name,
                blocks["u"] + k,
                "input",
                dae.variability(name),
                None,
                start,
                **_meta(dae, name),
            )
        )
    calculated = initialization.calculated if initialization else frozenset()
    for k, name in enumerate(states):
        vr = blocks["x"] + k
        exact = name not in calculated
        variables.append(
            FmuVariable(
                name,
                vr,
                dae.causality(name),
                "continuous",
                "exact" if exact else "calculated",
                float(dae.start(name)[0]) if exact else None,
                dependencies=(vr,),
                **_meta(dae, name),
            )
        )
    for k, name in enumerate(states):
        vr = blocks["dx"] + k
        unit = _derivative_unit(dae.unit(name))
        variables.append(
            FmuVariable(
                f"der({name})",
                vr,
                "local",
                "continuous",
                "calculated",
                None,
                unit=unit,
                description=f"Time derivative of {name}",
                derivative_of=blocks["x"] + k,
                dependencies=deps(vr),
            )
        )
    for k, name in enumerate(dependent):
        vr = blocks["w"] + k
        variables.append(
            FmuVariable(
                name,
                vr,
                dae.causality(name),
                "continuous",
                "calculated",
                None,
                dependencies=deps(vr),
                **_meta(dae, name),
            )
        )
    variables += [
        FmuVariable(
            solver[0],
            blocks["solver"],
            "parameter",
            "tunable",
            "exact",
            SOLVER_TOLERANCE,
            unit="1",
            description="Co-Simulation: relative and absolute error tolerance of one "
            "internal Dormand-Prince 5(4) step",
        ),
        FmuVariable(
            solver[1],
            blocks["solver"] + 1,
            "parameter",
            "tunable",
            "exact",
            SOLVER_MAX_STEP,
            unit="s",
            description="Co-Simulation: largest internal integration step",
        ),
    ]
    _check_starts_within_bounds(identifier, variables)
    sizes = dict(NX=n_x, NU=n_u, NP=n_p, NW=len(dependent), NQ=q.numel())
    functions = [parametric, evaluate, jvp]
    if initialization is not None:
        functions.append(initialization.function)
    sizes["HAS_INIT"] = int(initialization is not None)
    sizes.update(ND=0, NC=0, NG=0, NCHANGE=0, NDELAY=0, NWHEN=0, NSAMPLE=0, NASSERT=0, NLOOP=0)
    sizes["HAS_HOMOTOPY"] = 0
    if events is not None:
        variables += _event_variables(events, blocks)
        functions += events.functions
        sizes.update(events.sizes)
    sizes["HAS_EVENTS"] = int(events is not None)
    messages = events.messages if events else []
    guesses = events.guess_starts if events else []
    return ModelCode(
        identifier,
        description,
        variables,
        blocks,
        sizes,
        functions,
        messages,
        None,
        guesses,
        change_starts=events.change_starts if events else [],
    )


def _read_at_initialization_only(
    p: ca.SX,
    expressions: list[ca.SX],
    events: EventFunctions | None,
    initialization: Initialization | None,
) -> list[bool]:
    """For each parameter in ``p``, whether only the initialization reads it (a start value,
    an initial equation, the first sample time): not the right-hand side and dependent
    variables (``expressions``), nor an event after the start. Such a parameter is ``fixed``:
    a set after initialization could change nothing (FMI 2.0 Sec. 2.2.7, FMI 3.0 Sec.
    2.4.7.4), and the binary refuses it. A parameter nothing reads (a capture radius the
    importer reads back) stays tunable, as it was."""
    if p.numel() == 0:
        return []
    pattern = ca.jacobian_sparsity(ca.vertcat(*[ca.vec(e) for e in expressions]), p)
    running = [bool(pattern.colind()[k + 1] > pattern.colind()[k]) for k in range(p.numel())]
    at_start = [False] * p.numel()
    functions = list(events.functions) if events else []
    for function in functions:
        if "p" in function.name_in() and function.numel_in("p") == p.numel():
            running = [r or u for r, u in zip(running, _read_after_start(function), strict=True)]
    if initialization is not None:
        functions.append(initialization.function)
    for function in functions:
        if "p" in function.name_in() and function.numel_in("p") == p.numel():
            used = function.which_depends("p", function.name_out(), 1, False)
            at_start = [a or bool(u) for a, u in zip(at_start, used, strict=True)]
    return [a and not r for a, r in zip(at_start, running, strict=True)]


def _read_after_start(function: ca.Function) -> list[bool]:
    """For each parameter (input ``p``), whether an event function reads it at an event
    after initialization: with ``initial()`` false, where the function has that input (the
    values found at initialization read their parameters once)."""
    if "initial" not in function.name_in() or not function.is_a("SXFunction"):
        return [bool(u) for u in function.which_depends("p", function.name_out(), 1, False)]
    arguments = function.sx_in()
    parameters = arguments[function.index_in("p")]
    arguments[function.index_in("initial")] = ca.SX.zeros(function.sparsity_in("initial"))
    outputs = ca.vertcat(*[ca.vec(o) for o in function.call(arguments)])
    pattern = ca.jacobian_sparsity(outputs, parameters)
    return [bool(pattern.colind()[k + 1] > pattern.colind()[k]) for k in range(parameters.numel())]


def _check_starts_within_bounds(identifier: str, variables: list[FmuVariable]) -> None:
    """A BuildError naming the first variable whose start value is outside its ``min`` and
    ``max``: FMI requires ``min <= start <= max``, and such an FMU would not validate."""
    for var in variables:
        low, high = var.bounds
        if var.start is not None and not low <= var.start <= high:
            raise BuildError(
                f"{identifier}: '{var.name}' starts at {var.start:g}, outside its declared "
                f"range [{low:g}, {high:g}] (min and max)"
            )


def _event_variables(events: EventFunctions, blocks: dict[str, int]) -> list[FmuVariable]:
    """The discrete states (settable start values) and the event indicators (one per
    relation: the importer watches their sign)."""
    variables = [
        FmuVariable(
            item["name"],
            blocks["d"] + k,
            item["causality"],
            "discrete",
            item["initial"],
            item["start"],
            unit=item["unit"],
            description=item["description"],
            bounds=item["bounds"],
            display_unit=item["display_unit"],
        )
        for k, item in enumerate(events.discrete)
    ]
    variables += [
        FmuVariable(
            f"eventIndicator[{k + 1}]",
            blocks["z"] + k,
            "local",
            "continuous",
            "calculated",
            None,
            description="Zero-crossing function of a relation (its sign changes at the event)",
        )
        for k in range(events.sizes["NC"])
    ]
    return variables


def _array_order(names: list[str]) -> list[str]:
    """``names`` with the elements of each array together and in index order (``nu_r[1]``
    before ``nu_r[4]``), arrays in order of first appearance: importers that expand an
    array name into its elements read them in declaration order."""
    first: dict[str, int] = {}
    for name in names:
        first.setdefault(re.sub(r"\[[^\]]*\]$", "", name), len(first))

    def key(name: str) -> tuple[int, tuple[int, ...]]:
        match = re.fullmatch(r"(.*?)\[([\d,]+)\]", name)
        if not match:
            return first[name], ()
        return first[match.group(1)], tuple(int(i) for i in match.group(2).split(","))

    return sorted(names, key=key)


def _derivative_unit(unit: str) -> str:
    """Unit of a time derivative: ``m`` -> ``m/s``, ``m/s`` -> ``m/s2``; other units: none."""
    match = re.fullmatch(r"([^/]+)(/s(\d*))?", unit)
    if not unit or not match:
        return ""
    if match.group(2) is None:
        return f"{unit}/s"
    return f"{match.group(1)}/s{int(match.group(3) or 1) + 1}"


def write_sources(code: ModelCode, folder: Path) -> list[Path]:
    """Write ``model.c``, ``model.h`` (CasADi) and ``model_config.h`` into ``folder``."""
    generator = ca.CodeGenerator("model", dict(with_header=True))
    for function in code.functions:
        generator.add(function)
    generator.generate(str(folder) + "/")
    sz = {
        "SZ_ARG": max(f.sz_arg() for f in code.functions),
        "SZ_RES": max(f.sz_res() for f in code.functions),
        "SZ_IW": max(f.sz_iw() for f in code.functions),
        "SZ_W": max(f.sz_w() for f in code.functions),
    }
    starts = ", ".join(repr(v.start if v.start is not None else 0.0) for v in code.variables)
    # 2: before initialization only (a fixed parameter), 1: always, 0: never
    settable = ", ".join(
        "2"
        if v.variability == "fixed"
        else "1"
        if v.causality in ("parameter", "input") or v.initial == "exact"
        else "0"
        for v in code.variables
    )
    checked = _checked(code)
    listed = checked or code.variables[:1]
    flags = ", ".join("1" if v in checked else "0" for v in code.variables)
    lines = [
        "/* Variable layout of this model for model_core.c; written by murcosim build. */",
        "#ifndef MODEL_CONFIG_H",
        "#define MODEL_CONFIG_H",
        f'#define MODEL_IDENTIFIER "{code.identifier}"',
        f'#define INSTANTIATION_TOKEN "{code.token}"',
        *(f"#define {key} {value}" for key, value in {**code.sizes, **sz}.items()),
        "#define VR_TIME 0",
        *(
            f"#define VR_{key.upper()} {value}"
            for key, value in code.blocks.items()
            if key != "solver"
        ),
        f"#define VR_TOLERANCE {code.blocks['solver']}",
        f"#define VR_MAX_STEP {code.blocks['solver'] + 1}",
        f"#define N_VALUES {len(code.variables)}",
        f"#define INIT_TOLERANCE {RESIDUAL_TOLERANCE!r}",
        "#define ASSERT_MESSAGES {"
        + ", ".join(_c_string(m) for m in code.assert_messages or ["-"])
        + "}",
        *_assert_warnings_line(code),
        f"#define START_VALUES {{{starts}}}",
        f"#define GUESS_STARTS {{{', '.join(repr(g) for g in code.guess_starts or [0.0])}}}",
        f"#define SETTABLE_VALUES {{{settable}}}",
        f"#define N_CHECKED {len(checked)}",
        # an array of one (time, unread) where there is nothing to check: C has no empty ones
        f"#define CHECKED_VRS {{{', '.join(str(v.value_reference) for v in listed)}}}",
        f"#define CHECKED_NAMES {{{', '.join(_c_string(v.name) for v in listed)}}}",
        f"#define CHECKED_VALUES {{{flags}}}",
        *_value_types_line(code),
        *_change_starts_line(code),
        "#endif",
    ]
    (folder / "model_config.h").write_text("\n".join(lines) + "\n")
    return [folder / "model.c", folder / "model.h", folder / "model_config.h"]


def _change_starts_line(code: ModelCode) -> list[str]:
    """``CHANGE_STARTS``, the memories of ``change`` and ``pre`` in initialization mode, where
    the model has such memories."""
    if not code.change_starts:
        return []
    return [f"#define CHANGE_STARTS {{{', '.join(repr(v) for v in code.change_starts)}}}"]


def _assert_warnings_line(code: ModelCode) -> list[str]:
    """The define of which asserts are warnings (1, ``AssertionLevel.warning``) in the order of
    ``model_assert``'s outputs; none where every assert is an error, as before warnings were
    checked."""
    if not any(isinstance(m, WarningMessage) for m in code.assert_messages):
        return []
    flags = ", ".join(str(int(isinstance(m, WarningMessage))) for m in code.assert_messages)
    return [f"#define ASSERT_WARNINGS {{{flags}}}"]


def _value_types_line(code: ModelCode) -> list[str]:
    """``VALUE_TYPES``, the FMI type of each variable for the C layer's getters and setters
    (0 Real, then :data:`C_CODES`), where the model has variables of other types than Real;
    without it every variable is Real."""
    types = [code.value_type(v) for v in code.variables]
    if all(t is None for t in types):
        return []
    codes = ", ".join(str(C_CODES[t.kind]) if t is not None else "0" for t in types)
    return [f"#define VALUE_TYPES {{{codes}}}"]


def _checked(code: ModelCode) -> list[FmuVariable]:
    """The variables whose computed values the C core checks for finiteness: the
    derivatives, the computed outputs and the event indicators."""
    dx, w, z = (code.blocks[key] for key in ("dx", "w", "z"))
    derivatives = [v for v in code.variables if dx <= v.value_reference < w]
    computed = [
        v
        for v in code.variables
        if v.value_reference >= z or (v.value_reference >= w and v.causality == "output")
    ]
    return derivatives + computed


def _c_string(text: str) -> str:
    """``text`` as a C string literal (printable ASCII, quotes and backslashes escaped)."""
    cleaned = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)
    return '"' + cleaned.replace("\\", "\\\\").replace('"', '\\"') + '"'
