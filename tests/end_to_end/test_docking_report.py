"""Figures of merit of a docking run, read back from a results folder written here."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from conftest import ROOT

from orchestrator.analysis.docking_report import docking_report, report_table
from orchestrator.recording.tables import EventLog, TimeseriesWriter


def test_report_of_a_written_results_folder(tmp_path):
    """Leader at the origin heading north, its stern port 0.25 m aft; follower 0.6 m behind,
    yawed 2 deg, its bow port 0.25 m ahead: gap |(-0.25, 0) - (-0.35 + 0.25 (cos 2 - 1),
    0.25 sin 2)| and 2 deg misalignment at the end. Two thrusters at |thrust| 1 and 2 N, then
    3 and 4 N: mean sum 5 N. Solve times 1 and 3 ms, then a sample without a solve (0, a
    supervisor phase other than the MPC's): median 2 ms, largest 3 ms."""
    shutil.copy(ROOT / "scenarios" / "docking_mpc.toml", tmp_path / "scenario.toml")
    yaw = np.radians(2.0)
    columns = [f"{v}.{s}" for v in ("leader", "follower") for s in ("p[1]", "p[2]")]
    columns += [f"{v}.q[{i}]" for v in ("leader", "follower") for i in range(1, 5)]
    columns += ["a.thrust", "b.thrust"]
    columns += [f"rendezvous.{v}_solve_time" for v in ("leader", "follower")]
    writer = TimeseriesWriter(tmp_path / "timeseries.csv", columns)
    follower_q = [np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)]
    for k, thrusts in enumerate(([1.0, -2.0], [3.0, -4.0], [-3.0, 4.0])):
        values = [0.0, 0.0, -0.6, 0.0, 1.0, 0.0, 0.0, 0.0, *follower_q, *thrusts]
        solve = (1e-3, 3e-3, 0.0)[k]
        values += [solve, solve]
        writer.write(0.1 * k, np.array(values))
    writer.close()
    events = EventLog(tmp_path / "events.csv")
    events.log(0.0, "start", "solver RK45")
    events.log(0.1, "dock", "dock: leader port 2 + follower port 1")
    events.log(0.2, "stop", "3 right-hand-side evaluations, 0 controller fault(s), 1.5 s wall time")
    events.close()
    report = docking_report(tmp_path)
    port_f = np.array([-0.6 + 0.25 * np.cos(yaw), 0.25 * np.sin(yaw)])
    assert report.dock_time == pytest.approx(0.1)
    assert report.final_gap == pytest.approx(np.linalg.norm(port_f - [-0.25, 0.0]), abs=1e-12)
    assert report.final_misalignment == pytest.approx(2.0, abs=1e-9)
    assert report.mean_total_thrust == pytest.approx((3 + 7 + 7) / 3)
    assert report.solve_ms["leader"][0] == pytest.approx(2.0)
    assert report.solve_ms["follower"][2] == pytest.approx(3.0)
    assert report.wall_time == pytest.approx(1.5)
    assert "| 0.10 |" in report_table(report)
