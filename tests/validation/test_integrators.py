"""The master's integrators on one BlueROV2 Heavy in free motion, against a tight reference:
the compiled Dormand-Prince with its dense output between recording points, SciPy's DOP853
stepped one step at a time, SUNDIALS CVODE (BDF and Adams) and the compiled RK4."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario

START = {"nu[1]": 0.8, "nu[2]": 0.2, "nu[3]": -0.3, "nu[4]": 0.4, "nu[5]": 0.2, "nu[6]": 0.6}


def free_motion(
    tmp_path: Path, fmu_dir: Path, solver: str, rtol: float, step: float, interval: float = 0.01
) -> dict:
    start = ", ".join(f'"{k}" = {v}' for k, v in START.items())
    path = tmp_path / f"{solver}_{rtol:g}.toml"
    path.write_text(
        f"""[simulation]
stop_time = 5.0
output_interval = {interval}
solver = "{solver}"
rtol = {rtol}
atol = {rtol * 1e-2}
step = {step}
[components.rov]
fmu = "BlueROV2Heavy"
start = {{ {start} }}
"""
    )
    out = tmp_path / path.stem
    result = run_scenario(path, out, fmu_dir, plots=False)
    data = read_timeseries(out / "timeseries.csv")
    data["evaluations"] = result.statistics.rhs_evaluations
    return data


@pytest.fixture(scope="module")
def reference(fmu_dir, tmp_path_factory):
    return free_motion(tmp_path_factory.mktemp("reference"), fmu_dir, "RK45", 1e-12, 1.0)


STATES = [f"rov.p[{i}]" for i in (1, 2, 3)] + [f"rov.nu[{i}]" for i in range(1, 7)]


@pytest.mark.parametrize(
    ("solver", "bound"),
    [("RK45", 1e-6), ("DOP853", 1e-6), ("CVODE_BDF", 1e-5), ("CVODE_Adams", 1e-5)],
)
def test_adaptive_methods_meet_their_tolerance_at_every_recording_point(
    tmp_path, fmu_dir, reference, solver, bound
):
    """At rtol 1e-8 every state at all 501 recording points (read off the dense output, no
    restart) is within ``bound`` of the reference (rtol 1e-12): tolerances bound the local
    error, the global one is a few hundred times that over 5 s for CVODE's multistep methods."""
    data = free_motion(tmp_path, fmu_dir, solver, 1e-8, 1.0)
    assert len(data["time"]) == len(reference["time"]) == 501
    worst = max(np.abs(data[s] - reference[s]).max() for s in STATES)
    assert worst < bound
    # dense output: far fewer evaluations than one step per recording interval would take
    if solver == "RK45":
        assert data["evaluations"] < 6 * 500


def test_fixed_step_rk4_converges_at_fourth_order(tmp_path, fmu_dir, reference):
    """Halving RK4's step divides the error by about 2^4 = 16 (between 10 and 22); recorded
    every 0.2 s, so the step, not the recording interval, sets the error."""
    errors = []
    for step in (0.04, 0.02):
        data = free_motion(tmp_path, fmu_dir, "RK4", 1e-6, step, interval=0.2)
        errors.append(max(np.abs(data[s] - reference[s][::20]).max() for s in STATES))
    assert 10 < errors[0] / errors[1] < 22
