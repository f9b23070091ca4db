"""The public API: ``import murcosim``, scenarios as objects, runs in memory, results as
DataFrames with units, a callback at communication points."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

import murcosim
from orchestrator.cli import main
from orchestrator.recording.tables import read_events, read_timeseries

SINGLE = ROOT / "scenarios" / "bluerov2_heavy_single.toml"
DOCKING = ROOT / "scenarios" / "dock_move_undock.toml"


def short(path, stop_time):
    return murcosim.edit(murcosim.load_scenario(path), {"simulation": {"stop_time": stop_time}})


def test_import_name_is_the_distribution_name_with_its_version():
    from importlib.metadata import version

    assert murcosim.__version__ == version("murcosim")
    missing = [name for name in murcosim.__all__ if not hasattr(murcosim, name)]
    assert not missing


def test_in_memory_run_equals_the_command_line_run(fmu_dir, tmp_path, capsys):
    """An edited scenario object run in memory gives exactly the rows the command line
    writes for the same scenario saved to a file (the run is deterministic; CSV values are
    written with repr, which round-trips float64 exactly)."""
    scenario = murcosim.edit(short(SINGLE, 2.0), {"components": {"rov": {"start": {"p[3]": 1.0}}}})
    path = murcosim.save_scenario(scenario, tmp_path / "edited.toml")
    status = main(["run", str(path), "--out", str(tmp_path / "cli"), "--fmu-dir", str(fmu_dir)])
    assert status == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"{path}: reached 2 s;"), last
    results = murcosim.run(scenario, fmu_dir=fmu_dir, progress=False)
    files = read_timeseries(tmp_path / "cli" / "timeseries.csv")
    frame = results.timeseries
    assert list(frame.columns) == [c for c in files if c != "time"]
    np.testing.assert_array_equal(frame.index.to_numpy(), files["time"])
    for column in frame.columns:
        np.testing.assert_array_equal(frame[column].to_numpy(), files[column], err_msg=column)
    assert frame["rov.p[3]"].iloc[0] == 1.0  # the edit took effect
    cli_events = [e["event"] for e in read_events(tmp_path / "cli" / "events.csv")]
    assert list(results.events.event) == cli_events == ["start", "stop"]


def test_results_carry_units_and_a_time_index(fmu_dir):
    """Units come from the FMUs' model descriptions (vehicle position m, velocity m/s,
    thrust N, ESC pulse width us) and from the joint columns' definitions."""
    changes = {
        "simulation": {"output_interval": 0.5},
        "record": ["leader.p*", "leader.nu*", "leader_t1.*", "dock.*"],
    }
    scenario = murcosim.edit(short(DOCKING, 1.0), changes)
    results = murcosim.run(scenario, source=DOCKING, fmu_dir=fmu_dir, progress=False)
    frame = results.timeseries
    assert frame.index.name == "time"
    np.testing.assert_allclose(frame.index, [0.0, 0.5, 1.0])
    units = frame.attrs["units"]
    assert units["time"] == "s" and units["leader.p[1]"] == "m"
    assert units["leader.nu[1]"] == "m/s" and units["leader.nu[4]"] == "rad/s"
    assert units["leader_t1.thrust"] == "N" and units["leader_t1.pwm"] == "us"
    assert units["dock.position_error"] == "m" and units["dock.angle_error"] == "rad"
    assert units["dock.force_a[3]"] == "N" and units["dock.force_b[6]"] == "N.m"
    assert set(units) == {"time", *frame.columns}
    assert list(results.events.columns) == ["time", "event", "detail"]
    assert results.events.loc[results.events.event == "dock", "time"].iloc[0] == pytest.approx(0.55)


def test_callback_sees_every_communication_point_with_current_values(fmu_dir):
    """The autopilot samples every 0.05 s, so the callback comes at every 0.05 s; the probe
    reads the same depth at the recording times as the recorded column."""
    seen: list[tuple[float, float]] = []
    results = murcosim.run(
        short(SINGLE, 1.0),
        source=SINGLE,
        fmu_dir=fmu_dir,
        progress=False,
        callback=lambda t, probe: seen.append((t, probe["rov.p[3]"])),
    )
    times = np.array([t for t, _ in seen])
    np.testing.assert_allclose(times, np.arange(21) * 0.05, atol=1e-9)
    depth = dict(seen)
    recorded = results.timeseries["rov.p[3]"]
    for t, value in recorded.items():
        nearest = min(depth, key=lambda s: abs(s - t))
        assert depth[nearest] == value


def test_scenario_built_in_code_runs_without_a_file(fmu_dir, tmp_path):
    """A lone vehicle built from objects, no controller: a body that is heavier than the
    water it displaces sinks, so its depth grows (NED z positive down)."""
    scenario = murcosim.Scenario(
        simulation=murcosim.Simulation(stop_time=1.0, output_interval=0.5),
        components={
            "rov": murcosim.Component(fmu="BlueROV2Heavy", parameters={"data.volume": 0.009})
        },
    )
    results = murcosim.run(scenario, fmu_dir=fmu_dir, out=tmp_path / "out", progress=False)
    depth = results.timeseries["rov.p[3]"]
    assert depth.iloc[-1] > depth.iloc[0]
    assert murcosim.load_scenario(tmp_path / "out" / "scenario.toml") == scenario
    back = murcosim.load_results(tmp_path / "out")
    pd.testing.assert_frame_equal(back.timeseries, results.timeseries, check_exact=True)


def test_edit_validates_and_leaves_the_original_alone():
    scenario = murcosim.load_scenario(SINGLE)
    edited = murcosim.edit(scenario, {"controllers": {"autopilot": {"depth": 3.0}}})
    assert edited.controllers["autopilot"].depth == 3.0
    assert edited.controllers["autopilot"].heading == 45.0  # merged, not replaced
    assert scenario.controllers["autopilot"].depth == 2.0
    with pytest.raises(murcosim.ScenarioError) as error:
        murcosim.edit(scenario, {"simulation": {"stop_time": -1.0}}, source="my edit")
    message = str(error.value)
    assert message.startswith("my edit: simulation.stop_time: ") and "\n" not in message


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").glob("*.toml")), ids=lambda p: p.stem)
def test_every_scenario_survives_a_trip_through_toml(path):
    scenario = murcosim.load_scenario(path)
    assert murcosim.parse_scenario(murcosim.scenario_toml(scenario)) == scenario


def test_fmu_folder_is_found_from_the_scenario_file_not_the_current_directory(fmu_dir, tmp_path):
    """A project laid out as project/scenarios/s.toml and project/fmus/, run from an unrelated
    directory without --fmu-dir: the scenario finds project/fmus/."""
    project = tmp_path / "project"
    (project / "scenarios").mkdir(parents=True)
    (project / "fmus").symlink_to(fmu_dir)
    path = murcosim.save_scenario(short(SINGLE, 0.2), project / "scenarios" / "s.toml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    command = [sys.executable, "-m", "orchestrator.cli", "run", str(path), "--quiet"]
    done = subprocess.run(
        [*command, "--no-plots", "--out", "out"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (elsewhere / "out" / "timeseries.csv").is_file()


def test_missing_fmu_folder_is_one_line(tmp_path, capsys):
    scenario = murcosim.edit(short(SINGLE, 0.2), {"fmu_dir": "nowhere"})
    path = murcosim.save_scenario(scenario, tmp_path / "s.toml")
    status = main(["run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"murcosim: error: {path}: fmu_dir: FMU folder ") and "nowhere" in err


def test_file_runs_keep_only_the_last_row_in_memory(fmu_dir, tmp_path):
    """A run whose rows go to files holds just the latest row (for the summary line), equal to
    the last row of timeseries.csv."""
    from orchestrator.runner.run import run_scenario

    path = murcosim.save_scenario(short(SINGLE, 1.0), tmp_path / "s.toml")
    result = run_scenario(path, tmp_path / "out", fmu_dir, plots=False)
    files = read_timeseries(result.timeseries)
    assert result.table.times == [1.0] and len(result.table.rows) == 1
    row = np.array([files[c][-1] for c in result.columns])
    np.testing.assert_array_equal(result.table.rows[0], row)


def test_missing_fmu_folder_given_to_run_is_one_line():
    with pytest.raises(murcosim.ScenarioError) as error:
        murcosim.run(short(SINGLE, 0.2), fmu_dir="nowhere", progress=False)
    message = str(error.value)
    assert message.startswith("<scenario>: fmu_dir given to the run (--fmu-dir): FMU folder ")
    assert "\n" not in message


def test_callback_can_stop_the_run(fmu_dir):
    """Stop once the vehicle is 0.6 m deep (it starts at 0.5 m and dives towards 2 m): the run
    ends at the first communication point past that depth (here a recording time, 0.4 s: the
    row there is past 0.6 m, every earlier one shallower), and the event says why."""

    def stop_when_deep(time: float, probe: murcosim.Probe) -> None:
        if probe["rov.p[3]"] > 0.6:
            raise murcosim.StopRun("deep enough")

    results = murcosim.run(
        short(SINGLE, 20.0), source=SINGLE, fmu_dir=fmu_dir, callback=stop_when_deep, progress=False
    )
    events = results.events.set_index("event")
    t_stop = events.loc["callback_stop", "time"]
    assert events.loc["callback_stop", "detail"] == "deep enough"
    assert events.loc["stop", "time"] == t_stop and 0.0 < t_stop < 20.0
    depth = results.timeseries["rov.p[3]"]  # recorded before the callback at the same time
    assert depth.index[-1] == pytest.approx(t_stop) and depth.iloc[-1] > 0.6
    assert (depth.iloc[:-1] <= 0.6).all()
    assert results.final_state is None
    assert results.summary.startswith(f"reached {t_stop:.6g} s;")


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").glob("*.toml")), ids=lambda p: p.stem)
def test_every_shipped_scenario_object_validates_again(path):
    """murcosim.edit and murcosim.run validate a scenario object from its dump: every shipped
    scenario, defaults included (an infinite default such as the MPC's budget), passes."""
    scenario = murcosim.load_scenario(path)
    assert murcosim.edit(scenario, {}) == scenario
