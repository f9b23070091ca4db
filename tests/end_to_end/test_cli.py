"""The command line as a user meets it: version, help on every argument, one-line errors and a
last line that says what the run did."""

from __future__ import annotations

import argparse
from importlib.metadata import version

import pytest
from conftest import ROOT

import murcosim
from orchestrator.cli import main, parser


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"murcosim {version('murcosim')}"


def test_every_argument_has_help():
    missing = []

    def walk(p: argparse.ArgumentParser, path: str) -> None:
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}")
            elif not action.help:
                missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")

    walk(parser(), "murcosim")
    assert not missing


def test_last_line_names_docking_undocking_and_final_errors(fmu_dir, tmp_path, capsys):
    """dock_move_undock cut to 3 s with the undocking moved past the end: the last line gives
    the capture time (0.55 s, as in events.csv) and the weld's final errors."""
    scenario = murcosim.edit(
        murcosim.load_scenario(ROOT / "scenarios" / "dock_move_undock.toml"),
        {"simulation": {"stop_time": 3.0}, "events": []},
    )
    path = murcosim.save_scenario(scenario, tmp_path / "dock.toml")
    status = main(
        ["run", str(path), "--out", str(tmp_path / "out"), "--fmu-dir", str(fmu_dir), "--quiet"]
        + ["--no-plots"]
    )
    assert status == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"{path}: reached 3 s; dock docked at 0.55 s; final joint errors: dock ")
    assert last.endswith(f"results in {tmp_path / 'out'}")
    position, angle = last.split("final joint errors: dock ")[1].split(";")[0].split(" m ")
    assert float(position) < 1e-6 and float(angle.removesuffix(" rad")) < 1e-6


def test_info_lists_variables_and_what_murcosim_can_do(fmu_dir, tmp_path, capsys):
    assert main(["info", str(fmu_dir / "BlueROV2Heavy.fmu")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("BlueROV2Heavy.fmu: FMI 3.0, model BlueROV2Heavy; Model Exchange; 13")
    assert out[1].startswith("murcosim: a rigid body")
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ") for line in out[4:]}
    assert rows["tau_ext[4]"][1:5] == ["input", "continuous", "Float64", "N.m"]
    assert rows["data.m"][1] == "parameter" and rows["data.m"][5] == "11.5"
    assert main(["info", str(fmu_dir / "fmi2" / "Thruster.fmu")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "Model Exchange, Co-Simulation" in out[0]
    assert out[1].startswith("murcosim: a unit connected by its")
    missing = tmp_path / "none.fmu"
    assert main(["info", str(missing)]) == 2
    assert capsys.readouterr().err.strip() == f"murcosim: error: {missing}: FMU file not found"
