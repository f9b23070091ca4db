"""Co-Simulation FMUs inside a strongly coupled run (``orchestrator/sampled.py``): the sampled
scheme against its exact solution on a linear system, against weak coupling, on a vehicle with
Co-Simulation thrusters, a controller and a weld, and the errors of bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from foreign import spring_mass_fmu

from orchestrator.errors import ScenarioError

M1, M2, K, D0 = 1.0, 2.0, 6.0, 1.0  # kg, kg, N/m, m: initial stretch of the spring
STEP = 0.01  # s: communication step of the Co-Simulation mass


@pytest.fixture(scope="module", params=["2.0", "3.0"], ids=["FMI2", "FMI3"])
def spring_mass(request, tmp_path_factory):
    """The spring-mass FMU of FMI 2.0 and 3.0, with both interfaces."""
    folder = tmp_path_factory.mktemp("spring_mass")
    return spring_mass_fmu(folder, ("ModelExchange", "CoSimulation"), request.param)


def two_masses(fmu: str, coupling: str) -> str:
    """Mass one (no spring) steps itself (Co-Simulation); mass two, pulled towards it by a
    spring, is integrated by the master (Model Exchange)."""
    return f"""
[simulation]
stop_time = 2.0
output_interval = 0.1
solver = "RK45"
rtol = 1e-11
atol = 1e-13
step = {STEP}
{coupling}
[components.one]
fmu = "{fmu}"
interface = "co_simulation"
parameters = {{ m = {M1} }}
[components.two]
fmu = "{fmu}"
interface = "model_exchange"
parameters = {{ m = {M2}, k = {K} }}
start = {{ x = {D0} }}
[[connections]]
from = "one.x"
to = "two.x_other"
[[connections]]
from = "two.F_other"
to = "one.F"
"""


def sampled_exact(stop: float, h: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact solution of the sampled scheme at its communication points t_k = k h.

    Over [t_k, t_k+1] mass one feels the held force F_k = K (x2 - x1)(t_k): constant
    acceleration F_k / M1. Mass two feels the spring to the held x1(t_k): with
    d = x2 - x1(t_k), d'' = -w^2 d, w = sqrt(K / M2), a harmonic oscillation. Returns
    times, x1, x2.
    """
    w = math.sqrt(K / M2)
    x1, v1, x2, v2 = 0.0, 0.0, D0, 0.0
    times, ones, twos = [0.0], [x1], [x2]
    for k in range(round(stop / h)):
        a1 = K * (x2 - x1) / M1
        d = x2 - x1
        d, v2 = d * math.cos(w * h) + v2 / w * math.sin(w * h), (
            -d * w * math.sin(w * h) + v2 * math.cos(w * h)
        )
        x2 = x1 + d
        x1, v1 = x1 + v1 * h + a1 * h * h / 2, v1 + a1 * h
        times.append((k + 1) * h)
        ones.append(x1)
        twos.append(x2)
    return np.array(times), np.array(ones), np.array(twos)


def continuous_exact(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two masses coupled continuously: the stretch oscillates at sqrt(K (M1+M2)/(M1 M2))."""
    omega = math.sqrt(K * (M1 + M2) / (M1 * M2))
    centre = M2 * D0 / (M1 + M2)
    d = D0 * np.cos(omega * t)
    return centre - M2 / (M1 + M2) * d, centre + M1 / (M1 + M2) * d


def test_sampled_co_simulation_unit_is_the_exact_zero_order_hold(run, spring_mass):
    """Recorded positions equal the exact solution of the sampled scheme to 1e-8 m.

    The Co-Simulation mass integrates constant acceleration with RK4 (exact to round-off),
    the master integrates mass two with Dormand-Prince at rtol 1e-11, so 1e-8 m bounds the
    integration error over 200 steps. The continuously coupled solution differs by more than
    1e-3 m (the hold delays the coupling by up to one step), so the reference tells the
    schemes apart; so would a scheme that handed mass two the output at t_k+1.
    """
    cols, events = run(two_masses(spring_mass, ""), "strong")
    assert events[0]["detail"].startswith("solver RK45, 2 states")  # strong: only two's states
    t, x1, x2 = sampled_exact(2.0, STEP)
    at = np.searchsorted(t, cols["time"] - 1e-9)
    assert np.allclose(t[at], cols["time"], atol=1e-9)
    errors = np.abs(cols["one.x"] - x1[at]), np.abs(cols["two.x"] - x2[at])
    print(f"max error vs sampled exact: {max(e.max() for e in errors):.3g} m")
    assert max(e.max() for e in errors) < 1e-8
    c1, c2 = continuous_exact(cols["time"])
    assert max(np.abs(cols["one.x"] - c1).max(), np.abs(cols["two.x"] - c2).max()) > 1e-3


def test_sampled_units_agree_with_weak_jacobi_hold(run, spring_mass):
    """The same system under weak coupling (Jacobi, held inputs, macro step = the step of the
    sampled unit) is the same scheme with mass two integrated by 1 ms RK4: the runs agree to
    1e-8 m (RK4 error for w h = 1.7e-3 is far below that)."""
    strong, _ = run(two_masses(spring_mass, ""), "strong")
    weak_section = f"""[cosimulation]
macro_step = {STEP}
order = "jacobi"
inputs = "hold"
"""
    text = two_masses(spring_mass, weak_section).replace(f"step = {STEP}\n", "step = 0.001\n", 1)
    weak, events = run(text, "weak")
    assert "weak coupling" in events[0]["detail"]
    assert np.array_equal(strong["time"], weak["time"])
    for column in ("one.x", "two.x", "one.F", "two.x_other"):
        assert np.max(np.abs(strong[column] - weak[column])) < 1e-8, column
