"""``run.mcap``: the run as an MCAP log with Foxglove schemas (JSON encoding), for Foxglove.

Channels, one message per recorded step unless said otherwise; log and publish times are the
simulation time in ns:

- ``/tf/<body>`` (``foxglove.FrameTransform``): pose of every body whose ``p[1..3]`` and
  ``q[1..4]`` are recorded; parent frame ``ned`` (x north, y east, z down, m), child frame the
  body (x forward, y starboard, z down); translation = ``p`` (m), rotation = ``q`` (body to NED,
  written x, y, z, w).
- ``/thrusters/<thruster>`` (``murcosim.Thrust``): recorded ``thrust`` (N) along the
  thruster's direction.
- ``/joints/<joint>`` (``murcosim.JointConstraint``): ``position_error`` (m), ``angle_error``
  (rad), generalized constraint forces ``wrench_a``/``wrench_b`` (N and N.m, in body a's and
  b's frames at their origins); ``null`` while a docking pair is apart.
- ``/events`` (``foxglove.Log``): one message per event (start, dock, undock, faults, stop),
  ``name`` the event, ``message`` its detail; level ERROR for errors, WARNING for faults,
  rejected docks and MPC fallbacks, INFO otherwise.

The schemas ``foxglove.FrameTransform`` and ``foxglove.Log`` follow the Foxglove JSON schemas
(Foxglove, "Foxglove schemas", foxglove-sdk, 2024).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
from mcap.writer import Writer

_TIME = {
    "type": "object",
    "title": "time",
    "properties": {
        "sec": {"type": "integer", "minimum": 0},
        "nsec": {"type": "integer", "minimum": 0, "maximum": 999999999},
    },
    "required": ["sec", "nsec"],
}


def _vector(title: str, names: str, unit: str) -> dict:
    return {
        "title": title,
        "type": "object",
        "description": unit,
        "properties": {n: {"type": ["number", "null"]} for n in names},
        "required": list(names),
    }


FRAME_TRANSFORM = {
    "title": "foxglove.FrameTransform",
    "description": "A transform between two reference frames in 3D space",
    "type": "object",
    "properties": {
        "timestamp": {**_TIME, "description": "Timestamp of transform"},
        "parent_frame_id": {"type": "string", "description": "Name of the parent frame"},
        "child_frame_id": {"type": "string", "description": "Name of the child frame"},
        "translation": {
            **_vector("foxglove.Vector3", "xyz", "Translation component of the transform"),
        },
        "rotation": {
            "title": "foxglove.Quaternion",
            "description": "Rotation component of the transform",
            "type": "object",
            "properties": {
                "x": {"type": "number", "default": 0},
                "y": {"type": "number", "default": 0},
                "z": {"type": "number", "default": 0},
                "w": {"type": "number", "default": 1},
            },
            "required": ["x", "y", "z", "w"],
        },
    },
    "required": ["timestamp", "parent_frame_id", "child_frame_id", "translation", "rotation"],
}

LOG = {
    "title": "foxglove.Log",
    "description": "A log message",
    "type": "object",
    "properties": {
        "timestamp": {**_TIME, "description": "Timestamp of log message"},
        "level": {
            "title": "foxglove.LogLevel",
            "description": "Log level",
            "oneOf": [
                {"title": t, "const": k}
                for k, t in enumerate(("UNKNOWN", "DEBUG", "INFO", "WARNING", "ERROR", "FATAL"))
            ],
        },
        "message": {"type": "string", "description": "Log message"},
        "name": {"type": "string", "description": "Process or node name"},
        "file": {"type": "string", "description": "Filename"},
        "line": {"type": "integer", "minimum": 0, "description": "Line number in the file"},
    },
    "required": ["timestamp", "level", "message", "name", "file", "line"],
}

THRUST = {
    "title": "murcosim.Thrust",
    "description": "Thrust of one thruster along its direction (N)",
    "type": "object",
    "properties": {"timestamp": _TIME, "thrust": {"type": "number"}},
    "required": ["timestamp", "thrust"],
}

_WRENCH = {
    "type": "object",
    "description": "Generalized constraint force at the body origin, body frame",
    "properties": {
        "force": _vector("murcosim.Vector3", "xyz", "N"),
        "torque": _vector("murcosim.Vector3", "xyz", "N.m"),
    },
    "required": ["force", "torque"],
}

JOINT = {
    "title": "murcosim.JointConstraint",
    "description": "Constraint violation and constraint wrenches of one joint",
    "type": "object",
    "properties": {
        "timestamp": _TIME,
        "position_error": {"type": ["number", "null"], "description": "m"},
        "angle_error": {"type": ["number", "null"], "description": "rad"},
        "wrench_a": _WRENCH,
        "wrench_b": _WRENCH,
    },
    "required": ["timestamp", "position_error", "angle_error", "wrench_a", "wrench_b"],
}

WARNINGS = {"controller_fault", "dock_rejected", "mpc_fallback"}
_OWNER = re.compile(r"^([A-Za-z_]\w*)\.")


def _stamp(nanoseconds: int) -> dict[str, int]:
    return {"sec": nanoseconds // 1_000_000_000, "nsec": nanoseconds % 1_000_000_000}


def _number(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


class McapLog:
    """Writes recorded rows and events as Foxglove messages into an MCAP file."""

    def __init__(self, path: Path, columns: list[str]) -> None:
        self.path = path
        index = {name: k for k, name in enumerate(columns)}
        owners = list(dict.fromkeys(m.group(1) for c in columns if (m := _OWNER.match(c))))
        pose = [f"p[{i}]" for i in (1, 2, 3)] + [f"q[{i}]" for i in (1, 2, 3, 4)]
        self.bodies = {
            o: [index[f"{o}.{v}"] for v in pose]
            for o in owners
            if all(f"{o}.{v}" in index for v in pose)
        }
        self.thrusters = {o: index[f"{o}.thrust"] for o in owners if f"{o}.thrust" in index}
        forces = [f"force_{s}[{i}]" for s in "ab" for i in range(1, 7)]
        joint_columns = ["position_error", "angle_error", *forces]
        self.joints = {
            o: [index[f"{o}.{v}"] for v in joint_columns]
            for o in owners
            if all(f"{o}.{v}" in index for v in joint_columns)
        }
        self._file = path.open("wb")
        self._writer = Writer(self._file)
        self._writer.start(profile="", library="murcosim")
        self._origin: float | None = None

        def schema(definition: dict) -> int:
            data = json.dumps(definition).encode()
            return self._writer.register_schema(definition["title"], "jsonschema", data)

        def channel(topic: str, schema_id: int) -> int:
            return self._writer.register_channel(topic, "json", schema_id)

        transform, thrust, joint = schema(FRAME_TRANSFORM), schema(THRUST), schema(JOINT)
        self._body_channels = {b: channel(f"/tf/{b}", transform) for b in self.bodies}
        self._thrust_channels = {t: channel(f"/thrusters/{t}", thrust) for t in self.thrusters}
        self._joint_channels = {j: channel(f"/joints/{j}", joint) for j in self.joints}
        self._events = channel("/events", schema(LOG))

    def _nanoseconds(self, time: float) -> int:
        if self._origin is None:
            self._origin = min(0.0, time)  # MCAP times are unsigned
        return round((time - self._origin) * 1e9)

    def _add(self, channel: int, ns: int, message: dict) -> None:
        data = json.dumps({"timestamp": _stamp(ns), **message}).encode()
        self._writer.add_message(channel, log_time=ns, data=data, publish_time=ns)

    def write(self, time: float, values: np.ndarray) -> None:
        """One message per body, thruster and joint at this recorded step."""
        ns = self._nanoseconds(time)
        for body, k in self.bodies.items():
            p, q = values[k[:3]], values[k[3:]]
            self._add(
                self._body_channels[body],
                ns,
                {
                    "parent_frame_id": "ned",
                    "child_frame_id": body,
                    "translation": dict(zip("xyz", map(float, p), strict=True)),
                    "rotation": dict(zip("wxyz", map(float, q), strict=True)),
                },
            )
        for thruster, k in self.thrusters.items():
            self._add(self._thrust_channels[thruster], ns, {"thrust": float(values[k])})
        for joint, k in self.joints.items():
            v = [_number(x) for x in values[k]]

            def wrench(f: list[float | None]) -> dict:
                return {
                    "force": dict(zip("xyz", f[:3], strict=True)),
                    "torque": dict(zip("xyz", f[3:], strict=True)),
                }

            message = {"position_error": v[0], "angle_error": v[1]}
            self._add(
                self._joint_channels[joint],
                ns,
                {**message, "wrench_a": wrench(v[2:8]), "wrench_b": wrench(v[8:14])},
            )

    def log(self, time: float, event: str, detail: str = "") -> None:
        """One ``foxglove.Log`` message."""
        level = 4 if event == "error" else 3 if event in WARNINGS else 2
        message = {"level": level, "message": detail, "name": event, "file": "", "line": 0}
        self._add(self._events, self._nanoseconds(time), message)

    def close(self) -> None:
        """Write the summary and close the file (once: the log records rows and events)."""
        if not self._file.closed:
            self._writer.finish()
            self._file.close()
