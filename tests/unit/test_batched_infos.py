"""BatchedVectorEnv's infos batched a key at a time equal Gymnasium's, batched one by one."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import VectorEnv

from orchestrator.rl.batched import _info_columns


def gymnasium_batched(infos: list[dict]) -> dict:
    """The infos batched by Gymnasium's own ``VectorEnv._add_info``, one info at a time."""
    vector = VectorEnv()
    vector.num_envs = len(infos)
    batched: dict = {}
    for i, info in enumerate(infos):
        batched = vector._add_info(batched, info, i)
    return batched


def assert_same(ours: dict, theirs: dict) -> None:
    assert list(ours) == list(theirs)  # the keys and masks in Gymnasium's order
    for key, value in theirs.items():
        assert ours[key].dtype == value.dtype and ours[key].shape == value.shape
        assert all(a is b or a == b for a, b in zip(ours[key], value, strict=True)), key


EVENT = (0.8, "dock", "dock: leader port 2 + follower port 1")


@pytest.mark.parametrize(
    "infos",
    [
        [
            {"time": 0.05, "events": []},
            {"time": 0.1, "events": [EVENT]},
            {"time": 0.0, "events": []},
        ],
        [{"steps": 3, "ok": True, "name": "a"}, {"steps": 4, "ok": False, "name": "b"}],
        [{"time": 0.05, "events": []}, {"events": [EVENT], "time": 0.1}],  # keys reordered
        [{}, {}],
        [{"events": [EVENT]}],
    ],
)
def test_plain_infos_batched_as_gymnasium_batches_them(infos):
    """Python floats, ints, Booleans, lists and strings: float64, int64 and bool arrays and
    object arrays holding each list itself (an empty one too), a True mask per key."""
    columns = _info_columns(infos)
    assert columns is not None
    assert_same(columns, gymnasium_batched(infos))
    if "events" in infos[0]:
        assert columns["events"][0] is infos[0]["events"]


@pytest.mark.parametrize(
    "infos",
    [
        [{"time": 0.05}, {"time": 1}],  # mixed types: cast into the first one's
        [{"time": 0.05}, {"steps": 1}],  # other keys
        [{"time": np.float64(0.05)}, {"time": np.float64(0.1)}],  # NumPy numbers
        [{"p": np.zeros(3)}, {"p": np.ones(3)}],  # arrays
        [{"episode": {"r": 1.0}}, {"episode": {"r": 2.0}}],  # nested
        [{"final_obs": 1.0}, {"final_obs": 2.0}],  # Gymnasium's special key
        [{"_time": 1.0}, {"_time": 2.0}],  # a mask's name
    ],
)
def test_other_infos_are_left_to_gymnasium(infos):
    """Infos the columns would not batch alike are refused (None): Gymnasium's way is used."""
    assert _info_columns(infos) is None
