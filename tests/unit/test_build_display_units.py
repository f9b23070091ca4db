"""Display units (Modelica's ``displayUnit``) in the model descriptions of built FMUs.

``tests/data/display_units/DisplayLib`` declares SI types as ``Modelica.Units.SI`` does
(``final unit = "K", displayUnit = "degC"``; rev/min, bar, km/h, deg) and a shaft model using
them. Each variable keeps its value in its unit (checked against the analytic solution in all
four variants, FMI 3.0 and 2.0, Model Exchange and Co-Simulation, to 1e-6: CVode at 1e-10 in
FMPy, the FMUs' own Dormand-Prince at 1e-9), and the description declares the display unit
with the conversion FMI defines, ``display = factor*value + offset`` (FMI 2.0 Sec. 2.2.2,
FMI 3.0 Sec. 2.4.3). The factors are checked against the definitions of the units, not the
code's unit table: 1 bar = 1e5 Pa, 1 rev/min = 2*pi/60 rad/s, 1 km/h = 1/3.6 m/s,
1 deg = pi/180 rad, degC = K - 273.15, to a relative 1e-15 (one rounding of the factor).
A display unit that does not convert from the unit by a factor and an offset (a reciprocal,
one not known, one without a unit) is left out with a warning naming the variable.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS
from fmpy import read_model_description, simulate_fmu
from fmpy.validation import validate_fmu
from modelica_support import DISPLAY_UNITS

from orchestrator.compiler import build_library
from orchestrator.compiler.units import display_scale

LIBRARY = Path(__file__).parents[1] / "data" / "display_units" / "DisplayLib"
TAU, T_AMB, T0, W0, P0, V = 0.5, 283.15, 303.15, 100.0, 2e5, 1.5  # the model's values
STOP = 2.0
TIMES = np.linspace(0.05, STOP, 40)

# (unit, display unit) -> (factor, offset) from the units' definitions
EXPECTED = {
    ("K", "degC"): (1.0, -273.15),
    ("rad/s", "rev/min"): (60 / (2 * math.pi), 0.0),
    ("Pa", "bar"): (1 / 1e5, 0.0),
    ("m/s", "km/h"): (3.6, 0.0),
    ("rad", "deg"): (180 / math.pi, 0.0),
}
DISPLAYED = {"T": "degC", "T_amb": "degC", "w": "rev/min", "phi": "deg", "p": "bar"}
DISPLAYED |= {"p0": "bar", "v": "km/h"}
LEFT_OUT = {"f": "Hz", "L": "furlong", "n": "rev/min"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The FMUs by (variant, model) and the warnings the build gave."""
    out = tmp_path_factory.mktemp("display_units")
    warnings: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            warnings.append(record.getMessage())

    logger = logging.getLogger("orchestrator.compiler.flat_dae")
    handler = Collect(logging.WARNING)
    logger.addHandler(handler)
    try:
        paths = build_library(LIBRARY, out, backend="rumoca", report=lambda _: None)
    finally:
        logger.removeHandler(handler)
    fmus = {(p.parent.name if p.parent != out else "me", p.stem): p for p in paths}
    return fmus, warnings


@pytest.mark.parametrize(("variant", "interface"), VARIANTS)
def test_values_stay_in_their_units(built, variant, interface):
    fmus, _ = built
    decay = np.exp(-TIMES / TAU)
    reference = {
        "T": T_AMB + (T0 - T_AMB) * decay,
        "w": W0 * decay,
        "phi": W0 * TAU * (1 - decay),
        "p": np.full_like(TIMES, P0),
        "L": V * TIMES,
    }
    result = simulate_fmu(
        str(fmus[(variant, "Shaft")]),
        fmi_type=interface,
        stop_time=STOP,
        output_interval=0.01,
        relative_tolerance=1e-10,
        output=list(reference),
    )
    for name, expected in reference.items():
        error = np.max(np.abs(np.interp(TIMES, result["time"], result[name]) - expected))
        assert error < 1e-6, f"{variant} {interface} {name}: error {error:.2e}"


@pytest.mark.parametrize("variant", ["me", "fmi3", "fmi2"])
def test_descriptions_declare_display_units_with_their_conversions(built, variant):
    fmus, _ = built
    path = fmus[(variant, "Shaft")]
    assert validate_fmu(str(path)) == []
    md = read_model_description(str(path))
    shown = {v.name: v.displayUnit for v in md.modelVariables if v.displayUnit}
    assert shown == DISPLAYED
    declared = {
        (unit.name, d.name): (d.factor, d.offset)
        for unit in md.unitDefinitions
        for d in unit.displayUnits
    }
    assert declared.keys() == EXPECTED.keys()
    for key, (factor, offset) in EXPECTED.items():
        assert declared[key][0] == pytest.approx(factor, rel=1e-15, abs=0), key
        assert declared[key][1] == pytest.approx(offset, rel=1e-15, abs=0), key
    # a housing at 303.15 K shows 30 degC; a shaft at 100 rad/s shows 954.93 rev/min
    assert 1.0 * T0 + declared[("K", "degC")][1] == pytest.approx(30.0, abs=1e-12)
    factor = declared[("rad/s", "rev/min")][0]
    assert factor * W0 == pytest.approx(W0 * 60 / (2 * math.pi), rel=1e-15)


def test_display_units_without_an_affine_conversion_are_left_out_with_a_warning(built):
    fmus, warnings = built
    md = read_model_description(str(fmus[("fmi2", "Shaft")]))
    by_name = {v.name: v for v in md.modelVariables}
    assert all(by_name[name].displayUnit is None for name in LEFT_OUT)
    assert by_name["L"].unit == "m"  # the unit stays
    # one warning per variable, one line each, naming variable, display unit and reason
    assert len(warnings) == len(LEFT_OUT), warnings
    for name, display in LEFT_OUT.items():
        line = next(w for w in warnings if f" of {name} " in w)
        assert "\n" not in line
        assert line.startswith("DisplayLib.Shaft: ") and f"'{display}'" in line
    assert any("another dimension" in w for w in warnings if " of f " in w)
    assert any("unknown unit symbol 'furlong'" in w for w in warnings if " of L " in w)
    assert any("no unit" in w for w in warnings if " of n " in w)


@pytest.mark.parametrize(
    ("unit", "display", "expected"),
    [
        ("K", "degF", (9 / 5, -459.67)),  # degF = 9/5 K - 459.67
        ("degC", "K", (1.0, 273.15)),
        ("K/s", "degC/s", (1.0, 0.0)),  # inside an expression: a difference, no offset
        ("m3/s", "l/min", (60_000.0, 0.0)),
    ],
)
def test_display_scale_of_offsets_and_differences(unit, display, expected):
    factor, offset = display_scale(unit, display)
    assert factor == pytest.approx(expected[0], rel=1e-15)
    assert offset == pytest.approx(expected[1], rel=1e-15, abs=1e-12)


def test_supported_forms_name_their_tests():
    tests = {name for name in globals() if name.startswith("test_")}
    assert {test for _, test in DISPLAY_UNITS} <= tests
