"""When-statements in algorithm sections, as discrete controllers are written (Modelica
Language Specification 3.6, Sec. 11.2.7): the statements of a branch run in order at the
instant its condition becomes true, from the values the section holds there, each variable
they assign first holding its value before the event (``pre``); between events those
variables keep their values.

``tests/data/algorithm_when/WhenLib``: a sampled PI controller on a first-order plant, its
error computed by a statement outside the when-statement (``SampledPI``); two when-statements
in one section, one with ``elsewhen`` (``Counters``); a vector condition at state events
(``Thresholds``); a sample-and-hold block in a file of a sub-package, fed back to an
integrator (``HoldLoop``); a call statement of a function without outputs that only
asserts, in an initial algorithm (``CheckedDecay``); ``sample()`` as a Boolean value
(``Ticks``). References are the difference equations
of each model solved by hand in NumPy, with the plant's exact solution between samples (the
decay's exp(-k t)); every model in all four
variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation) to 1e-6 (the solver's relative
tolerance is 1e-10), state-event times to 1e-8 s. The output grid (0.0131 s) meets no sample
instant, where discrete values jump.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, assert_agrees_in_four_variants, built_fmus, fmpy_messages
from fmpy import simulate_fmu
from modelica_support import ALGORITHM_WHEN

LIBRARY = Path(__file__).parents[1] / "data" / "algorithm_when" / "WhenLib"
STEP = 0.0131  # s, output grid


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("algorithm_when"))


def grid(stop: float) -> np.ndarray:
    return STEP * np.arange(int(stop / STEP) + 1)


def test_sampled_pi_controller_on_a_first_order_plant(fmus):
    ts, k, ti, tau, r = 0.1, 2.0, 0.5, 0.4, 1.0
    times = grid(2.0)
    # e_k = r - y(t_k), I_k = I_(k-1) + Ts e_k / Ti, u_k = k e_k + I_k at t_k = k Ts (k >= 0,
    # the first sample at the start time); between samples T y' = -y + u_k:
    # y = u_k + (y_k - u_k) exp(-(t - t_k)/T)
    samples = []  # t_k, y_k, e, I, u
    y, u, integral = 0.0, 0.0, 0.0
    for n in range(21):
        if n:
            y = u + (y - u) * math.exp(-ts / tau)
        e = r - y
        integral += ts * e / ti
        u = k * e + integral
        samples.append((n * ts, y, e, integral, u))
    reference = {name: np.empty_like(times) for name in ("y", "e", "I", "u", "n", "error")}
    for i, t in enumerate(times):
        n = int(t / ts)
        t_k, y_k, e, integral, u = samples[n]
        y = u + (y_k - u) * math.exp(-(t - t_k) / tau)
        values = dict(y=y, e=e, I=integral, u=u, n=n + 1, error=r - y)
        for name, value in values.items():
            reference[name][i] = value
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "SampledPI")], reference, times, "SampledPI"
    )


def test_two_when_statements_and_elsewhen(fmus):
    times = grid(3.0)
    # at 1.5 s both clocks of the first when-statement tick: its first branch alone fires
    ticks_b = [j for j in range(1, 7) if (2 * j) % 3]
    reference = {
        "a": np.floor(times / 0.75),
        "b": np.array([sum(0.5 * j <= t for j in ticks_b) for t in times], dtype=float),
        "c": np.floor(times / 0.25) + 1,  # sample(0, 0.25): the first at the start time
        "last": 0.25 * np.floor(times / 0.25),
    }
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "Counters")], reference, times, "Counters"
    )


def test_vector_condition_fires_on_each_elements_edge(fmus):
    times = grid(1.5)
    first, last = math.log(2.0), math.log(3.0)
    reference = {
        "x": np.exp(times),
        "hits": (times >= first) + (times >= last).astype(float),
        "tFirst": np.where(times >= first, first, 0.0),
        "tLast": np.where(times >= last, last, np.where(times >= first, first, 0.0)),
    }
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "Thresholds")], reference, times, "Thresholds"
    )
    for variant, interface in VARIANTS:  # the state events, located
        result = simulate_fmu(
            str(fmus[(variant, "Thresholds")]),
            fmi_type=interface,
            stop_time=1.5,
            relative_tolerance=1e-10,
            output=["tFirst", "tLast"],
        )
        assert abs(result["tFirst"][-1] - first) < 1e-8, (variant, interface)
        assert abs(result["tLast"][-1] - last) < 1e-8, (variant, interface)


def test_when_statement_in_a_block_of_another_file(fmus):
    period = 0.25
    times = grid(2.0)
    # x' = 1 - y_k on [t_k, t_k+1), y_(k+1) = x(t_(k+1)) at t_k = k period (k >= 1)
    x_k, y_k, held = 0.0, 0.0, [(0.0, 0.0)]
    for _ in range(8):
        x_k += (1.0 - y_k) * period
        y_k = x_k
        held.append((x_k, y_k))
    reference = {name: np.empty_like(times) for name in ("x", "hold.y", "hold.count")}
    for i, t in enumerate(times):
        n = int(t / period)
        x_n, y_n = held[n]
        reference["x"][i] = x_n + (1.0 - y_n) * (t - n * period)
        reference["hold.y"][i], reference["hold.count"][i] = y_n, n
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "HoldLoop")], reference, times, "HoldLoop"
    )


def test_sample_as_a_boolean_is_true_at_its_instants_only(fmus):
    """``tick = sample(0.25, 0.25)`` (MSL's SampleTrigger): a when-statement on it fires at
    each instant; it and ``level = if tick then 1 else 0`` are false (0) between events."""
    times = grid(1.5)
    count = np.floor(times / 0.25)
    reference = {
        "n": count,
        "seen": 0.25 * count,
        "tick": np.zeros_like(times),
        "level": np.zeros_like(times),
    }
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "Ticks")], reference, times, "Ticks"
    )


def test_call_statement_of_a_function_that_only_asserts(fmus):
    """``checkPositive(k)`` in an initial algorithm (as MSL's BooleanTable calls
    ``isValidTable``): with k = 2 the model runs (x = exp(-2 t)); with k = -1 each variant
    fails when it leaves initialization, with the assert's message."""
    times = grid(1.0)
    reference = {"x": np.exp(-2.0 * times)}
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "CheckedDecay")], reference, times, "CheckedDecay"
    )
    for variant, interface in VARIANTS:
        with (
            fmpy_messages() as (logged, logger),
            pytest.raises(Exception, match="ExitInitializationMode failed"),
        ):
            simulate_fmu(
                str(fmus[(variant, "CheckedDecay")]),
                fmi_type=interface,
                stop_time=1.0,
                start_values={"k": -1.0},
                logger=logger,
            )
        assert b"assert failed at t = 0 s: v must be positive" in logged, (variant, logged)


def test_construct_table_names_these_tests():
    assert {test for _, test in ALGORITHM_WHEN} <= {n for n in globals() if n.startswith("test_")}
