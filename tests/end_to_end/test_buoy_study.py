"""The machinery of ``murcosim buoy-study`` (the long studies themselves run from the command)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from orchestrator.cli import main
from studies.buoy_study import Row, markdown, model_changes, settling_time, window


def test_settling_time_and_windows_on_a_known_error():
    """An error of 10 deg decaying as exp(-t): it falls below 5 deg at ln 2 s (to the 1 ms
    sampling), RMS and maximum over [1, 2) s are the analytic ones (1e-3 relative); an error
    still above 5 deg at the end never settles."""
    t = np.arange(0.0, 5.0, 0.001)
    e = np.radians(10.0 * np.exp(-t))
    assert settling_time(t, e, 0.0, 5.0) == pytest.approx(np.log(2), abs=1e-3)
    rms, largest = window(t, e, 1.0, 2.0)
    assert rms == pytest.approx(10 * np.sqrt((np.exp(-2) - np.exp(-4)) / 2), rel=1e-3)
    assert largest == pytest.approx(10 * np.exp(-1), rel=1e-3)
    assert settling_time(t, np.radians(6.0 + 0 * t), 0.0, 5.0) is None


def test_markdown_table():
    """One heading, a header row, a separator and one row per case; None reads 'never'."""
    text = markdown("T", [Row("a", {"x": 1.23456, "y": None})])
    assert text.splitlines() == [
        "### T",
        "",
        "| case | x | y |",
        "| --- | --- | --- |",
        "| a | 1.23 | never |",
    ]


def test_buoy_study_command_writes_its_tables(tmp_path, fmu_dir, capsys):
    """``murcosim buoy-study --parts sea`` writes the sea-statistics table: 4 std(zeta) of an
    hour of each Pierson-Moskowitz sea within 5 % of its H_s (the test of test_buoy_ocean, here
    through the command)."""
    assert (
        main(["buoy-study", "--parts", "sea", "--out", str(tmp_path), "--fmu-dir", str(fmu_dir)])
        == 0
    )
    text = (tmp_path / "buoy_study.md").read_text()
    rows = re.findall(r"\| H_s (\d+) m \| ([\d.]+) \|", text)
    assert [h for h, _ in rows] == ["2", "3", "5"]
    for height, four_std in rows:
        assert float(four_std) == pytest.approx(float(height), rel=0.05)
    assert "written to" in capsys.readouterr().out


def test_unknown_part_is_a_one_line_error(capsys):
    """A part that does not exist: exit status 2 and one line naming it and the known parts."""
    assert main(["buoy-study", "--parts", "tides"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'tides'" in err and "latency" in err


def test_model_variant_changes_both_bodies_and_the_boundary_layer():
    """The command's model options become scenario changes of both bodies and the controller;
    without them nothing changes."""
    changes = model_changes(926.0, 0.02)
    assert changes["components.housing.parameters"] == {"data.C_Df_z": 926.0}
    assert changes["components.payload.parameters"] == {"data.C_Df_z": 926.0}
    assert changes["controllers.pointing.sliding_mode.h"] == 0.02
    assert model_changes(None, None) == {}
