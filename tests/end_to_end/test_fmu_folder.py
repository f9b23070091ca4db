"""One FMU-folder rule for every command, from any working folder: --fmu-dir, else the
scenario's fmu_dir, else the nearest 'fmus' from the scenario file (from the current folder for
the commands without a scenario, from the results folder for replay); hints that hold; and
``murcosim build`` from any folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import LIBRARY, ROOT

from orchestrator.cli import main
from orchestrator.compiler.library import default_library, default_out
from orchestrator.errors import MurcosimError
from orchestrator.fmi.folder import (
    command_fmu_folder,
    nearest,
    results_fmu_folder,
    scenario_fmu_folder,
)

SINGLE = """[simulation]
stop_time = 0.2
output_interval = 0.1

[components.rov]
fmu = "BlueROV2Heavy"
"""
FMUS = ("BlueROV2Heavy", "BlueROV", "Thruster")  # what the scenarios below name


class FoundError(Exception):
    """Raised by a stand-in for a command's work: carries the FMU folder it was given."""


def catch(position: int, name: str = "fmu_dir"):
    """A stand-in that raises :class:`FoundError` with its FMU-folder argument."""

    def stand_in(*args, **kwargs):
        raise FoundError(Path(kwargs[name] if name in kwargs else args[position]))

    return stand_in


@pytest.fixture
def project(fmu_dir, tmp_path, monkeypatch):
    """A project folder (fmus/ with links to the built FMUs, scenarios/, results/) and a
    working folder elsewhere, made the current one."""
    root = tmp_path / "project"
    (root / "fmus").mkdir(parents=True)
    for name in FMUS:
        (root / "fmus" / f"{name}.fmu").symlink_to(fmu_dir / f"{name}.fmu")
    (root / "scenarios").mkdir()
    (root / "scenarios" / "single.toml").write_text(SINGLE)
    for name in ("cosim_weld_pair", "docking_mpc"):
        shutil.copy(ROOT / "scenarios" / f"{name}.toml", root / "scenarios")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return root


def relative(path: Path) -> str:
    """``path`` relative to the current folder (``../project/...``)."""
    return str(Path("..") / path.relative_to(Path.cwd().parent))


def test_nearest_is_the_folder_itself_or_above(project):
    deep = project / "scenarios" / "a" / "b"
    deep.mkdir(parents=True)
    assert nearest(deep) == nearest(project) == project / "fmus"
    (deep / "fmus").mkdir()
    assert nearest(deep) == deep / "fmus"


@pytest.mark.parametrize(
    ("command", "target", "position"),
    [
        (
            ["sweep", "{single}", "--runs", "1", "--out", "{tmp}/sweep"],
            "orchestrator.analysis.sweep._execute",
            2,
        ),
        (
            ["drift", "{weld}", "--out", "{tmp}/drift"],
            "orchestrator.analysis.drift.run_scenario",
            2,
        ),
        (
            ["docking-study", "{docking}", "--model", "cosim", "--runs", "1", "--out", "{tmp}/d"],
            "orchestrator.analysis.sweep._execute",
            2,
        ),
        (["ssp", "export", "{single}", "{tmp}/single.ssp"], "orchestrator.system.ssp.System", 2),
    ],
    ids=["sweep", "drift", "docking-study", "ssp-export"],
)
@pytest.mark.parametrize("spelling", ["absolute", "relative"])
def test_scenario_commands_find_the_folder_run_finds(
    project, tmp_path, monkeypatch, command, target, position, spelling
):
    """From another working folder, with the scenario given by absolute or relative path,
    every scenario command gets the folder 'murcosim run' resolves: the project's fmus/."""
    paths = {
        key: project / "scenarios" / f"{stem}.toml"
        for key, stem in (
            ("single", "single"),
            ("weld", "cosim_weld_pair"),
            ("docking", "docking_mpc"),
        )
    }
    if spelling == "relative":
        paths = {key: relative(path) for key, path in paths.items()}
    argv = [a.format(**paths, tmp=tmp_path) for a in command]
    expected = scenario_fmu_folder(Path(argv[2] if command[0] == "ssp" else argv[1]))
    assert expected == project / "fmus"
    monkeypatch.setattr(target, catch(position))
    with pytest.raises(FoundError) as found:
        main(argv)
    assert Path(found.value.args[0]).resolve() == expected.resolve()


def test_buoy_study_finds_the_fmus_of_its_scenarios(fmu_dir, tmp_path, monkeypatch):
    """The buoy study runs the project's scenarios: their FMU folder, whatever the current one."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("studies.buoy_study.calibrate_kff", catch(1))
    with pytest.raises(FoundError) as found:
        main(["buoy-study", "--parts", "kff", "--out", str(tmp_path / "buoy")])
    assert found.value.args[0] == fmu_dir.resolve()


@pytest.mark.parametrize(
    ("command", "target", "position"),
    [
        (["crosscheck", "{tmp}/x"], "orchestrator.analysis.crosscheck.export_crosscheck", 0),
        (["bench", "--parts", "rhs"], "studies.bench.run_suite", 0),
        (["regress", "--variants"], "orchestrator.analysis.regression.variants.check_variants", 0),
    ],
    ids=["crosscheck", "bench", "regress-variants"],
)
def test_commands_without_a_scenario_search_from_the_current_folder(
    project, tmp_path, monkeypatch, command, target, position
):
    """From a folder below the project: its fmus/; with --fmu-dir: that folder."""
    below = project / "scenarios" / "notes"
    below.mkdir()
    monkeypatch.chdir(below)
    monkeypatch.setattr(target, catch(position))
    argv = [a.format(tmp=tmp_path) for a in command]
    with pytest.raises(FoundError) as found:
        main(argv)
    assert found.value.args[0] == project / "fmus" == command_fmu_folder()
    with pytest.raises(FoundError) as found:
        main([*argv, "--fmu-dir", "../../fmus"])
    assert found.value.args[0].resolve() == project / "fmus"


def test_run_check_and_info_from_another_folder(project, tmp_path, capsys):
    """End to end from the working folder outside the project: the run finds the project's
    FMUs by the scenario's place; info and check find them from a folder inside it."""
    out = tmp_path / "run"
    scenario = relative(project / "scenarios" / "single.toml")
    assert main(["run", scenario, "--out", str(out), "--no-plots", "--quiet"]) == 0
    assert (out / "timeseries.csv").is_file()
    capsys.readouterr()
    assert main(["info", "BlueROV2Heavy", "--fmu-dir", relative(project / "fmus")]) == 0
    assert capsys.readouterr().out.startswith("BlueROV2Heavy.fmu: FMI 3.0")
    if nearest(Path.cwd()) is None:  # no fmus/ here or above
        assert main(["info", "BlueROV2Heavy"]) == 2
        err = capsys.readouterr().err
        assert f"no folder 'fmus' in {Path.cwd()} or above it" in err and "given" not in err


def test_check_uses_the_nearest_folder(project, monkeypatch, capsys):
    monkeypatch.chdir(project / "scenarios")
    for name in FMUS[1:]:
        (project / "fmus" / f"{name}.fmu").unlink()
    assert main(["check"]) == 0
    assert f"ok   {project / 'fmus' / 'BlueROV2Heavy.fmu'}" in capsys.readouterr().out


def test_replay_takes_the_recorded_folder_else_searches_from_the_results(project, tmp_path):
    results = project / "results" / "single"
    results.mkdir(parents=True)
    assert results_fmu_folder(results) == project / "fmus"
    other = tmp_path / "other_fmus"
    other.mkdir()
    (results / "run.json").write_text(json.dumps({"fmu_dir": str(other)}))
    assert results_fmu_folder(results) == other
    (results / "run.json").write_text(json.dumps({"fmu_dir": "../../fmus"}))
    assert results_fmu_folder(results) == project / "fmus"
    assert results_fmu_folder(results, other) == other
    with pytest.raises(MurcosimError, match=rf"^{results}: --fmu-dir: FMU folder nowhere does"):
        results_fmu_folder(results, Path("nowhere"))
    (results / "run.json").write_text(json.dumps({"fmu_dir": "gone"}))
    with pytest.raises(MurcosimError, match=r"run\.json: fmu_dir \(the FMU folder of the run\)"):
        results_fmu_folder(results)


def test_hints_say_what_is_true(project, tmp_path, capsys):
    """A missing FMU in an existing folder names the FMU and the folder (no 'build first?');
    no folder found says where the search went (no '--fmu-dir given' when none was); a given
    folder that is not there is named as given."""
    scenario = project / "scenarios" / "typo.toml"
    scenario.write_text(SINGLE.replace('"BlueROV2Heavy"', '"BlueROV2Heavyy"'))
    assert main(["ssp", "export", str(scenario), str(tmp_path / "a.ssp")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"components.rov.fmu: FMU not found: {project / 'fmus' / 'BlueROV2Heavyy.fmu'}" in err
    assert "did you mean 'BlueROV2Heavy'?" in err and "murcosim build" not in err

    alone = tmp_path / "alone" / "x.toml"
    alone.parent.mkdir()
    alone.write_text(SINGLE)
    if nearest(alone.parent) is not None:
        pytest.skip("a folder 'fmus' above the test's temporary folder")
    assert main(["sweep", str(alone), "--runs", "1", "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err.strip()
    assert f"components.rov.fmu: no folder 'fmus' in {alone.parent} or above it" in err
    assert "given" not in err.replace("give it with", "")

    assert main(["sweep", str(alone), "--fmu-dir", "nowhere", "--out", str(tmp_path / "s")]) == 2
    assert "fmu_dir given to the run (--fmu-dir): FMU folder nowhere does not exist" in (
        capsys.readouterr().err
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["run", str(alone), "--fmu-dir", str(empty), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"the FMU folder {empty} holds no FMUs: 'murcosim build --out {empty}'" in err


def test_build_defaults_from_any_folder(project, tmp_path, monkeypatch):
    """The library is the package's own wherever the command runs (in a checkout it resolves
    to modelica/MurCoSim; an installation lacking it is told to give --library, in one line);
    the output is the folder the other commands find, else a new fmus/ here; --out writes
    where it says."""
    assert default_library() == LIBRARY
    with pytest.raises(MurcosimError, match=r"^--library: not given.*give --library"):
        default_library(tmp_path)
    below = project / "scenarios"
    monkeypatch.chdir(below)
    assert default_out() == project / "fmus"
    monkeypatch.chdir(tmp_path / "elsewhere")
    if nearest(Path.cwd()) is None:
        assert default_out() == Path("fmus")
    assert main(["build", "--model", "Thruster", "--variant", "me", "--out", "made/here"]) == 0
    assert (tmp_path / "elsewhere" / "made" / "here" / "Thruster.fmu").is_file()
    monkeypatch.chdir(below)
    (project / "fmus" / "Thruster.fmu").unlink()
    assert main(["build", "--model", "Thruster", "--variant", "me"]) == 0
    assert (project / "fmus" / "Thruster.fmu").is_file()


def test_wheel_holds_the_library(tmp_path):
    """A wheel carries every file of modelica/MurCoSim, byte for byte, and the package
    installed from it finds that copy with no checkout around it."""
    source = tmp_path / "source"
    for part in ("orchestrator", "murcosim", "modelica"):
        shutil.copytree(ROOT / part, source / part, symlinks=True, ignore=_untracked)
    for part in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / part, source / part)
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(wheels), str(source)],
        check=True,
        capture_output=True,
    )
    installed = tmp_path / "installed"
    with zipfile.ZipFile(next(wheels.glob("murcosim-*.whl"))) as wheel:
        wheel.extractall(installed)
    expected = sorted(p.relative_to(LIBRARY) for p in LIBRARY.rglob("*") if p.is_file())
    copy = installed / "orchestrator" / "compiler" / "MurCoSim"
    assert sorted(p.relative_to(copy) for p in copy.rglob("*") if p.is_file()) == expected
    assert all((copy / p).read_bytes() == (LIBRARY / p).read_bytes() for p in expected)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    found = subprocess.run(
        [sys.executable, "-c", FIND_LIBRARY],
        cwd=elsewhere,
        env={**os.environ, "PYTHONPATH": str(installed)},
        check=True,
        capture_output=True,
        text=True,
    )
    module, library = found.stdout.split()
    assert Path(module).parent.parent.parent == installed
    assert Path(library) == copy


FIND_LIBRARY = (
    "import orchestrator.compiler.library as m; print(m.__file__); print(m.default_library())"
)


def _untracked(folder: str, names: list[str]) -> set[str]:
    """Build products left in the checkout's package folders, not copied."""
    return {n for n in names if n == "__pycache__" or n.endswith(".so")}
