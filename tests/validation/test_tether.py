"""The tether (``MurCoSim.Tethers.Tether``) against the closed-form shape of a cable in a
uniform current, against MoorDyn on the same case, and against Nielsen's (2018, eq. 6.15)
estimate of a tether's drag."""

from __future__ import annotations

import numpy as np
import pytest
from tether_reference import CurrentCase, moordyn_current_case, moordyn_slack_pull

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
    """End position within 1 % of the length, end tension within 2 %: room for the
    lumped-mass error of 10 segments (the closed form is taken stretched by T/EA)."""
    s = np.linspace(0.0, CASE.length, CASE.segments + 1)
    nodes = steady["x"][:, :2]
    assert np.abs(steady["x"][:, 2]).max() < 1e-9  # stays in the plane of the current
    assert np.linalg.norm(nodes - CASE.shape(s), axis=1).max() < 0.01 * CASE.length
    # The closed form shot from end a with the simulated tension and angle ends on end b.
    f_a = steady["f_a"]
    shot = CASE.shape(np.array([CASE.length]), np.linalg.norm(f_a), np.arctan2(f_a[1], f_a[0]))[0]
    assert np.linalg.norm(shot - CASE.end) < 0.01 * CASE.length
    error = np.linalg.norm(nodes - CASE.shape(s), axis=1).max()
    print(
        f"closed form: nodes within {1000 * error:.1f} mm, shot end "
        f"{1000 * np.linalg.norm(shot - CASE.end):.1f} mm off, tensions "
        f"{steady['tension_a']:.3f} / {np.linalg.norm(steady['f_b']):.3f} N (20 N)"
    )
    for tension in (steady["tension_a"], steady["tension_b"], np.linalg.norm(steady["f_b"])):
        assert tension == pytest.approx(CASE.tension, rel=0.02)


def test_tether_in_a_current_matches_moordyn(steady):
    """The same line in MoorDyn 2.7 (10 segments, EA, critical damping, C_n, added mass): the
    forces on both ends within 5 % of MoorDyn's tension (the two discretize drag lengths and
    tangents slightly differently) and the nodes within 1 % of the length."""
    f_a, f_b, nodes = moordyn_current_case(CASE)
    print(
        f"MoorDyn: end forces {np.linalg.norm(f_a):.3f} / {np.linalg.norm(f_b):.3f} N, ours "
        f"{np.linalg.norm(steady['f_a']):.3f} / {np.linalg.norm(steady['f_b']):.3f} N, "
        f"differences {np.linalg.norm(steady['f_a'] - f_a) / np.linalg.norm(f_a):.2%} / "
        f"{np.linalg.norm(steady['f_b'] - f_b) / np.linalg.norm(f_b):.2%}, nodes within "
        f"{1000 * np.linalg.norm(steady['x'] - nodes, axis=1).max():.2f} mm"
    )
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
    print(
        f"lengthwise drag of 8 m at 0.9 m/s: {drag:.4f} N "
        f"({coefficient:.4f} |u| u L = {coefficient * 0.9**2 * 8:.4f} N, thesis 0.77 N)"
    )
    assert drag == pytest.approx(coefficient * 0.9**2 * 8.0, rel=0.01)
    assert drag == pytest.approx(0.77, abs=0.005)


@pytest.mark.parametrize("end", ["a", "b"])
def test_tether_end_on_a_moving_rotated_body(instance, end):
    """Either end on a body turned and moving, the other fixed: the attachment point p + R r,
    the tether's force back in the body frame with its moment r x F about the body origin, and
    the end's velocity R (v + w x r) in the axial damping. Reference: SciPy's rotation; a
    straight, stretched tether at rest in still water, neutrally buoyant, pulls with EA strain
    less the damping BA/l_0 times the end's velocity along it, plus the drag of the end's half
    segment."""
    from scipy.spatial.transform import Rotation

    other = {"a": "b", "b": "a"}[end]
    rotation = Rotation.from_euler("ZYX", [30.0, 20.0, 10.0], degrees=True)
    q = np.roll(rotation.as_quat(), 1)  # scalar first
    p, r, anchor = np.array([1.0, 2.0, 3.0]), np.array([0.3, -0.1, 0.2]), np.array([5.0, 2, 8])
    nu = np.array([0.2, -0.1, 0.05, 0.1, -0.2, 0.3])
    L, EA, m_l, zeta, n = 6.0, 1e4, CASE.neutral_mass, 1.0, 10
    values = {"L": L, "EA": EA, "m_l": m_l, "zeta": zeta}
    values |= {f"p_{end}[{i + 1}]": p[i] for i in range(3)}
    values |= {f"q_{end}[{i + 1}]": q[i] for i in range(4)}
    values |= {f"nu_{end}[{i + 1}]": nu[i] for i in range(6)}
    values |= {f"r_{end}[{i + 1}]": r[i] for i in range(3)}
    values |= {f"r_{other}[{i + 1}]": anchor[i] for i in range(3)}
    tether = instance("Tether", values)
    node = 1 if end == "a" else n + 1
    names = [f"x[{node},{i}]" for i in (1, 2, 3)] + [f"tau_{end}[{i}]" for i in range(1, 7)]
    names += [f"f_{end}[{i}]" for i in (1, 2, 3)] + [f"tension_{end}"]
    out = dict(zip(names, tether.read(tether.port(names)), strict=True))
    point = p + rotation.apply(r)
    assert np.allclose([out[f"x[{node},{i}]"] for i in (1, 2, 3)], point, atol=1e-12)
    along = (anchor - point) / np.linalg.norm(anchor - point)
    velocity = rotation.apply(nu[:3] + np.cross(nu[3:], r))
    l_0 = L / n
    damping = zeta * l_0 * np.sqrt(EA * m_l) / l_0
    tension = EA * (np.linalg.norm(anchor - point) / L - 1) - damping * along @ velocity
    assert out[f"tension_{end}"] == pytest.approx(tension, rel=1e-12)
    # The end node's half segment: Morison drag of the water's velocity relative to it.
    u_r = -velocity
    u_t = (u_r @ along) * along
    u_n = u_r - u_t
    half = np.linalg.norm(anchor - point) / n / 2
    drag = 0.5 * 1000.0 * 0.0076 * half * (1.2 * np.linalg.norm(u_n) * u_n)
    drag += 0.5 * 1000.0 * 0.0076 * half * np.pi * 0.01 * np.linalg.norm(u_t) * u_t
    force = np.array([out[f"f_{end}[{i}]"] for i in (1, 2, 3)])
    assert np.allclose(force, tension * along + drag, rtol=1e-12, atol=1e-12)
    force_body = rotation.inv().apply(force)
    wrench = np.r_[force_body, np.cross(r, force_body)]
    assert np.allclose([out[f"tau_{end}[{i}]"] for i in range(1, 7)], wrench, atol=1e-12)


def test_tether_with_a_negative_length_is_refused_in_one_line(tmp_path, fmu_dir):
    """Checked with the scenario, before any FMU is loaded: the file, the key, the bound."""
    text = """
[simulation]
stop_time = 1.0
[components.cable]
fmu = "Tether"
parameters = { L = -8.0, C_n = 1.2 }
"""
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(murcosim.ScenarioError) as error:
        murcosim.run(path, fmu_dir=fmu_dir, progress=False)
    message = str(error.value)
    assert message.startswith(str(path)) and "\n" not in message
    assert "components.cable.parameters.L: must be positive (got -8 m)" in message


def rk4_limit(eigenvalues: np.ndarray) -> float:
    """Largest step h (in the eigenvalues' time unit) with |R(h lambda)| <= 1 for all of them,
    R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24 the amplification of classical RK4 (bisection)."""

    def stable(h: float) -> bool:
        z = h * eigenvalues
        return bool(np.all(np.abs(1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24) <= 1 + 1e-12))

    low, high = 0.0, 1.0
    while not stable(high / 2):
        high /= 2
    low = high / 2
    for _ in range(60):
        low, high = (
            ((low + high) / 2, high) if stable((low + high) / 2) else (low, (low + high) / 2)
        )
    return low


def jacobian(tether) -> np.ndarray:
    """Central-difference Jacobian of an instance's derivatives at its start state."""
    x0 = tether.read(tether.states).copy()
    result = np.empty((x0.size, x0.size))
    h = 1e-7
    for k in range(x0.size):
        columns = []
        for sign in (1, -1):
            x = x0.copy()
            x[k] += sign * h
            tether.set_continuous_states(x)
            columns.append(tether.get_derivatives().copy())
        result[:, k] = (columns[0] - columns[1]) / (2 * h)
    return result


def test_taut_tether_modes_set_the_rk4_step(instance):
    """The shipped tether (8 m, 10 segments, EA 1e4 N, zeta 1) held straight and stretched: its
    axial modes are those of a chain of springs EA/l_0 and dampers zeta sqrt(EA m_l) on masses
    m_l l_0, mode j at omega_j = (2/l_0) sqrt(EA/m_l) sin(j pi/(2n)) with damping ratio
    zeta sin(j pi/(2n)). The Jacobian of the FMU's derivatives (central differences) has the
    fastest of them (1e-6). RK4's stability limit for the straight chain, 2.36 ms, bounds the
    step from above: in the tethered scenario, curved and partly slack, the step study finds
    1.9 ms stable and 2.0 ms ringing."""
    L, EA, m_l, zeta, n = 8.0, 1e4, 0.043, 1.0, 10
    eigenvalues = np.linalg.eigvals(jacobian(instance("Tether", {"r_b[3]": 8.1})))
    l_0, theta = L / n, (n - 1) * np.pi / (2 * n)
    omega = 2 / l_0 * np.sqrt(EA / m_l) * np.sin(theta)
    ratio = zeta * np.sin(theta)
    chain = omega * (-ratio + 1j * np.sqrt(1 - ratio**2))
    fastest = eigenvalues[np.argmax(np.abs(eigenvalues))]
    limit = rk4_limit(eigenvalues)
    print(f"fastest mode {fastest:.1f} 1/s (chain {chain:.1f}), RK4 limit {1e3 * limit:.3f} ms")
    assert abs(fastest.real - chain.real) < 1e-6 * abs(chain)
    assert abs(abs(fastest.imag) - chain.imag) < 1e-6 * abs(chain)
    assert 2.0e-3 < limit < 2.5e-3


def test_slack_tether_pulled_along_itself_takes_no_force(instance):
    """A slack tether, neutrally buoyant, without drag or added mass, its end pulled along it at
    1 m/s: no segment is strained, so nothing resists (to round-off). MoorDyn, which damps
    slack segments too, takes 2.1 N in the same case after 0.1 s."""
    values = {"m_l": CASE.neutral_mass, "C_n": 0.0, "C_t": 0.0, "Ca_n": 0.0}
    values |= {"r_b[3]": 0.0, "r_a[1]": 4.0, "nu_a[1]": 1.0}
    tether = instance("Tether", values)
    names = ["f_a[1]", "f_a[2]", "f_a[3]", "tension_a"]
    ours = tether.read(tether.port(names))
    theirs = moordyn_slack_pull()
    print(f"slack pull at 1 m/s: ours {ours[0]:.3g} N, MoorDyn {theirs[0]:.3f} N")
    assert np.all(np.abs(ours) < 1e-12)
    assert abs(theirs[0]) > 1.0
