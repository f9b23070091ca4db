"""A Model Exchange FMU integrated by SciPy through FMPy's FMI calls, inputs held constant.

FMPy's own Model Exchange simulation integrates with CVODE, which on MurCoSim's links needs
more steps than it allows at the tight tolerances a replay within 1e-6 needs; this replay keeps
FMPy's FMI 2.0 / 3.0 call layer and integrates with SciPy's DOP853 (rtol 1e-12, atol 1e-12),
an integrator independent of murcosim's.
"""

from __future__ import annotations

import ctypes

import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Model
from fmpy.fmi3 import FMU3Model
from scipy.integrate import solve_ivp


def replay_me(path: str, inputs: dict[str, float], outputs: list[str], times: np.ndarray):
    """The ``outputs`` (any variables) of the FMU at ``times`` (s), inputs held at ``inputs``."""
    md = read_model_description(path)
    refs = {v.name: v.valueReference for v in md.modelVariables}
    fmi3 = md.fmiVersion.startswith("3")
    cls = FMU3Model if fmi3 else FMU2Model
    fmu = cls(
        guid=md.guid,
        unzipDirectory=extract(path),
        modelIdentifier=md.modelExchange.modelIdentifier,
        instanceName="replay",
    )
    fmu.instantiate()
    if fmi3:
        fmu.enterInitializationMode(startTime=float(times[0]))
    else:
        fmu.setupExperiment(startTime=float(times[0]))
        fmu.enterInitializationMode()
    setter = fmu.setFloat64 if fmi3 else fmu.setReal
    getter = fmu.getFloat64 if fmi3 else fmu.getReal
    if inputs:
        setter([refs[n] for n in inputs], list(inputs.values()))
    fmu.exitInitializationMode()
    if fmi3:
        fmu.updateDiscreteStates()
    else:
        fmu.newDiscreteStates()
    fmu.enterContinuousTimeMode()
    n = md.numberOfContinuousStates
    x, dx = np.zeros(n), np.zeros(n)
    x_ptr = x.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    dx_ptr = dx.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    derivatives = fmu.getContinuousStateDerivatives if fmi3 else fmu.getDerivatives
    fmu.getContinuousStates(x_ptr, n)

    def rhs(t: float, state: np.ndarray) -> np.ndarray:
        fmu.setTime(t)
        x[:] = state
        fmu.setContinuousStates(x_ptr, n)
        derivatives(dx_ptr, n)
        return dx.copy()

    trajectory = solve_ivp(
        rhs, (times[0], times[-1]), x.copy(), "DOP853", times, rtol=1e-12, atol=1e-12
    )
    columns = {name: np.empty(len(times)) for name in outputs}
    vrs = [refs[name] for name in outputs]
    for k, t in enumerate(times):
        rhs(t, trajectory.y[:, k])
        for name, value in zip(outputs, getter(vrs), strict=True):
            columns[name][k] = value
    fmu.terminate()
    fmu.freeInstance()
    return columns
