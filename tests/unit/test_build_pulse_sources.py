"""Pulse sources as the MSL writes them: a period count ``integer((time - startTime)/period)``
taken in an initial algorithm and a when-equation, and a source whose signal block gets its
parameters as final modifications (``Pulse signalSource(final nperiod = nperiod)``), the
pattern of the MSL's Analog.Sources.PulseVoltage and TrapezoidVoltage. The outer model sets
``nperiod = 3``; the inner binding is then a copy of the outer parameter, which has to be
declared where the inner one reads it (it was not: ``KeyError: 'V1.nperiod'``).

``tests/data/pulse_sources/PulseLib.ThreePulses``: 2 V pulses 0.1 s wide every 0.4 s from
0.3 s, three of them. Reference: the analytic pulse train, and the period count
``floor((t - 0.3)/0.4)`` (integer() is floor, Modelica 3.6, Sec. 3.7.1.1), in all four
variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation). Outputs are compared away from
the edges (1e-6 s): the values there are exact (0, 2 V, integers), so the tolerance is 1e-9.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, built_fmus
from fmpy import simulate_fmu
from modelica_support import SOURCES

LIBRARY = Path(__file__).parents[1] / "data" / "pulse_sources" / "PulseLib"
START, PERIOD, WIDTH, PULSES, AMPLITUDE = 0.3, 0.4, 0.1, 3, 2.0
EDGES = [START + k * PERIOD + d for k in range(5) for d in (0.0, WIDTH)]


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("pulses"))


def expected(t: float) -> tuple[float, float]:
    """The pulse's voltage (V) and the period count at ``t`` (s)."""
    count = math.floor((t - START) / PERIOD)
    on = 0 <= count < PULSES and t - (START + count * PERIOD) < WIDTH
    return (AMPLITUDE if on else 0.0), float(count)


@pytest.mark.parametrize(("variant", "interface"), VARIANTS)
def test_pulse_count_and_voltage(fmus, variant, interface):
    result = simulate_fmu(
        str(fmus[(variant, "ThreePulses")]),
        fmi_type=interface,
        stop_time=2.0,
        output_interval=0.01,
        relative_tolerance=1e-10,
        output=["v", "count"],
    )
    away = [i for i, t in enumerate(result["time"]) if min(abs(t - e) for e in EDGES) > 1e-6]
    assert len(away) > 150
    want = np.array([expected(result["time"][i]) for i in away])
    np.testing.assert_allclose(result["v"][away], want[:, 0], atol=1e-9)
    np.testing.assert_allclose(result["count"][away], want[:, 1], atol=1e-9)
    assert max(result["v"]) == AMPLITUDE  # the pulses came


def test_construct_table_names_these_tests():
    assert {test for _, test in SOURCES} <= {n for n in globals() if n.startswith("test_")}
