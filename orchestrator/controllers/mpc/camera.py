"""Camera line-of-sight geometry (Nielsen 2018, eqs. 8.9-8.10).

A camera k on vehicle i looks along xi = psi_i + mount (rad, from north, clockwise) with
half-angle alpha. A point j is in view when both
    n+ . e <= 0,  n+ = [-sin(xi + alpha),  cos(xi + alpha)],
    n- . e <= 0,  n- = [ sin(xi - alpha), -cos(xi - alpha)],
with e = p_j - p_i (north, east). For |alpha| < 90 deg this is the cone |bearing| <= alpha.
"""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np


@dataclass(frozen=True)
class Camera:
    """Mounting yaw relative to the vehicle's heading and half opening angle (rad)."""

    mount: float
    half_angle: float

    def normals(self, psi: object) -> object:
        """The 2x2 matrix [n+; n-] at heading ``psi`` (NumPy or CasADi)."""
        lib = ca if isinstance(psi, ca.SX | ca.MX) else np
        xi = psi + self.mount
        a = self.half_angle
        rows = [[-lib.sin(xi + a), lib.cos(xi + a)], [lib.sin(xi - a), -lib.cos(xi - a)]]
        if lib is ca:
            return ca.vertcat(ca.horzcat(*rows[0]), ca.horzcat(*rows[1]))
        return np.array(rows)

    def normals_along(self, psi: np.ndarray) -> np.ndarray:
        """[n+; n-] at each heading of ``psi`` (K,): an array (K, 2, 2), entry by entry as
        :meth:`normals` gives them (filled in place: the dual prices ask for it several
        times per dual iteration)."""
        xi = np.asarray(psi, dtype=float) + self.mount
        a = self.half_angle
        out = np.empty((len(xi), 2, 2))
        out[:, 0, 0], out[:, 0, 1] = -np.sin(xi + a), np.cos(xi + a)
        out[:, 1, 0], out[:, 1, 1] = np.sin(xi - a), -np.cos(xi - a)
        return out

    def bearing(self, pose: np.ndarray, point: np.ndarray) -> float:
        """Bearing of ``point`` from the camera axis (rad, positive clockwise)."""
        e = np.asarray(point[:2]) - np.asarray(pose[:2])
        return float((np.arctan2(e[1], e[0]) - pose[2] - self.mount + np.pi) % (2 * np.pi) - np.pi)

    def violation(self, pose: np.ndarray, point: np.ndarray) -> float:
        """How far (rad) the point lies outside the cone; 0 inside."""
        return max(0.0, abs(self.bearing(pose, point)) - self.half_angle)
