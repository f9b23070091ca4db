"""The compiled right-hand side's signal transfers: an input set to offset + factor * output
by the kernel holds exactly that value, whether the transfer is added before the kernel's
first evaluation or after it (when the arrays of the transfers planned so far already lie in
one block, which the next plan rebuilds); and FMU instances made together are freed when one
of them cannot be made."""

from __future__ import annotations

import numpy as np
import pytest
import tomli_w

from orchestrator.errors import FMUError
from orchestrator.fmi.fmu import FMU, FMUInstance
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System
from studies.bench_swarm import swarm_document

FACTOR, OFFSET = 1000.0, 1500.0  # us per m/s, us: a PWM command made from a surge speed
SURGE = 0.3  # m/s, rov0's nu[1]


def _system(fmu_dir, tmp_path) -> tuple[System, np.ndarray]:
    path = tmp_path / "pair.toml"
    path.write_text(tomli_w.dumps(swarm_document(2, 1.0)), encoding="utf-8")
    system = System(load_scenario(path), str(path), fmu_dir)
    x = system.initialize(0.0, (0.0, 0.0, 0.0))
    x[7] = SURGE  # rov0 is the first instance with states: p, q, then nu
    return system, x


def _drive_pwm(system: System) -> None:
    """rov0_t1.pwm = OFFSET + FACTOR * rov0.nu_r[1], the signal buffer's first entry."""
    kind, vehicle, port = system._schedule[0]
    assert (kind, vehicle.name, port.names[0]) == ("read", "rov0", "nu_r[1]")
    number = [i.name for i in system.compiled._instances].index("rov0_t1")
    pwm = system.instances["rov0_t1"].fmu.variable("pwm").value_reference
    system.compiled._kernel.add_write(number, [pwm], [0, 1], [0], [FACTOR], [OFFSET])


@pytest.mark.parametrize("added", ["before", "after"])
def test_an_input_gets_offset_plus_factor_times_output(fmu_dir, tmp_path, added):
    """The transfer, added before any evaluation or after one, sets rov0_t1.pwm to
    1500 + 1000 * 0.3 us exactly; of all derivatives only that thruster's (its lagged
    rotor speed) differs from those of the system without the transfer."""
    plain_system, x = _system(fmu_dir, tmp_path)
    system, _ = _system(fmu_dir, tmp_path)
    try:
        plain, driven = np.zeros_like(x), np.zeros_like(x)
        plain_system.compiled.derivatives(0.0, x, plain)
        if added == "after":
            system.compiled.derivatives(0.0, x, driven)
            assert np.array_equal(driven, plain)
        _drive_pwm(system)
        system.compiled.derivatives(0.0, x, driven)
        speed = system.instances["rov0"].get_values(["nu_r[1]"])[0]
        assert speed == SURGE  # no current: nu_r = nu
        assert system.instances["rov0_t1"].get_values(["pwm"])[0] == OFFSET + FACTOR * speed
        lag = dict((i.name, part.start) for i, part in system._slices)["rov0_t1"]
        assert np.flatnonzero(driven != plain).tolist() == [lag]
    finally:
        plain_system.close()
        system.close()


def test_instances_made_together_are_freed_when_one_fails(fmu_dir, monkeypatch):
    """The second of three instances cannot be made (a wrong instantiation token): the error
    names it, and the first, already made, is freed; the third was never made."""
    good = FMU(fmu_dir / "LaggedThruster.fmu")
    broken = FMU(fmu_dir / "LaggedThruster.fmu")
    broken.model_description.instantiationToken = "{not-this-model}"
    freed: list[str] = []
    terminate = FMUInstance.terminate

    def watched(self: FMUInstance) -> None:
        freed.append(self.name)
        terminate(self)

    monkeypatch.setattr(FMUInstance, "terminate", watched)
    try:
        with pytest.raises(FMUError, match=r"LaggedThruster\.fmu \(second\): could not"):
            FMUInstance.together([(good, "first"), (broken, "second"), (good, "third")])
        assert freed == ["first"]
    finally:
        good.close()
        broken.close()
