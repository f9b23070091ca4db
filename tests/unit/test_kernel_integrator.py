"""The compiled Dormand-Prince integrator on its own: a system without FMUs whose rates come
from the post-process (the hook the constraint coupling uses)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from orchestrator.errors import SimulationError
from orchestrator.native.kernel import CompiledSystem


def system(rate) -> CompiledSystem:
    """One state, x' = rate(x)."""
    compiled = CompiledSystem([], [], [], 1)
    compiled.post = lambda x, dx: dx.__setitem__(slice(None), rate(x))
    return compiled


def test_blow_up_is_named_with_its_step_and_time():
    # x' = x^2, x(0) = 1: x = 1/(1 - t) leaves every finite bound at t = 1 s
    compiled = system(lambda x: x**2)
    compiled.dopri_reset(0.0, np.array([1.0]), 1e-3)
    with pytest.raises(SimulationError) as caught:
        compiled.dopri_advance(2.0, 2.0, np.zeros(1), (1e-8, 1e-8, math.inf), compiled.post)
    found = re_numbers(str(caught.value))
    assert "step size too small" in str(caught.value) and "%" not in str(caught.value)
    assert found[0] < 1e-13 and abs(found[1] - 1.0) < 1e-6


def test_dense_output_outside_the_last_step_is_refused_with_the_time():
    # x' = -x to 0.5 s: the dense output at the step's end is exp(-0.5) to 1e-8; 5 s lies
    # past the last step
    compiled = system(lambda x: -x)
    compiled.dopri_reset(0.0, np.array([1.0]), 1e-3)
    out = np.zeros(1)
    compiled.dopri_advance(0.5, 0.5, out, (1e-10, 1e-10, 0.4), compiled.post)
    out[0] = math.nan
    compiled.dopri_dense(0.5, out)
    assert out[0] == pytest.approx(math.exp(-0.5), abs=1e-8)
    with pytest.raises(ValueError, match=r"^t = 5 s is outside the last step$"):
        compiled.dopri_dense(5.0, out)


def re_numbers(text: str) -> list[float]:
    """The numbers in ``text``, in order."""
    return [float(n) for n in re.findall(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]
