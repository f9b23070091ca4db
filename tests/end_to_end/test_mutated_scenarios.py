"""Property test: the shipped scenarios, mutated, either run or are refused in one line.

Each example takes one file of ``scenarios/``, makes one mutation of it (a key deleted or
misspelt, a value of the wrong type, out of range, NaN or infinite, a name that refers to
nothing, a list emptied, an entry repeated, a controller named as a component) and runs it
for a short time through ``murcosim.run`` or the ``murcosim run`` command. Every outcome is
either a run or one line that starts with the file and a key of it and says what was
expected: no traceback, no Python exception name, no library's words. Where the verdict is
known without murcosim (a misspelt key of the format or of an FMU, a wrong type, NaN, a name
of nothing, a duplicate) the mutant must be refused, naming the key or a table holding it.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
import tomli_w
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import murcosim
from orchestrator.cli import main

SHIPPED = {
    p.stem: tomllib.loads(p.read_text()) for p in sorted((ROOT / "scenarios").glob("*.toml"))
}
SHORT = 0.2  # s of every run: its set-up and first samples, where a bad value shows

# Keys whose string names another part of the scenario or a file (a component, a body, a
# controller's output, a joint, an FMU) or one of a fixed set of words (a type, a solver).
REFERENCES = {"from", "to", "vehicle", "command", "state", "a", "b", "mount", "joint", "fmu"}
REFERENCES |= {"type", "solver", "method"}
# Arrays of tables whose entries must differ (names, or a connection counted twice).
DISTINCT = {"joints", "docking", "connections"}
# A message naming Python or a library's internals instead of the scenario.
INTERNALS = re.compile(
    r"Traceback|File \"|\b\w*(Error|Exception|Warning)\b|numpy|scipy|pydantic|fmpy|casadi"
    r"|ctypes|NoneType|object has no attribute|not subscriptable|unhashable|positional"
)
STOPPED = re.compile(r"^run stopped at t = \S+ s$")
KEY = re.compile(r"^(\(top level\)|[A-Za-z_][\w.\[\],+-]*)$")
# An FMU refusing its values at the start: it names itself or its instance and the FMI call
FMU_REFUSED = re.compile(r"^(\w+\.fmu \(\w+\)|\w+): .*(initialization failed|returned 'error')")

Path_ = tuple[str | int, ...]


class Mutant:
    """A mutated scenario: its data, what was done, and the key a refusal must name (a table
    holding it or a key inside it will do; "": it must be refused, naming any key; None: it
    may also run)."""

    def __init__(self, data: dict, what: str, refused_at: str | None) -> None:
        self.data, self.what, self.refused_at = data, what, refused_at

    def __repr__(self) -> str:
        return f"Mutant({self.what})"


def _key(path: Path_) -> str:
    text = ""
    for item in path:
        text += f"[{item}]" if isinstance(item, int) else (f".{item}" if text else item)
    return text


def _leaves(data: object, path: Path_ = ()) -> Iterator[tuple[Path_, object]]:
    items = (
        data.items()
        if isinstance(data, dict)
        else enumerate(data)
        if isinstance(data, list)
        else ()
    )
    for k, value in items:
        yield (*path, k), value
        yield from _leaves(value, (*path, k))


def _changed(data: dict, path: Path_, change) -> dict:  # noqa: ANN001 - a function of the parent
    mutated = copy.deepcopy(data)
    parent = mutated
    for item in path[:-1]:
        parent = parent[item]
    change(parent, path[-1])
    return mutated


def _set(value: object):  # noqa: ANN202
    def change(parent, k):  # noqa: ANN001, ANN202
        parent[k] = value

    return change


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@cache
def mutants(name: str) -> list[Mutant]:
    """Every mutation of shipped scenario ``name`` this test makes."""
    data = SHIPPED[name]
    found = []
    for path, value in _leaves(data):
        if path[0] == "description":
            continue
        key = _key(path)
        k = path[-1]
        if isinstance(k, str):
            found.append(
                Mutant(_changed(data, path, lambda p, k: p.pop(k)), f"{key} deleted", None)
            )
            typo = k[:-1] + "x" + k[-1] if len(k) > 1 else k + "x"
            # a component's or a controller's own name may be anything; a key of the format
            # or an FMU variable's name may not
            free = len(path) == 2 and path[0] in ("components", "controllers")
            found.append(
                Mutant(
                    _changed(data, path, lambda p, k, t=typo: p.__setitem__(t, p.pop(k))),
                    f"{key} misspelt {typo}",
                    None if free else _key((*path[:-1], typo)),
                )
            )
        if _number(value):
            for wrong in ("fast", [value], {"value": value}, float("nan")):
                found.append(Mutant(_changed(data, path, _set(wrong)), f"{key} = {wrong!r}", key))
            for out in (-abs(value) - 1.0, 0, float("inf"), float("-inf"), 1e308, -1e308):
                found.append(Mutant(_changed(data, path, _set(out)), f"{key} = {out!r}", None))
        elif isinstance(value, bool):
            found.append(Mutant(_changed(data, path, _set("yes")), f"{key} = 'yes'", key))
        elif isinstance(value, str) and k in REFERENCES:
            for wrong in ("nosuch", value + "x"):
                found.append(Mutant(_changed(data, path, _set(wrong)), f"{key} = {wrong!r}", ""))
        elif isinstance(value, dict):
            for wrong in ("table", [value]):
                found.append(Mutant(_changed(data, path, _set(wrong)), f"{key} = {wrong!r}", key))
        if isinstance(value, list) and value:
            found.append(Mutant(_changed(data, path, _set([])), f"{key} = []", None))
        if isinstance(value, list) and value and isinstance(value[0], dict):
            repeated = _changed(data, path, lambda p, k: p[k].append(copy.deepcopy(p[k][0])))
            refused = _key((*path, len(value))) if k in DISTINCT else None
            found.append(Mutant(repeated, f"{key}[0] repeated", refused))
    for controller in data.get("controllers", {}):
        for component in data["components"]:
            clash = _changed(
                data,
                ("controllers", controller),
                lambda p, k, c=component: p.__setitem__(c, p.pop(k)),
            )
            found.append(
                Mutant(
                    clash, f"controller {controller} named {component}", f"controllers.{component}"
                )
            )
            break  # one component name per controller
    return found


@st.composite
def mutant(draw: st.DrawFn) -> tuple[str, Mutant]:
    name = draw(st.sampled_from(sorted(SHIPPED)))
    return name, draw(st.sampled_from(mutants(name)))


def _written(folder: Path, name: str, m: Mutant) -> Path:
    """The mutant as a file, run for SHORT seconds unless its run length is the mutation."""
    data = copy.deepcopy(m.data)
    simulation = data.get("simulation")
    if isinstance(simulation, dict) and not m.what.startswith(
        ("simulation.start_time", "simulation.stop_time")
    ):
        start = simulation.get("start_time", 0.0)
        if _number(start) and abs(start) < 1e6:
            simulation["stop_time"] = start + SHORT
    path = folder / f"{name}.toml"
    path.write_text(tomli_w.dumps(data))
    return path


def _one_line(message: str, path: Path, m: Mutant) -> None:
    """A refusal: one line, the file, a key, what was expected; the key asked for if any. Or
    a run that failed (a value out of range the integrator cannot follow): one line, the
    file, the time it stopped at, why. Or an FMU that refused its start values while
    initializing: one line naming the FMU or its instance, the FMI call, and why."""
    assert "\n" not in message, (m, message)
    assert not INTERNALS.search(message), (m, message)
    if m.refused_at is None and FMU_REFUSED.match(message):
        return
    assert message.startswith(f"{path}: "), (m, message)
    key = message[len(f"{path}: ") :].split(": ", 1)[0]
    if m.refused_at is None and STOPPED.match(key):
        return
    assert KEY.match(key), (m, message)
    if m.refused_at:  # the key, a table holding it, or a key inside it (a repeated entry)
        assert m.refused_at.startswith(key) or key.startswith(m.refused_at), (m, message)


EXAMPLES = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@EXAMPLES
@given(mutant())
def test_python_api_runs_or_refuses_in_one_line(fmu_dir, tmp_path_factory, case):
    name, m = case
    path = _written(tmp_path_factory.mktemp("mutant"), name, m)
    try:
        murcosim.run(path, fmu_dir=fmu_dir, progress=False)
    except murcosim.MurcosimError as exc:
        _one_line(str(exc), path, m)
    else:
        assert m.refused_at is None, f"{m} ran"


@settings(EXAMPLES, max_examples=25)
@given(mutant())
def test_command_line_runs_or_refuses_in_one_line(fmu_dir, tmp_path_factory, capsys, case):
    """``murcosim run --no-plots``: exit status 0, or 2 with one line on stderr."""
    name, m = case
    folder = tmp_path_factory.mktemp("mutant")
    path = _written(folder, name, m)
    args = ["run", str(path), "--out", str(folder / "out"), "--fmu-dir", str(fmu_dir)]
    status = main([*args, "--quiet", "--no-plots"])
    err = capsys.readouterr().err.strip()
    if status == 0:
        assert m.refused_at is None and not err, (m, err)
        return
    assert status == 2 and len(err.splitlines()) == 1, (m, status, err)
    _one_line(err.removeprefix("murcosim: error: "), path, m)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_shipped_scenario_has_mutants_of_each_kind(name):
    """The mutations reach every scenario: deletions, misspellings and wrong types each time."""
    whats = [m.what for m in mutants(name)]
    assert any("deleted" in w for w in whats) and any("misspelt" in w for w in whats)
    assert any("'fast'" in w for w in whats)
