"""Heave of floating cylinders against Cortesi's (2012) Table 3.2 and Sec. 5.11."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario


def periods(time: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Times between upward zero crossings of the depth about its late mean (s)."""
    late = depth[time > time[-1] / 2].mean()
    d = depth - late
    up = np.flatnonzero((d[:-1] < 0) & (d[1:] >= 0))
    crossings = time[up] - d[up] * (time[up + 1] - time[up]) / (d[up + 1] - d[up])
    return np.diff(crossings)


def run_file(name: str, tmp_path, fmu_dir) -> dict[str, np.ndarray]:
    out = tmp_path / name
    run_scenario(ROOT / "scenarios" / f"{name}.toml", out, fmu_dir, plots=False)
    return read_timeseries(out / "timeseries.csv")


def test_large_test_cylinder_heave_period(tmp_path, fmu_dir):
    """The instrumented cylinder (R = 0.081 m, 18.0 kg) released with its top at the surface:
    the mean damped heave period of its first cycles is within 3 % of Cortesi's (2012) prediction
    1.88 s (Table 3.2; measured 1.86 s). The tolerance covers the prediction's rounding and
    the measured value; added mass, which the model leaves out as Cortesi (2012) does, would
    lengthen the period by 7 % (Sec. 6.5)."""
    cols = run_file("buoy_heave_test_cylinder", tmp_path, fmu_dir)
    period = periods(cols["time"], cols["cylinder.p[3]"])[:8].mean()
    print(
        f"large test cylinder: damped heave period {period:.4f} s (1.88 predicted, 1.86 measured)"
    )
    assert period == pytest.approx(1.88, rel=0.03)


def test_locked_joint_drop_of_the_prototype(tmp_path, fmu_dir):
    """The prototype with its joint held at zero, released 5 cm above its floating equilibrium:
    the heave frequency averaged over the first 8 cycles is within 2 % of the 4.36 rad/s of
    Cortesi's (2012) own drop test (Sec. 5.11; 4.34 rad/s predicted by eq. 2.104 with g = 9.8). The
    joint stays straight (angle error below 1e-9 rad)."""
    cols = run_file("buoy_drop", tmp_path, fmu_dir)
    omega = 2 * np.pi / periods(cols["time"], cols["housing.p[3]"])[:8].mean()
    print(f"prototype locked drop: heave {omega:.4f} rad/s (4.34 predicted, 4.36 Cortesi (2012))")
    assert omega == pytest.approx(4.36, rel=0.02)
    assert cols["gimbal.angle_error"].max() < 1e-9
