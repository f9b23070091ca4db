"""State selection as library authors steer it with ``stateSelect``.

``tests/data/state_selection/StateSelection`` (on the MSL stand-in of ``tests/data/modelica_path``)
holds models whose states index reduction must choose from several candidates, where only
some are valid along the whole trajectory (Modelica Language Specification 3.6, section
4.9.4.1: always, prefer, default, avoid, never):

- a pendulum written in Cartesian coordinates with the rod force as unknown (index 3),
  released with its rod horizontal: there ``y = -L cos(phi)`` cannot give ``phi`` or ``x`` (its
  derivative in them vanishes), so the angle and a rate it has no ``der`` of, both
  ``stateSelect = always``, must be the states; the same pendulum near its lowest point with
  the horizontal position and velocity preferred;
- ``stateSelect = always`` on a variable an input gives, whose derivative cannot be found:
  the variable stays algebraic, with a warning naming it;
- a disc held upright and rolling without slip on the plane (two velocity constraints, as
  MSL's ``Joints.RollingWheel`` writes them, its variables ``avoid``), whose position,
  heading and rates are ``always`` aliases of the joint's variables, as MSL's
  ``Parts.RollingWheel`` declares them; with the spin rate demoted the model is singular
  where the heading passes 90 degrees.

References: the pendulum by SciPy (``phi'' = -g/L sin(phi)``), the disc in closed form (spin
and turning rates constant, the centre on a circle). Checked in all four variants (FMI 3.0 and
2.0, Model Exchange and Co-Simulation) to 1e-6
(:func:`build_variants.assert_agrees_in_four_variants`).
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus
from fmpy import read_model_description
from modelica_support import STATE_SELECTION
from scipy.integrate import solve_ivp

from orchestrator.compiler import build_library

DATA = Path(__file__).parents[1] / "data"
LIBRARY = DATA / "state_selection" / "StateSelection"
MODELICA_PATH = DATA / "modelica_path"
TIMES = np.linspace(0.0, 2.0, 21)
L, G = 1.0, 9.81  # rod length (m), gravity (m/s^2) of CartesianPendulum
# RollingDisc: radius (m), initial heading (rad), turning rate (rad/s), spin rate (rad/s)
R, HEADING0, TURN, SPIN = 0.3, 0.2, 1.0, 5.0


@pytest.fixture(scope="module")
def fmus(tmp_path_factory) -> dict[tuple[str, str], Path]:
    out = tmp_path_factory.mktemp("state_selection")
    return built_fmus(LIBRARY, out, library_path=[MODELICA_PATH])


def states(fmus, model: str) -> list[str]:
    """The FMU's states, in its order."""
    md = read_model_description(str(fmus[("fmi2", model)]))
    return [d.variable.derivative.name for d in md.derivatives]


def pendulum(phi0: float) -> tuple[np.ndarray, np.ndarray]:
    """Angle (rad) and rate (rad/s) of the pendulum released at rest from ``phi0`` at TIMES."""
    solution = solve_ivp(
        lambda _, s: [s[1], -G / L * math.sin(s[0])],
        (TIMES[0], TIMES[-1]),
        [phi0, 0.0],
        t_eval=TIMES,
        rtol=1e-12,
        atol=1e-12,
    )
    return solution.y[0], solution.y[1]


def test_angle_and_a_rate_without_der_are_the_states_where_positions_are_singular(fmus):
    # released horizontal, where x = L sin(phi) and y = -L cos(phi) cannot be solved for
    # phi from x; w has no der in the model: it is made a state by differentiating w = der(phi)
    assert states(fmus, "AngleStates") == ["phi", "w"]
    phi, w = pendulum(math.pi / 2)
    reference = {"phi": phi, "w": w, "x": L * np.sin(phi), "y": -L * np.cos(phi)}
    assert_agrees_in_four_variants(
        lambda v: fmus[(v, "AngleStates")], reference, TIMES, "AngleStates"
    )


def test_preferred_positions_are_the_states(fmus):
    assert states(fmus, "PositionStates") == ["x", "vx"]
    phi, w = pendulum(math.asin(0.3 / L))
    reference = {"x": L * np.sin(phi), "vx": L * np.cos(phi) * w, "phi": phi}
    assert_agrees_in_four_variants(
        lambda v: fmus[(v, "PositionStates")], reference, TIMES, "PositionStates"
    )


def test_rolling_disc_keeps_the_always_aliases_of_its_joint_as_states(fmus):
    # the joint's variables are avoid, the disc's aliases of them always; the heading turns
    # through 90 degrees at t = 1.37 s, where a spin rate solved from v[1] would divide by 0
    chosen = states(fmus, "RollingDisc")  # the spin rate by its alias in the joint
    assert chosen == [
        "skate.r[1]", "skate.r[2]", "skate.heading", "skate.spin", "skate.w_spin", "der_heading"
    ]  # fmt: skip
    heading = HEADING0 + TURN * TIMES
    radius = R * SPIN / TURN  # of the circle the centre moves on
    reference = {
        "x": radius * (np.sin(heading) - math.sin(HEADING0)),
        "y": -radius * (np.cos(heading) - math.cos(HEADING0)),
        "heading": heading,
        "der_spin": np.full_like(TIMES, SPIN),
        "skate.f_lat": np.full_like(TIMES, 2.0 * R * SPIN * TURN),  # m v^2 / radius
    }
    assert_agrees_in_four_variants(
        lambda v: fmus[(v, "RollingDisc")], reference, TIMES, "RollingDisc"
    )


def test_always_on_a_variable_an_input_gives_stays_algebraic_with_a_warning(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="orchestrator.compiler.flat_dae"):
        build_library(
            LIBRARY,
            tmp_path,
            report=lambda _: None,
            variants=("me",),
            library_path=[MODELICA_PATH],
            models=["AlwaysFromInput"],
        )
    warnings = [r.getMessage() for r in caplog.records if "not honored" in r.getMessage()]
    assert len(warnings) == 1
    assert "stateSelect = always of k not honored" in warnings[0]
    assert "derivative of input 'u'" in warnings[0]


def test_always_on_a_variable_an_input_gives_keeps_the_values(fmus):
    assert states(fmus, "AlwaysFromInput") == ["y"]
    reference = {"k": np.full_like(TIMES, 2.0), "y": np.exp(-2.0 * TIMES)}  # u at its start 1
    assert_agrees_in_four_variants(
        lambda v: fmus[(v, "AlwaysFromInput")], reference, TIMES, "AlwaysFromInput"
    )


def test_state_selection_rows_name_their_tests():
    tests = {name for name in globals() if name.startswith("test_")}
    assert {test for _, test in STATE_SELECTION} <= tests
