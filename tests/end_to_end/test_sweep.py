"""Batches of varied runs (``orchestrator/analysis/sweep.py``, ``variations.py``): drawn values of
any scenario key, isolation of crashing cases, resume from the manifest, Ctrl-C, metrics, Parquet,
Dask, and one-line errors."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, skip_claim
from faulty import faulty_fmu
from scipy.stats import norm

from orchestrator.analysis.sweep import run_sweep
from orchestrator.analysis.sweep_table import Metric
from orchestrator.analysis.variations import Variation, apply, draw
from orchestrator.cli import main
from orchestrator.errors import MurcosimError, ScenarioError
from orchestrator.kinematics import euler_angles
from studies.docking_study import StartRanges

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


@pytest.mark.parametrize("text", ["rov.yaw=-30:30", "components.rov.start.yaw=uniform(-30,30)"])
def test_yaw_is_a_level_attitude_with_that_heading(text):
    data = {"components": {"rov": {"fmu": "GenericVehicle", "start": {"p[3]": 1.0}}}}
    apply(data, {}, Variation.parse(text), 20.0)
    start = data["components"]["rov"]["start"]
    q = np.array([start[f"q[{i}]"] for i in (1, 2, 3, 4)])
    np.testing.assert_allclose(np.degrees(euler_angles(q)), [0.0, 0.0, 20.0], atol=1e-12)
    assert start["p[3]"] == 1.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rov.p[1]", "--vary 'rov.p[1]': expected KEY=uniform(LOW,HIGH), normal(MEAN,SIGMA)"),
        ("rov.p[1]=2:1", "--vary 'rov.p[1]=2:1': LOW must not exceed HIGH"),
        ("rov.p[1]=1e:2", "--vary 'rov.p[1]=1e:2': '1e' is not a number"),
        ("rov.p[1]=0:1e999", "--vary 'rov.p[1]=0:1e999': '1e999' is not a finite number"),
        ("simulation.step=uniform(1)", "simulation.step=uniform(1)': expected uniform(LOW,HIGH)"),
        ("simulation.step=normal(1,-1)", "SIGMA must not be negative"),
        ("simulation.step=grid(1,2,2.5)", "N must be a whole number of at least 1"),
        ("simulation.step=beta(1,2)", "expected KEY=uniform(LOW,HIGH)"),
        ("simulation..step=uniform(1,2)", "'simulation..step' is not a scenario key"),
    ],
)
def test_bad_variation_is_one_clear_error(text, expected):
    with pytest.raises(ScenarioError) as error:
        Variation.parse(text)
    assert expected in str(error.value) and len(str(error.value).splitlines()) == 1


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


AUTOPILOT = """
[simulation]
stop_time = 2.0
output_interval = 0.1
solver = "RK4"
step = 0.05

[components.rov]
fmu = "GenericVehicle"
start = { "p[3]" = 0.5 }

[controllers.autopilot]
type = "depth_heading_speed"
sample_time = 0.05
vehicle = "rov"
depth = 2.0
heading = 0.0
surge_speed = 0.0
"""
MASS = "components.rov.parameters.data.m"
KP = "controllers.autopilot.gains.depth.kp"


def test_draws_of_each_distribution_are_the_seeded_quantiles_per_grid_point():
    """Two draws at each of the grid's three values: the grid steps slowest; one number in
    [0, 1) per case and random variation from NumPy's default generator, case after case,
    mapped by the distribution's quantile function (SciPy's norm.ppf for the normal)."""
    texts = [
        "a.x=uniform(-1,3)",
        "a.y=normal(2,0.5)",
        "a.z=choice(1,true,'text')",
        "a.w=grid(0,1,3)",
    ]
    cases = draw([Variation.parse(t) for t in texts], 2, 5)
    u = np.random.default_rng(5).random((6, 3))
    assert [c["a.w"] for c in cases] == [0.0, 0.0, 0.5, 0.5, 1.0, 1.0]
    assert [c["a.x"] for c in cases] == list(-1.0 + 4.0 * u[:, 0])
    np.testing.assert_allclose([c["a.y"] for c in cases], norm.ppf(u[:, 1], 2.0, 0.5), rtol=1e-14)
    assert [c["a.z"] for c in cases] == [[1, True, "text"][int(3 * v)] for v in u[:, 2]]
    assert draw([Variation.parse("a.w=grid(0,1,3)")], 1, 5) == [{"a.w": v} for v in (0, 0.5, 1)]


def test_docking_study_starts_are_numpys_uniform_draws_to_the_bit():
    """The docking study's starts (and any LOW:HIGH sweep) are Generator.uniform's numbers."""
    variations = StartRanges().variations("follower")
    cases = draw(variations, 5, 1)
    expected = np.random.default_rng(1).uniform([-7, -3, -60], [-2, 3, 60], size=(5, 3))
    assert [[c[v.name] for v in variations] for c in cases] == expected.tolist()
    assert [v.name for v in variations] == ["follower.p[1]", "follower.p[2]", "follower.yaw"]


def test_latin_hypercube_puts_one_case_in_each_stratum():
    """20 cases: each of 20 equally likely strata of the uniform and of the normal variation
    holds exactly one case (a random design of the same seed does not)."""
    variations = [Variation.parse("a.x=uniform(0,10)"), Variation.parse("a.y=normal(1,2)")]
    for design, stratified in (("lhs", True), ("random", False)):
        cases = draw(variations, 20, 3, design)
        x_strata = sorted(int(c["a.x"] / 10 * 20) for c in cases)
        y_strata = sorted(int(norm.cdf(c["a.y"], 1, 2) * 20) for c in cases)
        assert (x_strata == list(range(20)) and y_strata == list(range(20))) == stratified


@pytest.mark.parametrize(
    ("vary", "expected"),
    [
        (f"{MASS}x=uniform(10,14)", "no variable 'data.mx' in GenericVehicle.fmu; did you mean"),
        ("components.rov.start.data.m=uniform(10,14)", "'data.m' is a(n) parameter, not settable"),
        (f"{KP}p=grid(1,2,3)", "controllers.autopilot.gains.depth: no key 'kpp' (did you mean"),
        ("controllers.pilot.sample_time=uniform(1,2)", "controllers: no key 'pilot' (did you"),
        ("environment.current[3]=normal(0,1)", "environment.current has 3 items, no item [3]"),
        ("controllers.autopilot.gains=choice(1,2)", "is a table or an array; expected the key"),
        ("simulation.solver=choice(RK4,RK5)", "case 0: simulation.solver: Input should be 'RK4'"),
        ("simulation.stop_time=uniform(-1,1)", "case 1: simulation.stop_time: Input should be"),
        (f"{MASS}=choice(heavy)", "data.m"),
        ("nobody.p[1]=0:1", "components: no key 'nobody' (expected one of rov)"),
    ],
)
def test_bad_vary_is_refused_in_one_line_before_any_case_starts(
    tmp_path, capsys, fmu_dir, vary, expected
):
    scenario = tmp_path / "autopilot.toml"
    scenario.write_text(AUTOPILOT)
    out = tmp_path / "s"
    args = ["sweep", str(scenario), "--vary", vary, "--out", str(out), "--quiet"]
    status = main([*args, "--fmu-dir", str(fmu_dir)])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"--vary '{vary}'" in err and expected in err, err
    assert not out.exists()  # no case was started (nor its folder made)


def test_sweep_over_a_parameter_and_a_controller_gain_from_cli_and_python(
    tmp_path, capsys, fmu_dir
):
    """The vehicle's mass (an FMU parameter) drawn uniformly and the autopilot's depth gain on
    a grid: the command line and murcosim.sweep give the same table (wall times aside); every
    case's run used its values (its results folder's scenario), and a case's metric is what
    murcosim.run gives for the scenario edited to those values."""
    import murcosim

    scenario = tmp_path / "autopilot.toml"
    scenario.write_text(AUTOPILOT)
    vary = {MASS: "uniform(10,14)", KP: "grid(30,90,2)"}
    args = ["sweep", str(scenario), "--runs", "2", "--seed", "3", "--quiet"]
    args += ["--metric", "rov.p[3]:final", "--fmu-dir", str(fmu_dir), "--out", str(tmp_path / "c")]
    assert main([*args, *(f"--vary={k}={v}" for k, v in vary.items())]) == 0
    assert "4 of 4 cases done, 0 failed" in capsys.readouterr().out
    table = murcosim.sweep(
        scenario,
        vary,
        runs=2,
        seed=3,
        metrics=["rov.p[3]:final"],
        out=tmp_path / "p",
        fmu_dir=fmu_dir,
        progress=False,
    )
    cli = pq.read_table(tmp_path / "c" / "sweep.parquet").to_pandas().set_index("run")
    same = [MASS, KP, "status", "rov.p[3]:final", "message"]
    assert table[same].equals(cli[same])
    assert list(table[KP]) == [30.0, 30.0, 90.0, 90.0]
    assert table[MASS].between(10.0, 14.0).all() and table[MASS].nunique() == 4
    for run, row in table.iterrows():
        used = murcosim.load_scenario(tmp_path / "p" / f"run_{run:03d}" / "case.toml")
        assert used.components["rov"].parameters["data.m"] == row[MASS]
        assert used.controllers["autopilot"].gains.depth.kp == row[KP]
    row = table.iloc[3]
    edited = murcosim.edit(
        murcosim.load_scenario(scenario),
        {
            "components": {"rov": {"parameters": {"data.m": row[MASS]}}},
            "controllers": {"autopilot": {"gains": {"depth": {"kp": row[KP]}}}},
        },
    )
    alone = murcosim.run(edited, fmu_dir=fmu_dir, progress=False)
    assert alone.timeseries["rov.p[3]"].iloc[-1] == row["rov.p[3]:final"]
    slow, fast = table["rov.p[3]:final"].iloc[[0, 2]]
    assert slow != fast  # the gain took effect (same seed position, other gain)


HEAVE = """
import murcosim


class Heave(murcosim.Controller):
    def __init__(self, name, sample_time, settings):
        super().__init__(name, sample_time, [], ["rov.tau_ext[3]"])
        self.force = settings["force"]

    def step(self, time, inputs):
        return [self.force]
"""


def test_a_user_controller_beside_the_scenario_runs_in_every_case(fmu_dir, tmp_path):
    """A case's file lives in its own folder: the user controller's module is still found
    beside the scenario, and the varied setting reaches it (the heave force pushes deeper)."""
    import murcosim

    (tmp_path / "heave.py").write_text(HEAVE)
    scenario = tmp_path / "pushed.toml"
    scenario.write_text(
        '[simulation]\nstop_time = 0.5\n[components.rov]\nfmu = "BlueROV2Heavy"\n'
        '[controllers.push]\nclass = "heave:Heave"\nsample_time = 0.1\n'
        "settings = { force = 0.0 }\n"
    )
    table = murcosim.sweep(
        scenario,
        {"controllers.push.settings.force": "grid(0,40,2)"},
        metrics=["rov.p[3]:final"],
        out=tmp_path / "sweep",
        fmu_dir=fmu_dir,
        progress=False,
    )
    assert list(table["status"]) == ["done", "done"], list(table["message"])
    still, pushed = table["rov.p[3]:final"]
    assert pushed > still


DASK_SEED = 8  # 10 draws of v in [0, 1]: one above CRASH_ABOVE (0.987, case 1; the next 0.870)


def _dask(tmp_path, *arguments: str, env: dict | None = None) -> subprocess.Popen:
    """``dask ARGUMENTS`` (the distributed package's command) in a session of its own, so
    that it is killed with all its processes (nanny, worker, cases)."""
    return subprocess.Popen(
        [str(Path(sys.executable).with_name("dask")), *arguments],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / f"{arguments[0]}-{time.monotonic_ns()}.log").open("w"),
        start_new_session=True,
    )


@pytest.mark.slow
def test_sweep_on_a_real_dask_cluster_survives_a_killed_worker(tmp_path):
    """A `dask scheduler` and two `dask worker` processes on 127.0.0.1, the workers in their
    default configuration (daemonic, nanny-managed, one thread): the sweep's cases run there
    in processes of their own (the crashing case is reported as locally, naming the FMI call).
    One worker is killed (with its nanny and its case) after three cases have finished: the
    sweep ends in one line saying cases were lost, keeps every finished case (not run again:
    their files are untouched), and the resumed sweep completes on the other worker with the
    local sweep's table (wall times and folders aside). The scheduler allows no failure, so
    that the case the killed worker ran is reported lost rather than rerun by Dask itself
    (its default: rerun up to three times)."""
    import distributed

    if shutil.which("dask", path=str(Path(sys.executable).parent)) is None:
        skip_claim("the 'dask' command of the distributed package is not installed")
    scenario = free_mass(tmp_path)
    variations = [Variation.parse("mass.v=0:1")]
    metrics = [Metric.parse("mass.x:final"), Metric.parse("mass.v:maxabs")]
    local = run_sweep(scenario, variations, 10, DASK_SEED, tmp_path / "local", tmp_path, metrics)

    address_file = tmp_path / "scheduler.json"
    processes = [
        _dask(
            tmp_path,
            "scheduler",
            "--host=127.0.0.1",
            "--port=0",
            "--no-dashboard",
            f"--scheduler-file={address_file}",
            env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"},
        )
    ]
    try:
        deadline = time.monotonic() + 30
        while not address_file.exists():
            assert time.monotonic() < deadline and processes[0].poll() is None
            time.sleep(0.1)
        address = json.loads(address_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        for k in range(2):
            processes.append(
                _dask(
                    tmp_path,
                    "worker",
                    address,
                    "--nthreads=1",
                    "--host=127.0.0.1",
                    "--no-dashboard",
                    f"--local-directory={tmp_path / f'worker{k}'}",
                )
            )
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=30)
            daemonic = client.run(lambda: __import__("multiprocessing").current_process().daemon)
        assert list(daemonic.values()) == [True, True]  # the default: daemonic workers

        out = tmp_path / "dask"
        manifest = out / "manifest.json"
        killed = []

        def kill_a_worker() -> None:
            while _finished(manifest) < 3:
                time.sleep(0.02)
            killed.append(_finished(manifest))
            os.killpg(processes[1].pid, signal.SIGKILL)

        threading.Thread(target=kill_a_worker, daemon=True).start()
        sweep = (scenario, variations, 10, DASK_SEED, out, tmp_path, metrics)
        with pytest.raises(MurcosimError) as lost:
            run_sweep(*sweep, scheduler=address)
        said = str(lost.value)
        assert len(said.splitlines()) == 1 and "lost with their Dask workers" in said, said
        assert "run the same sweep again to resume it" in said
        cases = json.loads(manifest.read_text())["cases"]
        finished = [c["run"] for c in cases if c["status"] != "pending"]
        assert killed and killed[0] <= len(finished) < 10
        stamps = {k: (out / f"run_{k:03d}" / "events.csv").stat().st_mtime_ns for k in finished}

        table = run_sweep(*sweep, scheduler=address)
        for k, stamp in stamps.items():
            assert (out / f"run_{k:03d}" / "events.csv").stat().st_mtime_ns == stamp
    finally:
        for process in reversed(processes):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    on_dask = pq.read_table(table.with_suffix(".parquet"))
    here = pq.read_table(local.with_suffix(".parquet"))
    assert on_dask.column_names == here.column_names
    for name in ("run", "mass.v", "mass.x:final", "mass.v:maxabs"):  # NaN where failed
        np.testing.assert_array_equal(on_dask.column(name).to_numpy(), here.column(name))
    statuses = on_dask.column("status").to_pylist()
    assert statuses == here.column("status").to_pylist() and statuses.count("failed") == 1
    there = str(tmp_path / "local")
    messages = [m.replace(str(out), there) for m in on_dask.column("message").to_pylist()]
    assert messages == here.column("message").to_pylist()
    assert "killed by SIGSEGV in fmi2GetDerivatives of instance 'mass'" in messages[1]
