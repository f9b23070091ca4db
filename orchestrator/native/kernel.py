"""The compiled right-hand side of a system: the C kernel wired to the running FMU instances.

``CompiledSystem`` hands the kernel (``orchestrator/native/_kernel.c``) each instance's C handle and
function addresses, its slice of the state vector, and the connections as index arrays: every
output a connection reads gets a place in one signal buffer, every connected input is the sum
of the buffer entries wired to it. After that one evaluation of the whole system, and whole
integrator steps, run in C. Errors come back as ``FMUError`` naming the instance and the FMI
call, or as ``SimulationError`` naming the state that stopped being finite.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from orchestrator.errors import FMUError, SimulationError
from orchestrator.fmi.fmu import _STATUS, FMUInstance, Port, TerminationRequest
from orchestrator.native import _kernel

PostProcess = Callable[[np.ndarray, np.ndarray], None] | None

# The FMI calls the kernel makes, by the FMUInstance methods that make them from Python, in the
# order of the kernel's breadcrumb codes.
CALLS = (
    "set_time",
    "set_continuous_states",
    "get_derivatives",
    "read",
    "write",
    "completed_integrator_step",
)


class CompiledSystem:
    """One system's right-hand side and integrators in compiled code.

    ``slices``: instances with states and their slice of the state vector; ``stateless``:
    instances without states (their time is set too); ``schedule``: ("read", instance, Port)
    and ("write", instance, inflow) in propagation order, where an inflow has ``port`` and
    ``terms`` = [(source Port, source positions, target positions)].
    """

    def __init__(
        self,
        slices: list[tuple[FMUInstance, slice]],
        stateless: list[FMUInstance],
        schedule: list[tuple[str, FMUInstance, object]],
        n_states: int,
    ) -> None:
        self.n_states = n_states
        self.stage = np.zeros(n_states)  # the state and rate handed to a post-process
        self.rate = np.zeros(n_states)
        reads: dict[int, int] = {}  # id(Port) -> first signal entry
        size = 0
        for kind, _, item in schedule:
            if kind == "read":
                reads[id(item)] = size
                size += len(item)
        self._kernel = _kernel.Kernel(n_states, size, self.stage, self.rate)
        self._instances: list[FMUInstance] = []
        self._offsets: dict[str, int] = {}
        number: dict[str, int] = {}
        for instance, part in slices:
            number[instance.name] = self._add(instance, part.start, part.stop - part.start)
        for instance in stateless:
            number[instance.name] = self._add(instance, 0, 0)
        for kind, instance, item in schedule:
            k = number[instance.name]
            if kind == "read":
                self._kernel.add_read(k, list(item._vr), reads[id(item)])
                continue
            port: Port = item.port
            sources: list[list[tuple[int, float]]] = [[] for _ in range(len(port))]
            offsets = [0.0] * len(port)
            for source, from_index, to_index, factor, offset in item.terms:
                for f, t in zip(from_index, to_index, strict=True):
                    sources[t].append((reads[id(source)] + int(f), factor))
                    offsets[t] += offset
            starts = np.cumsum([0] + [len(s) for s in sources]).tolist()
            entries = [entry for terms in sources for entry in terms]
            self._kernel.add_write(
                k,
                list(port._vr),
                starts,
                [entry for entry, _ in entries],
                [factor for _, factor in entries],
                offsets,
            )

    def _add(self, instance: FMUInstance, offset: int, n: int) -> int:
        functions = instance.c_functions()
        self._instances.append(instance)
        if n:
            self._offsets[instance.name] = offset
        return self._kernel.add_instance(
            instance._fmi3,
            instance._handle,
            functions["SetTime"],
            functions["SetContinuousStates"],
            functions["GetDerivatives"],
            functions["GetReal"],
            functions["SetReal"],
            functions["CompletedIntegratorStep"],
            offset,
            n,
        )

    # -- evaluation and integration ----------------------------------------------------------

    def derivatives(self, time: float, x: np.ndarray, dx: np.ndarray) -> None:
        """Derivatives of the state ``x`` at ``time`` (s) into ``dx``."""
        try:
            self._kernel.derivatives(time, np.ascontiguousarray(x, dtype=float), dx)
        except _kernel.FMICallError as exc:
            raise self._fmu_error(exc, time) from None

    def rk4(
        self, t0: float, t1: float, x: np.ndarray, step: float, post: PostProcess
    ) -> tuple[float, int]:
        """Classic RK4 from ``t0`` to ``t1`` (s) in equal steps of at most ``step``; ``x`` is
        advanced in place. Returns the time reached (``t1``, or the end of the step where an
        FMU asked to terminate) and the FMUs' event flags (see :meth:`step_event`)."""
        return self._guarded(t0, self._kernel.rk4, t0, t1, x, step, post)

    def step_event(self, flags: int, time: float, x: np.ndarray) -> bool:
        """Whether the event ``flags`` of the integrator's last step, which ended at ``time``
        (s) in state ``x``, ask for event mode (a step event). Raises ``TerminationRequest``
        (with ``x``) when an FMU asked to end the run there (flag 2; the instance's index in
        the bits above)."""
        if flags & 2:
            instance = self._instances[flags >> 2]
            call = ("fmi3" if instance._fmi3 else "fmi2") + "CompletedIntegratorStep"
            request = TerminationRequest(instance.name, call, time)
            request.state = np.array(x, dtype=float)
            raise request
        return bool(flags & 1)

    def dopri_reset(self, time: float, x: np.ndarray, step: float) -> None:
        """Start the Dormand-Prince 5(4) integrator at (``time``, ``x``) with trial ``step``."""
        self._kernel.dopri_reset(time, x, step)

    def dopri_advance(
        self,
        target: float,
        stop: float,
        out: np.ndarray,
        tolerances: tuple[float, float, float],
        post: PostProcess,
        max_steps: int = 0,
    ) -> tuple[float, int]:
        """Step until ``target`` (never past ``stop``, s; at most ``max_steps`` steps if
        positive); ``out`` gets x(target) (dense output), or the state where it stopped short
        (a step event) or an FMU asked to terminate.
        ``tolerances`` = (rtol, atol, max_step). Returns (time reached, event flags)."""
        rtol, atol, max_step = tolerances
        return self._guarded(
            target,
            self._kernel.dopri_advance,
            target,
            stop,
            out,
            rtol,
            atol,
            max_step,
            post,
            max_steps,
        )

    def dopri_dense(self, time: float, out: np.ndarray) -> None:
        """``out`` = x(``time``) from the dense output of the last accepted step."""
        self._kernel.dopri_dense(time, out)

    def dopri_state(self) -> tuple[float, float]:
        """Time reached (s) and next trial step (s) of the Dormand-Prince integrator."""
        return self._kernel.dopri_state()

    def watch(self, address: int, code: Callable[[FMUInstance, str], float]) -> None:
        """Before every FMI call, store ``code(instance, method)`` in the double at ``address``
        (``method`` one of ``CALLS``): breadcrumbs for a supervisor in another process."""
        codes = [code(instance, call) for instance in self._instances for call in CALLS]
        self._kernel.watch(address, codes)

    @property
    def evaluations(self) -> int:
        """Right-hand sides evaluated so far."""
        return self._kernel.counters()[0]

    @property
    def counters(self) -> Callable[[], tuple[int, int, int]]:
        """The kernel's call that counts right-hand sides, accepted and rejected steps."""
        return self._kernel.counters

    @property
    def steps(self) -> tuple[int, int]:
        """Accepted and rejected integrator steps so far."""
        return self._kernel.counters()[1:]

    def _guarded(self, time: float, call: Callable[..., object], *args: object) -> object:
        try:
            return call(*args)
        except (_kernel.FMICallError, _kernel.DivergenceError, RuntimeError) as exc:
            raise self.step_error(exc, time) from None

    def step_error(self, exc: Exception, time: float) -> FMUError | SimulationError:
        """The error to raise for an exception of the kernel's integrators (an FMI call
        that failed near ``time`` (s), a state no longer finite, a step too small)."""
        if isinstance(exc, _kernel.FMICallError):
            return self._fmu_error(exc, time)
        if isinstance(exc, _kernel.DivergenceError):
            t, k = exc.args
            return SimulationError(
                f"state {self.state_name(k)} is no longer finite at t = {t:.6g} s (diverging run)"
            )
        return SimulationError(str(exc))

    def _fmu_error(self, exc: BaseException, time: float) -> FMUError:
        k, call, status = exc.args
        label = _STATUS[status] if 0 <= status < len(_STATUS) else str(status)
        instance = self._instances[k]
        prefix = "fmi3" if instance._fmi3 else "fmi2"
        return FMUError(
            f"{instance.name} ({instance.fmu.path.name}): {prefix}{call} returned '{label}' "
            f"near t = {time:.6g} s{instance.log.said()}"
        )

    def state_name(self, k: int) -> str:
        """Qualified name of state number ``k`` (``<instance>.<state>``)."""
        for instance in self._instances:
            offset = self._offsets.get(instance.name)
            if offset is not None and offset <= k < offset + instance.n_states:
                return f"{instance.name}.{instance.fmu.states[k - offset]}"
        return f"number {k}"
