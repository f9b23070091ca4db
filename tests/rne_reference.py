"""Independent reference: León-González et al. (2024)'s recursive Newton-Euler model of one 3-DOF
arm in water.

Written from the paper's equations, sharing no code with the orchestrator or the Modelica
library: the modified Denavit-Hartenberg chain of Table 1 (Eqs. 19, 39), the forward recursion
of velocities and accelerations (Eqs. 22-26), the backward recursion of forces (Eqs. 28-31)
and per-link weight, buoyancy, added mass and linear damping (Eqs. 33-37), with the links'
numbers of Tables 2 and 3 typed in again here. Every vector is in the local DH frame of its
link. The base (the vehicle frame O_0) is fixed and level, so gravity enters only through the
weight and buoyancy of each link.

Reading of the damaged equations (the same choices as the Modelica library documents): the
lost minus signs make every fluid force oppose the motion, and the added-mass and damping
forces use the velocity and acceleration of the link's centre g_l, through which León-González et
al. (2024) lets all external forces act (f_a = -m_f a_g, n_a = -I_a alpha - w x I_a w, f_d = -d v_g,
n_d = -D w); Eq. 37's n_el contains n_dl (printed f_dl).

Forward dynamics, which the paper leaves to its (unavailable) algorithms, is the textbook use
of an inverse-dynamics recursion: tau = H(q) qdd + h(q, qd), with h from the recursion at
qdd = 0 and column j of H from qdd = e_j minus h (the added-mass forces are linear in the
accelerations, so they fall into H).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

G = 9.81  # m/s2
RHO = 1000.0  # kg/m3, León-González et al. 2024, Sec. 6.2
Z = np.array([0.0, 0.0, 1.0])


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b of 3-vectors (np.cross is slow on single vectors)."""
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def rot_x(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_z(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


@dataclass(frozen=True)
class Link:
    """Table 2 and Table 3 data of one link, in its DH frame."""

    m: float  # kg
    I_g: np.ndarray  # kg.m2 about the centre of gravity
    r_g: np.ndarray  # m, centre of gravity from the DH origin
    volume: float  # m3
    I_a: np.ndarray  # kg.m2, rotational added inertia (diagonal)
    d: np.ndarray  # N.s/m, linear damping (diagonal)
    D: np.ndarray  # N.m.s/rad, rotational damping (diagonal)

    @property
    def m_f(self) -> float:
        return RHO * self.volume


def _inertia(rows: list[list[float]]) -> np.ndarray:
    return np.array(rows) * 1e-5


LINKS = (
    Link(
        0.096,
        _inertia([[5.57, 0.09, 0.05], [0.09, 4.87, 0.09], [0.05, 0.09, 3.16]]),
        np.array([5.33, 1.61, 1.00]) * 1e-3,
        0.076e-3,
        np.diag([0.004, 0.004, 0.0]) * 1e-3,
        np.diag([0.67, 0.67, 0.0]) * 1e-3,
        np.diag([0.07, 0.07, 0.07]) * 1e-3,
    ),
    Link(
        0.183,
        _inertia([[3.72, 0.0, 0.35], [0.0, 39.65, 0.0], [0.35, 0.0, 38.08]]),
        np.array([65.56, 0.01, 0.86]) * 1e-3,
        0.152e-3,
        np.diag([0.0, 2.8, 2.8]) * 1e-3,
        np.diag([0.0, 0.67, 0.67]) * 1e-3,
        np.diag([0.07, 0.07, 0.07]) * 1e-3,
    ),
    Link(
        0.217,
        _inertia([[7.16, 0.47, 6.06], [0.47, 138.66, 0.02], [6.06, 0.02, 138.38]]),
        np.array([53.78, 0.30, 1.09]) * 1e-3,
        0.164e-3,
        np.diag([0.0, 10.3, 10.3]) * 1e-3,
        np.diag([0.0, 0.67, 0.67]) * 1e-3,
        np.diag([0.07, 0.07, 0.07]) * 1e-3,
    ),
)
UPPER_ARM = 0.12  # m, Table 1: a of T^2_3


def chain(q: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(R^{l-1}_l, r^{l-1}_{l/l-1}) of links 1-3: Eq. 39 (the attachment, at the fixed base's
    origin here) and Table 1 with alpha_2 = +pi/2."""
    return [
        (rot_z(q[0]), np.zeros(3)),
        (rot_x(np.pi / 2) @ rot_z(q[1] + np.pi / 2), np.zeros(3)),
        (rot_z(q[2]), np.array([UPPER_ARM, 0.0, 0.0])),
    ]


def inverse_dynamics(q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
    """Joint torques tau_l = n_l . z (Eq. 31) of the arm on a fixed, level base."""
    frames = chain(q)
    w, dw = np.zeros(3), np.zeros(3)  # base: omega_0 = alpha_0 = 0
    v, a = np.zeros(3), np.zeros(3)  # base: v_0 = a_0 = 0
    R_n = np.eye(3)  # R^n_l: the base is level
    kinematics = []
    for (R, r), link, rate, acc in zip(frames, LINKS, qd, qdd, strict=True):
        Rt = R.T
        # Eqs. 22-23, revolute joint (sigma = 1)
        v, a = Rt @ (v + cross(w, r)), Rt @ (a + cross(dw, r) + cross(w, cross(w, r)))
        w, dw = Rt @ w + Z * rate, Rt @ dw + Z * acc + cross(Rt @ w, Z * rate)
        R_n = R_n @ R
        # Eqs. 25-26: velocity and acceleration of the centre of gravity
        v_g = v + cross(w, link.r_g)
        a_g = a + cross(dw, link.r_g) + cross(w, cross(w, link.r_g))
        kinematics.append((w, dw, v_g, a_g, R_n))
    f_next, n_next = np.zeros(3), np.zeros(3)  # end-effector loads f_ee = n_ee = 0
    tau = np.zeros(3)
    for k in (2, 1, 0):
        link = LINKS[k]
        w, dw, v_g, a_g, R_n = kinematics[k]
        R_next, r_next = frames[k + 1] if k < 2 else (np.eye(3), np.zeros(3))
        down = R_n.T @ Z  # R^l_n z, NED down in the link frame
        f_e = (
            link.m * G * down  # weight, Eq. 33
            - link.m_f * G * down  # buoyancy, at the centre of gravity (r_b/g = 0), Eq. 34
            - link.m_f * a_g  # translational added mass, Eq. 35
            - link.d @ v_g  # linear damping, Eq. 36
        )
        n_e = -link.I_a @ dw - cross(w, link.I_a @ w) - link.D @ w  # Eqs. 35-37
        F_g = link.m * a_g  # Eq. 29
        N_g = link.I_g @ dw + cross(w, link.I_g @ w)  # Eq. 28
        transmitted = R_next @ f_next  # R^l_{l+1} f_{l+1}
        # Eq. 30 solved for f_l, n_l (r^l_{l/gl} = -r_g, r^l_{l+1/gl} = r^l_{l+1/l} - r_g)
        f = F_g + transmitted - f_e
        n = N_g + R_next @ n_next + cross(link.r_g, f) + cross(r_next - link.r_g, transmitted) - n_e
        tau[k] = n @ Z  # Eq. 31
        f_next, n_next = f, n
    return tau


def accelerations(q: np.ndarray, qd: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """Joint accelerations (rad/s2) under joint torques ``tau`` (N.m): H qdd = tau - h."""
    h = inverse_dynamics(q, qd, np.zeros(3))
    H = np.column_stack([inverse_dynamics(q, qd, e) - h for e in np.eye(3)])
    return np.linalg.solve(H, tau - h)
