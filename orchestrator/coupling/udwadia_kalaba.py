"""The Udwadia-Kalaba equation and the projections built on it, as pure NumPy functions.

With generalized mass M (block diagonal, symmetric positive definite), unconstrained
accelerations a_u and constraints Phi a = b:

    a_c = a_u + M^(-1/2) (Phi M^(-1/2))^+ (b - Phi a_u)            (Nielsen 2018, eq. 3.55)

The pseudo-inverse copes with redundant rows (closed kinematic loops); it returns the
multipliers lambda with M (a_c - a_u) = Phi' lambda. This dense form is the reference; an
assembly solves the same equation in sparse joint space (``joint_space.py``): with
independent rows, a_c = a_u + M^-1 Phi' (Phi M^-1 Phi')^-1 (b - Phi a_u).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import eigh, svd

RCOND = 1e-10


def inverse_square_root(M: np.ndarray) -> np.ndarray:
    """M^(-1/2) of a symmetric positive definite matrix (by its eigendecomposition)."""
    values, vectors = eigh(M)
    if values[0] <= 0:
        raise ValueError(
            f"mass matrix is not positive definite (smallest eigenvalue {values[0]:.3g})"
        )
    return (vectors / np.sqrt(values)) @ vectors.T


def pseudo_inverse(A: np.ndarray, rank: int | None = None) -> np.ndarray:
    """Moore-Penrose inverse by SVD, keeping ``rank`` singular values when given.

    Redundant rows of a closed loop are dependent only on the constraint manifold; off it
    (integration drift) their singular values are small but not zero, and inverting them
    would give huge, spurious multipliers. Truncating at the structural rank avoids that.
    """
    # LAPACK's gesvd: the divide-and-conquer driver (NumPy's default) took 100 times longer
    # on the sparse, badly scaled matrices of long chains of small links.
    U, s, Vt = svd(A, full_matrices=False, lapack_driver="gesvd")
    keep = int(np.sum(s > RCOND * s[0])) if rank is None else rank
    return (Vt[:keep].T / s[:keep]) @ U[:, :keep].T


def udwadia_kalaba(
    a_u: np.ndarray, phi: np.ndarray, b: np.ndarray, M_inv_sqrt: np.ndarray, rank: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Constrained accelerations and multipliers by the pseudo-inverse form (any rank)."""
    A = phi @ M_inv_sqrt
    A_pinv = pseudo_inverse(A, rank)
    y = A_pinv @ (b - phi @ a_u)
    return a_u + M_inv_sqrt @ y, A_pinv.T @ y


def block_diagonal(blocks: list[np.ndarray]) -> np.ndarray:
    """Block-diagonal matrix of square blocks."""
    n = sum(len(b) for b in blocks)
    out = np.zeros((n, n))
    k = 0
    for block in blocks:
        out[k : k + len(block), k : k + len(block)] = block
        k += len(block)
    return out
