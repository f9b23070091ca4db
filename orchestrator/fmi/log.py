"""What an FMU instance says through its logger, kept for the messages of failed calls.

FMPy's default logger prints every message to standard output, apart from the error it
explains. Here an instance's messages of status warning and above are kept (the last
``KEPT``), so that a call that fails names the FMU's own words, e.g.
``fmi3ExitInitializationMode failed ... (the FMU said, error: assert failed at ...)``.

FMI 2.0 loggers are variadic, which ctypes cannot receive: FMPy's C proxy formats the message
and calls one Python logger, held in a single global of its library for every FMI 2.0 instance
of the process. That logger is therefore this module's, for the life of the process; it hands
each message to the log registered under the instance's componentEnvironment, and the messages
of other instances (FMPy's default callbacks) to FMPy's printing logger.
"""

from __future__ import annotations

import itertools
import weakref
from collections import deque
from ctypes import byref

from fmpy import fmi2
from fmpy.fmi2 import fmi2CallbackFunctions, fmi2CallbackLoggerTYPE

KEPT = 8  # messages kept per instance
_LABELS = ("ok", "warning", "discard", "error", "fatal", "pending")
_ERROR = 3
_LOGS: weakref.WeakValueDictionary[int, FMULog] = weakref.WeakValueDictionary()
_KEYS = itertools.count(1)  # componentEnvironment of each FMI 2.0 log, never 0 (NULL)


def _dispatch(
    environment: int | None, instance: bytes, status: int, category: bytes, message: bytes
) -> None:
    """FMPy's proxy's only Python logger: the message to its instance's log, if any."""
    log = _LOGS.get(environment) if environment else None
    if log is None:
        fmi2.printLogMessage(environment, instance, status, category, message)
    else:
        log._log(status, message)


_DISPATCH = fmi2CallbackLoggerTYPE(_dispatch)  # never freed: FMPy's proxy may call it any time


def _proxied(environment: int) -> fmi2CallbackFunctions:
    """Callback functions for an instance whose componentEnvironment is ``environment``, their
    logger FMPy's proxy calling ``_dispatch``. The proxy's global is set again on every call:
    FMPy's ``simulate_fmu`` with a logger points it at a logger of its own that dies with the
    call, and an instance made after that must not log through it."""
    from fmpy.logging import addLoggerProxy

    callbacks = fmi2CallbackFunctions()
    callbacks.logger = _DISPATCH
    callbacks.allocateMemory = fmi2.defaultCallbacks.allocateMemory
    callbacks.freeMemory = fmi2.defaultCallbacks.freeMemory
    callbacks.componentEnvironment = environment
    addLoggerProxy(byref(callbacks))
    return callbacks


class FMULog:
    """An instance's log: pass :meth:`fmi2_callbacks` or :meth:`fmi3_logger` when it is
    instantiated; :meth:`said` is the text for a failed call's message."""

    def __init__(self) -> None:
        self.messages: deque[tuple[int, str]] = deque(maxlen=KEPT)
        self._keep: list[object] = []  # callback structs must outlive the instance

    def _log(self, status: int, message: bytes | str | None) -> None:
        if status >= 1 and message:
            text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
            self.messages.append((status, " ".join(text.split())))

    def fmi2_callbacks(self) -> object:
        """FMI 2.0 callback functions whose logger keeps the messages: FMPy's proxy (it
        formats the variadic arguments), this log registered under their componentEnvironment."""
        key = next(_KEYS)
        _LOGS[key] = self
        callbacks = _proxied(key)
        self._keep.append(callbacks)
        return callbacks

    def fmi3_logger(self) -> object:
        """An FMI 3.0 ``logMessage`` function keeping the messages (FMPy wraps it)."""
        return lambda environment, status, category, message: self._log(status, message)

    def said(self) -> str:
        """`` (the FMU said: ...)`` with its latest error (else warning) messages, or ``""``."""
        worst = max((status for status, _ in self.messages), default=0)
        if not worst:
            return ""
        texts = [text for status, text in self.messages if status >= min(worst, _ERROR)]
        return f" (the FMU said, {_LABELS[worst]}: {'; '.join(dict.fromkeys(texts[-3:]))})"
