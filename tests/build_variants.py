"""The four variants of a test library's FMUs (FMI 3.0 and 2.0, Model Exchange and
Co-Simulation) and the library built once into them, for the build tests."""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from ctypes import byref
from pathlib import Path

import numpy as np
import pytest
from fmpy import simulate_fmu
from fmpy.fmi2 import fmi2CallbackFunctions, fmi2CallbackLoggerTYPE, printLogMessage
from fmpy.logging import addLoggerProxy

from orchestrator.compiler import build_library
from orchestrator.errors import BuildError

# (FMU file variant, FMI interface): "me" is the FMI 3.0 file with both interfaces
VARIANTS = [
    ("me", "ModelExchange"),
    ("fmi3", "CoSimulation"),
    ("fmi2", "ModelExchange"),
    ("fmi2", "CoSimulation"),
]


class LogLines(logging.Handler):
    """The messages from ``level`` up logged while it is attached to a logger, as lines."""

    def __init__(self, level: int = logging.WARNING) -> None:
        super().__init__(level)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def built_fmus(library: Path, out: Path, **options: object) -> dict[tuple[str, str], Path]:
    """The FMUs of ``library`` built by rumoca into ``out`` (``options`` go to
    build_library), by (variant, model's last name)."""
    built = build_library(library, out, backend="rumoca", report=lambda _: None, **options)
    return {(p.parent.name if p.parent != out else "me", p.stem): p for p in built}


def built_fmus_logged(
    library: Path, out: Path, logger: str, **options: object
) -> tuple[dict[tuple[str, str], Path], list[str]]:
    """:func:`built_fmus`, with the warnings ``logger`` logged while building, as lines."""
    lines = LogLines()
    log = logging.getLogger(logger)
    log.addHandler(lines)
    try:
        return built_fmus(library, out, **options), lines.lines
    finally:
        log.removeHandler(lines)


def shared_fmus(
    tmp_path_factory: pytest.TempPathFactory,
    library: Path,
    library_path: list[Path],
    models: list[str] | None = None,
) -> dict[tuple[str, str], Path]:
    """The FMUs of ``models`` of ``library`` (all by default), as :func:`built_fmus` gives
    them, from one folder that the modules building this library share for the whole run,
    also across the suite's worker processes (``pytest -n``): they take turns under a lock,
    and a model another module has built is found up to date rather than built again."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder above each worker's own
    key = "\0".join(str(p.resolve()) for p in [library, *library_path])
    out = base / f"shared-{library.name}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    out.mkdir(exist_ok=True)
    with open(out.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return built_fmus(library, out, library_path=library_path, models=models)


def assert_agrees_in_four_variants(
    fmu_of: Callable[[str], Path], reference: dict[str, np.ndarray], times: np.ndarray, label: str
) -> None:
    """Each variant's FMU (``fmu_of(variant)``), simulated by FMPy at rtol 1e-10 on the grid of
    ``times``, gives every ``reference`` output at ``times`` to 1e-6."""
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmu_of(variant)),
            fmi_type=interface,
            stop_time=times[-1],
            output_interval=times[1] - times[0],
            relative_tolerance=1e-10,
            output=list(reference),
        )
        for name, expected in reference.items():
            got = np.interp(times, result["time"], result[name])
            error = np.max(np.abs(got - expected))
            assert error < 1e-6, f"{label} {variant} {interface} {name}: error {error:.2e}"


def one_line_refusal(tmp_path: Path, text: str) -> str:
    """The message of the refused build of model ``Bad.M`` in a package ``Bad`` written as
    ``text`` (one file), asserted to be one line."""
    folder = tmp_path / "Bad"
    folder.mkdir()
    (folder / "package.mo").write_text(text)
    with pytest.raises(BuildError) as caught:
        build_library(folder, tmp_path / "out", variants=("me",), report=print, models=["Bad.M"])
    message = str(caught.value)
    assert "\n" not in message, message
    return message


# FMPy's own printing logger as a ctypes callback that lives as long as the process
_PRINTING_LOGGER = fmi2CallbackLoggerTYPE(printLogMessage)


@contextmanager
def fmpy_messages() -> Iterator[tuple[list[bytes], Callable[..., None]]]:
    """The messages an FMU logs through FMPy's ``logger=`` argument (``simulate_fmu``,
    ``instantiate_fmu``), and that logger. FMPy's native proxy, which formats FMI 2.0
    messages, keeps one logger for the whole process: left at this one, whose ctypes callback
    FMPy frees with the instance, the next FMU logging through FMPy's default callbacks
    would call freed memory. Afterwards the proxy is pointed back at FMPy's printing logger."""
    messages: list[bytes] = []
    try:
        yield messages, lambda *message: messages.append(message[-1])
    finally:
        callbacks = fmi2CallbackFunctions()
        callbacks.logger = _PRINTING_LOGGER
        addLoggerProxy(byref(callbacks))
