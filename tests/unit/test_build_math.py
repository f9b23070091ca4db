"""Build: Modelica's division and elementary functions, and outputs that depend on time only."""

from __future__ import annotations

import numpy as np
import pytest

from orchestrator.compiler import build_library
from orchestrator.fmi.fmu import FMU

FUNCTIONS = """package Tiny "test library"
  model Functions "division, inverse trigonometric functions, an output that follows time"
    parameter Real w(unit = "rad/s") = 2 "angular frequency";
    input Real x(start = 0.3) "argument";
    output Real quotient "x/(1 + x^2)";
    output Real angles(unit = "rad") "asin(x) + 2 acos(x) + 3 atan(x) + 4 atan2(x, -1)";
    output Real wave "sin(w time)";
  equation
    quotient = x/(1 + x^2);
    angles = asin(x) + 2*acos(x) + 3*atan(x) + 4*atan2(x, -1);
    wave = sin(w*time);
  end Functions;
end Tiny;
"""


@pytest.fixture(scope="module")
def functions(tmp_path_factory):
    folder = tmp_path_factory.mktemp("math") / "Tiny"
    folder.mkdir()
    (folder / "package.mo").write_text(FUNCTIONS)
    (path,) = build_library(folder, folder.parent / "fmus", report=lambda _: None, variants=("me",))
    fmu = FMU(path)
    instance = fmu.instantiate("f")
    instance.initialize(0.0)
    yield instance
    instance.terminate()
    fmu.close()


@pytest.mark.parametrize("x", [-0.9, 0.0, 0.3, 1.0])
def test_division_and_inverse_trigonometric_functions(functions, x):
    """The FMU's values equal NumPy's to rounding (1e-14)."""
    port = functions.port(["x"])
    port.values[:] = x
    functions.write(port)
    quotient, angles = functions.get_values(["quotient", "angles"])
    expected = np.arcsin(x) + 2 * np.arccos(x) + 3 * np.arctan(x) + 4 * np.arctan2(x, -1)
    assert quotient == pytest.approx(x / (1 + x * x), abs=1e-14)
    assert angles == pytest.approx(expected, abs=1e-14)


def test_outputs_follow_time_without_other_changes(functions):
    """Setting the time alone refreshes an output that depends on time: sin(2 t) to 1e-14."""
    for t in (0.0, 0.4, 1.3):
        functions.set_time(t)
        assert functions.get_values(["wave"])[0] == pytest.approx(np.sin(2 * t), abs=1e-14)
