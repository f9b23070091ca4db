"""Breadcrumbs of a supervised run: where its child process is, in shared memory (the
simulation time, the macro steps and right-hand-side evaluations, the FMI call being made and
the first that failed), for the supervisor (``supervise.py``) to report a crash, a hang or an
interrupt by the FMI call it happened in."""

from __future__ import annotations

import ctypes
import mmap
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from orchestrator.fmi.fmu import FMUInstance
from orchestrator.master.protocols import Observer, Point

if TYPE_CHECKING:
    from orchestrator.system.system import System

# FMUInstance methods and the FMI functions each calls (FMI 2, FMI 3).
FMI_CALLS: dict[str, tuple[str, str]] = {
    "initialize": (
        "fmi2EnterInitializationMode/ExitInitializationMode",
        "fmi3EnterInitializationMode/ExitInitializationMode",
    ),
    "read": ("fmi2GetReal", "fmi3GetFloat64"),
    "write": ("fmi2SetReal", "fmi3SetFloat64"),
    "set_time": ("fmi2SetTime", "fmi3SetTime"),
    "set_continuous_states": ("fmi2SetContinuousStates", "fmi3SetContinuousStates"),
    "get_derivatives": ("fmi2GetDerivatives", "fmi3GetContinuousStateDerivatives"),
    "completed_integrator_step": ("fmi2CompletedIntegratorStep", "fmi3CompletedIntegratorStep"),
    "handle_event": (
        "fmi2EnterEventMode/NewDiscreteStates",
        "fmi3EnterEventMode/UpdateDiscreteStates",
    ),
    "event_indicators": ("fmi2GetEventIndicators", "fmi3GetEventIndicators"),
    "do_step": ("fmi2DoStep", "fmi3DoStep"),
    "get_state": ("fmi2GetFMUstate", "fmi3GetFMUState"),
    "set_state": ("fmi2SetFMUstate", "fmi3SetFMUState"),
    "terminate": ("fmi2Terminate/FreeInstance", "fmi3Terminate/FreeInstance"),
}
METHODS = tuple(FMI_CALLS)
NAMES_BYTES = 8192
MAPPED_BYTES = 6 * 8 + NAMES_BYTES
# Slots of the shared breadcrumbs.
TIME, STEPS, CALL, FAILED, SIGNAL, EVALUATIONS = range(6)


class Breadcrumbs:
    """Where the child is, in shared memory: the simulation time (s), the counts of macro steps
    and right-hand-side evaluations at the last macro step, the FMI call being made (instance
    index x number of methods + method index) and the first that failed, and the signal that
    made the supervisor stop the child; the instance names (with their FMI versions) are
    written once."""

    def __init__(self, values: Any, names: Any, fresh: bool = True) -> None:  # noqa: ANN401
        """Over ``values`` (6 doubles) and ``names`` (``NAMES_BYTES`` chars), ctypes arrays in
        memory the child shares; ``fresh`` ones are set to "no call made yet"."""
        self.values, self.names = values, names
        if fresh:
            self.values[CALL] = self.values[FAILED] = -1
            self.values[SIGNAL] = signal.SIGTERM  # a SIGTERM sent to the child itself

    @classmethod
    def shared(cls, context: Any) -> Breadcrumbs:  # noqa: ANN401 - a multiprocessing context
        """Fresh breadcrumbs in shared memory that ``context``'s children inherit."""
        return cls(context.RawArray("d", 6), context.RawArray("c", NAMES_BYTES))

    @classmethod
    def mapped(cls, memory: mmap.mmap, fresh: bool) -> Breadcrumbs:
        """Breadcrumbs over ``memory`` (``MAPPED_BYTES``, a shared mapping of a file)."""
        values = (ctypes.c_double * 6).from_buffer(memory)
        names = (ctypes.c_char * NAMES_BYTES).from_buffer(memory, ctypes.sizeof(values))
        return cls(values, names, fresh)

    def at_time(self, time: float, evaluations: int) -> None:
        """Record a macro step reaching ``time`` (s) after ``evaluations`` right-hand sides."""
        self.values[TIME] = time
        self.values[EVALUATIONS] = evaluations
        self.values[STEPS] += 1

    def addresses(self) -> tuple[int, int, int]:
        """The addresses of the time, macro-step and evaluation slots (doubles), where the
        master's compiled ticks leave :meth:`at_time`'s marks."""
        base, size = ctypes.addressof(self.values), ctypes.sizeof(ctypes.c_double)
        return base + TIME * size, base + STEPS * size, base + EVALUATIONS * size

    def watch(self, system: System) -> None:
        """Record every later FMI call of the system's instances on the way in: one store in
        shared memory per call, by the compiled code for the calls it makes (right-hand side,
        port batches) and by a wrapper around each instance's methods for the calls made from
        Python."""
        instances = list(system.instances.values())
        labels = [f"{inst.name}:{int(inst.fmu.fmi_version.startswith('3.'))}" for inst in instances]
        self.names.value = "\n".join(labels).encode()[: NAMES_BYTES - 1]
        index = {id(instance): k for k, instance in enumerate(instances)}

        def code(instance: FMUInstance, method: str) -> float:
            return float(index[id(instance)] * len(METHODS) + METHODS.index(method))

        slots = memoryview(self.values).cast("B").cast("d")
        for instance in instances:
            for method in METHODS:
                wrapped = _recorded(getattr(instance, method), slots, code(instance, method))
                setattr(instance, method, wrapped)
        address = ctypes.addressof(self.values) + CALL * ctypes.sizeof(ctypes.c_double)
        system.watch(address, code)

    def steps(self) -> int:
        """Macro steps made so far."""
        return int(self.values[STEPS])

    def evaluations(self) -> int:
        """Right-hand-side evaluations up to the last macro step."""
        return int(self.values[EVALUATIONS])

    def stop_with(self, signum: int) -> None:
        """Tell the child that the signal ``signum`` stops the run (before sending it SIGTERM)."""
        self.values[SIGNAL] = signum

    def stop_signal(self) -> int:
        """The signal that stops the run (SIGTERM unless the supervisor said otherwise)."""
        return int(self.values[SIGNAL])

    def time(self) -> float:
        """Simulation time (s) of the last macro step."""
        return float(self.values[TIME])

    def where(self, failed: bool = False) -> str:
        """The FMI call being made (or last made), and by which instance; with ``failed``, the
        first call that raised an exception, if any."""
        code = self.values[FAILED] if failed and self.values[FAILED] >= 0 else self.values[CALL]
        labels = self.names.value.decode().splitlines()
        index, call = divmod(int(code), len(METHODS))
        if code < 0 or index >= len(labels):
            return "setting up the run (loading and instantiating the FMUs)"
        name, fmi3 = labels[index].rsplit(":", 1)
        return f"{FMI_CALLS[METHODS[call]][int(fmi3)]} of instance '{name}'"


class BreadcrumbTrail(Observer):
    """Leaves the breadcrumbs of every tick: the stamp (s) and the right-hand-side
    evaluations so far (``evaluations()``)."""

    def __init__(self, breadcrumbs: Breadcrumbs, evaluations: Callable[[], int]) -> None:
        self.breadcrumbs, self.evaluations = breadcrumbs, evaluations

    def observe(self, point: Point, x: np.ndarray) -> None:
        """Record the tick as a macro step."""
        self.breadcrumbs.at_time(point.stamp, self.evaluations())

    def marks(self) -> tuple[int, int, int]:
        """The addresses of the time, macro-step and evaluation slots."""
        return self.breadcrumbs.addresses()


def _recorded(method: Callable, slots: memoryview, code: float) -> Callable:
    def recorded(*args: object) -> object:
        slots[CALL] = code
        try:  # free unless an exception is raised
            return method(*args)
        except Exception:
            if slots[FAILED] < 0:  # the first failure, not the clean-up calls after it
                slots[FAILED] = code
            raise

    return recorded
