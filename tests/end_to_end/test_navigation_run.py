"""The navigation filter in a run: the BlueROV2 Heavy's autopilot flies on the estimate and
the estimate follows the truth within its covariance; bad filter entries give one line naming
the file and the key."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT, scenario_error

from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario

SCENARIO = ROOT / "scenarios" / "bluerov2_heavy_navigation.toml"


def test_autopilot_flies_on_the_estimate(tmp_path, fmu_dir):
    """Over 15 s the vehicle reaches its set points on the estimate (depth within 0.1 m of
    2 m, its overshoot still settling; heading within 3 deg of 45 deg; surge speed within
    0.03 m/s of 0.5), the position estimate stays within 4 sigma of the truth after the first
    second, and no measurement is stale; the estimate's columns are recorded in the true
    state's layout."""
    text = SCENARIO.read_text().replace("stop_time = 30.0", "stop_time = 15.0")
    path = tmp_path / "nav.toml"
    path.write_text(text)
    columns = read_timeseries(run_scenario(path, tmp_path / "out", fmu_dir, plots=False).timeseries)
    state = [f"nav.p[{i}]" for i in (1, 2, 3)] + [f"nav.q[{i}]" for i in (1, 2, 3, 4)]
    assert all(name in columns for name in state + [f"nav.nu[{i}]" for i in range(1, 7)])
    assert abs(columns["rov.p[3]"][-1] - 2.0) < 0.1
    q = [columns[f"rov.q[{i}]"][-1] for i in (1, 2, 3, 4)]
    heading = np.degrees(
        np.arctan2(2 * (q[0] * q[3] + q[1] * q[2]), 1 - 2 * (q[2] ** 2 + q[3] ** 2))
    )
    assert abs(heading - 45.0) < 3.0
    assert abs(columns["rov.nu[1]"][-1] - 0.5) < 0.03
    later = columns["time"] >= 1.0
    for i in (1, 2, 3):
        error = columns[f"nav.p[{i}]"] - columns[f"rov.p[{i}]"]
        sigma = np.sqrt(columns[f"nav.variance[{i}]"])
        assert np.all(np.abs(error[later]) < 4 * sigma[later]), i
    assert columns["nav.stale"][-1] == 0


BAD = [
    (
        'state = "nav"',
        'state = "imu"',
        "controllers.autopilot.state: 'imu' is not a navigation_filter",
    ),
    ('dvl = "dvl"', 'dvl = "ahrs"', "controllers.nav.dvl: 'ahrs' is not a controller of type dvl"),
    (
        'imu = "imu"',
        'imu = "imu"\nsample_time = 0.02',
        "controllers.nav.sample_time: expected the IMU's, 0.01 s (got 0.02 s)",
    ),
    (
        'vehicle = "rov"\nseed = 1\nimu',
        'vehicle = "rov"\nseed = 1\ngate = 1.5\nimu',
        "controllers.nav.gate: Input should be less than 1",
    ),
]


@pytest.mark.parametrize(("old", "new", "message"), BAD, ids=[m.split(":")[0] for *_, m in BAD])
def test_bad_filter_entries_name_the_key(old, new, message, tmp_path, capsys):
    text = SCENARIO.read_text()
    assert text.count(old) == 1
    assert message in scenario_error(text.replace(old, new), tmp_path, capsys)


def test_filter_after_its_user_is_refused(tmp_path, capsys):
    text = SCENARIO.read_text()
    nav = text[text.index("[controllers.nav]") : text.index("[controllers.autopilot]")]
    moved = text.replace(nav, "") + "\n" + nav
    message = "controllers.autopilot.state: 'nav' must come before 'autopilot' (file order)"
    assert message in scenario_error(moved, tmp_path, capsys)
