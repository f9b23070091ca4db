"""Batched controllers: many vehicles' autopilots and thrust allocations sampled in one step
give each vehicle the outputs of its own controller, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import tomli_w

import orchestrator.controllers.batch as batch
from orchestrator.controllers import make_controllers
from orchestrator.controllers.batch import AllocationBatch, AutopilotBatch, batched
from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System
from studies.bench_swarm import swarm_document

VEHICLES = 5


def _document(n: int, stop_time: float) -> dict:
    """A swarm with vehicles that differ: gains, set-point changes, a failing thruster and
    one pseudo-inverse allocation with thrust bias."""
    document = swarm_document(n, stop_time)
    controllers = document["controllers"]
    controllers["rov1_autopilot"]["gains"] = {"heading": {"kp": 9.0, "ki": 0.0, "kd": 3.0}}
    controllers["rov2_autopilot"]["changes"] = [{"time": 0.4, "heading": -120.0, "depth": 4.0}]
    controllers["rov3_allocation"]["failed"] = {"rov3_t5": 0.3}
    controllers["rov4_allocation"].update(method="pseudo_inverse", bias=4.0)
    return document


@pytest.fixture
def swarm(fmu_dir, tmp_path):
    """Two independent sets of the swarm's controllers on one initialized system."""
    path = tmp_path / "swarm.toml"
    path.write_text(tomli_w.dumps(_document(VEHICLES, 1.0)), encoding="utf-8")
    scenario = load_scenario(path)
    system = System(scenario, str(path), fmu_dir)
    x0 = system.initialize(0.0, (0.0, 0.0, 0.0))
    yield make_controllers(system, None, x0), make_controllers(system, None, x0)
    system.close()


def _states(rng: np.random.Generator, n: int) -> np.ndarray:
    """Body states (p, unit q, nu) of ``n`` vehicles, stacked."""
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return np.column_stack([rng.normal(size=(n, 3)), q, rng.normal(size=(n, 6))]).ravel()


def test_batches_keep_each_controller_and_their_order(swarm):
    controllers, _ = swarm
    merged = batched(controllers)
    assert [type(c) for c in merged] == [AutopilotBatch, AllocationBatch]
    assert merged[0].members == controllers[0::2] and merged[1].members == controllers[1::2]
    assert merged[1].outputs == [n for c in controllers[1::2] for n in c.outputs]


def test_a_controller_reading_a_member_stops_the_move(swarm):
    controllers, _ = swarm
    # autopilot 1 passes allocation 0 (independent); allocation 1 reads autopilot 1, which is
    # then in the batch before it
    merged = batched([controllers[0], controllers[1], controllers[2], controllers[3]])
    assert [type(c) for c in merged] == [AutopilotBatch, AllocationBatch]
    # allocation 2 cannot pass autopilot 2, whose output it reads: it starts a batch of its
    # own after it, which allocation 1 joins
    reordered = [controllers[1], controllers[4], controllers[5], controllers[3]]
    kinds = [type(c).__name__ for c in batched(reordered)]
    assert kinds == ["ThrustAllocation", "DepthHeadingSpeedAutopilot", "AllocationBatch"]


def test_batched_autopilots_equal_their_members_bit_for_bit(swarm):
    controllers, twins = swarm
    members, alone = controllers[0::2], twins[0::2]
    merged = AutopilotBatch(members)
    rng = np.random.default_rng(3)
    for k in range(40):
        time, inputs = 0.05 * k, _states(rng, VEHICLES)
        expected = np.concatenate(
            [c.step(time, inputs[13 * i : 13 * i + 13]) for i, c in enumerate(alone)]
        )
        np.testing.assert_array_equal(merged.step(time, inputs), expected)


def test_batched_allocations_equal_their_members_bit_for_bit(swarm):
    controllers, twins = swarm
    members, alone = controllers[1::2], twins[1::2]
    merged = AllocationBatch(members)
    rng = np.random.default_rng(5)
    limits = np.array([60.0, 60.0, 90.0, 15.0, 15.0, 20.0])  # beyond the thrusters' reach
    for k in range(60):
        time = 0.05 * k
        taus = rng.uniform(-1, 1, size=(VEHICLES, 6)) * limits * (0.05 if k % 3 else 1.0)
        expected = np.concatenate([c.step(time, taus[i]) for i, c in enumerate(alone)])
        np.testing.assert_array_equal(merged.step(time, taus.ravel()), expected)
    assert not merged.events


def test_a_failing_member_holds_its_outputs_and_the_others_go_on(swarm):
    controllers, twins = swarm
    members, alone = controllers[1::2], twins[1::2]
    merged = AllocationBatch(members)
    taus = np.tile([20.0, 0.0, 10.0, 0.0, 0.0, 1.0], (VEHICLES, 1))
    first = merged.step(0.0, taus.ravel())
    for i, c in enumerate(alone):
        c.step(0.0, taus[i])

    taus[:, 0] = -30.0
    commands = taus.copy()
    commands[2] = np.nan  # e.g. an autopilot's estimate lost: no thrusts for it
    outputs = merged.step(0.05, commands.ravel())
    spans = np.cumsum([0] + [len(c.outputs) for c in members])
    for i, c in enumerate(alone):
        part = outputs[spans[i] : spans[i + 1]]
        if i == 2:
            np.testing.assert_array_equal(part, first[spans[i] : spans[i + 1]])
        else:
            np.testing.assert_array_equal(part, c.step(0.05, taus[i]))
    (event,) = merged.events
    assert event[0] == "controller_fault"
    assert event[1].startswith("rov2_allocation: ValueError: thrust allocation: the command")
    assert "is not finite; previous outputs held" in event[1]


def test_a_swarm_runs_the_same_batched_and_alone(fmu_dir, tmp_path, monkeypatch):
    path = tmp_path / "swarm.toml"
    path.write_text(tomli_w.dumps(_document(VEHICLES, 2.0)), encoding="utf-8")
    run_scenario(path, tmp_path / "batched", fmu_dir, plots=False)
    monkeypatch.setattr(batch, "batched", lambda controllers: controllers)
    run_scenario(path, tmp_path / "alone", fmu_dir, plots=False)
    together = read_timeseries(tmp_path / "batched" / "timeseries.csv")
    alone = read_timeseries(tmp_path / "alone" / "timeseries.csv")
    assert list(together) == list(alone) and len(together["time"]) == 21
    for name, values in alone.items():
        np.testing.assert_array_equal(together[name], values, err_msg=name)


def test_an_autopilot_with_a_lost_state_holds_its_outputs_and_the_others_go_on(swarm):
    controllers, twins = swarm
    members, alone = controllers[0::2], twins[0::2]
    merged = AutopilotBatch(members)
    rng = np.random.default_rng(9)
    inputs = _states(rng, VEHICLES)
    first = merged.step(0.0, inputs)
    for i, c in enumerate(alone):
        c.step(0.0, inputs[13 * i : 13 * i + 13])
    inputs = _states(rng, VEHICLES)
    lost = inputs.copy()
    lost[13 * 3 + 7] = np.nan  # vehicle 3's surge speed
    outputs = merged.step(0.05, lost)
    for i, c in enumerate(alone):
        part = outputs[9 * i : 9 * i + 9]
        if i == 3:
            np.testing.assert_array_equal(part, first[27:36])
        else:
            np.testing.assert_array_equal(part, c.step(0.05, inputs[13 * i : 13 * i + 13]))
    (event,) = merged.events
    assert event[0] == "controller_fault"
    assert event[1].startswith("rov3_autopilot: ValueError: non-finite outputs")
