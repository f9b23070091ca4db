"""Constrained thrust allocation: one small quadratic program per sample (DAQP).

Given the configuration matrix T (6 x n, body frame: one column [d; r x d - spin*arm*d] per
thruster) and a generalized force command tau (N, N.m), find thrusts u (N) that minimize

    sum_i P(u_i)  +  sum_dof w_dof |(T u - tau)_dof|

subject to the thrust limits, the rate limits (a thrust grows away from zero by at most
rate * dt per sample; slowing down and stopping are not limited), and u_i = 0 for a failed
thruster. P is the thruster's electrical power (W) as a function of thrust, the convex
curve c |u|^(3/2) of momentum theory, entered as its least-squares fit a u^2 + b |u| on
[0, limit] with the thrust split into its forward and reverse parts u = f - r (f, r >= 0), so
the program stays a QP with 2n + 6 variables. The force error enters as an exact (L1) penalty:
with weights above the marginal power per unit of force the command is met exactly whenever
the limits allow it, and when they do not, the error goes first to the degrees of freedom
with the smallest weight (heave and attitude are kept before surge and sway).

Dead zones: a thrust below the dead-zone edge cannot be realized (the ESC gives no thrust
inside the band). A further solve fixes every thruster the previous one left inside the band
either at zero (below half the edge) or at the edge with its sign, and lets the others make up
the difference; this repeats until no free thruster is left inside its band (at most n solves,
mostly one or two). The force the dead zones took off a command is carried to the next sample's
(error feedback, as in sigma-delta modulation), so a command smaller than any thruster can give
is realized on average by pulses at the band's edge. No thrust is raised to keep thrusters out
of their dead zones, so thrusters never push against each other to hold station.

Solver: DAQP, the dual active-set method of Arnström, Bemporad and Axehill ("A dual active-set
solver for embedded quadratic programming using recursive LDL' updates", IEEE Transactions on
Automatic Control 67(8), 2022). Most samples' first solve meets the
command exactly, so it is first posed as the smaller program without error variables: least
power subject to T (f - r) = tau and the thrust bounds (2n variables, 6 equality rows). Its
solution is the L1 program's solution whenever it exists and every equality multiplier is at
most its degree of freedom's weight in magnitude (the exact-penalty condition: leaving a force
error would then save less power than it costs); otherwise, in the dead-zone passes, and for
thrusters that do not span all six degrees of freedom, the full program is solved. Each of the
two programs keeps its DAQP workspace across samples (only the bounds change; every solve
starts from that program's previous active set). On bluerov2_heavy_single the first solve
then takes about 11 iterations instead of 39. The solutions agree with qpOASES' to 1e-7 N
(test) at a fifth of the cost. Where DAQP stops without a solution (it can cycle on a
degenerate program, e.g. after a docking, with many thrusters held at zero by the dead-zone
passes), qpOASES through CasADi solves that sample's program instead.

Compiled: a sample (both programs, the dead-zone passes) runs in ``native/_allocation.c`` for
one vehicle or for many in one call (:func:`allocate_many`), with DAQP's own C functions (those
of its package's extension module, which the Python interface called before: the same
solutions bit for bit); the matrices are built here, the carried force is NumPy's product.
"""

from __future__ import annotations

import functools
import io
from contextlib import redirect_stdout
from dataclasses import dataclass

import numpy as np

from orchestrator.native import allocation as native

# A quadratic term ERROR_CURVATURE/2 e^2 (W per N^2 or (N.m)^2) next to the L1 penalty makes the
# Hessian positive definite, so DAQP solves the program exactly without proximal iterations. It
# changes nothing where the command is feasible (e = 0 stays optimal: the term's slope is zero
# there) and moves a saturated solution's force errors by about ERROR_CURVATURE e / w, below
# 1e-7 of e for the weights w >= 1e2 used.
ERROR_CURVATURE = 1e-6
UNBOUNDED = 1e30  # DAQP's infinity


@dataclass(frozen=True)
class PowerCurve:
    """Electrical power P = c |T|^(3/2) (W) of a thruster at static thrust T (N).

    ``forward`` and ``reverse`` are c (W/N^1.5) for positive and negative thrust.
    """

    forward: float
    reverse: float

    def __call__(self, thrust: np.ndarray) -> np.ndarray:
        """Power (W) at ``thrust`` (N)."""
        thrust = np.asarray(thrust, dtype=float)
        c = np.where(thrust >= 0, self.forward, self.reverse)
        return c * np.abs(thrust) ** 1.5

    def quadratic_fit(self, limit: float) -> np.ndarray:
        """[a, b] of a f^2 + b f fitted to the forward power and of the reverse power on
        0..``limit`` N: rows forward, reverse (W/N^2, W/N)."""
        return _quadratic_fit(self, float(limit)).copy()


@functools.lru_cache(maxsize=256)
def _quadratic_fit(power: PowerCurve, limit: float) -> np.ndarray:
    """:meth:`PowerCurve.quadratic_fit`, fitted once per curve and limit (16 least-squares
    fits were a third of an allocation's construction, which every run and every episode of
    an environment makes); read-only."""
    thrust = np.linspace(0.0, limit, 200)
    basis = np.column_stack([thrust**2, thrust])
    fit = np.array(
        [
            np.linalg.lstsq(basis, c * thrust**1.5, rcond=None)[0]
            for c in (power.forward, power.reverse)
        ]
    )
    fit.setflags(write=False)
    return fit


# Blue Robotics T200 at 16 V (manufacturer's performance data, "T200 Thruster", 2019): about
# 5.25 kgf (51.5 N) forward and 4.1 kgf (40.2 N) reverse at full throttle, both near 390 W.
T200_POWER = PowerCurve(forward=390.0 / 51.5**1.5, reverse=390.0 / 40.2**1.5)


def thrust_range(
    lowest: np.ndarray,
    highest: np.ndarray,
    step: np.ndarray | float,
    previous: np.ndarray,
    available: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The thrusts (N) a sample may give, between ``lowest`` and ``highest`` (the limits,
    N), after thrusts ``previous`` (N): a magnitude grows by at most ``step`` (N), a thruster
    may always slow or stop; zero where not ``available``. Element by element, so one call
    serves one vehicle or many."""
    low = np.maximum(lowest, np.minimum(previous, 0.0) - step)
    high = np.minimum(highest, np.maximum(previous, 0.0) + step)
    return np.where(available, low, 0.0), np.where(available, high, 0.0)


class QpoasesFallback:
    """The full program by qpOASES through CasADi (cold start, about five times slower than
    DAQP): the solve where DAQP stops without a solution. Built on first need; ``solves``
    counts the programs it solved."""

    def __init__(self, hessian: np.ndarray, gradient: np.ndarray, rows: np.ndarray) -> None:
        self.hessian, self.gradient, self.rows = hessian, gradient, rows
        self._solver = None
        self.solves = 0

    def __call__(self, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """The solution z = [f, r, e] for the bounds ``lower`` and ``upper`` (the variables',
        then the rows'; DAQP's layout)."""
        import casadi as ca

        if self._solver is None:
            sparsity = {
                "h": ca.Sparsity.dense(*self.hessian.shape),
                "a": ca.Sparsity.dense(*self.rows.shape),
            }
            # qpOASES prints its licence notice (through CasADi's output stream, i.e. Python's
            # standard output) whenever a solver is built, whatever its print level.
            with redirect_stdout(io.StringIO()):
                options = {"printLevel": "none", "error_on_fail": False}
                self._solver = ca.conic("allocation", "qpoases", sparsity, options)
        variables = len(self.gradient)
        self.solves += 1
        result = self._solver(
            h=self.hessian,
            g=self.gradient,
            a=self.rows,
            lbx=lower[:variables],
            ubx=np.where(upper[:variables] >= UNBOUNDED, np.inf, upper[:variables]),
            lba=lower[variables:],
            uba=np.inf,
        )
        if not self._solver.stats()["success"]:
            raise RuntimeError(
                f"thrust allocation QP failed: {self._solver.stats()['return_status']}"
            )
        return np.asarray(result["x"]).ravel()


class ConstrainedAllocator:
    """The QP over one vehicle's thrusters (structure fixed; limits and command change)."""

    def __init__(
        self,
        configuration: np.ndarray,
        limits: np.ndarray,
        dead_band: np.ndarray,
        max_rate: float,
        sample_time: float,
        priorities: tuple[float, ...],
        power: PowerCurve = T200_POWER,
    ) -> None:
        """``configuration`` (6 x n), ``limits`` (N, largest thrust magnitude per thruster),
        ``dead_band`` (N, smallest realizable thrust magnitude per thruster), ``max_rate``
        (N/s, largest change of thrust), ``sample_time`` (s), ``priorities`` (6 weights of the force
        errors [X Y Z K M N], W per N or N.m)."""
        self.T = np.asarray(configuration, dtype=float)
        self.n = self.T.shape[1]
        self.limits = np.asarray(limits, dtype=float)
        self.dead_band = np.asarray(dead_band, dtype=float)
        self.step_limit = max_rate * sample_time
        self.power = power
        fits = np.array([power.quadratic_fit(limit) for limit in self.limits])  # (n, 2, 2)
        # Variables z = [f, r, e]: forward and reverse thrust (N), force error (N, N.m).
        curvature = np.concatenate(
            [2 * fits[:, 0, 0], 2 * fits[:, 1, 0], np.full(6, ERROR_CURVATURE)]
        )
        self.hessian = np.diag(curvature)
        self.gradient = np.concatenate(
            [fits[:, 0, 1], fits[:, 1, 1], np.asarray(priorities, float)]
        )
        # Rows: e >= tau - T (f - r) and e >= T (f - r) - tau.
        self.rows = np.block([[self.T, -self.T, np.eye(6)], [-self.T, self.T, np.eye(6)]])
        self.weights = np.asarray(priorities, float)
        self.carried = np.zeros(6)  # N, N.m: dead-zone error of the last sample
        # Bounds of the full program (z = [f, r, e], then the rows), written at every solve
        # where they change and read by the fallback: e >= 0, e and the rows unbounded above.
        n = self.n
        self._lower = np.zeros(2 * n + 18)
        self._upper = np.full(2 * n + 18, UNBOUNDED)
        self.fallback = QpoasesFallback(self.hessian, self.gradient, self.rows)
        self.compiled = native.Allocator(
            configuration=np.ascontiguousarray(self.T),
            dead_band=self.dead_band,
            weights=self.weights,
            # the program without force errors needs independent rows T (f - r) = tau: the
            # thrusters must span all six degrees of freedom (not so for e.g. a vehicle's
            # vertical ones alone)
            exact_rows=bool(np.linalg.matrix_rank(self.T) == 6),
            hessian=self.hessian,
            gradient=self.gradient,
            rows=self.rows,
            lower=self._lower,
            upper=self._upper,
            fallback=self.fallback,
        )

    def allocate(self, tau: np.ndarray, previous: np.ndarray, available: np.ndarray) -> np.ndarray:
        """Thrusts (N) for command ``tau`` (6, body frame) after thrusts ``previous`` (N),
        with ``available`` (bool per thruster; False: failed, held at zero). The force the
        dead zones took off this sample's command is added to the next one's."""
        low, high = thrust_range(-self.limits, self.limits, self.step_limit, previous, available)
        return self.allocate_within(tau, low, high)

    def allocate_within(self, tau: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """:meth:`allocate` with the sample's thrust range [``low``, ``high``] (N) given
        (:func:`thrust_range`; narrowed in place by the dead-zone passes)."""
        thrusts, failures = allocate_many([self], tau[None], low, high)
        if failures:
            raise failures[0]
        return thrusts


def allocate_many(
    allocators: list[ConstrainedAllocator], tau: np.ndarray, low: np.ndarray, high: np.ndarray
) -> tuple[np.ndarray, dict[int, Exception]]:
    """One sample of many vehicles in one compiled call: the thrusts (N, the vehicles' in turn)
    of ``allocators`` for commands ``tau`` (vehicles x 6, N and N.m, body frames) within
    [``low``, ``high``] (N, the vehicles' in turn; narrowed in place by the dead-zone passes),
    and the vehicles whose program failed (index: error; their thrusts are NaN). Each
    allocator adds the force it carries to its command and carries the force its dead zones
    took off this one. A vehicle whose command is not finite fails (NaN thrusts, its carried
    force kept) without a solve, so that one NaN leaves neither its solver nor its next
    samples' commands NaN."""
    commands = tau + np.array([a.carried for a in allocators])
    if not np.isfinite(commands).all():
        return _allocate_finite(allocators, commands, tau, low, high)
    continuous, thrusts = np.empty_like(low), np.empty_like(low)
    compiled = tuple(a.compiled for a in allocators)
    failures = native.allocate(compiled, commands, low, high, continuous, thrusts)
    taken = continuous - thrusts  # N: what the dead zones took off each thruster
    # one stacked product where it is each vehicle's own (NumPy's gemv on C-ordered matrices of
    # one shape), else one product per vehicle (a docked morphology's matrix may be F-ordered)
    if len({a.n for a in allocators}) == 1 and all(a.T.flags.c_contiguous for a in allocators):
        one = len(allocators) == 1  # its matrix as a stack of one: a view, not np.stack's copy
        configurations = allocators[0].T[None] if one else np.stack([a.T for a in allocators])
        carried = (configurations @ taken.reshape(len(allocators), -1, 1))[:, :, 0]
    else:
        ends = np.cumsum([a.n for a in allocators])
        carried = [
            a.T @ part for a, part in zip(allocators, np.split(taken, ends[:-1]), strict=True)
        ]
    for k, allocator in enumerate(allocators):
        if k not in failures:
            allocator.carried = carried[k]
    return thrusts, failures


def _allocate_finite(
    allocators: list[ConstrainedAllocator],
    commands: np.ndarray,
    tau: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
) -> tuple[np.ndarray, dict[int, Exception]]:
    """:func:`allocate_many` when some ``commands`` (with the carried forces) are not finite:
    the others solved in one call, those vehicles failed."""
    finite = np.isfinite(commands).all(axis=1)
    ends = np.cumsum([a.n for a in allocators])
    rows = np.split(np.arange(len(low)), ends[:-1])
    kept = np.concatenate([rows[k] for k in np.flatnonzero(finite)] or [np.array([], int)])
    thrusts = np.full_like(low, np.nan)
    failures: dict[int, Exception] = {
        int(k): ValueError(f"thrust allocation: the command {tau[k].tolist()} is not finite")
        for k in np.flatnonzero(~finite)
    }
    if kept.size:
        solved = [a for a, ok in zip(allocators, finite, strict=True) if ok]
        part_low, part_high = low[kept], high[kept]
        part, failed = allocate_many(solved, tau[finite], part_low, part_high)
        thrusts[kept], low[kept], high[kept] = part, part_low, part_high
        index = np.flatnonzero(finite)
        failures.update({int(index[j]): error for j, error in failed.items()})
    return thrusts, dict(sorted(failures.items()))
