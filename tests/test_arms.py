"""Vehicle-manipulator systems: seed 004's arm against an independent recursive Newton-Euler
model, conservation laws of a free-floating vehicle with arms, joint motors and placement."""

from __future__ import annotations

import numpy as np
import rne_reference as rne
from reference import VehicleParameters
from scipy.integrate import solve_ivp

from orchestrator.kinematics import rotation_matrix, wrap_angle

MOUNT = (0.08, 0.18, 0.32)  # m, arm 1's attachment under the vehicle (seed 004 Sec. 6.2)
DH2 = "[[0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]]"  # R_x(pi/2) R_z(pi/2), Table 1


def vec(v) -> str:
    return "[" + ", ".join(repr(float(x)) for x in v) + "]"


def arm(name: str, base: str, mount, angles=(0, 0, 0), rates=(0, 0, 0), motors=True) -> str:
    """Components and joints of one of seed 004's arms on ``base`` (link frames at the CoG)."""
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
    """Seed 004's arm on a fixed, level vehicle, swinging under weight, buoyancy, added mass
    and damping from a bent pose while its motors apply sampled sinusoidal torques (held over
    each 0.05 s sample, below the 1.1376 N.m limit). The co-simulation (three link FMUs,
    revolute joints and motor pairs by Udwadia-Kalaba, DOP853 at rtol 1e-11) and the
    independent recursive Newton-Euler model of seed 004 (``rne_reference.py``, integrated
    sample by sample with DOP853 at rtol 1e-12) must give the same joint angles within
    1e-6 rad over 10 s: both integrate the same equations far below that level, so the bound
    leaves room only for integration error, not for any modelling difference (a wrong sign of
    one fluid force moves the angles by 1e-2 rad within a second).
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
    energy (J) of all bodies at every row, from the parameters of seed 004 and the vehicle's
    record (links: origin at the centre of gravity)."""
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
    """A BlueROV2 Heavy with two of seed 004's arms, gravity, buoyancy, added mass and damping
    off, set spinning and drifting with the arms swinging freely (no motors): total linear
    and angular momentum and kinetic energy must stay at their initial values within 1e-8
    relative over 5 s. The Udwadia-Kalaba forces are internal and do no work on an ideal
    joint; DOP853 at rtol 1e-11 and the mass-metric projections between steps keep the
    numerical drift near 1e-10, so 1e-8 leaves margin while a constraint force applied to one
    body only, or one that works, breaks it by orders of magnitude.
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
