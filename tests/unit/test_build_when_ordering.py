"""When-equations that read what another when-equation (or a when-statement) assigns at the
same event (Modelica Language Specification 3.6, Sec. 8.3.5 and 8.6): the equations of all
branches active at an event hold together with the rest, so ``b = a`` beside
``a = pre(a) + 1`` gives b the new a, whichever of the two the source writes first.

``tests/data/when_ordering/OrderLib``: the two when-equations in both orders (``TwoWhens``,
``TwoWhensReversed``); Integer and Boolean variables in a chain ``c = b``, ``b = a`` written
before the counter they read, beside ``pre(a)`` (``Chain``); a when-equation reading what a
when-statement of an algorithm section assigns (``FromAlgorithm``). ``pre(v)`` of a discrete
variable no when-equation assigns, read from a memory of its value at each pass of the event
iteration: a set-reset latch of blocks closed through a ``Pre`` block (``Latch``, as MSL's
LogicalNetwork1), the rising edges of a block's input bound to a when-equation's variable
(``EdgeOfBound``, as MSL's Interaction1), the hysteresis ``y = u > 0.5 or pre(y) and u >=
-0.5`` beside the same written with when-equations (``Hysteresis``). References by hand:
``x = t``, so ``x > 0.3`` fires at 0.3 s, ``cos(2 pi x) < 0`` at 0.25 s and 1.25 s (in 2 s);
the values after each event follow from the equations. Every model in all four variants
(FMI 3.0 and 2.0, Model Exchange and Co-Simulation) to 1e-6 (solver relative tolerance
1e-10) on a grid that meets no event, event times to 1e-8 s. A loop of such reads
(``b = a`` beside ``a = b``) is refused in one line at its place.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, assert_agrees_in_four_variants, built_fmus, one_line_refusal
from fmpy import simulate_fmu
from modelica_support import WHEN_ORDERING

LIBRARY = Path(__file__).parents[1] / "data" / "when_ordering" / "OrderLib"
STEP = 0.0131  # s, output grid: meets neither 0.25, 0.3 nor 1.25 s
TIMES = STEP * np.arange(int(2.0 / STEP) + 1)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("when_ordering"))


def after(instants: list[float], values: list[float], before: float = 0.0) -> np.ndarray:
    """A piecewise constant signal on TIMES: ``before``, then ``values[k]`` from
    ``instants[k]`` on."""
    signal = np.full_like(TIMES, before)
    for instant, value in zip(instants, values, strict=True):
        signal[instant < TIMES] = value
    return signal


def recorded(fmu: Path, interface: str, name: str) -> float:
    """The value of ``name`` at 2 s, the end of a simulation of ``fmu``."""
    result = simulate_fmu(
        str(fmu), fmi_type=interface, stop_time=2.0, relative_tolerance=1e-10, output=[name]
    )
    return float(result[name][-1])


@pytest.mark.parametrize("model", ["TwoWhens", "TwoWhensReversed"])
def test_b_reads_the_new_a_in_either_order(fmus, model):
    reference = {"a": after([0.3], [1.0]), "b": after([0.3], [1.0])}
    assert_agrees_in_four_variants(lambda v: fmus[v, model], reference, TIMES, model)
    for variant, interface in VARIANTS:
        instant = recorded(fmus[variant, model], interface, "tb")  # the state event, located
        assert abs(instant - 0.3) < 1e-8, (variant, interface, instant)


def test_chain_of_integers_and_a_boolean_read_the_new_count(fmus):
    instants = [0.25, 1.25]  # cos(2 pi t) < 0 from t = 1/4 + k
    reference = {
        "a": after(instants, [1.0, 2.0]),
        "b": after(instants, [1.0, 2.0]),
        "c": after(instants, [1.0, 2.0]),
        "before": after(instants, [0.0, 1.0]),  # pre(a)
        "odd": after(instants, [1.0, 0.0]),  # mod(a, 2) == 1 of the new a
    }
    assert_agrees_in_four_variants(lambda v: fmus[v, "Chain"], reference, TIMES, "Chain")
    for variant, interface in VARIANTS:
        instant = recorded(fmus[variant, "Chain"], interface, "tc")  # the last state event
        assert abs(instant - 1.25) < 1e-8, (variant, interface, instant)


def test_when_equation_reads_what_a_when_statement_assigns(fmus):
    reference = {"a": after([0.3], [5.0]), "b": after([0.3], [10.0])}
    assert_agrees_in_four_variants(
        lambda v: fmus[v, "FromAlgorithm"], reference, TIMES, "FromAlgorithm"
    )


def test_pre_of_a_block_input_in_a_loop_of_blocks_is_its_value_before_the_event(fmus):
    """The latch: set from 0.3 s (set.u1 from 0.3 s to 0.5 s), held through Pre, reset at
    1.2 s; without the memory the loop would be algebraic (on = set or (on and not reset))."""
    reference = {name: after([0.3, 1.2], [1.0, 0.0]) for name in ("on", "memory.y", "hold.y")}
    assert_agrees_in_four_variants(lambda v: fmus[v, "Latch"], reference, TIMES, "Latch")


def test_pre_of_an_input_bound_to_a_when_equations_variable(fmus):
    """pulse rises at 0.4 s and 1.3 s and falls at 0.9 s; the counter counts the rises by
    trigger and not pre(trigger), its input bound to pulse."""
    reference = {
        "counter.n": after([0.4, 1.3], [1.0, 2.0]),
        "counter.trigger": after([0.4, 0.9, 1.3], [1.0, 0.0, 1.0]),
    }
    assert_agrees_in_four_variants(
        lambda v: fmus[v, "EdgeOfBound"], reference, TIMES, "EdgeOfBound"
    )


def test_pre_of_a_boolean_given_by_relations_is_the_hysteresis(fmus):
    """y = u > 0.5 or pre(y) and u >= -0.5 with u = sin(pi t): on at t = 1/6 + 2k, off at
    7/6 + 2k, as the same hysteresis written with when-equations (switched)."""
    on, off = 1 / 6, 7 / 6
    reference = {name: after([on, off], [1.0, 0.0]) for name in ("y", "switched")}
    assert_agrees_in_four_variants(lambda v: fmus[v, "Hysteresis"], reference, TIMES, "Hysteresis")


def test_pre_given_by_an_initial_equation_starts_the_hysteresis(fmus):
    """pre(y) = true at the start, u = sin(pi t) between the thresholds: y is true from the
    start until u falls below -0.5 at 7/6 s."""
    reference = {"y": after([7 / 6], [0.0], before=1.0)}
    assert_agrees_in_four_variants(
        lambda v: fmus[v, "HysteresisOn"], reference, TIMES, "HysteresisOn"
    )


LOOP = """package Bad
  model M
    Real x(start = 0, fixed = true);
    discrete Real a(start = 0, fixed = true);
    discrete Real b(start = 0, fixed = true);
  equation
    der(x) = 1;
    when x > 0.3 then
      b = a + 1;
    end when;
    when x > 0.3 then
      a = b;
    end when;
  end M;
end Bad;
"""


def test_loop_of_new_values_is_refused_in_one_line_at_its_place(tmp_path):
    message = one_line_refusal(tmp_path, LOOP)
    assert message.startswith("Bad/package.mo:11:"), message  # the second when-equation
    assert "algebraic loop at the event" in message and "a, b" in message, message


def test_sampled_when_equation_reading_another_ones_variable_is_refused_in_our_words(tmp_path):
    """rumoca 0.10 gives a when-equation on sample(...) a clock of its own and refuses its
    read of what another when-equation assigns, in its internal words."""
    text = LOOP.replace("x > 0.3", "sample(0.1, 0.25)").replace("a = b", "a = pre(a) + 1")
    message = one_line_refusal(tmp_path, text)
    assert message.startswith("Bad/package.mo:8:"), message  # the first sample(
    assert "when-equation on sample(...) reading, without pre" in message, message
    assert "assign both in one when-equation" in message and "identity" not in message, message


def test_construct_table_names_these_tests():
    assert {test for _, _, test in WHEN_ORDERING} <= {n for n in globals() if n.startswith("test_")}
