"""A nonlinear loop's solution held to its unknowns' declared ``min`` and ``max``.

A loop of a physical model may have roots that are no state of the device: a transistor's
junction temperature below 0 K, a current against a diode's direction. Newton's method goes to
the root nearest its start in its own sense, and where the integrator tries a point away from
the last one (a step it will reject), that can be such a root; the model's own ``assert``
(MSL's semiconductors: ``T_heatPort > 0``, "Temperature must be positive") then ended the run
on a value no tool would have accepted. A Modelica variable's ``min`` and ``max`` (Modelica
Language Specification 3.6, Sec. 4.9.1) bound the values it may take; a solution outside them
counts here as not solved, so that the loop's next solver runs, and where none gives a
solution within them the loop is reported as unsolved. OpenModelica checks the bounds on the
solution found (F. Casella, "Use min/max attributes to steer and constrain the solution of
nonlinear systems", OpenModelica issue 14104, 2025) and clamps its hybrid solver's iteration
variables into them (OpenModelica pull request 12201, 2024).

Only declared bounds count: ``min`` and ``max`` written as numbers on the variable or its type
(``FlatVariable.bounds``); a loop whose unknowns declare none is solved as before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import casadi as ca

# a root at its bound passes though Newton leaves it this far outside, relative to the
# bound's size (at least 1): the loop's tolerance, not a physical margin
SLACK = 1e-9


def bounded(
    unknowns: Sequence[ca.SX], bounds: Mapping[str, tuple[float, float]]
) -> list[tuple[int, float, float]]:
    """The positions of ``unknowns`` (scalar symbols) with a finite declared bound in
    ``bounds`` (by name), each with its ``min`` and ``max`` (infinite where not given)."""
    found = []
    for k, unknown in enumerate(unknowns):
        low, high = bounds.get(unknown.name(), (-math.inf, math.inf))
        if math.isfinite(low) or math.isfinite(high):
            found.append((k, low, high))
    return found


def within(values: ca.SX, limits: Sequence[tuple[int, float, float]]) -> ca.SX:
    """1 where every element ``k`` of ``values`` named in ``limits`` (as :func:`bounded`
    gives them) lies within its ``min`` and ``max`` (:data:`SLACK` allowed), else 0."""
    inside = ca.SX(1)
    for k, low, high in limits:
        if math.isfinite(low):
            inside = ca.logic_and(inside, values[k] >= low - SLACK * max(1.0, abs(low)))
        if math.isfinite(high):
            inside = ca.logic_and(inside, values[k] <= high + SLACK * max(1.0, abs(high)))
    return inside
