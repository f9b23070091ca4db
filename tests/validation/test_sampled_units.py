"""Co-Simulation FMUs inside a strongly coupled run (``orchestrator/master/sampled.py``): the
sampled scheme against its exact solution on a linear system, against weak coupling, on a vehicle
with Co-Simulation thrusters, a controller and a weld, and the errors of bad input."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import numpy as np
import pytest
import tomli_w
from foreign import spring_mass_fmu

from orchestrator.errors import ScenarioError
from orchestrator.kinematics import euler_angles
from orchestrator.recording.tables import read_events, read_timeseries
from orchestrator.runner.run import run_scenario

ROOT = Path(__file__).resolve().parents[2]

M1, M2, K, D0 = 1.0, 2.0, 6.0, 1.0  # kg, kg, N/m, m: initial stretch of the spring
STEP = 0.01  # s: communication step of the Co-Simulation mass


@pytest.fixture(scope="module", params=["2.0", "3.0"], ids=["FMI2", "FMI3"])
def spring_mass(request, tmp_path_factory):
    """The spring-mass FMU of FMI 2.0 and 3.0, with both interfaces."""
    folder = tmp_path_factory.mktemp("spring_mass")
    return spring_mass_fmu(folder, ("ModelExchange", "CoSimulation"), request.param)


def two_masses(fmu: str, coupling: str) -> str:
    """Mass one (no spring) steps itself (Co-Simulation); mass two, pulled towards it by a
    spring, is integrated by the master (Model Exchange). Mass three, a copy of mass two
    that steps itself, follows mass one without pulling it back (Co-Simulation to
    Co-Simulation)."""
    return f"""
[simulation]
stop_time = 2.0
output_interval = 0.1
solver = "RK45"
rtol = 1e-11
atol = 1e-13
step = {STEP}
{coupling}
[components.one]
fmu = "{fmu}"
interface = "co_simulation"
parameters = {{ m = {M1} }}
[components.two]
fmu = "{fmu}"
interface = "model_exchange"
parameters = {{ m = {M2}, k = {K} }}
start = {{ x = {D0} }}
[[connections]]
from = "one.x"
to = "two.x_other"
[[connections]]
from = "two.F_other"
to = "one.F"
[components.three]
fmu = "{fmu}"
interface = "co_simulation"
parameters = {{ m = {M2}, k = {K} }}
start = {{ x = {D0} }}
[[connections]]
from = "one.x"
to = "three.x_other"
"""


def sampled_exact(stop: float, h: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact solution of the sampled scheme at its communication points t_k = k h.

    Over [t_k, t_k+1] mass one feels the held force F_k = K (x2 - x1)(t_k): constant
    acceleration F_k / M1. Mass two feels the spring to the held x1(t_k): with
    d = x2 - x1(t_k), d'' = -w^2 d, w = sqrt(K / M2), a harmonic oscillation. Returns
    times, x1, x2.
    """
    w = math.sqrt(K / M2)
    x1, v1, x2, v2 = 0.0, 0.0, D0, 0.0
    times, ones, twos = [0.0], [x1], [x2]
    for k in range(round(stop / h)):
        a1 = K * (x2 - x1) / M1
        d = x2 - x1
        d, v2 = (
            d * math.cos(w * h) + v2 / w * math.sin(w * h),
            (-d * w * math.sin(w * h) + v2 * math.cos(w * h)),
        )
        x2 = x1 + d
        x1, v1 = x1 + v1 * h + a1 * h * h / 2, v1 + a1 * h
        times.append((k + 1) * h)
        ones.append(x1)
        twos.append(x2)
    return np.array(times), np.array(ones), np.array(twos)


def continuous_exact(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two masses coupled continuously: the stretch oscillates at sqrt(K (M1+M2)/(M1 M2))."""
    omega = math.sqrt(K * (M1 + M2) / (M1 * M2))
    centre = M2 * D0 / (M1 + M2)
    d = D0 * np.cos(omega * t)
    return centre - M2 / (M1 + M2) * d, centre + M1 / (M1 + M2) * d


def test_sampled_co_simulation_unit_is_the_exact_zero_order_hold(run, spring_mass):
    """Recorded positions equal the exact solution of the sampled scheme to 1e-8 m.

    The Co-Simulation mass integrates constant acceleration with RK4 (exact to round-off),
    the master integrates mass two with Dormand-Prince at rtol 1e-11, so 1e-8 m bounds the
    integration error over 200 steps. The continuously coupled solution differs by more than
    1e-3 m (the hold delays the coupling by up to one step), so the reference tells the
    schemes apart; so would a scheme that handed mass two the output at t_k+1.
    """
    cols, events = run(two_masses(spring_mass, ""), "strong")
    assert events[0]["detail"] == (
        "solver RK45, 2 states, 2 Co-Simulation unit(s) stepped at least every 0.01 s"
    )
    t, x1, x2 = sampled_exact(2.0, STEP)
    at = np.searchsorted(t, cols["time"] - 1e-9)
    assert np.allclose(t[at], cols["time"], atol=1e-9)
    errors = np.abs(cols["one.x"] - x1[at]), np.abs(cols["two.x"] - x2[at])
    print(f"max error vs sampled exact: {max(e.max() for e in errors):.3g} m")
    assert max(e.max() for e in errors) < 1e-8
    # mass three sees what mass two sees, one's x held from t_k: the same motion
    assert np.array_equal(cols["three.x_other"], cols["one.x"])
    assert np.max(np.abs(cols["three.x"] - cols["two.x"])) < 1e-8
    c1, c2 = continuous_exact(cols["time"])
    assert max(np.abs(cols["one.x"] - c1).max(), np.abs(cols["two.x"] - c2).max()) > 1e-3


def test_sampled_units_agree_with_weak_jacobi_hold(run, spring_mass):
    """The same system under weak coupling (Jacobi, held inputs, macro step = the step of the
    sampled unit) is the same scheme with mass two integrated by 1 ms RK4: the runs agree to
    1e-8 m (RK4 error for w h = 1.7e-3 is far below that)."""
    strong, _ = run(two_masses(spring_mass, ""), "strong")
    weak_section = f"""[cosimulation]
macro_step = {STEP}
order = "jacobi"
inputs = "hold"
"""
    text = two_masses(spring_mass, weak_section).replace(f"step = {STEP}\n", "step = 0.001\n", 1)
    weak, events = run(text, "weak")
    assert "weak coupling" in events[0]["detail"]
    assert np.array_equal(strong["time"], weak["time"])
    gaps = {c: np.max(np.abs(strong[c] - weak[c])) for c in ("one.x", "two.x", "one.F")}
    print(f"strong vs weak: {gaps}")
    for column in ("one.x", "two.x", "one.F", "two.x_other", "three.x", "three.x_other"):
        assert np.max(np.abs(strong[column] - weak[column])) < 1e-8, column


def welded_pair(stop: float, thrusters: str, cosimulation: dict | None = None) -> str:
    """The shipped welded BlueROV2 Heavy pair holding station (surge speed 0) at 2 m depth,
    heading 45 deg, for ``stop`` s: vehicle a's thrusters from the FMI 2.0 variant, b's from
    the FMI 3.0 one, both run through their Co-Simulation interface (``thrusters`` "cs"), or
    every thruster Model Exchange (``thrusters`` "me")."""
    scenario = tomllib.loads((ROOT / "scenarios/bluerov2_heavy_welded_pair.toml").read_text())
    scenario["simulation"]["stop_time"] = stop
    scenario["controllers"]["autopilot"]["surge_speed"] = 0.0
    for name, component in scenario["components"].items():
        if component.get("mount") and thrusters == "cs":
            component["fmu"] = (
                "fmi2/LaggedThruster" if name.startswith("a_") else ("fmi3/LaggedThruster")
            )
            component["interface"] = "co_simulation"
    if cosimulation:
        scenario["cosimulation"] = cosimulation
    return tomli_w.dumps(scenario)


def euler_deg(cols, body: str) -> np.ndarray:
    return np.degrees(euler_angles(quaternions(cols, body)))


def quaternions(cols, body: str) -> np.ndarray:
    return np.stack([cols[f"{body}.q[{i}]"] for i in (1, 2, 3, 4)], -1)


def positions(cols, body: str) -> np.ndarray:
    return np.stack([cols[f"{body}.p[{i}]"] for i in (1, 2, 3)], -1)


@pytest.fixture(scope="module")
def strong_pair(fmu_dir, tmp_path_factory):
    """The welded pair with Co-Simulation thrusters under strong coupling, 20 s."""
    folder = tmp_path_factory.mktemp("strong_pair")
    path = folder / "pair.toml"
    path.write_text(welded_pair(20.0, "cs"))
    run_scenario(path, folder / "out", fmu_dir, plots=False)
    return read_timeseries(folder / "out/timeseries.csv"), read_events(folder / "out/events.csv")


def test_vehicle_with_co_simulation_thrusters_controller_and_weld(strong_pair):
    """Strong coupling of the two vehicles (26 states: the thrusters' motor lags are inside
    their Co-Simulation steps of 0.05 s, the controllers' sample time) with the autopilot,
    the thrust allocation over all sixteen thrusters and the weld: after 20 s the depth is
    within 0.05 m of 2 m and the heading within 1.5 deg of 45 deg over the last 5 s (the
    integral depth loop is still settling); the weld is kept to 1e-9 m by the projection."""
    cols, events = strong_pair
    assert events[0]["detail"] == (
        "solver RK45, 26 states, 16 Co-Simulation unit(s) stepped at least every 0.05 s"
    )
    assert events[-1]["event"] == "stop"
    assert abs(cols["a.p[3]"][-1] - 2.0) < 0.05
    late = cols["time"] >= 15.0
    assert np.max(np.abs(euler_deg(cols, "a")[late, 2] - 45.0)) < 1.5
    assert np.max(cols["weld.position_error"]) < 1e-9
    # the Co-Simulation thrusters push: recorded outputs, held between their steps
    assert np.max(np.abs(cols["a_t5.thrust"])) > 1.0 and np.max(np.abs(cols["b_t5.thrust"])) > 1.0


def test_weak_coupling_of_the_same_pair_stays_close(strong_pair, run):
    """The same system under weak coupling (Jacobi, held inputs, macro step 0.05 s, the
    vehicles integrated by 10 ms RK4): vehicle a, which carries the autopilot, stays within
    0.1 m and 5 deg of heading of the strong run. Vehicle b differs by the weld's drift: weak
    coupling holds the weld force over each step and nothing projects the pair back (about
    1 m over 20 s, as `murcosim drift` reports). With the weld point at 0.5 m from both
    origins, p_b = p_a + R_a r_a - R_b r_b + e (e the weld's position error), so b's distance
    from its strong trajectory is at most a's plus 0.5 m times both rotation differences
    (rad) plus both weld errors."""
    strong, _ = strong_pair
    weak, events = run(
        welded_pair(20.0, "cs", {"macro_step": 0.05, "order": "jacobi", "inputs": "hold"}),
        "weak_pair",
    )
    assert "weak coupling" in events[0]["detail"]
    assert np.array_equal(strong["time"], weak["time"])
    gap_a = np.linalg.norm(positions(strong, "a") - positions(weak, "a"), axis=1)
    assert gap_a.max() < 0.1
    heading = euler_deg(strong, "a")[:, 2] - euler_deg(weak, "a")[:, 2]
    assert np.max(np.abs(heading)) < 5.0

    def rotation_gap(body: str) -> np.ndarray:
        dot = np.abs(np.sum(quaternions(strong, body) * quaternions(weak, body), axis=1))
        return 2 * np.arccos(np.clip(dot, 0.0, 1.0))

    gap_b = np.linalg.norm(positions(strong, "b") - positions(weak, "b"), axis=1)
    bound = gap_a + 0.5 * (rotation_gap("a") + rotation_gap("b"))
    bound += weak["weld.position_error"] + strong["weld.position_error"]
    print(
        f"a within {gap_a.max():.3g} m, b within {gap_b.max():.3g} m, weak weld error "
        f"up to {weak['weld.position_error'].max():.3g} m"
    )
    assert np.all(gap_b <= bound + 1e-9)


@pytest.mark.slow
def test_co_simulation_thrusters_against_model_exchange_thrusters(strong_pair, run):
    """The pair with every thruster Model Exchange (motor lags integrated with the vehicles):
    the only difference is the hold of the thrusters' inputs and outputs over 0.05 s, which
    moves the vehicles by less than 5 cm (measured 2.7 cm) and their attitude by less than
    1.5 deg (measured 1.02 deg, heading) in 20 s, while the attitudes swing by up to 51 deg
    (roll, as the pair turns to 45 deg in its first seconds)."""
    strong, _ = strong_pair
    me, events = run(welded_pair(20.0, "me"), "me_pair")
    assert events[0]["detail"] == "solver RK45, 42 states"
    for body in "ab":
        assert np.linalg.norm(positions(strong, body) - positions(me, body), axis=1).max() < 0.05
        assert np.max(np.abs(euler_deg(strong, body) - euler_deg(me, body))) < 1.5


def one_line_error(path: Path, text: str, fmu_dir: Path) -> str:
    path.write_text(text)
    with pytest.raises(ScenarioError) as caught:
        run_scenario(path, path.parent / "out", fmu_dir, plots=False)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: ")
    return message


def test_co_simulation_body_in_a_joint_is_refused(tmp_path, fmu_dir):
    """Joints act on Model Exchange bodies: a vehicle forced to Co-Simulation in a weld."""
    scenario = tomllib.loads(welded_pair(1.0, "me"))
    scenario["components"]["b"].update(fmu="fmi3/BlueROV2Heavy", interface="co_simulation")
    text = tomli_w.dumps(scenario)
    message = one_line_error(tmp_path / "pair.toml", text, fmu_dir)
    assert message.endswith(
        "joints[0].b: 'b' runs as a Co-Simulation FMU; joints and docking need a Model "
        'Exchange body (interface = "model_exchange", or a [cosimulation] section)'
    )


def test_bad_connections_of_a_sampled_unit(tmp_path, fmu_dir, spring_mass):
    """Units are checked on links to and from a Co-Simulation unit as on any other; an input
    summing a Model Exchange and a Co-Simulation output is refused (the compiled right-hand
    side would overwrite the held part)."""
    base = two_masses(spring_mass, "")
    mismatch = base.replace('from = "two.F_other"\nto = "one.F"', 'from = "two.x"\nto = "one.F"')
    message = one_line_error(tmp_path / "units.toml", mismatch, fmu_dir)
    assert message.endswith("connections[1]: two.x -> one.F: units differ ('m' -> 'N')")
    mixed = base + (
        f'[components.four]\nfmu = "{spring_mass}"\ninterface = "model_exchange"\n'
        '[[connections]]\nfrom = "four.x"\nto = "two.x_other"\n'
    )
    message = one_line_error(tmp_path / "mixed.toml", mixed, fmu_dir)
    assert message.endswith(
        "connections: two.x_other sums outputs of one and four, one Model Exchange and one "
        "Co-Simulation; under strong coupling an input's sources are all of one kind"
    )


def test_interface_the_fmu_does_not_offer(tmp_path, fmu_dir):
    """A Co-Simulation-only FMU asked to run as Model Exchange."""
    fmu = spring_mass_fmu(tmp_path, ("CoSimulation",), "2.0")
    text = two_masses(str(fmu), "")  # mass two asks for Model Exchange
    message = one_line_error(tmp_path / "interface.toml", text, fmu_dir)
    assert message.endswith(
        "components.two.interface: SpringMass_cs.fmu has no ModelExchange interface (it offers "
        "CoSimulation only)"
    )


def test_factor_and_offset_on_links_of_sampled_units(run, spring_mass):
    """to = factor * from + offset on the links Co-Simulation to Model Exchange, Model
    Exchange to Co-Simulation and Co-Simulation to Co-Simulation, at every recorded point
    (inputs and outputs recorded there are those held from the same communication point)."""
    text = two_masses(spring_mass, "")
    for target, factor, offset in (("two.x_other", 2.0, 0.5), ("one.F", -1.5, 0.25)):
        text = text.replace(
            f'to = "{target}"\n', f'to = "{target}"\nfactor = {factor}\noffset = {offset}\n'
        )
    text = text.replace('to = "three.x_other"\n', 'to = "three.x_other"\nfactor = 0.5\n')
    cols, _ = run(text, "factors")
    assert np.allclose(cols["two.x_other"], 2.0 * cols["one.x"] + 0.5, rtol=0, atol=1e-15)
    assert np.allclose(cols["one.F"], -1.5 * cols["two.F_other"] + 0.25, rtol=0, atol=1e-12)
    assert np.allclose(cols["three.x_other"], 0.5 * cols["one.x"], rtol=0, atol=1e-15)
    assert np.ptp(cols["one.x"]) > 0.1  # the masses move


def test_controller_writes_an_input_of_a_sampled_unit(run, spring_mass):
    """A schedule pushes mass three (Co-Simulation) with F = 2 N from 0.5 s. The unit takes
    the command at that communication point for its next step: up to 0.5 s mass three moves
    exactly like mass two (1e-8 m, as above), and 0.1 s later it is ahead by about
    F t^2 / (2 m) = 5 mm."""
    text = two_masses(spring_mass, "") + (
        '[controllers.push]\ntype = "schedule"\nsample_time = 0.1\n'
        '[[controllers.push.steps]]\ntime = 0.5\nvalues = { "three.F" = 2.0 }\n'
    )
    cols, _ = run(text, "push")
    pushed = cols["time"] >= 0.5 - 1e-9  # recorded inputs: those set at the point
    assert np.all(cols["three.F"][~pushed] == 0.0) and np.all(cols["three.F"][pushed] == 2.0)
    before = cols["time"] <= 0.5 + 1e-9
    gap = cols["three.x"] - cols["two.x"]
    assert np.max(np.abs(gap[before])) < 1e-8
    at = np.searchsorted(cols["time"], 0.6 - 1e-9)
    assert gap[at] == pytest.approx(2.0 * 0.1**2 / (2 * M2), rel=0.05)
