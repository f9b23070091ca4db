"""The tether (``MurCoSim.Tethers.Tether``) against the closed-form shape of a cable in a
uniform current, against MoorDyn on the same case, and against Nielsen's (2018, eq. 6.15)
estimate of a tether's drag."""

from __future__ import annotations

import numpy as np
import pytest
from tether_reference import CurrentCase, moordyn_current_case

import murcosim
from murcosim.configuration import Component, Environment, Scenario, Simulation

CASE = CurrentCase()


def run_fixed_tether(
    fmu_dir, current: tuple[float, float, float], end_b: np.ndarray, parameters: dict
) -> dict[str, np.ndarray]:
    """A tether held at the origin (end a) and at ``end_b`` (NED, m) in a uniform current
    (m/s, NED), run for 60 s to its steady state; returns the last sample of the outputs
    x (nodes, n+1 x 3), f_a, f_b (N, NED), tension_a and tension_b (N)."""
    scenario = Scenario(
        simulation=Simulation(
            stop_time=60.0, output_interval=1.0, solver="CVODE_BDF", rtol=1e-8, atol=1e-10
        ),
        environment=Environment(current=list(current)),
        components={
            "cable": Component(
                fmu="Tether",
                parameters={
                    **parameters,
                    "r_b[1]": float(end_b[0]),
                    "r_b[2]": float(end_b[1]),
                    "r_b[3]": float(end_b[2]),
                },
            )
        },
    )
    last = murcosim.run(scenario, fmu_dir=fmu_dir, progress=False).timeseries.iloc[-1]
    nodes = sum(1 for c in last.index if c.startswith("cable.x[") and c.endswith(",1]"))
    x = [[last[f"cable.x[{k},{i}]"] for i in (1, 2, 3)] for k in range(1, nodes + 1)]
    return {
        "x": np.array(x),
        "f_a": np.array([last[f"cable.f_a[{i}]"] for i in (1, 2, 3)]),
        "f_b": np.array([last[f"cable.f_b[{i}]"] for i in (1, 2, 3)]),
        "tension_a": np.float64(last["cable.tension_a"]),
        "tension_b": np.float64(last["cable.tension_b"]),
    }


def current_case(fmu_dir) -> dict[str, np.ndarray]:
    """CASE in murcosim: neutrally buoyant, normal drag only, ends at the closed form's."""
    parameters = {
        "L": CASE.length,
        "d": CASE.diameter,
        "m_l": CASE.neutral_mass,
        "C_n": CASE.c_n,
        "C_t": 0.0,
        "EA": CASE.axial_stiffness,
    }
    end = np.r_[CASE.end, 0.0]
    return run_fixed_tether(fmu_dir, (-CASE.speed, 0.0, 0.0), end, parameters)


@pytest.fixture(scope="module")
def steady(fmu_dir):
    return current_case(fmu_dir)


def test_tether_in_a_current_takes_the_closed_form_shape(steady):
    """End position within 1 % of the length, end tension within 2 %: the lumped-mass error of
    10 segments (0.6 % in tension here) and an axial strain of 0.02 % fit in both."""
    s = np.linspace(0.0, CASE.length, CASE.segments + 1)
    nodes = steady["x"][:, :2]
    assert np.abs(steady["x"][:, 2]).max() < 1e-9  # stays in the plane of the current
    assert np.linalg.norm(nodes - CASE.shape(s), axis=1).max() < 0.01 * CASE.length
    # The closed form shot from end a with the simulated tension and angle ends on end b.
    f_a = steady["f_a"]
    shot = CASE.shape(np.array([CASE.length]), np.linalg.norm(f_a), np.arctan2(f_a[1], f_a[0]))[0]
    assert np.linalg.norm(shot - CASE.end) < 0.01 * CASE.length
    for tension in (steady["tension_a"], steady["tension_b"], np.linalg.norm(steady["f_b"])):
        assert tension == pytest.approx(CASE.tension, rel=0.02)


def test_tether_in_a_current_matches_moordyn(steady):
    """The same line in MoorDyn 2.7 (10 segments, EA, critical damping, C_n, added mass): the
    forces on both ends within 5 % of MoorDyn's tension (the two discretize drag lengths and
    tangents slightly differently) and the nodes within 1 % of the length."""
    f_a, f_b, nodes = moordyn_current_case(CASE)
    for ours, theirs in ((steady["f_a"], f_a), (steady["f_b"], f_b)):
        assert np.linalg.norm(ours - theirs) < 0.05 * np.linalg.norm(theirs)
    assert np.linalg.norm(steady["x"] - nodes, axis=1).max() < 0.01 * CASE.length


def test_tether_towed_lengthwise_has_the_thesis_drag(fmu_dir):
    """Nielsen (2018, eq. 6.15): F = 1/2 rho d pi C_t |u| u L = 0.12 |u| u L, 0.77 N for 8 m at
    0.9 m/s. The Fathom tether's d = 7.6 mm with C_t = 0.01 on the surface area pi d L give
    1/2 1000 pi 0.0076 0.01 = 0.119: a straight 8 m tether held along a 0.9 m/s current takes
    0.774 N in total on its two ends (to 1 %: it is held 1 cm longer than its length, to stay
    straight)."""
    coefficient = 0.5 * 1000.0 * np.pi * 0.0076 * 0.01
    assert coefficient == pytest.approx(0.12, abs=0.005)
    parameters = {"m_l": CASE.neutral_mass, "EA": 1e5}
    out = run_fixed_tether(fmu_dir, (0.9, 0.0, 0.0), np.array([8.01, 0.0, 0.0]), parameters)
    drag = out["f_a"][0] + out["f_b"][0]
    assert drag == pytest.approx(coefficient * 0.9**2 * 8.0, rel=0.01)
    assert drag == pytest.approx(0.77, abs=0.005)
