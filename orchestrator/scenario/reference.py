"""The scenario file reference, generated from the pydantic models so that it cannot drift.

``murcosim scenario-reference`` prints it; ``docs/scenario-reference.md`` is its output
(``murcosim scenario-reference --out docs/scenario-reference.md``), and a test checks that the
file is up to date.
"""

from __future__ import annotations

import inspect
import math
import types
import typing
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from orchestrator.scenario.model import Scenario

HEADER = """# Scenario file reference

Generated from the scenario models (`orchestrator/scenario/model.py`) by
`murcosim scenario-reference --out docs/scenario-reference.md`; do not edit by hand.

A scenario file is TOML. Every table below lists its keys: type, default (*required* when
there is none) and meaning with units. Unknown keys are errors. Paths (`fmu_dir`, component
`fmu` values ending in `.fmu`) are relative to the scenario file.
"""


def _models_in(annotation: Any) -> list[type[BaseModel]]:  # noqa: ANN401 - any annotation
    """The pydantic models an annotation refers to, in order of appearance."""
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for argument in get_args(annotation):
        found += [m for m in _models_in(argument) if m not in found]
    return found


def _type_name(annotation: Any) -> str:  # noqa: ANN401 - any annotation
    """A reader's name of a field type: ``float``, ``[float, float, float]``, ``table of X``."""
    origin = get_origin(annotation)
    arguments = get_args(annotation)
    if origin is Annotated:
        return _type_name(arguments[0])
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return f"[{annotation.__name__}](#{annotation.__name__.lower()})"
    if origin is Literal:
        return " \\| ".join(f'`"{a}"`' for a in arguments)
    if origin in (Union, types.UnionType):
        named = [_type_name(a) for a in arguments if a is not type(None)]
        return " or ".join(named)
    if origin is list:
        return f"list of {_type_name(arguments[0])}"
    if origin is dict:
        return f"table of {_type_name(arguments[1])} by {_type_name(arguments[0])}"
    if origin is tuple:
        return "[" + ", ".join(_type_name(a) for a in arguments) + "]"
    if annotation is typing.Any:
        return "any"
    return getattr(annotation, "__name__", str(annotation))


def _default(field: Any) -> str:  # noqa: ANN401 - pydantic FieldInfo
    if field.is_required():
        return "*required*"
    value = field.default_factory() if field.default is PydanticUndefined else field.default
    if isinstance(value, BaseModel):
        return "(defaults)"
    if value is None:
        return "none"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, tuple | list):
        return f"`{list(value)}`" if value else "`[]`"
    if isinstance(value, dict):
        return "`{}`" if not value else f"`{value}`"
    return f"`{value}`"


def _section(model: type[BaseModel]) -> str:
    doc = inspect.cleandoc(model.__doc__ or "").replace("\n", " ")
    rows = ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
    for name, field in model.model_fields.items():
        key = field.alias or name
        meaning = (field.description or "").replace("|", "\\|")
        rows.append(f"| `{key}` | {_type_name(field.annotation)} | {_default(field)} | {meaning} |")
    return f"## {model.__name__}\n\n{doc}\n\n" + "\n".join(rows) + "\n"


def scenario_reference() -> str:
    """The reference of every scenario table, as Markdown, starting from :class:`Scenario`."""
    order: list[type[BaseModel]] = []
    pending: list[type[BaseModel]] = [Scenario]
    while pending:
        model = pending.pop(0)
        if model in order:
            continue
        order.append(model)
        for field in model.model_fields.values():
            pending += [m for m in _models_in(field.annotation) if m not in order]
    return HEADER + "".join("\n" + _section(model) for model in order)
