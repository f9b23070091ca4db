"""Compiled controllers sampled as one run: the same run when they are sampled one by one (a
member paused for), and a failing member's fault logged with its outputs held."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import numpy as np
import tomli_w
from conftest import ROOT

from orchestrator.master.assembly import assemble
from orchestrator.master.law_runs import LawRun
from orchestrator.master.master import Master
from orchestrator.recording.tables import EventTable, TimeseriesTable
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System


def spiral(tmp_path: Path, **joints_target: object) -> Path:
    """uvms_spiral for 0.1 s (50 samples of its three controllers), arm 1's target changed."""
    document = tomllib.loads((ROOT / "scenarios" / "uvms_spiral.toml").read_text())
    document["simulation"].update(stop_time=0.1, output_interval=0.1)
    document["controllers"]["joints"]["targets"]["arm1"].update(joints_target)
    path = tmp_path / "spiral.toml"
    path.write_text(tomli_w.dumps(document))
    return path


def run(path: Path, fmu_dir: Path, paused_for: str | None = None):
    """The final state, the events, the number of pauses and the master's sampling units."""
    system = System(load_scenario(path), str(path), fmu_dir)
    try:
        parts = assemble(system)
        events = EventTable()
        master = Master(
            system,
            parts.controllers,
            system.scenario.simulation,
            TimeseriesTable([]),
            events,
            [],
            coupling=parts.coupling,
        )
        master.handover = next((c for c in parts.controllers if c.name == paused_for), None)
        steps, pauses = master.steps(parts.x0), 0
        try:
            while True:
                next(steps)
                pauses += 1
        except StopIteration as end:
            return end.value, events.rows, pauses, master.controllers._units
    finally:
        system.close()


def test_a_run_paused_for_a_member_samples_it_one_by_one_the_same(tmp_path, fmu_dir):
    path = spiral(tmp_path)
    x, events, pauses, units = run(path, fmu_dir)
    (unit,) = units
    assert isinstance(unit, LawRun)
    assert [c.name for c in unit.controllers] == ["pd", "allocation", "joints"]
    assert pauses == 0
    paused_x, paused_events, pauses, _ = run(path, fmu_dir, paused_for="allocation")
    assert pauses == 51  # every sample of 0 to 0.1 s
    np.testing.assert_array_equal(paused_x, x)
    assert [e[1] for e in events] == [e[1] for e in paused_events] == ["start"]


def test_a_failing_member_is_a_controller_fault_and_holds_its_outputs(tmp_path, fmu_dir):
    """Arm 1's circle moved 0.5 m out: out of reach from the first sample; the joints' torques
    stay at zero (held) and the other members go on."""
    path = spiral(tmp_path, x=[{"offset": 0.74, "amplitude": 0.08, "period": 5.0}])
    x, events, _, _ = run(path, fmu_dir)
    faults = [e for e in events if e[1] == "controller_fault"]
    assert len(faults) == 51
    assert faults[0][2].startswith("joints: ValueError: end-effector point [0.74, 0.0, 0.19] m")
    assert re.search(
        r"out of reach \(.* m from the shoulder; reach 0.13 to 0.37 m\); previous", faults[0][2]
    )
    reference, reference_events, _, _ = run(path, fmu_dir, paused_for="joints")  # one by one
    np.testing.assert_array_equal(x, reference)
    assert reference_events == events
