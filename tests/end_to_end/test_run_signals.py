"""A supervised run and the signals that end its command: SIGKILL of the command takes the
simulation child with it (even one whose FMU is stuck in C, whether the caller is the command
or a Python program with threads); SIGTERM ends the run as Ctrl-C
does but named as SIGTERM, exit status 143; the stop row's counters are the run's true ones.

The FMUs are the spring-mass test FMUs of ``test_faults`` (free mass, RK4 with 10 ms steps,
rows every 0.1 s); ``HANG`` sleeps forever in C, deaf to signals.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from foreign import spring_mass_fmu
from test_faults import assert_kept, faulty_run, scenario

from orchestrator.recording.tables import read_events
from orchestrator.runner.supervise import START_VARIABLE

ROOT = Path(__file__).resolve().parents[2]
STEP = 0.01  # s, the RK4 step of the scenarios
# A Python caller of run_supervised with a second thread (as a sweep's).
THREADED_CALLER = """
import sys, threading
from orchestrator.runner.supervise import run_supervised

threading.Thread(target=threading.Event().wait, daemon=True).start()
run_supervised(sys.argv[1], sys.argv[2], sys.argv[3], plots=False)
"""


def start(caller: str, path: Path, out: Path, fmu_dir: Path) -> subprocess.Popen:
    """``murcosim run`` (``caller`` "command") or a Python caller with threads ("threaded") on
    the scenario ``path``, once its run has started (the ``start`` row is written)."""
    if caller == "command":
        command = ["-m", "orchestrator.cli", "run", str(path), "--out", str(out), "--quiet"]
        command += ["--no-plots", "--fmu-dir", str(fmu_dir)]
    else:
        command = ["-c", THREADED_CALLER, str(path), str(out), str(fmu_dir)]
    process = subprocess.Popen(
        [sys.executable, *command],
        stderr=subprocess.PIPE,
        text=True,
        cwd=fmu_dir,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    events = out / "events.csv"
    deadline = time.monotonic() + 60
    while not (events.exists() and "start" in events.read_text()):
        assert time.monotonic() < deadline and process.poll() is None, process.stderr.read()
        time.sleep(0.1)
    return process


def _parents() -> dict[int, int]:
    """Parent of every process, from /proc/<pid>/stat."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    return parents


def descendants(pid: int) -> list[int]:
    """The processes below ``pid``: its children, theirs, and so on."""
    parents, found, todo = _parents(), [], [pid]
    while todo:
        children = [child for child, parent in parents.items() if parent == todo[-1]]
        todo.pop()
        found += children
        todo += children
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.parametrize("caller", ["command", "threaded"])
def test_sigkill_of_the_caller_ends_a_child_stuck_in_c(tmp_path, caller):
    """The FMU sleeps in C in fmi2GetDerivatives; SIGKILL of the caller (a CI job's timeout)
    leaves no process of the run behind within 3 s."""
    path, out = faulty_run(tmp_path, "fmi2GetDerivatives", "HANG", 100)
    process = start(caller, path, out, tmp_path)
    time.sleep(0.5)  # well into the hang (the 101st call is at t = 0.25 s, in milliseconds)
    below = descendants(process.pid)
    try:
        assert below, "the run's child process was not found"
        process.kill()
        process.wait()
        deadline = time.monotonic() + 3
        while any(map(alive, below)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in below if alive(pid)]
    finally:
        for pid in below:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def assert_plausible(reached: float, evaluations: int) -> None:
    """``evaluations`` right-hand sides in a run of the free mass stopped between the row at
    ``reached`` (s) and the next (0.1 s later): 4 per RK4 step, one or two per row."""
    steps, rows = round(reached / STEP), round(reached / 0.1) + 1
    assert reached > 0 and 4 * steps <= evaluations <= 4 * (steps + 10) + 2 * rows, (
        reached,
        evaluations,
    )


def stop_row_counts(row: dict[str, str]) -> tuple[int, float]:
    """Right-hand-side evaluations and wall time (s) in a ``stop`` row's detail."""
    said = re.match(
        r"(\d+) right-hand-side evaluations, .*?([\d.e+-]+) s wall time$", row["detail"]
    )
    assert said, row
    return int(said[1]), float(said[2])


def test_sigterm_ends_the_run_named_with_status_143_and_true_counters(tmp_path):
    """SIGTERM to ``murcosim run``: the child writes 'interrupted' naming SIGTERM (not Ctrl-C)
    and a 'stop' row counting the right-hand sides evaluated; the command says so in one line
    and exits with 143 (128 + 15)."""
    fmu = spring_mass_fmu(tmp_path, ("ModelExchange",))
    path = scenario(tmp_path, fmu, co_simulation=False)
    path.write_text(path.read_text().replace("stop_time = 1.0", "stop_time = 1e5"))
    out = tmp_path / "out"
    process = start("command", path, out, tmp_path)
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 143, err
    assert err.strip() == "murcosim: interrupted by SIGTERM; results written so far are kept"
    events = assert_kept(out, "interrupted")
    assert events[-2]["detail"].startswith("SIGTERM after "), events[-2]
    assert_plausible(float(events[-1]["time"]), stop_row_counts(events[-1])[0])


@pytest.mark.slow
def test_sigterm_names_the_call_of_an_fmu_stuck_in_c(tmp_path):
    """The FMU sleeps in C after 100 good fmi2GetDerivatives calls: after the 5 s grace the
    supervisor writes the rows, naming SIGTERM and the call, with the counters of the last
    macro step (t = 0.2 s: 20 RK4 steps, so 80 to 99 evaluations, 3 macro steps)."""
    path, out = faulty_run(tmp_path, "fmi2GetDerivatives", "HANG", 100)
    process = start("command", path, out, tmp_path)
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 143, err
    events = assert_kept(out, "interrupted")
    assert events[-2]["detail"].startswith(
        "SIGTERM in fmi2GetDerivatives of instance 'spring' after "
    ), events[-2]
    assert float(events[-1]["time"]) == pytest.approx(0.2)
    evaluations, wall = stop_row_counts(events[-1])
    assert 80 <= evaluations < 100 and "3 macro steps" in events[-1]["detail"], events[-1]
    assert wall >= 5.0  # the grace period


def test_interrupted_run_in_process_counts_its_right_hand_sides(tmp_path, ctrl_c):
    """Ctrl-C in a run of ``run_scenario`` (no child process): the stop row and the
    statistics count the right-hand sides evaluated until then, not 0."""
    import threading

    from orchestrator.runner.run import run_scenario

    fmu = spring_mass_fmu(tmp_path, ("ModelExchange",))
    path = scenario(tmp_path, fmu, co_simulation=False)
    path.write_text(path.read_text().replace("stop_time = 1.0", "stop_time = 1e5"))
    out = tmp_path / "out"
    events = out / "events.csv"

    def interrupt() -> None:
        while not (events.exists() and "start" in events.read_text()):
            time.sleep(0.05)
        time.sleep(0.3)
        signal.raise_signal(signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        run_scenario(path, out, tmp_path, plots=False)
    rows = read_events(events)
    assert rows[-2]["detail"].startswith("Ctrl-C after "), rows[-2]
    assert_plausible(float(rows[-1]["time"]), stop_row_counts(rows[-1])[0])


def _command(pid: int) -> list[bytes]:
    """The command line of process ``pid`` ([] once it has ended)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def sigint_blocked_or_ignored(pid: int) -> bool | None:
    """Whether SIGINT is blocked or ignored in process ``pid`` (/proc/<pid>/status); None once
    it has ended."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    masks = dict(line.split(":\t") for line in status.splitlines() if line.startswith("Sig"))
    bit = 1 << (signal.SIGINT - 1)
    return bool((int(masks["SigBlk"], 16) | int(masks["SigIgn"], 16)) & bit)


# how the command's child starts: chosen (a fork: the command has one thread and no FMU loaded)
# or, by the variable, forked from the forkserver or a new program; what its parent's and its
# own command lines run
CHILD_PROGRAMS = {
    "chosen": (b"", b"-m orchestrator.cli"),
    "forkserver": (b"multiprocessing.forkserver", b"multiprocessing.forkserver"),
    "program": (b"", b"-m orchestrator.runner.supervised_child"),
}


@pytest.mark.parametrize("start", CHILD_PROGRAMS)
def test_ctrl_c_while_the_child_starts_reaches_the_supervisor_alone(tmp_path, ctrl_c, start):
    """Ctrl-C at a terminal goes to the command and its child (one process group). The child,
    forked from the command (its command line is the command's), from the forkserver (which
    the command starts with SIGINT blocked, so its children start so) or a new interpreter, has
    SIGINT blocked from its start (while it imports) and then ignored: seen in /proc at every
    look from its start to the run's, so a Ctrl-C never raises in it. Ctrl-C then ends the
    command with one line and exit status 130."""
    fmu = spring_mass_fmu(tmp_path, ("ModelExchange",))
    path = scenario(tmp_path, fmu, co_simulation=False)
    path.write_text(path.read_text().replace("stop_time = 1.0", "stop_time = 1e5"))
    out = tmp_path / "out"
    environment = {k: v for k, v in os.environ.items() if k != START_VARIABLE}
    if start != "chosen":
        environment[START_VARIABLE] = start
    command = [sys.executable, "-m", "orchestrator.cli", "run", str(path), "--out", str(out)]
    process = subprocess.Popen(
        [*command, "--quiet", "--no-plots", "--fmu-dir", str(tmp_path)],
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**environment, "PYTHONPATH": str(ROOT)},
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    deadline = time.monotonic() + 60
    # every process below the command, looked at from its start (the command may run others
    # first, such as ctypes' ldconfig), until the run's child writes events.csv
    looks: dict[int, list[bool | None]] = {}
    while not (out / "events.csv").exists():
        assert time.monotonic() < deadline and process.poll() is None, process.stderr.read()
        for pid in descendants(process.pid):
            looks.setdefault(pid, []).append(sigint_blocked_or_ignored(pid))
    # the child: the process below the command that runs the expected code, as its parent
    # does (a new program has replaced the command's image by the time it writes events.csv)
    parents, (parent_runs, runs) = _parents(), CHILD_PROGRAMS[start]
    below = descendants(process.pid)
    (child,) = [
        pid
        for pid in below
        if runs in b" ".join(_command(pid)) and parent_runs in b" ".join(_command(parents[pid]))
    ]
    assert looks.get(child) and all(looks[child]), looks
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert err.strip() == "murcosim: interrupted; results written so far are kept", err
