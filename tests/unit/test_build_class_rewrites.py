"""Build: classes rumoca 0.10 misreads, given to it in an equivalent text
(orchestrator.compiler.class_rewrites). ``tests/data/class_rewrites`` holds ``RailLib`` (on
the library path: a slider whose position and velocity are declared in an encapsulated class
nested in the slider, which extends it, as the MSL's ``MassWithStopAndFriction``; two motion
sources in two packages, each with its own function ``position`` of a different input size,
as the MSL's ``Move`` and ``Move_w``) and the user's ``SlideLib`` with the same forms of its
own. Its model ``Rig`` is checked in all four variants (FMI 3.0 and 2.0, Model Exchange and
Co-Simulation) against the solutions written by hand, to 1e-6: CVode at 1e-10 in FMPy for
Model Exchange, the FMUs' Dormand-Prince at 1e-9 for Co-Simulation, far below it on these
smooth solutions. The rewrites themselves are checked on text: the new text, and every
position of the copy led back to the user's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus, one_line_refusal

from orchestrator.compiler.class_rewrites import hoisted_classes, renamed_functions
from orchestrator.compiler.source_rewrites import Rewrite

DATA = Path(__file__).parents[1] / "data" / "class_rewrites"
TIMES = np.linspace(0.0, 2.0, 9)

NESTED = """within Lib.Parts;
model Outer "x' = -k x"
  extends Inner;
  parameter Real k = 2;
  encapsulated partial model Inner
    Real x(start = 1, fixed = true);
  end Inner;
equation
  der(x) = -k*x;
end Outer;
"""

TWINS = """package Twins
  block A
    input Real u[2];
    output Real y = position(u);
  protected
    function position
      input Real q[2];
      output Real p;
    algorithm
      p := q[1];
    end position;
  end A;
  block B
    output Real y = position(2);
  protected
    function position
      input Real q;
      output Real p;
    algorithm
      p := q;
    end position;
    function twice "its input has the function's name: the function keeps its name"
      input Real position;
      output Real y;
    algorithm
      y := 2*position;
    end twice;
  end B;
  model M
    Real z = A.position({1, 2});
  end M;
end Twins;
"""


def test_a_nested_class_moves_after_its_enclosing_class_and_maps_back():
    """The nested class stands after ``end Outer;`` as ``Outer_Inner``, the extends clause
    names it, and each character of it in the new text leads back to its place in the user's
    text (its names to the user's names)."""
    edits, names = hoisted_classes(NESTED)
    rewrite = Rewrite(NESTED, edits)
    assert names == {"Outer_Inner": "Lib.Parts.Outer.Inner"}
    assert "extends Outer_Inner;" in rewrite.text
    assert "encapsulated partial model Inner" not in rewrite.text
    moved = rewrite.text.index("encapsulated partial model Outer_Inner")
    assert moved > rewrite.text.index("end Outer;")
    assert rewrite.text.rstrip().endswith("end Outer_Inner;")
    declaration = rewrite.text.index("Real x(start")
    assert rewrite.original_offset(declaration) == NESTED.index("Real x(start")
    assert rewrite.original_offset(moved) == NESTED.index("encapsulated")
    assert rewrite.original_offset(rewrite.text.index("der(x)")) == NESTED.index("der(x)")


def test_a_nested_class_that_is_not_encapsulated_stays():
    """A class that is not encapsulated sees the enclosing class's names: moved, it could see
    others, so it stays (and rumoca's refusal with it)."""
    assert hoisted_classes(NESTED.replace("encapsulated ", "")) == ([], {})


def test_functions_are_renamed_in_their_class_and_where_qualified():
    """Every function of a class that is no package gets a name of its own: A's ``position``
    with its calls, also the qualified one in M, and B's ``twice``; B's ``position`` keeps its
    name, as ``position`` also names an input of ``twice``."""
    edits, names = renamed_functions(TWINS)
    text = Rewrite(TWINS, edits).text
    assert names == {"position_Twins_A": "Twins.A.position", "twice_Twins_B": "Twins.B.twice"}
    assert "y = position_Twins_A(u);" in text
    assert "function position_Twins_A" in text and "end position_Twins_A;" in text
    assert "A.position_Twins_A({1, 2})" in text
    assert text.count("position_Twins_A") == 4
    assert (
        "output Real y = position(2);" in text
        and "    end position;\n    function twice_Twins_B" in text
    )


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    """SlideLib's Rig, by variant."""
    out = tmp_path_factory.mktemp("class_rewrites")
    built = built_fmus(DATA / "SlideLib", out, library_path=[DATA / "path"], models=["Rig"])
    return {variant: fmu for (variant, _), fmu in built.items()}


def test_nested_classes_and_functions_of_one_name_in_four_variants(fmus):
    """The slider (m = 2 kg, d = 4 N s/m, F = 8 N from rest): v = 2 (1 - exp(-2 t)),
    s = 2 t - (1 - exp(-2 t)); RailLib's Move, sin a quarter second ahead to second order,
    sin t + cos t / 4 - sin t / 32, beside Lead's first-order sin t + cos t / 2; SlideLib's
    Ramp 1 + 2 t and Total t + 5; the tank h = exp(-t/2). With one function per name, Move's
    and Lead's calls would reach one ``position`` (rumoca refused the call's shape)."""
    decay = np.exp(-2 * TIMES)
    reference = {
        "slider.v": 2 * (1 - decay),
        "slider.s": 2 * TIMES - (1 - decay),
        "move.s": np.sin(TIMES) + np.cos(TIMES) / 4 - np.sin(TIMES) / 32,
        "lead.s": np.sin(TIMES) + np.cos(TIMES) / 2,
        "ramp.y": 1 + 2 * TIMES,
        "total.y": TIMES + 5,
        "tank.h": np.exp(-TIMES / 2),
    }
    assert_agrees_in_four_variants(fmus.get, reference, TIMES, "SlideLib.Rig")


def test_a_nested_class_that_is_not_encapsulated_is_refused_in_one_line(tmp_path):
    """Left where it is, rumoca's reading stays wrong: refused in one line at the package,
    naming the construct."""
    message = one_line_refusal(
        tmp_path,
        """package Bad
  model M
    extends Inner;
    partial model Inner
      Real x(start = 1, fixed = true);
    equation
      der(x) = -x;
    end Inner;
  end M;
end Bad;
""",
    )
    assert message.startswith("Bad/package.mo"), message
    assert "Bad.M: unsupported Modelica construct class declared inside the class" in message
