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
Automatic Control 67(8), 2022), through its Python package. Most samples' first solve meets the
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
"""

from __future__ import annotations

import io
import math
from contextlib import redirect_stdout
from dataclasses import dataclass

import daqp
import numpy as np

# A quadratic term ERROR_CURVATURE/2 e^2 (W per N^2 or (N.m)^2) next to the L1 penalty makes the
# Hessian positive definite, so DAQP solves the program exactly without proximal iterations. It
# changes nothing where the command is feasible (e = 0 stays optimal: the term's slope is zero
# there) and moves a saturated solution's force errors by about ERROR_CURVATURE e / w, below
# 1e-7 of e for the weights w >= 1e2 used.
ERROR_CURVATURE = 1e-6
DAQP_SETTINGS = {"eps_prox": 0.0, "primal_tol": 1e-9}
UNBOUNDED = 1e30  # DAQP's infinity
DAQP_EQUALITY = 5  # DAQP's constraint sense: active and immutable
EXACT_TOLERANCE = 1e-7  # largest force error (relative to 1 + |tau|) of an exact solution


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
        thrust = np.linspace(0.0, limit, 200)
        basis = np.column_stack([thrust**2, thrust])
        return np.array(
            [
                np.linalg.lstsq(basis, c * thrust**1.5, rcond=None)[0]
                for c in (self.forward, self.reverse)
            ]
        )


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
        self._band = self.dead_band.tolist()
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
        self._weights = self.weights.tolist()
        # The program without force errors needs independent rows T (f - r) = tau: the thrusters
        # must span all six degrees of freedom (not so for e.g. a vehicle's vertical ones alone).
        self._exact_rows = np.linalg.matrix_rank(self.T) == 6
        self.carried = np.zeros(6)  # N, N.m: dead-zone error of the last sample
        self._workspace: daqp.Model | None = None
        # the program without error variables: z = [f, r], rows T (f - r) = tau
        self._exact: daqp.Model | None = None
        self._exact_sense = np.zeros(2 * self.n + 6, dtype=np.int32)
        self._exact_sense[2 * self.n :] = DAQP_EQUALITY
        self._fallback = None  # qpOASES, built on first need
        # Bounds of the full program (z = [f, r, e], then the rows) and of the exact one
        # (z = [f, r], then T (f - r) = tau), in reused buffers (DAQP copies them): the parts
        # that never change are set here, the others at every solve.
        n = self.n
        self._lower = np.zeros(2 * n + 18)  # e >= 0
        self._upper = np.full(2 * n + 18, UNBOUNDED)  # e and the rows unbounded above
        self._exact_lower = np.zeros(2 * n + 6)
        self._exact_upper = np.zeros(2 * n + 6)
        self._scratch = np.zeros(2 * n)

    def _thrust_bounds(
        self, low: np.ndarray, high: np.ndarray, lower: np.ndarray, upper: np.ndarray
    ) -> None:
        """Bounds of f and r for thrusts in [low, high] (N): f in [max(low, 0), max(high, 0)],
        r in [max(-high, 0), max(-low, 0)], written into the first 2n entries."""
        n, scratch = self.n, self._scratch
        scratch[:n] = low
        np.negative(high, out=scratch[n:])
        np.maximum(scratch, 0.0, out=lower[: 2 * n])
        scratch[:n] = high
        np.negative(low, out=scratch[n:])
        np.maximum(scratch, 0.0, out=upper[: 2 * n])

    def _bounds(
        self, tau: np.ndarray, low: np.ndarray, high: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds of the full program for thrusts in [low, high] (N): those of
        f and r, e >= 0, and the rows T (f - r) + e >= tau, -T (f - r) + e >= -tau."""
        n, lower, upper = self.n, self._lower, self._upper
        self._thrust_bounds(low, high, lower, upper)
        lower[2 * n + 6 : 2 * n + 12] = tau
        np.negative(tau, out=lower[2 * n + 12 :])
        return lower, upper

    def _solve(self, tau: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """Thrusts (N) minimizing power plus weighted force error within [low, high] (N)."""
        lower, upper = self._bounds(tau, low, high)
        if self._workspace is None:
            self._workspace = daqp.Model()
            self._workspace.setup(self.hessian, self.gradient, self.rows, upper, lower)
            self._workspace.settings = DAQP_SETTINGS
        else:
            self._workspace.update(bupper=upper, blower=lower)
        z, _, status, _ = self._workspace.solve()
        if status < 1:  # e.g. cycling (-2) on a degenerate program: many thrusters held at 0
            self._workspace = None  # the next solve starts from scratch
            z = self._solve_qpoases(lower, upper)
        return self._thrusts(z, low, high)

    def _solve_exact(self, tau: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray | None:
        """Thrusts (N) within [low, high] (an interval that contains zero, as the rate limits
        give it) meeting ``tau`` exactly at least power, if that is the full program's
        solution (see the module's docstring); None otherwise."""
        n, lower, upper = 2 * self.n, self._exact_lower, self._exact_upper
        upper[: self.n] = high  # [low, high] contains zero: f in [0, high], r in [0, -low]
        np.negative(low, out=upper[self.n : n])
        lower[n:] = tau  # the rows: T (f - r) = tau
        upper[n:] = tau
        if self._exact is None:
            model = daqp.Model()
            status, _ = model.setup(
                self.hessian[:n, :n],
                self.gradient[:n],
                self.rows[:6, :n],
                upper,
                lower,
                self._exact_sense,
            )
            if status < 0:  # e.g. found infeasible while setting up
                return None
            model.settings = DAQP_SETTINGS
            self._exact = model
        else:
            self._exact.update(bupper=upper, blower=lower)
        z, _, status, info = self._exact.solve()
        if status < 1:  # no thrusts meet the command within the limits
            self._exact = None  # an infeasible program leaves no active set to start from
            return None
        multipliers = info["lam"][n:].tolist()
        if any(abs(m) > w for m, w in zip(multipliers, self._weights, strict=True)):
            return None  # an error would be cheaper
        thrusts = self._thrusts(z, low, high)
        error = (self.T @ thrusts - tau).tolist()
        if max(map(abs, error)) > EXACT_TOLERANCE * (1.0 + max(map(abs, tau.tolist()))):
            return None  # not met after all (DAQP solves to primal_tol): the full program
        return thrusts

    def _thrusts(self, z: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """Thrusts f - r (N) of a program's solution ``z``, within [low, high] (N)."""
        n = self.n
        thrusts = np.subtract(z[:n], z[n : 2 * n])
        np.maximum(thrusts, low, out=thrusts)
        return np.minimum(thrusts, high, out=thrusts)

    def _solve_qpoases(self, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """The same program by qpOASES through CasADi (cold start, about five times slower): the
        fallback where DAQP stops without a solution."""
        import casadi as ca

        if self._fallback is None:
            sparsity = {
                "h": ca.Sparsity.dense(*self.hessian.shape),
                "a": ca.Sparsity.dense(*self.rows.shape),
            }
            # qpOASES prints its licence notice (through CasADi's output stream, i.e. Python's
            # standard output) whenever a solver is built, whatever its print level.
            with redirect_stdout(io.StringIO()):
                options = {"printLevel": "none", "error_on_fail": False}
                self._fallback = ca.conic("allocation", "qpoases", sparsity, options)
        variables = len(self.gradient)
        result = self._fallback(
            h=self.hessian,
            g=self.gradient,
            a=self.rows,
            lbx=lower[:variables],
            ubx=np.where(upper[:variables] >= UNBOUNDED, np.inf, upper[:variables]),
            lba=lower[variables:],
            uba=np.inf,
        )
        if not self._fallback.stats()["success"]:
            raise RuntimeError(
                f"thrust allocation QP failed: {self._fallback.stats()['return_status']}"
            )
        return np.asarray(result["x"]).ravel()

    def allocate(self, tau: np.ndarray, previous: np.ndarray, available: np.ndarray) -> np.ndarray:
        """Thrusts (N) for command ``tau`` (6, body frame) after thrusts ``previous`` (N),
        with ``available`` (bool per thruster; False: failed, held at zero). The force the
        dead zones took off this sample's command is added to the next one's."""
        low, high = thrust_range(-self.limits, self.limits, self.step_limit, previous, available)
        return self.allocate_within(tau, low, high)

    def allocate_within(self, tau: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """:meth:`allocate` with the sample's thrust range [``low``, ``high``] (N) given
        (:func:`thrust_range`; narrowed in place by the dead-zone passes)."""
        tau = tau + self.carried
        thrusts = self._solve_exact(tau, low, high) if self._exact_rows else None
        if thrusts is None:
            thrusts = self._solve(tau, low, high)
        continuous = thrusts
        free = [True] * self.n
        while self._pin_dead_zones(thrusts, low, high, free):  # each pass pins one at least
            thrusts = self._solve(tau, low, high)
        self.carried = self.T @ (continuous - thrusts)
        return thrusts

    def _pin_dead_zones(
        self, thrusts: np.ndarray, low: np.ndarray, high: np.ndarray, free: list[bool]
    ) -> bool:
        """Narrow ``low`` and ``high`` (N, in place) to pin every free thruster ``thrusts``
        leaves inside its dead band: at zero below half the band's edge, else at the edge with
        its sign (within [low, high]); those thrusters are no longer ``free``. Whether any was
        pinned. On plain floats: for a vehicle's few thrusters a loop costs less than NumPy's
        calls."""
        pinned = False
        for i, (thrust, band) in enumerate(zip(thrusts.tolist(), self._band, strict=True)):
            if free[i] and thrust != 0.0 and abs(thrust) < band:
                target = math.copysign(band, thrust) if abs(thrust) >= 0.5 * band else 0.0
                target = min(max(target, float(low[i])), float(high[i]))
                if target >= 0:
                    low[i] = target
                if target <= 0:
                    high[i] = target
                free[i] = False
                pinned = True
        return pinned
