"""Docking supervisor near the ports: final approach, abort and retry, on the planar model and
in the co-simulation."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT, cli_error

from orchestrator.controllers.mpc.final_approach import VELOCITY_RATE, track
from orchestrator.controllers.mpc.ports import CaptureCheck, CaptureEnvelope, port_geometry
from orchestrator.controllers.mpc.supervisor import DockingSupervisor
from orchestrator.controllers.rendezvous import rendezvous_mpc, vehicle_specs
from orchestrator.recording.tables import read_events
from orchestrator.runner.run import run_scenario
from orchestrator.scenario.reading import load_scenario
from studies.docking_study import Case, StartRanges, run_cosim_cases, success_table

DOCKING = ROOT / "scenarios" / "docking_mpc.toml"
CONFIG = load_scenario(DOCKING).controllers["rendezvous"]
LEADER = np.zeros(6)  # at the origin heading north; its stern port at (-0.25, 0)


def follower_at(gap: float, lateral: float = 0.0, yaw_deg: float = 0.0, u: float = 0.0):
    """Follower state with its bow port ``gap`` m behind the leader's stern port, ``lateral``
    m to the east of the axis, yawed ``yaw_deg`` and moving ahead at ``u`` m/s."""
    yaw = np.radians(yaw_deg)
    port = np.array([-0.25 - gap, lateral])
    centre = port - 0.25 * np.array([np.cos(yaw), np.sin(yaw)])
    return np.array([centre[0], centre[1], yaw, u, 0.0, 0.0])


def closed_loop(supervisor, follower, seconds, push=None):
    """Run the pair on the planar model until the coupling's check captures (or ``seconds``);
    ``push(phase_time, x)`` may disturb the follower's state. Returns the capture time (s,
    nan if none), the check's outcomes and the port geometries along the way."""
    specs = list(supervisor.mpc.specs.values())
    step = specs[0].model.step_function()
    check = CaptureCheck(supervisor.envelope)
    x = {"leader": LEADER.copy(), "follower": follower}
    outcomes, path = [], []
    for k in range(round(seconds / CONFIG.sample_time)):
        report = supervisor.step(x)
        g = port_geometry(specs[0], x["leader"], specs[1], x["follower"])
        path.append((supervisor.phase, g))
        outcome = check(g)
        if outcome:
            outcomes.append(outcome)
        if outcome == "dock":
            supervisor.captured()
            return k * CONFIG.sample_time, outcomes, path
        x = {n: np.asarray(step(x[n], report.inputs[n])).ravel() for n in x}
        if push:
            push(supervisor, x)
    return float("nan"), outcomes, path


def supervisor(**settings) -> DockingSupervisor:
    config = CONFIG.model_copy(update={"supervisor": CONFIG.supervisor.model_copy(update=settings)})
    return rendezvous_mpc(config, vehicle_specs(config))


def test_velocity_loop_matches_the_sampled_first_order_response():
    """Surge from rest to 0.1 m/s on Table 8.1's model (M 10, D 30 per axis): with the force
    held over 50 ms the error shrinks per sample by exp(-a dt) - (1 - exp(-a dt)) k / a,
    a = D / M, exactly for this linear plant; RK4 of the 50 ms step is accurate to ~1e-7."""
    spec = vehicle_specs(CONFIG)[1]
    step = spec.model.step_function()
    a, dt = 3.0, CONFIG.sample_time
    factor = np.exp(-a * dt) - (1 - np.exp(-a * dt)) * VELOCITY_RATE / a
    x = np.zeros(6)
    for n in range(1, 21):
        x = np.asarray(step(x, track(spec, x, np.array([0.1, 0.0]), 0.0))).ravel()
        assert x[3] == pytest.approx(0.1 * (1 - factor**n), abs=1e-6)
    assert abs(x[4]) < 1e-12 and abs(x[5]) < 1e-12


def test_final_approach_closes_slowly_aligned_and_is_captured():
    """From inside the final zone (0.45 m, 3 cm off the axis: 3.8 deg, yawed 3 deg) the
    follower closes at the set 0.1 m/s, a third of the capture speed, while the offset and the
    misalignment decay at 1/s: at contact both are far inside the envelope. No MPC solve."""
    sup = supervisor()
    t, outcomes, path = closed_loop(sup, follower_at(0.45, 0.03, 3.0), 15.0)
    assert [e for e, _ in sup.events] == ["final_approach", "captured"]
    assert outcomes == ["dock"]
    closing = np.array([g.closing for _, g in path])
    assert closing.max() <= 0.1 + 2e-3  # the velocity loop does not overshoot (factor > 0)
    contact = path[-1][1]
    assert contact.closing == pytest.approx(0.1, abs=2e-3)
    assert abs(contact.lateral) < 1e-3 and abs(np.degrees(contact.misalignment)) < 0.1
    # 0.40 m to go at 0.1 m/s, plus the velocity loop's start from rest (about 0.3 s)
    assert 4.0 < t < 4.8


def test_too_fast_start_is_rejected_backed_off_retried_and_docked():
    """The follower starts 0.3 m from the leader's port closing at 1.5 m/s: the final
    approach brakes at its force limit but arrives at 0.6 m/s, which the coupling rejects.
    The supervisor aborts, backs off to the 1 m stand-off, approaches again and docks."""
    sup = supervisor()
    t, outcomes, path = closed_loop(sup, follower_at(0.3, u=1.5), 40.0)
    events = [e for e, _ in sup.events]
    assert events == ["final_approach", "abort", "retry", "final_approach", "captured"]
    assert "faster than 0.3 m/s" in sup.events[1][1]
    assert outcomes == ["dock_rejected", "dock"]
    retry = next(k for k, (phase, _) in enumerate(path) if phase == "approach")
    assert path[retry][1].axial >= 1.0
    assert path[-1][1].closing <= 0.3 and np.isfinite(t)


@pytest.mark.parametrize(
    ("push", "reason"),
    [((4, 1.0), "lateral offset"), ((5, 0.8), "misaligned by")],
    ids=["sideways push 1 m/s", "yaw kick 0.8 rad/s"],
)
def test_a_disturbed_final_approach_aborts_and_the_retry_docks(push, reason):
    """1 s into the first final approach the follower is pushed (its sway velocity or yaw
    rate jumps): the lateral offset or the misalignment leaves its limit, the supervisor
    aborts, backs off, approaches again and docks."""
    sup = supervisor()
    pushed = []

    def disturb(s, x):
        if s.phase == "final" and s.elapsed >= 1.0 and not pushed:
            x["follower"][push[0]] += push[1]
            pushed.append(True)

    t, outcomes, _ = closed_loop(sup, follower_at(0.45), 60.0, disturb)
    events = [e for e, _ in sup.events]
    assert events == ["final_approach", "abort", "retry", "final_approach", "captured"]
    assert reason in sup.events[1][1]
    assert outcomes == ["dock"] and np.isfinite(t)


def test_no_capture_in_time_aborts_until_the_retries_are_used_up():
    """A final approach limited to 1 s cannot close 0.45 m at 0.1 m/s: it times out, the
    one retry times out again, and the docking fails."""
    sup = supervisor(final_time=1.0, retries=1)
    t, outcomes, _ = closed_loop(sup, follower_at(0.45), 40.0)
    events = [e for e, _ in sup.events]
    assert events == ["final_approach", "abort", "retry", "final_approach", "docking_failed"]
    assert "no capture within 1 s" in sup.events[1][1]
    assert "after 1 retries" in sup.events[-1][1]
    assert np.isnan(t) and outcomes == []


def test_retries_used_up_end_in_docking_failed_and_station_keeping():
    """With no retry allowed the rejected contact ends the docking; both vehicles then hold
    the rendezvous points they had at that moment (within 1 cm after 10 s, nearly at rest)."""
    sup = supervisor(retries=0)
    specs = list(sup.mpc.specs.values())
    step = specs[0].model.step_function()
    x = {"leader": LEADER.copy(), "follower": follower_at(0.3, u=1.5)}
    for _ in range(round(12.0 / CONFIG.sample_time)):
        report = sup.step(x)
        x = {n: np.asarray(step(x[n], report.inputs[n])).ravel() for n in x}
    assert [e for e, _ in sup.events] == ["final_approach", "docking_failed"]
    assert sup.phase == "failed"
    for spec in specs:
        held = sup.held[spec.name]
        here = spec.rendezvous_point(x[spec.name])
        assert np.linalg.norm(here[:2] - held[:2]) < 0.01
        assert np.max(np.abs(x[spec.name][3:])) < 1e-3


def test_capture_check_mirrors_the_coupling():
    """Inside the envelope: dock; too fast: rejected, then disarmed until twice the capture
    distance apart; misaligned beyond the capture angle: nothing."""
    specs = vehicle_specs(CONFIG)
    check = CaptureCheck(CaptureEnvelope())

    def geometry(gap, u=0.0, yaw=0.0):
        return port_geometry(specs[0], LEADER, specs[1], follower_at(gap, yaw_deg=yaw, u=u))

    assert check(geometry(0.04, u=0.5)) == "dock_rejected"
    assert check(geometry(0.04, u=0.1)) is None  # disarmed
    assert check(geometry(0.11)) is None  # re-armed beyond 0.1 m
    assert check(geometry(0.04, yaw=11.0)) is None
    assert check(geometry(0.04, u=0.1)) == "dock"


def test_bad_supervisor_settings_give_clear_errors(tmp_path, capsys, fmu_dir):
    cases = [
        (
            "closing_speed = 0.1",
            "closing_speed = 0.4",
            "supervisor.closing_speed: expected less than capture_speed",
        ),
        (
            "standoff = 1.0",
            "standoff = 0.3",
            "supervisor.standoff: expected more than final_distance",
        ),
        (
            "retries = 3",
            "retries = -1",
            "supervisor.retries: Input should be greater than or equal to 0",
        ),
        (
            'method = "distributed"',
            'method = "centralized"',
            "supervisor: the supervisor runs around the distributed MPC only",
        ),
    ]
    for old, new, expected in cases:
        path = tmp_path / "bad.toml"
        path.write_text(DOCKING.read_text().replace(old, new, 1))
        message = cli_error(path, tmp_path, capsys)
        assert expected in message and "bad.toml" in message


def test_cosimulation_rejected_contact_is_retried_and_docked(fmu_dir, tmp_path):
    """The demo's follower starts 0.3 m from the leader's port closing at 1.5 m/s: the
    coupling rejects the contact (dock_rejected), the supervisor backs off and retries, and
    the second final approach docks within the capture speed."""
    text = DOCKING.read_text().replace(
        'start = { "p[1]" = -3.0, "p[2]" = 1.0, "p[3]" = 1.0, "q[1]" = 0.9961946980917455, '
        '"q[4]" = -0.08715574274765817 }',
        'start = { "p[1]" = -0.8, "p[2]" = 0.0, "p[3]" = 1.0, "nu[1]" = 1.5 }',
    )
    text = text.replace("stop_time = 60.0", "stop_time = 30.0")
    path = tmp_path / "fast_start.toml"
    path.write_text(text)
    result = run_scenario(path, tmp_path / "out", fmu_dir, plots=False)
    events = [(e["event"], e["detail"]) for e in read_events(result.events)]
    kinds = [k for k, _ in events]
    assert "dock_rejected" in kinds and "abort" in kinds and "retry" in kinds
    assert kinds.index("abort") < kinds.index("retry") < kinds.index("dock")
    dock = next(d for k, d in events if k == "dock")
    closing = float(dock.split("closing ")[1].split(" m/s")[0])
    assert closing <= 0.3
    assert kinds[kinds.index("dock") + 1 :].count("abort") == 0


def test_success_table_counts_docks_blind_starts_and_aborts():
    """Three cases: docked at 10 s (both out of view), at 20 s after an abort, not docked.
    Dock times min / median / p90 / max 10 / 15 / 19 / 20 s (linear interpolation); solve
    medians 1, 2, 3 ms: their median 2 ms; largest p99 9 ms."""
    cases = [
        Case(np.zeros(3), True, 10.0, 1e-3, 4e-3, 0),
        Case(np.zeros(3), False, 20.0, 2e-3, 9e-3, 1),
        Case(np.zeros(3), False, float("nan"), 3e-3, 5e-3, 0),
    ]
    row = success_table(cases, 7, 60.0).splitlines()[-1]
    assert (
        row
        == "| 3 | 7 | 2 (67 %, within 60 s) | 10.0 / 15.0 / 19.0 / 20.0 | 1 of 1 | 1 | 2.0 / 9.0 |"
    )


def test_success_table_leaves_out_cases_without_solve_times():
    """A co-simulated case that stopped early (a failed run) has no solve times: the solve
    columns summarize the others; with none left they read "-"."""
    stopped = Case(np.zeros(3), False, float("nan"), float("nan"), float("nan"), 0)
    docked = Case(np.zeros(3), False, 12.0, 3e-3, 7e-3, 0)
    assert success_table([docked, stopped], 1, 60.0).endswith("| 0 | 3.0 / 7.0 |")
    assert success_table([stopped], 1, 60.0).endswith("| 0 | - |")


@pytest.mark.slow
def test_cosimulation_study_runs_the_planar_studys_starts(fmu_dir, tmp_path):
    """One co-simulated case of the docking study: its start is the planar study's first draw
    (north, east, yaw uniform in -7..-2 m, -3..3 m, -60..60 deg from NumPy's default generator,
    seed 1) and it docks."""
    cases = run_cosim_cases(
        DOCKING, "rendezvous", 1, 1, StartRanges(), tmp_path / "study", fmu_dir, lambda _: None
    )
    draw = np.random.default_rng(1).uniform([-7.0, -3.0, -60.0], [-2.0, 3.0, 60.0])
    np.testing.assert_allclose(cases[0].start, draw, rtol=1e-12)
    assert np.isfinite(cases[0].dock_time) and cases[0].dock_time < 60.0
