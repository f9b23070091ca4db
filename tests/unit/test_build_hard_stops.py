"""A when-equation's body reads the relations as its condition does, ``tests/data/hard_stops``.

``HardStopLib.SlidingMassWithStops`` writes the hard stops of the MSL's Translational
``MassWithStopAndFriction``: ``stopped = if s <= smin + L/2 then -1 else if s >= smax - L/2
then +1 else 0`` and ``when stopped <> 0 then reinit(s, if stopped < 0 then smin + L/2 else
smax - L/2)``. The condition fires in the pass where the relation on ``s`` has switched, and
the body must see that same pass (Modelica Language Specification 3.6, Sec. 8.6: the body
is evaluated with the values of the event iteration's pass that fires it). The body read the
relation memories from before the pass, so ``stopped`` was 0 there: the mass reaching its
left stop was put at the right one, silently (in MSL's ``Translational.Examples.Friction``,
``stop2.s`` jumped from -0.4 m to +0.4 m at 0.064 s).

``TwoStops``: two masses without forces, one at -1 m/s reaching its left stop (-0.5 m) at
0.5 s, one at 2 m/s reaching its right stop (0.5 m) at 0.25 s; each is held there. Against
that solution by hand to 1e-6 in four variants, the instants the bodies record to 1e-8 s.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, assert_agrees_in_four_variants, built_fmus
from fmpy import simulate_fmu
from modelica_support import HARD_STOPS

LIBRARY = Path(__file__).parents[1] / "data" / "hard_stops" / "HardStopLib"
MASSES = {"left": (-1.0, -0.5), "right": (2.0, 0.5)}  # start velocity (m/s), stop (m)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("stops"), models=["TwoStops"])


def _by_hand(times: np.ndarray) -> dict[str, np.ndarray]:
    """Each mass's position and velocity: moving at its start velocity until it reaches its
    stop, held there after."""
    reference = {}
    for name, (speed, stop) in MASSES.items():
        reached = stop / speed
        reference[f"{name}.s"] = np.where(times < reached, speed * times, stop)
        reference[f"{name}.v"] = np.where(times < reached, speed, 0.0)
    return reference


def test_masses_stop_at_the_stop_they_reach_in_four_variants(fmus):
    times = np.linspace(0.0, 1.0, 101)
    away = np.min([np.abs(times - stop / speed) for speed, stop in MASSES.values()], 0) > 1e-3
    reference = {name: values[away] for name, values in _by_hand(times).items()}
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "TwoStops")], reference, times[away], "TwoStops"
    )


@pytest.mark.parametrize(("variant", "interface"), VARIANTS)
def test_the_body_records_the_stop_and_its_instant(fmus, variant, interface):
    """The discrete ``side`` and ``tStop`` the body assigns: the stop reached (-1 left, +1
    right) and when, to 1e-8 s."""
    names = [f"{mass}.{v}" for mass in MASSES for v in ("side", "tStop")]
    result = simulate_fmu(
        str(fmus[(variant, "TwoStops")]),
        fmi_type=interface,
        stop_time=1.0,
        output_interval=0.01,
        relative_tolerance=1e-10,
        output=names,
    )
    assert result["left.side"][-1] == -1 and result["right.side"][-1] == 1
    assert abs(result["left.tStop"][-1] - 0.5) < 1e-8
    assert abs(result["right.tStop"][-1] - 0.25) < 1e-8


def test_construct_table_names_these_tests():
    assert {test for _, test in HARD_STOPS} <= {n for n in globals() if n.startswith("test_")}
