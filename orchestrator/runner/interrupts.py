"""Runs stopped by a signal, named as what stopped them: Ctrl-C (SIGINT) or SIGTERM (``kill``,
a job's time limit, a container being stopped), with the shell's exit status, 128 + the
signal's number (130, 143).

SIGTERM raises :class:`Interrupted`, a ``KeyboardInterrupt``, so every path that ends a run
cleanly on Ctrl-C (an ``interrupted`` row, results kept) does so on SIGTERM too.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Interrupted(KeyboardInterrupt):
    """A run stopped by the signal ``signum`` (a ``KeyboardInterrupt`` that knows its signal;
    a bare ``KeyboardInterrupt`` is Ctrl-C)."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal_name(signum))
        self.signum = int(signum)


def signal_of(interrupt: BaseException) -> int:
    """The number of the signal that raised ``interrupt`` (SIGINT for a bare
    ``KeyboardInterrupt``)."""
    return getattr(interrupt, "signum", int(signal.SIGINT))


def signal_name(signum: int) -> str:
    """How an interruption by ``signum`` is named in rows and messages: 'Ctrl-C' for SIGINT,
    else the signal's name ('SIGTERM')."""
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


def exit_status(interrupt: BaseException) -> int:
    """The exit status of a command ended by ``interrupt``: 128 + the signal's number."""
    return 128 + signal_of(interrupt)


@contextmanager
def terminate_interrupts() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`Interrupted` in the main thread (as SIGINT raises
    ``KeyboardInterrupt``); a second SIGTERM during the clean-up is ignored (it is bounded:
    a supervised run gives its child a grace period, then kills it). Nothing changes when
    called from another thread, where signal handlers cannot be set."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Interrupted(signum)

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
