"""Asserts that hold at events, and ``pre()`` in initialization mode.

An assert in a when-statement or a when-equation holds while its branch is active (Modelica
Language Specification 3.6, Sec. 8.3.7): the FMU returns an error status with the assert's
message at the event where it fails, and not before or after from values that only hold
between events. ``pre(v)`` before the first event update (after the importer enters
initialization mode, before it leaves it) is ``v``'s start value (Sec. 8.6), as the event
update on leaving initialization mode then starts from.

``tests/data/event_statements/EventLib``: an assert on the state at samples (``SampledCheck``,
x = exp(-t) below 1/2 first at the sample 0.75 s; a warning-level assert beside it that only
the log would show); an assert on ``pre`` of the count (``CountLimit``, the fourth sample,
1 s); an assert in a when-equation reading the value the branch assigns (``LevelCheck``,
x = 1.5 t passes 0.9 at 0.6 s); a hysteresis whose output reads ``pre`` of a Boolean with
start value true (``HeldOutput``). References are those instants and values by hand; every
model in all four variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation): the failing
event to 1e-8 s (a run to 1e-8 s before it ends normally, one to 1e-8 s after it stops with
the message), values to 1e-6 (the solver's relative tolerance is 1e-10).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, assert_agrees_in_four_variants, built_fmus, fmpy_messages
from fmpy import extract, instantiate_fmu, read_model_description, simulate_fmu

LIBRARY = Path(__file__).parents[1] / "data" / "event_statements" / "EventLib"
STEP = 0.0131  # s, output grid: meets no sample instant


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("event_statements"))


def grid(stop: float) -> np.ndarray:
    return STEP * np.arange(int(stop / STEP) + 1)


def run_to(fmu: Path, interface: str, stop: float) -> tuple[bool, list[bytes]]:
    """Whether a run of ``fmu`` to ``stop`` s ends normally, and the messages it logged."""
    with fmpy_messages() as (messages, logger):
        try:
            simulate_fmu(
                str(fmu),
                fmi_type=interface,
                stop_time=stop,
                output_interval=min(STEP, stop),
                relative_tolerance=1e-10,
                logger=logger,
            )
        except Exception:  # FMPy raises on the FMU's error status
            return False, messages
    return True, messages


def assert_fails_at(fmu_of, label: str, instant: float, message: str) -> None:
    """In each variant, a run to 1e-8 s before ``instant`` ends normally; one to 1e-8 s after
    it stops with ``message`` logged."""
    for variant, interface in VARIANTS:
        ended, logged = run_to(fmu_of(variant), interface, instant - 1e-8)
        assert ended, (label, variant, interface, logged)
        assert not any(message.encode() in m for m in logged), (label, variant, interface)
        ended, logged = run_to(fmu_of(variant), interface, instant + 1e-8)
        assert not ended, (label, variant, interface)
        assert any(message.encode() in m for m in logged), (label, variant, interface, logged)


def test_assert_in_a_when_statement_fails_at_its_sample(fmus):
    times = grid(0.7)
    reference = {"x": np.exp(-times), "n": np.floor(times / 0.25)}
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "SampledCheck")], reference, times, "SampledCheck"
    )
    # exp(-0.5) = 0.61 holds, exp(-0.75) = 0.47 fails; the warning (x > 0.9, failing from
    # the first sample on) stops nothing
    assert_fails_at(
        lambda variant: fmus[(variant, "SampledCheck")], "SampledCheck", 0.75, "x fell below"
    )


def test_assert_on_pre_in_a_when_statement(fmus):
    # pre(n) < 3 holds at the samples 0.25, 0.5 and 0.75 s (pre(n) = 0, 1, 2), fails at 1 s
    assert_fails_at(
        lambda variant: fmus[(variant, "CountLimit")], "CountLimit", 1.0, "passed its limit"
    )


def test_assert_in_a_when_equation_reads_what_its_branch_assigns(fmus):
    times = grid(0.59)
    reference = {"x": 1.5 * times, "tReached": np.zeros_like(times)}
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "LevelCheck")], reference, times, "LevelCheck"
    )
    # x = 1.5 t reaches 0.9 at 0.6 s, where tReached = 0.6 fails tReached < 0.5
    assert_fails_at(
        lambda variant: fmus[(variant, "LevelCheck")], "LevelCheck", 0.6, "level reached late"
    )


def _level_around_initialization(fmu: Path, interface: str, folder: Path) -> tuple[float, float]:
    """``level`` read in initialization mode and just after leaving it."""
    description = read_model_description(str(fmu))
    reference = next(v.valueReference for v in description.modelVariables if v.name == "level")
    unzipped = extract(str(fmu), unzipdir=folder)
    instance = instantiate_fmu(unzipped, description, fmi_type=interface)
    try:
        if description.fmiVersion == "2.0":
            instance.setupExperiment(startTime=0.0)
            instance.enterInitializationMode()
            during = instance.getReal([reference])[0]
            instance.exitInitializationMode()
            after = instance.getReal([reference])[0]
        else:
            instance.enterInitializationMode(startTime=0.0)
            during = instance.getFloat64([reference])[0]
            instance.exitInitializationMode()
            after = instance.getFloat64([reference])[0]
        instance.terminate()
    finally:
        instance.freeInstance()
        shutil.rmtree(unzipped, ignore_errors=True)
    return during, after


def test_pre_in_initialization_mode_is_the_start_value(fmus, tmp_path):
    for variant, interface in VARIANTS:
        during, after = _level_around_initialization(
            fmus[(variant, "HeldOutput")], interface, tmp_path / f"{variant}{interface}"
        )
        # pre(high) = high.start = true before the first event update; that update finds
        # high = (0 > 2 or true and 0 > 1) = false and reads it in the next pass
        assert (during, after) == (1.0, 0.0), (variant, interface)
    times = grid(3.0)
    # high turns on at x = t = 2 and stays on (x > 1); level = pre(high) is high between
    # events
    reference = {"level": (times > 2.0).astype(float), "x": times}
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "HeldOutput")], reference, times, "HeldOutput"
    )
