"""States a model prefers that no equation differentiates, ``tests/data/relative_states``.

``RelativeStatesLib.PushedToStop``: a constant force ``F`` pushes a mass ``m1``, which
drags a second one ``m2`` through a spring-damper (``c``, ``d``) whose relative position
and velocity are ``stateSelect = prefer``, ``v_rel = der(s_rel)`` and no equation reading
``der(v_rel)``, as in MSL's Translational ``PartialCompliantWithRelativeStates``. The second
mass's position and velocity are ``always`` states; where it reaches its stop at ``smax``,
``reinit(v, 0)`` sets its velocity to 0 and it is held there. What the reinit leaves
unchanged are the other states (Modelica Language Specification 3.6, Sec. 8.3.6): with
``s_rel`` and ``v_rel`` the states the model prefers, the relative velocity is kept and the
pushed mass's velocity jumps to ``v1 - v2``, as Dymola has MSL's
``Translational.Examples.HeatLosses``. The build took only variables whose derivative
appears as candidates: ``v_rel`` was none, the pushed mass's velocity stayed a state and
``v_rel`` jumped instead (1.0 m/s off the solution below; in HeatLosses the damper's force
jumped to 679 N).

Against the solution by hand in four variants: both phases linear, integrated exactly by
the matrix exponential of the augmented system, the instant of the stop by ``brentq``; to
1e-6 at grid points more than 2 ms away from it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus
from modelica_support import RELATIVE_STATES
from scipy.linalg import expm
from scipy.optimize import brentq

LIBRARY = Path(__file__).parents[1] / "data" / "relative_states" / "RelativeStatesLib"
PUSHED = dict(m1=1.0, m2=1.0, c=100.0, d=10.0, F=10.0, smax=0.1)  # PushedToStop's values
AWAY = 2e-3  # s: grid points this close to the stop are left out


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("relative"), models=["PushedToStop"])


def _affine_flow(a: np.ndarray, b: np.ndarray, y0: np.ndarray, t: float) -> np.ndarray:
    """``y(t)`` of ``y' = a y + b`` from ``y0``: the exponential of the augmented matrix."""
    n = len(y0)
    augmented = np.zeros((n + 1, n + 1))
    augmented[:n, :n], augmented[:n, n] = a, b
    return (expm(augmented * t) @ np.append(y0, 1.0))[:n]


def pushed_to_stop(times: np.ndarray) -> tuple[dict[str, np.ndarray], float]:
    """The pushed mass's velocity, ``s_rel`` and ``v_rel`` at ``times`` and the instant of
    the stop, by hand: ``m1 v1' = F + c (s2 - s1) + d (v2 - v1)``, ``m2 v2' = -(c (s2 - s1) +
    d (v2 - v1))`` from rest until ``s2 = smax``; there ``v2 = 0`` and ``v_rel`` kept, so
    ``v1 = v1 - v2``; then ``m1 v1' = F + c (smax - s1) - d v1``."""
    m1, m2, c, d, push, smax = (PUSHED[k] for k in ("m1", "m2", "c", "d", "F", "smax"))
    a = np.array(
        [
            [0, 1, 0, 0],
            [-c / m1, -d / m1, c / m1, d / m1],
            [0, 0, 0, 1],
            [c / m2, d / m2, -c / m2, -d / m2],
        ]
    )
    b = np.array([0.0, push / m1, 0.0, 0.0])
    start = np.zeros(4)
    stop = brentq(lambda t: _affine_flow(a, b, start, t)[2] - smax, 0.01, 1.0, xtol=1e-15)
    s1, v1, _, v2 = _affine_flow(a, b, start, stop)
    held = np.array([[0, 1], [-c / m1, -d / m1]])
    pushing = np.array([0.0, (push + c * smax) / m1])
    rows = []
    for t in times:
        if t < stop:
            y = _affine_flow(a, b, start, t)
            rows.append((y[1], y[2] - y[0], y[3] - y[1]))
        else:
            z = _affine_flow(held, pushing, np.array([s1, v1 - v2]), t - stop)
            rows.append((z[1], smax - z[0], -z[1]))
    values = np.array(rows)
    return {"v_pushed": values[:, 0], "link.s_rel": values[:, 1], "link.v_rel": values[:, 2]}, stop


def test_reinit_keeps_the_preferred_relative_velocity_in_four_variants(fmus):
    times = np.linspace(0.0, 1.0, 201)
    reference, stop = pushed_to_stop(times)
    # the pushed mass's velocity jumps by the stopped one's, 1.07 m/s
    assert reference["v_pushed"][times > stop][0] < 0.5 < reference["v_pushed"][times < stop][-1]
    away = np.abs(times - stop) > AWAY
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "PushedToStop")],
        {name: values[away] for name, values in reference.items()},
        times[away],
        "PushedToStop",
    )


def test_preferred_variables_are_the_states(fmus):
    """The FMU's continuous states are the spring-damper's ``s_rel`` and ``v_rel`` and the
    stopped mass's ``s`` and ``v``; the pushed mass's are computed from them."""
    with zipfile.ZipFile(fmus[("me", "PushedToStop")]) as archive:
        description = ET.fromstring(archive.read("modelDescription.xml"))
    names = {v.get("valueReference"): v.get("name") for v in description.iter() if v.get("name")}
    states = {
        names[v.get("derivative")] for v in description.iter() if v.get("derivative") is not None
    }
    assert states == {"link.s_rel", "link.v_rel", "stopped.s", "stopped.v"}, states


def test_construct_table_names_these_tests():
    assert {test for _, test in RELATIVE_STATES} <= {n for n in globals() if n.startswith("test_")}
