"""Rendezvous MPC: camera geometry, prediction model, distributed vs centralized, in the loop."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT, cli_error
from scipy.integrate import solve_ivp

from orchestrator.controllers.mpc.camera import Camera
from orchestrator.controllers.mpc.distributed import DistributedMPC
from orchestrator.controllers.mpc.model import PlanarModel
from orchestrator.controllers.mpc.problem import LocalProblem, Solution
from orchestrator.controllers.mpc.supervisor import DockingSupervisor
from orchestrator.controllers.rendezvous import RendezvousController, vehicle_specs
from orchestrator.kinematics import rotation_matrix
from orchestrator.recording.tables import read_events, read_timeseries
from orchestrator.runner.run import run_scenario
from orchestrator.scenario.reading import load_scenario
from studies.rendezvous_study import initial_planar_states, run_planar

MONITORING = ROOT / "scenarios" / "monitoring_rendezvous.toml"
DOCKING = ROOT / "scenarios" / "docking_mpc.toml"


def test_camera_half_planes_are_the_cone():
    """n+ . e <= 0 and n- . e <= 0 exactly when |bearing| <= alpha (random points, headings)."""
    rng = np.random.default_rng(0)
    for _ in range(500):
        camera = Camera(rng.uniform(-np.pi, np.pi), rng.uniform(0.05, 1.4))
        pose = np.concatenate([rng.normal(size=2), [rng.uniform(-4, 4)]])
        point = pose[:2] + rng.normal(size=2)
        inside = np.all(camera.normals(pose[2]) @ (point - pose[:2]) <= 0)
        assert inside == (abs(camera.bearing(pose, point)) <= camera.half_angle)
        assert (camera.violation(pose, point) == 0) == inside


def test_rk4_step_matches_the_continuous_model():
    """One RK4 step with held input against SciPy at tight tolerance: RK4's local error
    (h^5, h = 0.05 s) is below 1e-7 here."""
    model = PlanarModel()
    x0, u = np.array([1.0, -2.0, 0.3, 0.1, -0.05, 0.2]), np.array([4.0, -3.0, 1.0])
    got = model.simulate(x0, np.tile(u, (20, 1)))[-1]
    ref = solve_ivp(
        lambda t, x: np.asarray(model.derivative(x, u)).ravel(),
        (0, 1.0),
        x0,
        rtol=1e-11,
        atol=1e-12,
    )
    np.testing.assert_allclose(got, ref.y[:, -1], atol=1e-7)


def test_bad_mpc_settings_give_clear_errors(tmp_path, capsys, fmu_dir):
    cases = [
        ("sees = { v2 = 2 }", "sees = { v3 = 2 }", "cannot see unknown vehicle 'v3'"),
        ("sees = { v2 = 2 }", "sees = { v2 = 5 }", "no camera 5"),
        (
            "half_angle = 25.0 }, { mount = -110.0",
            "half_angle = 95.0 }, { mount = -110.0",
            "half_angle: Input should be less than 90",
        ),
        ("horizon = 30", "horizon = 0", "horizon: Input should be greater than or equal to 1"),
        (
            "horizon = 30",
            "horizon = 30\ncompile_nlp = 1",
            "compile_nlp: Input should be a valid boolean",
        ),
        (
            'method = "distributed"',
            'method = "centralized"\ncompile_nlp = true',
            "compiled NLP functions are made for the distributed MPC only",
        ),
    ]
    for old, new, expected in cases:
        path = tmp_path / "bad.toml"
        path.write_text(MONITORING.read_text().replace(old, new, 1))
        assert expected in cli_error(path, tmp_path, capsys)


def test_failed_solves_fall_back_and_are_logged(monkeypatch):
    """A local solve that fails keeps the previous plan (shifted), is counted and logged, and
    the vehicle does not solve again in that sample (one failing solve each, not L)."""
    config = (
        load_scenario(MONITORING)
        .controllers["rendezvous"]
        .model_copy(update={"iterations": 2, "horizon": 5})
    )
    controller = RendezvousController("rendezvous", config)
    original = LocalProblem.solve

    calls = []

    def failing(self, *args):
        calls.append(self)
        result = original(self, *args)
        return Solution(result.X, result.U, result.theta, False, 0.0, "forced failure")

    monkeypatch.setattr(LocalProblem, "solve", failing)
    q = [1.0, 0.0, 0.0, 0.0]
    measured = np.array([4.0, 3.0, *q, 0, 0, 0, 1.0, -2.0, *q, 0, 0, 0])
    out = controller.step(0.0, measured)
    assert np.all(np.isfinite(out)) and np.allclose(out[:6], 0.0)  # the resting plan: no input
    assert [kind for kind, _ in controller.events] == ["mpc_fallback", "mpc_fallback"]
    assert "1 failed solve(s)" in controller.events[0][1]
    assert len(calls) == 2  # one per vehicle


@pytest.mark.slow
def test_distributed_and_centralized_reach_the_same_rendezvous():
    """Table 8.1 on the planar model, 50 s: both controllers meet (gap < 10 cm) at points
    within 0.2 m and 5 deg of each other (the consensus cost only fixes relative poses, so the
    meeting point depends on the transient); the distributed one keeps the cameras within
    1 deg of their cones (relaxed constraints), the centralized one within 0.01 deg."""
    scenario = load_scenario(MONITORING)
    config = scenario.controllers["rendezvous"]
    initial = initial_planar_states(scenario, config)
    distributed = run_planar(config, initial, 50.0, 0.1)
    centralized = run_planar(
        config.model_copy(update={"method": "centralized", "solver": "ipopt"}), initial, 50.0, 0.1
    )
    print(f"distributed {distributed}\ncentralized {centralized}")
    assert distributed.final_gap < 0.1 and centralized.final_gap < 0.1
    assert np.linalg.norm(distributed.final_point[:2] - centralized.final_point[:2]) < 0.2
    assert abs(np.degrees(distributed.final_point[2] - centralized.final_point[2])) < 5
    assert distributed.max_violation < 1.0 and centralized.max_violation < 0.01
    assert distributed.failures == 0 and centralized.failures == 0


@pytest.mark.slow
def test_monitoring_and_rendezvous_in_the_cosimulation(fmu_dir, tmp_path):
    """Table 8.1 in the loop with the 6-DOF FMUs: v1 stays within d_max (+1 cm) of the object,
    the bearings stay inside the 25 deg cones but for an overshoot below 1 deg, the vehicles
    close from 5.8 m to below 0.3 m, and every sample's solve time is recorded (how fast it is
    belongs to the benchmarks, not to a test on a shared machine)."""
    result = run_scenario(MONITORING, tmp_path / "mr", fmu_dir, plots=False)
    c = read_timeseries(result.timeseries)
    distance = np.hypot(c["v1.p[1]"] - 6.1, c["v1.p[2]"] - 3.0)
    assert np.max(distance) < 3.01
    for name in ("v1_sees_v2", "v2_sees_v1", "v1_sees_object"):
        assert np.max(c[f"rendezvous.{name}_violation"]) < 1.0
    gap = np.hypot(c["v1.p[1]"] - c["v2.p[1]"], c["v1.p[2]"] - c["v2.p[2]"])
    assert gap[0] > 5.8 and gap[-1] < 0.3
    solve_times = c["rendezvous.v1_solve_time"][1:]
    assert np.all(np.isfinite(solve_times)) and np.all(solve_times > 0)


@pytest.mark.slow
def test_docking_scenario_ends_welded(fmu_dir, tmp_path):
    """The demo: the ports meet, the docking event welds the pair, the assembly holds station;
    the relative pose error at capture (port gap, misalignment) is inside the envelope."""
    result = run_scenario(DOCKING, tmp_path / "dock", fmu_dir, plots=True)
    events = read_events(result.events)
    docks = [e for e in events if e["event"] == "dock"]
    assert len(docks) == 1 and "leader port 2 + follower port 1" in docks[0]["detail"]
    c = read_timeseries(result.timeseries)
    t_dock = float(docks[0]["time"])
    after = c["time"] > t_dock
    assert np.max(c["dock.position_error"][after]) < 1e-9
    q_l = np.column_stack([c[f"leader.q[{i}]"] for i in range(1, 5)])
    q_f = np.column_stack([c[f"follower.q[{i}]"] for i in range(1, 5)])
    p_l = np.column_stack([c[f"leader.p[{i}]"] for i in (1, 2, 3)]) + rotation_matrix(q_l) @ [
        -0.25,
        0,
        0,
    ]
    p_f = np.column_stack([c[f"follower.p[{i}]"] for i in (1, 2, 3)]) + rotation_matrix(q_f) @ [
        0.25,
        0,
        0,
    ]
    gap = np.linalg.norm(p_l - p_f, axis=1)
    print(f"docked at {t_dock:.2f} s, final port gap {gap[-1]:.4f} m")
    assert gap[-1] < 0.05
    speed = np.hypot(c["leader.nu[1]"], c["leader.nu[2]"])
    holding = c["time"] > t_dock + 5
    # Holds station: forces below the thrusters' dead bands come as pulses at the band's edge
    # (0.94 N for a 50 ms sample), each a few mm/s on the docked pair; they rarely add up.
    assert np.median(speed[holding]) < 0.005 and np.max(speed[holding]) < 0.03
    # Constrained allocation: little thrust, and while holding station no balanced group of
    # thrusters (the four vectored ones, the four vertical ones: T g = 0 with g = 1 on the
    # group) pushes against itself by more than the dead band's edge (0.94 N).
    names = [f"{v}_t{k}.thrust" for v in ("leader", "follower") for k in range(1, 9)]
    total = np.sum([np.abs(c[n]) for n in names], axis=0)
    print(f"mean sum |thrust| {np.mean(total):.1f} N")
    assert np.mean(total) < 120.0
    for v in ("leader", "follower"):
        for group in ((1, 2, 3, 4), (5, 6, 7, 8)):
            u = np.array([c[f"{v}_t{k}.thrust"][holding] for k in group])
            opposed = np.maximum(np.min(u, axis=0), np.min(-u, axis=0))
            assert np.max(opposed) <= 0.94
    for png in ("rendezvous_trajectories.png", "rendezvous_bearings.png", "bodies_plan.png"):
        assert (tmp_path / "dock" / png).is_file()


def test_normals_along_a_trajectory_are_the_pointwise_normals():
    camera = Camera(0.3, 0.4)
    psi = np.random.default_rng(1).uniform(-4, 4, 7)
    expected = np.array([camera.normals(float(p)) for p in psi])
    np.testing.assert_array_equal(camera.normals_along(psi), expected)


def test_parallel_solves_give_the_sequential_plans():
    """The vehicles' local problems solved in threads give bit for bit the inputs, consensus
    and prices of solving them one after the other (Jacobi iterations: no solve reads another
    one of the same iteration)."""
    config = load_scenario(DOCKING).controllers["rendezvous"].model_copy(update={"horizon": 8})
    specs = vehicle_specs(config)
    runs = []
    for parallel in (False, True):
        mpc = DistributedMPC(
            specs, 8, 3, config.kappa, config.gamma, config.solver, parallel=parallel
        )
        states = {"leader": np.zeros(6), "follower": np.array([-3.0, 1.0, -0.17, 0, 0, 0])}
        reports = [mpc.step(states) for _ in range(3)]
        runs.append((reports, mpc.lam, mpc.mu))
    (sequential, lam_s, mu_s), (threaded, lam_t, mu_t) = runs
    for a, b in zip(sequential, threaded, strict=True):
        for name in a.inputs:
            np.testing.assert_array_equal(a.inputs[name], b.inputs[name])
        np.testing.assert_array_equal(a.consensus, b.consensus)
    for key in lam_s:
        np.testing.assert_array_equal(lam_s[key], lam_t[key])
    for key in mu_s:
        np.testing.assert_array_equal(mu_s[key], mu_t[key])


def test_supervisor_searches_before_the_mpc_when_both_cameras_are_blind():
    """Both partners start outside their 25 deg cones (follower 2.26 m behind, 1.13 m to port,
    yawed -9.2 deg: 26.6 and 35.8 deg off axis). The supervisor turns both vehicles in place,
    without any MPC solve, until both partners lie within half the half-angle; the next sample
    starts the MPC."""
    config = load_scenario(DOCKING).controllers["rendezvous"].model_copy(update={"horizon": 8})
    specs = vehicle_specs(config)
    supervisor = DockingSupervisor(
        DistributedMPC(specs, 8, 3, config.kappa, config.gamma, config.solver)
    )
    step = specs[0].model.step_function()
    x = {"leader": np.zeros(6), "follower": np.array([-2.26, -1.13, np.radians(-9.2), 0, 0, 0])}
    searched = 0.0  # s
    for _ in range(200):
        report = supervisor.step(x)
        if supervisor.phase == "approach":
            break
        assert sum(report.seconds.values()) == 0.0
        x = {n: np.asarray(step(x[n], report.inputs[n])).ravel() for n in x}
        searched += config.sample_time
    assert [e for e, _ in supervisor.events] == ["search", "acquired"]
    assert sum(report.seconds.values()) > 0.0  # the MPC solved at acquisition
    for spec in specs:
        for other, camera in spec.sees.items():
            bearing = spec.cameras[camera].bearing(x[spec.name], x[other])
            assert abs(bearing) <= 0.5 * spec.cameras[camera].half_angle
    assert searched < 6.0  # turning in place takes seconds, not minutes


def test_time_budget_stops_the_dual_iterations(monkeypatch):
    """With a zero budget a sample makes one dual iteration: one local solve per vehicle."""
    config = load_scenario(DOCKING).controllers["rendezvous"]
    calls = []
    original = LocalProblem.solve

    def counted(self, *args):
        calls.append(self)
        return original(self, *args)

    monkeypatch.setattr(LocalProblem, "solve", counted)
    mpc = DistributedMPC(vehicle_specs(config), 5, 4, config.kappa, config.gamma, budget=0.0)
    mpc.step({"leader": np.zeros(6), "follower": np.array([-3.0, 1.0, 0.0, 0, 0, 0])})
    assert len(calls) == 2
