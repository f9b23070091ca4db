"""Thin layer over FMPy for one loaded FMU and its instances.

``FMU`` reads and checks an archive once (model description, unpacked binary); ``FMUInstance``
is one running instance. FMI 2.0 and FMI 3.0 are supported, Model Exchange and Co-Simulation:
an FMU that offers Model Exchange is run as such (the orchestrator integrates it), one that
offers only Co-Simulation advances itself with :meth:`FMUInstance.do_step`. Variables are
addressed by name (aliases included); the calls made in every right-hand-side evaluation or
macro step go straight to the C functions on preallocated NumPy buffers, without per-call
allocation. Every variable type of FMI 2.0 and 3.0 can be read and set: numbers (floats,
integers, Booleans as 0/1, enumerations by their integer value) travel as Float64 in a port's
``values`` and are converted at the FMU's typed call; String and Binary ports hold Python
``str`` and ``bytes``. FMI 3.0 array variables appear as one scalar name per element,
``A[i,j]`` with indices from 1 in row-major order (the order of the standard's serialization),
their sizes taken from their dimensions (fixed or structural parameters).

FMI 3.0 clocks run in Model Exchange (an FMU with clocks that offers it runs as Model Exchange
under weak coupling too): time-based input clocks are activated at their times in Event Mode
(``fmi3SetClock``, then the discrete-state updates), output and local clocks read with
``fmi3GetClock`` there (``orchestrator.fmi.clocks``). A clocked variable is read and set only
while one of its clocks is active: its port holds the value of the last activation (inputs:
the value set since, delivered at the next activation). An instance whose FMU answered an error
gets no ``fmi3Terminate``/``fmi2Terminate`` (the standard allows only freeing or resetting it).
What is not supported (FMI 1.0, triggered input clocks, clocks of Co-Simulation-only FMUs,
Scheduled Execution) is refused with an error naming the FMU and the feature.
"""

from __future__ import annotations

import ctypes
import difflib
import math
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
from fmpy import extract, freeLibrary, platform, platform_tuple, read_model_description
from fmpy.fmi2 import (
    FMU2Model,
    FMU2Slave,
    fmi2Discard,
    fmi2LastSuccessfulTime,
    fmi2Terminated,
)
from fmpy.fmi3 import FMU3Model, FMU3Slave
from fmpy.model_description import ModelDescription

from orchestrator.errors import FMUError
from orchestrator.fmi.clocks import ClockSchedule, check_clocks, declared_clocks
from orchestrator.fmi.log import FMULog

_STATUS = ("ok", "warning", "discard", "error", "fatal", "pending")
_EVENT_ITERATIONS = 100  # updates of discrete states allowed at one event instant


STRUCTURAL = "structuralParameter"
MODEL_EXCHANGE = "ModelExchange"
CO_SIMULATION = "CoSimulation"


Value = float | bool | str | bytes


class TerminationRequest(Exception):  # noqa: N818 - a request, not an error
    """An FMU asked to end the run (FMI ``terminateSimulation``): a normal end, not an error.

    ``time`` (s) is where the run ends: the event or accepted integrator step at which a Model
    Exchange instance asked, the end of the step (communication point) in which a
    Co-Simulation instance asked; the stepping strategy that catches the request may move it
    to its own communication point and sets ``state``, the state vector there. ``detail``
    names the instance and the FMI function that asked.
    """

    def __init__(self, instance: str, call: str, time: float, reached: float | None = None):
        self.instance, self.call, self.time = instance, call, time
        self.detail = f"{instance}: terminateSimulation from {call}"
        if reached is not None and f"{reached:.6g}" != f"{time:.6g}":
            self.detail += f" (last successful time {reached:.6g} s)"
        self.state: np.ndarray | None = None
        super().__init__(f"{self.detail} at t = {time:.6g} s")


class CallError(FMUError):
    """A failed FMI call of an instance; ``call`` names the call, its variables with their
    types, and the status it returned."""

    def __init__(self, instance: str, call: str) -> None:
        super().__init__(f"{instance}: {call}")
        self.call = call


@dataclass(frozen=True)
class Variable:
    """One scalar FMU variable (or one element of an FMI 3.0 array variable).

    ``type`` is the FMI 3.0 name (``Float64``, ``Int32``, ``Boolean``, ``String``, ``Binary``,
    ``Enumeration`` ...; FMI 2.0 ``Real`` is ``Float64``, ``Integer`` is ``Int32``).
    ``element`` is the position of this element in its array (0 for a scalar) and ``size``
    the number of elements of the array (1 for a scalar). ``declared_type`` names the
    enumeration type of an enumeration; ``clocks`` the clocks of a clocked variable;
    ``initial`` the model description's attribute (``exact``, ``approx``, ``calculated``; ""
    when not given); ``bounds`` its ``min`` and ``max`` (of its declared type when it gives
    none; infinite when neither does).
    """

    name: str
    value_reference: int
    causality: str
    variability: str
    start: Value | None
    unit: str
    description: str
    type: str = "Float64"
    element: int = 0
    size: int = 1
    declared_type: str = ""
    clocks: tuple[str, ...] = ()
    initial: str = ""
    bounds: tuple[float, float] = (-math.inf, math.inf)


class FMU:
    """An FMU archive: its checked model description and its unpacked binary.

    ``kind`` is Model Exchange when the FMU offers it, else Co-Simulation. Instances made by
    :meth:`instantiate` share the unpacked files.
    """

    def __init__(self, path: Path, prefer: str = MODEL_EXCHANGE) -> None:
        """Load the FMU at ``path``; of the interfaces it offers, ``prefer`` (Model Exchange
        for strong coupling, which integrates and handles events itself; Co-Simulation for
        weak coupling, where each FMU steps itself) is taken where offered."""
        self.path = Path(path)
        if not self.path.is_file():
            raise FMUError(f"{self.path}: FMU file not found")
        if not zipfile.is_zipfile(self.path):
            raise FMUError(f"{self.path}: not an FMU (not a zip archive)")
        root = _model_description_root(self.path)  # parsed once, as FMPy reads it again
        version = root.get("fmiVersion", "(no fmiVersion)")
        if not (version.startswith("2.") or version.startswith("3.")):
            raise FMUError(f"{self.path}: FMI {version} is not supported (FMI 2.0, 3.0)")
        try:
            md: ModelDescription = read_model_description(str(self.path), validate=False)
        except Exception as exc:
            raise FMUError(f"{self.path}: unreadable modelDescription.xml: {exc}") from exc
        self.model_description = md
        self.fmi_version = md.fmiVersion
        self._unsupported_check()
        self.clocks = declared_clocks(root)
        integrate = md.modelExchange is not None and (
            prefer == MODEL_EXCHANGE or md.coSimulation is None or bool(self.clocks)
        )
        check_clocks(str(self.path), self.clocks, integrate)
        interface = md.modelExchange if integrate else md.coSimulation
        self.kind = MODEL_EXCHANGE if integrate else CO_SIMULATION
        self.model_identifier = interface.modelIdentifier
        self.can_roll_back = bool(interface.canGetAndSetFMUstate)
        self.variables: dict[str, Variable] = {}
        starts = {
            (v.type, v.valueReference): v.start for v in md.modelVariables if v.start is not None
        }
        for v in md.modelVariables:
            start = starts.get((v.type, v.valueReference))  # an alias has its base's start
            if v.type == "Clock":
                continue  # activations, not values: see self.clocks
            for variable in _elements(self.path.name, v, start, self._shape(v)):
                self.variables[variable.name] = variable
        self.n_event_indicators = (
            int(md.numberOfEventIndicators or 0) if self.kind == MODEL_EXCHANGE else 0
        )
        self.dimension_parameters = {
            d.variable.name for v in md.modelVariables for d in v.dimensions if d.variable
        }
        self.states = [n for d in md.derivatives for n in self._names(d.variable.derivative)]
        self.state_derivatives = [n for d in md.derivatives for n in self._names(d.variable)]
        if self.kind == CO_SIMULATION:
            self.states, self.state_derivatives = [], []
        self.inputs = [
            n
            for v in md.modelVariables
            if v.causality == "input" and v.type != "Clock"
            for n in self._names(v)
        ]
        outputs = [u for u in md.outputs if u.variable.type != "Clock"]
        self.outputs = [n for u in outputs for n in self._names(u.variable)]
        self._output_dependencies = {
            n: None
            if u.dependencies is None
            else {e for d in u.dependencies for e in self._names(d)}
            for u in outputs
            for n in self._names(u.variable)
        }
        # numbers go into the results; texts and bytes are read and set only
        self.recordable = {n for n, v in self.variables.items() if v.type not in _TEXT}
        self._binary_check()
        self.provides_directional_derivatives = _provides_directional_derivatives(root, self.kind)
        self._unpacked = Path(tempfile.mkdtemp(prefix=f"murcosim-{self.path.stem}-"))
        extract(str(self.path), str(self._unpacked))

    def _shape(self, variable: object) -> tuple[int, ...]:
        """Array sizes of an FMI 3.0 variable: fixed, or the start of a structural parameter."""
        shape = []
        for dimension in variable.dimensions:
            size = dimension.start
            if size is None:
                size = dimension.variable.start if dimension.variable is not None else None
            try:
                shape.append(int(size))
            except (TypeError, ValueError):
                raise FMUError(
                    f"{self.path}: variable '{variable.name}': dimension without a size "
                    f"(start '{size}'; expected an integer)"
                ) from None
        return tuple(shape)

    def _names(self, variable: object) -> list[str]:
        """Scalar names of a variable: itself, or its array elements in row-major order."""
        shape = self._shape(variable)
        return [variable.name + _index(k, shape) for k in range(math.prod(shape))]

    def _unsupported_check(self) -> None:
        md = self.model_description
        if md.modelExchange is None and md.coSimulation is None:
            feature = "Scheduled Execution" if md.scheduledExecution else "no interface"
            raise FMUError(
                f"{self.path}: {feature} FMU is not supported "
                "(expected Model Exchange or Co-Simulation)"
            )

    def _binary_check(self) -> None:
        suffix = {"darwin64": ".dylib", "win64": ".dll"}.get(platform, ".so")
        folder = platform if self.fmi_version.startswith("2.") else platform_tuple
        binary = f"binaries/{folder}/{self.model_identifier}{suffix}"
        with zipfile.ZipFile(self.path) as archive:
            if binary not in archive.namelist():
                raise FMUError(f"{self.path}: no binary for this platform ({binary} is missing)")

    def variable(self, name: str) -> Variable:
        """The variable called ``name``, or an FMUError naming the FMU and the variable."""
        try:
            return self.variables[name]
        except KeyError:
            raise FMUError(f"{self.path.name}: no variable '{name}'{self.suggest(name)}") from None

    def suggest(self, name: str) -> str:
        """``"; did you mean 'a', 'b'?"`` with the FMU's variables closest to ``name`` (empty
        when none is close), for the message of an unknown name."""
        close = difflib.get_close_matches(name, self.variables, n=3, cutoff=0.6)
        return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""

    def checked_value(self, name: str, value: object) -> Value:
        """``value`` as variable ``name`` takes it, or an FMUError saying what was expected
        (a structural parameter that sizes arrays keeps its start value)."""
        variable = self.variable(name)
        if name in self.dimension_parameters and value != variable.start:
            raise FMUError(
                f"{self.path.name}: structural parameter '{name}' sizes arrays; expected its "
                f"start value {variable.start:g} (array sizes follow the FMU's start)"
            )
        return _checked(self, variable, value)

    def output_depends_on(self, output: str, inputs: list[str]) -> bool:
        """Whether ``output`` may depend directly on any of ``inputs`` (direct feedthrough)."""
        dependencies = self._output_dependencies.get(output)
        if dependencies is None:
            return output in self._output_dependencies or output in self.inputs
        return bool(dependencies.intersection(inputs))

    def is_constant_output(self, output: str) -> bool:
        """Whether ``output`` never changes in a run: its variability is constant, fixed or
        tunable. A continuous or discrete output may change whatever its dependencies: they
        name the states and inputs it depends on, not time (``dependencies=""`` is
        ``sin(time)`` as well as a value computed from parameters)."""
        return self.variables[output].variability in ("constant", "fixed", "tunable")

    def instantiate(self, name: str) -> FMUInstance:
        """Create a new instance called ``name`` (of this FMU's ``kind``)."""
        return FMUInstance(self, name)

    def close(self) -> None:
        """Let the library go and remove the unpacked files."""
        _forget_functions(self._unpacked)
        shutil.rmtree(self._unpacked, ignore_errors=True)


def _model_description_root(path: Path) -> ElementTree.Element:
    """The root element of an archive's modelDescription.xml (its fmiVersion is checked before
    FMPy parses the file; FMPy does not read FMI 3.0's providesDirectionalDerivatives)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return ElementTree.fromstring(archive.read("modelDescription.xml"))
    except KeyError:
        raise FMUError(f"{path}: not an FMU (no modelDescription.xml)") from None
    except (zipfile.BadZipFile, ElementTree.ParseError, OSError) as exc:
        raise FMUError(f"{path}: unreadable modelDescription.xml: {exc}") from None


def _provides_directional_derivatives(root: ElementTree.Element, kind: str) -> bool:
    """The interface's ``providesDirectionalDerivative(s)`` flag (FMI 2 and 3 spellings)."""
    element = root.find(kind)
    if element is None:
        return False
    flag = element.get(
        "providesDirectionalDerivatives", element.get("providesDirectionalDerivative")
    )
    return flag in ("true", "1")


_FMI2_TYPES = {"Real": "Float64", "Integer": "Int32"}
_FMI2_NAMES = {fmi3: fmi2 for fmi2, fmi3 in _FMI2_TYPES.items()}
_INTEGERS = ("Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64")


def _index(k: int, shape: tuple[int, ...]) -> str:
    """``[i,j,...]`` (from 1) of the k-th element of an array of ``shape`` in row-major order;
    empty for a scalar."""
    if not shape:
        return ""
    indices = np.unravel_index(k, shape)
    return "[" + ",".join(str(i + 1) for i in indices) + "]"


def _checked(fmu: FMU, variable: Variable, value: object) -> Value:
    """``value`` as a port holds it for ``variable``, or an FMUError saying what was expected."""
    kind = variable.type
    number = isinstance(value, int | float) and not isinstance(value, bool)
    low, high = variable.bounds
    parameter = variable.causality in ("parameter", "structuralParameter")
    if parameter and number and not low <= value <= high:
        raise FMUError(
            f"{fmu.path.name}: '{variable.name}' = {value:g} is outside the FMU's declared "
            f"range [{low:g}, {high:g}]"
        )
    if kind in ("Float32", "Float64") and number:
        return float(value)
    if (kind in _INTEGERS or kind == "Enumeration") and number and float(value).is_integer():
        return float(value)
    if kind == "Boolean" and (isinstance(value, bool) or value in (0, 1)):
        return float(bool(value))
    if kind == "String" and isinstance(value, str):
        return value
    if kind == "Binary" and isinstance(value, bytes | str):
        return (
            value if isinstance(value, bytes) else _parse(fmu.path.name, variable.name, kind, value)
        )
    expected = {"String": "a string", "Binary": "bytes or a hex string", "Boolean": "true or false"}
    integral = kind in _INTEGERS or kind == "Enumeration"
    wanted = expected.get(kind, "an integer" if integral else "a number")
    raise FMUError(
        f"{fmu.path.name}: '{variable.name}' is a(n) {kind} variable; "
        f"expected {wanted}, got {value!r}"
    )


def _parse(fmu: str, name: str, kind: str, text: str) -> Value:
    """One start value of type ``kind`` from its model-description text."""
    try:
        if kind in ("Float32", "Float64"):
            return float(text)
        if kind in _INTEGERS or kind == "Enumeration":
            return float(int(text))
        if kind == "Boolean":
            return {"true": True, "false": False, "1": True, "0": False}[text.strip()]
        if kind == "Binary":
            return bytes.fromhex(text.strip().removeprefix("0x"))
    except (KeyError, ValueError):
        raise FMUError(
            f"{fmu}: variable '{name}': start '{text}' is not a valid {kind} value"
        ) from None
    return text


def _elements(fmu: str, v: object, start: object, shape: tuple[int, ...]) -> list[Variable]:
    """The scalar variables of one model variable (one per array element)."""
    kind = _FMI2_TYPES.get(v.type, v.type)
    size = math.prod(shape)
    if start is None:
        starts: list[Value | None] = [None] * size
    elif kind == "String":
        starts = [str(start)] * size
    else:
        texts = str(start).split() if shape else [str(start)]
        if len(texts) not in (1, size):
            raise FMUError(
                f"{fmu}: variable '{v.name}': {len(texts)} start value(s) for "
                f"{size} element(s) (shape {list(shape)})"
            )
        starts = [_parse(fmu, v.name, kind, t) for t in texts] * (size if len(texts) == 1 else 1)
    unit = (v.declaredType.unit if v.declaredType else None) or v.unit or ""
    clocks = tuple(c.name for c in v.clocks or [])
    bounds = (-math.inf, math.inf)
    if kind in ("Float32", "Float64", *_INTEGERS):
        declared = v.declaredType
        low = v.min if v.min is not None else getattr(declared, "min", None)
        high = v.max if v.max is not None else getattr(declared, "max", None)
        bounds = (
            -math.inf if low is None else float(_parse(fmu, v.name, kind, str(low))),
            math.inf if high is None else float(_parse(fmu, v.name, kind, str(high))),
        )
    return [
        Variable(
            name=v.name + _index(k, shape),
            value_reference=v.valueReference,
            causality=v.causality or "local",
            variability=v.variability or "continuous",
            start=starts[k],
            unit=unit,
            description=v.description or "",
            type=kind,
            element=k,
            size=size,
            declared_type=v.declaredType.name if v.declaredType and kind == "Enumeration" else "",
            clocks=clocks,
            initial=v.initial or "",
            bounds=bounds,
        )
        for k in range(size)
    ]


# FMPy builds each instance's table of FMI functions (argument and result types set on the
# library's function pointers) by inspecting the signature of every FMI method of its class,
# and fetches each function from the library again: about 1 ms per instance, most of a short
# run's set-up with a dozen thrusters (and of a learning environment's reset). A function
# pointer takes the instance as an argument, so one table serves every instance of a library.
# FMPy unloads the library when an instance is freed (the last one unloads it), so the table
# holds the library loaded once more, until its FMU is closed (:func:`_forget_functions`).
_FUNCTION_TABLES: dict[tuple[type, str], tuple[ctypes.CDLL, dict[str, object]]] = {}


class _FunctionTableOnce:
    """Mixin for FMPy's FMI 2 and 3 classes (whose C names are the method names); it also
    keeps the worst status above warning that a call through FMPy returned (``failure``)."""

    failure = 0

    def _call(self, fname: str, *args: object) -> object:
        try:
            return super()._call(fname, *args)
        except Exception as exc:
            status = getattr(exc, "status", 0)
            if status in (3, 4):  # error, fatal
                self.failure = max(self.failure, status)
            raise

    def _loadFunctions(self) -> None:  # noqa: N802 - FMPy's name
        key = (type(self), self.dll._name)
        if key not in _FUNCTION_TABLES:
            super()._loadFunctions()
            _FUNCTION_TABLES[key] = (ctypes.CDLL(self.dll._name), dict(self._functions))
            return
        _, table = _FUNCTION_TABLES[key]
        self._functions.update(table)
        for name, function in table.items():  # the library's attributes, as ctypes keeps them
            setattr(self.dll, name, function)


def _forget_functions(folder: Path) -> None:
    """Drop the tables of the libraries under ``folder`` (an FMU's unpacked files) and let
    those libraries go."""
    for key in [k for k in _FUNCTION_TABLES if Path(k[1]).is_relative_to(folder)]:
        library, _ = _FUNCTION_TABLES.pop(key)
        freeLibrary(library._handle)


# same class names as FMPy's (FMPy picks the FMI version by the class name's prefix)
_FMPY_CLASSES = {
    key: type(base.__name__, (_FunctionTableOnce, base), {})
    for key, base in {
        (False, MODEL_EXCHANGE): FMU2Model,
        (False, CO_SIMULATION): FMU2Slave,
        (True, MODEL_EXCHANGE): FMU3Model,
        (True, CO_SIMULATION): FMU3Slave,
    }.items()
}


_FMI3_CTYPES = {
    "Float32": ctypes.c_float,
    "Float64": ctypes.c_double,
    "Int8": ctypes.c_int8,
    "UInt8": ctypes.c_uint8,
    "Int16": ctypes.c_int16,
    "UInt16": ctypes.c_uint16,
    "Int32": ctypes.c_int32,
    "UInt32": ctypes.c_uint32,
    "Int64": ctypes.c_int64,
    "UInt64": ctypes.c_uint64,
    "Boolean": ctypes.c_bool,
    "Enumeration": ctypes.c_int64,
    "String": ctypes.c_char_p,
    "Binary": ctypes.POINTER(ctypes.c_uint8),
}
_FMI2_CTYPES = {
    "Float64": ctypes.c_double,
    "Int32": ctypes.c_int,
    "Enumeration": ctypes.c_int,
    "Boolean": ctypes.c_int,
    "String": ctypes.c_char_p,
}
_FMI2_CALLS = {"Float64": "Real", "Int32": "Integer", "Enumeration": "Integer"}
_TEXT = ("String", "Binary")


class _Group:
    """The variables of one type inside a port, as the FMU's typed call sees them: whole
    variables (every element of an array), gathered into the port's order."""

    def __init__(self, kind: str, native: type, variables: list[Variable], positions: list[int]):
        self.kind = kind
        self.positions = np.array(positions, dtype=int)
        offsets: dict[int, int] = {}
        total = 0
        for v in variables:
            if v.value_reference not in offsets:
                offsets[v.value_reference] = total
                total += v.size
        self.vr = (ctypes.c_uint32 * len(offsets))(*offsets)
        self.raw = (native * total)()
        self.sizes = (ctypes.c_size_t * total)()  # Binary only
        self.gather = np.array([offsets[v.value_reference] + v.element for v in variables])
        self.whole = len(variables) == total and len(set(self.gather.tolist())) == total
        self.array = None if kind in _TEXT else np.ctypeslib.as_array(self.raw)
        self.keep: list[bytes] = []  # the texts a String or Binary call points into


class Port:
    """A fixed set of variables of one instance with a preallocated value buffer.

    ``values`` has one entry per name: Float64 (numbers of every type), or Python objects
    (``str``, ``bytes``) when the port holds a String or Binary variable. A port of Float64
    scalars reads and writes ``values`` directly through ``_vr``; other ports convert through
    one typed buffer per variable type. Clocked variables (``clocked``: their positions) are
    read from and written to the values their instance holds between clock activations.
    """

    def __init__(
        self,
        names: list[str],
        value_references: list[int],
        groups: list[_Group] | None = None,
        clocked: list[int] | None = None,
        objects: bool = False,
    ) -> None:
        self.names = list(names)
        self._groups = groups or []
        self._clocked = clocked or []
        text = any(g.kind in _TEXT for g in self._groups) or objects
        self.values = np.empty(len(names), dtype=object) if text else np.zeros(len(names))
        self._vr = (ctypes.c_uint32 * len(names))(*value_references)
        if not text:
            self._values_ptr = self.values.ctypes.data_as(ctypes.POINTER(ctypes.c_double))

    def __len__(self) -> int:
        return len(self.names)

    @property
    def plain(self) -> bool:
        """Whether the port holds Float64 scalars only (read and written through ``values``
        directly)."""
        return not self._groups and not self._clocked

    def bind(self, values: np.ndarray) -> None:
        """Use ``values`` (a contiguous float64 array of the port's length, e.g. a slice of a
        larger buffer) as the port's value buffer from now on; plain ports only."""
        if not self.plain or values.shape != (len(self.names),) or values.dtype != np.float64:
            raise ValueError(f"port {self.names}: cannot bind a buffer of {values.shape}")
        if not values.flags.c_contiguous:
            raise ValueError(f"port {self.names}: the buffer must be contiguous")
        self.values = values
        self._values_ptr = values.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


class _Clocks:
    """The clocks of one Model Exchange instance: their schedule, and the values of its clocked
    variables held between activations (read or set in the FMU only while a clock of theirs is
    active, or in Initialization Mode)."""

    def __init__(self, instance: FMUInstance, fmu: FMU) -> None:
        self.instance = instance
        self.schedule = ClockSchedule(
            instance.name,
            fmu.clocks,
            instance._model.dll,
            instance._model.component,
            instance._check,
        )
        clocked = {n: v for n, v in fmu.variables.items() if v.clocks}
        self.held: dict[str, Value] = {
            n: v.start if v.start is not None else (math.nan if v.type not in _TEXT else "")
            for n, v in clocked.items()
        }
        self._inputs: dict[str, Port] = {}  # by clock: its clocked inputs
        self._outputs: dict[str, Port] = {}  # by clock: its other clocked variables
        for clock in fmu.clocks:
            mine = [n for n, v in clocked.items() if clock.name in v.clocks]
            ins = [n for n in mine if clocked[n].causality == "input"]
            outs = [n for n in mine if clocked[n].causality != "input"]
            self._inputs[clock.name] = instance.port(ins, clocked=False)
            self._outputs[clock.name] = instance.port(outs, clocked=False)

    def hold(self, name: str, value: Value) -> None:
        """A clocked variable's value set now, passed to the FMU at its clock's activation."""
        self.held[name] = value

    def _transfer(self, clocks: list[str]) -> None:
        """Set the held clocked inputs of ``clocks`` and read their other clocked variables."""
        instance = self.instance
        for clock in clocks:
            port = self._inputs[clock]
            if len(port):
                port.values[:] = [self.held[n] for n in port.names]
                instance.write(port)
        for clock in clocks:
            port = self._outputs[clock]
            if len(port):
                for name, value in zip(port.names, instance.read(port), strict=True):
                    self.held[name] = value

    def start(self, start_time: float) -> None:
        """In Initialization Mode: the clocks' first activations; the clocked inputs set,
        the other clocked variables read."""
        self.schedule.start(start_time)
        self._transfer([c.name for c in self.schedule.inputs + self.schedule.triggered])

    def exchange(self, due: list[int], time: float) -> None:
        """In Event Mode at ``time`` (s), before a discrete-state update: the input clocks
        ``due`` (activated) and the output and local clocks the FMU activated pass their
        clocked variables."""
        active = [self.schedule.inputs[k].name for k in due]
        active += [c.name for c in self.schedule.active_triggered(time)]
        self._transfer(active)


class FMUInstance:
    """One running instance: parameters, initialization, ports; states (Model Exchange) or
    steps (Co-Simulation)."""

    def __init__(self, fmu: FMU, name: str) -> None:
        self._wrap(fmu, name)
        self._instantiate()
        self._prepare()

    @classmethod
    def together(cls, requests: list[tuple[FMU, str]]) -> list[FMUInstance]:
        """Instances of (FMU, name) ``requests``, in that order, created so that the memory
        each FMU allocates for its instance follows the previous one's: the FMPy wrappers of
        all first, then the FMUs' instantiate calls back to back, then the buffers of each.
        A compiled right-hand side that visits them in this order (a swarm vehicle by
        vehicle, each followed by its thrusters) then walks through memory instead of
        jumping over the wrappers' allocations between instances. On an error the instances
        made so far are freed."""
        instances = [cls.__new__(cls) for _ in requests]
        try:
            for instance, (fmu, name) in zip(instances, requests, strict=True):
                instance._wrap(fmu, name)
            for instance in instances:
                instance._instantiate()
            for instance in instances:
                instance._prepare()
        except BaseException:
            for instance in instances:
                if getattr(instance, "_handle", None):
                    instance.terminate()
            raise
        return instances

    def _wrap(self, fmu: FMU, name: str) -> None:
        """The FMPy object of the instance (the library's functions bound), not yet
        instantiated."""
        self.fmu = fmu
        self.name = name
        self.kind = fmu.kind
        md = fmu.model_description
        self._fmi3 = fmu.fmi_version.startswith("3.")
        kwargs = dict(
            guid=md.instantiationToken if self._fmi3 else md.guid,
            unzipDirectory=str(fmu._unpacked),
            modelIdentifier=fmu.model_identifier,
            instanceName=name,
        )
        self.log = FMULog()
        self._initialized = False
        self._handle = None
        try:
            self._model = _FMPY_CLASSES[(self._fmi3, fmu.kind)](**kwargs)
        except Exception as exc:
            raise FMUError(
                f"{fmu.path.name} ({name}): could not instantiate: {exc}{self.log.said()}"
            ) from exc

    def _instantiate(self) -> None:
        """The FMU's instantiate call."""
        logging = (
            {"logMessage": self.log.fmi3_logger()}
            if self._fmi3
            else {"callbacks": self.log.fmi2_callbacks()}
        )
        try:
            self._model.instantiate(**logging)
        except Exception as exc:
            raise FMUError(
                f"{self.fmu.path.name} ({self.name}): could not instantiate: {exc}{self.log.said()}"
            ) from exc
        self._handle = self._model.component

    def _prepare(self) -> None:
        """The instance's ports, buffers and bound calls."""
        fmu = self.fmu
        prefix = "fmi3" if self._fmi3 else "fmi2"
        dll = self._model.dll
        real = ("GetFloat64", "SetFloat64") if self._fmi3 else ("GetReal", "SetReal")
        self._get_real, self._set_real = (getattr(dll, prefix + n) for n in real)
        self.n_states = len(fmu.states)
        self.states = self.port(fmu.states)  # array states: whole variables per typed call
        self.derivatives = np.zeros(self.n_states)
        self._derivatives_ptr = self.derivatives.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        self._state_buffer = np.zeros(self.n_states)
        self._state_ptr = self._state_buffer.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        if self.kind == MODEL_EXCHANGE:
            derivatives = "GetContinuousStateDerivatives" if self._fmi3 else "GetDerivatives"
            self._set_states = getattr(dll, prefix + "SetContinuousStates")
            self._get_derivatives = getattr(dll, prefix + derivatives)
            self._set_time = getattr(dll, prefix + "SetTime")
            self._get_indicators = getattr(dll, prefix + "GetEventIndicators")
        self._indicators = np.zeros(fmu.n_event_indicators)
        self._indicators_ptr = self._indicators.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        self._next_time: float | None = None  # the FMU's nextEventTime (s)
        self._clocks = _Clocks(self, fmu) if fmu.clocks else None
        self.termination: TerminationRequest | None = None  # asked at initialization
        self._initial_inputs: dict[str, Value] = {}  # FMI 2.0: set in Initialization Mode
        self._initialized = False
        self._experiment: tuple[float, float | None, float | None] | None = None

    def reset(self) -> bool:
        """Back to the state just after instantiation (``fmi3Reset``/``fmi2Reset``), keeping
        the instance: True when the FMU did so; False when it may not (a fatal error before)
        or its reset failed, and then only a new instance serves."""
        if self._model.failure >= 4:
            return False
        try:
            self._model.reset()
        except Exception:  # noqa: BLE001 - an FMU whose reset fails gets a new instance
            return False
        self._model.failure = 0
        self.log.messages.clear()
        self._next_time = None
        self._clocks = _Clocks(self, self.fmu) if self.fmu.clocks else None
        self.termination = None
        self._initial_inputs = {}
        self._initialized = False
        self._experiment = None
        return True

    # -- set-up ---------------------------------------------------------------------------

    def port(self, names: list[str], clocked: bool = True) -> Port:
        """A port over the named variables of this instance (any types, array elements);
        its clocked variables hold their values between activations (``clocked``) or, for
        the calls made while their clock is active, go straight to the FMU."""
        variables = [self.fmu.variable(n) for n in names]
        held = [k for k, v in enumerate(variables) if v.clocks] if clocked else []
        if not held and all(v.type == "Float64" and v.size == 1 for v in variables):
            return Port(names, [v.value_reference for v in variables])
        natives = _FMI3_CTYPES if self._fmi3 else _FMI2_CTYPES
        kinds = dict.fromkeys(v.type for k, v in enumerate(variables) if k not in held)
        groups = []
        for kind in kinds:
            chosen = [k for k, v in enumerate(variables) if v.type == kind and k not in held]
            groups.append(_Group(kind, natives[kind], [variables[k] for k in chosen], chosen))
        objects = any(variables[k].type in _TEXT for k in held)
        return Port(names, [v.value_reference for v in variables], groups, held, objects)

    def set_start_values(self, values: dict[str, Value]) -> None:
        """Set parameters and start values (after the experiment set-up, which FMI 2.0 makes
        first), each in the phase the standard allows; a value must suit its variable's type.

        FMI 3.0: structural parameters in Configuration Mode, the others now (Instantiated).
        FMI 2.0 allows an input to be set only from Initialization Mode on (in Instantiated
        only variables with ``initial`` exact or approx), so inputs wait for
        :meth:`initialize`.
        """
        if self._initialized:
            raise FMUError(f"{self.name}: start values must be set before initialization")
        causality = {n: self.fmu.variable(n).causality for n in values}
        structural = {n: v for n, v in values.items() if causality[n] == STRUCTURAL}
        if structural:
            self._model.enterConfigurationMode()
            self._write_values(structural, "Configuration Mode")
            self._model.exitConfigurationMode()
        later = {n: v for n, v in values.items() if not self._fmi3 and causality[n] == "input"}
        self._initial_inputs = later
        now = {n: v for n, v in values.items() if n not in structural and n not in later}
        self._write_values(now, "Instantiated")

    def _write_values(self, values: dict[str, Value], phase: str) -> None:
        """Write start values in ``phase`` (the FMU's state, for the error message)."""
        if values:
            port = self.port(list(values))
            for k, (name, value) in enumerate(values.items()):
                port.values[k] = self.fmu.checked_value(name, value)
            try:
                self.write(port)
            except CallError as exc:
                raise FMUError(
                    f"{self.fmu.path.name} ({self.name}): start values in {phase}: {exc.call}"
                ) from None

    def setup_experiment(
        self, start_time: float, stop_time: float | None = None, tolerance: float | None = None
    ) -> None:
        """Declare the run's start and stop times (s) and relative tolerance.

        FMI 2.0 calls ``fmi2SetupExperiment`` now, right after instantiation and before any
        start value is set (an FMU may reset its parameters there); FMI 3.0 hands them to
        ``fmi3EnterInitializationMode``.
        """
        self._experiment = (start_time, stop_time, tolerance)
        if not self._fmi3:
            try:
                self._model.setupExperiment(
                    tolerance=tolerance, startTime=start_time, stopTime=stop_time
                )
            except Exception as exc:
                raise FMUError(
                    f"{self.fmu.path.name} ({self.name}): setting up the experiment failed: {exc}"
                ) from None

    def initialize(self, start_time: float) -> None:
        """Run the FMU's initialization at ``start_time`` (s), setting the start values of FMI
        2.0 inputs in Initialization Mode; then a Model Exchange instance is in continuous-time
        mode (after its event iteration), a Co-Simulation instance ready for its first step.
        An instance that asks to terminate in its initial event update keeps the request in
        ``termination`` (the master ends the run at its start)."""
        model = self._model
        if self._experiment is None:
            self.setup_experiment(start_time)
        _, stop_time, tolerance = self._experiment
        try:
            if self._fmi3:
                model.enterInitializationMode(
                    tolerance=tolerance, startTime=start_time, stopTime=stop_time
                )
            else:
                model.enterInitializationMode()
            self._write_values(self._initial_inputs, "Initialization Mode")
            if self._clocks is not None:
                self._clocks.start(start_time)
            model.exitInitializationMode()
        except FMUError:
            raise
        except Exception as exc:
            raise FMUError(
                f"{self.fmu.path.name} ({self.name}): initialization failed: {exc}{self.log.said()}"
            ) from None
        self._initialized = True
        if self.kind == MODEL_EXCHANGE:  # the initial event iteration, then continuous time
            try:
                self._update_discrete_states(start_time)
            except TerminationRequest as request:  # the master ends the run at its start
                self.termination = request
                return
            self._call(model.enterContinuousTimeMode, "enter continuous-time mode", start_time)

    # -- hot path -------------------------------------------------------------------------

    def _check(self, status: int, what: str) -> None:
        """A ``CallError`` for a call that returned a status above warning."""
        if status > 1:
            if status in (3, 4):  # error, fatal: the instance may only be freed (or reset)
                self._model.failure = max(self._model.failure, status)
            label = _STATUS[status] if status < len(_STATUS) else str(status)
            raise CallError(self.name, f"{what} returned '{label}'{self.log.said()}")

    def _typed(self, what: str, kind: str, names: list[str]) -> str:
        """``fmi2SetInteger of n (Integer)``: the FMI function ``what`` (Get, Set) for type
        ``kind``, and the variables ``names`` with their types as the FMU's version names
        them."""
        types = [self.fmu.variables[n].type for n in names]
        if not self._fmi3:
            types = [_FMI2_NAMES.get(t, t) for t in types]
        labels = ", ".join(f"{n} ({t})" for n, t in zip(names, types, strict=True))
        return f"{self._typed_name(what, kind)} of {labels}"

    def read(self, port: Port) -> np.ndarray:
        """Read the port's variables into ``port.values`` and return that buffer."""
        if port._groups or port._clocked:
            for k in port._clocked:
                port.values[k] = self._clocks.held[port.names[k]]
            for group in port._groups:
                self._call_typed("Get", group, port.names)
                values = port.values
                if group.kind == "String":
                    raw = group.raw
                    for k, at in zip(group.positions, group.gather, strict=True):
                        values[k] = (raw[at] or b"").decode("utf-8")
                elif group.kind == "Binary":
                    raw, sizes = group.raw, group.sizes
                    for k, at in zip(group.positions, group.gather, strict=True):
                        values[k] = ctypes.string_at(raw[at], sizes[at]) if raw[at] else b""
                else:
                    values[group.positions] = group.array[group.gather]
            return port.values
        n = len(port)
        if n:
            if self._fmi3:
                status = self._get_real(self._handle, port._vr, n, port._values_ptr, n)
            else:
                status = self._get_real(self._handle, port._vr, n, port._values_ptr)
            if status:
                self._check(status, self._typed("Get", "Float64", port.names))
        return port.values

    def write(self, port: Port) -> None:
        """Write ``port.values`` to the port's variables."""
        if port._groups or port._clocked:
            for k in port._clocked:
                self._clocks.hold(port.names[k], port.values[k])
            for group in port._groups:
                if not group.whole:  # keep the array elements this port does not set
                    self._call_typed("Get", group, port.names)
                self._fill(group, port.values[group.positions])
                self._call_typed("Set", group, port.names)
            return
        n = len(port)
        if n:
            if self._fmi3:
                status = self._set_real(self._handle, port._vr, n, port._values_ptr, n)
            else:
                status = self._set_real(self._handle, port._vr, n, port._values_ptr)
            if status:
                self._check(status, self._typed("Set", "Float64", port.names))

    def _typed_name(self, what: str, kind: str) -> str:
        """Name of the FMI function ``what`` (Get, Set) for variables of type ``kind``."""
        if self._fmi3:
            return "fmi3" + what + ("Int64" if kind == "Enumeration" else kind)
        return "fmi2" + what + _FMI2_CALLS.get(kind, kind)

    def _call_typed(self, what: str, group: _Group, names: list[str]) -> None:
        """Get or set (``what``) the values of a typed group by one FMI call."""
        call = getattr(self._model.dll, self._typed_name(what, group.kind))
        n_vr, n = len(group.vr), len(group.raw)
        if group.kind == "Binary":
            status = call(self._handle, group.vr, n_vr, group.sizes, group.raw, n)
        elif self._fmi3:
            status = call(self._handle, group.vr, n_vr, group.raw, n)
        else:
            status = call(self._handle, group.vr, n_vr, group.raw)
        if status:
            self._check(status, self._typed(what, group.kind, [names[k] for k in group.positions]))

    @staticmethod
    def _fill(group: _Group, values: np.ndarray) -> None:
        """Put values into a group's typed buffer (texts kept alive until the next fill)."""
        if group.kind == "String":
            group.keep = [str(v).encode("utf-8") for v in values]
            for at, text in zip(group.gather, group.keep, strict=True):
                group.raw[at] = text
        elif group.kind == "Binary":
            group.keep = [bytes(v) for v in values]
            for at, data in zip(group.gather, group.keep, strict=True):
                group.raw[at] = ctypes.cast(ctypes.c_char_p(data), ctypes.POINTER(ctypes.c_uint8))
                group.sizes[at] = len(data)
        elif group.kind == "Boolean":
            group.array[group.gather] = values != 0
        elif group.kind in ("Float32", "Float64"):
            group.array[group.gather] = values
        else:
            group.array[group.gather] = np.rint(values.astype(float))

    def set_time(self, time: float) -> None:
        """Set the independent variable (s)."""
        status = self._set_time(self._handle, time)
        if status:
            self._check(status, "set time")

    def set_continuous_states(self, x: np.ndarray) -> None:
        """Set the continuous states, in the order of ``fmu.states``."""
        if self.n_states:
            self._state_buffer[:] = x
            status = self._set_states(self._handle, self._state_ptr, self.n_states)
            if status:
                self._check(status, "set continuous states")

    def get_derivatives(self) -> np.ndarray:
        """Evaluate and return the state derivatives (buffer reused between calls)."""
        if self.n_states:
            status = self._get_derivatives(self._handle, self._derivatives_ptr, self.n_states)
            if status:
                self._check(status, "get derivatives")
        return self.derivatives

    # -- events (Model Exchange) ------------------------------------------------------------

    @property
    def next_event_time(self) -> float | None:
        """The next time event (s): the FMU's nextEventTime or the next activation of an
        input clock, whichever comes first; None when there is neither."""
        clock = self._clocks.schedule.next_time() if self._clocks is not None else None
        times = [t for t in (self._next_time, clock) if t is not None]
        return min(times) if times else None

    def _call(self, function: object, what: str, time: float) -> object:
        try:
            return function()
        except Exception as exc:
            raise FMUError(
                f"{self.name}: {what} at t = {time:.6g} s failed: {exc}{self.log.said()}"
            ) from exc

    def _update_discrete_states(self, time: float) -> bool:
        """Event iteration in event mode: update the discrete states until none needs it.
        Sets ``next_event_time`` (s, or None); returns whether continuous states changed.
        Raises ``TerminationRequest`` (at ``time``) when the FMU asks to end the run."""
        update = self._model.updateDiscreteStates if self._fmi3 else self._model.newDiscreteStates
        clocks = self._clocks
        due = clocks.schedule.due(time) if clocks is not None else []
        if due:
            clocks.schedule.activate(due, time)
        changed = False
        for _ in range(_EVENT_ITERATIONS):
            if clocks is not None:
                clocks.exchange(due, time)  # clocked inputs set, outputs read while active
            needed, terminate, _, values_changed, time_defined, next_time = self._call(
                update, "update of discrete states", time
            )
            changed |= bool(values_changed)
            if terminate:
                call = "fmi3UpdateDiscreteStates" if self._fmi3 else "fmi2NewDiscreteStates"
                raise TerminationRequest(self.name, call, time)
            if not needed:
                self._next_time = float(next_time) if time_defined else None
                if clocks is not None:
                    clocks.schedule.update(due, time)
                return changed
            due = []  # input clocks are active in the first update only
        raise FMUError(
            f"{self.name}: event iteration at t = {time:.6g} s did not settle in "
            f"{_EVENT_ITERATIONS} updates of the discrete states"
        )

    def handle_event(self, time: float) -> bool:
        """Event mode at ``time`` (s, states and inputs already set): update the discrete
        states, back to continuous time. Returns whether continuous states changed."""
        self._call(self._model.enterEventMode, "enter event mode", time)
        changed = self._update_discrete_states(time)
        self._call(self._model.enterContinuousTimeMode, "enter continuous-time mode", time)
        return changed

    def event_indicators(self) -> np.ndarray:
        """Current values of the event indicators (a state event is a sign change)."""
        n = self.fmu.n_event_indicators
        if n:
            status = self._get_indicators(self._handle, self._indicators_ptr, n)
            if status:
                self._check(status, "get event indicators")
        return self._indicators

    def c_functions(self) -> dict[str, int]:
        """Addresses of the C functions a compiled loop calls, by FMI 2 names (Model
        Exchange; the FMI 3 equivalents for an FMI 3 instance)."""
        dll = self._model.dll
        prefix = "fmi3" if self._fmi3 else "fmi2"
        names = {
            "SetTime": "SetTime",
            "SetContinuousStates": "SetContinuousStates",
            "GetDerivatives": "GetContinuousStateDerivatives" if self._fmi3 else "GetDerivatives",
            "GetReal": "GetFloat64" if self._fmi3 else "GetReal",
            "SetReal": "SetFloat64" if self._fmi3 else "SetReal",
            "CompletedIntegratorStep": "CompletedIntegratorStep",
        }
        return {
            key: ctypes.cast(getattr(dll, prefix + name), ctypes.c_void_p).value
            for key, name in names.items()
        }

    def completed_integrator_step(self, time: float) -> bool:
        """Tell a Model Exchange instance that an integrator step to ``time`` (s) was
        accepted; returns whether it asks for event mode (a step event). Raises
        ``TerminationRequest`` (at ``time``) when the FMU asks to end the run."""
        if self.kind != MODEL_EXCHANGE:
            return False
        enter, terminate = self._model.completedIntegratorStep()
        if terminate:
            prefix = "fmi3" if self._fmi3 else "fmi2"
            raise TerminationRequest(self.name, prefix + "CompletedIntegratorStep", time)
        return bool(enter)

    # -- Co-Simulation ----------------------------------------------------------------------

    def do_step(self, time: float, step: float) -> None:
        """Advance a Co-Simulation instance from ``time`` by ``step`` (s), inputs as set.

        An FMU that asks to end the run (FMI 3.0: ``terminateSimulation`` of
        ``fmi3DoStep``; FMI 2.0: ``fmi2DoStep`` returns ``fmi2Discard`` and
        ``fmi2GetBooleanStatus(fmi2Terminated)`` is true) raises ``TerminationRequest`` at
        ``time + step``, with the time it reached (``lastSuccessfulTime``) in its detail.
        """
        try:
            result = self._model.doStep(time, step)
        except Exception as exc:
            reached = self._terminated_at(exc)
            if reached is not None:
                raise TerminationRequest(self.name, "fmi2DoStep", time + step, reached) from None
            raise FMUError(
                f"{self.name}: step from t = {time:.6g} s failed: {exc}{self.log.said()}"
            ) from exc
        if self._fmi3 and result[1]:
            raise TerminationRequest(self.name, "fmi3DoStep", time + step, result[3])

    def _terminated_at(self, failure: Exception) -> float | None:
        """The time (s) an FMI 2.0 step that returned ``fmi2Discard`` reached when the FMU
        asks to end the run there (``fmi2Terminated``); None for any other failure."""
        if self._fmi3 or getattr(failure, "status", None) != fmi2Discard:
            return None
        try:
            if not self._model.getBooleanStatus(fmi2Terminated):
                return None
            return float(self._model.getRealStatus(fmi2LastSuccessfulTime))
        except Exception:  # noqa: BLE001 - an FMU without the status functions did not ask
            return None

    def get_state(self) -> object:
        """A copy of the instance's internal state (needs ``fmu.can_roll_back``)."""
        if not self.fmu.can_roll_back:
            raise FMUError(f"{self.fmu.path.name}: cannot get and set its state (roll back)")
        try:
            return self._model.getFMUState()
        except Exception as exc:
            raise FMUError(f"{self.name}: get FMU state failed: {exc}") from exc

    def set_state(self, state: object) -> None:
        """Restore a state returned by :meth:`get_state`."""
        try:
            self._model.setFMUState(state)
        except Exception as exc:
            raise FMUError(f"{self.name}: set FMU state failed: {exc}") from exc

    def free_state(self, state: object) -> None:
        """Release a state returned by :meth:`get_state`."""
        self._model.freeFMUState(state)

    def get_values(self, names: list[str]) -> np.ndarray:
        """Read named Float64 variables (allocates; not for the hot path)."""
        port = self.port(names)
        return self.read(port).copy()

    def terminate(self) -> None:
        """Terminate and free the instance; errors at this point are not reported. After a
        call that returned an error the instance is only freed (FMI allows no
        ``fmi3Terminate`` then), after a fatal one not even that."""
        failure = self._model.failure
        try:
            if self._initialized and not failure:
                self._model.terminate()
            if failure < 4:
                self._model.freeInstance()
        except Exception:  # noqa: BLE001 - freeing must never mask the run's own error
            pass
