"""The rendezvous MPC on its own planar model: distributed against centralized.

Both controllers run the same scenario entry in closed loop with the planar model as the
plant (no FMUs), so that only the optimization differs. Reported per method: closed-loop cost
(the centralized stage cost summed over the run), time until the rendezvous points are within
``tolerance`` of each other, largest line-of-sight violation, final agreed point and solve
times per vehicle and sample.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from orchestrator.controllers.mpc.ports import CaptureCheck, CaptureEnvelope, port_geometry
from orchestrator.controllers.mpc.supervisor import DockingSupervisor
from orchestrator.controllers.rendezvous import rendezvous_mpc, vehicle_specs
from orchestrator.kinematics import euler_angles
from orchestrator.scenario.model import RendezvousConfig, Scenario


@dataclass
class StudyResult:
    """Closed-loop outcome of one method."""

    method: str
    cost: float
    converged_at: float  # s, nan if never
    max_violation: float  # deg
    final_point: np.ndarray  # north, east, heading of the agreed rendezvous pose
    final_gap: float  # m between the vehicles' rendezvous points at the end
    solve_median: float  # s per vehicle and sample (all dual iterations)
    solve_p95: float
    failures: int
    solve_p99: float
    aborts: int = 0  # missed final approaches (docking supervisor)


def run_planar(
    config: RendezvousConfig,
    initial: dict[str, np.ndarray],
    duration: float,
    tolerance: float = 0.05,
    stop_when_met: bool = False,
    capture: CaptureEnvelope | None = None,
) -> StudyResult:
    """Closed loop of ``config`` on its planar model from ``initial`` states for ``duration`` s
    (with ``stop_when_met``, only until the rendezvous points are within ``tolerance``). With
    a ``capture`` envelope, the first two vehicles' ports meet when the coupling's docking check
    would capture them (:class:`CaptureCheck`) instead, and a supervisor learns of it."""
    specs = vehicle_specs(config)
    mpc = rendezvous_mpc(config, specs)
    check = CaptureCheck(capture) if capture else None
    aborts = 0
    step = specs[0].model.step_function()
    x = {s.name: np.asarray(initial[s.name], dtype=float) for s in specs}
    cost, violation, failures, times = 0.0, 0.0, 0, []
    converged = float("nan")
    for k in range(round(duration / config.sample_time)):
        report = mpc.step(x)
        if isinstance(mpc, DockingSupervisor):
            aborts += sum(event == "abort" for event, _ in mpc.events)
            mpc.events.clear()
        times += list(report.seconds.values())
        failures += sum(report.failures.values())
        points = {s.name: s.rendezvous_point(x[s.name]) for s in specs}
        for a, s in enumerate(specs):
            nu, u = x[s.name][3:], report.inputs[s.name]
            cost += nu @ s.W @ nu + u @ s.R @ u
            for t in specs[a + 1 :]:
                e = points[s.name] - points[t.name]
                cost += e @ s.P @ e
            for target, camera in s.sees.items():
                violation = max(violation, s.cameras[camera].violation(x[s.name], x[target]))
            if s.observe is not None:
                violation = max(
                    violation, s.cameras[s.observe.camera].violation(x[s.name], s.observe.position)
                )
        gap = max(np.linalg.norm(points[s.name][:2] - points[specs[0].name][:2]) for s in specs)
        if check:
            pair = port_geometry(specs[0], x[specs[0].name], specs[1], x[specs[1].name])
            met = check(pair) == "dock"
            if met and isinstance(mpc, DockingSupervisor):
                mpc.captured()
        else:
            met = gap < tolerance
        if np.isnan(converged) and met:
            converged = k * config.sample_time
            if stop_when_met:
                break
        x = {n: np.asarray(step(x[n], report.inputs[n])).ravel() for n in x}
    points = {s.name: s.rendezvous_point(x[s.name]) for s in specs}
    final_gap = max(np.linalg.norm(points[s.name][:2] - points[specs[0].name][:2]) for s in specs)
    return StudyResult(
        config.method,
        cost,
        converged,
        float(np.degrees(violation)),
        np.mean(list(points.values()), axis=0),
        float(final_gap),
        float(np.median(times)),
        float(np.percentile(times, 95)),
        failures,
        float(np.percentile(times, 99)),
        aborts,
    )


def initial_planar_states(scenario: Scenario, config: RendezvousConfig) -> dict[str, np.ndarray]:
    """Planar start states [N, E, psi, u, v, r] of the rendezvous vehicles from a scenario."""
    states = {}
    for v in config.vehicles:
        start = scenario.components[v.name].start
        q = np.array([start.get(f"q[{i}]", 1.0 if i == 1 else 0.0) for i in (1, 2, 3, 4)])
        heading = euler_angles(q / np.linalg.norm(q))[2]
        values = [start.get(n, 0.0) for n in ("p[1]", "p[2]")] + [heading]
        states[v.name] = np.array(values + [start.get(n, 0.0) for n in ("nu[1]", "nu[2]", "nu[6]")])
    return states


def comparison_table(results: list[StudyResult]) -> str:
    """Markdown table of the study."""
    lines = [
        "| method | closed-loop cost | gap < tol at (s) | final gap (m) "
        "| max LOS violation (deg) | rendezvous point N, E (m), heading (deg) "
        "| solve time median / p95 (ms) | failed solves |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        point = (
            f"{r.final_point[0]:.3f}, {r.final_point[1]:.3f}, {np.degrees(r.final_point[2]):.2f}"
        )
        lines.append(
            f"| {r.method} | {r.cost:.1f} | {r.converged_at:.2f} | {r.final_gap:.4f} | "
            f"{r.max_violation:.3f} | {point} | {1000 * r.solve_median:.1f} / "
            f"{1000 * r.solve_p95:.1f} | {r.failures} |"
        )
    return "\n".join(lines)
