"""Which bodies plots and replays name and trace: the principal ones, not parts such as arm
links."""

from __future__ import annotations

from orchestrator.scenario.model import Scenario


def principal_bodies(scenario: Scenario | None, bodies: list[str]) -> list[str]:
    """The bodies of ``bodies`` that carry thrusters, take part in a docking pair, or are not
    hung on a joint as its body ``b`` (arm links are); all of them without a scenario."""
    if scenario is None:
        return list(bodies)
    hanging = {j.b for j in scenario.joints}
    carrying = {c.mount for c in scenario.components.values() if c.mount is not None}
    docking = {n for d in scenario.docking for n in (d.a, d.b)}
    return [b for b in bodies if b not in hanging or b in carrying | docking]
