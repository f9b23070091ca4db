"""The master's loop over its strategy, manipulators and observers, and the signal table
that resolves every name of a run once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from orchestrator.errors import ScenarioError
from orchestrator.master.master import Master
from orchestrator.master.protocols import Manipulator, Observer, Point
from orchestrator.master.signals import SignalTable
from orchestrator.recording.tables import EventTable, TimeseriesTable
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System

SCENARIO = """
[simulation]
stop_time = 1.0
output_interval = 0.25
[components.rov]
fmu = "BlueROV2Heavy"
"""


@pytest.fixture
def system(fmu_dir, tmp_path: Path):
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    system = System(load_scenario(path), str(path), fmu_dir)
    yield system
    system.close()


class Seen(Observer):
    """Writes down every call it gets."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float, bool]] = []

    def started(self, point: Point) -> None:
        self.calls.append(("started", point.stamp, point.recording))

    def observe(self, point: Point, x: np.ndarray) -> None:
        self.calls.append(("observe", point.stamp, point.recording))

    def finished(self) -> None:
        self.calls.append(("finished", np.nan, False))


class Push(Manipulator):
    """Every 0.1 s; from 0.5 s on, a heave force of 100 N on the vehicle."""

    def __init__(self, system: System) -> None:
        self.instance = system.instances["rov"]
        self.port = self.instance.port(["tau_ext[3]"])
        self.times: list[float] = []
        self._next = 0

    def periods(self) -> list[float]:
        return [0.1]

    def start(self, clock) -> None:
        self._every = clock.ticks(0.1)

    def manipulate(self, point: Point, x: np.ndarray) -> np.ndarray:
        self.times.append(point.time)
        self.port.values[:] = 100.0 if point.time >= 0.5 else 0.0
        self.instance.write(self.port)
        self._next = point.index + self._every
        return x

    def next_tick(self, index: int, recording: int) -> int:
        return self._next


def test_observers_and_manipulators_are_called_at_their_times(system):
    """The master's tick is the largest dividing 0.25 s and 0.1 s (0.05 s). The manipulator
    acts at each tick it asked for (every 0.1 s, and the stop time), the observer sees every
    communication point (those and the recording points, 0.25 s apart) between its start and
    its end, with the recording points flagged; a force set at 0.5 s is in the row of 0.5 s
    (manipulators act before the observers) and not in that of 0.25 s."""
    x0 = system.initialize(0.0, (0.0, 0.0, 0.0))
    record = ["rov.tau_ext[3]"]
    table, seen, push = TimeseriesTable(record), Seen(), Push(system)
    sim = system.scenario.simulation
    master = Master(system, [], sim, table, EventTable(), record, [seen], manipulators=[push])
    master.run(x0)
    tenths = [k / 10 for k in range(11)]
    assert push.times == pytest.approx(tenths, abs=1e-15)
    recording = {0.0, 0.25, 0.5, 0.75, 1.0}
    points = sorted(set(tenths) | recording)
    expected = [("started", 0.0, True)]
    expected += [("observe", t, t in recording) for t in points] + [("finished", np.nan, False)]
    assert [c[0] for c in seen.calls] == [c[0] for c in expected]
    assert [c[2] for c in seen.calls] == [c[2] for c in expected]
    assert np.allclose([c[1] for c in seen.calls], [c[1] for c in expected], equal_nan=True)
    force = dict(zip(table.times, [row[0] for row in table.rows], strict=True))
    assert list(force) == sorted(recording)
    assert force[0.25] == 0.0 and force[0.5] == 100.0 and force[1.0] == 100.0


def test_the_signal_table_resolves_each_kind_of_name(system):
    """A controller output on the bus, a joint column, an integrated state (also an FMU
    variable, where states are not looked for), an FMU input; in the order of the kinds."""
    states = system.state_index()
    table = SignalTable(system, ["autopilot.tau[1]"], states, ["dock.position_error"])
    names = ["rov.tau_ext[1]", "dock.position_error", "autopilot.tau[1]", "rov.p[3]"]
    where = table.select(names, "record")
    assert where.bus[0].tolist() == [2] and where.bus[1].tolist() == [0]
    assert where.joint[0].tolist() == [1] and where.joint[1] == ["dock.position_error"]
    assert where.state[0].tolist() == [3] and where.state[1].tolist() == [states["rov.p[3]"]]
    [(instance, port, positions)] = where.fmu
    assert instance.name == "rov" and port.names == ["tau_ext[1]"] and positions.tolist() == [0]
    [(_, port, positions)] = table.select(["rov.p[3]"], "probe", ("bus", "fmu")).fmu
    assert port.names == ["p[3]"] and positions.tolist() == [0]
    assert table.kind("autopilot.tau[1]", ("fmu",)) == "fmu"  # where the bus is not looked at
    table.values[0] = 3.5
    signals = np.zeros(4)
    where.from_bus(table.values, signals)
    assert signals.tolist() == [0.0, 0.0, 3.5, 0.0]


@pytest.mark.parametrize(
    ("name", "kinds", "message"),
    [
        ("rov.nothing", ("bus", "fmu"), "controllers.x: 'nothing' is not a variable of"),
        ("sub.p[1]", ("bus", "fmu"), "controllers.x: unknown component 'sub'"),
        ("autopilot.tau[7]", ("bus",), "controllers.x: 'autopilot.tau[7]' is none of the"),
    ],
)
def test_the_signal_table_refuses_an_unknown_name_in_one_line(system, name, kinds, message):
    table = SignalTable(system, ["autopilot.tau[1]"], {}, [])
    with pytest.raises(ScenarioError) as error:
        table.select([name], "controllers.x", kinds)
    text = str(error.value)
    assert message in text and "\n" not in text and text.startswith(system.source)
