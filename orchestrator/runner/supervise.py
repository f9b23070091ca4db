"""A run in a child process, supervised: faults in an FMU's C code do not take the caller down.

A segmentation fault, an abort or an ``exit`` inside an FMU ends only the child; the supervisor
then closes ``events.csv`` with a ``crashed`` row and reports one line naming the instance and
the FMI call the child was in, from breadcrumbs the child leaves in shared memory: the code
(instance and call) of every FMI call on the way in, and the simulation time and count of the
macro steps. The same breadcrumbs detect a hang (no macro step for ``stall_seconds``, once
the first one is made: start-up and loading are not timed) and name the call of an FMU stuck
in C when the user presses Ctrl-C (or the supervisor gets SIGTERM). The child dies with its
caller, however the caller dies (even SIGKILL): no orphan FMU goes on computing.

How the child starts (``child_start``), one of three ways:
- "fork": forked from the caller (``multiprocessing``), when that is safe: the caller runs one
  Python thread (another thread may hold a lock the child would wait for forever) and has no
  FMU binary loaded: no shared object under an unpacked FMU's ``binaries/`` folder is mapped in
  it (``/proc/self/maps``, whoever loaded it: murcosim, FMPy, the user's ctypes; the look costs
  about 0.1 ms of CPU). A fork copies the caller's libraries; an FMU calling ``exit()`` in the
  child then runs the static destructors of those copies, and one that joins its library's
  worker thread (as pythonfmu's does) waits forever for a thread that fork did not copy. The
  run's modules are imported once, before the fork: the child starts in milliseconds.
- "forkserver": forked from ``multiprocessing``'s forkserver, when the caller runs a second
  thread (a sweep starts its cases from threads) or has an FMU binary loaded. The forkserver is
  a new interpreter started once per caller, which imports the run's modules once and loads no
  FMU and no thread of the caller, so its children are as safe as new programs and start
  almost as fast as forks. A script calling ``run_supervised`` must do so under
  ``if __name__ == "__main__":`` (each child imports the caller's main module, as with any
  ``multiprocessing`` start method but fork).
- "program": a new program, ``python -m orchestrator.runner.supervised_child``, started by
  ``subprocess``, which maps the breadcrumbs from a file both share: from a daemonic caller
  (``multiprocessing`` starts no child from one, as a Dask worker is by default). It costs a new
  interpreter's imports per child (some 0.4 s of CPU).
Other shared objects with threads do not count: a forked child runs no static destructor unless
C code in it calls ``exit()`` (it ends with ``os._exit``), the FMUs it runs are loaded after the
fork, and the one threaded library a ``murcosim run`` holds, NumPy's OpenBLAS, stops its threads
before a fork and starts them anew in the child (``pthread_atfork``). A caller holding another
library that waits in a destructor for its threads sets ``MURCOSIM_SUPERVISED_CHILD=forkserver``;
the variable (``fork``, ``forkserver`` or ``program``) overrides the choice.
"""

from __future__ import annotations

import csv
import fcntl
import functools
import gc
import json
import mmap
import multiprocessing.connection
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time as clock
from pathlib import Path
from typing import Any

from orchestrator.errors import MurcosimError
from orchestrator.recording.tables import read_events
from orchestrator.runner.breadcrumbs import MAPPED_BYTES, Breadcrumbs
from orchestrator.runner.interrupts import Interrupted, signal_name, signal_of

# After Ctrl-C (or SIGTERM) the child has this long (s) to write its own 'interrupted' row and
# stop.
GRACE_SECONDS = 5.0
# How often (s) the supervisor looks at the child.
POLL_SECONDS = 0.1
# The environment variable that chooses how the child starts: "fork", "forkserver" or "program"
# (unset or empty: chosen by child_start).
START_VARIABLE = "MURCOSIM_SUPERVISED_CHILD"
STARTS = ("fork", "forkserver", "program")
# multiprocessing reads a forkserver child's exit status from a pipe that every thread's
# Process.start() reads too (it polls all the process's children): two threads reading it at
# once leave one without the status, taken as exit status 255 (CPython issue 130895). The
# supervisors' starts and status reads take turns.
_STATUS = threading.Lock()
# A /proc/self/maps line (address, permissions, offset, device, inode, path) mapping a file of an
# unpacked FMU's binaries, .../binaries/<platform>/<library> (" (deleted)" after it once the
# unpacked folder is removed); the group is the path.
_FMU_BINARY = re.compile(rb"^(?:\S+ +){5}(/.*/binaries/[^/\n]+/[^/\n]+)$", re.MULTILINE)


def run_child(
    path: Path,
    out_dir: Path,
    fmu_dir: Path | None,
    progress: bool,
    plots: bool,
    crumbs: Breadcrumbs,
    sender: Any,
    formats: tuple[str, ...],
    watched: int | None,
) -> None:  # noqa: ANN401
    """The run in the child; ``sender``: the connection its one message goes through;
    ``watched``: the read end of a pipe whose write end only the caller holds (None: the one
    ``multiprocessing`` gives its children)."""
    from orchestrator.runner.run import run_scenario

    if watched is None:
        watched = multiprocessing.parent_process().sentinel  # nothing is ever written to it
    _die_with_caller(watched)
    if progress:
        from tqdm import tqdm

        # a thread lock for the progress bar: tqdm's default one is a semaphore of
        # multiprocessing, which a child killed in C would leave behind (with a warning from
        # the resource tracker)
        tqdm.set_lock(threading.RLock())
    # Ctrl-C belongs to the supervisor, which asks the child to stop with SIGTERM, having
    # written the signal that stopped it (SIGINT or SIGTERM) in the breadcrumbs. The child
    # started with SIGINT blocked (a Ctrl-C while it imported stays pending): ignoring it
    # drops a pending one, then it is let through to be ignored.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGTERM, functools.partial(_interrupt_once, crumbs))
    try:
        result = run_scenario(path, out_dir, fmu_dir, progress, plots, crumbs, formats)
        sender.send(("done", result))
    except MurcosimError as exc:
        sender.send(("error", str(exc)))
    except KeyboardInterrupt as interrupt:
        sender.send(("interrupted", signal_of(interrupt)))
    except Exception as exc:  # noqa: BLE001 - reported as one line by the supervisor
        sender.send(
            (
                "error",
                f"{path}: run stopped at t = {crumbs.time():.6g} s: {type(exc).__name__}: "
                f"{exc} in {crumbs.where(failed=True)} (results so far in {out_dir})",
            )
        )


def _interrupt_once(crumbs: Breadcrumbs, signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Interrupted(crumbs.stop_signal())


def _die_with_caller(watched: int) -> None:
    """Have the kernel kill this child (SIGKILL) when its caller ends, however it ends.

    The caller holds the write end of the pipe whose read end is ``watched`` (the one that
    multiprocessing gives the child as ``parent_process().sentinel``, or one made for a child
    started as a program); the kernel closes it when the caller exits, is killed or crashes.
    With O_ASYNC and F_SETSIG the kernel sends SIGKILL, not SIGIO, to this process when that
    happens: no thread of the child has to run (a Python thread would wait for the interpreter
    lock held by an FMU stuck in C). PR_SET_PDEATHSIG would not do: it follows the thread that
    started the child (a sweep's worker thread), not the caller's process, and a process forked
    from the forkserver is the forkserver's child, which outlives the caller while children use
    it. A caller gone before the watch is set is seen at once. Linux only; elsewhere the child
    is not watched.
    """
    if not hasattr(fcntl, "F_SETSIG"):
        return
    fcntl.fcntl(watched, fcntl.F_SETOWN, os.getpid())
    fcntl.fcntl(watched, fcntl.F_SETSIG, signal.SIGKILL)
    fcntl.fcntl(watched, fcntl.F_SETFL, fcntl.fcntl(watched, fcntl.F_GETFL) | os.O_ASYNC)
    if multiprocessing.connection.wait([watched], 0):  # end of file: the caller is gone
        os.kill(os.getpid(), signal.SIGKILL)


def run_supervised(
    path: Path,
    out_dir: Path,
    fmu_dir: Path | None,
    progress: bool = False,
    plots: bool = True,
    stall_seconds: float | None = None,
    stop: threading.Event | None = None,
    formats: tuple[str, ...] = ("csv",),
) -> Any:  # noqa: ANN401 - the child's RunResult
    """``run_scenario`` in a child process; returns its ``RunResult``.

    A crash or hang of the child (or an FMU ignoring Ctrl-C) is reported as a
    ``MurcosimError`` (or ``KeyboardInterrupt``) after ``events.csv`` is closed with a
    ``crashed`` (``interrupted``) row and a ``stop`` row. A ``KeyboardInterrupt`` here (Ctrl-C,
    or :class:`~orchestrator.runner.interrupts.Interrupted` for SIGTERM) stops the child with the
    signal named in its row, and is raised again. Setting ``stop`` (from another thread) ends
    the run as Ctrl-C does. The child, forked from the caller or from its forkserver or a new
    program (``child_start``), is killed when the caller's process ends.
    """
    how = child_start()
    start = _program_child if how == "program" else functools.partial(_forked_child, how)
    arguments = (
        Path(path),
        Path(out_dir),
        Path(fmu_dir) if fmu_dir is not None else None,
        progress,
        plots,
        tuple(formats),
    )
    started = clock.perf_counter()
    # the child inherits SIGINT blocked, until it ignores it (run_child): a Ctrl-C while it
    # imports is the supervisor's alone, as later
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        child, receiver, crumbs = start(arguments)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        raise
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C held meanwhile is raised here
        outcome = _wait(child, receiver, crumbs, stall_seconds, stop)
    except KeyboardInterrupt as interrupt:
        crumbs.stop_with(signal_of(interrupt))
        child.terminate()
        if not _join(child, GRACE_SECONDS):
            child.kill()
            _join(child)
            what = f"{signal_name(signal_of(interrupt))} in {crumbs.where()}"
            _close_events(out_dir, crumbs, "interrupted", what, started)
        raise
    finally:
        receiver.close()
        if isinstance(child, Child):
            child.close()
    kind, value = outcome
    if kind == "done":
        return value
    if kind == "interrupted":
        raise Interrupted(value)
    if kind == "error":
        raise MurcosimError(value)
    _close_events(out_dir, crumbs, "crashed", f"{value} in {crumbs.where()}", started)
    raise MurcosimError(
        f"{path}: run crashed at t = {crumbs.time():.6g} s: {value} in {crumbs.where()} "
        f"(results so far in {out_dir})"
    )


def child_start() -> str:
    """How the next supervised child starts (module docstring): "program" from a daemonic
    caller, "forkserver" from one running a second thread or with an FMU binary loaded, else
    "fork"; ``MURCOSIM_SUPERVISED_CHILD`` overrides the choice."""
    given = os.environ.get(START_VARIABLE, "")
    daemonic = multiprocessing.current_process().daemon
    if given not in ("", *STARTS):
        raise MurcosimError(
            f"{START_VARIABLE}: expected 'fork', 'forkserver' or 'program' (got {given!r})"
        )
    if given in ("fork", "forkserver") and daemonic:
        raise MurcosimError(
            f"{START_VARIABLE}: a daemonic process starts no {given} child; expected 'program'"
        )
    if given:
        return given
    if daemonic:
        return "program"
    if threading.active_count() > 1 or loaded_fmu_binaries():
        return "forkserver"
    return "fork"


def loaded_fmu_binaries() -> list[str]:
    """The files under an unpacked FMU's ``binaries/`` folder mapped in this process, whoever
    loaded them (``/proc/self/maps``); ["/proc/self/maps"] where that cannot be read (not
    Linux): unknown is taken as loaded."""
    try:
        with open("/proc/self/maps", "rb") as maps:
            mapped = maps.read()
    except OSError:
        return ["/proc/self/maps"]
    if b"/binaries/" not in mapped:  # the common case, found at once
        return []
    return sorted({path.decode(errors="replace") for path in _FMU_BINARY.findall(mapped)})


def _forked_child(how: str, arguments: tuple) -> tuple[Any, Any, Breadcrumbs]:  # noqa: ANN401
    """The child as a ``multiprocessing`` process forked from the caller (``how`` "fork") or
    from its forkserver ("forkserver"), started; (child, receiver, breadcrumbs)."""
    if how == "fork":
        import orchestrator.runner.run  # noqa: F401 - imported once, before the fork

        context = multiprocessing.get_context("fork")
    else:
        context = _forkserver()
    crumbs = Breadcrumbs.shared(context)
    receiver, sender = context.Pipe(duplex=False)
    path, out_dir, fmu_dir, progress, plots, formats = arguments
    child = context.Process(
        target=run_child,
        args=(path, out_dir, fmu_dir, progress, plots, crumbs, sender, formats, None),
    )
    # A forked child's garbage collections leave the objects it inherits alone (Python's advice
    # for fork without exec: no pass over, and no copy of, the parent's memory); the parent
    # collects as before. A forkserver's child inherits nothing of the caller's.
    frozen = how == "fork"
    if frozen:
        gc.freeze()
    try:
        with _STATUS:
            child.start()
    finally:
        if frozen:
            gc.unfreeze()
    sender.close()
    return child, receiver, crumbs


@functools.cache
def _forkserver() -> Any:  # noqa: ANN401 - a multiprocessing context
    """The forkserver's context; the server, started at its first child, imports the run's
    modules once and blocks SIGINT (``forkserver_setup.py``): its children, also those of other
    users of the forkserver in this process, start with SIGINT blocked."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["orchestrator.runner.forkserver_setup"])
    return context


class Child:
    """The child, a new program (``python -m orchestrator.runner.supervised_child``), as the
    supervisor sees it: ``sentinel`` (a pidfd, ready when the child ends), ``join``,
    ``exitcode``, ``terminate``, ``kill``, ``close``.

    The child gets three file descriptors: the breadcrumbs' file (an unlinked temporary file
    both map), the write end of the pipe of its message, and the read end of a pipe whose write
    end only this process holds (closed by the kernel when this process ends: the child's
    watch). Linux only (``os.pidfd_open``).
    """

    def __init__(
        self, arguments: tuple, crumbs_file: int, sender: int, watched: int, watch: int
    ) -> None:
        path, out_dir, fmu_dir, progress, plots, formats = arguments
        spec = {
            "path": str(path),
            "out_dir": str(out_dir),
            "fmu_dir": None if fmu_dir is None else str(fmu_dir),
            "progress": progress,
            "plots": plots,
            "formats": list(formats),
            "fds": [crumbs_file, sender, watched],
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "orchestrator.runner.supervised_child", json.dumps(spec)],
            pass_fds=(crumbs_file, sender, watched),
            stdin=subprocess.DEVNULL,
            env=_child_environment(),
        )
        self.sentinel = os.pidfd_open(self.process.pid)
        self.watch = watch

    @property
    def exitcode(self) -> int | None:
        """The exit status once joined (negative: killed by that signal), else None."""
        return self.process.returncode

    def join(self) -> None:
        """Wait for the child to end and read its exit status."""
        self.process.wait()

    def terminate(self) -> None:
        """Send the child SIGTERM."""
        self.process.terminate()

    def kill(self) -> None:
        """Send the child SIGKILL."""
        self.process.kill()

    def close(self) -> None:
        """Release the pidfd and the watch (the child has ended or is killed with it)."""
        os.close(self.sentinel)
        os.close(self.watch)


def _child_environment() -> dict[str, str]:
    """The caller's environment, with the folder holding ``orchestrator`` first on the path
    (a worker may run from any folder)."""
    root = str(Path(__file__).resolve().parents[2])  # orchestrator/runner/ -> its folder
    paths = [root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _program_child(arguments: tuple) -> tuple[Child, Any, Breadcrumbs]:  # noqa: ANN401
    """The child as a new program, started; (child, receiver of its message, breadcrumbs)."""
    with tempfile.TemporaryFile() as crumbs_file:
        crumbs_file.truncate(MAPPED_BYTES)
        memory = mmap.mmap(crumbs_file.fileno(), MAPPED_BYTES)
        crumbs = Breadcrumbs.mapped(memory, fresh=True)
        received, sent = os.pipe()
        watched, watch = os.pipe()
        try:
            child = Child(arguments, crumbs_file.fileno(), sent, watched, watch)
        except BaseException:
            for fd in (received, watch):
                os.close(fd)
            raise
        finally:
            os.close(sent)
            os.close(watched)
    return child, multiprocessing.connection.Connection(received, writable=False), crumbs


def _wait(
    child: Any,  # noqa: ANN401 - a Child or a multiprocessing Process
    receiver: Any,
    crumbs: Breadcrumbs,
    stall_seconds: float | None,
    stop: threading.Event | None,
) -> tuple[str, Any]:  # noqa: ANN401
    """The child's message, or ("crashed", how) when it died or stalled without one."""
    steps, since = crumbs.steps(), clock.monotonic()
    while True:
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt
        if receiver.poll(POLL_SECONDS):
            try:
                message = receiver.recv()
            except EOFError:  # the child died while sending
                _join(child)
                return "crashed", _death(child.exitcode)
            _join(child)
            return message
        if _join(child, 0):
            if receiver.poll(0):
                continue
            return "crashed", _death(child.exitcode)
        if crumbs.steps() != steps:
            steps, since = crumbs.steps(), clock.monotonic()
        elif stall_seconds is not None and steps and clock.monotonic() - since > stall_seconds:
            child.kill()
            _join(child)
            return "crashed", f"hung (no progress for {stall_seconds:g} s)"


def _join(child: Any, timeout: float | None = None) -> bool:
    """Wait at most ``timeout`` s (None: as long as it takes) for the child to end; whether it
    ended. Its exit status is then read under ``_STATUS``, the wait itself is not."""
    if not multiprocessing.connection.wait([child.sentinel], timeout):
        return False
    with _STATUS:
        child.join()
    return True


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        return f"killed by {signal.Signals(-exitcode).name}"
    return f"process exited with status {exitcode}"


def _close_events(
    out_dir: Path, crumbs: Breadcrumbs, kind: str, detail: str, started: float
) -> None:
    """Append the ``kind`` and ``stop`` rows the child could not write; trim a cut-off last
    row of ``timeseries.csv`` so that the file stays valid CSV."""
    events = Path(out_dir) / "events.csv"
    if not events.exists() or any(e["event"] == "stop" for e in read_events(events)):
        return
    wall = clock.perf_counter() - started
    with events.open("a", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow([repr(crumbs.time()), kind, f"{detail} after {wall:.3g} s wall time"])
        # the counters the child reached at its last macro step, this row's time
        counts = f"{crumbs.evaluations()} right-hand-side evaluations, {crumbs.steps()} macro steps"
        writer.writerow([repr(crumbs.time()), "stop", f"{counts}, {wall:.3g} s wall time"])
    timeseries = Path(out_dir) / "timeseries.csv"
    if timeseries.exists():
        data = timeseries.read_bytes()
        if data and not data.endswith(b"\n"):
            timeseries.write_bytes(data[: data.rfind(b"\n") + 1])
