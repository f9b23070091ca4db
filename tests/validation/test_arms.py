"""Vehicle-manipulator systems: León-González et al. (2024)'s arm against an independent recursive
Newton-Euler model, conservation laws of a free-floating vehicle with arms, joint motors and
placement."""

from __future__ import annotations

import mfm_reference as mfm
import numpy as np
import pytest
import rne_reference as rne
from conftest import ROOT, scenario_error
from reference import VehicleParameters
from scipy.integrate import solve_ivp

from orchestrator.controllers import arm_kinematics
from orchestrator.coupling.joints import skew
from orchestrator.coupling.runtime import ConstraintCoupling
from orchestrator.kinematics import (
    euler_angles,
    quaternion_from_euler,
    rotation_matrix,
    wrap_angle,
)
from orchestrator.scenario.reading import parse_scenario
from orchestrator.system.system import System

# Arm 1's attachment under the vehicle, m (León-González et al. 2024, Sec. 6.2)
MOUNT = (0.08, 0.18, 0.32)
DH2 = "[[0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]]"  # R_x(pi/2) R_z(pi/2), Table 1


def vec(v) -> str:
    return "[" + ", ".join(repr(float(x)) for x in v) + "]"


def arm(name: str, base: str, mount, angles=(0, 0, 0), rates=(0, 0, 0), motors=True) -> str:
    """Components and joints of one of León-González et al. (2024)'s arms on ``base`` (link frames
    at the CoG)."""
    r_g = [link.r_g for link in rne.LINKS]
    motor = "motor = { max_torque = 1.1376 }\n" if motors else ""
    text = "".join(
        f'[components.{name}_link{k}]\nfmu = "AnthropomorphicLink{k}"\n' for k in (1, 2, 3)
    )
    joints = [
        (base, mount, "[0.0, 0.0, 1.0]", "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]"),
        (f"{name}_link1", -r_g[0], "[0.0, -1.0, 0.0]", DH2),
        (f"{name}_link2", np.array([rne.UPPER_ARM, 0, 0]) - r_g[1], "[0.0, 0.0, 1.0]", None),
    ]
    for k, (a, at, axis, rotation) in enumerate(joints):
        text += f"""
[[joints]]
name = "{name}_q{k + 1}"
type = "revolute"
a = "{a}"
b = "{name}_link{k + 1}"
at = {vec(at)}
axis = {axis}
at_b = {vec(-r_g[k])}
angle = {angles[k]!r}
rate = {rates[k]!r}
{f"rotation_b = {rotation}" if rotation else ""}
{motor}"""
    return text


def feedforward(name: str, torques: list[tuple[float, float]], sample_time: float) -> str:
    """Joint PID with zero gains: open-loop torques amplitude * sin(2 pi t / period)."""
    text = f'\n[controllers.drive]\ntype = "joint_pid"\nsample_time = {sample_time}\n'
    for k, (amplitude, period) in enumerate(torques, 1):
        text += f"[controllers.drive.loops.{name}_q{k}]\n"
        text += f"feedforward = [{{ amplitude = {amplitude}, period = {period} }}]\n"
    return text


def zoh_torque(torques: list[tuple[float, float]], time: float) -> np.ndarray:
    return np.array([a * np.sin(2 * np.pi * time / period) for a, period in torques])


FIXED_BASE = """
[simulation]
stop_time = 10.0
output_interval = 0.05
solver = "DOP853"
rtol = 1e-11
atol = 1e-13
step = 0.05

[components.rov]
fmu = "BlueROV2Heavy"

[[joints]]
name = "base"
type = "fixed"
a = "rov"
"""


def test_fixed_base_arm_in_water_matches_recursive_newton_euler(run):
    """León-González et al. (2024)'s arm on a fixed, level vehicle, swinging under weight, buoyancy,
    added mass and damping from a bent pose while its motors apply sampled sinusoidal torques (held
    over each 0.05 s sample, below the 1.1376 N.m limit). The co-simulation (three link FMUs,
    revolute joints and motor pairs by Udwadia-Kalaba, DOP853 at rtol 1e-11) and the independent
    recursive Newton-Euler model of León-González et al. (2024) (``rne_reference.py``, integrated
    sample by sample with DOP853 at rtol 1e-12) must give the same joint angles within 1e-6 rad over
    10 s: both integrate the same equations far below that level, so the bound leaves room only for
    integration error, not for any modelling difference (a wrong sign of one fluid force moves the
    angles by 1e-2 rad within a second).
    """
    angles, rates = (0.3, -0.8, 0.6), (0.2, -0.5, 0.4)
    torques = [(0.002, 1.3), (0.02, 1.5), (0.01, 1.1)]
    text = FIXED_BASE + arm("arm", "rov", MOUNT, angles, rates) + feedforward("arm", torques, 0.05)
    cols, _ = run(text, "fixed_base")
    t = cols["time"]
    state = np.concatenate([angles, rates])
    reference = [state[:3]]
    for t0, t1 in zip(t[:-1], t[1:], strict=True):
        tau = zoh_torque(torques, t0)
        solution = solve_ivp(
            lambda _, y, tau=tau: np.concatenate([y[3:], rne.accelerations(y[:3], y[3:], tau)]),
            (t0, t1),
            state,
            method="DOP853",
            rtol=1e-12,
            atol=1e-12,
        )
        state = solution.y[:, -1]
        reference.append(state[:3])
    reference = np.array(reference)
    simulated = np.column_stack([cols[f"arm_q{k}.angle"] for k in (1, 2, 3)])
    error = np.max(np.abs(wrap_angle(simulated - reference)), axis=0)  # angles in (-pi, pi]
    print(f"RNE vs co-simulation, max joint angle difference over 10 s (rad): {error}")
    print(f"joint angle ranges (rad): {np.ptp(reference, axis=0)}")
    assert np.all(np.ptp(reference, axis=0) > 0.3)  # the arm really moves
    assert np.all(error < 1e-6)


def dry(*bodies: str) -> str:
    """Parameters that switch gravity, buoyancy, added mass and damping off on ``bodies``."""
    names = [f"data.{p}[{i}]" for p in ("added_mass", "D_L", "D_Q") for i in range(1, 7)]
    table = '"g" = 0.0\n' + "".join(f'"{n}" = 0.0\n' for n in names)
    return "".join(f"[components.{b}.parameters]\n{table}" for b in bodies)


FREE_FLOATING = """
[simulation]
stop_time = 5.0
output_interval = 0.05
solver = "DOP853"
rtol = 1e-11
atol = 1e-13
step = 0.05

[components.rov]
fmu = "BlueROV2Heavy"
[components.rov.start]
"nu[1]" = 0.05
"nu[2]" = -0.03
"nu[3]" = 0.02
"nu[4]" = 0.1
"nu[5]" = -0.05
"nu[6]" = 0.2
"""
BODIES = ["rov"] + [f"{arm}_link{k}" for arm in ("fore", "aft") for k in (1, 2, 3)]


def free_floating(motors: bool, torques=()) -> str:
    text = FREE_FLOATING
    text += arm("fore", "rov", MOUNT, (0.4, -0.6, 0.9), (0.5, -0.8, 1.0), motors)
    text += arm("aft", "rov", (-0.08, -0.18, 0.32), (-0.3, 0.7, -0.5), (-0.6, 0.4, 0.7), motors)
    text += dry(*BODIES)
    if torques:
        text += feedforward("fore", torques, 0.05)
        for k, (amplitude, period) in enumerate(torques, 1):
            text += f"[controllers.drive.loops.aft_q{k}]\n"
            text += f"feedforward = [{{ amplitude = {-amplitude}, period = {period} }}]\n"
    return text


def momenta(cols: dict, fmus) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Linear momentum (N.s, NED), angular momentum about the NED origin (N.m.s) and kinetic
    energy (J) of all bodies at every row, from the parameters of León-González et al. (2024) and
    the vehicle's record (links: origin at the centre of gravity)."""
    rov = VehicleParameters.from_fmu(fmus("BlueROV2Heavy"))
    inertia = {"rov": rov.mass_matrix()[0]}
    for k, link in enumerate(rne.LINKS, 1):
        M = np.zeros((6, 6))
        M[:3, :3], M[3:, 3:] = link.m * np.eye(3), link.I_g
        for arm in ("fore", "aft"):
            inertia[f"{arm}_link{k}"] = M
    P = L = T = 0.0
    for body, M in inertia.items():
        p = np.column_stack([cols[f"{body}.p[{i}]"] for i in (1, 2, 3)])
        R = rotation_matrix(np.column_stack([cols[f"{body}.q[{i}]"] for i in (1, 2, 3, 4)]))
        nu = np.column_stack([cols[f"{body}.nu[{i}]"] for i in range(1, 7)])
        h = nu @ M.T  # body-frame generalized momentum [linear; angular about the origin]
        linear = np.einsum("nij,nj->ni", R, h[:, :3])
        P = P + linear
        L = L + np.einsum("nij,nj->ni", R, h[:, 3:]) + np.cross(p, linear)
        T = T + 0.5 * np.einsum("ni,ni->n", nu, h)
    return P, L, T


def test_free_floating_vehicle_with_passive_arms_conserves_momentum_and_energy(run, fmus):
    """A BlueROV2 Heavy with two of León-González et al. (2024)'s arms, gravity, buoyancy, added
    mass and damping off, set spinning and drifting with the arms swinging freely (no motors): total
    linear and angular momentum and kinetic energy must stay at their initial values within 1e-8
    relative over 5 s. The Udwadia-Kalaba forces are internal and do no work on an ideal joint;
    DOP853 at rtol 1e-11 and the mass-metric projections between steps keep the numerical drift near
    1e-10, so 1e-8 leaves margin while a constraint force applied to one body only, or one that
    works, breaks it by orders of magnitude.
    """
    cols, _ = run(free_floating(motors=False), "passive")
    P, L, T = momenta(cols, fmus)
    drift = [
        np.max(np.linalg.norm(P - P[0], axis=1)) / np.linalg.norm(P[0]),
        np.max(np.linalg.norm(L - L[0], axis=1)) / np.linalg.norm(L[0]),
        np.max(np.abs(T - T[0])) / T[0],
    ]
    swing = [np.ptp(cols[f"fore_q{k}.angle"]) for k in (1, 2, 3)]
    print(f"passive arms: relative drift of P, L, T: {drift}; joint ranges {swing} rad")
    assert min(swing) > 0.2  # the arms really swing
    assert max(drift) < 1e-8


def test_motors_are_internal_and_their_work_is_the_energy_change(run, fmus):
    """The same free-floating system with both arms driven by their motors (sampled
    sinusoidal torques, held for 0.05 s): momentum is still conserved within 1e-8 relative
    (a motor is an equal and opposite torque pair), and the kinetic energy changes by the
    motors' work, sum over samples of tau_k (q(t_k+1) - q(t_k)) (exact for torques held
    over a sample), within 1e-8 of the energy scale; a motor pair acting on one body only,
    or with the wrong sign on the joint rate, fails both checks by orders of magnitude.
    """
    torques = [(0.001, 1.3), (0.01, 1.5), (0.005, 1.1)]
    cols, _ = run(free_floating(motors=True, torques=torques), "driven")
    P, L, T = momenta(cols, fmus)
    work = np.zeros(len(T))
    for arm_name in ("fore", "aft"):
        for k in (1, 2, 3):
            tau, q = cols[f"{arm_name}_q{k}.torque"], cols[f"{arm_name}_q{k}.angle"]
            work[1:] += np.cumsum(tau[:-1] * np.diff(np.unwrap(q)))
    drift = [
        np.max(np.linalg.norm(P - P[0], axis=1)) / np.linalg.norm(P[0]),
        np.max(np.linalg.norm(L - L[0], axis=1)) / np.linalg.norm(L[0]),
        np.max(np.abs(T - T[0] - work)) / np.max(T),
    ]
    print(f"driven arms: relative drift of P, L, energy balance: {drift}; work {np.ptp(work)} J")
    assert np.ptp(work) > 0.1 * T[0]  # the motors really work
    assert max(drift) < 1e-8


def assemble(text: str, tmp_path, fmu_dir) -> tuple[System, ConstraintCoupling, np.ndarray]:
    path = tmp_path / "system.toml"
    path.write_text(text)
    scenario = parse_scenario(text, str(path))
    system = System(scenario, str(path), fmu_dir)
    x0 = system.initialize(0.0, (0.0, 0.0, 0.0))
    return system, ConstraintCoupling(system, scenario.joints, [], scenario.coupling, x0), x0


TWO_ARM_ANGLES = {"arm1_q1": 0.4, "arm1_q2": -0.7, "arm2_q1": -0.3, "arm2_q2": 0.5}


def test_two_arm_rov_mass_matrix_equals_seed_002_moving_frame_method(tmp_path, fmu_dir, fmus):
    """Iversen et al. (2019)'s ROV with two 2-link arms (scenarios/uvms_two_arm_rov.toml, added mass
    off as in Iversen et al. (2019)), at a tilted attitude with bent arms. The co-simulation's
    reduced mass matrix M* = B' M B, with B the basis of the joints' velocity null space
    (Udwadia-Kalaba rows) in the coordinates (ROV velocity, four joint rates) and M the FMUs'
    masses, must equal Iversen et al.'s (2019) M* = B' M B built from its moving-frame
    transformation (``mfm_reference.py``) after the change of coordinates between the two: within
    1e-12 relative (both are exact; only rounding differs). Both are symmetric positive definite
    with the same structure: the two arms couple only through the ROV (zero arm-1/arm-2 block).
    """
    text = (ROOT / "scenarios" / "uvms_two_arm_rov.toml").read_text()
    for joint, angle in TWO_ARM_ANGLES.items():
        text = text.replace(f'name = "{joint}"\n', f'name = "{joint}"\nangle = {angle}\n')
    no_added_mass = ", ".join(f'"data.added_mass[{i}]" = 0.0' for i in range(1, 7))
    parameters = 'parameters = { hull_height = 0.0, "data.volume" = 0.0115 }'
    assert parameters in text
    text = text.replace(parameters, f"parameters = {{ hull_height = 0.0, {no_added_mass} }}")
    q = quaternion_from_euler(0.1, -0.2, 0.3)
    text += "[components.rov.start]\n" + "".join(
        f'"q[{i}]" = {float(q[i - 1])!r}\n' for i in range(1, 5)
    )
    for body in ("arm1_link1", "arm1_link2", "arm2_link1", "arm2_link2"):
        text += f"[components.{body}.parameters]\n" + no_added_mass.replace(", ", "\n") + "\n"
    system, coupling, x0 = assemble(text, tmp_path, fmu_dir)
    try:
        poses = coupling.poses(x0)
        index = coupling.assembly.index
        phi = coupling.assembly.stack(poses).phi
        select = np.zeros((10, len(phi[0])))
        select[:6, 6 * index["rov"] : 6 * index["rov"] + 6] = np.eye(6)
        for k, joint in enumerate(TWO_ARM_ANGLES):  # rate = axis . (R_a' R_b w_b - w_a)
            j = next(j for j in coupling.assembly.joints if j.name == joint)
            a, b = index[j.a], index[j.b]
            select[6 + k, 6 * a + 3 : 6 * a + 6] = -j.axis
            select[6 + k, 6 * b + 3 : 6 * b + 6] = j.axis @ poses[a].R.T @ poses[b].R
        B = np.linalg.solve(np.vstack([phi, select]), np.vstack([np.zeros((20, 10)), np.eye(10)]))
        reduced = B.T @ coupling.assembly.M @ B
        angles = np.array(
            [j.angle(poses[index[j.a]], poses[index[j.b]]) for j in coupling.assembly.joints]
        )
    finally:
        system.close()
    np.testing.assert_allclose(angles, list(TWO_ARM_ANGLES.values()), atol=1e-12)
    # Iversen et al. (2019)'s frame: axis 1 = -y (port), axis 2 = -z (up), axis 3 = x (forward).
    C = np.array([[0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]])
    rov = VehicleParameters.from_fmu(fmus("BlueROV2Heavy"))
    R = poses[index["rov"]].R
    tube = np.diag([2.5918e-5, 4.8420e-4, 4.8420e-4])  # MurCoSim.Arms.RodLinkData, kg.m2
    half = np.array([0.0, 0.0, 0.1])  # l_link / 2 along axis 3
    arms = tuple(
        mfm.Arm(np.array([side * 0.112667, 0.0, 0.2285]), half, half, half) for side in (1, -1)
    )  # s_j = (+-h/3, 0, l/2) with h = 0.338 m, l = 0.457 m (the scenario's choice)
    expected = mfm.reduced_mass_matrix(
        C @ R @ C.T,
        arms,
        np.array(list(TWO_ARM_ANGLES.values())),
        [rov.m] + [0.141372] * 4,
        [C @ rov.I_g @ C.T] + [C @ tube @ C.T] * 4,
    )
    # Iversen et al. (2019)'s q' from ours: x_c1' = C R (v + w x r_g), w = C w
    J = np.zeros((10, 10))
    J[:3, :3], J[:3, 3:6] = C @ R, -C @ R @ skew(rov.r_g)
    J[3:6, 3:6], J[6:, 6:] = C, np.eye(4)
    expected = J.T @ expected @ J
    difference = np.max(np.abs(reduced - expected)) / np.max(np.abs(expected))
    print(f"two-arm ROV: relative difference of M* to Iversen et al. (2019)'s: {difference:.2e}")
    print(f"eigenvalues of M*: {np.linalg.eigvalsh(reduced)}")
    assert difference < 1e-12
    np.testing.assert_allclose(reduced, reduced.T, atol=1e-14)
    assert np.linalg.eigvalsh(reduced)[0] > 0
    assert np.max(np.abs(reduced[6:8, 8:10])) < 1e-14 < np.max(np.abs(reduced[6:8, 6:8]))


def test_two_arm_rov_turns_against_its_arms(run):
    """Iversen et al. (2019)'s two-arm ROV (scenarios/uvms_two_arm_rov.toml), free-floating and
    neutrally buoyant, for one period of the arms' wave (4 s). The shoulders turn both arms about
    the vertical by +-0.5 rad; with no thrusters, the motor reactions must turn the ROV the other
    way about the vertical (Iversen et al. (2019)'s point: ROV motion induced by the arms). Checked:
    the ROV's yaw (about z, down) rises with the shoulder angle (about -z: a positive angle turns
    the arms to port, the ROV to starboard), correlation > 0.95, with an amplitude between 1 and 30
    percent of the shoulders' (the arms carry a small share of the inertia about the vertical); the
    joints stay together within 1e-9 m (RK4, 5 ms) and the PIDs track within 0.1 rad.
    """
    text = (ROOT / "scenarios" / "uvms_two_arm_rov.toml").read_text()
    cols, events = run(text.replace("stop_time = 10.0", "stop_time = 4.0"), "two_arm")
    yaw = euler_angles(np.column_stack([cols[f"rov.q[{i}]"] for i in (1, 2, 3, 4)]))[:, 2]
    shoulder = cols["arm1_q1.angle"]
    reference = 0.5 * np.sin(2 * np.pi * cols["time"] / 4.0)
    ratio = np.ptp(yaw) / np.ptp(shoulder)
    print(f"two-arm ROV: yaw amplitude {np.degrees(np.ptp(yaw) / 2):.2f} deg, ratio {ratio:.3f}")
    assert np.corrcoef(yaw, shoulder)[0, 1] > 0.95
    assert 0.01 < ratio < 0.3
    assert max(np.max(cols[f"{j}.position_error"]) for j in TWO_ARM_ANGLES) < 1e-9
    assert np.max(np.abs(shoulder - reference)) < 0.1
    assert not [e for e in events if e["event"] == "controller_fault"]


FIXED_ARM = FIXED_BASE.replace("stop_time = 10.0", "stop_time = 0.1") + arm("arm", "rov", MOUNT)


def placing(name: str, kind: str, a: str, b: str) -> str:
    """A joint that places b with its origin on the joint (at_b = 0)."""
    keys = f'name = "{name}"\ntype = "{kind}"\na = "{a}"\nb = "{b}"\n'
    return f"\n[[joints]]\n{keys}at_b = [0.0, 0.0, 0.0]\n"


WELD = placing("tool", "weld", "arm_link3", "tool")
TOOL = '\n[components.tool]\nfmu = "GenericVehicle"\n'
BAD_ARMS = [
    (
        "placed body with start values",
        FIXED_ARM + '[components.arm_link2.start]\n"p[1]" = 1.0\n',
        "joints[2].at_b: 'arm_link2' is placed by this joint; remove its start values ['p[1]']",
    ),
    (
        "not a rotation",
        FIXED_ARM.replace(DH2, "[[1.0, 1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]]"),
        "joints[2]: rotation_b must be a rotation matrix",
    ),
    (
        "child placed before its parent",
        FIXED_BASE
        + '[components.l1]\nfmu = "AnthropomorphicLink1"\n'
        + '[components.l2]\nfmu = "AnthropomorphicLink2"\n'
        + placing("elbow", "revolute", "l1", "l2")
        + placing("shoulder", "revolute", "rov", "l1"),
        "joints[2].b: 'l1' is placed here, after joints[1] placed a body from its pose",
    ),
    (
        "angle on a weld",
        FIXED_ARM + TOOL + WELD + "angle = 0.3\n",
        "joints[4].angle: only for a revolute joint",
    ),
    (
        "motor on a weld",
        FIXED_ARM + TOOL + WELD + "motor = { max_torque = 1.0 }\n",
        "joints[4].motor: only revolute joints have motors",
    ),
    (
        "rotation without placement",
        FIXED_ARM + TOOL + WELD.replace("at_b = [0.0, 0.0, 0.0]", "rotation_b = " + DH2),
        "joints[4].rotation_b: only with at_b (a placed body b)",
    ),
    (
        "loop on a joint without motor",
        FIXED_BASE
        + arm("arm", "rov", MOUNT, motors=False)
        + feedforward("arm", [(0.1, 1.0)], 0.01),
        "controllers.drive.loops.arm_q1: no joint 'arm_q1' with a motor (motors: none)",
    ),
    (
        "target joint without loop",
        FIXED_ARM
        + feedforward("arm", [(0.1, 1.0)], 0.01)
        + '[controllers.drive.targets.arm]\njoints = ["arm_q1", "arm_q2", "arm_q3"]\n'
        + "upper_arm = 0.12\nforearm = 0.25\n",
        "controllers.drive.targets.arm.joints: 'arm_q2' has no loop in 'loops'",
    ),
]


def test_inverse_kinematics_rates_are_the_derivative_of_the_angles():
    """The analytic joint rates of a moving end effector (what the joint PID's task-space
    references use) against central differences of the inverse kinematics itself (step 1e-6
    s: truncation ~1e-12, round-off ~1e-10 relative), over 2000 random points of the
    workspace, both elbows; the forward model puts the end effector back on each point
    (1e-12 m); a stretched arm has no finite rates and says so."""
    rng = np.random.default_rng(3)
    upper, fore, h = 0.12, 0.25, 1e-6
    for _ in range(1000):
        distance, azimuth = rng.uniform(0.14, 0.36), rng.uniform(-np.pi, np.pi)
        polar = rng.uniform(0.05, np.pi - 0.05)
        point = distance * np.array(
            [np.sin(polar) * np.cos(azimuth), np.sin(polar) * np.sin(azimuth), np.cos(polar)]
        )
        velocity = rng.normal(size=3) * 0.1
        for elbow_down in (True, False):
            angles, rates = arm_kinematics.inverse_motion(point, velocity, upper, fore, elbow_down)
            ahead = arm_kinematics.inverse(point + h * velocity, upper, fore, elbow_down)
            behind = arm_kinematics.inverse(point - h * velocity, upper, fore, elbow_down)
            difference = (np.array(ahead) - np.array(behind)) / (2 * h)
            np.testing.assert_allclose(rates, difference, rtol=1e-8, atol=1e-8)
            assert np.allclose(arm_kinematics.forward(angles, upper, fore), point, atol=1e-12)
    with pytest.raises(ValueError, match="edge of reach"):
        arm_kinematics.inverse_motion([0.0, 0.0, upper + fore], [0.1, 0.0, 0.0], upper, fore, True)


@pytest.mark.parametrize(("label", "text", "expected"), BAD_ARMS, ids=[c[0] for c in BAD_ARMS])
def test_bad_arm_gives_one_line_error(label, text, expected, tmp_path, capsys, fmu_dir):
    err = scenario_error(text, tmp_path, capsys)
    assert expected in err, err


def test_motor_torque_is_limited_and_unreachable_targets_are_reported(run):
    """A motor commanded beyond its limit applies (and records) the limit, 0.01 N.m here; an
    end-effector target out of the arm's reach (0.37 m) is a controller fault naming the
    point, with the previous torques held."""
    text = FIXED_ARM.replace("max_torque = 1.1376", "max_torque = 0.01")
    text += feedforward("arm", [(0.0, 1.0)], 0.01)
    text = text.replace("feedforward = [{ amplitude = 0.0, period = 1.0 }]", "feedforward = 0.5")
    cols, _ = run(text, "limits")
    np.testing.assert_allclose(cols["arm_q1.torque"][1:], 0.01)
    reach = FIXED_ARM + "\n".join(
        [
            '[controllers.ik]\ntype = "joint_pid"\nsample_time = 0.05',
            *(f"[controllers.ik.loops.arm_q{k}]" for k in (1, 2, 3)),
            '[controllers.ik.targets.arm]\njoints = ["arm_q1", "arm_q2", "arm_q3"]',
            "upper_arm = 0.12\nforearm = 0.25\nx = 0.5\n",
        ]
    )
    _, events = run(reach, "reach")
    faults = [e["detail"] for e in events if e["event"] == "controller_fault"]
    assert faults and "out of reach" in faults[0] and "[0.5, 0.0, 0.0]" in faults[0], faults


def window(time: np.ndarray, start: float, stop: float, period: float = 5.0) -> np.ndarray:
    """León-González et al. (2024)'s windowed reference: pi/4 sin(2 pi t / 5) for start < t <= stop,
    else 0."""
    return np.where(
        (time > start) & (time <= stop), np.pi / 4 * np.sin(2 * np.pi * time / period), 0
    )


def tracking(error: np.ndarray) -> tuple[float, float]:
    """Largest and root-mean-square absolute error."""
    return float(np.max(np.abs(error))), float(np.sqrt(np.mean(error**2)))


def attitude(cols: dict, body: str = "rov") -> np.ndarray:
    """Roll, pitch, yaw (deg) of ``body`` at every row."""
    return np.degrees(euler_angles(np.column_stack([cols[f"{body}.q[{i}]"] for i in (1, 2, 3, 4)])))


@pytest.mark.slow
def test_seed_004_test_2_arm_motion_turns_the_vehicle(run):
    """León-González et al. (2024)'s test 2 (scenarios/uvms_arm_motion.toml, 55 s): all four arms
    follow windowed sinusoids in q1, then q2, then q3 under the joint PID, the vehicle holds only
    its depth. Reported: the vehicle's attitude excursion per window and each joint's tracking error
    (max, RMS). Checked: at rest (before 10 s) the vehicle stays level within 0.2 deg; the fore-aft
    swing of q2 pitches it visibly, by more than 2 deg (a zero-angular-momentum estimate with the
    arms' inertia about their shoulders, 4 x 0.028 kg.m2 swinging +-0.79 rad, against the system's
    pitch inertia of about 0.6 kg.m2 gives 8 deg); every joint tracks its reference within 0.2 rad
    (a quarter of the amplitude; the q2 loop is lightly damped, see the scenario).
    """
    cols, _ = run((ROOT / "scenarios" / "uvms_arm_motion.toml").read_text(), "test2")
    t = cols["time"]
    angles = attitude(cols)
    windows = {"rest": (0, 10), "q1": (10, 25), "q2": (25, 40), "q3": (40, 55)}
    excursion = {}
    for name, (start, stop) in windows.items():
        inside = (t >= start) & (t <= stop)
        excursion[name] = np.max(np.abs(angles[inside]), axis=0)
        print(f"test 2, {name} window: max |roll, pitch, yaw| = {excursion[name]} deg")
    references = {1: window(t, 10, 20), 2: window(t, 25, 35), 3: window(t, 40, 50)}
    errors = {}
    for k in (1, 2, 3, 4):
        for j, reference in references.items():
            errors[f"arm{k}_q{j}"] = tracking(cols[f"arm{k}_q{j}.angle"] - reference)
            print(f"test 2, arm{k}_q{j}: max, RMS tracking error {errors[f'arm{k}_q{j}']} rad")
    assert np.all(excursion["rest"] < 0.2)
    assert excursion["q2"][1] > 2.0
    assert max(e[0] for e in errors.values()) < 0.2


@pytest.mark.slow
def test_seed_004_test_3_spiral_with_an_arm_drawing_a_circle(run):
    """León-González et al. (2024)'s test 3 (scenarios/uvms_spiral.toml, 20 s): the vehicle descends
    a spiral facing its centre under the PD while arm 1's end effector draws a circle (joint
    references by inverse kinematics) and arms 2-4 hold still. Reported: the vehicle's pose error,
    each joint's tracking error (max, RMS) and the end effector's distance from its circle. Checked:
    the PD keeps the vehicle within 5 cm and 1 deg of the spiral despite the arm's reaction; arms
    2-4 stay within 0.1 rad of rest, arm 1's shoulder and elbow within 0.2 rad of their references;
    the end effector computed from link 3's pose in the co-simulation is where the inverse
    kinematics' forward model puts it for the measured joint angles, within 1e-8 m (the joint
    conventions of the controller are those of the built chain; only the joints' drift, below 1e-9
    m, separates them).
    """
    cols, _ = run((ROOT / "scenarios" / "uvms_spiral.toml").read_text(), "test3")
    t = cols["time"]
    omega = 2 * np.pi / 10
    spiral = np.column_stack([0.5 * np.sin(omega * t), 0.5 * np.cos(omega * t), 0.025 * t])
    p = np.column_stack([cols[f"rov.p[{i}]"] for i in (1, 2, 3)])
    angles = attitude(cols)
    heading = np.degrees(wrap_angle(np.radians(angles[:, 2]) - (1.5 * np.pi - omega * t)))
    position_error = tracking(np.linalg.norm(p - spiral, axis=1))
    print(f"test 3, vehicle: position error (max, RMS) {position_error} m, heading error max")
    print(f"  {np.max(np.abs(heading))} deg, max |roll, pitch| {np.max(np.abs(angles[:, :2]), 0)}")
    circle = np.column_stack(
        [0.24 + 0.08 * np.sin(2 * np.pi * t / 5), 0 * t, 0.11 + 0.08 * np.cos(2 * np.pi * t / 5)]
    )
    references = np.array([arm_kinematics.inverse(c, 0.12, 0.25, True) for c in circle])
    errors = {}
    for k in (1, 2, 3, 4):
        for j in (1, 2, 3):
            reference = references[:, j - 1] if k == 1 else 0.0
            errors[f"arm{k}_q{j}"] = tracking(cols[f"arm{k}_q{j}.angle"] - reference)
            print(f"test 3, arm{k}_q{j}: max, RMS tracking error {errors[f'arm{k}_q{j}']} rad")
    R_rov = rotation_matrix(np.column_stack([cols[f"rov.q[{i}]"] for i in (1, 2, 3, 4)]))
    R_3 = rotation_matrix(np.column_stack([cols[f"arm1_link3.q[{i}]"] for i in (1, 2, 3, 4)]))
    p_3 = np.column_stack([cols[f"arm1_link3.p[{i}]"] for i in (1, 2, 3)])
    tip = p_3 + np.einsum(
        "nij,j->ni", R_3, (np.array([0.25, 0.0, 0.0]) - rne.LINKS[2].r_g)
    )  # end effector, NED
    tip = np.einsum("nji,nj->ni", R_rov, tip - p) - np.array(MOUNT)  # from the attachment
    q = np.column_stack([cols[f"arm1_q{j}.angle"] for j in (1, 2, 3)])
    model = np.array([arm_kinematics.forward(angles, 0.12, 0.25) for angles in q])
    off_circle = tracking(np.linalg.norm(tip - circle, axis=1))
    print(f"test 3, end effector from the circle (max, RMS): {off_circle} m")
    assert position_error[0] < 0.05 and np.max(np.abs(heading)) < 1.0
    assert max(errors[f"arm{k}_q{j}"][0] for k in (2, 3, 4) for j in (1, 2, 3)) < 0.1
    assert errors["arm1_q2"][0] < 0.2 and errors["arm1_q3"][0] < 0.2
    assert np.max(np.abs(tip - model)) < 1e-8
