"""The regression report a person reads (one self-contained HTML file) and JUnit XML for CI.

The HTML page has a table of the cases and, for every signal that left its tube, a plot of the
test run against the reference and its tube (lower and upper bounds); the plots are PNG images
inside the page, so it can be kept as a CI artifact and opened anywhere.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from xml.etree import ElementTree

import numpy as np

from orchestrator.analysis.regression import ERROR, FAILED, CaseResult, SuiteResult
from orchestrator.analysis.regression.compare import SignalResult

PLOTS_PER_CASE = 24  # failing signals plotted per case; the table lists them all

STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin-bottom: 1.5em; }
td, th { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
.passed { color: #1a7f37; } .failed, .error { color: #cf222e; } .updated { color: #9a6700; }
img { max-width: 720px; display: block; margin: 0.5em 0 1.5em; }
"""


def write_junit(result: SuiteResult, path: Path) -> Path:
    """JUnit XML of the suite: a test case per regression case (failure: signals and events
    that differ; error: the case could not run)."""
    failures = sum(c.status == FAILED for c in result.cases)
    errors = sum(c.status == ERROR for c in result.cases)
    suites = ElementTree.Element("testsuites")
    suite = ElementTree.SubElement(
        suites,
        "testsuite",
        name=f"murcosim regress {result.suite.name}",
        tests=str(len(result.cases)),
        failures=str(failures),
        errors=str(errors),
        time=f"{sum(c.seconds for c in result.cases):.3f}",
    )
    for case in result.cases:
        element = ElementTree.SubElement(
            suite,
            "testcase",
            classname=result.suite.stem,
            name=case.name,
            time=f"{case.seconds:.3f}",
        )
        if case.status in (FAILED, ERROR):
            kind = "failure" if case.status == FAILED else "error"
            detail = ElementTree.SubElement(element, kind, message=case.messages[0])
            detail.text = "\n".join(case.messages)
    path.parent.mkdir(parents=True, exist_ok=True)
    ElementTree.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
    return path


def write_html(result: SuiteResult, path: Path) -> Path:
    """The report page: a table of the cases, then each failed case's messages and plots."""
    rows = "".join(
        f"<tr><td><a href='#{html.escape(c.name)}'>{html.escape(c.name)}</a></td>"
        f"<td>{html.escape(c.source)}</td><td class='{c.status}'>{c.status}</td>"
        f"<td>{len(c.signals) - len(c.failed_signals)} of {len(c.signals)}</td>"
        f"<td>{c.seconds:.1f} s</td></tr>"
        for c in result.cases
    )
    verdict = "passed" if result.passed else "failed"
    body = [
        f"<h1>Regression: {html.escape(str(result.suite))} "
        f"<span class='{verdict}'>{verdict}</span></h1>",
        "<table><tr><th>case</th><th>source</th><th>status</th><th>signals in their tubes</th>"
        f"<th>wall time</th></tr>{rows}</table>",
    ]
    for case in result.cases:
        body.append(_case_section(case))
    page = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>murcosim regress {html.escape(result.suite.name)}</title>"
        f"<style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path


def _case_section(case: CaseResult) -> str:
    name = html.escape(case.name)
    parts = [f"<h2 id='{name}'>{name} <span class='{case.status}'>{case.status}</span></h2>"]
    if case.messages:
        items = "".join(f"<li>{html.escape(m)}</li>" for m in case.messages)
        parts.append(f"<ul>{items}</ul>")
    if case.added:
        parts.append(f"<p>Not in the reference: {html.escape(', '.join(case.added))}</p>")
    plotted = [s for s in case.failed_signals if s.plot][:PLOTS_PER_CASE]
    for signal in plotted:
        unit = case.units.get(signal.name, "")
        parts.append(
            f"<img alt='{html.escape(signal.name)}' src='data:image/png;base64,"
            f"{_plot(signal, unit)}'>"
        )
    return "".join(parts)


def _plot(signal: SignalResult, unit: str) -> str:
    """A PNG (base64) of the reference, its tube and the test run of one signal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7.2, 3.2), layout="constrained")
    lower, upper = signal.plot["lower"], signal.plot["upper"]  # each on its own times
    top = np.interp(lower[0], *upper)
    axes.fill_between(lower[0], lower[1], top, color="#8fb8de", alpha=0.5, label="tube")
    axes.plot(*signal.plot["reference"], color="#1f4e79", lw=1.0, label="reference")
    axes.plot(*signal.plot["test"], color="#cf222e", lw=1.0, ls="--", label="test")
    axes.axvline(signal.worst_time, color="#888", lw=0.8, ls=":")
    axes.set_xlabel("time (s)")
    axes.set_ylabel(f"{signal.name} ({unit})" if unit else signal.name)
    axes.set_title(f"{signal.name}: out of its tube by {signal.max_error:.3g}", fontsize=10)
    axes.legend(fontsize=8)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
