"""A saturating inductor whose flux law is shaped by a parameter its initial equation solves.

``tests/data/analog_saturation/AnalogSaturation``: ``SineDriven``, a coil whose flux linkage
saturates as the arctangent of its current, ``flux = Lsat i + (Lzero - Lsat) Iknee
atan(i/Iknee)`` (the law of MSL's ``SaturatingInductor``), on a source ``V cos(w t)``,
starting without current. Its knee current ``Iknee`` is a ``fixed = false`` parameter that
a nonlinear initial equation determines (the inductance at the rated current), with the
start value ``Irated/10``, Newton's guess over another parameter. Such a start value was
refused ("depends on other variables"), as in MSL's ``ShowSaturatingInductor``; it is now a
guess computed from the parameters when the FMU initializes.

Its reference is written here: the knee current by Brent's method on the initial equation,
the flux by integrating the source, ``flux = (V/w) sin(w t)``, and the current by inverting
the flux law (monotone in ``i``) with Brent's method.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, built_fmus
from fmpy import simulate_fmu
from modelica_support import ANALOG_SATURATION
from scipy.optimize import brentq
from test_build_rumoca import MODELICA_PATH

LIBRARY = Path(__file__).parents[1] / "data" / "analog_saturation" / "AnalogSaturation"
L_RATED, L_ZERO, L_SAT, I_RATED = 1.0, 2.0, 0.5, 1.0  # H, H, H, A: the coil's defaults
V, W = 1.25, 1.0  # V, rad/s: the source
TIMES = np.linspace(0.0, 20.0, 401)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("analog_saturation")
    return built_fmus(LIBRARY, out, library_path=[MODELICA_PATH], models=["SineDriven"])


def knee_current(rated: float) -> float:
    """The knee current (A) whose flux law gives ``L_RATED`` at the ``rated`` current."""
    shape = (L_RATED - L_SAT) / (L_ZERO - L_SAT)
    return brentq(lambda k: k / rated * (math.pi / 2 - math.atan(k / rated)) - shape, 1e-9, 1e3)


def coil_current(flux: float, knee: float) -> float:
    """The current (A) of a flux linkage (Wb) by the flux law's inverse."""
    law = lambda i: L_SAT * i + (L_ZERO - L_SAT) * knee * math.atan(i / knee) - flux  # noqa: E731
    return brentq(law, -100.0, 100.0, xtol=1e-14)


def test_start_over_parameters_guesses_the_knee_in_four_variants(fmus):
    knee = knee_current(I_RATED)
    flux = V / W * np.sin(W * TIMES)
    current = np.array([coil_current(f, knee) for f in flux])
    # saturated: the current's peak is well above the linear coil's V/(w Lzero)
    assert np.max(current) > 2 * V / (W * L_ZERO)
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmus[(variant, "SineDriven")]),
            fmi_type=interface,
            stop_time=TIMES[-1],
            output_interval=TIMES[1] - TIMES[0],
            relative_tolerance=1e-10,
            output=["i", "flux", "knee"],
        )
        label = f"{variant} {interface}"
        assert abs(result["knee"][-1] - knee) < 1e-9, label
        for name, expected in (("flux", flux), ("i", current)):
            error = np.max(np.abs(np.interp(TIMES, result["time"], result[name]) - expected))
            assert error < 1e-6, f"{label} {name}: error {error:.2e}"
        # the guess and the solution follow a rated current set in the FMU
        rated = simulate_fmu(
            str(fmus[(variant, "SineDriven")]),
            fmi_type=interface,
            stop_time=0.1,
            output=["knee"],
            start_values={"coil.Irated": 3.0},
        )
        assert abs(rated["knee"][-1] - knee_current(3.0)) < 1e-9, label


def test_construct_table_names_these_tests():
    assert {test for _, _, test in ANALOG_SATURATION} <= {
        n for n in globals() if n.startswith("test_")
    }
