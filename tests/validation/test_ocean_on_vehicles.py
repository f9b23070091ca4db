"""The ocean acting on vehicles: currents, waves, free surface, seabed, full added mass.

Oracles independent of the model: Galilean invariance, the sphere in accelerating flow
(potential-flow added mass and Froude-Krylov force), conservation of energy and impulse
(Kirchhoff's equations), the floating equilibrium of a sphere's cap volume, a static contact
balance, Airy orbits, finite differences and the Ornstein-Uhlenbeck autocorrelation.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT, scenario_error, set_and_derive
from scipy.optimize import brentq
from scipy.spatial.transform import Rotation

from orchestrator.system.ocean import seeded_parameters

SIMULATION = """
[simulation]
stop_time = {stop}
output_interval = {interval}
solver = "RK45"
rtol = {rtol}
atol = {atol}
step = 0.05
"""


def body(fmu: str, parameters: dict[str, float], start: dict[str, float], name="body") -> str:
    """A component table of one body with parameters and start values."""
    lines = [f'[components.{name}]\nfmu = "{fmu}"', f"[components.{name}.parameters]"]
    lines += [f'"{k}" = {float(v)!r}' for k, v in parameters.items()]
    lines += [f"[components.{name}.start]"]
    lines += [f'"{k}" = {float(v)!r}' for k, v in start.items()]
    return "\n".join(lines) + "\n"


def positions(cols, name="body") -> np.ndarray:
    return np.column_stack([cols[f"{name}.p[{i}]"] for i in (1, 2, 3)])


# -- currents --------------------------------------------------------------------------------


def test_uniform_current_adds_its_displacement_to_a_turning_manoeuvre(run):
    """Galilean invariance: in a uniform constant current v_c a vehicle starting at rest in the
    water follows its still-water trajectory plus v_c t, its attitude and its velocity
    relative to the water unchanged.

    BlueROV2 Heavy (centre of gravity 2 cm below the origin, so roll and pitch couple in the
    turn) under a constant surge force, yaw moment and heave force for 60 s: a descending
    spiral of 57 m. The two runs differ only by the integrator's error: at rtol 1e-10 it stays
    below 1e-8 m in p and 1e-8 in q and nu_r (measured 6e-11 m, 4e-11, 5e-11).
    """
    tau = {"tau_ext[1]": 30.0, "tau_ext[3]": 3.0, "tau_ext[6]": 2.5}
    v_c = np.array([0.3, -0.2, 0.05])
    sim = SIMULATION.format(stop=60.0, interval=0.5, rtol=1e-10, atol=1e-12)
    runs = []
    for current in (np.zeros(3), v_c):
        env = f"[environment]\ncurrent = {[float(c) for c in current]}\n"
        drifting = {f"nu[{i}]": current[i - 1] for i in (1, 2, 3)}  # at rest in the water
        start = {"p[3]": 5.0, **tau, **drifting}
        cols, _ = run(sim + env + body("BlueROV2Heavy", {}, start), "turn")
        runs.append(cols)
    still, moving = runs
    t = still["time"]
    shifted = positions(moving) - np.outer(t, v_c)
    assert min(np.ptp(positions(still)[:, :2], axis=0)) > 1  # it turned
    assert np.max(np.abs(shifted - positions(still))) < 1e-8
    for name in [f"q[{i}]" for i in range(1, 5)]:
        assert np.max(np.abs(moving[f"body.{name}"] - still[f"body.{name}"])) < 1e-8
    for i in range(1, 7):
        assert np.max(np.abs(moving[f"body.nu_r[{i}]"] - still[f"body.nu[{i}]"])) < 1e-8


def test_a_current_field_drives_thrusters_and_vehicle_as_the_environment_current(run):
    """The shipped single-vehicle run (autopilot, allocation, eight thrusters reading the
    vehicle's velocity relative to the water) in a uniform 0.3 m/s current, once from
    [environment] and once from a CurrentField sampled at the vehicle's wave_point: the same
    trajectory to the bit. The field drives the input the thrusters' inflow depends on, so
    the signals must flow current -> vehicle -> thrusters within every right-hand side; a
    stale value in that order would show here."""
    text = (ROOT / "scenarios" / "bluerov2_heavy_single.toml").read_text(encoding="utf-8")
    text = text.replace("stop_time = 60.0", "stop_time = 10.0")
    uniform = text.replace("current = [0.0, 0.0, 0.0]", "current = [0.3, 0.0, 0.0]")
    field = text + '[components.current]\nfmu = "CurrentField"\nparameters = { speed = 0.3 }\n'
    for source, target in (
        ("rov.wave_point", "current.r"),
        ("current.v", "rov.v_c"),
        ("current.a", "rov.a_c"),
    ):
        field += f'[[connections]]\nfrom = "{source}"\nto = "{target}"\n'
    a, _ = run(uniform, "uniform")
    b, _ = run(field, "field")
    assert np.ptp(a["rov.p[1]"]) > 1
    for name in [f"rov.{v}[{i}]" for v in ("p", "nu") for i in (1, 2, 3)]:
        assert np.array_equal(a[name], b[name]), name


SPHERE_V = 0.01  # m3
C_A = 0.5  # added-mass coefficient of a sphere in potential flow


def sphere(density_ratio: float) -> dict[str, float]:
    """A sphere of volume SPHERE_V and density ratio rho_b/rho: potential-flow added mass,
    no damping, centres of gravity and buoyancy at the origin."""
    values = {"rho": 1000.0, "data.volume": SPHERE_V, "data.m": density_ratio * 1000 * SPHERE_V}
    for i in range(1, 7):
        values[f"data.added_mass[{i}]"] = C_A * 1000 * SPHERE_V if i <= 3 else 0.0
        values[f"data.D_L[{i}]"] = values[f"data.D_Q[{i}]"] = 0.0
    for i in range(1, 4):
        values[f"data.r_g[{i}]"] = values[f"data.r_b[{i}]"] = 0.0
    return values


@pytest.mark.parametrize("density_ratio", [0.5, 1.0, 1.02, 2.0])
@pytest.mark.parametrize("source", ["a_c", "a_w"])
def test_sphere_in_uniformly_accelerating_flow(density_ratio, source, instance):
    """A sphere at rest in a uniformly accelerating flow (drag off) accelerates at
    (1 + C_a)/(rho_b/rho + C_a) times the flow's acceleration (Morison's inertia coefficient
    1 + C_a on the flow, added mass C_a rho V on the body), whatever its attitude; vertically
    its net weight adds (W - B)/(m + C_a rho V). To 1e-6 relative, as the claim states
    (measured 6e-16: the evaluation is exact to round-off)."""
    inst = instance("SphereModuleHull", sphere(density_ratio))
    rng = np.random.default_rng(5)
    m = density_ratio * 1000 * SPHERE_V
    m_a = C_A * 1000 * SPHERE_V
    ratio = (1 + C_A) / (density_ratio + C_A)
    for _ in range(5):
        q = Rotation.random(random_state=rng).as_quat()  # scalar last
        p = rng.normal(size=3) + [0.0, 0.0, 5.0]  # fully submerged: 5 m deep
        x = np.concatenate([p, [q[3], *q[:3]], np.zeros(6)])
        a = rng.normal(size=3)
        a[2] = 0.0
        nu_dot = set_and_derive(inst, x, {f"{source}[{i}]": a[i - 1] for i in (1, 2, 3)})[7:10]
        R = Rotation.from_quat(q).as_matrix()
        weight = (m - 1000 * SPHERE_V) * 9.81 / (m + m_a)
        want = ratio * a + [0, 0, weight]
        np.testing.assert_allclose(R @ nu_dot, want, rtol=1e-6, atol=1e-6 * np.abs(a).max())


def test_heavy_sphere_in_a_gust_moves_at_the_inertia_ratio_of_the_flow(run):
    """A sphere twice as dense as water, drag off, released at rest in a (1 - cos) gust of a
    CurrentField: v_dot = (1 + C_a)/(rho_b/rho + C_a) u_dot at every instant, so its velocity is
    that ratio times the flow's (0.6 here) throughout; vertical motion is the net weight's
    uniform acceleration. Integrator tolerance 1e-10: agreement to 1e-7 m/s (measured
    3e-12 m/s)."""
    gust = {"gust_velocity[1]": 0.4, "gust_velocity[2]": -0.3, "gust_start": 1.0}
    text = SIMULATION.format(stop=12.0, interval=0.1, rtol=1e-10, atol=1e-12)
    text += body("SphereModuleHull", sphere(2.0), {"p[3]": 10.0})
    text += body("CurrentField", {**gust, "gust_duration": 8.0}, {}, name="current")
    for source, target in (("body.wave_point", "current.r"), ("current.v", "body.v_c")):
        text += f'[[connections]]\nfrom = "{source}"\nto = "{target}"\n'
    text += '[[connections]]\nfrom = "current.a"\nto = "body.a_c"\n'
    cols, _ = run(text, "gust")
    t = cols["time"]
    u = np.column_stack([cols["current.v[1]"], cols["current.v[2]"]])
    v = np.column_stack([cols["body.nu[1]"], cols["body.nu[2]"]])
    assert np.abs(u).max() > 0.39
    np.testing.assert_allclose(v, 0.6 * u, atol=1e-7)
    fall = (20 - 10) * 9.81 / (20 + 5) * t
    np.testing.assert_allclose(cols["body.nu[3]"], fall, atol=1e-7)


def test_neutral_sphere_rides_the_wave_orbit_decaying_with_depth(run):
    """A neutrally buoyant sphere (drag off) released 3 m deep with the orbital velocity of a
    linear wave (T = 4 s, a = 0.05 m, unstretched) moves with the water, driven by the
    particle's (material) acceleration: its excursion is a e^{-k d} horizontally and vertically,
    k = w^2/g (Airy), 0.0235 m here. Within 2 % (measured 0.003 % vertically, 0.12 %
    horizontally): the linear orbit radius is that of the orbit's centre, the body samples the
    field along its path (an O(k a e^{-kd}) = 0.6 % effect)."""
    a, period, depth, g = 0.05, 4.0, 3.0, 9.8
    w = 2 * np.pi / period
    radius = a * np.exp(-(w**2) / g * depth)
    text = SIMULATION.format(stop=20.0, interval=0.02, rtol=1e-9, atol=1e-11)
    text += body("SphereModuleHull", sphere(1.0), {"p[3]": depth, "nu[3]": -w * radius})
    wave = {"amplitude": a, "period": period, "stretching": 0.0}
    text += body("RegularWave", wave, {}, name="sea")
    for source, target in (
        ("body.wave_point", "sea.r"),
        ("sea.v", "body.v_w"),
        ("sea.a_material", "body.a_w"),
        ("sea.zeta", "body.zeta"),
    ):
        text += f'[[connections]]\nfrom = "{source}"\nto = "{target}"\n'
    cols, _ = run(text, "orbit")
    z = cols["body.p[3]"]
    x = cols["body.p[1]"]
    assert np.ptp(z) / 2 == pytest.approx(radius, rel=0.02)
    assert np.ptp(x - np.polyval(np.polyfit(cols["time"], x, 1), cols["time"])) / 2 == (
        pytest.approx(radius, rel=0.02)
    )


# -- the current field -----------------------------------------------------------------------


def field(fmus, values: dict[str, float]):
    fmu = fmus("CurrentField")
    inst = fmu.instantiate(f"current_{len(values)}_{values.get('seed', 1)}")
    inst.set_start_values({**seeded_parameters(fmu, values), **values})
    inst.initialize(0.0)
    return inst


def sample(inst, t: float, depth: float) -> np.ndarray:
    """v[1..3], a[1..3] at time t and depth."""
    inst.set_time(t)
    port = inst.port(["r[3]"])
    port.values[:] = [depth]
    inst.write(port)
    return inst.get_values(["v[1]", "v[2]", "v[3]", "a[1]", "a[2]", "a[3]"])


def test_current_profile_variation_and_gust(fmus):
    """The speed follows the piecewise-linear profile between its points (np.interp); the
    acceleration output is the time derivative of the velocity (central differences, step
    1e-3 s, to 1e-6 of its size); the gust peaks at its velocity mid-way."""
    values = {
        "speed": 0.3,
        "direction": 0.5,
        "profile_depth[1]": 0.0,
        "profile_depth[2]": 5.0,
        "profile_depth[3]": 20.0,
        "profile_depth[4]": 50.0,
        "profile_factor[1]": 1.0,
        "profile_factor[2]": 0.8,
        "profile_factor[3]": 0.5,
        "profile_factor[4]": 0.0,
        "speed_sigma": 0.05,
        "speed_tau": 30.0,
        "direction_sigma": 0.1,
        "direction_tau": 60.0,
        "gust_velocity[1]": 0.2,
        "gust_velocity[3]": 0.1,
        "gust_start": 100.0,
        "gust_duration": 20.0,
        "seed": 7,
    }
    inst = field(fmus, values)
    still = field(fmus, {k: v for k, v in values.items() if "sigma" not in k and "gust" not in k})
    for depth in (-1.0, 0.0, 2.5, 12.0, 35.0, 80.0):
        v = sample(still, 10.0, depth)
        factor = np.interp(depth, [0, 5, 20, 50], [1, 0.8, 0.5, 0])
        np.testing.assert_allclose(v[:3], 0.3 * factor * np.array([np.cos(0.5), np.sin(0.5), 0]))
    h = 1e-3
    for t in (3.0, 57.0, 104.0, 110.0, 119.9):
        rate = (sample(inst, t + h, 8.0)[:3] - sample(inst, t - h, 8.0)[:3]) / (2 * h)
        a = sample(inst, t, 8.0)[3:]
        np.testing.assert_allclose(a, rate, atol=1e-6 * max(np.abs(a).max(), 1e-3))
    mid_gust = sample(inst, 110.0, 8.0)[2]
    assert mid_gust == pytest.approx(0.1, abs=1e-12)
    for inst_ in (inst, still):
        inst_.terminate()


def test_current_variation_is_first_order_gauss_markov(fmus):
    """The speed's variation has the standard deviation sigma and the autocorrelation
    exp(-lag/tau) of a first-order Gauss-Markov process: averaged over 10 seeds, the sample
    statistics of 500 tau records (sampled every tau/4) within 3 % (std) and 0.03
    (autocorrelation at tau/2, tau, 2 tau; one seed's 32 components alone scatter by about as
    much); the same seed gives the same record, another seed another one."""
    tau, sigma = 50.0, 0.1
    times = np.arange(0, 500 * tau, tau / 4)
    stds, correlations = [], []
    for seed in range(10):
        inst = field(fmus, {"speed_sigma": sigma, "speed_tau": tau, "seed": seed})
        u = np.array([sample(inst, t, 0.0)[0] for t in times])
        inst.terminate()
        stds.append(np.std(u))
        u = u - u.mean()
        correlations.append([np.mean(u[:-k] * u[k:]) / np.var(u) for k in (2, 4, 8)])
    assert np.mean(stds) == pytest.approx(sigma, rel=0.03)
    np.testing.assert_allclose(np.mean(correlations, axis=0), np.exp([-0.5, -1, -2]), atol=0.03)
    values = {"speed_sigma": sigma, "speed_tau": tau, "direction_sigma": 0.2, "seed": 11}
    one, again, other = (field(fmus, v) for v in (values, dict(values), {**values, "seed": 12}))
    assert np.array_equal(sample(again, 1234.5, 0.0), sample(one, 1234.5, 0.0))
    assert not np.allclose(sample(other, 1234.5, 0.0), sample(one, 1234.5, 0.0))
    for inst in (one, again, other):
        inst.terminate()


# -- full added mass -------------------------------------------------------------------------

# RexROV added mass as the UUV Simulator lists it (rexrov.gazebo.xacro, x forward, y left,
# z up; Berg 2012, p. 28), rows X Y Z K M N.
REXROV_ADDED_MASS_FLU = np.array(
    [
        [779.79, -6.8773, -103.32, 8.5426, -165.54, -7.8033],
        [-6.8773, 1222, 51.29, 409.44, -5.8488, 62.726],
        [-103.32, 51.29, 3659.9, 6.1112, -386.42, 10.774],
        [8.5426, 409.44, 6.1112, 534.9, -10.027, 21.019],
        [-165.54, -5.8488, -386.42, -10.027, 842.69, -1.1162],
        [-7.8033, 62.726, 10.775, 21.019, -1.1162, 224.32],
    ]
)
REXROV_INERTIA_FLU = np.array([[525.39, 1.44, 33.41], [1.44, 794.20, 2.6], [33.41, 2.6, 691.23]])


def rexrov_mass() -> np.ndarray:
    """M_RB + M_A of the RexROV in x forward, y starboard, z down (T = diag(1,-1,-1,1,-1,-1)),
    the UUV Simulator's one asymmetric pair averaged."""
    T = np.diag([1.0, -1, -1, 1, -1, -1])
    M_A = T @ (0.5 * (REXROV_ADDED_MASS_FLU + REXROV_ADDED_MASS_FLU.T)) @ T
    M_RB = np.zeros((6, 6))
    M_RB[:3, :3] = 1862.87 * np.eye(3)
    M_RB[3:, 3:] = T[:3, :3] @ REXROV_INERTIA_FLU @ T[:3, :3]
    return M_RB + M_A


def test_full_added_mass_conserves_energy_and_impulse(run, instance):
    """RexROV with its full 6x6 added-mass matrix in an ideal fluid (damping and restoring
    forces off: g = 0): Kirchhoff's equations conserve the kinetic energy 0.5 nu'M nu, the
    linear impulse R h_v and the angular impulse R h_w + p x R h_v (h = M nu) in NED. Over
    100 s of a tumbling motion, relative drift < 1e-9 (rtol 1e-12; measured 7e-14, 3e-14,
    3e-12). The FMU's M equals the published matrix converted here."""
    parameters = {"g": 0.0}
    for i in range(1, 7):
        parameters[f"data.D_L[{i}]"] = parameters[f"data.D_Q[{i}]"] = 0.0
    M = rexrov_mass()
    inst = instance("RexROV", parameters)
    fmu_M = inst.get_values([f"M[{i},{j}]" for i in range(1, 7) for j in range(1, 7)])
    np.testing.assert_allclose(fmu_M.reshape(6, 6), M, rtol=1e-12, atol=1e-9)
    nu0 = [0.4, -0.3, 0.2, 0.15, -0.1, 0.25]
    start = {f"nu[{i + 1}]": v for i, v in enumerate(nu0)}
    text = SIMULATION.format(stop=100.0, interval=0.5, rtol=1e-12, atol=1e-14)
    cols, _ = run(text + body("RexROV", parameters, start), "kirchhoff")
    energy, linear, angular = [], [], []
    for k in range(len(cols["time"])):
        q = np.array([cols[f"body.q[{i}]"][k] for i in (1, 2, 3, 4)])
        R = Rotation.from_quat([*q[1:], q[0]]).as_matrix()
        nu = np.array([cols[f"body.nu[{i}]"][k] for i in range(1, 7)])
        p = np.array([cols[f"body.p[{i}]"][k] for i in (1, 2, 3)])
        h = M @ nu
        energy.append(0.5 * nu @ h)
        linear.append(R @ h[:3])
        angular.append(R @ h[3:] + np.cross(p, R @ h[:3]))
    energy, linear, angular = np.array(energy), np.array(linear), np.array(angular)
    assert np.ptp(np.column_stack([cols[f"body.nu[{i}]"] for i in (4, 5, 6)]), axis=0).min() > 0.05
    assert np.ptp(energy) < 1e-9 * energy[0]
    assert np.abs(linear - linear[0]).max() < 1e-9 * np.linalg.norm(linear[0])
    assert np.abs(angular - angular[0]).max() < 1e-9 * np.linalg.norm(angular[0])


def test_an_asymmetric_added_mass_is_refused(tmp_path, capsys):
    """A full added-mass matrix that is not symmetric: one line naming the component."""
    text = SIMULATION.format(stop=1.0, interval=0.1, rtol=1e-6, atol=1e-8)
    text += body("RexROV", {"data.added_mass_coupling[1,3]": 50.0}, {}, name="rov")
    err = scenario_error(text, tmp_path, capsys)
    assert "components.rov.parameters: the generalized mass M is not symmetric" in err
    assert "M[1,3]" in err


# -- free surface and seabed -----------------------------------------------------------------

HULL = 0.3  # m, hull height of the BlueROV2 Heavy taken as a sphere around its centre of buoyancy
HEAVY_HULL = 0.254  # m, the BlueROV2 Heavy's published height (Blue Robotics), its default
W_HEAVY = 11.5 * 9.81  # N, weight of the BlueROV2 Heavy
B_HEAVY = 1000 * 9.81 * 0.011702  # N, its buoyancy fully submerged


def waterline(net_down: float) -> float:
    """Depth of the centre of buoyancy (m, NED) where the emerged sphere cap balances
    ``net_down`` (N, weight minus upward thrust): B x^2 (3 - 2x) = net_down."""
    x = brentq(lambda s: B_HEAVY * s**2 * (3 - 2 * s) - net_down, 0.0, 1.0)
    return (x - 0.5) * HULL


@pytest.mark.parametrize("thrust_up", [0.0, 30.0])
def test_a_vehicle_driven_up_floats_at_its_waterline(thrust_up, run):
    """The BlueROV2 Heavy (2 N positively buoyant), released 1 m deep with 0 or 30 N of upward
    thrust, rises and floats where the emerged part of its hull (a sphere of 0.3 m) balances
    weight and thrust: the sphere-cap equilibrium solved by brentq, within 1e-5 m after 120 s
    (damped heave; measured 1e-7 m). With hull_height = 0 (no free surface) it keeps its full
    buoyancy and rises into the air."""
    start = {"p[3]": 1.0, "tau_ext[3]": -thrust_up}
    text = SIMULATION.format(stop=120.0, interval=0.5, rtol=1e-8, atol=1e-10)
    cols, _ = run(text + body("BlueROV2Heavy", {"hull_height": HULL}, start), "float")
    assert cols["body.p[3]"][-1] == pytest.approx(waterline(W_HEAVY - thrust_up), abs=1e-5)
    assert 0 < cols["body.submerged_fraction"][-1] < 1
    if thrust_up:
        cols, _ = run(text + body("BlueROV2Heavy", {"hull_height": 0.0}, start), "air")
        assert cols["body.p[3]"][-1] < -10
        assert cols["body.submerged_fraction"][-1] == 1


def test_a_depth_set_point_above_the_surface_leaves_the_vehicle_at_its_waterline(run):
    """The shipped single-vehicle run, default parameters, with the autopilot asked for 2 m
    above the surface (and no speed, so that it comes to rest): the vehicle does not hover in
    the air. Its hull (the default 0.254 m sphere) and its thrusters lose buoyancy and thrust
    as they leave the water, and it floats at the surface where Archimedes' buoyancy of the
    immersed cap and the thrust still produced carry its weight: the cap's volume from the
    recorded depth by the sphere-cap formula pi d^2 (3 r - d) / 3 (not the model's law) gives
    the submerged fraction to 1e-9 (measured 2e-16), and weight = rho g V fraction + upward
    thrust to 1e-3 N (static balance from the recorded thrusts; measured 8e-5 N at a heave
    rate of 1e-7 m/s after 60 s, the hull 47 % and the vertical thrusters 42 % immersed). With
    hull_height = 0 (no free surface) the thrusters hold it in the air."""
    text = (ROOT / "scenarios" / "bluerov2_heavy_single.toml").read_text(encoding="utf-8")
    text = text.replace("depth = 2.0", "depth = -2.0").replace(
        "surge_speed = 0.5", "surge_speed = 0.0"
    )
    cols, _ = run(text, "surface")
    depth, fraction = cols["rov.p[3]"][-1], cols["rov.submerged_fraction"][-1]
    assert 0.1 < fraction < 0.9 and abs(depth) < HEAVY_HULL / 2
    radius = HEAVY_HULL / 2
    immersed = depth + radius  # the sphere's immersed height (level, calm sea, r_b = 0)
    cap = np.pi * immersed**2 * (3 * radius - immersed) / 3
    assert fraction == pytest.approx(cap / (4 / 3 * np.pi * radius**3), abs=1e-9)
    immersion = [cols[f"t{k}.immersion"][-1] for k in range(5, 9)]
    assert all(0 < i < 1 for i in immersion)
    thrust_down = sum(cols[f"t{k}.tau[3]"][-1] for k in range(1, 9))
    assert abs(cols["rov.nu[3]"][-1]) < 1e-5
    assert W_HEAVY - B_HEAVY * fraction + thrust_down == pytest.approx(0, abs=1e-3)
    hull = "parameters = { hull_height = 0.0 }"
    air = text.replace('fmu = "BlueROV2Heavy"\n', f'fmu = "BlueROV2Heavy"\n{hull}\n')
    air, _ = run(air, "air")
    assert air["rov.p[3]"][-1] < -0.3 and air["rov.submerged_fraction"][-1] == 1


def test_a_sinking_vehicle_rests_on_the_seabed_the_dvl_sees(run):
    """A BlueROV2 Heavy made 1 kg heavier sinks from 4 m onto a seabed at 5 m (the scenario's
    environment.seabed_depth): it comes to rest with its hull sphere's lowest point pressed in
    by the net weight over the contact stiffness (static balance, to 1e-6 m of a 78 um
    penetration, measured 2e-9 m; the contact force equals the net weight to 1e-4), and a
    noise-free DVL at its origin reads the altitude of the same seabed."""
    seabed, k = 5.0, 1e5
    text = SIMULATION.format(stop=60.0, interval=0.5, rtol=1e-8, atol=1e-10)
    text += f"[environment]\nseabed_depth = {seabed}\n"
    text += body("BlueROV2Heavy", {"hull_height": HULL, "data.m": 12.5}, {"p[3]": 4.0}, "rov")
    text += '[controllers.dvl]\ntype = "dvl"\nvehicle = "rov"\nbeam_noise = 0.0\n'
    text += "range_noise = 0.0\nlatency = 0.0\n"
    cols, _ = run(text, "seabed")
    net = 12.5 * 9.81 - B_HEAVY
    rest = seabed - HULL / 2 + net / k
    assert cols["rov.p[3]"][-1] == pytest.approx(rest, abs=1e-6)
    assert cols["rov.f_seabed"][-1] == pytest.approx(net, rel=1e-4)
    assert abs(cols["rov.nu[3]"][-1]) < 1e-6
    assert cols["dvl.altitude"][-1] == pytest.approx(seabed - cols["rov.p[3]"][-1], abs=1e-3)


def test_a_dvl_seabed_other_than_the_environments_is_refused(tmp_path, capsys):
    text = SIMULATION.format(stop=1.0, interval=0.1, rtol=1e-6, atol=1e-8)
    text += "[environment]\nseabed_depth = 5.0\n"
    text += body("BlueROV2Heavy", {}, {}, "rov")
    text += '[controllers.dvl]\ntype = "dvl"\nvehicle = "rov"\nseabed_depth = 8.0\n'
    err = scenario_error(text, tmp_path, capsys)
    assert "controllers.dvl.seabed_depth: 8.0 m, but environment.seabed_depth is 5.0 m" in err
