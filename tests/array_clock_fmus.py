"""FMI 3.0 test FMUs with array variables and with clocks, compiled like the other foreign FMUs
(``foreign.compile_fmu_binary``) with hand-written model descriptions, and their analytic
solutions.

- ``state_space_fmu``: ``data/state_space_fmi3.c``, der(x) = A x + B u, y = x, P = x u^T with
  x, u, y of 3 elements and A, B, P of 3 x 3 (Model Exchange, Co-Simulation or both);
- ``clocks_fmu``: ``data/clocks_fmi3.c``, Model Exchange with a constant, a fixed and a
  countdown input clock and a triggered output clock (``extra`` adds clock declarations, e.g.
  one murcosim refuses).

Both FMUs refuse every call out of the sequence FMI 3.0 allows and, when the environment
variable ``FMI3_CALL_LOG`` names a file, write a line per such call into it
(``data/strict_fmi3.h``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from fmpy import platform_tuple
from foreign import archive_fmu, compile_fmu_binary
from scipy.linalg import expm

LOG = "FMI3_CALL_LOG"

STATE_SPACE_VARIABLES = """
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="A" valueReference="1" causality="parameter" variability="fixed"
        start="1 0 0 0 1 0 0 0 1"><Dimension start="3"/><Dimension start="3"/></Float64>
    <Float64 name="B" valueReference="2" causality="parameter" variability="fixed"
        start="1 0 0 0 1 0 0 0 1"><Dimension start="3"/><Dimension start="3"/></Float64>
    <Float64 name="x0" valueReference="3" causality="parameter" variability="fixed"
        start="0 0 0"><Dimension start="3"/></Float64>
    <Float64 name="u" valueReference="4" causality="input" variability="continuous"
        start="1 2 3"><Dimension start="3"/></Float64>
    <Float64 name="x" valueReference="5" causality="local" variability="continuous"
        initial="calculated" description="state"><Dimension start="3"/></Float64>
    <Float64 name="der(x)" valueReference="6" causality="local" variability="continuous"
        derivative="5"><Dimension start="3"/></Float64>
    <Float64 name="y" valueReference="7" causality="output" variability="continuous"
        description="x"><Dimension start="3"/></Float64>
    <Float64 name="P" valueReference="8" causality="output" variability="continuous"
        description="x u^T"><Dimension start="3"/><Dimension start="3"/></Float64>
"""

STATE_SPACE_STRUCTURE = """
    <Output valueReference="7" dependencies="5"/>
    <Output valueReference="8" dependencies="5 4"/>
    <ContinuousStateDerivative valueReference="6" dependencies="5 4"/>
    <InitialUnknown valueReference="5" dependencies="3"/>
    <InitialUnknown valueReference="6" dependencies="1 2 3 4"/>
    <InitialUnknown valueReference="7" dependencies="3"/>
    <InitialUnknown valueReference="8" dependencies="3 4"/>
"""

INTERFACES = {
    "ModelExchange": '  <ModelExchange modelIdentifier="{0}"/>\n',
    "CoSimulation": '  <CoSimulation modelIdentifier="{0}"'
    ' canHandleVariableCommunicationStepSize="true"/>\n',
}


def _document(identifier: str, token: str, interfaces: str, variables: str, structure: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="{identifier}"
    instantiationToken="{token}" generationTool="hand-written C">
{interfaces}  <ModelVariables>{variables}  </ModelVariables>
  <ModelStructure>{structure}  </ModelStructure>
</fmiModelDescription>
"""


def state_space_fmu(
    folder: Path, interfaces: tuple[str, ...] = ("ModelExchange", "CoSimulation")
) -> Path:
    """Compile the state-space FMU with the given ``interfaces`` into ``folder``."""
    binary = compile_fmu_binary(
        folder,
        "StateSpace3",
        ["state_space_fmi3.c", "fmi3_float64_only.c", "fmi3_unsupported.c"],
    )
    text = _document(
        "StateSpace3",
        "{4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f}",
        "".join(INTERFACES[k].format("StateSpace3") for k in interfaces),
        STATE_SPACE_VARIABLES,
        STATE_SPACE_STRUCTURE,
    )
    suffix = "_".join({"ModelExchange": "me", "CoSimulation": "cs"}[k] for k in interfaces)
    return archive_fmu(folder / f"StateSpace3_{suffix}.fmu", text, binary, platform_tuple)


def state_space(
    t: np.ndarray, a: np.ndarray, b: np.ndarray, x0: np.ndarray, u: np.ndarray
) -> np.ndarray:
    """x(t) of der(x) = A x + B u with a constant u: the first rows of exp(M t) [x0; 1] with
    M = [[A, B u], [0, 0]] (scipy's matrix exponential), one row per time t (s)."""
    m = np.zeros((4, 4))
    m[:3, :3], m[:3, 3] = a, b @ u
    start = np.append(x0, 1.0)
    return np.array([(expm(m * time) @ start)[:3] for time in np.asarray(t, dtype=float)])


CLOCKS_VARIABLES = """
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="x" valueReference="1" causality="output" variability="continuous"
        initial="exact" start="0"/>
    <Float64 name="der(x)" valueReference="2" causality="local" variability="continuous"
        derivative="1"/>
    <Clock name="tick" valueReference="10" causality="input" intervalVariability="constant"
        intervalDecimal="0.25"/>
    <Clock name="slow" valueReference="11" causality="input" intervalVariability="fixed"/>
    <Clock name="countdown" valueReference="12" causality="input"
        intervalVariability="countdown"/>
    <Clock name="fourth" valueReference="13" causality="output" intervalVariability="triggered"
        clocks="10"/>{extra}
    <Float64 name="ticks" valueReference="3" causality="output" variability="discrete"
        clocks="10"/>
    <Float64 name="sample" valueReference="4" causality="output" variability="discrete"
        clocks="10"/>
    <Float64 name="u" valueReference="5" causality="input" variability="discrete" clocks="10"
        start="2"/>
    <Float64 name="total" valueReference="6" causality="output" variability="discrete"
        clocks="10"/>
    <Float64 name="slow_ticks" valueReference="7" causality="output" variability="discrete"
        clocks="11"/>
    <Float64 name="countdowns" valueReference="8" causality="output" variability="discrete"
        clocks="12"/>
    <Float64 name="fourth_time" valueReference="9" causality="output" variability="discrete"
        clocks="13"/>
    <Float64 name="period" valueReference="20" causality="parameter" variability="fixed"
        start="0.4"/>
    <Float64 name="delay" valueReference="21" causality="parameter" variability="fixed"
        start="0.1"/>
"""

CLOCKS_STRUCTURE = """
    <Output valueReference="1" dependencies=""/>
    <Output valueReference="13" dependencies="10"/>
    <Output valueReference="3" dependencies="10"/>
    <Output valueReference="4" dependencies="10 1"/>
    <Output valueReference="6" dependencies="10 5"/>
    <Output valueReference="7" dependencies="11"/>
    <Output valueReference="8" dependencies="12"/>
    <Output valueReference="9" dependencies="13"/>
    <ContinuousStateDerivative valueReference="2" dependencies=""/>
"""

TRIGGERED_INPUT = (
    '\n    <Clock name="trigger" valueReference="14" causality="input"'
    ' intervalVariability="triggered"/>'
)


def clocks_fmu(
    folder: Path,
    extra: str = "",
    interfaces: tuple[str, ...] = ("ModelExchange",),
    name: str = "Clocks3",
) -> Path:
    """Compile the clocks FMU into ``folder`` as ``<name>.fmu``; ``extra``: further variable
    declarations."""
    binary = compile_fmu_binary(
        folder,
        "Clocks3",
        ["clocks_fmi3.c", "fmi3_float64_only.c", "fmi3_unsupported.c"],
        ["-DOFFERS_CLOCKS"],
    )
    text = _document(
        "Clocks3",
        "{9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d}",
        "".join(INTERFACES[k].format("Clocks3") for k in interfaces),
        CLOCKS_VARIABLES.format(extra=extra),
        CLOCKS_STRUCTURE,
    )
    return archive_fmu(folder / f"{name}.fmu", text, binary, platform_tuple)


def countdown_times(stop: float) -> np.ndarray:
    """Activations (s) of the countdown clock up to ``stop``: 0.1 s after the start, then the
    n-th (n = 1, 2, ...) is followed by the next 0.1 (n + 1) s later, each time counted from
    the one before as the FMU counts it."""
    times = [0.1]
    while times[-1] <= stop:
        times.append(times[-1] + 0.1 * (len(times) + 1))
    return np.array(times)


def clocks_reference(t: np.ndarray, stop: float) -> dict[str, np.ndarray]:
    """The clocks FMU's outputs at times t (s) after the events there, from its definition:
    tick at 0, 0.25, 0.5, ... (u = 2 at each), slow at 0.1 + 0.4 k, countdown as above, fourth
    at every 4th tick (t = 0.75 + k)."""
    t = np.asarray(t, dtype=float)
    ticks = np.floor(t / 0.25) + 1
    fourth = np.floor(ticks / 4)
    return {
        "x": t,
        "ticks": ticks,
        "sample": 0.25 * (ticks - 1),
        "total": 2 * ticks,
        "slow_ticks": np.maximum(np.floor((t - 0.1) / 0.4) + 1, 0),
        "countdowns": np.searchsorted(countdown_times(stop), t, side="right").astype(float),
        "fourth_time": np.where(fourth > 0, 0.25 * (4 * fourth - 1), -1.0),
    }


def near_activation(t: np.ndarray, stop: float, width: float = 1e-9) -> np.ndarray:
    """Rows within ``width`` (s) of a clock activation, where either side is right."""
    times = np.concatenate(
        [
            0.25 * np.arange(math.ceil(stop / 0.25) + 1),
            0.1 + 0.4 * np.arange(math.ceil(stop / 0.4) + 1),
            countdown_times(stop),
        ]
    )
    return np.min(np.abs(np.asarray(t)[:, None] - times[None, :]), axis=1) < width
