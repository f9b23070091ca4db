"""The Modelica -> FMU build: causalization, clear errors, incremental rebuilds, units."""

from __future__ import annotations

import casadi as ca
import numpy as np
import pytest
from fmpy import simulate_fmu

from orchestrator.compiler import build_library
from orchestrator.compiler.causalize import CausalizationError, causalize
from orchestrator.compiler.units import parse_unit
from orchestrator.errors import BuildError
from orchestrator.fmi.fmu import FMU

TINY = """package Tiny "test library"
  model Mass "damped mass"
    parameter Real m(unit = "kg") = 2 "mass";
    parameter Real d(unit = "N.s2/m2") = 0.5 "quadratic damping";
    input Real F(unit = "N") "force";
    output Real v(start = 1, fixed = true, unit = "m/s") "speed";
  equation
    m*der(v) = F - d*v*abs(v);
  end Mass;
end Tiny;
"""


def write_library(folder, text):
    lib = folder / "Tiny"
    lib.mkdir(parents=True, exist_ok=True)
    (lib / "package.mo").write_text(text)
    return lib


def test_causalize_solves_linear_algebraic_loop():
    x, y, dz, z = (ca.SX.sym(n) for n in ("x", "y", "der_z", "z"))
    residuals = [x + y - 3 * z, x - y - 1, 2 * dz - x]
    assignments = causalize(residuals, [x, y, dz], "Loop")
    known: dict[str, float] = {"z": 1.0}
    for a in assignments:  # evaluation order: every assignment uses only earlier results
        names = [s.name() for s in ca.symvar(a.expression)]
        assert set(names) <= set(known)
        f = ca.Function("f", ca.symvar(a.expression), [a.expression])
        known[a.unknown.name()] = float(f(*[known[n] for n in names]))
    assert known == pytest.approx({"z": 1.0, "x": 2.0, "y": 1.0, "der_z": 1.0})


def test_causalize_solves_a_nonlinear_loop_by_newton_and_guards_it():
    """x + sin(y) = p, y = x^2: torn on x (it has a start value; y = x^2 follows), Newton's
    method from the guess solves it to round-off; where it has no root (x^2 + 1 = p < 1) the
    unknowns are NaN and the loop is not converged."""
    x, y, p = ca.SX.sym("x"), ca.SX.sym("y"), ca.SX.sym("p")
    loops = []
    assignments = causalize([x + ca.sin(y) - p, y - x * x], [x, y], "Loop", {"x": 0.5}, loops)
    assert [a.unknown.name() for a in assignments] == ["x", "y"] and len(loops) == 1
    assert "2 equation(s)" in loops[0].text and "sin" in loops[0].text
    assert [v.name() for v in loops[0].unknowns] == ["x"] and loops[0].starts == (0.5,)
    guesses = ca.vertcat(*loops[0].guesses)
    outputs = [a.expression for a in assignments] + [loops[0].converged]
    values = ca.Function("f", [p, guesses], outputs)
    xs, ys, converged = (float(v) for v in values(1.0, loops[0].starts))
    assert xs + np.sin(ys) == pytest.approx(1.0, abs=1e-14) and ys == pytest.approx(xs * xs)
    assert converged == 1.0
    no_root = causalize([x * x + 1 - p], [x], "NoRoot")[0].expression
    assert np.isnan(float(ca.Function("g", [p], [no_root])(0.5)))


def test_newton_of_a_loop_starts_from_its_guesses():
    """y^3 - y = p has three roots for |p| < 2/(3 sqrt 3); Newton's iteration from the guess
    symbols finds the one near the guess (the FMU passes the last solution): for p = 0.1 the
    roots near 1, 0 and -1 of y^3 - y - 0.1 = 0, checked against NumPy's polynomial roots."""
    y, p = ca.SX.sym("y"), ca.SX.sym("p")
    loops = []
    (assignment,) = causalize([y**3 - y - p], [y], "Cubic", {"y": 2.0}, loops)
    solve = ca.Function("f", [p, ca.vertcat(*loops[0].guesses)], [assignment.expression])
    roots = sorted(np.roots([1.0, 0.0, -1.0, -0.1]).real)
    for guess, root in zip((-1.2, 0.0, 1.2), roots, strict=True):
        assert float(solve(0.1, guess)) == pytest.approx(root, abs=1e-12)


def test_causalize_rejects_singular_system():
    x, y = ca.SX.sym("x"), ca.SX.sym("y")
    with pytest.raises(CausalizationError, match="structurally singular"):
        causalize([x - 1, 2 * x - 3], [x, y], "Singular")


def test_tiny_library_exports_a_correct_fmu(tmp_path):
    """The analytic solution of m v' = F - d v|v| with F = 0: v(t) = v0 / (1 + d v0 t / m)."""
    from fmpy import simulate_fmu

    lib = write_library(tmp_path, TINY)
    (fmu,) = build_library(lib, tmp_path / "fmus", report=lambda _: None, variants=("me",))
    result = simulate_fmu(str(fmu), stop_time=5.0, relative_tolerance=1e-10)
    assert result["v"][-1] == pytest.approx(1 / (1 + 0.5 * 5 / 2), rel=1e-6)
    assert FMU(fmu).variables["d"].unit == "N.s2/m2"


def test_build_is_incremental(tmp_path):
    lib = write_library(tmp_path, TINY)
    out = tmp_path / "fmus"
    messages = []
    (fmu,) = build_library(lib, out, report=messages.append, variants=("me",))
    first = fmu.stat().st_mtime_ns
    build_library(lib, out, report=messages.append, variants=("me",))
    assert fmu.stat().st_mtime_ns == first
    assert messages[-2].startswith("up to date")  # before the summary line
    (lib / "package.mo").write_text(TINY.replace("= 0.5", "= 0.7"))
    build_library(lib, out, report=messages.append, variants=("me",))
    assert messages[-2].startswith("building")  # before the summary line
    assert FMU(fmu).variables["d"].start == 0.7


def test_unsupported_construct_names_model_file_and_construct(tmp_path):
    lib = write_library(tmp_path, TINY.replace("d*v*abs(v)", "d*v*abs(pre(v))"))
    with pytest.raises(BuildError) as err:
        build_library(lib, tmp_path / "fmus", report=lambda _: None)
    message = str(err.value)
    assert "Tiny.Mass" in message and "'pre(...)'" in message and "Tiny/package.mo:8" in message


@pytest.mark.parametrize("backend", ["rumoca", "pymoca"])
def test_nonlinear_loop_in_model_is_solved_in_the_fmu(tmp_path, backend):
    """a = sin(a)/2 + F, a nonlinear loop in one equation: the FMU's Newton iteration gives
    the root at every output (checked against the equation itself, to round-off)."""
    text = TINY.replace("  equation\n", "    output Real a;\n  equation\n    a = 0.5*sin(a) + F;\n")
    lib = write_library(tmp_path, text)
    built = build_library(
        lib, tmp_path / "fmus", backend=backend, variants=("me",), report=lambda _: None
    )
    signals = np.array([(0.0, 0.3), (1.0, 2.0)], dtype=[("time", float), ("F", float)])
    result = simulate_fmu(
        str(built[0]), stop_time=1.0, output_interval=0.1, input=signals, output=["a", "F"]
    )
    residual = result["a"] - 0.5 * np.sin(result["a"]) - result["F"]
    assert np.max(np.abs(residual)) < 1e-12 and np.ptp(result["a"]) > 1.0


def test_openmodelica_backend_says_omc_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    lib = write_library(tmp_path, TINY)
    with pytest.raises(BuildError, match="'omc' was not found on PATH"):
        build_library(lib, tmp_path / "fmus", backend="openmodelica", report=lambda _: None)


@pytest.mark.parametrize(
    ("unit", "factor", "dims"),
    [
        ("N", 1.0, {"kg": 1, "m": 1, "s": -2}),
        ("N.s2/m2", 1.0, {"kg": 1, "m": -1}),
        ("kg.m2", 1.0, {"kg": 1, "m": 2}),
        ("us", 1e-6, {"s": 1}),
        ("N.s/(us.m)", 1e6, {"kg": 1, "s": -2}),
        ("rad/s", 1.0, {"rad": 1, "s": -1}),
    ],
)
def test_unit_parsing(unit, factor, dims):
    got_factor, got_dims = parse_unit(unit)
    assert got_factor == pytest.approx(factor)
    assert got_dims == dims


def test_unknown_unit_is_an_error():
    with pytest.raises(BuildError, match="unknown unit symbol 'furlong'"):
        parse_unit("furlong/s")
