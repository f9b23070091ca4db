"""Regression of a user's components and scenarios against stored reference results.

:func:`regress` runs the cases of a suite file (``suite.py`` describes it), compares each with its
reference by tolerance tubes and events (``compare.py``), and with ``update`` stores the new
results as references, saying what changed. ``report.py`` writes the HTML report and the JUnit
XML of a :class:`SuiteResult`; ``variants.py`` checks that an FMU's variants agree.
"""

from __future__ import annotations

import difflib
import time as clock
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.analysis.regression.cases import CaseRun, run_case
from orchestrator.analysis.regression.compare import SignalResult, compare_columns, compare_events
from orchestrator.analysis.regression.references import read_reference, write_reference
from orchestrator.analysis.regression.suite import Case, Suite, load_suite
from orchestrator.errors import MurcosimError, ScenarioError
from orchestrator.recording.patterns import matches

PASSED, FAILED, ERROR, UPDATED = "passed", "failed", "error", "updated"


@dataclass
class CaseResult:
    """One case's outcome. ``status`` is passed, failed (a signal left its tube, an event
    differs, a signal is missing, or there is no reference), error (the case could not run) or
    updated (``update`` was asked and the run differed from its reference, or had none: the
    run is the new reference, and the messages say what changed); ``messages`` are the one-line
    reasons, ``added`` the signals the run has and the reference has not, ``seconds`` the wall
    time of the case."""

    name: str
    source: str
    status: str
    signals: list[SignalResult] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    units: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def failed_signals(self) -> list[SignalResult]:
        """The signals that left their tubes or are missing."""
        return [s for s in self.signals if not s.passed]


@dataclass
class SuiteResult:
    """All cases of a suite run; ``passed`` when none failed or could not run."""

    suite: Path
    cases: list[CaseResult]

    @property
    def passed(self) -> bool:
        """True when every case passed or was updated."""
        return all(c.status in (PASSED, UPDATED) for c in self.cases)


def regress(
    suite_file: Path,
    cases: list[str] | None = None,
    update: bool = False,
    report: Callable[[str], None] = print,
) -> SuiteResult:
    """Run the suite's ``cases`` (default all) and compare them with their references; with
    ``update`` store each run as its case's new reference. ``report`` gets one line per case."""
    suite_file = Path(suite_file)
    suite = load_suite(suite_file)
    names = cases or list(suite.cases)
    unknown = [n for n in names if n not in suite.cases]
    if unknown:
        close = difflib.get_close_matches(unknown[0], suite.cases, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ScenarioError(f"{suite_file}: no case '{unknown[0]}'{hint}")
    results = []
    for name in names:
        result = _case(suite_file, suite, name, update)
        report(case_line(result))
        results.append(result)
    return SuiteResult(suite_file, results)


def _case(suite_file: Path, suite: Suite, name: str, update: bool) -> CaseResult:
    case = suite.cases[name]
    base = suite_file.parent
    where = f"{suite_file}: cases.{name}"
    source = str(case.scenario or case.fmu)
    started = clock.perf_counter()
    try:
        run = _selected(run_case(case, base, where), case.signals, where)
    except MurcosimError as exc:
        return CaseResult(name, source, ERROR, messages=[str(exc)],
                          seconds=clock.perf_counter() - started)  # fmt: skip
    folder = base / suite.references
    reference = read_reference(folder, name)
    result = CaseResult(name, source, FAILED, units=run.units)
    if reference is None:
        missing = "new reference stored" if update else "no reference (store one with --update)"
        result.messages.append(f"{missing}: {folder / name}.csv")
    else:
        result = _compared(result, case, suite, reference.run, run)
    if update and (result.status != PASSED or result.added):
        write_reference(folder, name, run, source)
        result.status = UPDATED
    result.seconds = clock.perf_counter() - started
    return result


def _selected(run: CaseRun, patterns: list[str] | None, where: str) -> CaseRun:
    """``run`` with only the columns ``patterns`` match; a pattern that matches nothing is an
    error naming the closest columns."""
    if patterns is None:
        return run
    for pattern in patterns:
        if not any(matches(n, pattern) for n in run.columns):
            close = difflib.get_close_matches(pattern, run.columns, n=3, cutoff=0.5)
            hint = f" (closest: {', '.join(close)})" if close else ""
            raise ScenarioError(f"{where}.signals: '{pattern}' matches no recorded column{hint}")
    kept = {n: v for n, v in run.columns.items() if any(matches(n, p) for p in patterns)}
    return CaseRun(run.time, kept, run.units, run.events)


def _compared(
    result: CaseResult, case: Case, suite: Suite, reference: CaseRun, run: CaseRun
) -> CaseResult:
    wanted = (
        reference.columns
        if case.signals is None
        else {
            n: v for n, v in reference.columns.items() if any(matches(n, p) for p in case.signals)
        }
    )
    result.signals = compare_columns(
        (reference.time, wanted),
        (run.time, run.columns),
        lambda signal: case.tolerance_of(signal, suite.tolerance),
    )
    result.added = [n for n in run.columns if n not in wanted]
    event_tolerance = case.tolerance.over(suite.tolerance).events
    result.messages += [s.describe() for s in result.failed_signals]
    result.messages += compare_events(reference.events, run.events, event_tolerance)
    result.status = FAILED if result.messages else PASSED
    return result


def case_line(result: CaseResult) -> str:
    """The one line a case prints: its status and, when it failed, what failed."""
    text = f"{result.status:<8}{result.name} ({result.source}, {result.seconds:.1f} s)"
    failed = result.failed_signals
    if result.status == ERROR:
        return f"{text}: {result.messages[0]}"
    if failed:
        names = ", ".join(s.name for s in failed[:5]) + (" ..." if len(failed) > 5 else "")
        text += f": {len(failed)} of {len(result.signals)} signals left their tubes ({names})"
    other = [m for m in result.messages if not any(m.startswith(s.name + ":") for s in failed)]
    if other:
        text += ("; " if failed else ": ") + "; ".join(other[:3])
    if result.added:
        text += f"; {len(result.added)} signal(s) not in the reference"
    return text
