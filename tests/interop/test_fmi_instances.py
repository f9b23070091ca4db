"""Instances of one FMU share one table of FMI functions, which keeps the library loaded."""

from __future__ import annotations

import numpy as np
import pytest
from foreign import spring_mass_fmu

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
