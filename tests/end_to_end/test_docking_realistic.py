"""Docking on sensors and estimates (scenarios/docking_realistic.toml): a short version of
the study (the realistic scenario beside the perfect-state baseline from the same starts),
and bad sensing entries of the rendezvous give one line naming the file and the key."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT, scenario_error

from studies.docking_study import StartRanges, comparison_table, run_cosim_cases

SCENARIO = ROOT / "scenarios" / "docking_realistic.toml"
BASELINE = ROOT / "scenarios" / "docking_mpc.toml"


def test_short_study_docks_on_sensors_and_estimates(tmp_path, fmu_dir):
    """Two randomized starts (seed 3): every case docks in both scenarios, the realistic one
    through the coupling's capture check (gap within 5 cm, closing below 0.3 m/s, within 10
    deg), and the table puts the two side by side."""
    columns = {}
    for name, scenario in (("perfect state", BASELINE), ("realistic", SCENARIO)):
        columns[name] = run_cosim_cases(
            scenario, "rendezvous", 2, 3, StartRanges(), tmp_path / name, fmu_dir, print
        )
    for cases in columns.values():
        assert all(np.isfinite(c.dock_time) for c in cases)
    for case in columns["realistic"]:
        gap, closing, angle = case.capture
        assert gap <= 0.05 and closing <= 0.3 and angle <= 10.0
    table = comparison_table(columns, 3, {"perfect state": 60.0, "realistic": 60.0})
    print(table)
    assert "| | perfect state | realistic |" in table
    assert "| docked | 2 (100 %, within 60 s) | 2 (100 %, within 60 s) |" in table


BAD = [
    (
        'name = "follower"\nstate = "follower_nav"',
        'name = "follower"\nstate = "follower_imu"',
        "controllers.rendezvous.vehicles[1].state: 'follower_imu' is not a navigation_filter",
    ),
    (
        'name = "leader"\nstate = "leader_nav"',
        'name = "leader"\nstate = "follower_nav"',
        "controllers.rendezvous.vehicles[0].state: 'follower_nav' estimates 'follower', "
        "not 'leader'",
    ),
    (
        'fiducial = "follower_camera"',
        'fiducial = "follower_dvl"',
        "controllers.rendezvous.vehicles[1].fiducial: 'follower_dvl' is not a "
        "fiducial_camera controller",
    ),
    (
        'target = "leader"',
        'target = "follower"',
        "controllers.follower_camera.target: expected another body than the camera's vehicle "
        "'follower'",
    ),
    (
        'name = "leader"\nstate = "leader_nav"',
        'name = "leader"\nstate = "leader_nav"\nfiducial = "follower_camera"',
        "controllers.rendezvous.vehicles[0].fiducial: 'follower_camera' is on 'follower', "
        "not 'leader'",
    ),
]


@pytest.mark.parametrize(("old", "new", "message"), BAD, ids=[m.split(":")[0] for *_, m in BAD])
def test_bad_sensing_entries_name_the_key(old, new, message, tmp_path, capsys):
    text = SCENARIO.read_text()
    assert text.count(old) == 1
    assert message in scenario_error(text.replace(old, new), tmp_path, capsys)


def test_a_fiducial_on_a_vehicle_outside_the_rendezvous_is_refused(tmp_path, capsys):
    text = SCENARIO.read_text().replace('target = "leader"', 'target = "third"')
    text += '\n[components.third]\nfmu = "BlueROV2Heavy"\nstart = { "p[1]" = 5.0, "p[3]" = 3.0 }\n'
    assert (
        "controllers.rendezvous.vehicles[1].fiducial: 'follower_camera' sees 'third', expected "
        "another vehicle of the rendezvous (leader)"
    ) in scenario_error(text, tmp_path, capsys)
