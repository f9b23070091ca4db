"""Runs of compiled controllers, sampled by one call.

A built-in controller whose step is compiled (its ``compiled_law``: the vehicle PD, the joint
PID, the pseudo-inverse allocation) needs no Python to sample: consecutive such controllers of
equal sample time, without latency and reading only integrated states and bus signals, form a
:class:`LawRun`. Its one call of the kernel extension's ``LawGroup`` reads every member's
inputs from the state vector and the bus, steps the members in execution order and puts their
outputs on the bus and in their FMU input buffers (the ones a ``ControllerLink`` writes through
its port batch); a member that fails holds its previous outputs. The master then makes the
runs' FMU writes and logs their faults as it does a controller's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

from orchestrator.native.controllers import NOT_FINITE, LawGroup
from orchestrator.native.transfer import PortBatch

if TYPE_CHECKING:  # imported for annotations only: controllers load SciPy
    from orchestrator.controllers.base import Controller


class ControllerLink(Protocol):
    """What a run needs of a controller's link (``orchestrator.master.sampling``)."""

    controller: Controller
    inputs: np.ndarray  # the gathered inputs
    last_outputs: np.ndarray
    fmu_reads: list
    next_sample: int  # tick
    period: int  # ticks

    @property
    def writes(self) -> PortBatch: ...

    def wiring(self) -> tuple[list[int], list[int], list[int], np.ndarray]: ...


def compiled(link: ControllerLink) -> bool:
    """Whether ``link`` can be sampled in a run: a compiled step, no latency, no input read
    from an FMU."""
    law = getattr(link.controller, "compiled_law", None)
    return law is not None and link.controller.latency == 0 and not link.fmu_reads


class LawRun:
    """Links of compiled controllers with one sample time, sampled together (see the module
    docstring). The outputs each member holds live here (``held``); :meth:`hand_back` gives
    them to the links before those are sampled one by one."""

    def __init__(self, links: list[ControllerLink]) -> None:
        self.links = links
        self.controllers: list[Controller] = [link.controller for link in links]
        self.held = [link.last_outputs.copy() for link in links]
        self.outputs = [np.zeros(len(c.outputs)) for c in self.controllers]
        self._writes = [link.writes for link in links if link.fmu_writes]
        self._group: LawGroup | None = None

    @property
    def next_sample(self) -> int:
        """The tick of the members' next sample (one for all)."""
        return self.links[0].next_sample

    @property
    def writes(self) -> list[PortBatch]:
        """The port batches of the members' FMU inputs, written after every sample."""
        return self._writes

    def group(self, x: np.ndarray, bus: np.ndarray) -> LawGroup:
        """The compiled group of the members, made at the first use on a state like ``x``
        and the ``bus``."""
        if self._group is None:
            self._group = self._build(x, bus)
        return self._group

    def _build(self, x: np.ndarray, bus: np.ndarray) -> LawGroup:
        group = LawGroup(len(x), len(bus))
        for link, held, outputs in zip(self.links, self.held, self.outputs, strict=True):
            sources, slots, entries, fmu = link.wiring()
            group.add(
                link.controller.compiled_law,
                sources,
                slots,
                entries,
                fmu,
                link.inputs,
                outputs,
                held,
            )
        return group

    def sample(self, time: float, x: np.ndarray, bus: np.ndarray) -> list[tuple[Controller, str]]:
        """Sample every member at ``time`` (s) on the state ``x`` and the ``bus``; returns the
        (controller, detail) of each member that failed."""
        faults = self.group(x, bus).sample(time, x, bus)
        for writes in self._writes:
            writes.run()
        return self.failures() if faults else []

    def failures(self) -> list[tuple[Controller, str]]:
        """The (controller, detail) of each member that failed at the last sample."""
        failed = []
        for c, outputs, status in zip(
            self.controllers, self.outputs, self._group.statuses(), strict=True
        ):
            if status == NOT_FINITE:
                error = ValueError(f"expected {len(c.outputs)} finite outputs, got {outputs!r}")
            elif status:
                error = c.failure(status)
            else:
                continue
            failed.append((c, f"{type(error).__name__}: {error}"))
        return failed

    def hand_back(self) -> None:
        """Give the held outputs to the links (before they are sampled one by one)."""
        for link, held in zip(self.links, self.held, strict=True):
            link.last_outputs = held.copy()

    def take_over(self) -> None:
        """Hold the links' last outputs again (after they were sampled one by one)."""
        for link, held in zip(self.links, self.held, strict=True):
            held[:] = link.last_outputs


def law_runs(links: list[ControllerLink]) -> list[ControllerLink | LawRun]:
    """``links`` in order, every stretch of consecutive compiled links sampled at the same
    ticks as one :class:`LawRun`."""
    units: list[ControllerLink | list[ControllerLink]] = []
    for link in links:
        last = units[-1] if units else None
        if not compiled(link):
            units.append(link)
        elif isinstance(last, list) and (last[0].period, last[0].next_sample) == (
            link.period,
            link.next_sample,
        ):
            last.append(link)
        else:
            units.append([link])
    return [LawRun(unit) if isinstance(unit, list) else unit for unit in units]
