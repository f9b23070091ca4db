"""Thin layer over FMPy for one loaded FMU and its instances.

``FMU`` reads and checks an archive once (model description, unpacked binary); ``FMUInstance``
is one running instance. FMI 2.0 and FMI 3.0 are supported, Model Exchange and Co-Simulation:
an FMU that offers Model Exchange is run as such (the orchestrator integrates it), one that
offers only Co-Simulation advances itself with :meth:`FMUInstance.do_step`. Variables are
addressed by name (aliases included); the calls made in every right-hand-side evaluation or
macro step go straight to the C functions on preallocated NumPy buffers, without per-call
allocation. What is not supported (FMI 1.0, clocks, Scheduled Execution, non-Float64 ports)
is refused with an error naming the FMU and the feature.
"""

from __future__ import annotations

import ctypes
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
from fmpy import extract, platform, platform_tuple, read_model_description
from fmpy.fmi2 import FMU2Model, FMU2Slave
from fmpy.fmi3 import FMU3Model, FMU3Slave
from fmpy.model_description import ModelDescription

from orchestrator.errors import FMUError

_STATUS = ("ok", "warning", "discard", "error", "fatal", "pending")
_EVENT_ITERATIONS = 100  # updates of discrete states allowed at one event instant


MODEL_EXCHANGE = "ModelExchange"
CO_SIMULATION = "CoSimulation"


@dataclass(frozen=True)
class Variable:
    """One scalar FMU variable as declared in the model description."""

    name: str
    value_reference: int
    causality: str
    variability: str
    start: float | None
    unit: str
    description: str
    type: str = "Float64"


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
        version = _declared_fmi_version(self.path)
        if not (version.startswith("2.") or version.startswith("3.")):
            raise FMUError(f"{self.path}: FMI {version} is not supported (FMI 2.0, 3.0)")
        try:
            md: ModelDescription = read_model_description(str(self.path), validate=False)
        except Exception as exc:
            raise FMUError(f"{self.path}: unreadable modelDescription.xml: {exc}") from exc
        self.model_description = md
        self.fmi_version = md.fmiVersion
        self._unsupported_check()
        integrate = md.modelExchange is not None and (
            prefer == MODEL_EXCHANGE or md.coSimulation is None
        )
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
            self.variables[v.name] = Variable(
                name=v.name,
                value_reference=v.valueReference,
                causality=v.causality or "local",
                variability=v.variability or "continuous",
                start=float(start) if start is not None and v.type in _REALS else None,
                unit=(v.declaredType.unit if v.declaredType else None) or v.unit or "",
                description=v.description or "",
                type="Float64" if v.type == "Real" else v.type,
            )
        self.n_event_indicators = (
            int(md.numberOfEventIndicators or 0) if self.kind == MODEL_EXCHANGE else 0
        )
        self.states = [d.variable.derivative.name for d in md.derivatives]
        self.state_derivatives = [d.variable.name for d in md.derivatives]
        if self.kind == CO_SIMULATION:
            self.states, self.state_derivatives = [], []
        self.inputs = [v.name for v in md.modelVariables if v.causality == "input"]
        self.outputs = [u.variable.name for u in md.outputs]
        self._output_dependencies = {
            u.variable.name: None if u.dependencies is None else {d.name for d in u.dependencies}
            for u in md.outputs
        }
        self._binary_check()
        self.provides_directional_derivatives = _provides_directional_derivatives(
            self.path, self.kind
        )
        self._unpacked = Path(tempfile.mkdtemp(prefix=f"murcosim-{self.path.stem}-"))
        extract(str(self.path), str(self._unpacked))

    def _unsupported_check(self) -> None:
        md = self.model_description
        if md.modelExchange is None and md.coSimulation is None:
            feature = "Scheduled Execution" if md.scheduledExecution else "no interface"
            raise FMUError(
                f"{self.path}: {feature} FMU is not supported "
                "(expected Model Exchange or Co-Simulation)"
            )
        clocks = [v.name for v in md.modelVariables if v.type == "Clock" or v.clocks]
        if clocks:
            raise FMUError(
                f"{self.path}: clocks are not supported (clocked variable '{clocks[0]}')"
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
            raise FMUError(f"{self.path.name}: no variable '{name}'") from None

    def output_depends_on(self, output: str, inputs: list[str]) -> bool:
        """Whether ``output`` may depend directly on any of ``inputs`` (direct feedthrough)."""
        dependencies = self._output_dependencies.get(output)
        if dependencies is None:
            return output in self._output_dependencies or output in self.inputs
        return bool(dependencies.intersection(inputs))

    def is_constant_output(self, output: str) -> bool:
        """Whether ``output`` never changes in a run: a constant or parameter-like variable,
        or a continuous one that depends on nothing (computed from parameters only). A
        discrete output may depend on nothing and still change at events.

        Co-Simulation dependencies name inputs only, so there the variability decides.
        """
        variability = self.variables[output].variability
        if variability in ("constant", "fixed", "tunable"):
            return True
        if self.kind == CO_SIMULATION:
            return False
        return variability == "continuous" and self._output_dependencies.get(output) == set()

    def instantiate(self, name: str) -> FMUInstance:
        """Create a new instance called ``name`` (of this FMU's ``kind``)."""
        return FMUInstance(self, name)

    def close(self) -> None:
        """Remove the unpacked files."""
        shutil.rmtree(self._unpacked, ignore_errors=True)


def _declared_fmi_version(path: Path) -> str:
    """The fmiVersion attribute of an archive's modelDescription.xml, read before parsing."""
    try:
        with zipfile.ZipFile(path) as archive:
            root = ElementTree.fromstring(archive.read("modelDescription.xml"))
    except KeyError:
        raise FMUError(f"{path}: not an FMU (no modelDescription.xml)") from None
    except (zipfile.BadZipFile, ElementTree.ParseError, OSError) as exc:
        raise FMUError(f"{path}: unreadable modelDescription.xml: {exc}") from None
    return root.get("fmiVersion", "(no fmiVersion)")


def _provides_directional_derivatives(path: Path, kind: str) -> bool:
    """The interface's ``providesDirectionalDerivative(s)`` flag (FMI 2 and 3 spellings)."""
    with zipfile.ZipFile(path) as archive:
        root = ElementTree.fromstring(archive.read("modelDescription.xml"))
    element = root.find(kind)
    if element is None:
        return False
    flag = element.get(
        "providesDirectionalDerivatives", element.get("providesDirectionalDerivative")
    )
    return flag in ("true", "1")


_REALS = ("Real", "Float64", "Float32")
_FMPY_CLASSES = {
    (False, MODEL_EXCHANGE): FMU2Model,
    (False, CO_SIMULATION): FMU2Slave,
    (True, MODEL_EXCHANGE): FMU3Model,
    (True, CO_SIMULATION): FMU3Slave,
}


class Port:
    """A fixed set of Float64 variables of one instance with a preallocated value buffer."""

    def __init__(self, names: list[str], value_references: list[int]) -> None:
        self.names = list(names)
        self.values = np.zeros(len(names))
        self._vr = (ctypes.c_uint32 * len(names))(*value_references)
        self._values_ptr = self.values.ctypes.data_as(ctypes.POINTER(ctypes.c_double))

    def __len__(self) -> int:
        return len(self.names)


class FMUInstance:
    """One running instance: parameters, initialization, ports; states (Model Exchange) or
    steps (Co-Simulation)."""

    def __init__(self, fmu: FMU, name: str) -> None:
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
        prefix = "fmi3" if self._fmi3 else "fmi2"
        try:
            self._model = _FMPY_CLASSES[(self._fmi3, fmu.kind)](**kwargs)
            self._model.instantiate()
        except Exception as exc:
            raise FMUError(f"{fmu.path.name} ({name}): could not instantiate: {exc}") from exc
        dll = self._model.dll
        real = ("GetFloat64", "SetFloat64") if self._fmi3 else ("GetReal", "SetReal")
        self._get_real, self._set_real = (getattr(dll, prefix + n) for n in real)
        self._handle = self._model.component
        self.n_states = len(fmu.states)
        self.states = Port(fmu.states, [fmu.variable(s).value_reference for s in fmu.states])
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
        self.next_event_time: float | None = None
        self._initialized = False

    # -- set-up ---------------------------------------------------------------------------

    def port(self, names: list[str]) -> Port:
        """A port over the named Float64 variables of this instance."""
        variables = [self.fmu.variable(n) for n in names]
        for v in variables:
            if v.type != "Float64":
                raise FMUError(
                    f"{self.fmu.path.name}: '{v.name}' is a(n) {v.type} variable; "
                    "only Float64 (Real) variables can be set, read or connected"
                )
        return Port(names, [v.value_reference for v in variables])

    def set_start_values(self, values: dict[str, float]) -> None:
        """Set parameters and start values before initialization."""
        if self._initialized:
            raise FMUError(f"{self.name}: start values must be set before initialization")
        if values:
            port = self.port(list(values))
            port.values[:] = list(values.values())
            self.write(port)

    def initialize(self, start_time: float) -> None:
        """Run the FMU's initialization at ``start_time`` (s); then a Model Exchange instance is
        in continuous-time mode, a Co-Simulation instance ready for its first step."""
        model = self._model
        try:
            if self._fmi3:
                model.enterInitializationMode(startTime=start_time)
            else:
                model.setupExperiment(startTime=start_time)
                model.enterInitializationMode()
            model.exitInitializationMode()
        except Exception as exc:
            raise FMUError(f"{self.name}: initialization failed: {exc}") from exc
        self._initialized = True
        if self.kind == MODEL_EXCHANGE:  # the initial event iteration, then continuous time
            self._update_discrete_states(start_time)
            self._call(model.enterContinuousTimeMode, "enter continuous-time mode", start_time)

    # -- hot path -------------------------------------------------------------------------

    def _check(self, status: int, what: str) -> None:
        if status > 1:
            label = _STATUS[status] if status < len(_STATUS) else str(status)
            raise FMUError(f"{self.name}: {what} returned '{label}'")

    def read(self, port: Port) -> np.ndarray:
        """Read the port's variables into ``port.values`` and return that buffer."""
        n = len(port)
        if n:
            if self._fmi3:
                status = self._get_real(self._handle, port._vr, n, port._values_ptr, n)
            else:
                status = self._get_real(self._handle, port._vr, n, port._values_ptr)
            if status:
                self._check(status, f"get {port.names}")
        return port.values

    def write(self, port: Port) -> None:
        """Write ``port.values`` to the port's variables."""
        n = len(port)
        if n:
            if self._fmi3:
                status = self._set_real(self._handle, port._vr, n, port._values_ptr, n)
            else:
                status = self._set_real(self._handle, port._vr, n, port._values_ptr)
            if status:
                self._check(status, f"set {port.names}")

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

    def _call(self, function: object, what: str, time: float) -> object:
        try:
            return function()
        except Exception as exc:
            raise FMUError(f"{self.name}: {what} at t = {time:.6g} s failed: {exc}") from exc

    def _update_discrete_states(self, time: float) -> bool:
        """Event iteration in event mode: update the discrete states until none needs it.
        Sets ``next_event_time`` (s, or None); returns whether continuous states changed."""
        update = self._model.updateDiscreteStates if self._fmi3 else self._model.newDiscreteStates
        changed = False
        for _ in range(_EVENT_ITERATIONS):
            needed, terminate, _, values_changed, time_defined, next_time = self._call(
                update, "update of discrete states", time
            )
            changed |= bool(values_changed)
            if terminate:
                raise FMUError(f"{self.name}: asked to terminate the run at t = {time:.6g} s")
            if not needed:
                self.next_event_time = float(next_time) if time_defined else None
                return changed
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

    def completed_integrator_step(self) -> bool:
        """Tell a Model Exchange instance that an integrator step was accepted; returns
        whether it asks for event mode (a step event)."""
        if self.kind != MODEL_EXCHANGE:
            return False
        enter, terminate = self._model.completedIntegratorStep()
        if terminate:
            raise FMUError(f"{self.name}: asked to terminate the run after an integrator step")
        return bool(enter)

    # -- Co-Simulation ----------------------------------------------------------------------

    def do_step(self, time: float, step: float) -> None:
        """Advance a Co-Simulation instance from ``time`` by ``step`` (s), inputs as set."""
        try:
            result = self._model.doStep(time, step)
        except Exception as exc:
            raise FMUError(f"{self.name}: step from t = {time:.6g} s failed: {exc}") from exc
        if self._fmi3 and result[1]:
            raise FMUError(f"{self.name}: asked to terminate the run at t = {time:.6g} s")

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
        """Terminate and free the instance; errors at this point are not reported."""
        try:
            if self._initialized:
                self._model.terminate()
            self._model.freeInstance()
        except Exception:  # noqa: BLE001 - freeing must never mask the run's own error
            pass
