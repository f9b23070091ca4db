"""Independent reference: Iversen et al. (2019)'s moving-frame equations of the ROV with two 2-link
arms.

Written from the paper's velocity transformation {X'} = [B] {q'} (Eqs. 33-64, appendix Eqs.
88-99) and the reduced mass matrix M* = B' M B (Eq. 80), sharing no code with the
orchestrator. Components are in Iversen et al. (2019)'s frames: axis 2 up, axis 3 forward along the
arms at zero angles, axis 1 = axis 2 x axis 3; body velocities omega in body components,
centre-of-mass velocities x_c' in inertial components. Two repairs of the printed equations: the
ROV's translation is a degree of freedom (x_c^(1) is added to every x_c^(alpha), and x_c^(1)' is the
first block of q'), and the arm-2 terms use R^(5/4) where Eqs. 62 and 98 print R^(3/2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

E1 = np.array([1.0, 0.0, 0.0])
E2 = np.array([0.0, 1.0, 0.0])


def bar(s: np.ndarray) -> np.ndarray:
    """Skew matrix (Eq. 13): bar(s) @ a = s x a."""
    return np.array([[0.0, -s[2], s[1]], [s[2], 0.0, -s[0]], [-s[1], s[0], 0.0]])


def about_2(angle: float) -> np.ndarray:
    """R^(2/1) of Eq. 34: rotation about axis 2."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def about_1(angle: float) -> np.ndarray:
    """R^(3/2) of Eq. 47: rotation about axis 1."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


@dataclass(frozen=True)
class Arm:
    """Offsets of one arm (Eqs. 33, 35, 48): base joint from the ROV's centre of mass (s_j,
    ROV frame), proximal centre from the base joint (s_c_proximal), elbow from the proximal
    centre (s_j_elbow), distal centre from the elbow (s_c_distal), each in its own frame."""

    s_j: np.ndarray
    s_c_proximal: np.ndarray
    s_j_elbow: np.ndarray
    s_c_distal: np.ndarray


def arm_blocks(R1: np.ndarray, arm: Arm, shoulder: float, elbow: float) -> list[np.ndarray]:
    """Rows of B for (x_c', omega) of the proximal and distal links, columns
    (x_c1', omega1, shoulder rate, elbow rate): Eqs. 42-45, 55-56, 88-96."""
    R21, R32 = about_2(shoulder), about_1(elbow)
    sc2, sj2, sc3, sj1 = arm.s_c_proximal, arm.s_j_elbow, arm.s_c_distal, arm.s_j
    I3, Z = np.eye(3), np.zeros((3, 1))
    B21 = R1 @ R21 @ bar(sc2).T @ R21.T + R1 @ bar(sj1).T  # Eq. 88
    B22 = R1 @ R21 @ bar(sc2).T @ E2  # Eq. 94
    B41 = (  # Eq. 89
        R1 @ R21 @ R32 @ bar(sc3).T @ R32.T @ R21.T
        + R1 @ R21 @ bar(sj2).T @ R21.T
        + R1 @ R21 @ bar(sc2).T @ R21.T
        + R1 @ bar(sj1).T
    )
    B42 = (  # Eq. 95
        R1 @ R21 @ R32 @ bar(sc3).T @ R32.T + R1 @ R21 @ bar(sj2).T + R1 @ R21 @ bar(sc2).T
    ) @ E2
    B43 = R1 @ R21 @ R32 @ bar(sc3).T @ E1  # Eq. 96
    return [
        np.hstack([I3, B21, B22[:, None], Z]),  # x_c^(2)', with the ROV's translation
        np.hstack([np.zeros((3, 3)), R21.T, E2[:, None], Z]),  # omega^(2), Eq. 44
        np.hstack([I3, B41, B42[:, None], B43[:, None]]),  # x_c^(3)'
        np.hstack([np.zeros((3, 3)), R32.T @ R21.T, (R32.T @ E2)[:, None], E1[:, None]]),
    ]


def velocity_transformation(
    R1: np.ndarray, arms: tuple[Arm, Arm], angles: np.ndarray
) -> np.ndarray:
    """B (30 x 10): {X'} = (x_c1', omega1, x_c2', omega2, ..., x_c5', omega5) from
    {q'} = (x_c1', omega1, phi1', phi2', psi1', psi2') (Eq. 64 with the ROV's translation)."""
    B = np.zeros((30, 10))
    B[0:3, 0:3], B[3:6, 3:6] = np.eye(3), np.eye(3)
    for k, arm in enumerate(arms):
        rows = arm_blocks(R1, arm, angles[2 * k], angles[2 * k + 1])
        for j, block in enumerate(rows):
            r = 6 + 12 * k + 3 * j
            B[r : r + 3, 0:6] = block[:, 0:6]
            B[r : r + 3, 6 + 2 * k : 8 + 2 * k] = block[:, 6:8]
    return B


def reduced_mass_matrix(
    R1: np.ndarray,
    arms: tuple[Arm, Arm],
    angles: np.ndarray,
    masses: list[float],
    inertias: list[np.ndarray],
) -> np.ndarray:
    """M* = B' M B (Eq. 80), M = diag(m1 I, J1, ..., m5 I, J5) (from Eq. 65); bodies in the
    order ROV, arm 1 proximal, arm 1 distal, arm 2 proximal, arm 2 distal."""
    M = np.zeros((30, 30))
    for k, (m, J) in enumerate(zip(masses, inertias, strict=True)):
        M[6 * k : 6 * k + 3, 6 * k : 6 * k + 3] = m * np.eye(3)
        M[6 * k + 3 : 6 * k + 6, 6 * k + 3 : 6 * k + 6] = J
    B = velocity_transformation(R1, arms, angles)
    return B.T @ M @ B
