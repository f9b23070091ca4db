"""The per-sample glue of the master and the small kernels controllers call at every sample:
controller links, timeseries rows, Euler angles of one quaternion, the PID loop's clamp."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from orchestrator.controllers.base import Controller
from orchestrator.kinematics import euler_angles
from orchestrator.master.master import Master
from orchestrator.recording.tables import EventLog, TimeseriesWriter
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System


class Source(Controller):
    """Publishes two bus signals."""

    def __init__(self) -> None:
        super().__init__("src", 0.1, [], ["src.a", "src.b"])

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        return np.array([1.5, -2.5])


class Mixed(Controller):
    """Inputs from two FMU instances and the bus, interleaved; outputs to both as well."""

    def __init__(self) -> None:
        inputs = ["rov.p[3]", "src.b", "t1.pwm", "rov.q[1]", "src.a", "t2.pwm"]
        super().__init__("mix", 0.1, inputs, ["t2.pwm", "mix.m", "t1.pwm"])

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        return np.zeros(3)


def test_controller_link_moves_every_signal_to_its_place(fmu_dir, tmp_path: Path):
    """gather returns the inputs in declared order from the state vector (an integrated FMU's
    states), the FMUs (other variables) and the bus; apply writes each output to its FMU input
    or bus signal, and with a mask keeps the masked-out ones as applied."""
    path = tmp_path / "s.toml"
    path.write_text(
        '[simulation]\nstop_time = 1.0\n[components.rov]\nfmu = "BlueROV2Heavy"\n'
        '[components.rov.start]\n"p[3]" = 0.75\n'
        '[components.t1]\nfmu = "LaggedThruster"\nmount = "rov"\nslot = 1\n'
        '[components.t2]\nfmu = "LaggedThruster"\nmount = "rov"\nslot = 2\n'
    )
    system = System(load_scenario(path), str(path), fmu_dir)
    x = system.initialize(0.0, (0.0, 0.0, 0.0))
    record = ["rov.p[3]"]
    master = Master(
        system,
        [Source(), Mixed()],
        system.scenario.simulation,
        TimeseriesWriter(tmp_path / "ts.csv", record),
        EventLog(tmp_path / "ev.csv"),
        record,
    )
    source, mixed = master.controllers.links
    bus = master.signals
    source.apply(np.array([1.5, -2.5]))
    rov, t1, t2 = (system.instances[n] for n in ("rov", "t1", "t2"))
    for instance, pwm in ((t1, 1600.0), (t2, 1400.0)):
        port = instance.port(["pwm"])
        port.values[:] = pwm
        instance.write(port)
    states = system.state_index()
    assert x[states["rov.p[3]"]] == 0.75
    x[states["rov.p[3]"]], x[states["rov.q[1]"]] = 0.25, 0.5  # not what the FMU holds
    expected = [0.25, -2.5, 1600.0, 0.5, 1.5, 1400.0]
    assert mixed.gather(x).tolist() == expected

    mixed.apply(np.array([1550.0, 7.0, 1450.0]))
    assert t2.get_values(["pwm"])[0] == 1550.0 and t1.get_values(["pwm"])[0] == 1450.0
    assert bus.values[bus.index["mix.m"]] == 7.0
    mixed.apply(np.array([1700.0, 8.0, 1300.0]), np.array([False, True, True]))
    assert t2.get_values(["pwm"])[0] == 1550.0  # masked out: the applied value stays
    assert t1.get_values(["pwm"])[0] == 1300.0 and bus.values[bus.index["mix.m"]] == 8.0
    system.close()


def test_timeseries_rows_are_the_text_csv_writer_writes(tmp_path: Path):
    """Every number as the standard library's csv.writer writes it, and read back exactly."""
    values = [0.1 + 0.2, -0.0, 5e-324, 1e22, -123456789.123, np.nan, np.inf, -np.inf, 2.0**53 + 2]
    writer = TimeseriesWriter(tmp_path / "ts.csv", [f"c{k}" for k in range(len(values))])
    writer.write(0.05, np.array(values))
    writer.close()
    reference = io.StringIO()
    csv.writer(reference, lineterminator="\n").writerow([0.05, *values])
    header, row = (tmp_path / "ts.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    assert header.startswith("time,c0,") and row == reference.getvalue()
    read = [float(field) for field in row.strip().split(",")][1:]
    assert np.array_equal(read, values, equal_nan=True)
    assert np.signbit(read[1])  # -0.0 keeps its sign


def test_euler_angles_of_one_quaternion_match_the_stacked_path_and_scipy():
    """Within 2 ulp of the stacked path (the same arithmetic; one quaternion goes through libm's
    atan2 and asin, a stack through NumPy's vectorized ones, which differ by up to an ulp), and
    SciPy's intrinsic zyx angles within 1e-12 rad, including the gimbal lock at pitch +-90 deg
    (roll and yaw are then not unique: only pitch is compared there)."""
    rng = np.random.default_rng(7)
    q = rng.normal(size=(2000, 4))
    q /= np.linalg.norm(q, axis=1)[:, None]
    stacked = euler_angles(q)
    one_by_one = np.array([euler_angles(row) for row in q])
    assert np.all(np.abs(one_by_one - stacked) <= 2 * np.spacing(np.abs(stacked)))
    scipy_xyzw = np.column_stack([q[:, 1:], q[:, 0]])
    yaw, pitch, roll = Rotation.from_quat(scipy_xyzw).as_euler("ZYX").T
    assert np.allclose(np.column_stack([roll, pitch, yaw]), stacked, rtol=0, atol=1e-12)
    for sign in (1.0, -1.0):  # pitch +-90 deg: R[2, 0] at -+1 (clamped if it rounds beyond)
        half = sign * np.pi / 4
        locked = np.array([np.cos(half), 0.0, np.sin(half), 0.0])
        assert euler_angles(locked)[1] == pytest.approx(sign * np.pi / 2, abs=1e-7)
