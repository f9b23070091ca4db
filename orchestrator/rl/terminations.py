"""The event kinds that may end an episode (``terminate_on``): those a run of the scenario can
log. A misspelt kind would never match an event, and the episode would silently run to its
time limit, so every kind asked for is checked against what the scenario's parts emit."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from orchestrator.controllers.user import declared_event_kinds
from orchestrator.errors import ScenarioError
from orchestrator.scenario.model import RendezvousConfig, Scenario, UserControllerConfig

# Logged by any run (events.csv): its ends, faults and interruptions, an FMU asking to end it,
# a callback stopping it, and the FMUs' own time, state and step events.
RUN_EVENT_KINDS = (
    "start",
    "stop",
    "error",
    "interrupted",
    "crashed",
    "callback_stop",
    "terminated",
    "controller_fault",
    "time_event",
    "state_event",
    "step_event",
)


def emitted_kinds(scenario: Scenario, source: str) -> set[str]:
    """The kinds of event a run of ``scenario`` (read from the file ``source``) can log: the
    run's, docking (with docking pairs), undocking (with scheduled undock events) and those
    its controllers declare (:attr:`orchestrator.controllers.base.Controller.event_kinds`)."""
    kinds = set(RUN_EVENT_KINDS)
    if scenario.docking:
        kinds |= {"dock", "dock_rejected"}
    if any(event.action == "undock" for event in scenario.events):
        kinds.add("undock")
    folder = Path(source).parent
    for name, config in scenario.controllers.items():
        if isinstance(config, UserControllerConfig):
            kinds.update(declared_event_kinds(name, config, source, folder))
        elif isinstance(config, RendezvousConfig):
            # imported here: the MPC loads CasADi
            from orchestrator.controllers.mpc.supervisor import DockingSupervisor
            from orchestrator.controllers.rendezvous import RendezvousController

            kinds.update(RendezvousController.event_kinds)
            if config.supervisor:
                kinds.update(DockingSupervisor.event_kinds)
    return kinds


def terminating_kinds(terminate_on: Iterable[str], scenario: Scenario, source: str) -> set[str]:
    """``terminate_on`` as a set, each kind one that a run of ``scenario`` can log; else one
    line naming the kind and what was expected."""
    if isinstance(terminate_on, str):
        raise ScenarioError(
            f"terminate_on: expected a list of event kinds, got the string {terminate_on!r}"
        )
    emitted = emitted_kinds(scenario, source)
    for kind in terminate_on:
        if kind not in emitted:
            known = sorted(emitted)
            close = difflib.get_close_matches(str(kind), known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"expected one of {', '.join(known)}"
            raise ScenarioError(
                f"terminate_on: {kind!r}: no part of {source} logs events of that kind ({hint}; "
                "a user controller declares its own in event_kinds)"
            )
    return set(terminate_on)
