"""Op-amp Schmitt triggers whose limits are in ``noEvent``, as MSL's IdealizedOpAmpLimited
has them by default: a nonlinear loop with several roots, one of which ends at each threshold.

``tests/data/user_library/UserLib/SchmittTriggers.mo``: the op-amp (gain 15000, supplies
+-15 V) with a feedback divider of 0.8 has the roots +15 V and -15 V (and an unstable one
between) while its inverting input is within +-(12 V - 1 mV); past it only the opposite
saturation is left. Newton, warm-started on the root the loop is on, cannot follow it there;
the FMU then finds the other root from the iteration variables' start values and makes the
switch an event (the relations inside the loop's equations give event indicators). Each
model is held to its analytic solution with the same switching logic in all four variants:
the values to 1e-6 at output points away from the switches, and in Model Exchange the
switching instants (rows FMPy records at the event) to 1e-8 s.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from build_variants import VARIANTS, shared_fmus
from fmpy import simulate_fmu
from test_build_rumoca import LIBRARY, MODELICA_PATH

STOP = 10.0  # s
TIMES = np.linspace(0.0, STOP, 41)
GAIN, SUPPLY, DIVIDER = 15000.0, 15.0, 0.8
# the inverting input where the root the loop is on ends: gain (divider * 15 V - v) = 15 V
THRESHOLD = DIVIDER * SUPPLY - SUPPLY / GAIN  # 11.999 V


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    """The two models' FMUs, from the folder test_build_rumoca builds UserLib into."""
    models = ["UserLib.SchmittTriggers.Inverting", "UserLib.SchmittTriggers.Multivibrator"]
    return shared_fmus(tmp_path_factory, LIBRARY, [MODELICA_PATH], models)


def _runs(fmus, model, outputs):
    """FMPy's result of each variant of ``model`` (variant, interface, result)."""
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmus[(variant, model)]),
            fmi_type=interface,
            stop_time=STOP,
            output_interval=TIMES[1] - TIMES[0],
            relative_tolerance=1e-10,
            output=outputs,
        )
        yield variant, interface, result


def _on_grid(result, name):
    """``name`` at TIMES: the value FMPy records last at each output point."""
    times = result["time"]
    return np.array(
        [result[name][np.nonzero(np.isclose(times, t, atol=1e-12))[0][-1]] for t in TIMES]
    )


def _switches(result, name):
    """The times where ``name`` changes sign from one recorded row to the next."""
    values = result[name]
    jumps = np.nonzero(np.sign(values[1:]) != np.sign(values[:-1]))[0]
    return result["time"][jumps + 1]


def _output(times, switches, first):
    """+-15 V starting on the sign ``first``, changing sign at each of ``switches``."""
    flips = np.searchsorted(np.asarray(switches), times, side="right")
    return first * SUPPLY * (-1.0) ** flips


def test_inverting_trigger_switches_where_its_root_ends(fmus):
    # the inverting input 15 sin(2 pi 0.25 t): the +15 V root ends where it rises past the
    # threshold (t = asin(11.999/15) / (pi/2) + 4 k), the -15 V one where it falls below
    # -11.999 V (2 s later); homotopy starts the loop on +15 V at t = 0
    phase = math.asin(THRESHOLD / SUPPLY) / (math.pi / 2.0)
    switches = [phase, phase + 2.0, phase + 4.0, phase + 6.0, phase + 8.0]
    expected = _output(TIMES, switches, +1.0)
    for variant, interface, result in _runs(fmus, "Inverting", ["v_out"]):
        got = _on_grid(result, "v_out")
        assert np.max(np.abs(got - expected)) < 1e-6, (variant, interface, got - expected)
        if interface == "ModelExchange":
            found = _switches(result, "v_out")
            assert len(found) == len(switches), (variant, found)
            assert np.max(np.abs(found - switches)) < 1e-8, (variant, found - switches)


def test_multivibrator_switches_where_its_root_ends(fmus):
    # R = 2 kOhm, C = 1 mF (tau = 2 s) from v_c = 0 on +15 V: v_c = 15 (1 - exp(-t/tau)) up to
    # the threshold, then -15 V and v_c falls from 11.999 V towards -15 V down to -11.999 V,
    # and so on: each half period tau ln((15 + 11.999) / (15 - 11.999))
    tau = 2.0
    first = -tau * math.log(1.0 - THRESHOLD / SUPPLY)
    half = tau * math.log((SUPPLY + THRESHOLD) / (SUPPLY - THRESHOLD))
    switches = [first, first + half]  # 3.22 s, 7.61 s
    expected_out = _output(TIMES, switches, +1.0)
    segment = np.searchsorted(switches, TIMES, side="right")  # 0, 1, 2: before, between, after
    target = SUPPLY * (-1.0) ** segment
    start = np.array([0.0, THRESHOLD, -THRESHOLD])[segment]
    since = TIMES - np.array([0.0, *switches])[segment]
    expected_c = target + (start - target) * np.exp(-since / tau)
    # Co-Simulation too: the embedded integrator checks the indicators at a step's inner
    # stages, so a stage that passes the threshold and lands on the other root narrows the
    # step to the switch (test_fmu_cs_events.py holds its instants to 1e-8 s there)
    for variant, interface, result in _runs(fmus, "Multivibrator", ["v_out", "v_c"]):
        got_out, got_c = _on_grid(result, "v_out"), _on_grid(result, "v_c")
        assert np.max(np.abs(got_out - expected_out)) < 1e-6, (variant, interface, got_out)
        assert np.max(np.abs(got_c - expected_c)) < 1e-6, (variant, interface, got_c - expected_c)
        if interface == "ModelExchange":
            found = _switches(result, "v_out")
            assert len(found) == len(switches), (variant, found)
            assert np.max(np.abs(found - switches)) < 1e-8, (variant, found - switches)
