"""The scripts in ``examples/`` run as a researcher would start them, with short stop times."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from conftest import ROOT


def example(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_single_vehicle_heads_for_its_set_points(fmu_dir, capsys):
    """10 s of the 60 s run: from 0.5 m at rest the vehicle goes down towards 2 m and speeds
    up towards 0.5 m/s; the callback's deepest point is the recorded maximum or deeper (it
    sees every 0.05 s, the recording every 0.1 s)."""
    results = example("single_vehicle").main(stop_time=10.0)
    frame = results.timeseries
    assert frame.index[-1] == pytest.approx(10.0)
    assert 1.5 < frame["rov.p[3]"].iloc[-1] < 2.5
    assert 0.3 < frame["rov.nu[1]"].iloc[-1] < 0.7
    out = capsys.readouterr().out
    deepest = float(out.split("deepest ")[1].split(" m")[0])
    assert deepest >= round(frame["rov.p[3]"].max(), 3)


def test_dock_and_undock_at_the_chosen_time(fmu_dir, capsys):
    """Docked at capture (0.55 s), undocked at the edited time; the weld's position error stays
    at the projection's level while docked and the column is empty before and after."""
    results = example("dock_and_undock").main(stop_time=10.0, undock_at=6.0)
    events = results.events.set_index("event")["time"]
    assert events["dock"] == pytest.approx(0.55)
    assert events["undock"] == pytest.approx(6.0)
    error = results.timeseries["dock.position_error"]
    docked = (error.index > 0.55) & (error.index <= 6.0)
    assert np.nanmax(np.abs(error[docked])) < 1e-6
    assert error[error.index > 6.05].isna().all()
    assert "dock undocked at 6 s" in capsys.readouterr().out


def test_parameter_study_gives_one_row_per_gain(fmu_dir):
    """Two depth gains over 12 s: the stiffer loop overshoots the 2 m set point less."""
    table = example("parameter_study").main(stop_time=12.0, gains=(30.0, 120.0))
    assert list(table.index) == [30.0, 120.0]
    assert table.loc[120.0, "overshoot_m"] < table.loc[30.0, "overshoot_m"]
    assert np.all(np.abs(table["final_depth_m"] - 2.0) < 0.5)


def test_station_keeping_rl_smoke(fmu_dir, capsys):
    """A few hundred SAC steps on 2 s episodes (the example's full run takes minutes): the
    learned policy, the autopilot and a random policy each get a score per evaluation
    episode, all negative (the reward is a negative squared error), and over the same two
    episodes the autopilot's is better than the random policy's."""
    results = example("station_keeping_rl").main(
        steps=300, seeds=range(1000, 1002), max_time=2.0, learning_starts=100
    )
    assert set(results) == {"policy", "autopilot", "random"}
    for values in results.values():
        assert values.shape == (2,) and np.all(values < 0.0)
    assert results["autopilot"].mean() > results["random"].mean()
    assert "autopilot" in capsys.readouterr().out
