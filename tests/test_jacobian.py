"""The system Jacobian from the FMUs' directional derivatives, chained through connections,
against central difference quotients of the compiled right-hand side."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from orchestrator.jacobian import DirectionalJacobian
from orchestrator.scenario import load_scenario
from orchestrator.system import System

ROOT = Path(__file__).resolve().parents[1]


def test_directional_jacobian_matches_difference_quotients(fmu_dir):
    """BlueROV2 Heavy with eight thrusters (states of all nine FMUs, thrust into the vehicle,
    relative velocity back into the thrusters) at a random state with the thrusters running:
    every entry within 1e-6 of the central difference (its truncation and rounding error at a
    1e-6 step is about 1e-7 here)."""
    path = ROOT / "scenarios" / "bluerov2_heavy_single.toml"
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
