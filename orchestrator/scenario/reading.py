"""Reading scenario files: TOML parsed, validated strictly with pydantic against the scenario
model (``model.py``) and checked across keys (``checks.py``), errors reported as one line with
file and key."""

from __future__ import annotations

import difflib
import json
import math
import tomllib
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from orchestrator.errors import ScenarioError
from orchestrator.scenario.checks import first_problem
from orchestrator.scenario.model import CONTROLLER_TYPES, Scenario

# What pydantic's type errors of containers mean in TOML terms.
TOML_KINDS = {
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "list_type": "an array",
    "tuple_type": "an array",
}

# A scenario is a handful of tables; deeper nesting is a broken file, not a scenario.
DEEPEST_NESTING = 32


# Names pydantic gives the members of a union of scalars (parameter and start values).
SCALAR_MEMBERS = ("float", "bool", "str")


def _location(loc: tuple[Any, ...]) -> str:
    if loc and loc[-1] in SCALAR_MEMBERS:
        loc = loc[:-1]  # the union member tried, not a key of the file
    parts: list[str] = []
    for index, item in enumerate(loc):
        if isinstance(item, int):
            parts[-1:] = [f"{parts[-1]}[{item}]"] if parts else [f"[{item}]"]
        elif index == 2 and loc[0] == "controllers" and item in CONTROLLER_TYPES:
            continue  # pydantic's name of the union member (not a controller named 'dvl')
        else:
            parts.append(str(item))
    return ".".join(parts) or "(top level)"


def _inner(annotation: Any, item: Any) -> Any:  # noqa: ANN401 - typing objects
    """The type found under ``item`` (field name, dict key, list index, union tag)."""
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Annotated:
        return _inner(args[0], item)
    if origin in (Union, UnionType):
        members = [a for a in args if a is not type(None)]
        tagged = [m for m in members if _tag(m) == item]
        return tagged[0] if tagged else _inner(members[0], item) if len(members) == 1 else None
    if origin is dict:
        return args[1]
    if origin in (list, tuple):
        return args[min(item, len(args) - 1)] if isinstance(item, int) and args else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        for name, field in annotation.model_fields.items():
            if item in (name, field.alias):
                return field.annotation
    return None


def _tag(member: Any) -> str | None:  # noqa: ANN401 - typing objects
    """The ``type`` literal of a controller model, else None."""
    if isinstance(member, type) and issubclass(member, BaseModel) and "type" in member.model_fields:
        tags = get_args(member.model_fields["type"].annotation)
        return tags[0] if len(tags) == 1 else None
    return None


def _known_keys(loc: tuple[Any, ...]) -> list[str]:
    """Keys a scenario file may use in the table that holds ``loc``."""
    node: Any = Scenario
    for item in loc[:-1]:
        node = _inner(node, item)
    while get_origin(node) in (Annotated, Union, UnionType):
        node = _inner(node, None)
    if isinstance(node, type) and issubclass(node, BaseModel):
        return [field.alias or name for name, field in node.model_fields.items()]
    return []


def _unknown_key(loc: tuple[Any, ...]) -> str:
    known = _known_keys(loc)
    close = difflib.get_close_matches(str(loc[-1]), known, n=1)
    if close:
        return f"unknown key (did you mean '{close[0]}'?)"
    return f"unknown key (expected one of {', '.join(known)})" if known else "unknown key"


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _message(error: dict[str, Any]) -> str:
    kind = error["type"]
    if kind == "missing":
        return "missing required key"
    if kind == "extra_forbidden":
        return _unknown_key(error["loc"])
    if kind == "union_tag_invalid":
        context = error["ctx"]
        return f"unknown controller type {context['tag']!r} (expected {context['expected_tags']})"
    if kind == "union_tag_not_found":
        return "missing key 'type' (the controller type)"
    if kind == "value_error":  # a validator's own sentence, without pydantic's prefix
        return f"{error['ctx']['error']} (got {_shown(error.get('input'))})"
    if kind in TOML_KINDS:  # pydantic speaks JSON ("object"); a scenario file is TOML
        return f"expected {TOML_KINDS[kind]} (got {_shown(error.get('input'))})"
    return f"{error['msg']} (got {_shown(error.get('input'))})"


def _nan_or_deep(data: object, key: str = "", depth: int = 0) -> tuple[str, str] | None:
    """The first NaN (key, message) in the parsed file, or the first too deeply nested value."""
    if depth > DEEPEST_NESTING:
        return key or "(top level)", f"nested more than {DEEPEST_NESTING} levels deep"
    if isinstance(data, float) and math.isnan(data):
        return key, "Input should be a number, not nan"
    if isinstance(data, dict):
        items = ((f"{key}.{k}" if key else str(k), v) for k, v in data.items())
    elif isinstance(data, list):
        # a nested array is named by its outermost index only, to keep the message one line
        items = ((key if key.endswith("]") else f"{key}[{k}]", v) for k, v in enumerate(data))
    else:
        return None
    for sub_key, value in items:
        found = _nan_or_deep(value, sub_key, depth + 1)
        if found:
            return found
    return None


def read_scenario_data(text: str, source: str = "<scenario>") -> dict[str, Any]:
    """Parse scenario TOML text into plain data, unvalidated; errors name ``source``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{source}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ScenarioError(f"{source}: invalid TOML: nested too deeply") from None
    found = _nan_or_deep(data)
    if found:
        raise ScenarioError(f"{source}: {found[0]}: {found[1]}")
    return data


def validate_scenario(data: dict[str, Any], source: str = "<scenario>") -> Scenario:
    """Validate parsed scenario data strictly: numbers are numbers (not true, not "1e3"),
    finite unless a key allows inf, and consistent across keys (``checks.py``)."""
    if isinstance(data, dict) and "controllers" in data:
        data = {**data, "controllers": _user_controllers(data["controllers"])}
    try:
        scenario = Scenario.model_validate_json(json.dumps(data, default=str), strict=True)
    except ValidationError as exc:
        # an unknown key first: it often explains a missing one (a misspelt table name)
        errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
        first, places = errors[0], len({_location(e["loc"]) for e in errors})
        more = f" (and {places - 1} more problem(s))" if places > 1 else ""
        raise ScenarioError(
            f"{source}: {_location(first['loc'])}: {_message(first)}{more}"
        ) from None
    problem = first_problem(scenario)
    if problem:
        raise ScenarioError(f"{source}: {problem[0]}: {problem[1]}")
    return scenario


def parse_scenario(text: str, source: str = "<scenario>") -> Scenario:
    """Validate scenario TOML text; ``source`` names the file in error messages."""
    return validate_scenario(read_scenario_data(text, source), source)


def read_scenario_text(path: Path) -> str:
    """The text of a scenario file; a missing, unreadable or non-UTF-8 file is one error line."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read scenario file: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"{path}: cannot read scenario file: not UTF-8 text (byte {exc.start})"
        ) from None


def load_scenario(path: Path) -> Scenario:
    """Read and validate a scenario file."""
    return parse_scenario(read_scenario_text(path), str(path))


def _user_controllers(tables: object) -> object:
    """A controller table with ``class`` and no ``type`` is a user controller (``type =
    "python"`` is implied)."""
    if isinstance(tables, dict):
        return {
            name: {"type": "python", **table}
            if isinstance(table, dict) and "class" in table and "type" not in table
            else table
            for name, table in tables.items()
        }
    return tables
