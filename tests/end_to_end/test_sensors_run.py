"""Sensors in a run: the BlueROV2 Heavy with its sensor suite records every measurement as
columns, reproducible with the same seed, different with another, and independent of the
integrator's step; bad sensor entries give one line naming the file and the key."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT, scenario_error

from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario

SCENARIO = ROOT / "scenarios" / "bluerov2_heavy_sensors.toml"
SENSORS = ("imu", "dvl", "depth", "ahrs", "usbl", "camera")


def run(tmp_path, fmu_dir, label: str, *changes: tuple[str, str]) -> dict[str, np.ndarray]:
    """The sensor suite over 12 s (the camera sees the marker from about 4 s on)."""
    text = SCENARIO.read_text().replace("stop_time = 30.0", "stop_time = 12.0")
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / f"{label}.toml"
    path.write_text(text)
    result = run_scenario(path, tmp_path / label, fmu_dir, plots=False)
    return read_timeseries(result.timeseries)


def sensor_columns(columns: dict[str, np.ndarray]) -> list[str]:
    return sorted(k for k in columns if k.partition(".")[0] in SENSORS)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, fmu_dir):
    tmp = tmp_path_factory.mktemp("sensors")
    return {
        "base": run(tmp, fmu_dir, "base"),
        "again": run(tmp, fmu_dir, "again"),
        "seed": run(
            tmp,
            fmu_dir,
            "seed",
            ("seed = 1\nposition = [0.0, 0.0, -0.05]", "seed = 2\nposition = [0.0, 0.0, -0.05]"),
        ),
        "step": run(tmp, fmu_dir, "step", ("step = 0.05", "step = 0.01")),
    }


def test_every_sensor_output_is_recorded_and_measures_the_truth(runs):
    """48 columns; the depth reads the vehicle's depth within the wave's swing at the sensor
    (0.3 e^{-k 2} = 0.22 m) plus 5 noise stds; the DVL's surge is the true one within 5
    fom once valid; the camera sees the marker for part of the run; the USBL's fixes arrive
    after their pings and lie within 1 m of the truth at the ping (median; per axis 0.1 m + 1 %
    of about 20 m: 0.3 m, a median distance of 0.47 m)."""
    c = runs["base"]
    assert len(sensor_columns(c)) == 48
    late = c["time"] > 6
    assert np.max(np.abs(c["depth.depth"][late] - c["rov.p[3]"][late])) < 0.3 * 0.73 + 0.02
    valid = c["dvl.velocity_valid"] == 1
    assert valid[late].all()
    assert (
        np.max(np.abs(c["dvl.velocity[1]"] - c["rov.nu[1]"])[late])
        < 0.05 + 5 * c["dvl.fom"][late].max()
    )
    assert 0 < np.mean(c["camera.detected"]) < 1
    fixes = np.flatnonzero(c["usbl.valid"] == 1)
    pinged = np.searchsorted(c["time"], c["usbl.time_of_validity"][fixes])
    true = np.column_stack([c[f"rov.p[{i}]"][pinged] for i in (1, 2, 3)])
    measured = np.column_stack([c[f"usbl.position[{i}]"][fixes] for i in (1, 2, 3)])
    assert np.all(c["time"][fixes] > c["usbl.time_of_validity"][fixes])  # late by the travel
    assert np.median(np.linalg.norm(measured - true, axis=1)) < 1.0


def test_same_seed_same_columns_other_seed_other_noise(runs):
    names = sensor_columns(runs["base"])
    for name in names:
        assert np.array_equal(runs["base"][name], runs["again"][name]), name
    noisy = ["imu.gyro[1]", "imu.accel[3]"]
    for name in noisy:
        assert not np.allclose(runs["base"][name], runs["seed"][name]), name
    # the other sensors keep their seed, hence their streams
    assert np.array_equal(runs["base"]["ahrs.heading"], runs["seed"]["ahrs.heading"])


def test_sensor_outputs_do_not_depend_on_the_integrator_step(runs):
    """RK45 with its largest step 0.05 s or 0.01 s: the same noise on truths that agree to the
    integrator's tolerance, so every sensor column agrees within 1e-5 (the states within
    1e-6); flags agree exactly."""
    a, b = runs["base"], runs["step"]
    assert np.max(np.abs(a["rov.p[3]"] - b["rov.p[3]"])) < 1e-6
    for name in sensor_columns(a):
        assert np.max(np.abs(a[name] - b[name])) < 1e-5, name


AHRS = '[controllers.ahrs]\ntype = "ahrs"\nvehicle = "rov"\nseed = 1'
BAD = [
    (
        "seabed_depth = 10.0",
        "seabed_depth = 10.0\ntilt = 95.0",
        "controllers.dvl.tilt: Input should be less than 90",
    ),
    ('wave = "sea"', 'wave = "rov"', "controllers.depth.wave: 'rov' is not a regular wave"),
    ('wave = "sea"', 'wave = "ocean"', "controllers.depth.wave: unknown component 'ocean'"),
    (
        "[controllers.camera]\n",
        '[controllers.camera]\ntarget = "ghost"\n',
        "controllers.camera.target: unknown component 'ghost'",
    ),
    (AHRS, AHRS[:-1] + "-1", "controllers.ahrs.seed: Input should be greater than or equal to 0"),
    (
        "[controllers.imu]\n",
        "[controllers.imu]\ngyro = { noise_density = 1e-4 }\n",
        "controllers.imu.gyro.bias_driving: missing required key",
    ),
]


@pytest.mark.parametrize(("old", "new", "message"), BAD, ids=[m.split(":")[0] for *_, m in BAD])
def test_bad_sensor_entries_name_the_key(old, new, message, tmp_path, capsys):
    text = SCENARIO.read_text()
    assert text.count(old) == 1
    assert message in scenario_error(text.replace(old, new), tmp_path, capsys)
