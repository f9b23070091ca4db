"""Start values and parameters drawn for each episode from distributions.

A draw is a number (always that value), a distribution object (:class:`Uniform`,
:class:`Normal`, :class:`Choice`) or any callable taking a ``numpy.random.Generator`` and
returning a number. Draws are keyed ``<component>.<variable>`` (``"rov.p[1]"``,
``"rov.data.m"``), in the variable's own unit. Every draw comes from the environment's seeded
generator, in the order the keys were given, so one seed gives one set of values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real

import numpy as np

from orchestrator.errors import ScenarioError
from orchestrator.scenario.model import Scenario


def _finite(value: object) -> bool:
    """Whether ``value`` is a finite real number (not a Boolean)."""
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class Uniform:
    """Uniform on [``low``, ``high``)."""

    low: float
    high: float

    def __post_init__(self) -> None:
        if not (_finite(self.low) and _finite(self.high) and self.low <= self.high):
            raise ScenarioError(f"{self!r}: expected finite numbers with low <= high")

    def __call__(self, rng: np.random.Generator) -> float:
        return float(rng.uniform(self.low, self.high))


@dataclass(frozen=True)
class Normal:
    """Normal with ``mean`` and standard deviation ``std``."""

    mean: float
    std: float

    def __post_init__(self) -> None:
        if not (_finite(self.mean) and _finite(self.std) and self.std >= 0):
            raise ScenarioError(f"{self!r}: expected a finite mean and std >= 0")

    def __call__(self, rng: np.random.Generator) -> float:
        return float(rng.normal(self.mean, self.std))


@dataclass(frozen=True)
class Choice:
    """One of ``values``, each equally likely."""

    values: Sequence[float]

    def __post_init__(self) -> None:
        if isinstance(self.values, str) or not self.values:
            raise ScenarioError(f"{self!r}: expected a list of one or more numbers")
        if not all(_finite(value) for value in self.values):
            raise ScenarioError(f"{self!r}: expected finite numbers")

    def __call__(self, rng: np.random.Generator) -> float:
        return float(self.values[int(rng.integers(len(self.values)))])


Draw = float | Callable[[np.random.Generator], float]


class ScenarioDraws:
    """Draws of start values (``start``) and parameters (``parameters``) of a scenario's
    components, and a fresh noise seed for each of its sensors."""

    def __init__(
        self, scenario: Scenario, start: Mapping[str, Draw], parameters: Mapping[str, Draw]
    ) -> None:
        self._draws: list[tuple[str, str, str, Draw]] = []  # (group, component, variable, draw)
        for group, draws in (("start", start), ("parameters", parameters)):
            for key, draw in draws.items():
                component, _, variable = key.partition(".")
                if component not in scenario.components or not variable:
                    raise ScenarioError(
                        f"{group}: '{key}': expected <component>.<variable> with a component "
                        f"of the scenario ({', '.join(scenario.components)})"
                    )
                if not callable(draw) and not isinstance(draw, int | float):
                    raise ScenarioError(
                        f"{group}: '{key}': expected a number, a distribution or a callable "
                        f"taking a numpy Generator, got {type(draw).__name__}"
                    )
                self._draws.append((group, component, variable, draw))
        self._sensors = [n for n, c in scenario.controllers.items() if hasattr(c, "seed")]

    def apply(self, scenario: Scenario, rng: np.random.Generator) -> Scenario:
        """``scenario`` with values drawn from ``rng`` (names are checked when the scenario's
        system is built: a bad one is a ScenarioError naming its key)."""
        changes: dict[str, dict[str, dict[str, float]]] = {}
        for group, component, variable, draw in self._draws:
            value = float(draw(rng)) if callable(draw) else float(draw)
            changes.setdefault(component, {}).setdefault(group, {})[variable] = value
        components = dict(scenario.components)
        for name, groups in changes.items():
            old = components[name]
            update = {g: {**getattr(old, g), **values} for g, values in groups.items()}
            components[name] = old.model_copy(update=update)
        controllers = dict(scenario.controllers)
        for name in self._sensors:
            seed = int(rng.integers(2**31))
            controllers[name] = controllers[name].model_copy(update={"seed": seed})
        return scenario.model_copy(update={"components": components, "controllers": controllers})
