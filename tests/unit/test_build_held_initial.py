"""Initial conditions that read values held between events: a relation on ``pre(n)`` in an
equation the initial system reads (``v = if pre(n) >= 0 and high then x else 2*x`` with the
initial equation ``v = 1``). The relation's value at the start names the memory of ``pre(n)``,
which holds ``n.start`` before the first event update (Modelica Language Specification 3.6,
Sec. 8.6); the build substitutes held values until none is left. It failed with CasADi's
"variables [n] are free" before.

``tests/data/held_initial/HeldLib.PreInRelation``: x = 0.1 + 0.9 exp(-t) until x = 0.5 at
t1 = ln(9/4), where ``high`` changes and ``n`` counts 1; then x = 0.5 exp(-2 (t - t1)) and
v = 2 x. In all four variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation) to 1e-6
(:func:`build_variants.assert_agrees_in_four_variants`), on a grid that steps over t1.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus

LIBRARY = Path(__file__).parents[1] / "data" / "held_initial" / "HeldLib"
SWITCH = math.log(9 / 4)  # s: where x reaches 0.5


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("held"))


def test_relation_on_pre_in_an_initial_condition_in_four_variants(fmus):
    times = np.linspace(0.0, 2.0, 201)
    after = times >= SWITCH
    x = np.where(after, 0.5 * np.exp(-2 * (times - SWITCH)), 0.1 + 0.9 * np.exp(-times))
    v = np.where(after, 2 * x, x)
    away = np.abs(times - SWITCH) > 1e-3  # the grid's interpolation across the switch
    reference = {"x": x[away], "v": v[away], "n": after[away].astype(float)}
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "PreInRelation")], reference, times[away], "held"
    )
