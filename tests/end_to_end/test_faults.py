"""Faulty FMUs: every fault ends the run with one line naming the instance and the FMI call,
an ``error``/``crashed``/``interrupted`` row in ``events.csv`` and valid CSV up to the fault.

The FMU is the spring-mass test FMU (free mass: x(t) = x0 + v0 t) with one FMI function made
to fail after a number of good calls (``faulty.py``). Crashes, hangs and Ctrl-C need the
supervised child process of ``murcosim run``; error statuses and NaN are caught in-process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from faulty import faulty_fmu
from foreign import python_fmu

from orchestrator.cli import main
from orchestrator.errors import MurcosimError
from orchestrator.fmi.fmu import FMU
from orchestrator.recording.tables import read_events, read_timeseries
from orchestrator.runner.run import run_scenario
from orchestrator.runner.supervise import (
    START_VARIABLE,
    child_start,
    loaded_fmu_binaries,
    run_supervised,
)

X0, V0 = 1.0, 0.5  # m, m/s


def scenario(folder: Path, fmu: Path, co_simulation: bool) -> Path:
    """1 s of the free mass, RK4 with 10 ms steps (or 10 ms macro steps), rows every 0.1 s."""
    text = f"""
[simulation]
stop_time = 1.0
output_interval = 0.1
solver = "RK4"
step = 0.01

[components.spring]
fmu = "{fmu}"
start = {{ x = {X0}, v = {V0} }}
"""
    if co_simulation:
        text += "\n[cosimulation]\nmacro_step = 0.01\n"
    path = folder / "faulty.toml"
    path.write_text(text)
    return path


def faulty_run(tmp_path: Path, function: str, kind: str, after: int) -> tuple[Path, Path]:
    co_simulation = function.endswith("DoStep")
    interfaces = ("CoSimulation",) if co_simulation else ("ModelExchange",)
    fmu = faulty_fmu(tmp_path / "fmu", function, kind, after, interfaces)
    return scenario(tmp_path, fmu, co_simulation), tmp_path / "out"


def assert_kept(out: Path, kind: str) -> list[dict[str, str]]:
    """events.csv ends with ``kind`` and ``stop``; timeseries.csv is valid CSV whose rows, up to
    the fault, are the free mass's motion (to RK4 round-off, 1e-12 m)."""
    events = read_events(out / "events.csv")
    assert [e["event"] for e in events[-2:]] == [kind, "stop"], events
    cols = read_timeseries(out / "timeseries.csv")
    assert len(cols["time"]) >= 1
    np.testing.assert_allclose(cols["spring.x"], X0 + V0 * cols["time"], atol=1e-12)
    assert cols["time"][-1] <= float(events[-1]["time"]) + 1e-12
    return events


# FMI function, good calls before the error (past the first row), what the message says.
ERROR_CALLS = [
    ("fmi2GetDerivatives", 30, "spring (SpringMass_me.fmu): fmi2GetDerivatives returned 'error'"),
    ("fmi2SetContinuousStates", 30, "fmi2SetContinuousStates returned 'error'"),
    ("fmi2SetTime", 30, "spring (SpringMass_me.fmu): fmi2SetTime returned 'error'"),
    ("fmi2CompletedIntegratorStep", 3, "fmi2CompletedIntegratorStep returned 'error'"),
    ("fmi2GetReal", 5, "spring: get ["),
    ("fmi3GetContinuousStateDerivatives", 30, "fmi3GetContinuousStateDerivatives returned"),
    ("fmi3SetContinuousStates", 30, "fmi3SetContinuousStates returned 'error'"),
    ("fmi3SetTime", 30, "spring (SpringMass3_me.fmu): fmi3SetTime returned 'error'"),
    ("fmi3GetFloat64", 5, "spring: get ["),
    ("fmi2DoStep", 30, "spring: step from t = 0.3 s failed"),
    ("fmi3DoStep", 30, "spring: step from t = 0.3 s failed"),
]


@pytest.mark.parametrize(
    ("function", "after", "said"), ERROR_CALLS, ids=[c[0] for c in ERROR_CALLS]
)
def test_error_status_stops_the_run_naming_instance_and_call(tmp_path, function, after, said):
    path, out = faulty_run(tmp_path, function, "ERROR", after)
    with pytest.raises(MurcosimError, match=r"run stopped at t = \S+ s: spring") as raised:
        run_scenario(path, out, tmp_path, plots=False)
    assert said in str(raised.value) and "\n" not in str(raised.value), str(raised.value)
    events = assert_kept(out, "error")
    assert "spring" in events[-2]["detail"]


@pytest.mark.parametrize("function", ["fmi2GetDerivatives", "fmi3GetContinuousStateDerivatives"])
def test_nan_derivatives_stop_the_run_naming_the_state(tmp_path, function):
    path, out = faulty_run(tmp_path, function, "NAN_VALUES", 100)
    with pytest.raises(MurcosimError, match=r"state spring\.\w+ is no longer finite"):
        run_scenario(path, out, tmp_path, plots=False)
    assert_kept(out, "error")


def cli_run(path: Path, out: Path, capsys, *options: str) -> str:
    status = main(["run", str(path), "--out", str(out), "--quiet", "--no-plots", *options])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_segfault_ends_the_run_with_one_line(tmp_path, capsys):
    """A segmentation fault in fmi2GetDerivatives after 100 good calls (0.25 s of RK4)."""
    path, out = faulty_run(tmp_path, "fmi2GetDerivatives", "SEGV", 100)
    err = cli_run(path, out, capsys)
    said = "run crashed at t = 0.2 s: killed by SIGSEGV in fmi2GetDerivatives of instance"
    assert f"{said} 'spring'" in err, err
    events = assert_kept(out, "crashed")
    assert events[-2]["detail"].startswith("killed by SIGSEGV in fmi2GetDerivatives")


# FMI function, fault, good calls before it, what the message says.
CRASHES = [
    ("fmi3GetContinuousStateDerivatives", "ABORT", 30, "killed by SIGABRT"),
    ("fmi2DoStep", "EXIT", 30, "process exited with status 3"),
    ("fmi3DoStep", "SEGV", 30, "killed by SIGSEGV"),
    ("fmi3SetContinuousStates", "EXIT", 30, "process exited with status 3"),
    ("fmi2CompletedIntegratorStep", "SEGV", 3, "killed by SIGSEGV"),
    ("fmi3GetFloat64", "SEGV", 5, "killed by SIGSEGV"),  # a recorded row's compiled batch
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("function", "kind", "after", "said"), CRASHES, ids=[c[0] for c in CRASHES]
)
def test_crash_ends_the_run_with_one_line(tmp_path, capsys, function, kind, after, said):
    path, out = faulty_run(tmp_path, function, kind, after)
    err = cli_run(path, out, capsys)
    assert f"{said}" in err and f"in {function} of instance 'spring'" in err, err
    assert_kept(out, "crashed")


# A fresh Python caller of run_supervised (as a script or a sweep's case calls it): each
# (scenario, results folder) given runs with a 1 s stall timeout; prints how its child starts
# and, per run, "done" or the one-line error.
FRESH_CALLER = """
import json, sys
from orchestrator.errors import MurcosimError
from orchestrator.runner.supervise import child_start, run_supervised

reports = [child_start()]
for path, out in json.loads(sys.argv[1]):
    try:
        run_supervised(path, out, sys.argv[2], plots=False, stall_seconds=1.0)
        reports.append("done")
    except MurcosimError as error:
        reports.append(str(error))
print(json.dumps(reports))
"""
# FMI function, fault, good calls before it, [simulation] line added, what the report says
# (None: the run ends), the next-to-last row of events.csv.
SUPERVISED_CASES = {
    "ends": ("fmi2GetDerivatives", "ERROR", 10**9, "", None, "start"),
    "segfault": (
        "fmi2GetDerivatives",
        "SEGV",
        30,
        "",
        "killed by SIGSEGV in fmi2GetDerivatives of instance 'spring'",
        "crashed",
    ),
    "abort": (
        "fmi3GetContinuousStateDerivatives",
        "ABORT",
        30,
        "",
        "killed by SIGABRT in fmi3GetContinuousStateDerivatives of instance 'spring'",
        "crashed",
    ),
    "exit": (
        "fmi2SetContinuousStates",
        "EXIT",
        30,
        "",
        "process exited with status 3 in fmi2SetContinuousStates of instance 'spring'",
        "crashed",
    ),
    "hang": (
        "fmi3DoStep",
        "HANG",
        30,
        "",
        "hung (no progress for 1 s) in fmi3DoStep of instance 'spring'",
        "crashed",
    ),
    "error": (
        "fmi2GetDerivatives",
        "ERROR",
        30,
        "",
        "spring (SpringMass_me.fmu): fmi2GetDerivatives returned 'error'",
        "error",
    ),
    "wall": (
        "fmi2GetDerivatives",
        "ERROR",
        10**9,
        "wall_time_limit = 1e-6",
        "simulation.wall_time_limit",
        "error",
    ),
}
# how the child starts: chosen by the fresh caller (a fork), or by the variable forked from the
# forkserver or a new program
STARTS = {"chosen": None, "forkserver": "forkserver", "program": "program"}


@pytest.fixture(scope="module")
def supervised_runs(tmp_path_factory) -> dict[str, tuple[Path, list[str]]]:
    """Per start: its folder (one results folder per case) and the fresh caller's reports."""
    runs = {}
    for start, variable in STARTS.items():
        folder = tmp_path_factory.mktemp(start)
        paths = []
        for case, (function, kind, after, line, _, _) in SUPERVISED_CASES.items():
            path, _ = faulty_run(folder / case, function, kind, after)
            path.write_text(path.read_text().replace("[simulation]", f"[simulation]\n{line}"))
            paths.append((str(path), str(folder / case / "out")))
        env = {k: v for k, v in os.environ.items() if k != START_VARIABLE}
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
        if variable is not None:
            env[START_VARIABLE] = variable
        command = [sys.executable, "-c", FRESH_CALLER, json.dumps(paths), str(folder)]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        runs[start] = folder, json.loads(done.stdout)
    return runs


def test_a_fresh_caller_forks_its_child(supervised_runs):
    """A Python caller with one thread and no FMU loaded forks its child (the fast start);
    the variable makes it start the child from the forkserver or as a new program."""
    assert supervised_runs["chosen"][1][0] == "fork"
    assert supervised_runs["forkserver"][1][0] == "forkserver"
    assert supervised_runs["program"][1][0] == "program"


@pytest.mark.parametrize("start", STARTS)
@pytest.mark.parametrize("case", SUPERVISED_CASES)
def test_run_supervised_from_python_reports_in_one_line(supervised_runs, start, case):
    """Forked, forked from the forkserver or a new program, the child's run ends with the same
    one-line report naming the instance and the FMI call (or the scenario key), and the same
    closed events.csv."""
    folder, reports = supervised_runs[start]
    report = reports[1 + list(SUPERVISED_CASES).index(case)]
    said, row = SUPERVISED_CASES[case][4:]
    out = folder / case / "out"
    if said is None:
        assert report == "done"
        assert [e["event"] for e in read_events(out / "events.csv")[-2:]] == [row, "stop"]
        return
    assert said in report and len(report.splitlines()) == 1, report
    assert_kept(out, row)


@pytest.mark.parametrize("start", ["forkserver", "program"])
def test_every_start_gives_the_forked_childs_runs(supervised_runs, start):
    """Forked from the forkserver or a new program, the child gives the forked child's time
    series bit for bit and the same reports (their folders aside; the wall time limit's report
    states the wall time reached)."""
    forked, fork_reports = supervised_runs["chosen"]
    other, other_reports = supervised_runs[start]
    for case, fork_report, other_report in zip(
        SUPERVISED_CASES, fork_reports[1:], other_reports[1:], strict=True
    ):
        fork_cols = read_timeseries(forked / case / "out" / "timeseries.csv")
        other_cols = read_timeseries(other / case / "out" / "timeseries.csv")
        assert fork_cols.keys() == other_cols.keys()
        for name in fork_cols:
            assert np.array_equal(fork_cols[name], other_cols[name]), (case, name)
        if case != "wall":
            assert fork_report.replace(str(forked), "") == other_report.replace(str(other), "")


def test_a_bad_start_variable_is_one_line(tmp_path, capsys, monkeypatch):
    path, out = faulty_run(tmp_path, "fmi2GetDerivatives", "ERROR", 10**9)
    monkeypatch.setenv(START_VARIABLE, "spawn")
    err = cli_run(path, out, capsys)
    expected = "expected 'fork', 'forkserver' or 'program' (got 'spawn')"
    assert err == f"murcosim: error: {START_VARIABLE}: {expected}"


@pytest.mark.slow
def test_hung_fmu_is_ended_by_the_stall_timeout(tmp_path, capsys):
    path, out = faulty_run(tmp_path, "fmi3DoStep", "HANG", 30)
    err = cli_run(path, out, capsys, "--stall-timeout", "1")
    assert "hung (no progress for 1 s) in fmi3DoStep of instance 'spring'" in err, err
    assert_kept(out, "crashed")


@pytest.mark.slow
def test_ctrl_c_ends_a_run_stuck_in_c(tmp_path, ctrl_c):
    """The FMU sleeps in fmi2GetDerivatives, deaf to signals: Ctrl-C (SIGINT to the command)
    still ends the run within the grace period, with an 'interrupted' row naming the call."""
    path, out = faulty_run(tmp_path, "fmi2GetDerivatives", "HANG", 100)
    command = [sys.executable, "-m", "orchestrator.cli", "run", str(path), "--out", str(out)]
    process = subprocess.Popen(
        [*command, "--quiet", "--no-plots"],
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    events = out / "events.csv"
    deadline = time.monotonic() + 60
    while not (events.exists() and "start" in events.read_text()):
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.2)
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert err.strip() == "murcosim: interrupted; results written so far are kept", err
    rows = assert_kept(out, "interrupted")
    assert "Ctrl-C in fmi2GetDerivatives of instance 'spring'" in rows[-2]["detail"]


@pytest.mark.parametrize("function", ["fmi2GetReal", "fmi3GetFloat64"])
def test_nan_outputs_of_a_co_simulation_fmu_stop_the_run(tmp_path, function):
    """A Co-Simulation FMU whose outputs turn NaN: the run stops at the first recording point
    that reads them, naming the variable, instead of writing NaN rows and exiting 0."""
    fmu = faulty_fmu(tmp_path / "fmu", function, "NAN_VALUES", 5, ("CoSimulation",))
    path, out = scenario(tmp_path, fmu, co_simulation=True), tmp_path / "out"
    with pytest.raises(MurcosimError, match=r"spring\.\S+ is no longer finite at t = "):
        run_scenario(path, out, tmp_path, plots=False)
    assert_kept(out, "error")


IDLE_SLAVE = """
from pythonfmu import Fmi2Causality, Fmi2Slave, Real


class IdleSlave(Fmi2Slave):
    \"\"\"y = 1: nothing but an FMU whose library keeps a worker thread (pythonfmu's).\"\"\"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.y = 1.0
        self.register_variable(Real("y", causality=Fmi2Causality.output))

    def do_step(self, current_time, step_size):
        return True
"""
# s: the exiting run ends in well under a second; a child waiting for a thread never does
EXIT_WITHIN = 30.0


def test_exit_in_an_fmu_ends_the_child_though_the_caller_holds_a_threaded_fmu(
    tmp_path, monkeypatch
):
    """The caller has loaded pythonfmu's library, whose static destructor joins the worker
    thread it starts; then an FMU of the supervised run calls exit(). The caller has an FMU
    binary mapped, so its child is forked from the forkserver, which never loaded that library:
    its exit runs no destructor waiting for a thread that is not there, and the run ends with
    its one-line report, not a hang (a child forked from this caller hangs here)."""
    threaded = FMU(python_fmu(tmp_path, "idle_slave", IDLE_SLAVE))
    instance = threaded.instantiate("idle")
    instance.setup_experiment(0.0, 1.0)
    instance.initialize(0.0)
    instance.do_step(0.0, 0.1)
    # the instance is held (its library mapped) while the run's child starts: the child comes
    # from the forkserver, not a fork of this process
    binaries = loaded_fmu_binaries()
    assert any("/binaries/linux64/IdleSlave.so" in binary for binary in binaries), binaries
    monkeypatch.delenv(START_VARIABLE, raising=False)
    assert child_start() == "forkserver"
    path, out = faulty_run(tmp_path, "fmi2SetContinuousStates", "EXIT", 30)
    stop = threading.Event()
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: stop.set())
    signal.setitimer(signal.ITIMER_REAL, EXIT_WITHIN)
    try:
        with pytest.raises(MurcosimError) as error:
            run_supervised(path, out, tmp_path, plots=False, stop=stop)
    except KeyboardInterrupt:  # stopped by the alarm
        pytest.fail(f"the run did not end within {EXIT_WITHIN:g} s of wall time")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)
        instance.terminate()
        threaded.close()
    said = "process exited with status 3 in fmi2SetContinuousStates of instance 'spring'"
    assert said in str(error.value) and len(str(error.value).splitlines()) == 1, error.value
    assert_kept(out, "crashed")
