"""The Udwadia-Kalaba solve in joint space, sparse: G = Phi M^-1 Phi' in band storage.

Every constraint row touches at most two bodies (its joint's a and b), and M^-1 is block
diagonal (one 6x6 block per body), so G[i, k] is nonzero only when rows i and k share a body.
For a tree of bodies the graph of G is the line graph of the tree, whose cliques are the
joints at one body; ordered by reverse Cuthill-McKee the matrix is banded, with a band set
by the number of joints at a body, not by the number of bodies. A chain has a band of two
joints' rows, so LAPACK's banded Cholesky (``pbtrf``) solves it in O(N).

Closed loops (rings, grids) make rows redundant. They are found once per topology change:
the joints of a spanning forest of the body graph (the world is one node) give independent
rows; the rows of the loop-closing joints are kept only as far as a pivoted Cholesky
factorization (LAPACK ``pstrf``) of their Schur complement finds them independent of the
forest's rows. On the constraint manifold the kept rows span the same row space as all rows,
so the accelerations are those of the pseudo-inverse (the minimal correction in the mass
metric), and the minimum-norm multipliers follow from the generalized constraint forces.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.linalg.lapack import dpbtrf, dpbtrs, dpstrf
from scipy.sparse import csc_matrix, csr_matrix, identity
from scipy.sparse.csgraph import reverse_cuthill_mckee
from scipy.sparse.linalg import splu

# A loop row is redundant when the squared norm it keeps after projection onto the other
# rows' span (the Schur complement's pivot) is below this fraction of the largest diagonal
# of G: singular values below 1e-5 of the largest, far above round-off (1e-16) and far below
# any geometric ratio of real joints.
REDUNDANT = 1e-10
# Regularization of Phi'Phi (relative to its largest diagonal) for the least-norm multipliers
# and the number of refinements allowed: singular values of Phi down to 1e-3 of the largest
# lose a factor 1e-2 per refinement.
REFINED = 1e-8
REFINEMENTS = 20


def spanning_forest(body_a: np.ndarray, body_b: np.ndarray, n_bodies: int) -> np.ndarray:
    """Whether each joint (bodies a, b; -1 the world) belongs to a spanning forest of the body
    graph found by depth-first search (long paths, hence narrow bands for grids)."""
    neighbours: list[list[tuple[int, int]]] = [[] for _ in range(n_bodies + 1)]
    for j, (a, b) in enumerate(zip(body_a, body_b, strict=True)):
        neighbours[a].append((b, j))
        neighbours[b].append((a, j))
    seen = np.zeros(n_bodies + 1, dtype=bool)
    tree = np.zeros(len(body_a), dtype=bool)
    for root in [n_bodies, *range(n_bodies)]:  # the world first: bodies hang from it
        if seen[root]:
            continue
        seen[root] = True
        stack = [root]
        while stack:
            node = stack[-1]
            following = next(((n, j) for n, j in neighbours[node] if not seen[n]), None)
            if following is None:
                stack.pop()
                continue
            seen[following[0]] = True
            tree[following[1]] = True
            stack.append(following[0])
    return tree


def independent_rows(G: np.ndarray, forest_rows: np.ndarray) -> np.ndarray:
    """Indices of rows of G (= Phi M^-1 Phi', dense, symmetric positive semidefinite) that are
    independent: the forest's rows, then the loop rows that pivoted Cholesky keeps."""
    rows = np.arange(len(G))
    loop = rows[~forest_rows]
    tree = rows[forest_rows]
    tol = REDUNDANT * float(np.max(np.diag(G)))
    if len(loop) == 0:
        return rows
    try:
        factor = cho_factor(G[np.ix_(tree, tree)]) if len(tree) else None
    except LinAlgError:  # the forest's rows are singular themselves: pivot over all rows
        tree, loop = tree[:0], rows
        factor = None
    schur = G[np.ix_(loop, loop)]
    if factor is not None:
        coupling = G[np.ix_(tree, loop)]
        schur = schur - coupling.T @ cho_solve(factor, coupling)
    factor, pivots, rank, _ = dpstrf(schur, tol=tol)
    rank = int(np.sum(np.diag(factor)[:rank] ** 2 > tol))  # pstrf keeps its first pivot
    return np.sort(np.concatenate([tree, loop[pivots[:rank] - 1]]))


class JointSpace:
    """The kept rows' G in band storage: its pattern, ordering and assembly.

    Rows are given by their bodies ``body_a``, ``body_b`` (indices, -1 the world); ``keep``
    selects the independent rows. Each kept row has an entry (its 6 coefficients) on body a
    and one on body b; every body gathers the entries on it into a table padded to the
    largest count, so that G = sum over bodies of E_k M_k^-1 E_k' is one batched product.
    """

    def __init__(
        self, body_a: np.ndarray, body_b: np.ndarray, keep: np.ndarray, n_bodies: int
    ) -> None:
        self.keep = keep
        m = len(keep)
        self.n_bodies = n_bodies
        bodies = np.concatenate([body_a[keep], body_b[keep]])  # entries: (row, side)
        entry_rows = np.tile(np.arange(m), 2)
        touching = [np.flatnonzero(bodies == k) for k in range(n_bodies)]
        width = max((len(t) for t in touching), default=0)
        padding = 2 * m  # the index of an all-zero entry
        self.table = np.full((n_bodies, width), padding, dtype=int)
        for k, t in enumerate(touching):
            self.table[k, : len(t)] = t
        rows = np.append(entry_rows, -1)[self.table]  # (N, width), -1: padding
        first, second = rows[:, :, None], rows[:, None, :]
        linked = (first >= 0) & (second >= 0)
        adjacency = csr_matrix(
            (np.ones(int(linked.sum())), (np.broadcast_to(first, linked.shape)[linked],
                                          np.broadcast_to(second, linked.shape)[linked])),
            shape=(m, m),
        )  # fmt: skip
        self.order = reverse_cuthill_mckee(adjacency, symmetric_mode=True)
        position = np.full(m + 1, -1)
        position[self.order] = np.arange(m)
        i, k = position[first], position[second]  # broadcast to (N, width, width)
        upper = linked & (i <= k)
        self.pairs = np.flatnonzero(upper)
        i, k = np.broadcast_to(i, upper.shape)[upper], np.broadcast_to(k, upper.shape)[upper]
        self.band = int(np.max(k - i, initial=0))
        # Upper band storage of LAPACK: ab[band + i - k, k] = G[i, k] for i <= k.
        self.slot = (self.band + i - k) * m + k
        self.size = (self.band + 1) * m

    def weighted(
        self, phi: np.ndarray, inverse_blocks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each body's table of entries E (N, width, 6) from the kept rows' coefficients
        ``phi`` (on body a, then on body b), and E M^-1 (each body's block)."""
        entries = np.concatenate([phi, np.zeros((1, 6))])[self.table]
        return entries, entries @ inverse_blocks

    def matrix(self, entries: np.ndarray, weighted: np.ndarray) -> np.ndarray:
        """G of the kept rows in band storage (rows in ``order``)."""
        blocks = weighted @ np.swapaxes(entries, 1, 2)
        values = blocks.ravel()[self.pairs]
        m = len(self.keep)
        return np.bincount(self.slot, values, minlength=self.size).reshape(self.band + 1, m)

    def solve(self, band_matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """G^-1 rhs for the kept rows (rhs (m,) or (m, k), in row order, not band order)."""
        factor, info = dpbtrf(band_matrix)
        if info > 0:
            raise LinAlgError(
                f"constraint rows became dependent (leading minor {info} of Phi M^-1 Phi' is "
                "not positive definite): a joint at a singular configuration"
            )
        solution, _ = dpbtrs(factor, rhs[self.order])
        out = np.empty_like(solution)
        out[self.order] = solution
        return out

    def body_forces(self, weighted: np.ndarray, multipliers: np.ndarray) -> np.ndarray:
        """M^-1 Phi' lam (N, 6) of the kept rows' multipliers ``lam``."""
        lam = np.concatenate([multipliers, multipliers, [0.0]])[self.table]
        return (np.swapaxes(weighted, 1, 2) @ lam[:, :, None])[:, :, 0]


def smallest_multipliers(phi: csr_matrix, forces: np.ndarray) -> np.ndarray:
    """The multipliers of least norm with Phi' lam = ``forces`` (forces in the row space).

    lam = Phi z with Phi'Phi z = forces; Phi'Phi is singular along the assembly's free motions,
    so z comes from the regularized K = Phi'Phi + eps I, refined until Phi'Phi z = forces
    (each refinement shrinks the error along a singular value s of Phi by eps / (s^2 + eps);
    the free motions, absent from ``forces``, add nothing to Phi z).
    """
    return LeastNorm()(phi, forces)


class LeastNorm:
    """:func:`smallest_multipliers` that keeps its factorization of K between calls: the
    refinement converges to the same multipliers with K factorized at another pose as long as
    it converges at all, and K of welds depends only on the bodies' relative attitudes (rows
    in NED for points, in A's frame for angles), constant on the constraint manifold. K is
    factorized again when the refinement does not converge with the one kept. The refinement
    starts from the last call's z (forces recorded row after row change little). Phi' is kept
    too, for as long as the same matrix object comes (a transpose shares its values: a caller
    that replaces them in place, as ``compiled.AllRows`` does, keeps its pattern)."""

    def __init__(self) -> None:
        self._factor = None
        self._start: np.ndarray | None = None
        self._phi: csr_matrix | None = None
        self._transposed: csc_matrix | None = None

    def _transpose(self, phi: csr_matrix) -> csc_matrix:
        if phi is not self._phi:
            self._phi, self._transposed = phi, phi.T
        return self._transposed

    def __call__(self, phi: csr_matrix, forces: np.ndarray) -> np.ndarray:
        scale = float(np.linalg.norm(forces))
        if self._factor is not None:
            z, converged = self._refined(phi, forces, scale)
            if converged:
                return phi @ z
        normal = (self._transpose(phi) @ phi).tocsc()
        eps = REFINED * float(normal.diagonal().max())
        self._factor = splu((normal + eps * identity(normal.shape[0], format="csc")).tocsc())
        z, _ = self._refined(phi, forces, scale)
        return phi @ z

    def _refined(
        self, phi: csr_matrix, forces: np.ndarray, scale: float
    ) -> tuple[np.ndarray, bool]:
        """z refined with the kept factorization from the last call's (else 0), and whether
        Phi'Phi z = forces to 1e-14 of their norm within REFINEMENTS steps."""
        z = np.zeros_like(forces) if self._start is None else self._start
        transposed = self._transpose(phi)
        for _ in range(REFINEMENTS):
            residual = forces - transposed @ (phi @ z)
            if np.linalg.norm(residual) <= 1e-14 * scale:
                self._start = z
                return z, True
            z = z + self._factor.solve(residual)
        return z, False
