"""Scenarios as objects: load from a file, edit with validation, write back as TOML."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from orchestrator.runner.run import scenario_toml
from orchestrator.scenario.model import Scenario
from orchestrator.scenario.reading import load_scenario, parse_scenario, validate_scenario

__all__ = ["edit", "load_scenario", "parse_scenario", "save_scenario", "scenario_toml"]


def _merged(base: Any, changes: Any) -> Any:  # noqa: ANN401 - TOML data of any shape
    """``changes`` laid over ``base``: tables merge key by key, any other value replaces."""
    if isinstance(base, Mapping) and isinstance(changes, Mapping):
        merged = dict(base)
        for key, value in changes.items():
            merged[key] = _merged(base[key], value) if key in base else value
        return merged
    return changes


def edit(scenario: Scenario, changes: Mapping[str, Any], source: str = "<edit>") -> Scenario:
    """A new, validated scenario: ``changes`` (nested tables, keyed as in a scenario file)
    laid over ``scenario``. Tables merge key by key; lists and values replace.

    ``edit(s, {"simulation": {"stop_time": 5.0}, "components": {"rov": {"start": {"p[3]":
    1.0}}}})`` shortens the run and starts ``rov`` 1 m deep. An invalid result raises
    :class:`murcosim.ScenarioError` naming ``source`` and the key.
    """
    data = scenario.model_dump(by_alias=True)
    return validate_scenario(_merged(data, changes), source)


def save_scenario(scenario: Scenario, path: Path) -> Path:
    """Write ``scenario`` as a TOML scenario file (keys at their defaults left out)."""
    path = Path(path)
    path.write_text(scenario_toml(scenario), encoding="utf-8")
    return path
