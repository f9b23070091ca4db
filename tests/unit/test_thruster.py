"""Thruster FMUs: static map, dead zone, saturation, advance loss, moments and motor lag."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import set_and_derive

K_L, K_Q, K_ADV, ARM = 0.03123, 2.52e-4, 0.0262, 0.01


def expected_thrust(pwm: float, u_a: float = 0.0) -> float:
    """Nielsen 2018, eq. 4.8/5.8 with the T-200 fit: dead zone 1500 +- 25 us, limits 1100-1900
    us."""
    w = float(np.clip(pwm, 1100, 1900)) - 1500
    if abs(w) <= 25:
        return 0.0
    return K_L * w + K_Q * abs(w) * w - K_ADV * abs(w) * u_a


OUTPUTS = ["thrust", "torque"] + [f"tau[{i}]" for i in range(1, 7)]


@pytest.mark.parametrize("pwm", [1000, 1100, 1300, 1474, 1476, 1500, 1524, 1526, 1600, 1900, 2100])
def test_static_map_dead_zone_and_saturation(pwm, instance):
    inst = instance("Thruster")
    set_and_derive(inst, np.zeros(0), {"pwm": pwm})
    thrust = inst.get_values(["thrust"])[0]
    assert thrust == pytest.approx(expected_thrust(pwm), abs=1e-12)


def test_full_command_matches_datasheet_order():
    """The fit gives 52.8 N at 1900 us, close to the T-200's published 5.1 kgf (50 N)."""
    assert expected_thrust(1900) == pytest.approx(52.81, abs=0.01)


def test_generalized_force_and_advance_loss(instance):
    """tau = [T d; r x T d - spin Q d] with the advance speed of the mount point along d."""
    r, d, spin = np.array([0.156, 0.111, 0.085]), np.array([1, -1, 0]) / np.sqrt(2), -1.0
    params = {f"position[{i + 1}]": r[i] for i in range(3)} | {
        f"direction[{i + 1}]": d[i] for i in range(3)
    }
    inst = instance("Thruster", params | {"spin": spin})
    nu_r = np.array([0.4, -0.1, 0.05, 0.2, -0.3, 0.5])
    inputs = {"pwm": 1750.0} | {f"nu_r[{i + 1}]": nu_r[i] for i in range(6)}
    set_and_derive(inst, np.zeros(0), inputs)
    got = inst.get_values(OUTPUTS)
    u_a = d @ (nu_r[:3] + np.cross(nu_r[3:], r))
    thrust = expected_thrust(1750, u_a)
    force = thrust * d
    moment = np.cross(r, force) - spin * ARM * thrust * d
    np.testing.assert_allclose(got, [thrust, ARM * thrust, *force, *moment], rtol=1e-12)
    assert u_a > 0 and thrust < expected_thrust(1750)  # moving into the flow costs thrust


def test_motor_lag_step_response(instance):
    """LaggedThruster after a command step: w(t) = w_c (1 - exp(-t/T)), T = 0.1 s."""
    from scipy.integrate import solve_ivp

    inst = instance("LaggedThruster")
    assert inst.fmu.states == ["w"]
    port = inst.port(["pwm"])
    port.values[:] = 1800.0
    inst.write(port)

    def rhs(t, w):
        inst.set_time(t)
        inst.set_continuous_states(w)
        return inst.get_derivatives().copy()

    t = np.linspace(0, 0.5, 11)
    sol = solve_ivp(rhs, (0, 0.5), [0.0], t_eval=t, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(sol.y[0], 300 * (1 - np.exp(-t / 0.1)), atol=1e-6)
