"""Reference signals of time: constants and sums of windowed sine and ramp terms."""

from __future__ import annotations

import math

from orchestrator.scenario.model import ReferenceTerm


class TimeReference:
    """A scenario ``Reference``: the sum of terms (zero without any)

    offset + slope t + amplitude sin(2 pi t / period + phase)   for start < t <= stop,

    each zero outside its window (t in s, absolute time, as León-González et al. (2024) writes its
    tests).
    """

    def __init__(self, terms: list[ReferenceTerm]) -> None:
        # per term: window (s), angular frequency (rad/s), phase, offset, slope, amplitude
        self._terms = [
            (t.start, t.stop, 2 * math.pi / t.period, t.phase, t.offset, t.slope, t.amplitude)
            for t in terms
        ]

    def __call__(self, time: float) -> tuple[float, float]:
        """Value and time derivative (per second) at ``time``."""
        value = rate = 0.0
        for start, stop, omega, phase, offset, slope, amplitude in self._terms:
            if not start < time <= stop:
                continue
            angle = omega * time + phase
            value += offset + slope * time + amplitude * math.sin(angle)
            rate += slope + amplitude * omega * math.cos(angle)
        return float(value), float(rate)
