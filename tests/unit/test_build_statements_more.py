"""Statements library authors write beside equations: warning-level asserts, `initial()` with
samples in one when-condition, state events close together inside one Co-Simulation step, and
the constructs still refused, each in one line at its place.

``tests/data/statements_more/MoreLib``: ``CheckedState`` (a call statement of a function
without outputs in an algorithm section, ``checkAbove(x, limit = 0.25)`` on x = exp(-t),
failing at ln 4 s); ``Warnings`` (``assert(s < 0.5, "s (=" + String(s) + ") above " + String(0.5),
AssertionLevel.warning)`` on s = sin(2 pi t), failing from 1/12 s to 5/12 s of each period, and
one in a function on sqrt's argument x = exp(-t), failing from ln 4 s on); ``InitialOrSample``
(``when {initial(), sample(0.5, 0.5)}`` and ``when initial() or sample(0.25, 0.25)``);
``CloseThresholds`` (x = exp(t) passes exp(0.5031) and exp(0.5032), 1e-4 s apart);
``SmallBounces`` (a ball dropped from 1 cm with restitution 0.5: bounce k at
t_1 + 2 v_1 (e + ... + e^(k-1)) / g, t_1 = sqrt(2 h / g), v_1 = sqrt(2 g h), so that the fourth
and fifth, 5.6 ms apart, fall in one communication step of 10 ms). References are these
instants and values by hand; every model in all four variants (FMI 3.0 and 2.0, Model Exchange
and Co-Simulation) to 1e-6 (the solver's relative tolerance is 1e-10). The Co-Simulation FMU's
own integrator brackets a crossing to 1e-12 s; its instants are held to 1e-8 s. In Model
Exchange FMPy's CVode locates the crossings; a bounce's instant there depends on the velocity
each earlier bounce left, so its error grows from bounce to bounce (1e-8 s at the fifth): held
to 1e-7 s.
"""

from __future__ import annotations

import logging
import math
import re
from pathlib import Path

import numpy as np
import pytest
from build_variants import (
    VARIANTS,
    assert_agrees_in_four_variants,
    built_fmus,
    fmpy_messages,
    one_line_refusal,
)
from fmpy import simulate_fmu
from modelica_support import STATEMENTS_MORE

from orchestrator.compiler import build_library

LIBRARY = Path(__file__).parents[1] / "data" / "statements_more" / "MoreLib"
STEP = 0.0131  # s, output grid: meets no sample instant
CO_SIMULATION_INSTANT = 1e-8  # s: an event's instant in Co-Simulation against the analytic one
MODEL_EXCHANGE_INSTANT = 1e-7  # s: the same located by FMPy's CVode (module docstring)
COMMUNICATION_STEP = 1e-2  # s


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("statements_more"))


def grid(stop: float) -> np.ndarray:
    return STEP * np.arange(int(stop / STEP) + 1)


def _logged(fmu: Path, interface: str, stop: float) -> tuple[dict, list[tuple[int, str, str]]]:
    """The run of ``fmu`` to ``stop`` on the output grid and the messages it logged: status,
    category, text (FMPy's logger gets FMI 2.0's five arguments, FMI 3.0's four)."""
    messages = []

    def logger(*arguments: object) -> None:
        status, category, text = arguments[-3:]
        messages.append((int(status), category.decode(), text.decode()))

    result = simulate_fmu(
        str(fmu),
        fmi_type=interface,
        stop_time=stop,
        output_interval=STEP,
        relative_tolerance=1e-10,
        output=["x", "r"],
        logger=logger,
    )
    return result, messages


def test_warning_level_asserts_are_logged_where_they_start_to_fail(fmus):
    """In [0, 2] s, s > 0.5 starts twice (1/12 s, 13/12 s) and x < 0.25 once (ln 4 s): three
    warnings in that order, each with a warning status (1), FMI's category
    ``logStatusWarning``, and logged at a time where its condition fails (the first completed
    step or event there); the run goes on to 2 s with x = exp(-t) and r = exp(-t/2)."""
    for variant, interface in VARIANTS:
        result, messages = _logged(fmus[(variant, "Warnings")], interface, 2.0)
        times = result["time"]
        assert times[-1] == pytest.approx(2.0), (variant, interface)
        for name, expected in (("x", np.exp(-times)), ("r", np.exp(-times / 2))):
            error = np.max(np.abs(result[name] - expected))
            assert error < 1e-6, (variant, interface, name, error)
        texts = [text for _, _, text in messages]
        label = (variant, interface, messages)
        # the message's literal parts and String(0.5) as written, String(s) not known before
        assert [t.split(": ", 1)[1] for t in texts] == [
            "s (=...) above 0.5",
            "s (=...) above 0.5",
            "u below 0.25",
        ], label
        assert {(status, category) for status, category, _ in messages} == {
            (1, "logStatusWarning")
        }, label
        at = [float(re.search(r"at t = (\S+) s", t).group(1)) for t in texts]
        assert 1 / 12 <= at[0] < 5 / 12 and 13 / 12 <= at[1] < 17 / 12, label
        assert at[2] >= math.log(4), label


def test_warning_in_a_when_statement_is_logged_at_the_sample_it_fails(fmus):
    """x = exp(-t) passes 0.6 at 0.51 s: the assert holds at the samples 0.25 s and 0.5 s and
    fails at 0.75 s, where it is logged; it fails at the samples after too, and is not logged
    again (it never held in between); the run goes on with its four samples to 1.1 s."""
    for variant, interface in VARIANTS:
        with fmpy_messages() as (logged, logger):
            result = simulate_fmu(
                str(fmus[(variant, "SampledWarning")]),
                fmi_type=interface,
                stop_time=1.1,
                relative_tolerance=1e-10,
                output=["n"],
                logger=logger,
            )
        assert logged == [b"assert warning at t = 0.75 s: x below 0.6 at a sample"], logged
        assert result["n"][-1] == 4, (variant, interface)


def test_initial_and_samples_in_one_when_condition(fmus):
    """``when {initial(), sample(0.5, 0.5)}`` fires at the start and every 0.5 s; ``when
    initial() or sample(0.25, 0.25)`` at the start and every 0.25 s (in the update on leaving
    initialization mode no sample fires, and initial() alone makes the condition rise)."""
    times = grid(1.6)
    reference = {
        "n": 1 + np.floor(times / 0.5),
        "m": 1 + np.floor(times / 0.25),
        "last": 0.5 * np.floor(times / 0.5),
    }
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "InitialOrSample")], reference, times, "InitialOrSample"
    )


def test_call_statement_in_an_algorithm_checks_the_functions_asserts(fmus):
    """``checkAbove(x, limit = 0.25);`` beside ``y := 2*x`` with x = exp(-t): y agrees up to
    1.3 s; x passes its limit at ln 4 s. In Co-Simulation a run to 1e-8 s before ends normally
    and one to 1e-8 s after stops with the assert's message; in Model Exchange FMPy's CVode
    evaluates the model at trial points past the end of the run, so a run to 2 s stops with the
    message at a time not before ln 4 s."""
    times = grid(1.3)
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "CheckedState")], {"y": 2 * np.exp(-times)}, times, "y"
    )
    limit = math.log(4)
    for variant, interface in VARIANTS:
        fmu = str(fmus[(variant, "CheckedState")])
        if interface == "CoSimulation":
            simulate_fmu(fmu, fmi_type=interface, stop_time=limit - 1e-8)
        with fmpy_messages() as (logged, logger), pytest.raises(Exception, match="failed"):
            stop = limit + 1e-8 if interface == "CoSimulation" else 2.0
            simulate_fmu(fmu, fmi_type=interface, stop_time=stop, logger=logger)
        texts = [m.decode() for m in logged if b"v fell below its limit" in m]
        assert texts, (variant, interface, logged)
        assert float(re.search(r"at t = (\S+) s", texts[0]).group(1)) >= limit - 1e-5, texts


def _coarse(fmus, model: str, variant: str, interface: str, stop: float, outputs: list[str]):
    return simulate_fmu(
        str(fmus[(variant, model)]),
        fmi_type=interface,
        stop_time=stop,
        output_interval=COMMUNICATION_STEP,
        relative_tolerance=1e-10,
        output=outputs,
    )


def _instant(interface: str) -> float:
    return CO_SIMULATION_INSTANT if interface == "CoSimulation" else MODEL_EXCHANGE_INSTANT


def test_two_crossings_1e_4_s_apart_within_one_communication_step(fmus):
    """Both crossings (0.5031 s, 0.5032 s) fall in the step from 0.50 s to 0.51 s: at 0.51 s
    both instants are there to 1e-8 s, and the second crossing's event found the first's
    instant already set (pre(atA) = 0.5031 s): found in order."""
    for variant, interface in VARIANTS:
        result = _coarse(
            fmus, "CloseThresholds", variant, interface, 0.6, ["atA", "atB", "seenA", "x"]
        )
        after = np.nonzero(result["time"] >= 0.51 - 1e-12)[0][0]
        before = np.nonzero(result["time"] <= 0.50 + 1e-12)[0][-1]
        label = (variant, interface)
        assert result["atA"][before] == result["atB"][before] == -1, label
        for name, instant in (("atA", 0.5031), ("atB", 0.5032), ("seenA", 0.5031)):
            assert abs(result[name][after] - instant) < _instant(interface), (label, name)
        assert abs(result["x"][-1] - math.exp(result["time"][-1])) < 1e-6 * math.exp(0.6), label


def bounce_instants(count: int, e: float = 0.5, g: float = 9.81, h: float = 0.01) -> np.ndarray:
    """The instants (s) of a ball's first ``count`` bounces, dropped from ``h`` (m) at rest."""
    first, speed = math.sqrt(2 * h / g), math.sqrt(2 * g * h)
    return first + np.array(
        [2 * speed * sum(e**j for j in range(1, k + 1)) / g for k in range(count)]
    )


def test_several_bounces_within_one_communication_step(fmus):
    """Five bounces up to 0.13 s, the fourth (0.12417 s) and fifth (0.12981 s) in the step from
    0.12 s to 0.13 s: at every communication point the count, the last bounce's instant and the
    one before it are those of the bounces up to that point."""
    instants = bounce_instants(8)
    for variant, interface in VARIANTS:
        result = _coarse(fmus, "SmallBounces", variant, interface, 0.13, ["n", "last", "before"])
        label = (variant, interface)
        for k, t in enumerate(result["time"]):
            seen = int(np.sum(instants <= t + _instant(interface)))  # a located one at t
            if t in result["time"][k + 1 :]:
                continue  # a Model Exchange run's row before an event at t: the next has it
            assert result["n"][k] == seen, (label, t)
            if seen >= 1:
                assert abs(result["last"][k] - instants[seen - 1]) < _instant(interface), label
            if seen >= 2:
                assert abs(result["before"][k] - instants[seen - 2]) < _instant(interface), label
        assert result["n"][-1] == 5, label


def _place(message: str) -> tuple[int, int]:
    line, column = re.match(r"Bad/package\.mo:(\d+):(\d+): Bad\.M: ", message).groups()
    return int(line), int(column)


def test_unbounded_while_loop_is_refused_at_the_while(tmp_path):
    """The while loop's own line and column, not the function's: a bounded loop before it
    (MSL's search down an array) is given to rumoca 0.10 as a for loop and passes."""
    text = (
        "package Bad\n"
        "  function f\n"
        "    input Real u;\n"
        "    input Real a[3] = {1, 2, 3};\n"
        "    output Real y;\n"
        "  protected\n"
        "    Integer i = 3;\n"
        "  algorithm\n"
        "    while i > 1 and u < a[i] loop\n"
        "      i := i - 1;\n"
        "    end while;\n"
        "    y := u + i;\n"
        "      while y > 1 loop\n"
        "      y := y/2;\n"
        "    end while;\n"
        "  end f;\n"
        "  model M\n"
        "    Real x(start = 1, fixed = true);\n"
        "    Real y;\n"
        "  equation\n"
        "    der(x) = -x;\n"
        "    y = f(x);\n"
        "  end M;\n"
        "end Bad;\n"
    )
    message = one_line_refusal(tmp_path, text)
    assert _place(message) == (13, 7), message
    assert "in function 'f': a while loop whose passes its text does not bound" in message


def test_sample_in_an_initial_equation_is_refused_at_its_place(tmp_path):
    text = (
        "package Bad\n"
        "  model M\n"
        "    Real x(start = 1, fixed = true);\n"
        "    discrete Real y(fixed = false);\n"
        "  initial equation\n"
        "    y = if sample(0, 0.5) then 1 else 2;\n"
        "  equation\n"
        "    der(x) = -x;\n"
        "  end M;\n"
        "end Bad;\n"
    )
    message = one_line_refusal(tmp_path, text)
    assert _place(message) == (6, 12), message
    assert "sample(...) in an initial equation" in message


CHECK = (
    "  function check\n"
    "    input Real v;\n"
    "  algorithm\n"
    '    assert(v > 0, "v must be positive");\n'
    "  end check;\n"
)


def test_call_equation_of_a_function_without_outputs_is_refused_at_its_place(tmp_path):
    """rumoca 0.10 drops ``check(x);`` from the equations: the build refuses it at its place
    rather than export an FMU that never checks the function's assert."""
    text = (
        "package Bad\n" + CHECK + "  model M\n"
        "    Real x(start = 1, fixed = true);\n"
        "  equation\n"
        "    der(x) = -x;\n"
        "    check(x);\n"
        "  end M;\n"
        "end Bad;\n"
    )
    message = one_line_refusal(tmp_path, text)
    assert _place(message) == (11, 5), message
    assert "call equation of function 'check' without outputs" in message


def test_call_equation_in_an_if_branch_builds_with_a_warning_at_its_place(tmp_path, caplog):
    """In a branch of an if-equation on a parameter (as MSL's LimPID calls Streams.error for a
    start value outside its limits) the call may never be made: the model builds, and a
    warning names the call's place."""
    folder = tmp_path / "Bad"
    folder.mkdir()
    (folder / "package.mo").write_text(
        "package Bad\n" + CHECK + "  model M\n"
        "    parameter Real k = 1;\n"
        "    Real x(start = 1, fixed = true);\n"
        "  equation\n"
        "    der(x) = -k*x;\n"
        "    if k < 0 then\n"
        "      check(k);\n"
        "    end if;\n"
        "  end M;\n"
        "end Bad;\n"
    )
    with caplog.at_level(logging.WARNING, logger="orchestrator.compiler.rumoca_front"):
        built = build_library(
            folder, tmp_path / "out", variants=("me",), report=print, models=["Bad.M"]
        )
    assert [p.stem for p in built] == ["M"]
    warnings = [r.getMessage() for r in caplog.records if "call equation" in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("Bad/package.mo:13:7: Bad.M: call equation of function 'check'")


def test_construct_table_names_these_tests():
    assert {test for _, _, test in STATEMENTS_MORE} <= {
        n for n in globals() if n.startswith("test_")
    }
