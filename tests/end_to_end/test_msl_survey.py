"""The MSL survey study on the stand-in MSL of the tests: an example held to reference results
written here from its analytic solution (it agrees), and to results 1 % off (it differs)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy import simulate_fmu

from orchestrator.compiler import build_library
from studies.msl_survey import PACKAGES, STEPS, WRAPPER, _step_budget, examples, settings, summary

ROOT = Path(__file__).parents[2]
MSL = ROOT / "tests" / "data" / "modelica_path"
CREATION = """[ResultCreationLog]
modelName="Modelica.Blocks.Examples.Lag"
StartTime=0
StopTime=2 // from model
Interval=0.004 // used annotation from model
Tolerance=1e-06 // used default
"""


def references(folder: Path, scale: float) -> Path:
    """Reference results of the stand-in's Lag example: y = 6 - 5 exp(-t/0.5), times ``scale``."""
    example = folder / "Modelica" / "Blocks" / "Examples" / "Lag"
    example.mkdir(parents=True)
    (example / "creation.txt").write_text(CREATION)
    (example / "comparisonSignals.txt").write_text("time\nlag.y\n")
    t = np.linspace(0.0, 2.0, 501)
    y = scale * (6.0 - 5.0 * np.exp(-t / 0.5))
    rows = "\n".join(f"{a:.17g},{b:.17g}" for a, b in zip(t, y, strict=True))
    (example / "Lag.csv").write_text(f'"time","lag.y"\n{rows}\n')
    return folder


def one(references: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "studies.msl_survey", "--one", "Modelica.Blocks.Examples.Lag"]
        + ["--msl", str(MSL), "--references", str(references)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_example_agrees_with_its_reference_and_not_with_a_wrong_one(tmp_path):
    right = references(tmp_path / "right", 1.0)
    assert examples(right, PACKAGES) == ["Modelica.Blocks.Examples.Lag"]
    assert settings(right / "Modelica/Blocks/Examples/Lag")["Interval"] == 0.004
    assert one(right) == {
        "example": "Modelica.Blocks.Examples.Lag",
        "outcome": "agrees",
        "detail": "1 signals",
    }
    wrong = one(references(tmp_path / "wrong", 1.01))
    assert wrong["outcome"] == "differs" and "lag.y: left its tube" in wrong["detail"]
    table = summary([wrong], ("Modelica.Blocks.Examples",))
    assert table.splitlines()[-1] == "| `Modelica.Blocks.Examples` | 1 | 0 | 0 | 0 | 1 | 0 | 0 |"


def test_step_budget_is_cvodes_limit_between_output_points(tmp_path):
    """The stand-in's Lag over 2 s in one output interval: with a budget of 5 steps CVode
    stops ("mxstep"), so the budget reaches FMPy's solver; with the survey's it runs, y(2) =
    6 - 5 exp(-4), and FMPy's own solver class is back afterwards."""
    import fmpy.sundials

    wrapper = tmp_path / "MslSurvey"
    wrapper.mkdir()
    source = WRAPPER.format(model="Lag", name="Modelica.Blocks.Examples.Lag")
    (wrapper / "package.mo").write_text(source, encoding="utf-8")
    (fmu,) = build_library(
        wrapper,
        tmp_path / "fmus",
        variants=("me",),
        library_path=[MSL],
        report=lambda _: None,
    )
    solver = fmpy.sundials.CVodeSolver
    run = {"stop_time": 2.0, "output_interval": 2.0, "relative_tolerance": 1e-10}
    with _step_budget(5), pytest.raises(RuntimeError, match="mxstep"):
        simulate_fmu(str(fmu), output=["lag.y"], **run)
    assert fmpy.sundials.CVodeSolver is solver
    with _step_budget(STEPS):
        result = simulate_fmu(str(fmu), output=["lag.y"], **run)
    assert result["lag.y"][-1] == pytest.approx(6.0 - 5.0 * np.exp(-4.0), abs=1e-8)
