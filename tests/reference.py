"""Independent NumPy reference of the 6-DOF vehicle, written from Fossen (2011) in matrix form.

It shares no code with the Modelica model or the orchestrator: rotation from SciPy, quaternion
rate from the Hamilton product, Coriolis from the skew-matrix formula of Fossen's Thm 3.2.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.transform import Rotation


def skew(a: np.ndarray) -> np.ndarray:
    return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def coriolis(M: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """C(nu) of a symmetric generalized mass M (Fossen 2011, Thm 3.2)."""
    v, w = nu[:3], nu[3:]
    a = M[:3, :3] @ v + M[:3, 3:] @ w
    b = M[3:, :3] @ v + M[3:, 3:] @ w
    C = np.zeros((6, 6))
    C[:3, 3:] = -skew(a)
    C[3:, :3] = -skew(a)
    C[3:, 3:] = -skew(b)
    return C


@dataclass
class VehicleParameters:
    m: float
    I_g: np.ndarray
    r_g: np.ndarray
    r_b: np.ndarray
    volume: float
    added_mass: np.ndarray
    D_L: np.ndarray
    D_Q: np.ndarray
    rho: float = 1000.0
    g: float = 9.81
    gamma_q: float = 10.0
    added_mass_coupling: np.ndarray = field(default_factory=lambda: np.zeros((6, 6)))
    D_L_coupling: np.ndarray = field(default_factory=lambda: np.zeros((6, 6)))
    D_Q_coupling: np.ndarray = field(default_factory=lambda: np.zeros((6, 6)))

    @classmethod
    def from_fmu(cls, fmu) -> VehicleParameters:  # noqa: ANN102
        def vec(name: str, n: int) -> np.ndarray:
            return np.array([fmu.variables[f"{name}[{i}]"].start for i in range(1, n + 1)])

        def mat(name: str, n: int) -> np.ndarray:
            if f"{name}[1,1]" not in fmu.variables:
                return np.zeros((n, n))
            rows = range(1, n + 1)
            return np.array([[fmu.variables[f"{name}[{i},{j}]"].start for j in rows] for i in rows])

        I_g = mat("data.I_g", 3)
        return cls(
            m=fmu.variables["data.m"].start,
            I_g=I_g,
            r_g=vec("data.r_g", 3),
            r_b=vec("data.r_b", 3),
            volume=fmu.variables["data.volume"].start,
            added_mass=vec("data.added_mass", 6),
            D_L=vec("data.D_L", 6),
            D_Q=vec("data.D_Q", 6),
            added_mass_coupling=mat("data.added_mass_coupling", 6),
            D_L_coupling=mat("data.D_L_coupling", 6),
            D_Q_coupling=mat("data.D_Q_coupling", 6),
        )

    def mass_matrix(self) -> tuple[np.ndarray, np.ndarray]:
        S = skew(self.r_g)
        M_RB = np.block(
            [[self.m * np.eye(3), -self.m * S], [self.m * S, self.I_g - self.m * S @ S]]
        )
        return M_RB, np.diag(self.added_mass) + self.added_mass_coupling


def rotation(q: np.ndarray) -> np.ndarray:
    return Rotation.from_quat([q[1], q[2], q[3], q[0]]).as_matrix()


def vehicle_rhs(
    par: VehicleParameters,
    x: np.ndarray,
    tau: np.ndarray,
    v_c: np.ndarray,
    a_f: np.ndarray | None = None,
) -> np.ndarray:
    """d/dt [p, q, nu] of the reference model (NED position, scalar-first quaternion), in water
    moving at ``v_c`` and accelerating at ``a_f`` (NED)."""
    q, nu = x[3:7], x[7:13]
    R = rotation(q)
    nu_dot = np.linalg.solve(sum(par.mass_matrix()), part_forces(par, R, nu, tau, v_c, a_f))
    return np.concatenate([R @ nu[:3], quaternion_rate(q, nu[3:], par.gamma_q), nu_dot])


def quaternion_rate(q: np.ndarray, w: np.ndarray, gamma: float) -> np.ndarray:
    """q_dot = 0.5 q (x) [0, w] (Hamilton product) plus the norm correction with gain gamma."""
    hamilton = np.concatenate([[-q[1:] @ w], q[0] * w + np.cross(q[1:], w)])
    return 0.5 * hamilton + 0.5 * gamma * (1 - q @ q) * q


def energy(par: VehicleParameters, x: np.ndarray) -> float:
    """Kinetic energy 0.5 nu'M nu plus the potential of weight and buoyancy (J)."""
    p, q, nu = x[:3], x[3:7], x[7:13]
    R = rotation(q / np.linalg.norm(q))
    M_RB, M_A = par.mass_matrix()
    W, B = par.m * par.g, par.rho * par.g * par.volume
    z_g = p[2] + (R @ par.r_g)[2]
    z_b = p[2] + (R @ par.r_b)[2]
    return 0.5 * nu @ (M_RB + M_A) @ nu - W * z_g + B * z_b


@dataclass
class Part:
    """A body of a composite: its parameters and its pose in the composite's frame."""

    par: VehicleParameters
    offset: np.ndarray  # position of the part's origin in the composite frame (m)
    rotation: np.ndarray  # part frame -> composite frame

    @property
    def transform(self) -> np.ndarray:
        """nu_part = T nu_composite (constant: quasi-velocities are body-frame)."""
        Rt = self.rotation.T
        return np.block([[Rt, -Rt @ skew(self.offset)], [np.zeros((3, 3)), Rt]])


def part_forces(
    par: VehicleParameters,
    R: np.ndarray,
    nu: np.ndarray,
    tau: np.ndarray,
    v_c: np.ndarray,
    a_f: np.ndarray | None = None,
) -> np.ndarray:
    """Everything but M nu_dot of one part, at its own origin, in its own frame.

    The water moves at ``v_c`` and accelerates at ``a_f`` (NED): the added-mass force is
    -M_A d(nu_r)/dt with the water's velocity in the body frame changing as the body turns and
    the water accelerates, and the Froude-Krylov force rho V a_f acts at r_b.
    """
    M_RB, M_A = par.mass_matrix()
    a_fb = R.T @ (np.zeros(3) if a_f is None else a_f)
    v_cb = R.T @ v_c
    nu_r = nu - np.concatenate([v_cb, np.zeros(3)])
    W, B = par.m * par.g, par.rho * par.g * par.volume
    f_g, f_b = R.T @ np.array([0, 0, W]), R.T @ np.array([0, 0, -B])
    restoring = -np.concatenate([f_g + f_b, np.cross(par.r_g, f_g) + np.cross(par.r_b, f_b)])
    D_L = np.diag(par.D_L) + par.D_L_coupling
    D_Q = np.diag(par.D_Q) + par.D_Q_coupling
    damping = D_L @ nu_r + D_Q @ (np.abs(nu_r) * nu_r)
    water_rate = M_A @ np.concatenate([-skew(v_cb) @ nu[3:] - a_fb, np.zeros(3)])
    f_fk = par.rho * par.volume * a_fb
    froude_krylov = np.concatenate([f_fk, np.cross(par.r_b, f_fk)])
    return (
        tau
        - coriolis(M_RB, nu) @ nu
        - coriolis(M_A, nu_r) @ nu_r
        - damping
        - restoring
        - water_rate
        + froude_krylov
    )


def composite_rhs(
    parts: list[Part], x: np.ndarray, taus: list[np.ndarray], v_c: np.ndarray
) -> np.ndarray:
    """One rigid body made of parts, by virtual work: (sum T'M T) nu_dot = sum T' f_part.

    Merged mass by the parallel-axis rule (T' M T) for rigid and added mass alike; each
    part's hydrodynamic, hydrostatic and Coriolis forces act at its own origin.
    """
    q, nu = x[3:7], x[7:13]
    R = rotation(q)
    M = sum(p.transform.T @ sum(p.par.mass_matrix()) @ p.transform for p in parts)
    f = sum(
        p.transform.T @ part_forces(p.par, R @ p.rotation, p.transform @ nu, tau, v_c)
        for p, tau in zip(parts, taus, strict=True)
    )
    return np.concatenate([R @ nu[:3], quaternion_rate(q, nu[3:], 0.0), np.linalg.solve(M, f)])
