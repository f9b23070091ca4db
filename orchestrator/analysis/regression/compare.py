"""Comparison of a case's results with its reference: tolerance tubes and events.

A signal passes when every test point lies in the reference's tube, computed by pyfunnel (the
comparison BuildingsPy's Modelica regression tests use): around each reference point a rectangle
of half-width ``time`` (s) and half-height ``atol + rtol |y_ref|``, joined into an envelope; the
error at a test point is its distance outside the envelope (0 inside). Events pass when both runs
have the same kinds in the same order, each at a time within ``events`` seconds.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from orchestrator.analysis.regression.suite import Tolerance


@dataclass
class SignalResult:
    """One signal's verdict. ``max_error`` is the largest distance outside the tube (in the
    signal's unit; 0 when inside), at ``worst_time`` (s); ``problem`` says why a signal failed
    without a tube (missing, cut short, not finite). A failed signal keeps the arrays to plot:
    reference and test ``(time, value)`` and the tube's ``lower`` and ``upper`` bounds."""

    name: str
    tolerance: Tolerance
    passed: bool
    max_error: float = 0.0
    worst_time: float = float("nan")
    problem: str = ""
    plot: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)

    def describe(self) -> str:
        """One line: what went wrong with this signal."""
        if self.problem:
            return f"{self.name}: {self.problem}"
        return (
            f"{self.name}: left its tube by {self.max_error:.3g} at t = {self.worst_time:.6g} s "
            f"(atol {self.tolerance.atol:g}, rtol {self.tolerance.rtol:g}, time "
            f"{self.tolerance.time:g} s)"
        )


def compare_signal(
    name: str,
    reference: tuple[np.ndarray, np.ndarray],
    test: tuple[np.ndarray, np.ndarray] | None,
    tolerance: Tolerance,
) -> SignalResult:
    """The verdict on one signal: ``reference`` and ``test`` are ``(time, value)`` arrays."""
    if test is None:
        return SignalResult(name, tolerance, False, problem="not in the results (dropped?)")
    (x_ref, y_ref), (x_test, y_test) = reference, test
    if not np.all(np.isfinite(y_test)):
        first = float(x_test[np.argmin(np.isfinite(y_test))])
        return SignalResult(name, tolerance, False, problem=f"not finite from t = {first:.6g} s")
    if len(x_test) < 2 or abs(x_test[-1] - x_ref[-1]) > 1e-9 * max(1.0, abs(x_ref[-1])):
        end = f"{x_test[-1]:.6g}" if len(x_test) else "-"
        problem = f"ends at t = {end} s, the reference at {x_ref[-1]:.6g} s"
        return SignalResult(name, tolerance, False, problem=problem)
    with tempfile.TemporaryDirectory(prefix="murcosim-tube-") as folder:
        _funnel(x_ref, y_ref, x_test, y_test, tolerance, folder)
        errors = _read(Path(folder) / "errors.csv")
        worst = int(np.argmax(errors[1]))
        max_error = float(errors[1][worst])
        if max_error <= 0.0:
            return SignalResult(name, tolerance, True)
        plot = {
            "reference": (x_ref, y_ref),
            "test": (x_test, y_test),
            "lower": _read(Path(folder) / "lowerBound.csv"),
            "upper": _read(Path(folder) / "upperBound.csv"),
        }
    return SignalResult(name, tolerance, False, max_error, float(errors[0][worst]), plot=plot)


def _funnel(
    x_ref: np.ndarray,
    y_ref: np.ndarray,
    x_test: np.ndarray,
    y_test: np.ndarray,
    tolerance: Tolerance,
    folder: str,
) -> None:
    import pyfunnel

    with contextlib.redirect_stdout(io.StringIO()):  # pyfunnel prints its C log's warnings
        pyfunnel.compareAndReport(
            x_ref.tolist(),
            y_ref.tolist(),
            x_test.tolist(),
            y_test.tolist(),
            outputDirectory=folder,
            atolx=tolerance.time,
            atoly=tolerance.atol,
            ltoly=tolerance.rtol,
        )


def _read(path: Path) -> tuple[np.ndarray, np.ndarray]:
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return data[:, 0], data[:, 1]


def compare_events(
    reference: list[tuple[float, str]], test: list[tuple[float, str]], tolerance: float
) -> list[str]:
    """The differences between two event lists, one line each (empty when they agree)."""
    problems = []
    for k, (ref, new) in enumerate(zip(reference, test, strict=False)):
        if ref[1] != new[1]:
            problems.append(
                f"event {k + 1}: '{new[1]}' at {new[0]:.6g} s where the reference has "
                f"'{ref[1]}' at {ref[0]:.6g} s"
            )
        elif abs(ref[0] - new[0]) > tolerance:
            problems.append(
                f"event {k + 1} '{ref[1]}': at {new[0]:.9g} s, the reference at {ref[0]:.9g} s "
                f"(tolerance {tolerance:g} s)"
            )
    for time, kind in reference[len(test) :]:
        problems.append(f"event '{kind}' at {time:.6g} s of the reference is missing")
    for time, kind in test[len(reference) :]:
        problems.append(f"event '{kind}' at {time:.6g} s is not in the reference")
    return problems


def compare_columns(
    reference: tuple[np.ndarray, dict[str, np.ndarray]],
    test: tuple[np.ndarray, dict[str, np.ndarray]],
    tolerance_of: Callable[[str], Tolerance],
) -> list[SignalResult]:
    """Every reference signal against the test's column of the same name, in reference order."""
    x_ref, ref_columns = reference
    x_test, test_columns = test
    return [
        compare_signal(
            name,
            (x_ref, values),
            (x_test, test_columns[name]) if name in test_columns else None,
            tolerance_of(name),
        )
        for name, values in ref_columns.items()
    ]
