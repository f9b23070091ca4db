"""Faulty FMUs: every fault ends the run with one line naming the instance and the FMI call,
an ``error``/``crashed``/``interrupted`` row in ``events.csv`` and valid CSV up to the fault.

The FMU is the spring-mass test FMU (free mass: x(t) = x0 + v0 t) with one FMI function made
to fail after a number of good calls (``faulty.py``). Crashes, hangs and Ctrl-C need the
supervised child process of ``murcosim run``; error statuses and NaN are caught in-process.
"""

from __future__ import annotations

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
from orchestrator.runner.supervise import run_supervised

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


@pytest.mark.parametrize(
    ("function", "kind", "said"),
    [
        ("fmi2GetDerivatives", "SEGV", "SIGSEGV in fmi2GetDerivatives of instance 'spring'"),
        ("fmi3DoStep", "HANG", "hung (no progress for 1 s) in fmi3DoStep of instance 'spring'"),
        ("fmi2GetDerivatives", "ERROR", "spring (SpringMass_me.fmu): fmi2GetDerivatives returned"),
    ],
)
def test_run_supervised_from_python_reports_in_one_line(tmp_path, function, kind, said):
    """``run_supervised`` called from Python (as a sweep or a Dask worker calls it): the same
    one-line reports as the command, naming the instance and the FMI call, and the same closed
    events.csv."""
    path, out = faulty_run(tmp_path, function, kind, 30)
    with pytest.raises(MurcosimError) as error:
        run_supervised(path, out, tmp_path, plots=False, stall_seconds=1.0)
    assert said in str(error.value) and len(str(error.value).splitlines()) == 1, error.value
    assert_kept(out, "error" if kind == "ERROR" else "crashed")


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


def test_exit_in_an_fmu_ends_the_child_though_the_caller_holds_a_threaded_fmu(tmp_path):
    """The caller has loaded pythonfmu's library, whose static destructor joins the worker
    thread it starts; then an FMU of the supervised run calls exit(). The child, a new program,
    holds no copy of that library, so its exit runs no destructor waiting for a thread that
    is not there: the run ends with its one-line report, not a hang."""
    threaded = FMU(python_fmu(tmp_path, "idle_slave", IDLE_SLAVE))
    instance = threaded.instantiate("idle")
    instance.setup_experiment(0.0, 1.0)
    instance.initialize(0.0)
    instance.do_step(0.0, 0.1)
    instance.terminate()
    threaded.close()
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
    said = "process exited with status 3 in fmi2SetContinuousStates of instance 'spring'"
    assert said in str(error.value) and len(str(error.value).splitlines()) == 1, error.value
    assert_kept(out, "crashed")
