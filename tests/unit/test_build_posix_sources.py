"""External C written for POSIX, as the Modelica Standard Library's ``ModelicaInternal.c`` is,
compiled from its source by the build, ``tests/data/posix_sources/CalendarLib``: a function of
a ``Library`` without a prebuilt library (``CalendarDays.c``) that calls ``gmtime_r``, a POSIX
function returning a pointer, which strict C99 (``-std=c99``) does not declare.

- ``DaySeeds``: the day of the year of a constant calendar time (a call of constant arguments,
  evaluated while the model is translated) and of a time 100 days later at each sample of
  0.25 s (called by the FMU in a when-equation), against Python's ``time.gmtime``, in all four
  variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation).
- ``BeforeEpoch``: the same function of a time before 1970, which it refuses by
  ``ModelicaError``, called while the model is translated: refused in one line with the
  function's message (the wrapper of the translation had no ``ModelicaError``, and the
  build's process ended: "symbol lookup error: ... undefined symbol: ModelicaError").

Called undeclared, ``gmtime_r`` was taken to return an ``int``: the pointer it returns was cut
to 32 bits and read, and the build's process ended in a segmentation fault while the model was
translated (MSL 4.0.0's ``Blocks.Examples.Noise.ActuatorWithNoise``, whose
``automaticGlobalSeed`` calls ``ModelicaInternal_getTime``, which calls ``localtime_r``); the C
sources are now compiled with the C library's POSIX declarations
(:data:`orchestrator.compiler.external_c.POSIX`).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from build_variants import VARIANTS, built_fmus
from fmpy import simulate_fmu

from orchestrator.compiler import build_library
from orchestrator.errors import BuildError

LIBRARY = Path(__file__).parents[1] / "data" / "posix_sources" / "CalendarLib"
START = 86400 * 40 + 3600  # s: the parameter start's default
CONSTANT = 86400 * 400 + 7  # s: the constant time


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("calendar"))


def _day(seconds: int) -> int:
    """Days since 1 January (C's ``tm_yday``) of a calendar time in UTC."""
    return time.gmtime(seconds).tm_yday - 1


def test_posix_function_of_a_library_compiled_from_its_source_in_four_variants(fmus):
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmus[variant, "DaySeeds"]),
            fmi_type=interface,
            stop_time=1.0,
            output_interval=0.1,
            output=["y1", "y2"],
        )
        times = result["time"]
        away = abs(4 * times - (4 * times).round()) > 1e-6  # not at a sample instant
        samples = (4 * times[away] + 1e-9).astype(int)  # the last sample at or before
        sampled = [_day(START + 86400 * 100 * k) for k in samples]
        label = f"{variant} {interface}"
        assert list(result["y1"]) == [_day(CONSTANT)] * len(times), label
        assert list(result["y2"][away]) == sampled, label


def test_modelica_error_while_translating_is_one_line(tmp_path):
    with pytest.raises(BuildError) as caught:
        build_library(
            LIBRARY, tmp_path, variants=("me",), report=print, models=["CalendarLib.BeforeEpoch"]
        )
    message = str(caught.value)
    assert "\n" not in message, message
    assert "package.mo:" in message and "CalendarLib.BeforeEpoch" in message, message
    assert "external function 'dayOfYear' failed while the model was translated" in message, message
    assert message.endswith("CalendarLib_dayOfYear: a time before 1970"), message
