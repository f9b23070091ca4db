"""Short versions of the tether studies (``python -m studies.tether_study``): the turning run
with and without tethers, and the stable RK4 step the README states for the tethered scenario;
the tethered scenario itself."""

from __future__ import annotations

import numpy as np
from conftest import ROOT

from studies.tether_study import THESIS, step_study, step_table, turning_study, turning_table


def test_turning_run_with_tethers_is_slowed_by_them(fmu_dir):
    """12 s of the turning run: the table holds Nielsen's (2018) rows and murcosim's; the tethers'
    drag and mass take speed off the assembly (the untethered run is faster at every length)."""
    rows = turning_study(fmu_dir, stop_time=12.0, lengths=(4.0, 8.0), steady=3.0)
    table = turning_table(rows)
    for label in (*THESIS, "murcosim, no tether", "murcosim, 4 m tethers", "murcosim, 8 m tethers"):
        assert f"| {label} |" in table
    free, *tethered = rows[len(THESIS) :]
    assert np.isfinite([free.span_x, free.span_y, free.speed, free.yaw_rate]).all()
    assert free.yaw_rate > 0.3  # a steady turn to starboard
    for row in tethered:
        assert row.speed < free.speed
        assert abs(row.diameter / free.diameter - 1) < 0.1


def test_tethered_scenario_rk4_limit(fmu_dir):
    """The largest stable RK4 step the README states, over the first 20 s of the tethered
    scenario: at 1.9 ms the settled tension follows the tight RK45 run within 0.1 N and the
    vehicle within 1 cm; at 2.0 ms the tension rings; RK45 finds its steps by itself."""
    rows = step_study(fmu_dir, rk4_steps=(0.0019, 0.002), adaptive=("RK45",), stop_time=20.0)
    run = {(row.solver, row.step): row for row in rows}
    assert run["RK4", 0.0019].status == "stable" and run["RK4", 0.0019].position_error < 0.01
    assert run["RK4", 0.002].status == "oscillates"
    assert run["RK45", 0.05].status == "stable" and run["RK45", 0.05].position_error < 0.01
    assert "| RK4 | 0.002 | oscillates |" in step_table(rows)


def test_tethered_station_keeping_scenario(fmu_dir):
    """The shipped scenario: after 60 s the vehicle holds within 5 cm of its set point, and
    the tether, at rest, is in equilibrium: the forces on its two ends add up to the drag of
    the current on its nodes (Morison, from the recorded node positions) and its net weight
    (1 %: the nodes' residual motion)."""
    import murcosim

    scenario = ROOT / "scenarios" / "bluerov2_heavy_tethered.toml"
    last = murcosim.run(scenario, fmu_dir=fmu_dir, progress=False).timeseries.iloc[-1]
    offset = np.array([last["rov.p[1]"] - 2.0, last["rov.p[2]"], last["rov.p[3]"] - 6.0])
    x = np.array([[last[f"tether.x[{k},{i}]"] for i in (1, 2, 3)] for k in range(1, 12)])
    ends = sum(np.array([last[f"tether.f_{e}[{i}]"] for i in (1, 2, 3)]) for e in "ab")
    print(f"offset {100 * offset} cm, tension {last['tether.tension_a']:.3f} N at the vehicle")
    assert np.linalg.norm(offset) < 0.05
    segments = np.diff(x, axis=0)
    lengths = np.linalg.norm(segments, axis=1)
    share = np.r_[lengths[0], lengths[:-1] + lengths[1:], lengths[-1]] / 2
    tangents = np.vstack([segments[0], x[2:] - x[:-2], segments[-1]])
    tangents /= np.linalg.norm(tangents, axis=1)[:, None]
    u = np.array([0.3, 0.0, 0.0])  # the scenario's current; the nodes at rest
    u_t = (tangents @ u)[:, None] * tangents
    u_n = u - u_t
    d = 0.0076
    drag = 0.5 * 1000 * d * 1.2 * share[:, None] * np.linalg.norm(u_n, axis=1)[:, None] * u_n
    drag += 0.5 * 1000 * np.pi * d * 0.01 * share[:, None] * np.abs(u_t) * u_t
    weight = (0.043 - 1000 * np.pi * d**2 / 4) * 9.81 * 8.0 * np.array([0.0, 0.0, 1.0])
    load = drag.sum(axis=0) + weight
    residual = np.linalg.norm(ends - load) / np.linalg.norm(load)
    print(f"ends {ends} N, loads {load} N, residual {residual:.1e}")
    assert residual < 0.01
