"""murcosim.gym.BatchedVectorEnv: environments stepped in batches by worker processes give
the episodes Gymnasium's serial vector environment gives."""

from __future__ import annotations

import multiprocessing
import pickle
from functools import partial

import gymnasium
import numpy as np
import pytest
from conftest import ROOT

import murcosim
from murcosim.gym import BatchedVectorEnv, ScenarioEnv, SharedFMUs
from orchestrator.rl.station import OBSERVATION, START, TAU_LIMIT, station_reward, station_scenario

SCENARIOS = ROOT / "scenarios"
SOURCE = SCENARIOS / "bluerov2_heavy_single.toml"
ACTION = {f"agent.tau[{i}]": (-b, b) for i, b in enumerate(TAU_LIMIT, start=1)}


def station_env(fmu_dir, max_time: float = 0.5) -> partial:
    """Station keeping with 10-sample episodes (at 20 Hz), so that steps end episodes."""
    return partial(
        ScenarioEnv,
        station_scenario(SCENARIOS, False),
        OBSERVATION,
        ACTION,
        reward=station_reward,
        start=START,
        max_time=max_time,
        source=SOURCE,
        fmu_dir=fmu_dir,
    )


def assert_same_step(batched: tuple, serial: tuple) -> None:
    for ours, theirs in zip(batched[:4], serial[:4], strict=True):
        assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
    assert batched[4].keys() == serial[4].keys()
    for key in ("time", "_time", "_events"):
        assert np.array_equal(batched[4][key], serial[4][key])
    assert list(batched[4]["events"]) == list(serial[4]["events"])


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_same_episodes_as_the_serial_vector_env(fmu_dir, context):
    """Five environments over two workers (2 + 3) against Gymnasium's SyncVectorEnv over the
    same five, with the same seeds and actions over 32 steps: every observation, reward, flag
    and info equal bit for bit, across three automatic resets (episodes of 10 steps; the step
    after an ended episode returns the next one's first observation with reward 0), and
    again after a reset with one int seed (sub-environment i gets seed + i). The batched
    environments of each process share their FMUs (SharedFMUs), the serial ones each load
    their own."""
    if context not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no '{context}' start method on this platform")
    make = station_env(fmu_dir)
    shared = partial(make, shared_fmus=SharedFMUs())
    batched = BatchedVectorEnv([shared] * 5, workers=2, context=context)
    serial = gymnasium.vector.SyncVectorEnv([make] * 5)
    rng = np.random.default_rng(0)
    try:
        assert batched.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
        assert batched.single_action_space == serial.single_action_space
        assert batched.observation_space == serial.observation_space
        ours, theirs = batched.reset(seed=[3, 1, 4, 1, 5]), serial.reset(seed=[3, 1, 4, 1, 5])
        assert np.array_equal(ours[0], theirs[0]) and ours[0].dtype == np.float32
        ended = np.zeros(5, dtype=bool)
        resets = truncations = 0
        for _ in range(32):
            actions = rng.uniform(-30.0, 30.0, size=(5, 6))  # beyond the bounds: clipped
            step = batched.step(actions)
            assert_same_step(step, serial.step(actions))
            assert np.all(step[1][ended] == 0.0) and np.all(step[1][~ended] < 0.0)
            assert not step[2].any()
            resets += int(ended.sum())
            ended = step[3]
            truncations += int(ended.sum())
        assert truncations == 15 and resets == 10  # ends at steps 10, 21, 32; resets at 11, 22
        ours, theirs = batched.reset(seed=11), serial.reset(seed=11)
        assert np.array_equal(ours[0], theirs[0])
        actions = rng.uniform(-30.0, 30.0, size=(5, 6))
        assert_same_step(batched.step(actions), serial.step(actions))
    finally:
        batched.close()
        serial.close()


def test_a_worker_error_is_raised_in_one_line(fmu_dir):
    """A sub-environment refused in its worker (an unknown signal) is the same one-line
    ScenarioError in the caller, and no worker process is left running."""
    bad = partial(
        ScenarioEnv,
        SOURCE,
        ["rov.p[9]"],
        ACTION,
        fmu_dir=fmu_dir,
    )
    before = set(multiprocessing.active_children())
    with pytest.raises(murcosim.ScenarioError, match=r"p\[9\]") as error:
        BatchedVectorEnv([station_env(fmu_dir), bad], workers=2)
    assert "\n" not in str(error.value)
    assert set(multiprocessing.active_children()) == before


def test_shared_fmus_are_loaded_once_and_closed_with_the_last_environment(fmu_dir):
    """Two environments given one SharedFMUs hold the same loaded FMUs (a vehicle and its
    thruster) and instances of their own: the second steps on after the first is closed, and
    closing it removes the unpacked FMUs. Pickled, a SharedFMUs arrives empty."""
    shared = SharedFMUs()
    first, second = (station_env(fmu_dir)(shared_fmus=shared) for _ in range(2))
    loaded = first.episodes._loaded
    assert loaded is second.episodes._loaded and len(loaded) == 2
    unpacked = [fmu._unpacked for fmu in loaded.values()]
    assert not set(first.episodes._run.system.instances.values()) & set(
        second.episodes._run.system.instances.values()
    )
    assert pickle.loads(pickle.dumps(shared)).acquire() == {}
    first.reset(seed=0)
    second.reset(seed=0)
    first.close()
    assert all(path.is_dir() for path in unpacked)
    assert np.isfinite(second.step(np.zeros(6, np.float32))[0]).all()
    second.close()
    assert not any(path.exists() for path in unpacked) and not loaded
