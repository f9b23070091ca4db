"""Instances of one FMU share one table of FMI functions, which keeps the library loaded, and
run side by side in two threads as each alone."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from fmpy import extract, read_model_description
from fmpy.fmi3 import FMU3Slave
from foreign import spring_mass_fmu

from orchestrator.compiler import fmu_path
from orchestrator.fmi.fmu import FMU, FMUInstance


def oscillator(fmu: FMU, name: str) -> FMUInstance:
    """An instance with m = 1 kg, k = 4 N/m, x(0) = 1 m, initialized at t = 0."""
    instance = FMUInstance(fmu, name)
    instance.set_start_values({"k": 4.0, "x": 1.0})
    instance.initialize(0.0)
    return instance


@pytest.mark.parametrize("version", ["2.0", "3.0"])
def test_an_instance_made_after_every_other_was_freed_runs(tmp_path, version):
    """FMPy unloads an FMU's library when its last instance is freed. An instance made after
    that shares the function table of the first ones (the table keeps the library loaded, so
    its function pointers stay valid) and runs: der(v) = -k x / m = -4 m/s^2 at x = 1 m, and
    after states set at x = 0.5 m, -2 m/s^2."""
    fmu = FMU(spring_mass_fmu(tmp_path, ("ModelExchange",), version))
    try:
        first, second = oscillator(fmu, "a"), oscillator(fmu, "b")
        table = first._model._functions
        first.terminate()
        second.terminate()
        later = oscillator(fmu, "c")
        assert all(later._model._functions[n] is f for n, f in table.items())
        later.set_continuous_states(np.array([1.0, 0.0]))
        assert later.get_derivatives() == pytest.approx([0.0, -4.0], abs=1e-12)
        later.set_continuous_states(np.array([0.5, 0.0]))
        assert later.get_derivatives() == pytest.approx([0.0, -2.0], abs=1e-12)
        later.terminate()
    finally:
        fmu.close()


def test_a_reset_instance_runs_as_a_new_one(fmu_dir):
    """The project's thruster FMU reset in place (fmi3Reset) after a run with other start
    values gives, with the same start values again, the derivatives of a new instance."""
    fmu = FMU(fmu_dir / "LaggedThruster.fmu")
    try:
        fresh = FMUInstance(fmu, "fresh")
        used = FMUInstance(fmu, "used")
        used.set_start_values({"pwm": 1800.0})
        used.initialize(0.0)
        used.get_derivatives()
        assert used.reset()
        for instance in (fresh, used):
            instance.setup_experiment(0.0)
            instance.set_start_values({"pwm": 1650.0})
            instance.initialize(0.0)
        assert np.array_equal(fresh.get_derivatives(), used.get_derivatives())
        assert fresh.get_derivatives().any()  # the motor spins up towards 1650 us
        for instance in (fresh, used):
            instance.terminate()
    finally:
        fmu.close()


def _forced_vehicle(folder: str, name: str, tau: list[float]):
    """A Co-Simulation instance of the BlueROV2 Heavy (FMI 3.0) extracted into ``folder``
    (instances of one folder share one loaded library) under the constant external force
    ``tau`` (N, N m, body frame), initialized at t = 0, with its value references."""
    md = read_model_description(folder)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    instance = FMU3Slave(
        guid=md.instantiationToken,
        unzipDirectory=folder,
        modelIdentifier=md.coSimulation.modelIdentifier,
        instanceName=name,
    )
    instance.instantiate()
    instance.enterInitializationMode()
    forced = {f"tau_ext[{k + 1}]": value for k, value in enumerate(tau)}
    settings = {**forced, "solver.tolerance": 1e-12, "solver.max_step": 1e-5}
    instance.setFloat64([vr[n] for n in settings], list(settings.values()))
    instance.exitInitializationMode()
    return instance, vr


def _fly(instance, vr, steps: int, h: float) -> tuple[np.ndarray, tuple[float, float]]:
    """``steps`` communication steps of ``h`` s: the pose and velocity after each, and the
    interval of wall-clock time (s, perf_counter) the steps took."""
    names = [f"p[{k}]" for k in (1, 2, 3)] + [f"nu[{k}]" for k in range(1, 7)]
    rows = []
    start = time.perf_counter()
    for k in range(steps):
        instance.doStep(k * h, h)
        rows.append(instance.getFloat64([vr[n] for n in names]))
    return np.array(rows), (start, time.perf_counter())


def test_two_instances_stepped_in_two_threads_at_once_give_their_results_alone(fmu_dir, tmp_path):
    """The model functions' work arrays are per thread, not per instance: two instances of
    one FMU (one loaded library), forced differently and stepped by two threads at the same
    time (the FMU's doStep runs its Dormand-Prince steps in C with Python's lock released),
    give bit for bit the trajectories each gives when stepped alone. Work arrays shared by
    the instances mix the two vehicles' intermediate values (checked: this test fails with
    them)."""
    forces = ([15.0, 4.0, -2.0, 0.1, 0.2, -0.5], [-8.0, 6.0, 3.0, -0.3, 0.1, 0.4])
    steps, h = 10, 0.2  # s: 200000 internal steps (max_step 10 us), some 0.5 s of C
    folder = extract(str(fmu_path(fmu_dir, "BlueROV2Heavy", "fmi3")), str(tmp_path / "fmu"))
    alone = []
    for k, tau in enumerate(forces):
        instance, vr = _forced_vehicle(folder, f"alone{k}", tau)
        alone.append(_fly(instance, vr, steps, h)[0])
        instance.terminate()
        instance.freeInstance()
    assert not np.array_equal(alone[0], alone[1])
    pairs = [_forced_vehicle(folder, f"threaded{k}", tau) for k, tau in enumerate(forces)]
    barrier = threading.Barrier(2)
    results: list = [None, None]

    def run(k: int) -> None:
        barrier.wait()
        results[k] = _fly(*pairs[k], steps, h)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for instance, _ in pairs:
        instance.terminate()
        instance.freeInstance()
    (first, (a0, a1)), (second, (b0, b1)) = results
    assert max(a0, b0) < min(a1, b1)  # the two threads ran at the same time
    assert np.array_equal(first, alone[0])
    assert np.array_equal(second, alone[1])
