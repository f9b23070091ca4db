"""The joint signals put on the bus and the motor commands taken from it by one compiled call
each give the numbers of the calls they replace, bit for bit: angles and rates, limited
torques, the motors' accelerations and the constrained accelerations they lead to."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

from orchestrator.master.assembly import assemble
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System


@pytest.fixture
def spiral(fmu_dir):
    path = ROOT / "scenarios" / "uvms_spiral.toml"
    system = System(load_scenario(path), str(path), fmu_dir)
    yield system, assemble(system)
    system.close()


def test_joint_signals_and_motor_commands_by_one_call_each(spiral):
    system, parts = spiral
    coupling, x0 = parts.coupling, parts.x0
    rng = np.random.default_rng(7)
    names = coupling.joint_signals(x0)[0] + coupling.command_names()
    index = {name: 3 + k for k, name in enumerate(names)}  # a bus with other signals around
    for trial in range(200):
        x = x0 + rng.normal(scale=0.05, size=x0.size)
        bus = rng.normal(size=len(names) + 6)
        assert coupling.put_joint_signals(x, bus, index)
        signal_names, values = coupling.joint_signals(x)
        np.testing.assert_array_equal(bus[[index[n] for n in signal_names]], values)
        torques = rng.normal(scale=2.0, size=len(coupling.command_names()))  # some beyond 1.14
        if trial == 0:
            torques[0] = np.nan  # propagated as np.maximum and np.minimum do
        bus[[index[n] for n in coupling.command_names()]] = torques
        coupling.command(torques)
        applied, accelerations = coupling.motors.applied().copy(), coupling.motors.accelerations()
        dx = system.derivatives(0.0, x)
        coupling.compiled.kernel(x, dx)
        coupling.command(np.zeros_like(torques))
        coupling.command_from(bus, index)
        np.testing.assert_array_equal(coupling.motors.applied(), applied)
        np.testing.assert_array_equal(coupling.motors.accelerations(), accelerations)
        again = system.derivatives(0.0, x)
        coupling.compiled.kernel(x, again)
        np.testing.assert_array_equal(again, dx)
    assert np.isnan(applied).sum() == 0 and (np.abs(applied) == 1.1376).any()
