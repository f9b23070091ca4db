"""Reference signals of time: constants and sums of windowed sine and ramp terms."""

from __future__ import annotations

import math

from orchestrator.native.controllers import Terms
from orchestrator.scenario.model import ReferenceTerm


def reference_terms(terms: list[ReferenceTerm]) -> Terms:
    """A scenario ``Reference`` for the compiled laws: the sum of terms (zero without any)

    offset + slope t + amplitude sin(2 pi t / period + phase)   for start < t <= stop,

    each zero outside its window (t in s, absolute time, as León-González et al. (2024) writes its
    tests), and its time derivative. Per term: window (s), angular frequency (rad/s), phase,
    offset, slope, amplitude.
    """
    return [
        (t.start, t.stop, 2 * math.pi / t.period, t.phase, t.offset, t.slope, t.amplitude)
        for t in terms
    ]
