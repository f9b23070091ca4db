"""``murcosim.regress``: a regression suite of components and scenarios, from Python.

    import murcosim
    result = murcosim.regress("tests/regress_components.toml", html="report.html")
    assert result.passed, "\\n".join(m for case in result.cases for m in case.messages)

The suite file, the tubes and the references are those of ``murcosim regress`` (see
``orchestrator/analysis/regression/suite.py``); pytest collects suite files named
``regress*.toml`` by itself (``murcosim.pytest_plugin``).
"""

from __future__ import annotations

from pathlib import Path

from orchestrator.analysis.regression import CaseResult, SuiteResult
from orchestrator.analysis.regression import regress as run_suite
from orchestrator.analysis.regression.report import write_html, write_junit

__all__ = ["CaseResult", "SuiteResult", "regress"]


def regress(
    suite: str | Path,
    *,
    cases: list[str] | None = None,
    update: bool = False,
    html: str | Path | None = None,
    junit: str | Path | None = None,
    quiet: bool = False,
) -> SuiteResult:
    """Run the suite file's ``cases`` (default all) against their stored references.

    ``update`` stores the runs that differ from their references (or have none) as the new
    references; ``html`` and ``junit`` are files the report and the JUnit XML are written to;
    ``quiet`` leaves out the line printed per case. A bad suite file raises
    :class:`murcosim.ScenarioError`; failed cases do not raise: see ``result.passed`` and each
    case's ``status`` and ``messages``.
    """
    result = run_suite(Path(suite), cases, update, report=(lambda _: None) if quiet else print)
    if html is not None:
        write_html(result, Path(html))
    if junit is not None:
        write_junit(result, Path(junit))
    return result
