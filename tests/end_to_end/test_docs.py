"""The README and docs as a user copies them: every TOML block validates, every Python block
runs as written, the scenario reference is the one the models generate, sources are cited."""

from __future__ import annotations

import os
import re
import tomllib

import pytest
from conftest import ROOT
from pymoca import parser as modelica_parser

from orchestrator.analysis.regression.suite import Suite
from orchestrator.scenario.reading import validate_scenario
from orchestrator.scenario.reference import scenario_reference

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
MINIMAL = {"simulation": {"stop_time": 1.0}, "components": {"_x": {"fmu": "BlueROV2Heavy"}}}


def blocks(language: str) -> list[str]:
    return [text for lang, text in BLOCK.findall(README) if lang == language]


def merged(base: dict, extra: dict) -> dict:
    out = dict(base)
    for key, value in extra.items():
        both = isinstance(value, dict) and isinstance(base.get(key), dict)
        out[key] = merged(base[key], value) if both else value
    return out


def test_scenario_reference_is_up_to_date():
    """Regenerate with `murcosim scenario-reference --out docs/scenario-reference.md`."""
    written = (ROOT / "docs" / "scenario-reference.md").read_text(encoding="utf-8")
    assert written == scenario_reference()


@pytest.mark.parametrize("text", blocks("toml"), ids=lambda t: t.split("\n")[0][:30])
def test_readme_toml_blocks_validate(text):
    """A block with [simulation] is a whole scenario, one with cases a regression suite; the
    others are parts of a scenario and must validate inside a minimal one."""
    data = tomllib.loads(text)
    source = "README.md block " + text.split("\n")[0]
    if "cases" in data:
        assert Suite.model_validate(data).cases
        return
    validate_scenario(data if "simulation" in data else merged(MINIMAL, data), source)


def test_help_is_a_page_and_the_api_reference_builds(tmp_path):
    """help(murcosim) lists the API (not the pydantic internals of every scenario class: those
    are one import away, in murcosim.configuration); make docs builds a page per public module
    with the functions and classes a user reaches."""
    import pydoc

    import pdoc

    import murcosim

    text = pydoc.render_doc(murcosim, renderer=pydoc.plaintext)
    assert len(text.splitlines()) < 1000 and "regress(" in text and "run(" in text
    assert murcosim.Scenario is murcosim.configuration.Scenario  # still reachable
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    modules = re.search(r"^DOCS_MODULES := (.*)$", makefile, re.M).group(1).split()
    pdoc.render.configure(docformat="restructuredtext")
    pdoc.pdoc(*modules, output_directory=tmp_path)
    pages = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.html")}
    assert {"murcosim.html", "murcosim/configuration.html", "murcosim/regression.html"} <= pages
    page = (tmp_path / "murcosim" / "configuration.html").read_text(encoding="utf-8")
    assert 'id="Scenario"' in page and 'id="Simulation"' in page and "stop_time" in page


def test_readme_has_a_whole_scenario_example():
    assert any("simulation" in tomllib.loads(t) for t in blocks("toml"))


def test_readme_python_blocks_run_as_written(fmu_dir, tmp_path, capsys):
    """Run from a project folder laid out like the repository (scenarios/, fmus/)."""
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    (tmp_path / "fmus").symlink_to(fmu_dir)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        for text in blocks("python"):
            exec(compile(text, "README.md", "exec"), {"__name__": "readme"})  # noqa: S102
    finally:
        os.chdir(here)
    out = capsys.readouterr().out
    assert "reached 5 s" in out
    assert (tmp_path / "results" / "lone_rov" / "timeseries.parquet").is_file()


@pytest.mark.parametrize("text", blocks("modelica"), ids=lambda t: t.split("\n")[0][:30])
def test_readme_modelica_blocks_parse(text):
    assert modelica_parser.parse(text) is not None


SOURCES = ["README.md", "docs", "modelica", "scenarios", "orchestrator", "murcosim", "examples"]
NOT_A_CITATION = re.compile(r"\bseeds? 00\d|\bthe thesis\b|seed notes?\b", re.I)


def test_sources_are_cited_by_author_and_year():
    """Documents are cited as authors, title, venue and year, not by internal numbers."""
    offenders = []
    for name in SOURCES:
        path = ROOT / name
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            if file.suffix not in (".md", ".mo", ".toml", ".py"):
                continue
            for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
                if NOT_A_CITATION.search(line):
                    offenders.append(f"{file.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
