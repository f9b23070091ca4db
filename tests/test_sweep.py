"""Randomized batches (``orchestrator/sweep.py``): the drawn start values, the table, errors."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from orchestrator.errors import ScenarioError
from orchestrator.kinematics import euler_angles
from orchestrator.sweep import Variation, _start_values, run_sweep

SCENARIO = """
[simulation]
stop_time = 0.2

[components.rov]
fmu = "GenericVehicle"
start = { "p[3]" = 1.0 }
"""


def test_yaw_is_a_level_attitude_with_that_heading():
    q = np.array(list(_start_values([Variation.parse("rov.yaw=-30:30")], [20.0])["rov"].values()))
    np.testing.assert_allclose(np.degrees(euler_angles(q)), [0.0, 0.0, 20.0], atol=1e-12)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rov.p[1]", r"--vary 'rov.p\[1\]': expected COMPONENT.VARIABLE=LOW:HIGH"),
        ("rov.p[1]=2:1", r"--vary 'rov.p\[1\]=2:1': LOW must not exceed HIGH"),
    ],
)
def test_bad_variation_is_one_clear_error(text, expected):
    with pytest.raises(ScenarioError, match=expected):
        Variation.parse(text)


def test_sweep_table_holds_every_draw_within_its_range(tmp_path, fmu_dir):
    """Three short runs in parallel: one row each, seeded draws inside the bounds, the outcome
    of a scenario without docking ("not docked"), each run's own results folder."""
    scenario = tmp_path / "one.toml"
    scenario.write_text(SCENARIO)
    variations = [Variation.parse("rov.p[1]=-2:-1"), Variation.parse("rov.yaw=-10:10")]
    table = run_sweep(scenario, variations, 3, 7, tmp_path / "sweep", fmu_dir)
    rows = list(csv.DictReader(table.open()))
    assert [r["run"] for r in rows] == ["0", "1", "2"]
    for row in rows:
        assert -2.0 <= float(row["rov.p[1]"]) <= -1.0
        assert -10.0 <= float(row["rov.yaw"]) <= 10.0
        assert row["outcome"] == "not docked"
        assert (tmp_path / "sweep" / f"run_{int(row['run']):03d}" / "timeseries.csv").exists()
    again = run_sweep(scenario, variations, 3, 7, tmp_path / "again", fmu_dir)
    assert [r["rov.p[1]"] for r in csv.DictReader(again.open())] == [r["rov.p[1]"] for r in rows]
