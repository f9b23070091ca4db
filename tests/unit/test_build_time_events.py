"""Relations on time alone switch at their time events, exactly (``events.py``).

``tests/data/time_events/TimeEventLib.RampedRC``: a ramp written as MSL's ``Blocks.Sources.
Ramp`` (``time < startTime + duration``, 0 to 2 V from 0.1 s to 0.3 s) charging an RC
lowpass (``tau = RC = 0.5 s``), a when-equation recording the instant the ramp ends (``not
time < startTime + duration``) and one where ``time > stepTime`` (0.45 s, a strict relation,
true right after its time) becomes true, one where ``time > 0`` does (at the start: it fires
in the update on leaving initialization mode, whose first pass decides the relation as
written, false, and the next as after its time), and a timer whose next instant is a discrete
variable its own when-equation sets (``time >= next``, ``next = pre(next) + period``: the
time event computed anew after each event, as MSL's ``Pulse`` has ``time < T_start +
T_width``). Held with a hysteresis of 1e-10 s as relations on states are, each of these
switched 1e-10 s late (0.30000000010000005 s for the ramp's end) and only where the
integrator found the crossing; now the FMU reports the switching time as its next event
time and the relation takes the value it has after it at that event.

By hand: ``v = a ((t - t0) - tau (1 - exp(-(t - t0)/tau)))`` on the ramp (slope ``a = 10
V/s``), ``v = H + (v(t1) - H) exp(-(t - t1)/tau)`` after it; the instants are the
parameters' sums, to 1e-12 s, in all four variants (FMI 3.0 and 2.0, Model Exchange and
Co-Simulation).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, assert_agrees_in_four_variants, built_fmus
from fmpy import simulate_fmu

LIBRARY = Path(__file__).parents[1] / "data" / "time_events" / "TimeEventLib"
TAU, HEIGHT, START, DURATION = 0.5, 2.0, 0.1, 0.2  # s, V, s, s (RampedRC's parameters)
STEP_TIME, FIRST, PERIOD = 0.45, 0.15, 0.25  # s
STOP = 1.0  # s


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(
        LIBRARY, tmp_path_factory.mktemp("time_events"), models=["TimeEventLib.RampedRC"]
    )


def capacitor_voltage(t: np.ndarray) -> np.ndarray:
    """The RC lowpass's voltage (V) at ``t`` (s) under the ramp, by hand."""
    slope, end = HEIGHT / DURATION, START + DURATION
    on_ramp = np.clip(t, START, end) - START
    v = slope * (on_ramp - TAU * (1 - np.exp(-on_ramp / TAU)))
    return np.where(t > end, HEIGHT + (v - HEIGHT) * np.exp(-(np.maximum(t, end) - end) / TAU), v)


def test_ramp_into_rc_lowpass_in_four_variants(fmus):
    times = np.linspace(0.0, STOP, 101)
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "RampedRC")],
        {"v": capacitor_voltage(times)},
        times,
        "RampedRC",
    )


@pytest.mark.parametrize(("variant", "interface"), VARIANTS)
def test_relations_on_time_switch_at_their_instants(fmus, variant, interface):
    result = simulate_fmu(
        str(fmus[(variant, "RampedRC")]),
        fmi_type=interface,
        stop_time=STOP,
        output_interval=0.01,
        relative_tolerance=1e-10,
        output=["rampEnd", "stepped", "started", "timer.count", "timer.last"],
    )
    instants = [FIRST]
    while instants[-1] + PERIOD <= STOP:
        instants.append(instants[-1] + PERIOD)  # as the timer adds them: pre(next) + period
    assert abs(result["rampEnd"][-1] - (START + DURATION)) < 1e-12
    assert abs(result["stepped"][-1] - STEP_TIME) < 1e-12
    assert result["started"][-1] == 0.0  # fired in the update on leaving initialization
    assert result["timer.count"][-1] == len(instants) == 4
    assert abs(result["timer.last"][-1] - instants[-1]) < 1e-12
