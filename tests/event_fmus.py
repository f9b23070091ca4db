"""FMUs with events for the tests, and the analytic solutions they are checked against.

Each model is an FMI 2.0 or 3.0 FMU with Model Exchange and Co-Simulation in one binary,
compiled like ``foreign.spring_mass_fmu`` from ``data/event_fmi2.c`` or ``data/event_fmi3.c``
and the model's header, with a model description generated from the table of its variables:

- ``bouncing_ball_fmu``: state events. h (m) height, v (m/s) upward speed, der(v) = -g; at
  h = 0 falling, v := -e v; one event indicator z = h (``data/bouncing_ball.h``);
- ``staircase_fmu``: time events. ``count`` goes up by one at t = 1, 2, 3, ... s (next event
  time), der(x) = count, ``clock`` = time, a continuous output without dependencies
  (``data/staircase.h``). With the parameter ``limit`` >= 0 it asks to end the run once count
  reaches it: in the event update (``ask`` = 0) or the next ``completedIntegratorStep``
  (``ask`` = 1); in Co-Simulation the step stops there and asks;
- ``counter_fmu``: the staircase without x (no continuous state), with the same parameters.

``bounce_times``, ``ball_state`` and ``staircase`` are the analytic solutions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from fmpy import platform, platform_tuple
from foreign import archive_fmu, compile_fmu_binary

UNITS = {  # unit: base units, SI
    "m": 'm="1"',
    "m/s": 'm="1" s="-1"',
    "m/s2": 'm="1" s="-2"',
    "s": 's="1"',
}


@dataclass(frozen=True)
class Variable:
    """A Float64 (FMI 2: Real) variable; its value reference is its place in the model's list.
    ``depends``: the states, inputs or parameters it is computed from, for the model structure;
    ``derivative``: the state it is the derivative of."""

    name: str
    causality: str
    variability: str = "continuous"
    start: float | None = None
    unit: str | None = None
    derivative: str | None = None
    depends: tuple[str, ...] = ()
    description: str = ""


@dataclass(frozen=True)
class EventModel:
    """A test model with events: its C header in ``data/``, variables in the order of the
    header's enum, the names of its event indicators (each is one of its variables), a fixed
    GUID / instantiation token and the macros that choose a variant of the header."""

    header: str
    identifier: str
    variables: tuple[Variable, ...]
    event_indicators: tuple[str, ...]
    token: str
    defines: tuple[str, ...] = ()  # preprocessor macros the header is compiled with


BOUNCING_BALL = EventModel(
    "bouncing_ball.h",
    "BouncingBall",
    (
        Variable("h", "output", start=1.0, unit="m", description="height above the ground"),
        Variable("v", "output", start=0.0, unit="m/s", description="upward speed"),
        Variable("der(h)", "local", unit="m/s", derivative="h", depends=("v",)),
        Variable("der(v)", "local", unit="m/s2", derivative="v", depends=("g",)),
        Variable("g", "parameter", "fixed", 9.81, "m/s2", description="gravity"),
        Variable("e", "parameter", "fixed", 0.7, description="coefficient of restitution"),
    ),
    ("h",),
    "{5e0f3b1c-7a52-4c7e-9d1e-0b6a4f2e8c11}",
)

COUNT = Variable(
    "count", "output", "discrete", 0.0, description="time events passed since the start"
)
CLOCK = Variable("clock", "output", unit="s", description="time")
TERMINATION = (
    Variable(
        "limit", "parameter", "fixed", -1.0, description="count that ends the run (-1: never)"
    ),
    Variable(
        "ask", "parameter", "fixed", 0.0, description="0: in the event update, 1: after a step"
    ),
)

STAIRCASE = EventModel(
    "staircase.h",
    "Staircase",
    (
        Variable("x", "output", start=0.0, unit="s", description="integral of count over time"),
        Variable("der(x)", "local", derivative="x", depends=("count",)),
        COUNT,
        CLOCK,
        *TERMINATION,
    ),
    (),
    "{a3d2c5e4-1b7f-4e8a-8c6d-2f9b0e7a4d52}",
)

COUNTER = EventModel(
    "staircase.h",
    "Counter",
    (COUNT, CLOCK, *TERMINATION),
    (),
    "{6b1e0d2a-9c3f-4a7e-b5d8-1f2e3c4d5a60}",
    ("STATELESS",),
)


def _initial(variable: Variable) -> str:
    """The ``initial`` attribute: exact where a start value is given, else calculated."""
    if variable.causality == "parameter":
        return ""
    return ' initial="exact"' if variable.start is not None else ' initial="calculated"'


def _description(variable: Variable) -> str:
    """The ``description`` attribute, if the variable has one."""
    return f' description="{variable.description}"' if variable.description else ""


def _attributes(variable: Variable, reference: dict[str, str]) -> str:
    """start, unit and derivative attributes, the derivative named by ``reference``."""
    text = "" if variable.start is None else f' start="{variable.start!r}"'
    text += "" if variable.unit is None else f' unit="{variable.unit}"'
    if variable.derivative is not None:
        text += f' derivative="{reference[variable.derivative]}"'
    return text


def _structure(model: EventModel) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
    """Outputs, derivatives, initial unknowns (derivatives, calculated outputs) and event
    indicators: (name, dependencies). While running, only states and inputs count as
    dependencies; at initialization also the parameters and start values they are computed
    from."""
    states = {v.derivative for v in model.variables if v.derivative}
    knowns = states | {v.name for v in model.variables if v.causality == "input"}
    derivatives = [v for v in model.variables if v.derivative]
    return {
        "outputs": [
            (v.name, tuple(d for d in v.depends if d in knowns))
            for v in model.variables
            if v.causality == "output"
        ],
        "derivatives": [(v.name, tuple(d for d in v.depends if d in knowns)) for v in derivatives],
        "initial": [
            (v.name, v.depends)
            for v in model.variables
            if v.derivative or (v.causality == "output" and v.start is None)
        ],
        "indicators": [
            (name, (name,) if name in states else ()) for name in model.event_indicators
        ],
    }


def _model_description_2(model: EventModel, identifier: str) -> str:
    """The FMI 2.0 modelDescription.xml of ``model`` (ScalarVariables indexed from 1)."""
    index = {v.name: str(i + 1) for i, v in enumerate(model.variables)}
    variables = "".join(
        f'\n    <ScalarVariable name="{v.name}" valueReference="{i}" causality="{v.causality}"'
        f' variability="{v.variability}"{_initial(v)}{_description(v)}>'
        f"<Real{_attributes(v, index)}/></ScalarVariable>"
        for i, v in enumerate(model.variables)
    )
    structure, text = _structure(model), ""
    for element, part in (
        ("Outputs", "outputs"),
        ("Derivatives", "derivatives"),
        ("InitialUnknowns", "initial"),
    ):
        unknowns = "".join(
            f'\n      <Unknown index="{index[name]}"'
            f' dependencies="{" ".join(index[d] for d in depends)}"/>'
            for name, depends in structure[part]
        )
        text += f"\n    <{element}>{unknowns}\n    </{element}>" if unknowns else ""
    header = f'guid="{model.token}" numberOfEventIndicators="{len(model.event_indicators)}"'
    return _model_description(identifier, "2.0", header, variables, text, model)


def _model_description_3(model: EventModel, identifier: str) -> str:
    """The FMI 3.0 modelDescription.xml of ``model`` (time is the last value reference)."""
    reference = {v.name: str(i) for i, v in enumerate(model.variables)}
    variables = f'\n    <Float64 name="time" valueReference="{len(model.variables)}"'
    variables += ' causality="independent" variability="continuous" unit="s"/>'
    variables += "".join(
        f'\n    <Float64 name="{v.name}" valueReference="{i}" causality="{v.causality}"'
        f' variability="{v.variability}"{_initial(v)}{_attributes(v, reference)}'
        f"{_description(v)}/>"
        for i, v in enumerate(model.variables)
    )
    structure = _structure(model)
    text = "".join(
        f'\n    <{element} valueReference="{reference[name]}"'
        f' dependencies="{" ".join(reference[d] for d in depends)}"/>'
        for element, part in (
            ("Output", "outputs"),
            ("ContinuousStateDerivative", "derivatives"),
            ("InitialUnknown", "initial"),
            ("EventIndicator", "indicators"),
        )
        for name, depends in structure[part]
    )
    header = f'instantiationToken="{model.token}"'
    return _model_description(identifier, "3.0", header, variables, text, model)


def _model_description(
    identifier: str,
    fmi_version: str,
    header: str,
    variables: str,
    structure: str,
    model: EventModel,
) -> str:
    """The parts common to FMI 2.0 and 3.0: interfaces, units, the frame of the document.
    Model Exchange needs completedIntegratorStep (a model may ask to terminate there), which
    FMI 3.0 importers call only when told so and FMI 2.0 ones unless told not to."""
    completed = ' needsCompletedIntegratorStep="true"' if fmi_version == "3.0" else ""
    interfaces = "".join(
        f'\n  <{kind} modelIdentifier="{identifier}"{extra}/>'
        for kind, extra in (
            ("ModelExchange", completed),
            ("CoSimulation", ' canHandleVariableCommunicationStepSize="true"'),
        )
    )
    used = sorted({v.unit for v in model.variables if v.unit} | {"s"})
    units = "".join(f'\n    <Unit name="{u}"><BaseUnit {UNITS[u]}/></Unit>' for u in used)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="{fmi_version}" modelName="{identifier}" {header}
    generationTool="hand-written C">{interfaces}
  <UnitDefinitions>{units}
  </UnitDefinitions>
  <ModelVariables>{variables}
  </ModelVariables>
  <ModelStructure>{structure}
  </ModelStructure>
</fmiModelDescription>
"""


VERSIONS = {  # FMI version: wrapper sources, model description, binaries folder, suffix
    "2.0": (["event_fmi2.c", "fmi2_unsupported.c"], _model_description_2, platform, ""),
    "3.0": (
        ["event_fmi3.c", "fmi3_float64_only.c", "fmi3_unsupported.c"],
        _model_description_3,
        platform_tuple,
        "3",
    ),
}


def event_fmu(folder: Path, model: EventModel, fmi_version: str = "2.0") -> Path:
    """Compile ``model`` as an FMI ``fmi_version`` (2.0 or 3.0) FMU into ``folder``."""
    sources, describe, binaries, suffix = VERSIONS[fmi_version]
    identifier = model.identifier + suffix
    flags = [f'-DMODEL="{model.header}"', *(f"-D{name}" for name in model.defines)]
    binary = compile_fmu_binary(folder, identifier, sources, flags)
    text = describe(model, identifier)
    return archive_fmu(folder / f"{identifier}.fmu", text, binary, binaries)


def bouncing_ball_fmu(folder: Path, fmi_version: str = "2.0") -> Path:
    """The bouncing ball (h = 1 m, v = 0, g = 9.81 m/s2, e = 0.7 to start) as an FMU."""
    return event_fmu(folder, BOUNCING_BALL, fmi_version)


def staircase_fmu(folder: Path, fmi_version: str = "2.0") -> Path:
    """The staircase (count = 0, x = 0 to start) as an FMU."""
    return event_fmu(folder, STAIRCASE, fmi_version)


def counter_fmu(folder: Path, fmi_version: str = "2.0") -> Path:
    """The staircase's counter without its integral (count = 0 to start) as an FMU."""
    return event_fmu(folder, COUNTER, fmi_version)


def bounce_times(h0: float, e: float, g: float, n: int) -> np.ndarray:
    """The first ``n`` bounce times (s) of a ball dropped from rest at height h0 (m), with
    restitution e and gravity g (m/s2): t_1 = sqrt(2 h0 / g), t_(k+1) = t_k + 2 e^k v_1 / g,
    v_1 = sqrt(2 g h0) the speed of the first impact."""
    v1 = math.sqrt(2 * g * h0)
    flights = 2 * e ** np.arange(1, n) * v1 / g
    return math.sqrt(2 * h0 / g) + np.concatenate(([0.0], np.cumsum(flights)))


def ball_state(t: np.ndarray, h0: float, e: float, g: float) -> tuple[np.ndarray, np.ndarray]:
    """Height (m) and upward speed (m/s) of that ball at times t (s), from the bounce times:
    after bounce k (k = 1, 2, ...) the ball leaves the ground at e^k v_1 upward."""
    t = np.asarray(t, dtype=float)
    times = bounce_times(h0, e, g, 64)
    if t.max() >= times[-1]:
        raise ValueError(f"times up to {t.max()} s pass the 64th bounce at {times[-1]} s")
    k = np.searchsorted(times, t, side="right")  # bounces at or before t
    since = t - np.where(k > 0, times[k - 1], 0.0)
    up = np.where(k > 0, e**k * math.sqrt(2 * g * h0), 0.0)
    return np.where(k > 0, 0.0, h0) + up * since - g * since**2 / 2, up - g * since


def staircase(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """count (1) and x (s) of the staircase started at 0 s, at times t (s) >= 0: count = n
    = floor(t), x = n (n - 1) / 2 + n (t - n)."""
    n = np.floor(np.asarray(t, dtype=float))
    return n, n * (n - 1) / 2 + n * (t - n)
