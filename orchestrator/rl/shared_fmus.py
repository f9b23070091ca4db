"""``SharedFMUs``: FMUs loaded once for the environments of one process."""

from __future__ import annotations

import os
from pathlib import Path

from orchestrator.fmi.fmu import FMU


class SharedFMUs:
    """FMUs loaded once and shared by the environments of one process, each with instances
    of its own.

    Each environment otherwise loads its own copy of every FMU (unpacked, its library linked
    again), so a process stepping several environments in turn runs as many copies of each
    model's machine code, which crowd each other out of the processor's caches. Environments
    given the same ``SharedFMUs`` take an FMU from it when it is there and add it when not;
    the FMUs are closed with the last of them. An FMU file rebuilt while they are open is
    loaded by environments given a new ``SharedFMUs``.

    FMUs never cross processes: a ``SharedFMUs`` pickled into a worker process (``spawn``)
    arrives empty, and one used in a process forked from its own starts empty there.
    """

    def __init__(self) -> None:
        self._pid = os.getpid()
        self._loaded: dict[tuple[Path, str], FMU] = {}
        self._users = 0

    def acquire(self) -> dict[tuple[Path, str], FMU]:
        """The FMUs loaded so far by (path, interface), for one more environment to use and
        add to (:class:`~orchestrator.system.system.System`'s ``loaded``)."""
        if self._pid != os.getpid():  # a forked copy: the FMUs are the parent's
            self.__init__()
        self._users += 1
        return self._loaded

    def release(self) -> None:
        """One environment less; the last one closes the FMUs."""
        self._users -= 1
        if self._users == 0:
            for fmu in self._loaded.values():
                fmu.close()
            self._loaded.clear()

    def __getstate__(self) -> dict:
        return {}

    def __setstate__(self, state: dict) -> None:
        self.__init__()
