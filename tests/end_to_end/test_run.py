"""Runs end to end: the demo reaches its set points; failing runs stop cleanly and keep results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT

from orchestrator.controllers import make_controllers
from orchestrator.controllers.base import Controller
from orchestrator.errors import SimulationError
from orchestrator.kinematics import euler_angles
from orchestrator.master.master import Master
from orchestrator.recording.tables import EventLog, TimeseriesWriter, read_events, read_timeseries
from orchestrator.runner.run import run_scenario
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System

DEMO = ROOT / "scenarios" / "bluerov2_heavy_single.toml"


def test_demo_reaches_its_set_points(fmu_dir, tmp_path):
    """BlueROV2 Heavy: depth 2 m, heading 45 deg, surge 0.5 m/s; held over the last 20 s.

    Bounds: depth within 2 cm, heading within 0.5 deg, surge within 1 cm/s, roll and pitch
    within 3 deg; plots and the scenario copy are written.
    """
    result = run_scenario(DEMO, tmp_path / "demo", fmu_dir)
    cols = read_timeseries(result.timeseries)
    late = cols["time"] >= 40.0
    q = np.column_stack([cols[f"rov.q[{i}]"] for i in range(1, 5)])
    roll, pitch, yaw = np.degrees(euler_angles(q)).T
    assert np.max(np.abs(cols["rov.p[3]"][late] - 2.0)) < 0.02
    assert np.max(np.abs(yaw[late] - 45.0)) < 0.5
    assert np.max(np.abs(cols["rov.nu[1]"][late] - 0.5)) < 0.01
    assert np.max(np.abs(roll[late])) < 3 and np.max(np.abs(pitch[late])) < 3
    assert cols["time"][-1] == pytest.approx(60.0)
    for name in (
        "autopilot.png",
        "summary.png",
        "thrusters.png",
        "scenario.toml",
        "events.csv",
    ):
        assert (tmp_path / "demo" / name).is_file(), name
    assert [e["event"] for e in read_events(result.events)] == ["start", "stop"]
    pwm = np.column_stack([cols[f"t{k}.pwm"] for k in range(1, 9)])
    assert np.all((pwm >= 1100) & (pwm <= 1900))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the autopilot sees the blow-up first
def test_diverging_run_stops_cleanly_and_keeps_results(fmu_dir, tmp_path):
    """RK4 with a 0.05 s step on a 1 ms motor lag diverges: the error names the first value
    that stops being finite (here the vehicle FMU's own check of its derivatives, in the FMU's
    words, at the 0.1 s recording point), the rows written so far stay on disk and events.csv
    records the error."""
    text = DEMO.read_text().replace('solver = "RK45"', 'solver = "RK4"')
    text = text.replace(
        'fmu = "LaggedThruster"', 'fmu = "LaggedThruster"\nparameters = { "data.T_motor" = 0.001 }'
    )
    path = tmp_path / "diverge.toml"
    path.write_text(text)
    out = tmp_path / "diverge"
    with pytest.raises(
        SimulationError,
        match=r"run stopped at t = 0.1 s: rov \(BlueROV2Heavy.fmu\): .*\(the FMU said, error: "
        r"der\(p\[1\]\) = -?nan at t = 0.1 s: not a finite number\)",
    ):
        run_scenario(path, out, fmu_dir, plots=False)
    cols = read_timeseries(out / "timeseries.csv")
    assert len(cols["time"]) >= 1
    events = read_events(out / "events.csv")
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and kinds[-2:] == ["error", "stop"]
    assert "not a finite number" in events[-2]["detail"]


class Faulty(Controller):
    """Raises on its third sample."""

    def __init__(self) -> None:
        super().__init__("faulty", 0.1, ["rov.p[3]"], ["faulty.out[1]"])
        self.calls = 0

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("sensor dropout")
        return np.array([inputs[0]])


def test_controller_fault_is_logged_and_outputs_held(fmu_dir, tmp_path: Path):
    path = tmp_path / "s.toml"
    path.write_text('[simulation]\nstop_time = 1.0\n[components.rov]\nfmu = "BlueROV2Heavy"\n')
    system = System(load_scenario(path), str(path), fmu_dir)
    x0 = system.initialize(0.0, (0.0, 0.0, 0.0))
    faulty = Faulty()
    record = ["rov.p[3]", "faulty.out[1]"]
    writer, events = TimeseriesWriter(tmp_path / "ts.csv", record), EventLog(tmp_path / "ev.csv")
    master = Master(
        system,
        [*make_controllers(system, None, x0), faulty],
        system.scenario.simulation,
        writer,
        events,
        record,
    )
    master.run(x0)
    writer.close()
    events.close()
    system.close()
    rows = read_events(tmp_path / "ev.csv")
    faults = [r for r in rows if r["event"] == "controller_fault"]
    assert (
        len(faults) == 1
        and "sensor dropout" in faults[0]["detail"]
        and float(faults[0]["time"]) == pytest.approx(0.2)
    )
    cols = read_timeseries(tmp_path / "ts.csv")
    held = cols["faulty.out[1]"][(cols["time"] > 0.15) & (cols["time"] < 0.25)]
    assert held.size == 1 and held[0] == cols["faulty.out[1]"][np.isclose(cols["time"], 0.1)][0]
    assert faulty.calls == 11
