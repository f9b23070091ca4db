"""Reference signals of time: constants and sums of windowed sine and ramp terms."""

from __future__ import annotations

import numpy as np

from orchestrator.scenario import ReferenceTerm


class TimeReference:
    """A scenario ``Reference``: the sum of terms (zero without any)

    offset + slope t + amplitude sin(2 pi t / period + phase)   for start < t <= stop,

    each zero outside its window (t in s, absolute time, as León-González et al. (2024) writes its
    tests).
    """

    def __init__(self, terms: list[ReferenceTerm]) -> None:
        self.terms = list(terms)

    def __call__(self, time: float) -> tuple[float, float]:
        """Value and time derivative (per second) at ``time``."""
        value = rate = 0.0
        for term in self.terms:
            if not term.start < time <= term.stop:
                continue
            omega = 2 * np.pi / term.period
            angle = omega * time + term.phase
            value += term.offset + term.slope * time + term.amplitude * np.sin(angle)
            rate += term.slope + term.amplitude * omega * np.cos(angle)
        return float(value), float(rate)
