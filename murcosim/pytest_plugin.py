"""pytest plugin: regression suites as tests, and a fixture to run one from a test.

Installed with murcosim (entry point ``pytest11``), it collects every suite file named
``regress*.toml`` under the test paths: each case is a test item, failing with the signals that
left their tubes and the events that differ. Options: ``--murcosim-update`` stores the runs that
differ as the new references (the items pass and say what changed), ``--murcosim-report DIR``
writes one HTML report per suite file there. The fixture ``murcosim_regress(suite, cases=None)``
runs a suite from a test and fails it with the same messages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from orchestrator.analysis.regression import (
    ERROR,
    FAILED,
    UPDATED,
    CaseResult,
    SuiteResult,
    regress,
)
from orchestrator.analysis.regression.report import write_html
from orchestrator.analysis.regression.suite import load_suite
from orchestrator.errors import MurcosimError

_RESULTS = pytest.StashKey[dict[Path, list[CaseResult]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's options."""
    group = parser.getgroup("murcosim", "murcosim regression suites (regress*.toml)")
    group.addoption(
        "--murcosim-update",
        action="store_true",
        help="store the runs that differ from their references as the new references",
    )
    group.addoption("--murcosim-report", type=Path, help="folder of the suites' HTML reports")


def pytest_configure(config: pytest.Config) -> None:
    """A place for the case results of the session, for the reports."""
    config.stash[_RESULTS] = {}


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.File | None:
    """A ``regress*.toml`` file is a suite: one item per case."""
    if file_path.suffix == ".toml" and file_path.name.startswith("regress"):
        return SuiteFile.from_parent(parent, path=file_path)
    return None


class SuiteFile(pytest.File):
    """A suite file; a bad one is a collection error of one line."""

    def collect(self) -> Iterator[CaseItem]:
        """One item per case, in file order."""
        try:
            suite = load_suite(self.path)
        except MurcosimError as exc:
            raise self.CollectError(str(exc)) from None
        for name in suite.cases:
            yield CaseItem.from_parent(self, name=name)


class CaseFailedError(Exception):
    """A case failed or could not run; the message lists why, a line each."""


class CaseItem(pytest.Item):
    """One case of a suite file."""

    def runtest(self) -> None:
        """Run the case against its reference (or store it, with ``--murcosim-update``)."""
        update = bool(self.config.getoption("murcosim_update"))
        result = regress(self.path, [self.name], update, report=lambda _: None).cases[0]
        self.config.stash[_RESULTS].setdefault(self.path, []).append(result)
        if result.status in (FAILED, ERROR):
            raise CaseFailedError("\n".join(result.messages))
        if result.status == UPDATED:
            self.user_properties.append(("murcosim", "; ".join(result.messages)))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str:  # noqa: ANN001
        """The case's messages, without a traceback of the plugin."""
        if isinstance(excinfo.value, CaseFailedError | MurcosimError):
            return f"{self.path.name}: case {self.name}:\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Where the case is: its suite file."""
        return self.path, 0, f"regression case {self.name}"


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write each suite's HTML report when ``--murcosim-report`` is given."""
    folder = session.config.getoption("murcosim_report", None)
    if folder is None:
        return
    for suite, cases in session.config.stash[_RESULTS].items():
        write_html(SuiteResult(suite, cases), Path(folder) / f"{suite.stem}.html")


@pytest.fixture
def murcosim_regress(request: pytest.FixtureRequest) -> Callable[..., SuiteResult]:
    """``murcosim_regress(suite, cases=None)``: run a suite file and fail the test with the
    messages of every case that failed; returns the :class:`SuiteResult`."""
    update = bool(request.config.getoption("murcosim_update"))

    def run(suite: str | Path, cases: list[str] | None = None) -> SuiteResult:
        result = regress(Path(suite), cases, update, report=lambda _: None)
        failed = [c for c in result.cases if c.status in (FAILED, ERROR)]
        if failed:
            lines = [f"case {c.name}: {m}" for c in failed for m in c.messages]
            pytest.fail("\n".join(lines), pytrace=False)
        return result

    return run
