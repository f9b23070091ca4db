"""A results folder belongs to one run: a reused folder is refused or emptied, ``run.json``
records where the run came from, units and the summary read back from every table format,
``plot`` and ``replay`` read a Parquet-only folder, time stamps are exact tick times, and
``murcosim.run`` validates a scenario object again."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from conftest import ROOT

import murcosim
from orchestrator.cli import main
from orchestrator.recording.folder import is_run_output
from orchestrator.visualization.plots import plot_run

SINGLE = ROOT / "scenarios" / "bluerov2_heavy_single.toml"
DOCKING = ROOT / "scenarios" / "docking_mpc.toml"


def short(path, stop_time):
    """The scenario file ``path`` cut to ``stop_time`` (s)."""
    return murcosim.edit(murcosim.load_scenario(path), {"simulation": {"stop_time": stop_time}})


def run_cli(capsys, *args):
    """``murcosim run`` of bluerov2_heavy_single as it is; (exit status, stderr)."""
    status = main(["run", str(SINGLE), "--quiet", "--no-plots", *map(str, args)])
    return status, capsys.readouterr().err.strip()


@pytest.fixture(scope="module")
def docking(fmu_dir, tmp_path_factory):
    """The docking run (docking_mpc, 60 s every 0.1 s) written as CSV only and as Parquet
    only: by format, the results in memory and the folder."""
    runs = {}
    for kind in ("csv", "parquet"):
        folder = tmp_path_factory.mktemp(kind)
        options = {"fmu_dir": fmu_dir, "formats": (kind,), "progress": False}
        runs[kind] = murcosim.run(DOCKING, out=folder, **options), folder
    return runs


def test_reused_out_folder_is_refused_then_emptied_on_request(fmu_dir, tmp_path, capsys):
    """A second run into a folder holding a run is refused in one line naming the folder and
    its files, which stay; --overwrite removes what the other run wrote (its MCAP log, plots
    and replay page too) before the new run writes its own."""
    out = tmp_path / "out"
    assert run_cli(capsys, "--out", out, "--fmu-dir", fmu_dir, "--format", "mcap")[0] == 0
    for name in ("summary.png", "replay.html", "rov_trajectory.png"):
        (out / name).write_bytes(b"made by the first run")
    before = sorted(p.name for p in out.iterdir())
    status, err = run_cli(capsys, "--out", out, "--fmu-dir", fmu_dir)
    assert status == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"{out}: results folder holds another run's files (events.csv" in err
    assert "--overwrite" in err
    assert sorted(p.name for p in out.iterdir()) == before
    assert run_cli(capsys, "--out", out, "--fmu-dir", fmu_dir, "--overwrite")[0] == 0
    left = {p.name for p in out.iterdir()}
    assert left == {".lock", "events.csv", "run.json", "scenario.toml", "timeseries.csv"}
    assert json.loads((out / "run.json").read_text())["formats"] == ["csv"]


def test_navigation_run_is_run_again_into_its_folder_with_overwrite(fmu_dir, tmp_path, capsys):
    """The estimate's plot (navigation_<filter>.png) is a file murcosim writes: --overwrite
    removes it with the rest instead of refusing the folder as holding a file of the user's."""
    scenario = tmp_path / "navigation.toml"
    navigation = short(ROOT / "scenarios" / "bluerov2_heavy_navigation.toml", 0.2)
    murcosim.save_scenario(navigation, scenario)
    out = tmp_path / "out"
    command = ["run", str(scenario), "--quiet", "--fmu-dir", str(fmu_dir), "--out", str(out)]
    assert main(command) == 0
    assert (out / "navigation_nav.png").is_file()
    assert main([*command, "--overwrite"]) == 0, capsys.readouterr().err
    assert (out / "navigation_nav.png").is_file()


def test_overwrite_never_removes_a_file_murcosim_did_not_write(fmu_dir, tmp_path, capsys):
    out = tmp_path / "out"
    assert run_cli(capsys, "--out", out, "--fmu-dir", fmu_dir)[0] == 0
    (out / "notes.txt").write_text("mine")
    before = sorted(p.name for p in out.iterdir())
    status, err = run_cli(capsys, "--out", out, "--fmu-dir", fmu_dir, "--overwrite")
    assert status == 2 and len(err.splitlines()) == 1
    assert "others murcosim did not write (notes.txt)" in err
    assert sorted(p.name for p in out.iterdir()) == before


def test_a_folder_without_a_run_is_used_as_it_is(fmu_dir, tmp_path, capsys):
    """A folder holding only other files is written into, and they stay."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert run_cli(capsys, "--out", out, "--fmu-dir", fmu_dir)[0] == 0
    assert (out / "notes.txt").read_text() == "mine" and (out / "timeseries.csv").is_file()


def test_results_scenario_copy_runs_again_into_its_own_folder(fmu_dir, tmp_path, capsys):
    """The scenario being run is kept, though it is the folder's ``scenario.toml``."""
    out = tmp_path / "out"
    assert run_cli(capsys, "--out", out, "--fmu-dir", fmu_dir)[0] == 0
    copy = out / "scenario.toml"
    text = copy.read_text()
    again = ["--out", str(out), "--fmu-dir", str(fmu_dir), "--overwrite"]
    status = main(["run", str(copy), "--quiet", "--no-plots", *again])
    assert status == 0, capsys.readouterr().err
    assert copy.read_text() == text and (out / "timeseries.csv").is_file()


def test_python_run_refuses_a_used_folder_unless_overwrite(fmu_dir, tmp_path):
    scenario = short(SINGLE, 0.2)
    options = {"source": SINGLE, "fmu_dir": fmu_dir, "out": tmp_path, "progress": False}
    murcosim.run(scenario, formats=("parquet",), **options)
    with pytest.raises(murcosim.MurcosimError, match="holds another run's files"):
        murcosim.run(scenario, **options)
    assert (tmp_path / "timeseries.parquet").is_file()
    murcosim.run(scenario, overwrite=True, **options)
    assert not (tmp_path / "timeseries.parquet").exists()
    assert (tmp_path / "timeseries.csv").is_file()


def test_run_json_records_scenario_fmus_formats_units_and_summary(fmu_dir, tmp_path, capsys):
    out = tmp_path / "out"
    formats = ["--format", "csv", "--format", "parquet"]
    status = main(["run", str(SINGLE), "--quiet", "--out", str(out), "--fmu-dir", str(fmu_dir),
                   "--no-plots", *formats])  # fmt: skip
    printed = capsys.readouterr().out
    assert status == 0
    record = json.loads((out / "run.json").read_text())
    assert record["murcosim"] == murcosim.__version__
    assert record["scenario"] == str(SINGLE.resolve())
    assert record["fmu_dir"] == str(fmu_dir.resolve())
    assert set(record["fmus"]) == {"BlueROV2Heavy.fmu", "LaggedThruster.fmu"}
    for name, digest in record["fmus"].items():
        assert digest == hashlib.sha256((fmu_dir / name).read_bytes()).hexdigest()
    assert record["formats"] == ["csv", "parquet"]
    assert record["units"]["time"] == "s" and record["units"]["rov.p[1]"] == "m"
    assert record["summary"].startswith("reached 60 s;") and record["summary"] in printed


def test_docking_run_is_stamped_with_exact_tick_times(docking):
    """601 rows at k x 0.1 s, each the double nearest the decimal (15.7, not
    15.700000000000001), in memory and read back from either format."""
    expected = np.array([k / 10 for k in range(601)])
    for results, folder in docking.values():
        for frame in (results.timeseries, murcosim.load_results(folder).timeseries):
            np.testing.assert_array_equal(frame.index.to_numpy(), expected)
            assert frame.loc[15.7].equals(results.timeseries.iloc[157])
        assert np.isfinite(results.timeseries.loc[15.7, "leader.p[1]"])


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_units_and_summary_read_back_from_either_format(docking, kind):
    results, folder = docking[kind]
    read = murcosim.load_results(folder)
    assert read.units == results.units and read.units["leader.p[1]"] == "m"
    assert read.summary is not None and read.summary.split("; ")[0] == "reached 60 s"
    assert read.summary.split("; ")[:-1] == results.summary.split("; ")[:-1]  # all but the wall
    np.testing.assert_array_equal(read.timeseries.to_numpy(), results.timeseries.to_numpy())
    assert list(read.timeseries.columns) == list(results.timeseries.columns)


def test_plot_and_replay_read_a_parquet_only_folder(docking, fmu_dir, capsys):
    """Every plot written is a file murcosim knows as its own (what --overwrite removes)."""
    folder = docking["parquet"][1]
    assert not (folder / "timeseries.csv").exists()
    assert main(["plot", str(folder)]) == 0
    written = plot_run(folder, per_body=True)
    assert (folder / "summary.png").is_file()
    assert folder / "rendezvous_trajectories.png" in written
    assert all(is_run_output(p.name) for p in written)
    assert main(["replay", str(folder), "--fmu-dir", str(fmu_dir)]) == 0
    page = (folder / "replay.html").read_text()
    assert '"leader"' in page and '"follower"' in page
    capsys.readouterr()


def test_mcap_only_folder_is_one_line_saying_why(fmu_dir, tmp_path, capsys):
    scenario = short(SINGLE, 0.2)
    murcosim.run(scenario, source=SINGLE, fmu_dir=fmu_dir, out=tmp_path, formats=("mcap",),
                 progress=False)  # fmt: skip
    with pytest.raises(murcosim.MurcosimError, match=r"run\.mcap only: run with --format csv"):
        murcosim.load_results(tmp_path)
    assert main(["plot", str(tmp_path)]) == 2
    assert "run.mcap only" in capsys.readouterr().err


def test_run_validates_a_scenario_changed_with_model_copy(fmu_dir):
    """``model_copy`` skips pydantic's validation; ``murcosim.run`` does it again."""
    scenario = murcosim.load_scenario(SINGLE)
    simulation = scenario.simulation.model_copy(update={"stop_time": -5.0})
    bad = scenario.model_copy(update={"simulation": simulation})
    with pytest.raises(murcosim.ScenarioError, match=r"^<edited>: simulation\.stop_time: .*0"):
        murcosim.run(bad, source="<edited>", fmu_dir=fmu_dir, progress=False)


def test_a_run_refused_in_its_set_up_leaves_no_claim_on_its_folder(fmu_dir, tmp_path, capsys):
    """A scenario the assembly refuses (an unknown FMU variable) writes no results; after the
    fix the next run goes into the same --out without --overwrite."""
    bad = tmp_path / "bad.toml"
    bad.write_text(SINGLE.read_text().replace('"p[3]" = 0.5', '"p[9]" = 0.5'))
    out = tmp_path / "out"
    status = main(["run", str(bad), "--quiet", "--no-plots", "--out", str(out), "--fmu-dir",
                   str(fmu_dir)])  # fmt: skip
    assert status == 2 and "p[9]" in capsys.readouterr().err
    assert not any((out / n).exists() for n in ("events.csv", "timeseries.csv"))
    good = tmp_path / "good.toml"
    good.write_text(SINGLE.read_text().replace("stop_time = 60.0", "stop_time = 0.5"))
    status = main(["run", str(good), "--quiet", "--no-plots", "--out", str(out), "--fmu-dir",
                   str(fmu_dir)])  # fmt: skip
    assert status == 0, capsys.readouterr().err
    assert (out / "events.csv").exists()


def test_a_run_stopped_before_its_first_row_loads_with_its_columns_and_no_rows(fmu_dir, tmp_path):
    """A run that ended before its first row (an error at its first sample, a kill right
    after the header was written) leaves timeseries.csv with its header alone: the folder
    loads with every column, no rows, and its events (it raised NumPy's IndexError)."""
    out = tmp_path / "run"
    murcosim.run(short(SINGLE, 0.2), out=out, fmu_dir=fmu_dir, formats=("csv",), progress=False)
    whole = murcosim.load_results(out).timeseries
    table = out / "timeseries.csv"
    header = table.read_text(encoding="utf-8").splitlines()[0]
    table.write_text(header + "\n", encoding="utf-8")
    results = murcosim.load_results(out)
    assert list(results.timeseries.columns) == list(whole.columns) and len(whole) == 3
    assert len(results.timeseries) == 0
    assert results.events["event"].iloc[-1] == "stop"
