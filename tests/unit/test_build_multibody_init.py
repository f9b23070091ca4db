"""Initialization of MultiBody models as the MSL's examples write it.

``tests/data/multibody_initialization/MultiBodyInit`` builds on the MultiBody stand-in of
``tests/data/modelica_path``: a point mass on a massless rod hinged to the world, held by a
line spring (MSL's ``Examples.Elementary.InitSpringConstant`` in small). Checked in all four
variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation) against the same mechanics
written here by hand (statics in closed form, dynamics by SciPy), to 1e-6 (CVode at 1e-10 in
FMPy for Model Exchange; the FMUs' Dormand-Prince at 1e-9 for Co-Simulation):

- a spring constant with ``fixed = false`` and no value is computed with the states when the
  FMU leaves initialization mode, such that the rod starts without angular acceleration,
  from ``a(fixed = true)`` and from the initial equation ``der(w) = 0``;
- initial conditions that repeat others (the joint's angle and rate fixed again in the model
  that holds it, MSL's ``RollingWheelSetDriving``) are dropped with a warning naming them;
  a repeated condition that contradicts the others, and a ``fixed = false`` parameter no
  condition determines, fail the build in one line naming them;
- the spring's direction vector is a constant in an ``assert`` (MSL's ``RollingWheel``);
- a Boolean parameter bound to another that nothing uses (the spring's ``showLine =
  animation``, as MultiBody's bodies pass ``angles_fixed`` down) is left out with it;
- a body whose frame the hinge holds at the world's origin: its position, a constant once an
  ``Evaluate = true`` parameter is evaluated, has the derivative 0 (MSL's
  ``InitSpringConstant`` and ``DoublePendulumInitTip``: the body at the first joint).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus_logged
from modelica_support import MULTIBODY_INITIALIZATION, MULTIBODY_REFUSED
from scipy.integrate import solve_ivp

from orchestrator.compiler import build_library
from orchestrator.errors import BuildError

DATA = Path(__file__).parents[1] / "data"
LIBRARY = DATA / "multibody_initialization" / "MultiBodyInit"
MODELICA_PATH = DATA / "modelica_path"
TIMES = np.linspace(0.0, 2.0, 9)
# the pendulum of SpringPendulum: mass (kg) at the end of a rod of length 1 m, its own
# inertia about z (kg m^2), gravity (m/s^2) along -y, the spring's anchor (m) and
# unstretched length (m), the initial angle (rad) and rate (rad/s)
MASS, IZZ, G = 2.0, 0.03, 9.81
ANCHOR = np.array([0.6, 0.8])
S_UNSTRETCHED = 0.1
PHI0, W0 = 0.3, 0.5
C_FIXED = 40.0  # N/m: the spring constant of RepeatedAngle and HubAtHinge
# HubAtHinge's hub: mass (kg), centre of mass from the hinge (m), inertia about z (kg m^2)
HUB_MASS, HUB_OFFSET, HUB_IZZ = 1.0, 0.1, 0.03


def spring_torque(phi: float, c: float) -> float:
    """Torque (N m) about the hinge of the spring's tension on the rod's end."""
    tip = np.array([math.cos(phi), math.sin(phi)])
    d = ANCHOR - tip
    length = float(np.hypot(*d))
    tension = c * (length - S_UNSTRETCHED)
    force = tension * d / length
    return float(tip[0] * force[1] - tip[1] * force[0])


def gravity_torque(phi: float) -> float:
    """Torque (N m) about the hinge of the weight of the mass at the rod's end."""
    return -MASS * G * math.cos(phi)


def steady_spring_constant() -> float:
    """The spring constant (N/m) at which the torques balance at PHI0 (linear in it)."""
    return -gravity_torque(PHI0) / spring_torque(PHI0, 1.0)


def swing(c: float, hub: bool = False) -> dict[str, np.ndarray]:
    """The rod's angle and rate at TIMES from PHI0, W0: J phi'' = torques (with the hub of
    HubAtHinge: its inertia about the hinge and the torque of its weight added)."""
    inertia = MASS * 1.0**2 + IZZ + hub * (HUB_MASS * HUB_OFFSET**2 + HUB_IZZ)

    def rate(_t, z):
        torque = gravity_torque(z[0]) + spring_torque(z[0], c)
        torque -= hub * HUB_MASS * G * HUB_OFFSET * math.cos(z[0])
        return [z[1], torque / inertia]

    sol = solve_ivp(rate, (0, TIMES[-1]), [PHI0, W0], t_eval=TIMES, rtol=1e-12, atol=1e-12)
    return {"rev.phi": sol.y[0], "rev.w": sol.y[1]}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return built_fmus_logged(
        LIBRARY,
        tmp_path_factory.mktemp("multibody_init"),
        "orchestrator.compiler.initialization",
        library_path=[MODELICA_PATH],
        models=["SteadySpring", "SteadySpringEquation", "RepeatedAngle", "HubAtHinge"],
    )


def check(fmus, model: str, reference: dict[str, np.ndarray]) -> None:
    assert_agrees_in_four_variants(lambda variant: fmus[(variant, model)], reference, TIMES, model)


@pytest.mark.parametrize("model", ["SteadySpring", "SteadySpringEquation"])
def test_fixed_false_spring_constant_from_steady_start(built, model):
    fmus, _ = built
    c = steady_spring_constant()
    assert 30.0 < c < 60.0  # the rod held near its start, not a degenerate geometry
    reference = swing(c) | {"spring.c": np.full(len(TIMES), c)}
    check(fmus, model, reference)


def test_repeated_initial_conditions_are_dropped_with_a_warning(built):
    fmus, warnings = built
    check(fmus, "RepeatedAngle", swing(C_FIXED))
    dropped = [line for line in warnings if "RepeatedAngle" in line]
    assert len(dropped) == 1, warnings
    assert "angle = " in dropped[0] and "rate = " in dropped[0]


def test_body_held_at_the_origin_has_constant_position_and_velocity(built):
    """The hub's frame is the world's origin, a constant once ``hub_offset`` (Evaluate =
    true) is evaluated; ``v_0 = der(r_0)`` makes its velocity 0 (a constant of the FMU, not
    a variable), not a derivative the FMU would lack."""
    fmus, _ = built
    check(fmus, "HubAtHinge", swing(C_FIXED, hub=True))


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("ContradictedAngle", "too many initial conditions, contradicting the others: angle = "),
        ("SpringWithoutCondition", "no initial condition determines parameter spring.c"),
    ],
)
def test_bad_initial_conditions_fail_in_one_line(tmp_path, model, expected):
    with pytest.raises(BuildError) as failure:
        build_library(
            LIBRARY,
            tmp_path,
            backend="rumoca",
            report=lambda _: None,
            library_path=[MODELICA_PATH],
            models=[model],
            variants=("me",),
        )
    message = str(failure.value)
    assert "\n" not in message and expected in message, message


def test_readme_rows_name_tests_of_this_file():
    tests = {name for name in globals() if name.startswith("test_")}
    named = {t for _, t in MULTIBODY_INITIALIZATION} | {t for *_, t in MULTIBODY_REFUSED}
    assert named <= tests
