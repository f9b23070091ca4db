"""The system Jacobian from the FMUs' directional derivatives, chained through connections,
against central difference quotients of the compiled right-hand side."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tomli_w

from orchestrator.master.jacobian import DirectionalJacobian
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System

ROOT = Path(__file__).resolve().parents[2]


def single_vehicle(folder: Path, sampled: bool) -> Path:
    """``bluerov2_heavy_single``; with ``sampled``, its eight thrusters run through the FMI 3.0
    Co-Simulation interface (units sampled by the master, outputs held between steps)."""
    import tomllib

    document = tomllib.loads((ROOT / "scenarios" / "bluerov2_heavy_single.toml").read_text())
    if sampled:
        for name in [f"t{k}" for k in range(1, 9)]:
            document["components"][name].update(
                fmu="fmi3/LaggedThruster", interface="co_simulation"
            )
    path = folder / "single.toml"
    path.write_text(tomli_w.dumps(document))
    return path


@pytest.mark.parametrize("sampled", [False, True], ids=["all_me", "cs_thrusters"])
def test_directional_jacobian_matches_difference_quotients(fmu_dir, tmp_path, sampled):
    """BlueROV2 Heavy with eight thrusters (states of all nine FMUs, thrust into the vehicle,
    relative velocity back into the thrusters) at a random state with the thrusters running:
    every entry within 1e-6 of the central difference (its truncation and rounding error at a
    1e-6 step is about 1e-7 here). With the thrusters as Co-Simulation units their held thrust is a
    constant of the vehicle's right-hand side."""
    path = single_vehicle(tmp_path, sampled)
    scenario = load_scenario(path)
    system = System(scenario, str(path), fmu_dir)
    try:
        rng = np.random.default_rng(0)
        x = system.initialize(0.0, scenario.environment.current)
        x = x + 0.1 * rng.normal(size=x.size)
        index = system.state_index()
        q = [index[f"rov.q[{i}]"] for i in (1, 2, 3, 4)]
        x[q] /= np.linalg.norm(x[q])
        for instance in system.instances.values():
            if "pwm" in instance.fmu.variables:
                port = instance.port(["pwm"])
                port.values[:] = 1550 + 300 * rng.random()
                instance.write(port)
        assert len(system.sampled) == (8 if sampled else 0)
        assert DirectionalJacobian.available(system)
        jacobian = DirectionalJacobian(system)(0.0, x)
        quotients = np.zeros_like(jacobian)
        for j in range(x.size):
            h = 1e-6 * max(1.0, abs(x[j]))
            up, down = x.copy(), x.copy()
            up[j] += h
            down[j] -= h
            quotients[:, j] = (
                system.derivatives(0.0, up).copy() - system.derivatives(0.0, down)
            ) / (2 * h)
        assert np.abs(jacobian).max() > 1.0  # a real matrix, not zeros
        assert np.abs(jacobian - quotients).max() < 1e-6
    finally:
        system.close()
