"""The fallbacks of a nonlinear loop's solvers run only where the attempts before them failed.

``orchestrator/compiler/fallbacks.py``: Newton on the whole loop and Newton from the start
values, computed at every evaluation before, are branches of the generated code now, as the
line search and Katzenelson's method were. MSL's ``HeatingMOSInverter`` spent 85 ms per
evaluation of its derivatives in fallbacks that did not converge beside a first attempt that
did.
"""

from __future__ import annotations

import math

import casadi as ca
import pytest

from orchestrator.compiler.causalize import Loop, causalize
from orchestrator.compiler.fallbacks import only_where


def test_only_where_gives_the_function_where_wanted_and_nan_elsewhere():
    x = ca.MX.sym("x")
    square = ca.Function("square", [x], [x * x])
    wanted, value = ca.SX.sym("wanted"), ca.SX.sym("value")
    branch = ca.Function(
        "branch", [wanted, value], [only_where("square_if", square, wanted, value)]
    )
    assert float(branch(1, 3.0)) == 9.0
    assert math.isnan(float(branch(0, 3.0)))


def _loop() -> tuple[list[ca.SX], list[ca.SX], ca.SX, list[Loop], list]:
    """x = exp(-y), y = x^3 + a: a loop of two equations in the parameter a."""
    x, y, a = ca.SX.sym("x"), ca.SX.sym("y"), ca.SX.sym("a")
    loops: list[Loop] = []
    assignments = causalize([x - ca.exp(-y), y - x**3 - a], [x, y], "m", {}, loops)
    return [x, y], [s.expression for s in assignments], a, loops, assignments


def test_fallbacks_are_branches_and_the_loop_is_solved(tmp_path, monkeypatch):
    _, expressions, a, loops, assignments = _loop()
    assert len(loops) == 1
    guesses = ca.vertcat(*loops[0].guesses)
    solution = ca.Function("solution", [a, guesses], [ca.vertcat(*expressions)])
    # the model's expressions call Newton from the last solution and, for the fallbacks, only
    # the branches around them (expanded, the switch called every solver at every evaluation)
    assert set(solution.get_function()) == {
        "loop0_newton",
        "loop0_whole_fallback",
        "loop0_start_fallback",
        "loop0_line_search",
        "loop0_whole_line_search",
    }
    monkeypatch.chdir(tmp_path)
    generated = tmp_path / solution.generate("solution.c")
    assert "casadi_to_int(*arg[0])" in generated.read_text(encoding="utf-8")  # if (wanted)
    order = [s.unknown.name() for s in assignments]
    for start in (0.0, 5.0):  # the last solution near the root and far from it
        values = ca.vertsplit(solution(0.5, start))
        found = dict(zip(order, [float(v) for v in values], strict=True))
        x, y = found["x"], found["y"]
        assert x == pytest.approx(math.exp(-y), abs=1e-12)
        assert y == pytest.approx(x**3 + 0.5, abs=1e-12)
