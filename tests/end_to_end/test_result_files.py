"""Result files besides CSV: Parquet and the MCAP log with Foxglove schemas, read back with
their own readers (pyarrow, mcap) and compared with the CSV the same run wrote."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from mcap.reader import make_reader

import murcosim
from orchestrator.recording.tables import TimeseriesWriter, read_events, read_timeseries

DOCKING = ROOT / "scenarios" / "dock_move_undock.toml"


@pytest.fixture(scope="module")
def docking_run(fmu_dir, tmp_path_factory):
    """dock_move_undock cut to 3 s with the undocking at 2 s, written in all formats."""
    scenario = murcosim.edit(
        murcosim.load_scenario(DOCKING),
        {
            "simulation": {"stop_time": 3.0, "output_interval": 0.5},
            "events": [{"time": 2.0, "action": "undock", "joint": "dock"}],
        },
    )
    out = tmp_path_factory.mktemp("docking")
    murcosim.run(
        scenario,
        source=DOCKING,
        fmu_dir=fmu_dir,
        out=out,
        formats=("csv", "parquet", "mcap"),
        progress=False,
    )
    return out


def test_parquet_holds_the_csv_values_and_the_units(docking_run):
    table = pq.read_table(docking_run / "timeseries.parquet")
    csv = read_timeseries(docking_run / "timeseries.csv")
    assert table.column_names == list(csv)
    for name in csv:
        np.testing.assert_array_equal(table[name].to_numpy(), csv[name], err_msg=name)
    unit = {f.name: f.metadata[b"unit"].decode() for f in table.schema}
    assert unit["time"] == "s" and unit["leader.p[1]"] == "m"
    assert unit["leader_t1.thrust"] == "N" and unit["dock.force_a[4]"] == "N.m"


def test_mcap_has_the_channels_and_message_counts(docking_run):
    """One FrameTransform per body, one thrust per thruster and one joint message per recorded
    step (7 steps: 0 to 3 s every 0.5 s); one Log message per event (start, dock, undock,
    stop)."""
    with (docking_run / "run.mcap").open("rb") as handle:
        reader = make_reader(handle)
        summary = reader.get_summary()
        channels = {c.id: c for c in summary.channels.values()}
        schemas = {channels[k].topic: summary.schemas[channels[k].schema_id].name for k in channels}
        counts = {
            channels[k].topic: n for k, n in summary.statistics.channel_message_counts.items()
        }
    thrusters = [f"/thrusters/{side}_t{k}" for side in ("leader", "follower") for k in range(1, 9)]
    expected = {"/tf/leader", "/tf/follower", "/joints/dock", "/events", *thrusters}
    assert set(schemas) == expected
    assert schemas["/tf/leader"] == "foxglove.FrameTransform"
    assert schemas["/events"] == "foxglove.Log"
    assert schemas["/joints/dock"] == "murcosim.JointConstraint"
    assert schemas[thrusters[0]] == "murcosim.Thrust"
    events = read_events(docking_run / "events.csv")
    assert [e["event"] for e in events] == ["start", "dock", "undock", "stop"]
    assert counts == {**{t: 7 for t in expected}, "/events": 4}
    assert all(c.message_encoding == "json" for c in channels.values())


def test_mcap_messages_carry_the_recorded_values(docking_run):
    """The follower's pose at 1.5 s equals the CSV row (quaternion reordered to x, y, z, w);
    the weld's message is null before capture is recorded (t = 0) and after the undocking."""
    csv = read_timeseries(docking_run / "timeseries.csv")
    row = int(np.flatnonzero(np.isclose(csv["time"], 1.5))[0])
    messages: dict[str, list[dict]] = {}
    with (docking_run / "run.mcap").open("rb") as handle:
        for _, channel, message in make_reader(handle).iter_messages(log_time_order=True):
            messages.setdefault(channel.topic, []).append(json.loads(message.data))
    pose = messages["/tf/follower"][row]
    assert pose["timestamp"] == {"sec": 1, "nsec": 500_000_000}
    assert pose["parent_frame_id"] == "ned" and pose["child_frame_id"] == "follower"
    assert [pose["translation"][k] for k in "xyz"] == [
        csv[f"follower.p[{i}]"][row] for i in (1, 2, 3)
    ]
    rotation = [pose["rotation"][k] for k in "wxyz"]
    assert rotation == [csv[f"follower.q[{i}]"][row] for i in (1, 2, 3, 4)]
    joint = messages["/joints/dock"]
    assert joint[0]["position_error"] is None and joint[-1]["position_error"] is None
    assert joint[row]["position_error"] == csv["dock.position_error"][row]
    assert joint[row]["wrench_b"]["torque"]["z"] == csv["dock.force_b[6]"][row]
    thrust = messages["/thrusters/leader_t3"][row]["thrust"]
    assert thrust == csv["leader_t3.thrust"][row]
    logs = messages["/events"]
    assert Counter(m["name"] for m in logs) == Counter(["start", "dock", "undock", "stop"])
    assert all(m["level"] == 2 for m in logs)  # INFO


def test_mcap_messages_follow_their_schemas(docking_run):
    """Every message validates against the JSON schema registered for its channel (what
    Foxglove Studio decodes it with); the schemas reject a pose without its rotation."""
    from jsonschema import Draft202012Validator, ValidationError

    from orchestrator.recording.mcap import FRAME_TRANSFORM

    pose = {"timestamp": {"sec": 0, "nsec": 0}, "parent_frame_id": "ned", "child_frame_id": "a"}
    with pytest.raises(ValidationError):
        Draft202012Validator(FRAME_TRANSFORM).validate(
            {**pose, "translation": {"x": 0, "y": 0, "z": 0}}
        )

    checked = Counter()
    with (docking_run / "run.mcap").open("rb") as handle:
        for schema, _, message in make_reader(handle).iter_messages():
            assert schema.encoding == "jsonschema"
            Draft202012Validator(json.loads(schema.data)).validate(json.loads(message.data))
            checked[schema.name] += 1
    assert checked["foxglove.FrameTransform"] == 14 and checked["foxglove.Log"] == 4


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=5, max_size=5),
        min_size=1,
        max_size=6,
    )
)
def test_timeseries_csv_reads_back_every_double_exactly(tmp_path_factory, rows):
    """Any doubles (subnormal, huge, -0.0, nan, inf) written to timeseries.csv read back to the
    same doubles (by float(), pandas and read_timeseries), with every row on disk as soon as it is
    written (before the file is closed)."""
    path = tmp_path_factory.mktemp("csv") / "timeseries.csv"
    writer = TimeseriesWriter(path, [f"v[{k}]" for k in range(1, 6)])
    for t, row in enumerate(rows):
        writer.write(0.1 * t, np.array(row))
    lines = path.read_text(encoding="ascii").splitlines()
    writer.close()
    assert lines[0] == "time,v[1],v[2],v[3],v[4],v[5]"
    written = np.array([[float(x) for x in line.split(",")] for line in lines[1:]])
    expected = np.column_stack([0.1 * np.arange(len(rows)), np.array(rows)])
    np.testing.assert_array_equal(written, expected)  # nan == nan here
    numbers = ~np.isnan(expected)  # a nan's sign is not kept (repr writes "nan")
    assert np.array_equal(np.signbit(written[numbers]), np.signbit(expected[numbers]))
    np.testing.assert_array_equal(pd.read_csv(path).to_numpy(), expected)
    by_name = read_timeseries(path)
    np.testing.assert_array_equal(np.column_stack(list(by_name.values())), expected)
