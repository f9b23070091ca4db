"""What an FMU instance says through its logger, kept for the messages of failed calls.

FMPy's default logger prints every message to standard output, apart from the error it
explains. Here an instance's messages of status warning and above are kept (the last
``KEPT``), so that a call that fails names the FMU's own words, e.g.
``fmi3ExitInitializationMode failed ... (the FMU said, error: assert failed at ...)``.
"""

from __future__ import annotations

from collections import deque
from ctypes import byref

from fmpy import fmi2
from fmpy.fmi2 import fmi2CallbackFunctions, fmi2CallbackLoggerTYPE

KEPT = 8  # messages kept per instance
_LABELS = ("ok", "warning", "discard", "error", "fatal", "pending")
_ERROR = 3


class FMULog:
    """An instance's log: pass :meth:`fmi2_callbacks` or :meth:`fmi3_logger` when it is
    instantiated; :meth:`said` is the text for a failed call's message."""

    def __init__(self) -> None:
        self.messages: deque[tuple[int, str]] = deque(maxlen=KEPT)
        self._keep: list[object] = []  # C callbacks must outlive the instance

    def _log(self, status: int, message: bytes | str | None) -> None:
        if status >= 1 and message:
            text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
            self.messages.append((status, " ".join(text.split())))

    def fmi2_callbacks(self) -> object:
        """FMI 2.0 callback functions whose logger keeps the messages (FMPy's proxy formats
        the variadic arguments)."""
        from fmpy.logging import addLoggerProxy

        callbacks = fmi2CallbackFunctions()
        logger = fmi2CallbackLoggerTYPE(
            lambda environment, instance, status, category, message: self._log(status, message)
        )
        callbacks.logger = logger
        callbacks.allocateMemory = fmi2.defaultCallbacks.allocateMemory
        callbacks.freeMemory = fmi2.defaultCallbacks.freeMemory
        addLoggerProxy(byref(callbacks))
        self._keep += [callbacks, logger]
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
