"""Property test of the scenario loader: mutated files are refused with one line, never crash.

Every generated mutation is of a kind whose verdict is known without the loader: a nonsense
value, a misspelt key or an inconsistent pair of keys must be refused with one line naming
the file and the key; random edits of the file's bytes may be refused or accepted, but only
ever as a ``ScenarioError`` (no other exception, no traceback).
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.cli import main
from orchestrator.errors import ScenarioError
from orchestrator.scenario.reading import load_scenario, parse_scenario

BASE_TEXT = """
description = "loader-only scenario: two vehicles, a weld, a docking pair, an autopilot"

[simulation]
start_time = 0.0
stop_time = 20.0
output_interval = 0.1
solver = "RK45"
rtol = 1e-6
atol = 1e-8
step = 0.01

[environment]
current = [0.1, 0.0, 0.0]

[components.rov]
fmu = "BlueROV2Heavy"
parameters = { "data.m" = 11.5, "data.I_g[1,1]" = 0.16, "data.I_g[2,2]" = 0.16 }
start = { "p[3]" = 1.0, "q[1]" = 1.0, "q[2]" = 0.0, "q[3]" = 0.0, "q[4]" = 0.0 }

[components.rov2]
fmu = "BlueROV2Heavy"
start = { "p[1]" = 2.0 }

[components.t1]
fmu = "Thruster"
mount = "rov"
slot = 1

[components.t2]
fmu = "Thruster"
mount = "rov"
slot = 2

[[connections]]
from = "rov.nu"
to = "t1.nu_r"

[controllers.autopilot]
type = "depth_heading_speed"
sample_time = 0.1
vehicle = "rov"
depth = 1.0
heading = 0.0
surge_speed = 0.2
changes = [{ time = 5.0, depth = 2.0 }]

[controllers.autopilot.gains.depth]
kp = 60.0
ki = 6.0
kd = 50.0

[coupling]
solver = "auto"
projection = true
baumgarte = [1.0, 0.5]

[[joints]]
name = "hinge"
type = "revolute"
a = "rov"
b = "rov2"
at = [0.5, 0.0, 0.0]
axis = [0.0, 0.0, 1.0]

[[docking]]
name = "nose"
a = "rov"
port_a = 1
b = "rov2"
port_b = 1

[[events]]
time = 10.0
action = "undock"
joint = "hinge"
"""
BASE = tomllib.loads(BASE_TEXT)

# Paths (keys, then list indices) of every number in BASE; none of them accepts inf. FMU
# parameter and start values may also be Booleans or strings (checked against the FMU's
# variable types when a run starts), but never NaN or infinite.
FMU_VALUES = [
    ("components", "rov", "parameters", "data.m"),
    ("components", "rov", "start", "p[3]"),
    ("components", "rov", "start", "q[1]"),
]
NUMBERS = [
    ("simulation", "start_time"),
    ("simulation", "stop_time"),
    ("simulation", "output_interval"),
    ("simulation", "rtol"),
    ("simulation", "atol"),
    ("simulation", "step"),
    ("environment", "current", 0),
    *FMU_VALUES,
    ("components", "t1", "slot"),
    ("controllers", "autopilot", "sample_time"),
    ("controllers", "autopilot", "depth"),
    ("controllers", "autopilot", "changes", 0, "time"),
    ("controllers", "autopilot", "gains", "depth", "kp"),
    ("coupling", "baumgarte", 1),
    ("joints", 0, "at", 2),
    ("joints", 0, "axis", 0),
    ("docking", 0, "port_b"),
    ("events", 0, "time"),
]
NOT_FINITE = [float("nan"), float("inf"), float("-inf"), [], {}]
NOT_A_NUMBER = [*NOT_FINITE, True, False, "1e3", "fast"]

# Tables whose keys are fixed by the format (not names chosen by the user).
TABLES = [
    (),
    ("simulation",),
    ("environment",),
    ("components", "rov"),
    ("controllers", "autopilot"),
    ("controllers", "autopilot", "gains", "depth"),
    ("controllers", "autopilot", "changes", 0),
    ("coupling",),
    ("joints", 0),
    ("docking", 0),
    ("events", 0),
]


def _at(data: dict, path: tuple) -> object:
    for item in path:
        data = data[item]
    return data


def _set(data: dict, path: tuple, value: object) -> dict:
    mutated = copy.deepcopy(data)
    _at(mutated, path[:-1])[path[-1]] = value
    return mutated


def _dotted(path: tuple) -> str:
    text = ""
    for item in path:
        text += f"[{item}]" if isinstance(item, int) else (f".{item}" if text else item)
    return text


def _refused(data: dict, key: str) -> None:
    """``data`` is refused, as one line naming the file and ``key``."""
    try:
        parse_scenario(tomli_w.dumps(data), "mutant.toml")
    except ScenarioError as exc:
        message = str(exc)
        assert "\n" not in message, message
        assert message.startswith(f"mutant.toml: {key}"), (key, message)
    else:
        raise AssertionError(f"accepted nonsense at {key}")


@st.composite
def nonsense_value(draw: st.DrawFn) -> tuple[dict, str]:
    path = draw(st.sampled_from(NUMBERS))
    wrong = NOT_FINITE if path in FMU_VALUES else NOT_A_NUMBER
    return _set(BASE, path, draw(st.sampled_from(wrong))), _dotted(path)


@st.composite
def misspelt_key(draw: st.DrawFn) -> tuple[dict, str]:
    table = draw(st.sampled_from(TABLES))
    old = draw(st.sampled_from(sorted(_at(BASE, table))))
    k = draw(st.integers(0, len(old)))
    new = old[:k] + draw(st.sampled_from("xq_9")) + old[k:]
    mutated = copy.deepcopy(BASE)
    target = _at(mutated, table)
    target[new] = target.pop(old)
    # without its 'type', a controller table is refused for that, before its other keys
    return mutated, _dotted(table if old == "type" else (*table, new))


INCONSISTENT = [
    (("simulation", "start_time"), 20.0, "simulation.start_time"),
    (("simulation", "start_time"), 25.0, "simulation.start_time"),
    (("simulation", "output_interval"), 1e-9, "simulation.output_interval"),
    (("simulation", "step"), 1e-9, "simulation.step"),
    (("simulation", "stop_time"), 1e308, "simulation.stop_time"),
    (("simulation", "rtol"), 0.0, "simulation.rtol"),
    (("simulation", "atol"), -1.0, "simulation.atol"),
    (("components", "rov", "parameters", "data.m"), -11.5, "components.rov.parameters.data.m"),
    (("components", "rov", "parameters", "data.m"), 0.0, "components.rov.parameters.data.m"),
    (
        ("components", "rov", "parameters", "data.I_g[2,2]"),
        -0.16,
        "components.rov.parameters.data.I_g[2,2]",
    ),
    (("components", "rov", "start", "q[1]"), 0.0, "components.rov.start.q"),
    (("components", "t2", "slot"), 1, "components.t2.slot"),
    (("components", "t2", "slot"), 0, "components.t2.slot"),
    (("controllers", "autopilot", "sample_time"), 1e-9, "controllers.autopilot.sample_time"),
    (("controllers", "rov"), BASE["controllers"]["autopilot"], "controllers.rov"),
    (("docking", 0, "name"), "hinge", "docking[0].name"),
    (("controllers", "autopilot", "type"), "magic", "controllers.autopilot"),
]


@st.composite
def inconsistent(draw: st.DrawFn) -> tuple[dict, str]:
    path, value, key = draw(st.sampled_from(INCONSISTENT))
    return _set(BASE, path, value), key


@st.composite
def deeply_nested(draw: st.DrawFn) -> tuple[dict, str]:
    path = draw(st.sampled_from(NUMBERS))
    value: object = 1.0
    for _ in range(draw(st.integers(40, 120))):  # far deeper: refused by the TOML reader
        value = [value]
    return _set(BASE, path, value), _dotted(path)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(nonsense_value(), misspelt_key(), inconsistent(), deeply_nested()))
def test_nonsense_is_refused_naming_the_key(mutant):
    data, key = mutant
    _refused(data, key)


def test_unmutated_base_is_accepted():
    """The mutations above start from a valid scenario (else every refusal is vacuous)."""
    assert parse_scenario(BASE_TEXT, "base.toml").simulation.stop_time == 20.0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(BASE_TEXT.encode())), st.integers(0, 8), st.binary(max_size=4)
        ),
        min_size=1,
        max_size=4,
    )
)
def test_edited_bytes_are_accepted_or_refused_in_one_line(tmp_path_factory, edits):
    """Random byte edits (some make the file non-UTF-8 or break the TOML): the loader either
    accepts the file or refuses it with one ``ScenarioError`` line; nothing else escapes."""
    raw = bytearray(BASE_TEXT.encode())
    for position, deleted, inserted in edits:
        raw[position : position + deleted] = inserted
    path = Path(tmp_path_factory.mktemp("edited")) / "edited.toml"
    path.write_bytes(bytes(raw))
    try:
        load_scenario(path)
    except ScenarioError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(f"{path}: "), str(exc)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.one_of(nonsense_value(), misspelt_key(), inconsistent(), deeply_nested()))
def test_command_line_refuses_nonsense_in_one_line(tmp_path, capsys, mutant):
    """A sample of the mutations through ``murcosim run``: exit status 2, one line naming the
    file and the key, no traceback, no results folder."""
    data, key = mutant
    path = tmp_path / "mutant.toml"
    path.write_text(tomli_w.dumps(data))
    out = tmp_path / "never"
    status = main(["run", str(path), "--out", str(out), "--quiet", "--no-plots"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"murcosim: error: {path}: {key}"), err
    assert not out.exists()
