"""What ``murcosim build`` builds: models and blocks, the ones named or all that can run alone
(the others skipped with the reason), the experiment annotation as DefaultExperiment, FMU
names that stay distinct when last names collide."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu

from orchestrator.cli import main
from orchestrator.compiler import build_library
from orchestrator.errors import BuildError

DATA = Path(__file__).parents[1] / "data"
USER_LIBRARY = DATA / "user_library" / "UserLib"
MODELICA_PATH = DATA / "modelica_path"

DECAY = """package Lib "build selection tests"
  model Decay "exponential decay with an experiment annotation"
    parameter Real a = 0.5 "rate";
    output Real x(start = 1, fixed = true) "state";
  equation
    der(x) = -a*x;
    annotation(experiment(StartTime = 0.5, StopTime = 4, Tolerance = 1e-6, Interval = 0.02));
  end Decay;
  model Plain "exponential decay without one"
    output Real x(start = 1, fixed = true) "state";
  equation
    der(x) = -x;
  end Plain;
end Lib;
"""

# A mass whose parameter has a start value but no value cannot run alone; the gain can.
PARTLY = """package Lib "one class that runs alone, one that does not"
  model Mass "a mass without a value for m"
    parameter Real m(start = 1) "mass";
    input Real F "force";
    output Real v(start = 0, fixed = true) "speed";
  equation
    m*der(v) = F;
  end Mass;
  block Gain "y = k u, connectors from the library path"
    extends Modelica.Blocks.Interfaces.SISO;
    parameter Real k = 2 "gain";
  equation
    y = k*u;
  end Gain;
end Lib;
"""

COLLIDING = """package Lib "two motors of the same last name"
  package A
    model Motor "first"
      output Real w(start = 1, fixed = true) "speed";
    equation
      der(w) = -w;
    end Motor;
  end A;
  package B
    model Motor "second"
      output Real w(start = 1, fixed = true) "speed";
    equation
      der(w) = -2*w;
    end Motor;
  end B;
  model Pump "a unique last name"
    output Real q(start = 1, fixed = true) "flow";
  equation
    der(q) = -q;
  end Pump;
end Lib;
"""


def library(folder: Path, text: str) -> Path:
    """A one-file library ``Lib`` below ``folder``."""
    lib = folder / "Lib"
    lib.mkdir(parents=True, exist_ok=True)
    (lib / "package.mo").write_text(text)
    return lib


def build(lib: Path, messages: list[str] | None = None, **options: object) -> list[Path]:
    """``build_library`` into ``fmus`` next to ``lib``, ``me`` variant unless given."""
    options.setdefault("variants", ("me",))
    report = messages.append if messages is not None else lambda _: None
    return build_library(lib, lib.parent / "fmus", report=report, **options)


@pytest.mark.parametrize("backend", ["pymoca", "rumoca"])
def test_experiment_annotation_becomes_default_experiment(tmp_path, backend):
    lib = library(tmp_path, DECAY)
    paths = build(lib, backend=backend, variants=("me", "fmi2"))
    assert len(paths) == 4
    for path in paths:
        experiment = read_model_description(str(path)).defaultExperiment
        got = [float(getattr(experiment, a)) for a in ("startTime", "stopTime", "tolerance")]
        got.append(float(experiment.stepSize))
        expected = [0.5, 4.0, 1e-6, 0.02] if path.stem == "Decay" else [0.0, 10.0, 1e-8, 0.01]
        assert got == expected, path


def test_experiments_builds_the_annotated_models_only(tmp_path, capsys):
    """--experiments: the models with an experiment annotation (Decay, not Plain); with
    --model, the named ones among them; none left is one line."""
    lib = library(tmp_path, DECAY)
    out = tmp_path / "fmus"
    assert main(["build", "--library", str(lib), "--out", str(out), "--experiments",
                 "--variant", "me"]) == 0  # fmt: skip
    assert sorted(p.name for p in out.glob("*.fmu")) == ["Decay.fmu"]
    args = ["build", "--library", str(lib), "--out", str(out), "--experiments", "--model", "Plain"]
    assert main(args) == 2
    assert (
        capsys.readouterr().err.strip().endswith("no model with an experiment annotation to build")
    )


def test_block_exports_inputs_and_outputs_and_runs(tmp_path):
    """The user library's ``block Scaler`` (y = k u, connectors of Modelica.Blocks), named by
    its last name, is the only FMU built."""
    out = tmp_path / "fmus"
    paths = build_library(
        USER_LIBRARY,
        out,
        backend="rumoca",
        variants=("me",),
        report=lambda _: None,
        library_path=[MODELICA_PATH],
        models=["Scaler"],
    )
    assert paths == [out / "Scaler.fmu"]
    assert sorted(p.name for p in out.glob("*.fmu")) == ["Scaler.fmu"]
    causality = {v.name: v.causality for v in read_model_description(str(paths[0])).modelVariables}
    assert (causality["u"], causality["y"], causality["k"]) == ("input", "output", "parameter")
    signal = np.array([(0.0, 2.0), (1.0, 2.0)], dtype=[("time", float), ("u", float)])
    result = simulate_fmu(
        str(paths[0]), stop_time=1.0, input=signal, start_values={"k": 1.5}, output=["y"]
    )
    assert result["y"] == pytest.approx(np.full(len(result), 3.0))


def test_model_that_cannot_run_alone_is_skipped_with_the_reason(tmp_path):
    lib = library(tmp_path, PARTLY)
    messages: list[str] = []
    paths = build(lib, messages, backend="rumoca", library_path=[MODELICA_PATH])
    assert [p.name for p in paths] == ["Gain.fmu"]
    assert "skipped     Lib.Mass: parameter m has no value" in messages
    assert messages[-1] == "built 1 of 2 models; 1 skipped"
    with pytest.raises(BuildError, match=r"^Lib\.Mass: parameter m has no value$"):
        build(lib, backend="rumoca", library_path=[MODELICA_PATH], models=["Lib.Mass"])


def test_every_model_failing_is_an_error(tmp_path):
    lib = library(tmp_path, PARTLY)  # without the library path the gain fails too
    messages: list[str] = []
    with pytest.raises(BuildError, match=r"Lib\.Gain"):
        build(lib, messages, backend="rumoca")
    assert messages[-1] == "built 0 of 2 models; 2 skipped"


def test_colliding_last_names_build_under_full_names(tmp_path):
    lib = library(tmp_path, COLLIDING)
    paths = build(lib)
    assert sorted(p.name for p in paths) == ["Lib.A.Motor.fmu", "Lib.B.Motor.fmu", "Pump.fmu"]
    finals = {}
    for path in paths:
        identifier = read_model_description(str(path)).modelExchange.modelIdentifier
        assert identifier == path.stem.replace(".", "_")
        result = simulate_fmu(str(path), stop_time=1.0, relative_tolerance=1e-10)
        finals[path.stem] = result[result.dtype.names[1]][-1]
    assert finals["Lib.A.Motor"] == pytest.approx(np.exp(-1.0), rel=1e-6)
    assert finals["Lib.B.Motor"] == pytest.approx(np.exp(-2.0), rel=1e-6)


def test_unknown_model_name_is_one_line_with_close_names(tmp_path, capsys):
    lib = library(tmp_path, DECAY)
    argv = ["build", "--library", str(lib), "--out", str(tmp_path / "fmus"), "--model", "Decy"]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "no non-partial model or block (full or last name) 'Decy'" in error
    assert "close names: Lib.Decay" in error
    assert not (tmp_path / "fmus").exists()


def test_cli_builds_what_runs_and_reports_what_it_skips(tmp_path):
    lib = library(tmp_path, PARTLY)
    out = tmp_path / "fmus"
    command = [
        str(Path(sys.executable).with_name("murcosim")),
        "build",
        *("--library", str(lib), "--backend", "rumoca", "--library-path", str(MODELICA_PATH)),
        *("--out", str(out), "--variant", "me"),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "skipped     Lib.Mass: parameter m has no value" in lines
    assert lines[-1] == "built 1 of 2 models; 1 skipped"
    assert sorted(p.name for p in out.glob("*.fmu")) == ["Gain.fmu"]
