"""Thrust allocation built from the mounted thruster FMUs."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

from orchestrator.controllers import make_controllers
from orchestrator.controllers.allocation import ThrustAllocation, ThrusterMaps
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System

# León-González et al. (2024)'s T(alpha), signs of Wu's (2018) matrix, metres.
T_SEED = np.array(
    [
        [0.707, 0.707, -0.707, -0.707, 0, 0, 0, 0],
        [-0.707, 0.707, -0.707, 0.707, 0, 0, 0, 0],
        [0, 0, 0, 0, -1, 1, 1, -1],
        [0.06, -0.06, 0.06, -0.06, -0.218, -0.218, 0.218, 0.218],
        [0.06, 0.06, -0.06, -0.06, 0.120, -0.120, 0.120, -0.120],
        [-0.1888, 0.1888, 0.1888, -0.1888, 0, 0, 0, 0],
    ]
)


@pytest.fixture
def allocation(fmu_dir):
    path = ROOT / "scenarios" / "bluerov2_heavy_single.toml"
    scenario = load_scenario(path)  # the pseudo-inverse, kept as an option
    config = scenario.controllers["allocation"].model_copy(update={"method": "pseudo_inverse"})
    scenario = scenario.model_copy(
        update={"controllers": {**scenario.controllers, "allocation": config}}
    )
    system = System(scenario, str(path), fmu_dir)
    x0 = system.initialize(0.0, (0.0, 0.0, 0.0))
    (alloc,) = [c for c in make_controllers(system, None, x0) if isinstance(c, ThrustAllocation)]
    yield alloc
    system.close()


def test_configuration_matrix_matches_seed_004(allocation):
    """Columns [d; r x d] from the BlueROV2 Heavy record equal the seed's matrix (printed to
    3-4 digits), once the shaft-torque term (spin * 0.01 m * d) is taken out."""
    T = allocation.configuration.copy()
    for k, t in enumerate(allocation.thrusters):
        T[3:, k] += t.spin * t.torque_arm * t.direction
    np.testing.assert_allclose(T, T_SEED, atol=6e-4)


def test_allocated_thrusts_realise_the_command(allocation):
    """Within the limits, the thrusts from the PWM commands give back the commanded force."""
    tau = np.array([30.0, -10.0, 15.0, 1.0, -2.0, 3.0])
    pwm = allocation.step(0.0, tau)
    thrusts = np.array(
        [t.thrust(p - t.pwm_neutral) for t, p in zip(allocation.thrusters, pwm, strict=True)]
    )
    np.testing.assert_allclose(allocation.configuration @ thrusts, tau, atol=1e-9)


def test_saturation_keeps_the_direction(allocation):
    tau = np.array([2000.0, 0, 0, 0, 0, 500.0])
    pwm = allocation.step(0.0, tau)
    assert np.all((pwm >= 1100) & (pwm <= 1900)) and np.isclose(max(abs(pwm - 1500)), 400)
    thrusts = np.array(
        [t.thrust(p - t.pwm_neutral) for t, p in zip(allocation.thrusters, pwm, strict=True)]
    )
    got = allocation.configuration @ thrusts
    assert np.dot(got, tau) / (np.linalg.norm(got) * np.linalg.norm(tau)) > 1 - 1e-9


def test_dead_zone_rounding(allocation):
    thruster = allocation.thrusters[0]
    assert thruster.pwm(0.1) == 1500.0
    edge = thruster.thrust(25.0)
    assert abs(thruster.pwm(0.9 * edge) - 1500) == pytest.approx(25.0, abs=1e-6)
    assert thruster.pwm(-10.0) < 1475


def test_thruster_maps_of_many_thrusters_equal_each_thruster_alone(allocation):
    """ThrusterMaps over the vehicle's thrusters, some not available: the PWM of each equals
    its own ThrusterModel.pwm bit for bit (neutral when not available), and the realized
    thrusts are K_L o + K_Q |o| o at the offset o from neutral (none inside the dead zone),
    inverting the PWM map to 1e-9 N outside the dead band."""
    thrusters = allocation.thrusters
    maps = ThrusterMaps(thrusters)
    rng = np.random.default_rng(11)
    for _ in range(200):
        thrusts = rng.uniform(-60.0, 60.0, len(thrusters)) * rng.choice([0.01, 1.0])
        available = rng.uniform(size=len(thrusters)) > 0.2
        pwm = maps.pwm(thrusts, available)
        alone = [
            t.pwm(u) if on else t.pwm_neutral
            for t, u, on in zip(thrusters, thrusts, available, strict=True)
        ]
        np.testing.assert_array_equal(pwm, alone)
        realized = maps.realized(pwm)
        for t, u, p, r, on in zip(thrusters, thrusts, pwm, realized, available, strict=True):
            offset = p - t.pwm_neutral
            expected = t.K_L * offset + t.K_Q * abs(offset) * offset
            assert r == (expected if abs(offset) > t.dead_zone else 0.0)
            if on and abs(u) > t.dead_band():
                assert r == pytest.approx(u, abs=1e-9)
            if not on:
                assert r == 0.0
