"""Constrained thrust allocation (QP) on the BlueROV2 Heavy's eight thrusters.

References are independent of the QP solver: the pseudo-inverse (exact for feasible commands),
SciPy's SLSQP on the same convex program, the null space of T computed here, and the
co-simulation with a thruster switched off.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT, scenario_error
from scipy.linalg import null_space
from scipy.optimize import Bounds, LinearConstraint, minimize

from orchestrator.controllers import make_controllers
from orchestrator.controllers.allocation import ThrustAllocation
from orchestrator.controllers.constrained_allocation import (
    T200_POWER,
    ConstrainedAllocator,
    QpoasesFallback,
    allocate_many,
    thrust_range,
)
from orchestrator.kinematics import euler_angles
from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System

PRIORITIES = (1e2, 1e2, 1e4, 1e4, 1e4, 1e4)
SINGLE = ROOT / "scenarios" / "bluerov2_heavy_single.toml"
FAILURE = ROOT / "scenarios" / "bluerov2_heavy_thruster_failure.toml"


@pytest.fixture(scope="module")
def thrusters(fmu_dir):
    """Configuration matrix, limits (N) and dead bands (N) from the scenario's thruster FMUs."""
    system = System(load_scenario(SINGLE), str(SINGLE), fmu_dir)
    x0 = system.initialize(0.0, (0.0, 0.0, 0.0))
    (alloc,) = [c for c in make_controllers(system, None, x0) if isinstance(c, ThrustAllocation)]
    bands = np.array([t.dead_band() for t in alloc.thrusters])
    yield alloc.configuration, alloc.limits, bands
    system.close()


def allocator(thrusters, rate: float = 1e6) -> ConstrainedAllocator:
    T, limits, bands = thrusters
    return ConstrainedAllocator(T, limits, bands, rate, 0.05, PRIORITIES)


def fitted_power(thrusts: np.ndarray, limits: np.ndarray) -> float:
    """The QP's power model (W): the least-squares fit a f^2 + b f per direction."""
    total = 0.0
    for u, limit in zip(thrusts, limits, strict=True):
        (a_f, b_f), (a_r, b_r) = T200_POWER.quadratic_fit(limit)
        f, r = max(u, 0.0), max(-u, 0.0)
        total += a_f * f * f + b_f * f + a_r * r * r + b_r * r
    return total


def opposed_thrust(T: np.ndarray, thrusts: np.ndarray) -> float:
    """Largest thrust (N) that every thruster of a balanced set spends against the others: for
    each null-space direction g of T whose entries share one sign, the most that can be taken
    off all of its members at once (min u_i / g_i over the support) without changing the net
    force. Zero when no such set pushes against itself."""
    worst = 0.0
    for g in null_space(T).T:
        support = np.abs(g) > 1e-9
        if not (np.all(g[support] > 0) or np.all(g[support] < 0)):
            continue
        g = g / g[support][np.argmax(np.abs(g[support]))]
        for direction in (g, -g):
            worst = max(worst, float(np.min(thrusts[support] / direction[support])))
    return worst


def test_power_curve_fit_is_close_to_the_curve():
    """The quadratic fit stays within 7 % of the full-throttle power (about 390 W) of the
    c |T|^1.5 curve over the whole range, and the curve meets its own data points."""
    limit = 52.8
    thrust = np.linspace(0, limit, 50)
    for c, (a, b) in zip(
        (T200_POWER.forward, T200_POWER.reverse), T200_POWER.quadratic_fit(limit), strict=True
    ):
        assert np.max(np.abs(a * thrust**2 + b * thrust - c * thrust**1.5)) < 0.07 * 390
    assert T200_POWER(np.array([51.5, -40.2])) == pytest.approx([390.0, 390.0])


def test_feasible_commands_are_met_at_least_power(thrusters):
    """Commands within the limits are met (heave and attitude to 1e-6 N, N.m; surge and sway
    within one dead band, which is where a thruster moved out of its band leaves its error)
    with no more fitted power than the
    pseudo-inverse, and within 0.1 % of the power SciPy's trust-region method finds for the
    same program (the dead-zone passes may move a thruster off the smooth optimum)."""
    T, limits, bands = thrusters
    fits = np.array([T200_POWER.quadratic_fit(limit) for limit in limits])  # (8, 2, 2)
    a = np.concatenate([fits[:, 0, 0], fits[:, 1, 0]])  # split z = [forward, reverse]
    b = np.concatenate([fits[:, 0, 1], fits[:, 1, 1]])
    rng = np.random.default_rng(7)
    for _ in range(5):
        tau = rng.uniform(-1, 1, 6) * [30, 30, 30, 2, 2, 3]
        u = allocator(thrusters).allocate(tau, np.zeros(8), np.ones(8, dtype=bool))
        error = T @ u - tau
        np.testing.assert_allclose(error[2:], 0.0, atol=1e-6)
        assert np.all(np.abs(error[:2]) < np.max(bands))
        assert np.all(np.abs(u) <= limits + 1e-9)
        pinv = np.linalg.pinv(T) @ tau
        assert fitted_power(u, limits) <= fitted_power(pinv, limits) + 1e-6
        reference = minimize(
            lambda z: a @ z**2 + b @ z,
            np.concatenate([np.maximum(pinv, 0), np.maximum(-pinv, 0)]),
            jac=lambda z: 2 * a * z + b,
            hess=lambda z: np.diag(2 * a),
            method="trust-constr",
            constraints=[LinearConstraint(np.hstack([T, -T]), tau, tau)],
            bounds=Bounds(0.0, np.concatenate([limits, limits])),
            options={"gtol": 1e-10, "xtol": 1e-12, "maxiter": 5000},
        )
        assert reference.success
        assert fitted_power(u, limits) <= reference.fun * 1.001


def test_saturated_command_keeps_heave_and_yaw_before_surge(thrusters):
    """Surge beyond what the thrusters give (400 N against about 150 N) with heave and yaw:
    the QP meets heave and yaw exactly and gives up surge; the uniformly scaled
    pseudo-inverse loses heave and yaw in proportion."""
    T, limits, _ = thrusters
    tau = np.array([400.0, 0.0, 60.0, 0.0, 0.0, 5.0])
    u = allocator(thrusters).allocate(tau, np.zeros(8), np.ones(8, dtype=bool))
    error = T @ u - tau
    np.testing.assert_allclose(error[1:], 0.0, atol=1e-6)
    assert error[0] < -200 and np.all(np.abs(u) <= limits + 1e-9)
    pinv = np.linalg.pinv(T) @ tau
    scaled = pinv / np.max(np.abs(pinv) / limits)
    assert (T @ scaled - tau)[2] < -20


def test_rate_limit_and_dead_zone(thrusters):
    """No thrust grows away from zero by more than rate * dt per sample, and no thrust is left
    inside the dead band (0 or at least the band's edge), for random commands large and
    small."""
    T, _, bands = thrusters
    alloc = allocator(thrusters, rate=100.0)
    rng = np.random.default_rng(3)
    previous = np.zeros(8)
    for scale in (50.0, 5.0, 1.0, 0.3):
        for _ in range(5):
            tau = rng.uniform(-1, 1, 6) * scale * np.array([1, 1, 1, 0.1, 0.1, 0.1])
            u = alloc.allocate(tau, previous, np.ones(8, dtype=bool))
            grown = np.where(u * previous > 0, np.abs(u) - np.abs(previous), np.abs(u))
            assert np.all(grown <= 100.0 * 0.05 + 1e-9)
            assert np.all((u == 0) | (np.abs(u) >= bands - 1e-9))
            previous = u


def test_failed_thruster_gives_nothing_and_the_others_cover(thrusters):
    """With t6 (a vertical) failed, heave, roll and pitch still come from the three vertical
    thrusters left (rank 3), exactly."""
    T, _, _ = thrusters
    available = np.ones(8, dtype=bool)
    available[5] = False
    tau = np.array([10.0, -5.0, 25.0, 1.0, -1.5, 0.5])
    u = allocator(thrusters).allocate(tau, np.zeros(8), available)
    assert u[5] == 0.0
    np.testing.assert_allclose(T @ u, tau, atol=1e-6)


def test_no_thrusters_push_against_each_other_holding_station(thrusters):
    """Station-keeping commands (weight-buoyancy offset, small moments): no balanced set of
    thrusters pushes against itself by more than the dead band; the old pseudo-inverse with a
    1.5 N bias did, which is what this measure detects."""
    T, limits, bands = thrusters
    alloc = allocator(thrusters, rate=400.0)
    rng = np.random.default_rng(11)
    previous = np.zeros(8)
    for _ in range(40):
        tau = rng.normal(0.0, [2.0, 2.0, 3.0, 0.2, 0.2, 0.2]) + [0, 0, -2.0, 0, 0, 0]
        u = alloc.allocate(tau, previous, np.ones(8, dtype=bool))
        assert opposed_thrust(T, u) <= np.max(bands) + 1e-9
        previous = u
    biased = np.linalg.pinv(T) @ tau
    for g in null_space(T).T:
        g = np.abs(g) / np.max(np.abs(g))
        biased = biased + max(0.0, np.max((1.5 - biased[g > 1e-9]) / g[g > 1e-9])) * g
    assert opposed_thrust(T, biased) >= 1.5 - 1e-9


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            'command = "autopilot.tau"',
            'command = "autopilot.tau"\nbias = 1.5',
            "controllers.allocation.bias: bias applies to method = 'pseudo_inverse' only",
        ),
        (
            'command = "autopilot.tau"',
            'command = "autopilot.tau"\nfailed = { t9 = 1.0 }',
            "controllers.allocation.failed: ['t9'] not thruster(s) mounted on 'rov'",
        ),
        (
            'command = "autopilot.tau"',
            'command = "autopilot.tau"\npriorities = [1, 1, 1, 0, 1, 1]',
            "controllers.allocation.priorities: expected 6 positive weights",
        ),
    ],
)
def test_bad_allocation_settings(old, new, expected, tmp_path, capsys, fmu_dir):
    error = scenario_error(SINGLE.read_text().replace(old, new), tmp_path, capsys)
    assert expected in error


@pytest.mark.slow
def test_thruster_failure_keeps_depth_and_heading(fmu_dir, tmp_path):
    """scenarios/bluerov2_heavy_thruster_failure.toml: t5 fails at 15 s. From then on t5 gets
    a neutral command and its thrust decays to zero, and the vehicle stays within 3 cm of 2 m
    depth and 1 deg of 45 deg heading (measured: 0.75 cm and 0.13 deg; in the 3 s before the
    failure 1.1 cm and 0.19 deg, so the failure is hardly seen)."""
    result = run_scenario(FAILURE, tmp_path / "fail", fmu_dir, plots=False)
    c = read_timeseries(result.timeseries)
    after = c["time"] > 15.0
    before = (c["time"] > 12.0) & ~after
    # Command neutral from 15 s; the lagged motor (0.1 s) has spun down after ten time constants.
    assert np.max(np.abs(c["t5.thrust"][c["time"] > 16.0])) < 1e-3
    depth_error = np.abs(c["rov.p[3]"] - 2.0)
    q = np.column_stack([c[f"rov.q[{i}]"] for i in range(1, 5)])
    heading = np.degrees(np.array([euler_angles(row)[2] for row in q]))
    heading_error = np.abs(heading - 45.0)
    print(
        f"depth error before {depth_error[before].max():.4f} after {depth_error[after].max():.4f}"
        f" m; heading error before {heading_error[before].max():.3f}"
        f" after {heading_error[after].max():.3f} deg"
    )
    assert depth_error[before].max() < 0.02 and heading_error[before].max() < 0.5
    assert depth_error[after].max() < 0.03 and heading_error[after].max() < 1.0


def qpoases_thrusts(solver: ConstrainedAllocator, tau, low, high) -> np.ndarray:
    """Thrusts (N) of the full program (with force errors) by qpOASES through CasADi, an
    independent active-set method started cold."""
    import casadi as ca

    n = solver.n
    qpoases = ca.conic(
        "reference",
        "qpoases",
        {"h": ca.Sparsity.dense(2 * n + 6, 2 * n + 6), "a": ca.Sparsity.dense(12, 2 * n + 6)},
        {"printLevel": "none"},
    )
    zero = np.zeros(n)
    reference = qpoases(
        h=solver.hessian,
        g=solver.gradient,
        a=solver.rows,
        lba=np.concatenate([tau, -tau]),
        uba=np.inf,
        lbx=np.concatenate([np.maximum(low, 0), np.maximum(-high, 0), np.zeros(6)]),
        ubx=np.concatenate([np.maximum(high, zero), np.maximum(-low, zero), np.full(6, np.inf)]),
    )
    z = np.asarray(reference["x"]).ravel()
    return np.clip(z[:n] - z[n : 2 * n], low, high)


@pytest.mark.parametrize("weights", [PRIORITIES, (0.5, 0.5, 2.0, 0.05, 0.05, 0.05)])
def test_exact_program_answers_only_where_it_is_the_full_programs_solution(thrusters, weights):
    """The program without force errors (hot-started across samples) is tried first: where
    the command can be met and the weights make meeting it optimal it answers, elsewhere
    (saturated commands, and commands whose exact force would cost more power than the here
    small weights of an error) the full program does. Either way the thrusts are the full
    program's (qpOASES, within 1e-7 N), and a command the reference meets is met."""
    T, limits, _ = thrusters
    solver = ConstrainedAllocator(T, limits, np.zeros(len(limits)), 200.0, 0.05, weights)
    rng = np.random.default_rng(5)
    previous = np.zeros(solver.n)
    answered = declined = 0
    for k in range(40):
        scale = 0.3 if k % 2 else 1.5  # within the limits, or beyond them
        tau = rng.uniform(-1, 1, 6) * np.array([60, 60, 60, 4, 4, 5]) * scale
        low = np.maximum(-solver.limits, np.minimum(previous, 0.0) - solver.step_limit)
        high = np.minimum(solver.limits, np.maximum(previous, 0.0) + solver.step_limit)
        reference = qpoases_thrusts(solver, tau, low, high)
        thrusts = solver.allocate_within(tau, low, high)
        np.testing.assert_allclose(thrusts, reference, atol=1e-7)
        if np.allclose(T @ reference, tau, atol=1e-6):
            answered += 1
            np.testing.assert_allclose(T @ thrusts, tau, atol=1e-7)
        else:
            declined += 1
        previous = reference
    if weights == PRIORITIES:
        assert answered >= 15 and declined >= 5, (answered, declined)
    else:  # small weights: an exact force is rarely worth its power
        assert declined >= 30, (answered, declined)


@pytest.mark.parametrize("case", ["eight", "four vertical"])
def test_first_solve_is_the_full_programs_solution(thrusters, case):
    """Without dead bands an allocation is its first solve: it equals the full program's
    solution (qpOASES, within 1e-7 N) for the eight thrusters and for the four vertical ones
    (which do not span all six degrees of freedom), on commands they meet and on commands they
    can only partly meet."""
    T, limits, _ = thrusters
    scale = np.array([40, 40, 60, 3, 3, 4])
    if case == "four vertical":
        T, limits, scale = T[:, 4:], limits[4:], np.array([0.01, 0.001, 60, 0.1, 3, 0.01])
    solver = ConstrainedAllocator(T, limits, np.zeros(len(limits)), 200.0, 0.05, PRIORITIES)
    rng = np.random.default_rng(11)
    previous = np.zeros(solver.n)
    for _ in range(30):
        tau = rng.uniform(-1, 1, 6) * scale
        low = np.maximum(-solver.limits, np.minimum(previous, 0.0) - solver.step_limit)
        high = np.minimum(solver.limits, np.maximum(previous, 0.0) + solver.step_limit)
        thrusts = solver.allocate(tau, previous, np.ones(solver.n, dtype=bool))
        np.testing.assert_allclose(thrusts, qpoases_thrusts(solver, tau, low, high), atol=1e-7)
        previous = thrusts


def test_exact_program_never_answers_what_it_does_not_meet():
    """The samples of bluerov_pair_straight's depth hold on a BlueROV's three vertical thrusters
    (no force along x and y at all), replayed: DAQP reports success on some of those programs
    without meeting them (zero thrust); the exact program's answer is refused there, and the
    allocation keeps the vehicle's vertical thrust (the full program's solution, qpOASES)."""
    data = np.load(ROOT / "tests" / "data" / "allocation_bluerov_vertical.npz")
    solver = ConstrainedAllocator(
        data["configuration"],
        data["limits"],
        data["dead_band"],
        float(data["max_rate"]),
        float(data["sample_time"]),
        tuple(data["priorities"]),
    )
    for tau, previous, available in zip(
        data["tau"], data["previous"], data["available"], strict=True
    ):
        low = np.maximum(-solver.limits, np.minimum(previous, 0.0) - solver.step_limit)
        high = np.minimum(solver.limits, np.maximum(previous, 0.0) + solver.step_limit)
        reference = qpoases_thrusts(solver, tau + solver.carried, low, high)
        thrusts = solver.allocate(tau, previous, available)
    assert np.abs(reference).max() > 1.0  # the hold needs thrust at the end of the replay
    assert np.abs(thrusts).max() > 1.0  # and gets it


def test_hot_started_daqp_agrees_with_qpoases(thrusters):
    """Each QP the allocation solves (hot-started DAQP, changing bounds and commands from
    sample to sample, saturated ones included) has the solution qpOASES (through CasADi, an
    independent active-set method started cold) finds for the same program, within 1e-7 N
    (both solve to about 1e-9)."""

    T, limits, _ = thrusters
    solver = ConstrainedAllocator(T, limits, np.zeros(len(limits)), 200.0, 0.05, PRIORITIES)
    rng = np.random.default_rng(3)
    previous = np.zeros(solver.n)
    for _ in range(40):
        tau = rng.uniform(-1, 1, 6) * [120, 120, 120, 8, 8, 10]
        low = np.maximum(-solver.limits, np.minimum(previous, 0.0) - solver.step_limit)
        high = np.minimum(solver.limits, np.maximum(previous, 0.0) + solver.step_limit)
        reference = qpoases_thrusts(solver, tau, low, high)
        ours = solver.allocate_within(tau, low, high)
        np.testing.assert_allclose(ours, reference, atol=1e-7)
        previous = ours


def test_program_daqp_cannot_solve_goes_to_qpoases():
    """A program recorded just after a docking (16 thrusters, most held at zero by the dead-zone
    passes) on which DAQP cycles: the allocation still returns a solution, the one qpOASES (an
    independent active-set solver) finds for the program, and no fault reaches the controller."""
    import daqp

    data = np.load(ROOT / "tests" / "data" / "allocation_degenerate.npz")
    solver = ConstrainedAllocator(
        data["configuration"],
        data["limits"],
        data["dead_band"],
        float(data["step_limit"]) / 0.05,
        0.05,
        tuple(data["priorities"]),
    )
    tau, low, high = data["tau"], data["low"], data["high"]
    n = solver.n
    lower = np.concatenate([np.maximum(low, 0), np.maximum(-high, 0), np.zeros(6), tau, -tau])
    upper = np.concatenate([np.maximum(high, 0), np.maximum(-low, 0), np.full(18, 1e30)])
    alone = daqp.Model()
    alone.setup(solver.hessian, solver.gradient, solver.rows, upper, lower)
    alone.settings = {"eps_prox": 0.0, "primal_tol": 1e-9}
    assert alone.solve()[2] < 1  # DAQP by itself gives no solution here
    thrusts = solver.allocate_within(tau, low.copy(), high.copy())
    assert solver.fallback.solves == 1  # DAQP's failure went to qpOASES
    z = QpoasesFallback(solver.hessian, solver.gradient, solver.rows)(lower, upper)
    np.testing.assert_allclose(thrusts, np.clip(z[:n] - z[n : 2 * n], low, high), atol=1e-12)
    assert np.all((thrusts >= low - 1e-9) & (thrusts <= high + 1e-9))


def random_vehicle(rng: np.random.Generator, condition: float, band: float) -> tuple:
    """A configuration (6 x n, n from 6 to 10 thrusters) with singular values from 1 down to
    1/``condition``, limits of 30 to 50 N and dead bands of ``band`` N."""
    n = int(rng.integers(6, 11))
    left, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    right, _ = np.linalg.qr(rng.normal(size=(n, n)))
    T = left @ np.diag(np.logspace(0, -np.log10(condition), 6)) @ right[:6]
    return T, rng.uniform(30, 50, n), np.full(n, band)


def test_many_vehicles_in_one_call_against_an_independent_solver():
    """One compiled call for 24 random vehicles (condition numbers of their configurations
    1 to 1e4; commands within and far beyond the limits; hot-started from sample to sample)
    gives each vehicle the full program's solution by qpOASES (an independent active-set
    method started cold): within 1e-7 N where the configuration is well conditioned (both
    solve to about 1e-9) and 1e-7 N times the condition number elsewhere (the force rows'
    round-off, which an ill-conditioned configuration magnifies in the thrusts)."""
    rng = np.random.default_rng(7)
    conditions = np.logspace(0, 4, 24)
    vehicles = [random_vehicle(rng, c, 0.0) for c in conditions]
    solvers = [
        ConstrainedAllocator(T, lim, band, 400.0, 0.05, PRIORITIES) for T, lim, band in vehicles
    ]
    previous = [np.zeros(s.n) for s in solvers]
    for sample in range(8):
        scale = 1.0 if sample % 2 else 8.0  # within the limits, or far beyond them
        tau = rng.uniform(-1, 1, (len(solvers), 6)) * [20, 20, 20, 2, 2, 2] * scale
        ranges = [
            thrust_range(-s.limits, s.limits, s.step_limit, p, True)
            for s, p in zip(solvers, previous, strict=True)
        ]
        low = np.concatenate([r[0] for r in ranges])
        high = np.concatenate([r[1] for r in ranges])
        thrusts, failures = allocate_many(solvers, tau, low.copy(), high.copy())
        assert not failures
        at = 0
        for k, s in enumerate(solvers):
            part = thrusts[at : at + s.n]
            reference = qpoases_thrusts(s, tau[k], *ranges[k])
            np.testing.assert_allclose(part, reference, atol=1e-7 * conditions[k], rtol=0)
            previous[k] = part
            at += s.n


def test_many_vehicles_in_one_call_are_each_vehicle_alone():
    """With dead bands (the dead-zone passes, and the force they take off carried to the next
    sample), one call for 16 random vehicles (condition numbers 1 to 1e3) gives each the
    thrusts of its own allocator sampled alone, bit for bit, over 12 samples; no free thruster
    is left inside its band; and the thrusts are the full program's solution by qpOASES for the
    command with the carried force and the bounds the passes left (within 1e-7 N times the
    condition number, as in the test above)."""
    rng = np.random.default_rng(8)
    conditions = np.logspace(0, 3, 16)
    vehicles = [random_vehicle(rng, c, 2.0) for c in conditions]
    batch = [
        ConstrainedAllocator(T, lim, band, 400.0, 0.05, PRIORITIES) for T, lim, band in vehicles
    ]
    alone = [
        ConstrainedAllocator(T, lim, band, 400.0, 0.05, PRIORITIES) for T, lim, band in vehicles
    ]
    previous = [np.zeros(s.n) for s in batch]
    pinned = 0
    for _ in range(12):
        tau = rng.uniform(-1, 1, (len(batch), 6)) * [6, 6, 6, 0.5, 0.5, 0.5]
        ranges = [
            thrust_range(-s.limits, s.limits, s.step_limit, p, True)
            for s, p in zip(batch, previous, strict=True)
        ]
        low = np.concatenate([r[0] for r in ranges])
        high = np.concatenate([r[1] for r in ranges])
        commands = tau + np.array([s.carried for s in batch])
        thrusts, failures = allocate_many(batch, tau, low, high)
        assert not failures
        at = 0
        for k, s in enumerate(alone):
            part, low_k, high_k = thrusts[at : at + s.n], low[at : at + s.n], high[at : at + s.n]
            reference = qpoases_thrusts(s, commands[k], low_k, high_k)
            np.testing.assert_allclose(part, reference, atol=1e-7 * conditions[k], rtol=0)
            np.testing.assert_array_equal(
                part, s.allocate_within(tau[k], *[r.copy() for r in ranges[k]])
            )
            np.testing.assert_array_equal(batch[k].carried, s.carried)
            inside = (part != 0) & (np.abs(part) < 2.0 - 1e-9) & (part != low_k) & (part != high_k)
            assert not inside.any()
            pinned += int((np.abs(part) == 2.0).sum() + np.any(s.carried != 0))
            previous[k] = part
            at += s.n
    assert pinned > 0  # the dead-zone passes were reached


def test_a_vehicle_whose_program_fails_gets_no_thrusts_and_the_others_go_on(monkeypatch):
    """In one call for two vehicles, the first's program is one DAQP cannot solve (recorded
    after a docking) and its fallback fails too: that vehicle gets NaN thrusts and its error,
    keeps the force it carried, and the second vehicle gets the thrusts it gets alone."""
    data = np.load(ROOT / "tests" / "data" / "allocation_degenerate.npz")
    settings = (float(data["step_limit"]) / 0.05, 0.05, tuple(data["priorities"]))
    failing = ConstrainedAllocator(
        data["configuration"], data["limits"], data["dead_band"], *settings
    )
    T, limits = data["configuration"][:, :8], data["limits"][:8]
    healthy, alone = (ConstrainedAllocator(T, limits, np.zeros(8), *settings) for _ in range(2))
    tau = np.array([data["tau"], [10.0, -5.0, 20.0, 0.5, -0.5, 1.0]])
    low = np.concatenate([data["low"], np.full(8, -20.0)])
    high = np.concatenate([data["high"], np.full(8, 20.0)])

    def unsolved(self, lower, upper):
        raise RuntimeError("thrust allocation QP failed: qpOASES stopped")

    monkeypatch.setattr(QpoasesFallback, "__call__", unsolved)
    thrusts, failures = allocate_many([failing, healthy], tau, low, high)
    assert list(failures) == [0] and "qpOASES stopped" in str(failures[0])
    assert np.isnan(thrusts[: failing.n]).all() and not failing.carried.any()
    expected = alone.allocate_within(tau[1], np.full(8, -20.0), np.full(8, 20.0))
    np.testing.assert_array_equal(thrusts[failing.n :], expected)


def test_a_command_that_is_not_finite_fails_that_vehicle_and_poisons_nothing():
    """One NaN command (an upstream sensor's NaN) fails its vehicle for that sample (NaN
    thrusts, an error naming the command) without a solve: its later samples equal those of
    an allocator that never saw it, bit for bit (before, the NaN was carried to every later
    command: NaN thrusts for good, and no failure reported), and the other vehicle of the
    call gets the thrusts it gets alone."""
    rng = np.random.default_rng(11)
    T, limits, band = random_vehicle(rng, 10.0, 2.0)
    made = [ConstrainedAllocator(T, limits, band, 400.0, 0.05, PRIORITIES) for _ in range(4)]
    hit, other, clean, other_alone = made
    n = hit.n
    for sample in range(6):
        tau = rng.uniform(-1, 1, (2, 6)) * [6, 6, 6, 0.5, 0.5, 0.5]
        given = tau.copy()
        if sample == 2:
            given[0, 3] = np.nan
        low, high = np.full(2 * n, -20.0), np.full(2 * n, 20.0)
        thrusts, failures = allocate_many([hit, other], given, low, high)
        alone = other_alone.allocate_within(tau[1], np.full(n, -20.0), np.full(n, 20.0))
        np.testing.assert_array_equal(thrusts[n:], alone)
        if sample == 2:
            assert list(failures) == [0] and "not finite" in str(failures[0])
            assert np.isnan(thrusts[:n]).all()
            continue
        assert not failures
        expected = clean.allocate_within(tau[0], np.full(n, -20.0), np.full(n, 20.0))
        np.testing.assert_array_equal(thrusts[:n], expected)
        np.testing.assert_array_equal(hit.carried, clean.carried)
