"""Randomized batches (``orchestrator/sweep.py``): drawn values, isolation of crashing cases,
resume from the manifest, Ctrl-C, metrics, Parquet, Dask, and one-line errors."""

from __future__ import annotations

import csv
import json
import signal
import threading
import time

import numpy as np
import pyarrow.parquet as pq
import pytest
from faulty import faulty_fmu

from orchestrator.cli import main
from orchestrator.errors import ScenarioError
from orchestrator.kinematics import euler_angles
from orchestrator.sweep import Variation, _start_values, run_sweep
from orchestrator.sweep_table import Metric

SCENARIO = """
[simulation]
stop_time = 0.2

[components.rov]
fmu = "GenericVehicle"
start = { "p[3]" = 1.0 }
"""

X0, STOP = 1.0, 0.5  # m, s
CRASH_ABOVE = 0.9  # m/s: cases drawn faster than this segfault on their first derivatives
SEED = 2  # 20 draws of v in [0, 1]: exactly one above CRASH_ABOVE (0.967; the next is 0.814)


def free_mass(folder, above: float = CRASH_ABOVE):
    """A free mass (x = x0 + v t) whose FMU segfaults whenever v > ``above``."""
    fmu = faulty_fmu(folder / "fmu", "fmi2GetDerivatives", "SEGV", 0, above=above)
    path = folder / "free_mass.toml"
    path.write_text(
        f"""
[simulation]
stop_time = {STOP}
output_interval = 0.1
solver = "RK4"
step = 0.01

[components.mass]
fmu = "{fmu.relative_to(folder)}"
start = {{ x = {X0} }}
"""
    )
    return path


def test_yaw_is_a_level_attitude_with_that_heading():
    q = np.array(list(_start_values([Variation.parse("rov.yaw=-30:30")], [20.0])["rov"].values()))
    np.testing.assert_allclose(np.degrees(euler_angles(q)), [0.0, 0.0, 20.0], atol=1e-12)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rov.p[1]", r"--vary 'rov.p\[1\]': expected COMPONENT.VARIABLE=LOW:HIGH"),
        ("rov.p[1]=2:1", r"--vary 'rov.p\[1\]=2:1': LOW must not exceed HIGH"),
        ("rov.p[1]=1e:2", r"--vary 'rov.p\[1\]=1e:2': LOW and HIGH must be numbers"),
        ("rov.p[1]=0:1e999", r"--vary 'rov.p\[1\]=0:1e999': LOW and HIGH must be finite"),
    ],
)
def test_bad_variation_is_one_clear_error(text, expected):
    with pytest.raises(ScenarioError, match=expected):
        Variation.parse(text)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--runs", "0"], "--runs: expected at least 1 run (got 0)"),
        (["--metric", "rov.p[3]"], "--metric 'rov.p[3]': expected COLUMN:final|max|min|maxabs"),
        (["--metric", "dock_time"], "--metric dock_time: "),
        (["--workers", "0"], "--workers: expected at least 1 (got 0)"),
    ],
)
def test_bad_sweep_option_is_one_line(tmp_path, capsys, options, expected):
    scenario = tmp_path / "one.toml"
    scenario.write_text(SCENARIO)
    status = main(["sweep", str(scenario), "--out", str(tmp_path / "s"), "--quiet", *options])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and expected in err, err


def test_sweep_table_holds_every_draw_within_its_range(tmp_path, fmu_dir):
    """Three short runs: one row each, seeded draws inside the bounds, a final-value metric,
    each case's results folder with its Parquet copy; the same seed draws the same values."""
    scenario = tmp_path / "one.toml"
    scenario.write_text(SCENARIO)
    variations = [Variation.parse("rov.p[1]=-2:-1"), Variation.parse("rov.yaw=-10:10")]
    metrics = [Metric.parse("rov.p[1]:final")]
    table = run_sweep(scenario, variations, 3, 7, tmp_path / "sweep", fmu_dir, metrics)
    rows = list(csv.DictReader(table.open()))
    assert [r["run"] for r in rows] == ["0", "1", "2"]
    for row in rows:
        assert -2.0 <= float(row["rov.p[1]"]) <= -1.0
        assert -10.0 <= float(row["rov.yaw"]) <= 10.0
        assert row["status"] == "done"
        case = tmp_path / "sweep" / f"run_{int(row['run']):03d}"
        assert (case / "timeseries.csv").exists() and (case / "timeseries.parquet").exists()
        # released at rest in still water for 0.2 s: the vehicle has moved less than 1 mm
        assert abs(float(row["rov.p[1]:final"]) - float(row["rov.p[1]"])) < 1e-3
    again = run_sweep(scenario, variations, 3, 7, tmp_path / "again", fmu_dir, metrics)
    assert [r["rov.p[1]"] for r in csv.DictReader(again.open())] == [r["rov.p[1]"] for r in rows]


def test_sweep_whose_every_case_fails_exits_non_zero(tmp_path, capsys):
    scenario = free_mass(tmp_path, above=-1.0)  # every case crashes
    args = ["sweep", str(scenario), "--runs", "2", "--vary", "mass.v=0:1", "--quiet"]
    status = main([*args, "--out", str(tmp_path / "s"), "--workers", "2"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1, err
    assert "every case of the sweep failed (0 of 2 cases done, 2 failed)" in err, err
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert [c["status"] for c in manifest["cases"]] == ["failed", "failed"]
    assert "killed by SIGSEGV in fmi2GetDerivatives" in manifest["cases"][0]["message"]


def _finished(manifest) -> int:
    if not manifest.exists():
        return 0
    try:
        cases = json.loads(manifest.read_text())["cases"]
    except ValueError:
        return 0
    return sum(c["status"] != "pending" for c in cases)


@pytest.mark.slow
def test_sweep_isolates_a_crash_resumes_and_runs_on_dask(tmp_path, ctrl_c):
    """20 cases, one of which segfaults: 19 done and 1 failed (the one drawn above the crash
    speed). Interrupted (Ctrl-C) after 10 finished cases and re-run, the finished cases are not
    run again (their files are untouched) and the others are run once. The same sweep on a
    Dask LocalCluster gives the same table (wall times aside)."""
    scenario = free_mass(tmp_path)
    variations = [Variation.parse("mass.v=0:1")]
    metrics = [Metric.parse("mass.x:final"), Metric.parse("mass.v:maxabs")]
    out = tmp_path / "local"
    manifest = out / "manifest.json"

    def interrupt_after_ten() -> None:
        while _finished(manifest) < 10:
            time.sleep(0.05)
        signal.raise_signal(signal.SIGINT)

    threading.Thread(target=interrupt_after_ten, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        run_sweep(scenario, variations, 20, SEED, out, tmp_path, metrics, workers=2)
    first = json.loads(manifest.read_text())["cases"]
    finished = [c["run"] for c in first if c["status"] != "pending"]
    assert 10 <= len(finished) < 20
    stamps = {k: (out / f"run_{k:03d}" / "events.csv").stat().st_mtime_ns for k in finished}

    table = run_sweep(scenario, variations, 20, SEED, out, tmp_path, metrics, workers=2)
    for k, stamp in stamps.items():
        assert (out / f"run_{k:03d}" / "events.csv").stat().st_mtime_ns == stamp
    rows = list(csv.DictReader(table.open()))
    failed = [r for r in rows if r["status"] == "failed"]
    assert len(rows) == 20 and len(failed) == 1
    assert float(failed[0]["mass.v"]) > CRASH_ABOVE
    assert "killed by SIGSEGV in fmi2GetDerivatives of instance 'mass'" in failed[0]["message"]
    for row in rows:
        if row["status"] == "done":  # free motion: x(STOP) = x0 + v STOP to RK4 round-off
            v = float(row["mass.v"])
            assert float(row["mass.x:final"]) == pytest.approx(X0 + v * STOP, abs=1e-12)
            assert float(row["mass.v:maxabs"]) == pytest.approx(v, abs=1e-15)
    parquet = pq.read_table(out / "sweep.parquet").to_pylist()
    assert [r["status"] for r in parquet] == [r["status"] for r in rows]

    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as cluster:
        dask_table = run_sweep(
            scenario,
            variations,
            20,
            SEED,
            tmp_path / "dask",
            tmp_path,
            metrics,
            scheduler=cluster.scheduler_address,
        )
    on_dask = pq.read_table(dask_table.with_suffix(".parquet"))
    local = pq.read_table(out / "sweep.parquet")
    assert on_dask.column_names == local.column_names
    for name in ("run", "mass.v", "mass.x:final", "mass.v:maxabs"):  # NaN where failed
        np.testing.assert_array_equal(on_dask.column(name).to_numpy(), local.column(name))
    assert on_dask.column("status").to_pylist() == local.column("status").to_pylist()
    here, there = str(tmp_path / "dask"), str(out)
    assert [m.replace(here, there) for m in on_dask.column("message").to_pylist()] == (
        local.column("message").to_pylist()
    )
