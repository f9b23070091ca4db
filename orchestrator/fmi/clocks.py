"""FMI 3.0 clocks of a Model Exchange instance: which clocks an FMU declares, which of them
murcosim can drive, and when each input clock is next activated.

Input clocks are time-based: the importer activates them (``fmi3SetClock`` in Event Mode) at
the times the FMU defines. Periodic clocks (``constant``, ``fixed``, ``calculated``,
``tunable``) activate at t_0 = t_start + T_shift, then every T_interval, with the interval and
shift of the model description (``intervalDecimal``, ``shiftDecimal``, default 0) or, where
the model description gives no interval, those ``fmi3GetIntervalDecimal`` and
``fmi3GetShiftDecimal`` return in Initialization Mode. Aperiodic clocks (``changing``,
``countdown``) activate at t_start + T_interval,0, then T_interval,i after the Event Mode in
which ``fmi3GetIntervalDecimal`` reported the interval as changed (a ``countdown`` clock whose
interval is not yet known is not scheduled). Times are in seconds, like the FMU's independent
variable. Output and local clocks are ``triggered``: the FMU activates them and the importer
reads their state with ``fmi3GetClock`` in Event Mode.

What is refused, with a line naming the FMU, the clock and what the user can do: triggered
input clocks (their activations come from a source outside the FMU, which a murcosim scenario
has none of), clocks of an FMU that offers only Co-Simulation (which needs Co-Simulation's
Event Mode) and FMI 3.0 Scheduled Execution.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable
from dataclasses import dataclass
from xml.etree import ElementTree

from orchestrator.errors import FMUError

PERIODIC = ("constant", "fixed", "calculated", "tunable")
APERIODIC = ("changing", "countdown")
_NOT_YET_KNOWN, _UNCHANGED, _CHANGED = 0, 1, 2  # fmi3IntervalQualifier
_TOLERANCE = 1e-12  # s, relative to max(1, |t|): a clock due at an event this close to it


@dataclass(frozen=True)
class Clock:
    """One clock variable: ``interval`` and ``shift`` (s) as the model description declares
    them (None where it declares no interval, so the FMU is asked)."""

    name: str
    value_reference: int
    causality: str
    variability: str  # intervalVariability
    interval: float | None
    shift: float


def declared_clocks(root: ElementTree.Element) -> list[Clock]:
    """The ``<Clock>`` variables of an FMI 3.0 model description (none for FMI 2.0)."""
    variables = root.find("ModelVariables")
    if variables is None:
        return []
    clocks = []
    for element in variables.iter("Clock"):
        interval = element.get("intervalDecimal")
        clocks.append(
            Clock(
                name=element.get("name", ""),
                value_reference=int(element.get("valueReference", "0")),
                causality=element.get("causality", "local"),
                variability=element.get("intervalVariability", ""),
                interval=float(interval) if interval is not None else None,
                shift=float(element.get("shiftDecimal", "0")),
            )
        )
    return clocks


def check_clocks(fmu: str, clocks: list[Clock], model_exchange: bool) -> None:
    """An FMUError in one line for the first clock murcosim cannot drive (``fmu`` names the
    file; ``model_exchange``: whether the FMU runs as Model Exchange)."""
    for clock in clocks:
        if not model_exchange:
            raise FMUError(
                f"{fmu}: clock '{clock.name}': clocks are run for Model Exchange only, and this "
                "FMU offers only Co-Simulation; export it with Model Exchange"
            )
        if clock.causality == "input" and clock.variability not in PERIODIC + APERIODIC:
            raise FMUError(
                f"{fmu}: clock '{clock.name}': input clock with intervalVariability "
                f"'{clock.variability}' has no source in a scenario (murcosim activates "
                "time-based input clocks: constant, fixed, calculated, tunable, changing, "
                "countdown); export the FMU with a time-based clock"
            )
        if clock.causality != "input" and clock.variability != "triggered":
            raise FMUError(
                f"{fmu}: clock '{clock.name}': {clock.causality} clock with intervalVariability "
                f"'{clock.variability}'; FMI 3.0 allows only 'triggered' (fix the model "
                "description)"
            )


class ClockSchedule:
    """The activation times of one instance's input clocks and the state of its output and
    local clocks. ``dll`` is the FMU's library, ``handle`` the instance; ``check(status,
    call)`` raises the instance's error for a call that failed."""

    def __init__(
        self,
        instance: str,
        clocks: list[Clock],
        dll: object,
        handle: object,
        check: Callable[[int, str], None],
    ) -> None:
        self.instance = instance
        self.inputs = [c for c in clocks if c.causality == "input"]
        self.triggered = [c for c in clocks if c.causality != "input"]
        self._dll, self._handle, self._status = dll, handle, check
        self._origin = [math.nan] * len(self.inputs)  # periodic: t_0 (s)
        self._period = [math.nan] * len(self.inputs)  # periodic: T_interval (s)
        self._count = [0] * len(self.inputs)  # periodic: activations so far
        self.next = [math.inf] * len(self.inputs)  # next activation of each input clock (s)

    # -- FMI calls --------------------------------------------------------------------------

    def _references(self, clocks: list[Clock]) -> ctypes.Array:
        return (ctypes.c_uint32 * len(clocks))(*[c.value_reference for c in clocks])

    def _check(self, status: int, call: str, clocks: list[Clock], time: float) -> None:
        if status > 1:
            names = ", ".join(c.name for c in clocks)
            self._status(status, f"{call} of {names} at t = {time:.6g} s")

    def _intervals(self, clocks: list[Clock], time: float) -> tuple[list[float], list[int]]:
        """fmi3GetIntervalDecimal: intervals (s) and qualifiers."""
        n = len(clocks)
        intervals, qualifiers = (ctypes.c_double * n)(), (ctypes.c_int * n)()
        status = self._dll.fmi3GetIntervalDecimal(
            self._handle, self._references(clocks), n, intervals, qualifiers
        )
        self._check(status, "fmi3GetIntervalDecimal", clocks, time)
        return list(intervals), list(qualifiers)

    def _shifts(self, clocks: list[Clock], time: float) -> list[float]:
        n = len(clocks)
        shifts = (ctypes.c_double * n)()
        status = self._dll.fmi3GetShiftDecimal(self._handle, self._references(clocks), n, shifts)
        self._check(status, "fmi3GetShiftDecimal", clocks, time)
        return list(shifts)

    # -- schedule ---------------------------------------------------------------------------

    def start(self, start_time: float) -> None:
        """In Initialization Mode: the first activation of every input clock."""
        asked = [
            k
            for k, c in enumerate(self.inputs)
            if c.variability in APERIODIC or (c.interval is None and c.variability != "constant")
        ]
        clocks = [self.inputs[k] for k in asked]
        intervals, qualifiers = self._intervals(clocks, start_time) if clocks else ([], [])
        periodic = [k for k in asked if self.inputs[k].variability in PERIODIC]
        shifts = self._shifts([self.inputs[k] for k in periodic], start_time) if periodic else []
        asked_interval = dict(zip(asked, zip(intervals, qualifiers, strict=True), strict=True))
        asked_shift = dict(zip(periodic, shifts, strict=True))
        for k, clock in enumerate(self.inputs):
            if clock.variability in APERIODIC:
                interval, qualifier = asked_interval[k]
                known = qualifier != _NOT_YET_KNOWN
                self.next[k] = start_time + interval if known else math.inf
                continue
            interval = asked_interval[k][0] if k in asked_interval else clock.interval
            if interval is None or not interval > 0:
                raise FMUError(
                    f"{self.instance}: clock '{clock.name}': interval {interval} s; a periodic "
                    "clock needs one above 0"
                )
            self._origin[k] = start_time + asked_shift.get(k, clock.shift)
            self._period[k] = interval
            self._count[k] = 0
            self.next[k] = self._origin[k]

    def due(self, time: float) -> list[int]:
        """The input clocks (indices) due at an event at ``time`` (s)."""
        width = _TOLERANCE * max(1.0, abs(time))
        return [k for k, t in enumerate(self.next) if t <= time + width]

    def activate(self, due: list[int], time: float) -> None:
        """fmi3SetClock (active) of the ``due`` input clocks, in Event Mode at ``time``."""
        clocks = [self.inputs[k] for k in due]
        values = (ctypes.c_bool * len(clocks))(*([True] * len(clocks)))
        status = self._dll.fmi3SetClock(self._handle, self._references(clocks), len(clocks), values)
        self._check(status, "fmi3SetClock", clocks, time)
        for k in due:
            if self.inputs[k].variability in PERIODIC:
                self._count[k] += 1
                self.next[k] = self._origin[k] + self._count[k] * self._period[k]
            else:
                self.next[k] = math.inf  # until the FMU tells the next interval

    def active_triggered(self, time: float) -> list[Clock]:
        """fmi3GetClock of the output and local clocks in Event Mode: those active."""
        if not self.triggered:
            return []
        n = len(self.triggered)
        values = (ctypes.c_bool * n)()
        status = self._dll.fmi3GetClock(self._handle, self._references(self.triggered), n, values)
        self._check(status, "fmi3GetClock", self.triggered, time)
        return [c for c, active in zip(self.triggered, values, strict=True) if active]

    def update(self, activated: list[int], time: float) -> None:
        """After the event's discrete-state updates at ``time`` (s): the next intervals of the
        aperiodic clocks (every countdown clock; each changing clock ``activated``) and of the
        tunable clocks, relative to ``time``."""
        asked = [
            k
            for k, c in enumerate(self.inputs)
            if c.variability in ("countdown", "tunable")
            or (c.variability == "changing" and k in activated)
        ]
        if not asked:
            return
        intervals, qualifiers = self._intervals([self.inputs[k] for k in asked], time)
        for k, interval, qualifier in zip(asked, intervals, qualifiers, strict=True):
            if qualifier != _CHANGED:
                continue
            if self.inputs[k].variability == "tunable":  # a new period from now on
                self._origin[k], self._period[k], self._count[k] = time, interval, 0
                self.next[k] = time + interval
            else:
                self.next[k] = time + interval

    def next_time(self) -> float | None:
        """The earliest next activation (s), None when no input clock is scheduled."""
        earliest = min(self.next, default=math.inf)
        return earliest if math.isfinite(earliest) else None
