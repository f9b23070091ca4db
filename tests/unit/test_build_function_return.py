"""Build: ``return`` statements in functions (Modelica Language Specification 3.6, Sec.
11.2.9), as the MSL writes them: an early return in a branch that depends on the inputs
(``clippedSquare``), one in a branch decided when the model is translated (``weightedSum``
over no weights) and a last statement ``return`` (MSL's ``OpAmpDetailed`` limiters,
``limitedCurrent``). ``tests/data/function_return/ReturnLib`` is checked in all four variants
(FMI 3.0 and 2.0, Model Exchange and Co-Simulation) against the integral and values written
by hand, to 1e-6: CVode at 1e-10 in FMPy for Model Exchange, the FMUs' Dormand-Prince at 1e-9
for Co-Simulation, each far below it on this smooth-but-for-two-kinks integrand.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus
from fmpy import simulate_fmu

from orchestrator.compiler import build_library
from orchestrator.errors import BuildError

LIBRARY = Path(__file__).parents[1] / "data" / "function_return" / "ReturnLib"
TIMES = np.linspace(0.0, 2.0, 9)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    """The library's one model, by variant."""
    built = built_fmus(LIBRARY, tmp_path_factory.mktemp("returns"))
    return {variant: fmu for (variant, _), fmu in built.items()}


def clipped_integral(t: float) -> float:
    """Integral from 0 to t of min((s - 1)^2, 0.25) ds."""
    if t <= 0.5:
        return 0.25 * t
    if t <= 1.5:
        return 0.125 + ((t - 1) ** 3 + 0.125) / 3
    return 0.125 + 0.25 / 3 + 0.25 * (t - 1.5)


def test_return_ends_the_function_in_four_variants(fmus):
    """x' = clippedSquare(time - 1, 0.5): the early return holds 0.25 where |time - 1| > 0.5
    (without it, the square would follow and x(2) would be 2/3 instead of 0.4583);
    limitedCurrent(0, 3 (time - 1), 2, 1) is the clipped line min(max(1.5 (time - 1), -1), 1);
    weightedSum is 3 time, and 0 over no weights."""
    reference = {
        "x": np.array([clipped_integral(t) for t in TIMES]),
        "i": np.clip(1.5 * (TIMES - 1), -1, 1),
        "s": 3 * TIMES,
        "none": 0 * TIMES,
    }
    assert_agrees_in_four_variants(fmus.get, reference, TIMES, "ReturnLib")


def test_return_in_an_algorithm_section_is_refused_in_one_line(tmp_path):
    """A ``return`` outside a function is no Modelica: refused in one line naming the model,
    never a traceback."""
    folder = tmp_path / "Bad"
    folder.mkdir()
    (folder / "package.mo").write_text(
        "package Bad\n  model M\n    Real y;\n  algorithm\n    y := time;\n    return;\n"
        "  end M;\nend Bad;\n"
    )
    with pytest.raises(BuildError) as refused:
        build_library(folder, tmp_path / "out", report=lambda _: None, variants=("me",))
    message = str(refused.value)
    assert "\n" not in message and "Bad.M" in message and "return" in message, message


SAME_NAMES = """package Twins "two blocks, each with a protected function named position"
  block First "y = u[1]"
    input Real u[2];
    output Real y;
  protected
    function position
      input Real q[2];
      output Real p;
    algorithm
      p := q[1];
    end position;
  equation
    y = position(u);
  end First;
  block Sum "y = u[1] + u[2]"
    input Real u[2];
    output Real y;
  protected
    function position
      input Real q[2];
      output Real p;
    algorithm
      p := q[1] + q[2];
    end position;
  equation
    y = position(u);
  end Sum;
  model M
    First first(u = {time, 1});
    Sum total(u = {time, 1});
  end M;
end Twins;
"""


def test_functions_of_one_name_in_two_classes_each_keep_their_own(tmp_path):
    """rumoca 0.10 keeps one definition per function name: ``first.y`` came out as
    ``time + 1``, computed by ``Sum``'s ``position``, in a silently wrong FMU, and was then
    refused at the call. The build now gives rumoca each class's function under a name of its
    own (orchestrator.compiler.class_rewrites): first.y = time and total.y = time + 1, to
    CVode's 1e-10 (both are algebraic: exact up to the output grid's interpolation)."""
    folder = tmp_path / "Twins"
    folder.mkdir()
    (folder / "package.mo").write_text(SAME_NAMES)
    (fmu,) = build_library(
        folder, tmp_path / "out", report=lambda _: None, variants=("me",), models=["M"]
    )
    result = simulate_fmu(str(fmu), stop_time=1.0, output=["first.y", "total.y"])
    assert np.max(np.abs(result["first.y"] - result["time"])) < 1e-10
    assert np.max(np.abs(result["total.y"] - result["time"] - 1)) < 1e-10


def test_functions_of_one_name_not_renamed_stay_refused(tmp_path):
    """Where the function's name also names something else in its class (an input of a
    function declared there, here in both classes), the build renames neither: the call
    resolved to the other class's function is refused in one line, at its place."""
    shadow = (
        "    end position;\n    function twice\n      input Real position;\n"
        "      output Real y;\n    algorithm\n      y := 2*position;\n    end twice;\n"
    )
    shadowed = SAME_NAMES.replace("    end position;\n", shadow)
    assert shadowed != SAME_NAMES
    folder = tmp_path / "Twins"
    folder.mkdir()
    (folder / "package.mo").write_text(shadowed)
    with pytest.raises(BuildError) as refused:
        build_library(
            folder, tmp_path / "out", report=lambda _: None, variants=("me",), models=["M"]
        )
    message = str(refused.value)
    assert "\n" not in message, message
    assert re.match(
        r"Twins/package\.mo:\d+:\d+: Twins\.M: unsupported Modelica construct ", message
    )
    assert "'position', one of two functions of that name in different classes" in message
