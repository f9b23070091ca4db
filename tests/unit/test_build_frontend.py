"""The pymoca front end on what library authors write: a function in a package with an
algorithm section, nested for-loops, a matrix literal built from parameters, noEvent and
smooth, if-expressions; against a SciPy integration of the same equations."""

from __future__ import annotations

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu
from scipy.integrate import solve_ivp

from orchestrator.compiler import build_library
from orchestrator.errors import BuildError

LIBRARY = """package Lib "front end test library"
  package Math "helpers"
    function damping "quadratic damping force"
      input Real c "coefficient";
      input Real v "speed";
      output Real f "force";
    protected
      Real s;
    algorithm
      s := noEvent(abs(v));
      f := -c*s*v;
    end damping;
  end Math;
  model Chain "two masses between springs"
    parameter Real k1 = 2 "stiffness to the wall";
    parameter Real k2 = 3 "coupling stiffness";
    parameter Real K[2, 2] = {{k1 + k2, -k2}, {-k2, k2}} "stiffness matrix";
    parameter Real c = 0.4 "quadratic damping";
    parameter Real push = 0.5 "stiffness of the stop at x[1] < 0";
    Real x[2](each fixed = true, start = {1, -0.5}) "positions";
    Real v[2](each start = 0, each fixed = true) "speeds";
    Real Kx[2, 2] "spring force terms";
    output Real e "kinetic energy";
  equation
    for i in 1:2 loop
      for j in 1:2 loop
        Kx[i, j] = K[i, j]*x[j];
      end for;
    end for;
    for i in 1:2 loop
      der(x[i]) = v[i];
    end for;
    der(v[1]) = -Kx[1, 1] - Kx[1, 2] + Math.damping(c, v[1]) + (if x[1] < 0 then -push*x[1] else 0);
    der(v[2]) = -Kx[2, 1] - Kx[2, 2] + smooth(1, Math.damping(c, v[2]));
    e = 0.5*(v[1]^2 + v[2]^2);
  end Chain;
end Lib;
"""


def chain(t, y, k1=2.0, k2=3.0, c=0.4, push=0.5):
    x, v = y[:2], y[2:]
    K = np.array([[k1 + k2, -k2], [-k2, k2]])
    a = -K @ x - c * np.abs(v) * v
    a[0] += -push * x[0] if x[0] < 0 else 0.0
    return np.concatenate([v, a])


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("frontend") / "Lib"
    folder.mkdir()
    (folder / "package.mo").write_text(LIBRARY)
    variants = ("fmi2", "fmi3")
    return build_library(
        folder, folder.parent / "fmus", backend="pymoca", report=lambda _: None, variants=variants
    )


@pytest.mark.parametrize("interface", ["ModelExchange", "CoSimulation"])
def test_library_constructs_match_scipy(fmus, interface):
    """Both FMI versions, both interfaces, 3 s: positions, speeds and the kinetic energy
    against SciPy's DOP853 at rtol 1e-12 (the FMUs integrate at 1e-10 / 1e-9)."""
    t = np.linspace(0, 3, 31)
    ref = solve_ivp(chain, (0, 3), [1.0, -0.5, 0.0, 0.0], "DOP853", t, rtol=1e-12, atol=1e-12)
    assert len(fmus) == 2
    for path in fmus:
        result = simulate_fmu(
            str(path),
            fmi_type=interface,
            stop_time=3.0,
            output_interval=0.1,
            relative_tolerance=1e-10,
            output=["x[1]", "x[2]", "v[1]", "v[2]", "e"],
        )
        got = np.column_stack([result[n] for n in ("x[1]", "x[2]", "v[1]", "v[2]")])
        np.testing.assert_allclose(got, ref.y.T, atol=1e-6, err_msg=str(path))
        energy = 0.5 * (ref.y[2] ** 2 + ref.y[3] ** 2)
        np.testing.assert_allclose(result["e"], energy, atol=1e-6)
    assert ref.y[0].min() < 0  # the if-expression's branch was taken


def test_unsupported_when_equation_names_file_and_line(tmp_path):
    text = LIBRARY.replace(
        "    e = 0.5*",
        "    when x[1] < 0 then\n      reinit(v[1], 0);\n    end when;\n    e = 0.5*",
    )
    folder = tmp_path / "Lib"
    folder.mkdir()
    (folder / "package.mo").write_text(text)
    with pytest.raises(BuildError) as err:
        build_library(folder, tmp_path / "fmus", backend="pymoca", report=lambda _: None)
    message = str(err.value)
    assert len(message.splitlines()) == 1
    assert message.startswith("Lib.Chain: unsupported Modelica construct when-equation at ")
    line = text.splitlines().index("    when x[1] < 0 then") + 1
    assert f" at Lib/package.mo:{line};" in message


BOUNDED = """package Bounded "min and max through pymoca"
  type Rate = Real(unit = "1/s", min = 0, max = 100) "Rate of decay";
  model Decay "x' = -k x, z' = -r z"
    parameter Real k(min = 0.5, max = 4) = 2 "Decay rate of x";
    parameter Rate r = 1 "Decay rate of z";
    parameter Real c(min = k) = 3 "Gain of y; its bound depends on k: not declared";
    Real x(start = 1, min = 0, max = 1) "Decaying state";
    Real z(start = 1) "Unbounded state";
    output Real y "Scaled state";
  equation
    der(x) = -k*x;
    der(z) = -r*z;
    y = c*x;
  end Decay;
end Bounded;
"""


def test_bounds_reach_the_model_descriptions(tmp_path):
    """A parameter's, a type's and a state's numeric min and max in FMI 3.0 and 2.0 (as FMPy
    reads them); the bound in a parameter is left out."""
    folder = tmp_path / "Bounded"
    folder.mkdir()
    (folder / "package.mo").write_text(BOUNDED)
    built = build_library(
        folder, tmp_path / "fmus", backend="pymoca", report=lambda _: None, variants=("me", "fmi2")
    )
    assert len(built) == 2
    for path in built:
        variables = read_model_description(path).modelVariables
        declared = {v.name: (v.min, v.max) for v in variables if (v.min, v.max) != (None, None)}
        assert declared == {"k": ("0.5", "4.0"), "r": ("0.0", "100.0"), "x": ("0.0", "1.0")}
