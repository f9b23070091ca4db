"""Build: algorithm sections in models and blocks that assign several variables and read a
variable after assigning it (Modelica Language Specification 3.6, Sec. 11.1): the statements run
in order, each assigned variable entering with its start value, relations giving events.

``tests/data/algorithm_sections/AlgLib`` (blocks and examples in files of their own) is checked
in all four variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation) against the values
the statements give by hand, to 1e-6: CVode at 1e-10 in FMPy for Model Exchange, the FMUs'
Dormand-Prince at 1e-9 for Co-Simulation, the jumps and kinks at the relations' events
located far below that (no sample falls on an event time).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus, one_line_refusal
from fmpy import read_model_description

LIBRARY = Path(__file__).parents[1] / "data" / "algorithm_sections" / "AlgLib"
TIMES = np.linspace(0.0, 2.1, 15)  # steps of 0.15 s: no sample at an event (0.4 s, 0.5 s)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("algorithms"))


def test_algorithm_sections_assigning_several_variables_in_four_variants(fmus):
    """Split: y = 2t, z = 2t + 1 doubled above t = 0.5 (z reads the y just assigned, then
    itself). Staged: w = [t, 2t, min(3t, 1.2)], total = 6t (sum read before the clipping).
    Braked: x' = 2 below x = 1, 0.5 above: x = 2t to t = 0.5, then 1 + 0.5 (t - 0.5), the
    Integer phase 1 then 2. StartEntry: z reads y before the section assigns it, so y's start
    value 2 (Sec. 11.1.2), y = t."""
    t = TIMES
    cases = {
        "Split": {"gain.y": 2 * t, "gain.z": np.where(t > 0.5, 2, 1) * (2 * t + 1)},
        "Staged": {
            "stages.w[1]": t,
            "stages.w[2]": 2 * t,
            "stages.w[3]": np.minimum(3 * t, 1.2),
            "stages.total": 6 * t,
        },
        "Braked": {
            "x": np.where(t <= 0.5, 2 * t, 1 + 0.5 * (t - 0.5)),
            "rate": np.where(t <= 0.5, 2.0, 0.5),
            "phase": np.where(t <= 0.5, 1.0, 2.0),
        },
        "StartEntry": {"y": t, "z": 2 + 0 * t},
    }
    for model, reference in cases.items():
        fmu_of = lambda variant, m=model: fmus[(variant, m)]  # noqa: E731
        assert_agrees_in_four_variants(fmu_of, reference, t, model)


def test_block_with_an_algorithm_section_exports_its_connectors(fmus):
    """The blocks' inputs and outputs are the FMUs' (Stages' array output as its elements),
    and the relations of a section give the FMU event indicators (Braked's x > 1)."""
    causality = {
        v.name: v.causality
        for v in read_model_description(fmus[("me", "SplitGain")]).modelVariables
    }
    assert (causality["u"], causality["y"], causality["z"]) == ("input", "output", "output")
    stages = read_model_description(fmus[("fmi2", "Stages")])
    outputs = {v.name for v in stages.modelVariables if v.causality == "output"}
    assert outputs == {"w[1]", "w[2]", "w[3]", "total"}
    for variant in ("me", "fmi2"):
        assert read_model_description(fmus[(variant, "Braked")]).numberOfEventIndicators >= 1


def _place(text: str, snippet: str) -> str:
    """``line:column`` (from 1) where ``snippet`` first starts in ``text``."""
    offset = text.index(snippet)
    return f"{text.count(chr(10), 0, offset) + 1}:{offset - text.rfind(chr(10), 0, offset)}"


LATCH = """package Bad
  model First "a section that builds, wrapped before the refused one in the same file"
    Real y;
    Real z;
  algorithm
    y := 2*time;
    z := y + 1;
  end First;
  model M
    Real y;
    Boolean b;
  algorithm
    y := 2*time;
    if y > 1 then
      b := true;
    end if;
  end M;
end Bad;
"""


def test_discrete_variable_keeping_its_pre_value_is_refused_at_its_place(tmp_path):
    """b keeps pre(b) where y <= 1 (Sec. 11.1.2: a latch); the build keeps pre values only in
    when-statements, so it refuses, at b's assignment in the user's file: its place is the
    same as without the first model's section before it."""
    message = one_line_refusal(tmp_path, LATCH)
    place = _place(LATCH, "b := true")
    assert message.startswith(f"Bad/package.mo:{place}: Bad.M: unsupported Modelica construct"), (
        message
    )
    assert "discrete variable 'b'" in message and "pre(b)" in message, message


READ_FIRST = LATCH.replace("    y := 2*time;\n    if", "    y := if b then 1 else 2*time;\n    if")


def test_discrete_variable_read_before_assigned_is_refused_at_the_read(tmp_path):
    message = one_line_refusal(tmp_path, READ_FIRST)
    place = _place(READ_FIRST, "b then")
    assert message.startswith(f"Bad/package.mo:{place}: Bad.M: "), message
    assert "discrete variable 'b'" in message, message


BRANCHED = """package Bad
  model M
    Real w[3];
    Real last;
  algorithm
    for i in 1:3 loop
      if i > 1 then
        w[i] := i*time;
      else
        w[i] := 0;
      end if;
    end for;
    last := w[3];
  end M;
end Bad;
"""


def test_branch_in_a_loop_is_refused_in_our_words(tmp_path):
    """rumoca 0.10 translates a loop in such a section only where it assigns array elements
    whole: the refusal names its place, the construct and the way to write it, not rumoca's
    terms."""
    message = one_line_refusal(tmp_path, BRANCHED)
    assert message.startswith(
        "Bad/package.mo:6:5: Bad.M: unsupported Modelica construct for-loop"
    ), message
    assert "if-expressions" in message and "tensor" not in message, message
