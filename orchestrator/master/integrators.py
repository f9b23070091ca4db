"""Persistent integrators of the strong-coupling master.

An integrator lives for the whole run. ``reset(time, x)`` re-initialises it where an input
jumps (a controller sample, a topology change) and costs about one evaluation; ``advance``
returns the state at a target time by stepping on, never past ``stop`` (the next input jump),
and interpolating with the method's dense output, so recording points cost no restart.

- ``RK4``: classic Runge-Kutta, fixed step (compiled), each interval in equal steps.
- ``RK45``: Dormand-Prince 5(4) with error control and dense output (compiled; the same pair
  as SciPy's RK45).
- ``RK23``, ``DOP853``, ``Radau``, ``BDF``, ``LSODA``: SciPy's solvers, stepped one by one.
- ``CVODE_BDF``, ``CVODE_Adams``: SUNDIALS CVODE through scikit-sundae.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from orchestrator.errors import SimulationError
from orchestrator.fmi.fmu import TerminationRequest
from orchestrator.native.kernel import CompiledSystem, PostProcess
from orchestrator.scenario.model import Simulation

RightHandSide = Callable[[float, np.ndarray], np.ndarray]


class Integrator:
    """Common interface; ``time`` is where the integrator's own state is, ``step_event``
    whether an FMU asked for event mode after the last accepted step (a step event). An FMU
    that asks to terminate after an accepted step stops the integrator there:
    ``TerminationRequest`` with the time and state of that step's end (its dense output still
    covers the step)."""

    time: float = 0.0
    step_event: bool = False
    has_dense_output: bool = True

    def reset(self, time: float, x: np.ndarray) -> None:
        """(Re)start at (``time`` (s), ``x``): inputs may have jumped."""
        raise NotImplementedError

    def advance(self, target: float, stop: float) -> np.ndarray:
        """State at ``target`` (s), stepping no further than ``stop`` (s); stops short at a
        step event (then ``time`` < ``target`` and the state at ``time`` is returned)."""
        raise NotImplementedError

    def step(self, stop: float) -> np.ndarray:
        """One accepted step, not past ``stop`` (s); returns the state at the new ``time``."""
        raise NotImplementedError

    def dense(self, time: float) -> np.ndarray:
        """State at ``time`` (s) inside the last accepted step."""
        raise NotImplementedError

    def stepped(self, reached: float, flags: int) -> np.ndarray:
        """Finish a compiled advance (made by this integrator's call of the kernel, or by the
        master's compiled ticks on its state) that reached ``reached`` (s) with the FMUs'
        event ``flags``; returns the state there, as :meth:`advance` does."""
        raise NotImplementedError


class FixedStepRK4(Integrator):
    """Classic RK4, each interval between communication points in equal steps."""

    has_dense_output = False

    def __init__(self, compiled: CompiledSystem, step: float, post: PostProcess) -> None:
        self._compiled, self._step, self._post = compiled, step, post
        self._x = np.zeros(compiled.n_states)

    def reset(self, time: float, x: np.ndarray) -> None:
        self.time = time
        self._x[:] = x

    def advance(self, target: float, stop: float) -> np.ndarray:
        return self.stepped(*self._compiled.rk4(self.time, target, self._x, self._step, self._post))

    def stepped(self, reached: float, flags: int) -> np.ndarray:
        self.step_event = self._compiled.step_event(flags, reached, self._x)
        self.time = reached  # the target (a request to terminate raised above)
        return self._x.copy()

    def dense(self, time: float) -> np.ndarray:
        if time != self.time:
            raise ValueError("RK4 has no dense output: only the state where it stands")
        return self._x.copy()

    def kernel_steps(self) -> tuple[np.ndarray, tuple]:
        """The state the kernel steps in place and how ``_ticks.Ticks`` steps it: a reset
        is a copy into that state, an advance the kernel's ``rk4``."""
        return self._x, ("rk4", self._compiled._kernel.rk4, self._step, self._post)


class DormandPrince(Integrator):
    """Dormand-Prince 5(4), compiled, with dense output between input jumps."""

    def __init__(self, compiled: CompiledSystem, simulation: Simulation, post: PostProcess) -> None:
        self._compiled, self._post = compiled, post
        self._tolerances = (simulation.rtol, simulation.atol, simulation.step)
        self._trial_step = simulation.step
        self._started = False
        self._out = np.zeros(compiled.n_states)

    def reset(self, time: float, x: np.ndarray) -> None:
        if self._started:  # keep the step size the error control arrived at
            self._trial_step = self._compiled.dopri_state()[1]
        self._started = True
        self._compiled.dopri_reset(time, np.array(x, dtype=float), self._trial_step)
        self.time = time

    def advance(self, target: float, stop: float) -> np.ndarray:
        return self._advance(target, stop, 0)

    def step(self, stop: float) -> np.ndarray:
        return self._advance(stop, stop, 1)

    def _advance(self, target: float, stop: float, max_steps: int) -> np.ndarray:
        reached, flags = self._compiled.dopri_advance(
            target, stop, self._out, self._tolerances, self._post, max_steps
        )
        return self.stepped(reached, flags)

    def stepped(self, reached: float, flags: int) -> np.ndarray:
        self.step_event = self._compiled.step_event(flags, reached, self._out)
        self.time = reached
        return self._out.copy()

    def dense(self, time: float) -> np.ndarray:
        self._compiled.dopri_dense(time, self._out)
        return self._out.copy()

    def kernel_steps(self) -> tuple[np.ndarray, tuple]:
        """The state the kernel writes at the end of an advance and how ``_ticks.Ticks``
        steps it: a reset with the trial step error control arrived at, an advance with
        the run's tolerances."""
        kernel = self._compiled._kernel
        steps = (kernel.dopri_state, kernel.dopri_reset, kernel.dopri_advance)
        return self._out, ("dopri", *steps, self._tolerances, self._post)


class _Stepped(Integrator):
    """A solver advanced step by step from Python, with its own dense output."""

    def __init__(
        self,
        rhs: RightHandSide,
        simulation: Simulation,
        completed: Callable[[float], bool],
        names: Callable[[int], str],
    ) -> None:
        self._rhs, self._simulation = rhs, simulation
        self._completed, self._names = completed, names

    def _checked(self, time: float, x: np.ndarray) -> None:
        """Report the step to ``time`` (s) to the FMUs (a request to terminate carries ``x``)
        and check that ``x`` is finite."""
        try:
            self.step_event = self._completed(time)
        except TerminationRequest as request:
            request.state = np.array(x, dtype=float)
            raise
        if not np.all(np.isfinite(x)):
            k = int(np.flatnonzero(~np.isfinite(x))[0])
            raise SimulationError(
                f"state {self._names(k)} is no longer finite at t = {time:.6g} s (diverging run)"
            )


class SciPyMethod(_Stepped):
    """One of SciPy's ``solve_ivp`` methods, kept between recording points."""

    def __init__(
        self,
        rhs: RightHandSide,
        simulation: Simulation,
        completed: Callable[[float], bool],
        names: Callable[[int], str],
    ) -> None:
        super().__init__(rhs, simulation, completed, names)
        from scipy.integrate._ivp.ivp import METHODS

        self._method = METHODS[simulation.solver]
        self._solver = None
        self._x = None
        self._first_step = simulation.step

    def reset(self, time: float, x: np.ndarray) -> None:
        if self._solver is not None and self._solver.step_size:
            self._first_step = self._solver.step_size
        self.time, self._x, self._solver = time, np.array(x, dtype=float), None

    def _solver_to(self, stop: float) -> object:
        """The SciPy solver, (re)made where the bound of its interval changes."""
        if self._solver is None or self._solver.t_bound != stop:
            s = self._simulation
            self._solver = self._method(
                lambda t, y: self._rhs(t, y).copy(),
                self.time,
                self._x,
                stop,
                rtol=s.rtol,
                atol=s.atol,
                max_step=s.step,
                first_step=min(self._first_step, stop - self.time),
            )
        return self._solver

    def step(self, stop: float) -> np.ndarray:
        solver = self._solver_to(stop)
        message = solver.step()
        if solver.status == "failed":
            raise SimulationError(
                f"integrator {self._simulation.solver} failed at t = {solver.t:.6g} s: {message}"
            )
        self._checked(solver.t, solver.y)
        self.time, self._x = solver.t, solver.y
        return solver.y.copy()

    def advance(self, target: float, stop: float) -> np.ndarray:
        while self.time < target:
            self.step(stop)
        if self.time == target:
            return self._x.copy()
        return self.dense(target)

    def dense(self, time: float) -> np.ndarray:
        return self._solver.dense_output()(time)


class Cvode(_Stepped):
    """SUNDIALS CVODE (BDF or Adams), its internal state kept between recording points; the
    Newton iterations use ``jacobian`` where given, else CVODE's difference quotients."""

    def __init__(
        self,
        rhs: RightHandSide,
        simulation: Simulation,
        completed: Callable[[float], bool],
        names: Callable[[int], str],
        jacobian: Callable[[float, np.ndarray], np.ndarray] | None = None,
    ) -> None:
        super().__init__(rhs, simulation, completed, names)
        from sksundae.cvode import CVODE

        def rate(t: float, y: np.ndarray, yp: np.ndarray) -> None:
            yp[:] = rhs(t, y)

        def exact(t: float, y: np.ndarray, yp: np.ndarray, matrix: np.ndarray) -> None:
            matrix[:, :] = jacobian(t, y)

        self._solver = CVODE(
            rate,
            jacfn=exact if jacobian is not None else None,
            method=simulation.solver.removeprefix("CVODE_"),
            rtol=simulation.rtol,
            atol=simulation.atol,
            max_step=simulation.step,
            max_num_steps=100_000,
        )

    def reset(self, time: float, x: np.ndarray) -> None:
        self.time = time
        result = self._solver.init_step(time, np.array(x, dtype=float))
        if not result.success:
            raise SimulationError(f"CVODE could not start at t = {time:.6g} s: {result.message}")

    def _solve(self, time: float, **options: object) -> tuple[float, np.ndarray]:
        result = self._solver.step(time, **options)
        if not result.success:
            raise SimulationError(
                f"integrator {self._simulation.solver} failed at t = {float(result.t):.6g} s: "
                f"{result.message}"
            )
        return float(np.asarray(result.t).reshape(-1)[-1]), np.asarray(result.y).reshape(-1)

    def advance(self, target: float, stop: float) -> np.ndarray:
        _, y = self._solve(target, tstop=stop)
        self._checked(target, y)
        self.time = target
        return y.copy()

    def step(self, stop: float) -> np.ndarray:
        self.time, y = self._solve(stop, method="onestep", tstop=stop)
        self._checked(self.time, y)
        return y.copy()

    def dense(self, time: float) -> np.ndarray:
        return self._solve(time)[1].copy()


def make_integrator(
    simulation: Simulation,
    compiled: CompiledSystem,
    rhs: RightHandSide,
    post: PostProcess,
    completed: Callable[[float], bool],
    jacobian: Callable[[float, np.ndarray], np.ndarray] | None = None,
) -> Integrator:
    """The integrator ``simulation.solver`` names; ``jacobian`` (exact d rhs/dx, where the
    FMUs give it) serves the implicit methods."""
    if simulation.solver == "RK4":
        return FixedStepRK4(compiled, simulation.step, post)
    if simulation.solver == "RK45":
        return DormandPrince(compiled, simulation, post)
    if simulation.solver.startswith("CVODE_"):
        return Cvode(rhs, simulation, completed, compiled.state_name, jacobian)
    return SciPyMethod(rhs, simulation, completed, compiled.state_name)
