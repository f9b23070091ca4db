"""The time-series recorder, an observer of the master: one row at every recording point."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from orchestrator.errors import SimulationError
from orchestrator.master.protocols import Observer, Point, Strategy
from orchestrator.master.signals import SignalTable
from orchestrator.recording.tables import TimeseriesWriter

if TYPE_CHECKING:  # imported for annotations only: the coupling loads SciPy
    from orchestrator.coupling.runtime import ConstraintCoupling


class Recorder(Observer):
    """Writes the ``record`` signals of the state at each recording point as one row of
    ``timeseries``, stamped with the point's stamp: FMU variables read in one compiled call,
    bus signals as held, joint columns computed from the state and the unconstrained rates
    (NaN for a joint not present at the time)."""

    every_tick = False  # rows at recording points alone

    def __init__(
        self,
        signals: SignalTable,
        record: list[str],
        timeseries: TimeseriesWriter,
        strategy: Strategy,
        coupling: ConstraintCoupling | None,
    ) -> None:
        self.timeseries, self.strategy, self.coupling = timeseries, strategy, coupling
        self._where = signals.select(record, "record", ("joint", "bus", "fmu"))
        self._bus = signals.values
        ports = self._where.fmu
        self._ports = [(instance, port) for instance, port, _ in ports]
        self._read = signals.system.batch(self._ports, write=False)
        self._read_positions = self._where.fmu_positions()
        self._joints, self._joint_names = self._where.joint
        self._sources: dict[tuple[str, ...], np.ndarray] = {}  # see _joint_sources
        self._row = np.zeros(len(record))

    def observe(self, point: Point, x: np.ndarray) -> None:
        """A row of the state ``x`` at a recording ``point``."""
        if point.recording:
            self.record(point, x)

    def record(self, point: Point, x: np.ndarray) -> None:
        """The row of the state ``x`` at ``point.time`` (s), stamped ``point.stamp``."""
        row, time = self._row, point.time
        dx = self.strategy.rates(time, x)
        if self._ports:
            self._read.run()
            values = self._read.values
            if not np.isfinite(values).all():
                instance, name = self._read.variable(int(np.flatnonzero(~np.isfinite(values))[0]))
                raise SimulationError(
                    f"{instance.name}.{name} is no longer finite at t = {time:.6g} s "
                    "(diverging run or a failing FMU)"
                )
            row[self._read_positions] = values
        self._where.from_bus(self._bus, row)
        if self._joint_names:
            names, values = self.coupling.column_values(x, dx.copy())
            row[self._joints] = np.append(values, math.nan)[self._joint_sources(names)]
        self.timeseries.write(point.stamp, row)

    def _joint_sources(self, names: tuple[str, ...]) -> np.ndarray:
        """Where each recorded joint column is among the coupling's ``names`` (one past the
        end for a joint not present now: NaN), kept per set of names."""
        sources = self._sources.get(names)
        if sources is None:
            position = {name: k for k, name in enumerate(names)}
            sources = np.array([position.get(n, len(names)) for n in self._joint_names])
            self._sources[names] = sources
        return sources
