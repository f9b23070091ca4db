"""The scan of algorithm sections in source texts (``source_algorithms``) and the places of
statements rumoca 0.10 refuses that it gives (``statement_places``), against sections and
positions read off the texts by hand."""

from __future__ import annotations

from orchestrator.compiler.source_algorithms import source_algorithms
from orchestrator.compiler.statement_places import loop_beyond_elements, refused_statement

LIBRARY = """package P
  type Level = Real(unit = "m");
  function f
    input Real u;
    output Real y;
  algorithm
    y := 2 * u;
  end f;
  model M
    Real x[2];
    Integer n(start = 0);
  initial algorithm
    n := 1;
  algorithm
    for i in 1:2 loop
      x[i] := f(i);
    end for;
    x[1] := x[end] + g(function h(a = 1));
  equation
    der(n) = 0;
  algorithm
  annotation (Documentation(info = "none"));
  end M;
end P;
"""


def test_sections_with_their_class_kind_initial_flag_and_statements():
    found = [
        (s.class_kind, s.initial, LIBRARY[s.start : s.end]) for s in source_algorithms(LIBRARY)
    ]
    assert found == [
        ("function", False, "\n    y := 2 * u;"),
        ("model", True, "\n    n := 1;"),
        (
            "model",
            False,
            "\n    for i in 1:2 loop\n      x[i] := f(i);\n    end for;"
            "\n    x[1] := x[end] + g(function h(a = 1));",
        ),
    ]  # the empty section before the annotation holds no statement
    assert [s.of_model for s in source_algorithms(LIBRARY)] == [False, False, True]


def test_call_statement_placed_past_an_end_subscript_and_a_function_argument():
    text = LIBRARY.replace("  equation\n", "    print(x);\n  equation\n")
    assert refused_statement(text, nested_when=False) == text.index("print(x)")
    assert refused_statement(LIBRARY, nested_when=False) is None
    expression = "      x[i] := if i > 1 then f(i) else g(i);\n"
    text = text.replace("      x[i] := f(i);\n", expression)
    assert refused_statement(text, nested_when=False) == text.index("print(x)")


def test_nested_when_placed_in_any_section_and_not_for_a_when_at_top():
    text = LIBRARY.replace("      x[i] := f(i);\n", "      when n > i then\n      end when;\n")
    assert refused_statement(text, nested_when=True) == text.index("when n > i")
    top = "model M\n  Real x;\nalgorithm\n  when time > 1 then\n    x := 1;\n  end when;\nend M;\n"
    assert refused_statement(top, nested_when=True) is None


def test_loop_beyond_element_assignments_placed_at_its_for():
    """A running value in a when-statement's loop (MSL's AD_Converter) and a branch in a loop
    are placed at their for; a loop of element assignments, if-expressions among them, and a
    function's loop are not."""
    converter = (
        "model AD\nalgorithm\n  for i in 1:N loop\n    y[i] := if c then 1 else 0;\n"
        "    v[i] := y[i];\n  end for;\n  when trig then\n    for i in 1:N loop\n"
        "      y[i] := if mod(z, 2) > 0 then 1 else 0;\n      z := div(z, 2);\n"
        "    end for;\n  end when;\nend AD;\n"
    )
    assert loop_beyond_elements(converter) == converter.index("for i", converter.index("when"))
    branch = "model B\nalgorithm\n  for i in 1:3 loop\n    if i > 1 then\n      w[i] := 1;\n"
    branch += "    end if;\n  end for;\nend B;\n"
    assert loop_beyond_elements(branch) == branch.index("for")
    function = "function F\n  output Real s;\nalgorithm\n  s := 0;\n  for i in 1:3 loop\n"
    function += "    s := s + i;\n  end for;\nend F;\n"
    assert loop_beyond_elements(function) is None
