"""Vehicle FMUs against the independent NumPy reference and analytic solutions."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import set_and_derive
from reference import VehicleParameters, energy, vehicle_rhs

VEHICLES = [
    "GenericVehicle",
    "BlueROV",
    "BlueROV2Heavy",
    "SphereModule",
    "SphereModuleHull",
    "ConnectorBracket",
    "RexROV",
]
STATES = (
    [f"p[{i}]" for i in (1, 2, 3)]
    + [f"q[{i}]" for i in (1, 2, 3, 4)]
    + [f"nu[{i}]" for i in range(1, 7)]
)


def random_state(rng: np.random.Generator) -> np.ndarray:
    """A random state 5 m deep: below the free surface, which the reference leaves out
    (tests/validation/test_ocean_on_vehicles.py checks it)."""
    q = rng.normal(size=4)
    p = rng.normal(size=3) + np.array([0.0, 0.0, 5.0])
    return np.concatenate([p, q / np.linalg.norm(q), rng.normal(scale=0.7, size=6)])


@pytest.mark.parametrize("name", VEHICLES)
def test_derivatives_match_reference(name, fmus, instance):
    """der(x) of the FMU equals the reference at random states, forces, currents and waves
    (velocities and accelerations of the water; RexROV: a full added-mass matrix).

    Tolerance 1e-9 relative: both evaluate the same equations in double precision.
    """
    inst = instance(name)
    assert inst.fmu.states == STATES
    par = VehicleParameters.from_fmu(fmus(name))
    rng = np.random.default_rng(7)
    for _ in range(20):
        x = random_state(rng)
        tau, v_c = rng.normal(scale=20, size=6), rng.normal(scale=0.5, size=3)
        a_c, v_w, a_w = rng.normal(scale=0.3, size=(3, 3))
        inputs = {f"tau_ext[{i + 1}]": tau[i] for i in range(6)}
        for water, value in (("v_c", v_c), ("a_c", a_c), ("v_w", v_w), ("a_w", a_w)):
            inputs |= {f"{water}[{i + 1}]": value[i] for i in range(3)}
        got = set_and_derive(inst, x, inputs)
        want = vehicle_rhs(par, x, tau, v_c + v_w, a_c + a_w)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * np.max(np.abs(want)))


def test_parameters_are_settable(fmus, instance):
    """A parameter set before initialization changes the dynamics (not folded into the code)."""
    heavy = {"data.m": 20.0, "data.D_L[1]": 9.0}
    inst = instance("BlueROV2Heavy", heavy)
    par = VehicleParameters.from_fmu(fmus("BlueROV2Heavy"))
    par.m, par.D_L[0] = 20.0, 9.0
    x = random_state(np.random.default_rng(3))
    got = set_and_derive(inst, x, {})
    np.testing.assert_allclose(
        got, vehicle_rhs(par, x, np.zeros(6), np.zeros(3)), rtol=1e-9, atol=1e-12
    )
    M = inst.get_values([f"M[{i},{j}]" for i in range(1, 7) for j in range(1, 7)]).reshape(6, 6)
    M_RB, M_A = par.mass_matrix()
    np.testing.assert_allclose(M, M_RB + M_A, rtol=1e-12)


def single_body(
    fmu: str,
    stop: float,
    parameters: str = "",
    start: str = "",
    inputs: str = "",
    solver: str = "RK45",
    rtol: float = 1e-9,
    atol: float = 1e-11,
    interval: float = 0.05,
) -> str:
    """One body in unbounded water (hull_height = 0: no free surface, as in the reference;
    tests/validation/test_ocean_on_vehicles.py checks the surface)."""
    return f"""
[simulation]
stop_time = {stop}
output_interval = {interval}
solver = "{solver}"
rtol = {rtol}
atol = {atol}
step = 0.05

[components.body]
fmu = "{fmu}"
[components.body.parameters]
hull_height = 0.0
{parameters}
[components.body.start]
{start}
{inputs}
"""


def test_steady_surge_speed_is_root_of_damping_polynomial(run):
    """Constant surge force X through the centre of gravity: D_L u + D_Q u^2 = X at steady state.

    BlueROV2 Heavy coefficients with the centre of gravity and buoyancy moved to the origin
    and neutral buoyancy, so that surge decouples. Time constant ~0.4 s; after 40 s the speed
    must equal the root to 1e-7 m/s (integrator tolerance).
    """
    X = 50.0
    params = '"data.r_g[3]" = 0.0\n"data.volume" = 0.0115\n'
    cols, _ = run(single_body("BlueROV2Heavy", 40.0, params, f'"tau_ext[1]" = {X}'))
    D_L, D_Q = 4.03, 18.18
    root = (-D_L + np.sqrt(D_L**2 + 4 * D_Q * X)) / (2 * D_Q)
    assert cols["body.nu[1]"][-1] == pytest.approx(root, abs=1e-7)
    assert np.max(np.abs(cols["body.nu[2]"])) < 1e-9


def test_roll_free_decay_period_matches_linear_analysis(run):
    """Roll released from 3 deg: damped period 2 pi / (w_n sqrt(1 - zeta^2)).

    Origin at the centre of gravity with the centre of buoyancy 0.02 m above it, so roll
    decouples from sway: (I_xx + K_pdot) p_dot + K_p p + B z_gb phi = 0 for small angles.
    Quadratic damping off. The period from successive upward zero crossings must agree within
    0.2 % (3 deg is small enough that the sin(phi) nonlinearity shifts it by < 0.02 %).
    """
    params = '"data.r_g[3]" = 0.0\n"data.r_b[3]" = -0.02\n"data.volume" = 0.0115\n' + "".join(
        f'"data.D_Q[{i}]" = 0.0\n' for i in range(1, 7)
    )
    phi0 = np.radians(3.0)
    start = f'"q[1]" = {np.cos(phi0 / 2)}\n"q[2]" = {np.sin(phi0 / 2)}\n'
    cols, _ = run(single_body("BlueROV2Heavy", 30.0, params, start, interval=0.005))
    t, p = cols["time"], cols["body.nu[4]"]
    crossings = [
        t[k] - p[k] * (t[k + 1] - t[k]) / (p[k + 1] - p[k])
        for k in range(len(t) - 1)
        if p[k] < 0 <= p[k + 1]
    ]
    period = np.mean(np.diff(crossings))
    inertia = 0.16 + 0.12
    stiffness = 1000 * 9.81 * 0.0115 * 0.02
    w_n = np.sqrt(stiffness / inertia)
    zeta = 0.07 / (2 * np.sqrt(stiffness * inertia))
    assert len(crossings) >= 5
    assert period == pytest.approx(2 * np.pi / (w_n * np.sqrt(1 - zeta**2)), rel=2e-3)


def test_neutral_buoyancy_holds_position(run):
    """Generic vehicle (neutral, buoyancy centre above gravity centre) at rest stays put."""
    cols, _ = run(single_body("GenericVehicle", 60.0))
    for i in (1, 2, 3):
        assert np.max(np.abs(cols[f"body.p[{i}]"])) < 1e-12


def test_energy_and_quaternion_norm_conserved_without_damping(run, fmus):
    """Damping and current off: kinetic + hydrostatic energy is constant; |q| stays 1.

    BlueROV2 Heavy (CG below the origin, net buoyancy 2 N) released tilted and spinning.
    RK45 at rtol 1e-11 accumulates about 1.5e-7 relative energy drift over 60 s; a missing or
    wrong Coriolis or restoring term drifts by order 1. Tolerance 1e-6 relative; quaternion
    norm within 1e-9.
    """
    params = "".join(f'"data.D_L[{i}]" = 0.0\n"data.D_Q[{i}]" = 0.0\n' for i in range(1, 7))
    q = np.array([0.9, 0.3, -0.2, 0.1])
    q /= np.linalg.norm(q)
    nu = [0.3, -0.2, 0.1, 0.5, -0.4, 0.8]
    start = "".join(f'"q[{i + 1}]" = {float(q[i])!r}\n' for i in range(4))
    start += "".join(f'"nu[{i + 1}]" = {nu[i]}\n' for i in range(6))
    cols, _ = run(
        single_body("BlueROV2Heavy", 60.0, params, start, rtol=1e-11, atol=1e-13, interval=0.5)
    )
    par = VehicleParameters.from_fmu(fmus("BlueROV2Heavy"))
    par.D_L[:] = 0
    par.D_Q[:] = 0
    x = np.column_stack(
        [
            cols[f"body.{n}"]
            for n in ["p[1]", "p[2]", "p[3]", "q[1]", "q[2]", "q[3]", "q[4]"]
            + [f"nu[{i}]" for i in range(1, 7)]
        ]
    )
    e = np.array([energy(par, row) for row in x])
    assert np.ptp(e) < 1e-6 * np.max(np.abs(e))
    norm = np.linalg.norm(x[:, 3:7], axis=1)
    assert np.max(np.abs(norm - 1)) < 1e-9
    assert np.ptp(x[:, 7]) > 0.1  # the body really moved


def test_trajectory_matches_reference_under_current(run, fmus):
    """20 s with current, forces and damping: agrees with the reference integrated by SciPy."""
    from scipy.integrate import solve_ivp

    tau = np.array([20.0, -5.0, 3.0, 0.2, -0.3, 1.0])
    v_c = np.array([0.3, -0.2, 0.05])
    inputs = "".join(f'"tau_ext[{i + 1}]" = {tau[i]}\n' for i in range(6))
    cols, _ = run(
        single_body(
            "BlueROV2Heavy", 20.0, "", inputs, rtol=1e-10, atol=1e-12, interval=1.0
        ).replace(
            "[simulation]",
            f"[environment]\ncurrent = [{v_c[0]}, {v_c[1]}, {v_c[2]}]\n\n[simulation]",
        )
    )
    par = VehicleParameters.from_fmu(fmus("BlueROV2Heavy"))
    x0 = np.zeros(13)
    x0[3] = 1.0
    ref = solve_ivp(
        lambda t, x: vehicle_rhs(par, x, tau, v_c),
        (0, 20),
        x0,
        t_eval=cols["time"],
        rtol=1e-10,
        atol=1e-12,
    )
    names = ["p[1]", "p[2]", "p[3]", "q[1]", "q[2]", "q[3]", "q[4]"] + [
        f"nu[{i}]" for i in range(1, 7)
    ]
    got = np.column_stack([cols[f"body.{n}"] for n in names])
    np.testing.assert_allclose(got, ref.y.T, atol=1e-6)


@pytest.mark.parametrize(
    ("solver", "tolerance"),
    [("RK4", 1e-6), ("RK45", 1e-6), ("DOP853", 1e-6), ("LSODA", 1e-5), ("Radau", 1e-5)],
)
def test_every_solver_reproduces_the_reference(solver, tolerance, run, fmus):
    """The same 5 s forced run with each integrator (RK4 at 0.01 s, others at rtol 1e-9)."""
    from scipy.integrate import solve_ivp

    tau = np.array([15.0, 4.0, -2.0, 0.1, 0.2, -0.5])
    inputs = "".join(f'"tau_ext[{i + 1}]" = {tau[i]}\n' for i in range(6))
    text = single_body("BlueROV2Heavy", 5.0, "", inputs, solver=solver, interval=0.5)
    cols, _ = run(text.replace("step = 0.05", "step = 0.01"))
    par = VehicleParameters.from_fmu(fmus("BlueROV2Heavy"))
    x0 = np.zeros(13)
    x0[3] = 1.0
    ref = solve_ivp(
        lambda t, x: vehicle_rhs(par, x, tau, np.zeros(3)),
        (0, 5),
        x0,
        t_eval=cols["time"],
        rtol=1e-11,
        atol=1e-13,
    )
    names = ["p[1]", "p[2]", "p[3]", "q[1]", "q[2]", "q[3]", "q[4]"] + [
        f"nu[{i}]" for i in range(1, 7)
    ]
    got = np.column_stack([cols[f"body.{n}"] for n in names])
    np.testing.assert_allclose(got, ref.y.T, atol=tolerance)
