"""Short versions of the tether studies (``python -m studies.tether_study``): the turning run
with and without tethers, and the stable RK4 step the README states for the tethered scenario."""

from __future__ import annotations

import numpy as np

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
    """The largest stable RK4 step the README states: 1.1 ms runs (and agrees with the tight
    RK45 run within 1 cm), 1.2 ms diverges, over the first 10 s of the tethered scenario;
    RK45 adapts its steps to the tether's stiffness by itself."""
    rows = step_study(fmu_dir, rk4_steps=(0.0011, 0.0012), adaptive=("RK45",), stop_time=10.0)
    stable = {(row.solver, row.step): row for row in rows}
    assert stable["RK4", 0.0011].stable and stable["RK4", 0.0011].position_error < 0.01
    assert not stable["RK4", 0.0012].stable
    assert stable["RK45", 0.05].stable and stable["RK45", 0.05].position_error < 0.01
    assert "| RK4 | 0.0012 | diverges |" in step_table(rows)
