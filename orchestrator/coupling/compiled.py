"""The Udwadia-Kalaba accelerations of an assembly, evaluated inside the compiled kernel.

The kernel's ``Coupling`` (``orchestrator/native/_coupling.c``) replaces the bodies' der(nu) in
every right-hand side with no Python per evaluation, for every joint kind: welds (fixed joints
are welds to the world), revolute, universal, spherical and driven universal joints (their
angles, rates and accelerations read from their actuators' states and state derivatives),
with the Baumgarte stabilisation of ``Assembly.constrained``. The :class:`Assembly` stays the
authority: after every topology change :meth:`CompiledCoupling.describe` hands the kernel the
joints' kinds, bodies and constants (body frames), the rows the solve keeps (closed loops make
some redundant: ``Assembly.kept_rows``, found once per change by the pivoted Cholesky
factorization of the loop rows' Schur complement) in an elimination order (deepest joints
first, :func:`elimination_order`), or makes it call the Python fallback under the "svd"
solver. The motors' accelerations M^-1 tau, constant between commands, are an additive term
set with :meth:`CompiledCoupling.set_motor`. G = Phi M^-1 Phi' of the kept rows is solved by a
block Cholesky factorization in that order, one block per pair of joints sharing a body: no
fill for a forest, O(N) per evaluation; the fill of closed loops is found once per change. The
same rows and solve also give, in one call each, the projection onto the constraint manifold
done between macro steps (:meth:`CompiledCoupling.project`) and every joint's recorded errors
and generalized forces (:meth:`CompiledCoupling.columns`; with redundant rows the least-norm
multipliers of those forces, as ``Assembly.accelerations`` gives them).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np
from scipy.sparse import csr_matrix

from orchestrator.coupling.assembly import PROJECTION_ITERATIONS, PROJECTION_TOLERANCE, Assembly
from orchestrator.coupling.driven import DrivenUniversal
from orchestrator.coupling.joint_space import LeastNorm
from orchestrator.coupling.joints import Joint, Revolute, Spherical, Universal, Weld
from orchestrator.native import _kernel

# Kernel codes of the compiled joint kinds (exact classes: subclasses add rows of their own).
KINDS: dict[type[Joint], int] = {
    Weld: 0,
    Revolute: 1,
    Universal: 2,
    Spherical: 3,
    DrivenUniversal: 4,
}
N_PARAMETERS = 27
# Per joint, the kernel's recorded columns: position error (m), angle error (rad), force on a
# and on b (6 each: N, N.m, body frames).
N_COLUMNS = 14


def parameters(joint: Joint) -> np.ndarray:
    """The constants the kernel reads of one joint (27): r_a, r_b (m, own body frames), the
    relative rotation R_a' R_b at creation (row-major; of a driven joint, at zero angles), for
    a revolute joint its axis (A's frame), the axis' two perpendiculars and the axis in B's
    frame, for a universal joint its axis (A's frame) and axis_b (B's frame); zeros where a
    kind has none."""
    out = np.zeros(N_PARAMETERS)
    out[:3], out[3:6], out[6:15] = joint.r_a, joint.r_b, np.ravel(joint.relative)
    if isinstance(joint, Revolute):
        out[15:18], out[18:24], out[24:27] = joint.axis, np.ravel(joint.perpendicular), joint.axis_b
    if isinstance(joint, Universal):
        out[15:18], out[24:27] = joint.axis, joint.axis_b
    return out


def elimination_order(body_a: np.ndarray, body_b: np.ndarray, n_bodies: int) -> np.ndarray:
    """An order of joints (bodies a, b; -1 the world) for the kernel's block Cholesky of
    G = Phi M^-1 Phi': the deepest joints first, depth counted from the world (trees not
    attached to it from their first body). In a forest a joint then meets, at its elimination,
    only the joints at its shallower body, which share that body already: no fill. Joints
    that close loops bring the fill the kernel finds."""
    world = n_bodies
    ends = [
        (a, world if b < 0 else b) for a, b in zip(body_a.tolist(), body_b.tolist(), strict=True)
    ]
    neighbours: list[list[int]] = [[] for _ in range(n_bodies + 1)]
    for a, b in ends:
        neighbours[a].append(b)
        neighbours[b].append(a)
    depth = [-1] * (n_bodies + 1)
    for root in [world, *range(n_bodies)]:
        if depth[root] >= 0:
            continue
        depth[root], queue = 0, deque([root])
        while queue:
            body = queue.popleft()
            for other in neighbours[body]:
                if depth[other] < 0:
                    depth[other] = depth[body] + 1
                    queue.append(other)
    joint_depth = np.array([max(depth[a], depth[b]) for a, b in ends], dtype=int)
    return np.argsort(-joint_depth, kind="stable")


class CompiledCoupling:
    """The kernel's compiled coupling of an assembly whose bodies' p, q, nu sit at
    ``index`` (N, 13: 3 of p, 4 of q, 6 of nu) in the state vector; ``fallback(x, dx)`` is
    the Python coupling used for what is not compiled; ``baumgarte`` = (alpha (1/s),
    beta (1/s^2)); ``drives`` maps each driven joint's name to the state indices of its
    actuator's theta[1], theta[2], omega[1], omega[2]. Pass :attr:`kernel` to the integrators
    as their post-process."""

    def __init__(
        self,
        assembly: Assembly,
        index: np.ndarray,
        fallback: Callable[[np.ndarray, np.ndarray], None],
        baumgarte: tuple[float, float],
        drives: dict[str, np.ndarray] | None = None,
    ) -> None:
        self.assembly = assembly
        self.index = np.asarray(index, dtype=int)
        self.drives = dict(drives or {})
        self.baumgarte = (float(baumgarte[0]), float(baumgarte[1]))
        self.kernel = _kernel.Coupling(
            fallback,
            np.ascontiguousarray(index, dtype=np.int64).ravel(),
            np.ascontiguousarray(assembly.inverse_blocks, dtype=float).ravel(),
        )
        self.names: list[str] = []  # the compiled joints, in the kernel's order
        self._hinges = np.zeros(0, dtype=int)  # positions of the revolute joints among them
        self.signals: tuple[str, ...] = ()  # their <joint>.angle and <joint>.rate, interleaved
        self.describe()

    def compilable(self) -> bool:
        """Whether the kernel can evaluate the present joints: known kinds (driven ones bound
        to their actuators), the joint-space solve."""
        joints = self.assembly.joints
        if self.assembly.solver == "svd" or any(type(j) not in KINDS for j in joints):
            return False
        return all(j.name in self.drives for j in joints if type(j) is DrivenUniversal)

    def describe(self) -> None:
        """Hand the kernel the present joints (after a topology change), or the fallback."""
        self._least_norm = LeastNorm()
        self._full_rank = self.assembly.full_rank
        if not self.compilable():
            self.kernel.use_fallback()
            self.names, self._hinges, self.signals = [], np.zeros(0, dtype=int), ()
            return
        joints = self.assembly.joints
        body_a, body_b = self._bodies()
        kept = self.assembly.kept_rows()
        masks = np.array([sum(1 << int(r) for r in kept[j.name]) for j in joints], dtype=np.int64)
        with_rows = np.flatnonzero(masks > 0)  # joints without kept rows: errors and forces only
        order = with_rows[
            elimination_order(body_a[with_rows], body_b[with_rows], len(self.assembly.bodies))
        ]
        order = np.concatenate([order, np.flatnonzero(masks == 0)]).astype(int)
        self.names = [joints[k].name for k in order]
        hinges = [i for i, k in enumerate(order) if type(joints[k]) is Revolute]
        self._hinges = np.array(hinges, dtype=int)
        self.signals = tuple(f"{self.names[i]}.{s}" for i in hinges for s in ("angle", "rate"))
        n_rows = [joints[k].n_rows for k in order]
        self._all_rows = AllRows(body_a[order], body_b[order], n_rows, len(self.assembly.bodies))
        no_drive = np.full(4, -1)
        self.kernel.set_joints(
            np.array([KINDS[type(joints[k])] for k in order], dtype=np.int64),
            np.ascontiguousarray(np.stack([body_a[order], body_b[order]], axis=1)).ravel(),
            np.array([parameters(joints[k]) for k in order]).reshape(-1),
            masks[order],
            np.array([self.drives.get(joints[k].name, no_drive) for k in order])
            .astype(np.int64)
            .reshape(-1),
            *self.baumgarte,
        )

    def set_motor(self, accelerations: np.ndarray) -> None:
        """The motors' M^-1 tau (6 per body, body frames), added to the bodies' unconstrained
        accelerations in every evaluation until set again."""
        self.kernel.set_motor(np.ascontiguousarray(accelerations, dtype=float))

    def project(self, x: np.ndarray) -> np.ndarray:
        """A copy of the state ``x`` with positions, attitudes and velocities on the constraint
        manifold, as ``Assembly.project_positions`` then ``project_velocities`` give them
        (same tolerance and iteration count). Only while :attr:`compiled`."""
        out = np.array(x, dtype=float)
        self.kernel.project(out, PROJECTION_TOLERANCE, PROJECTION_ITERATIONS)
        return out

    def columns(self, x: np.ndarray, dx: np.ndarray) -> np.ndarray:
        """Every joint's position error (m), angle error (rad) and generalized constraint
        forces on body a and on body b (6 each, body frames; zero on the world) at state ``x``
        with unconstrained rates ``dx`` (the motors' accelerations added as in evaluations),
        as ``Assembly.violations`` and ``joint_forces`` give them: one row of 14 per joint, in
        the order of :attr:`names`. Only while :attr:`compiled`."""
        out = np.empty((len(self.names), N_COLUMNS))
        self.kernel.columns(
            np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(dx, dtype=float), out
        )
        if not self._full_rank:
            self._least_norm_forces(x, out)
        return out

    def _least_norm_forces(self, x: np.ndarray, out: np.ndarray) -> None:
        """Replace the forces in ``out`` (those of the kept rows' multipliers) by those of the
        least-norm multipliers of all rows that give the same generalized forces
        (``joint_space.smallest_multipliers``, as ``Assembly.accelerations``)."""
        rows = self._all_rows
        phi = np.empty((rows.count, 12))
        self.kernel.all_rows(np.ascontiguousarray(x, dtype=float), phi)
        lam = self._least_norm(rows.matrix(phi), rows.body_forces(out[:, 2:])).reshape(-1, 1)
        out[:, 2:] = np.add.reduceat(phi * lam, rows.starts)  # on a, on b (zero on the world)

    def motion_values(self, x: np.ndarray) -> np.ndarray:
        """Angle (rad, in (-pi, pi]) and rate (rad/s) of every revolute joint at state ``x``,
        as ``Revolute.batch_motion`` gives them, in the order of :attr:`signals`
        (``<joint>.angle``, ``<joint>.rate``). Only while :attr:`compiled`."""
        out = np.empty((len(self.names), 2))
        self.kernel.motion(np.ascontiguousarray(x, dtype=float), out)
        return out[self._hinges].ravel()

    def motion_slots(self, index: dict[str, int]) -> np.ndarray:
        """Where ``motion_to`` puts every joint's angle and rate: their positions by name in
        ``index``, -1 for the joints other than revolute ones (int64, 2 per joint)."""
        slots = np.full(2 * len(self.names), -1, dtype=np.int64)
        slots.reshape(-1, 2)[self._hinges] = np.reshape([index[s] for s in self.signals], (-1, 2))
        return slots

    @property
    def compiled(self) -> bool:
        """Whether the kernel evaluates the joints itself (else it calls the fallback)."""
        return self.kernel.compiled

    def _bodies(self) -> tuple[np.ndarray, np.ndarray]:
        index = self.assembly.index
        body_a = np.array([index[j.a] for j in self.assembly.joints], dtype=np.int64)
        body_b = np.array(
            [-1 if j.b is None else index[j.b] for j in self.assembly.joints], dtype=np.int64
        )
        return body_a, body_b


class AllRows:
    """Where the kernel's ``all_rows`` puts every joint's rows (joints with bodies ``body_a``,
    ``body_b``, -1 the world, and ``n_rows`` rows each, in the kernel's order), and Phi of
    those rows as a sparse matrix over the velocities of ``n_bodies`` bodies (its pattern
    fixed, its values replaced at every call)."""

    def __init__(
        self, body_a: np.ndarray, body_b: np.ndarray, n_rows: list[int], n_bodies: int
    ) -> None:
        self.starts = np.cumsum([0, *n_rows[:-1]]).astype(int)
        self.count = int(sum(n_rows))
        a, b = np.repeat(body_a, n_rows), np.repeat(body_b, n_rows)
        # per row, its entries by ascending column: the lower-numbered body first, the world
        # (no columns) left out; the pattern stays canonical, so SciPy never reorders it
        entries = np.arange(12 * self.count).reshape(-1, 12)
        swapped = (b >= 0) & (b < a)
        entries[swapped] = np.roll(entries[swapped], 6, axis=1)
        columns = np.concatenate([6 * a[:, None] + np.arange(6), 6 * b[:, None] + np.arange(6)], 1)
        columns = columns.ravel()[entries]
        self._gather = entries[columns >= 0]
        pointers = np.concatenate([[0], np.cumsum(np.where(b >= 0, 12, 6))])
        self._phi = csr_matrix(
            (np.zeros(len(self._gather)), columns[columns >= 0], pointers),
            shape=(self.count, 6 * n_bodies),
        )
        ends = np.concatenate([body_a, body_b])
        on_body = ends >= 0
        self._sum = csr_matrix(
            (np.ones(int(on_body.sum())), (ends[on_body], np.flatnonzero(on_body))),
            shape=(n_bodies, 2 * len(n_rows)),
        )  # joints' forces on a, then on b, summed per body

    def matrix(self, phi: np.ndarray) -> csr_matrix:
        """Phi (rows, 6 N) of the rows' coefficients ``phi`` (rows, 12) from ``all_rows``."""
        self._phi.data[:] = phi.ravel()[self._gather]
        return self._phi

    def body_forces(self, forces: np.ndarray) -> np.ndarray:
        """The generalized forces on every body (6 N) of the joints' ``forces`` on a and on b
        (joints, 12)."""
        return (self._sum @ np.concatenate([forces[:, :6], forces[:, 6:]])).ravel()
