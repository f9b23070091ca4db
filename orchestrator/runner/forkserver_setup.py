"""Imported once by the forkserver of supervised children (``supervise.py``) before it serves:
the run's modules, and SIGINT blocked in it, so that every child it forks starts with SIGINT
blocked, as a child forked from the caller or started as a program does, until ``run_child``
ignores it: a Ctrl-C at the terminal while a child starts is the supervisor's alone. The
forkserver itself ignores SIGINT already (``multiprocessing``); its children restore the
handler it had before, Python's, which would raise ``KeyboardInterrupt`` in them."""

import signal

import orchestrator.runner.run  # noqa: F401 - imported once, before the forks

signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
