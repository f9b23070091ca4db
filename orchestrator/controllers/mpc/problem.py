"""Optimal control problems of the rendezvous: local (dual decomposition) and centralized.

Vehicle i predicts N steps of its planar model. Its rendezvous point is h_i(x) = [p + R(psi)
r_i; psi + psi_i] (its docking port for a docking, its origin for a plain rendezvous). The
local problem (Nielsen 2018, eqs. 8.21-8.23) minimizes

    sum_k (h_i - theta_k)' P (h_i - theta_k) + nu' W nu + u' R u       (stage cost, eq. 8.18)
        + c_k' p_k + d_k' theta_k                                       (prices of the duals)
        + rho * slacks of the local constraints

over its states, inputs and consensus points theta, with the dynamics as constraints and the
input bounds. Local constraints (no communication): distance to an observed object and the
object in a camera's view (eqs. 8.10, 8.27), softened by slacks with weight rho so that the
problem stays feasible. The centralized problem (eqs. 8.13-8.16) optimizes all vehicles at once
with the Laplacian cost (h_i - h_j)' P (h_i - h_j) and the mutual line-of-sight constraints,
softened the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import casadi as ca
import numpy as np

from orchestrator.controllers.mpc.camera import Camera
from orchestrator.controllers.mpc.compiled import compiled_functions
from orchestrator.controllers.mpc.in_place import InPlaceCall
from orchestrator.controllers.mpc.model import PlanarModel

SLACK_WEIGHT = 1e3
IPOPT_OPTIONS = {
    "ipopt.print_level": 0,
    "ipopt.sb": "yes",
    "print_time": False,
    "ipopt.tol": 1e-6,
    "ipopt.max_iter": 200,
    "ipopt.warm_start_init_point": "yes",
    "ipopt.mu_init": 1e-3,
}
# SQP with CasADi's active-set QP solver: the local problems are nearly quadratic (linear
# damping, linearized camera prices), so with warm starts it converges in 1-3 iterations.
SQP_OPTIONS = {
    "qpsol": "qrqp",
    "qpsol_options": {
        "print_iter": False,
        "print_header": False,
        "error_on_fail": False,
        "max_iter": 200,
    },
    "print_header": False,
    "print_iteration": False,
    "print_status": False,
    "print_time": False,
    "error_on_fail": False,
    "max_iter": 30,
}
SOLVERS = {"ipopt": ("ipopt", IPOPT_OPTIONS), "sqp": ("sqpmethod", SQP_OPTIONS)}


def nlp_solver(
    name: str, nlp: dict, solver: str, functions: dict[str, ca.Function] | None = None
) -> ca.Function:
    """A CasADi NLP solver: "ipopt" (interior point, as in Nielsen (2018)) or "sqp";
    ``functions``: its NLP functions by name, to use instead of building them (see
    :mod:`orchestrator.controllers.mpc.compiled`)."""
    if solver not in SOLVERS:
        raise ValueError(f"unknown NLP solver '{solver}', expected one of {sorted(SOLVERS)}")
    plugin, options = SOLVERS[solver]
    return ca.nlpsol(name, plugin, nlp, {**options, "cache": functions} if functions else options)


@dataclass(frozen=True)
class ObservedObject:
    """A fixed object vehicle i must keep within ``max_distance`` (m) and in ``camera``'s view."""

    position: np.ndarray  # north, east (m)
    max_distance: float
    camera: int


@dataclass
class VehicleSpec:
    """One vehicle of the rendezvous: model, weights, cameras and what they must see."""

    name: str
    model: PlanarModel
    cameras: list[Camera]
    sees: dict[str, int] = field(default_factory=dict)  # neighbour -> camera index
    port: np.ndarray = field(default_factory=lambda: np.zeros(2))  # rendezvous point, body (m)
    port_heading: float = 0.0  # rad added to the heading in the rendezvous pose
    P: np.ndarray = field(default_factory=lambda: np.diag([15.0, 15.0, 15.0]))
    W: np.ndarray = field(default_factory=lambda: np.diag([10.0, 10.0, 10.0]))
    R: np.ndarray = field(default_factory=lambda: np.diag([10.0, 10.0, 10.0]))
    observe: ObservedObject | None = None

    def rendezvous_point(self, x: object) -> object:
        """h(x): the pose that must agree with the other vehicles' (CasADi or NumPy)."""
        lib = ca if isinstance(x, ca.SX | ca.MX) else np
        c, s = lib.cos(x[2]), lib.sin(x[2])
        north = x[0] + c * self.port[0] - s * self.port[1]
        east = x[1] + s * self.port[0] + c * self.port[1]
        if lib is ca:
            return ca.vertcat(north, east, x[2] + self.port_heading)
        return np.array([north, east, x[2] + self.port_heading])


def _object_terms(spec: VehicleSpec, x: ca.SX, slack: ca.SX) -> list[ca.SX]:
    """Soft local constraints g <= slack (distance and view of the observed object)."""
    obj = spec.observe
    e = ca.DM(obj.position) - x[:2]
    normals = spec.cameras[obj.camera].normals(x[2])
    return [ca.sumsqr(e) - obj.max_distance**2 - slack[0], normals @ e - slack[1:3]]


@dataclass
class Solution:
    """Optimal trajectories of one problem: X (N+1, 6), U (N, 3), Theta (N+1, 3)."""

    X: np.ndarray
    U: np.ndarray
    theta: np.ndarray
    success: bool
    seconds: float
    status: str


class LocalProblem:
    """Vehicle i's problem of the dual decomposition, built once, solved with new prices."""

    def __init__(
        self, spec: VehicleSpec, horizon: int, solver: str = "sqp", compiled: Path | None = None
    ) -> None:
        """``compiled``: a cache folder for the solver's NLP functions compiled to machine
        code (:mod:`orchestrator.controllers.mpc.compiled`; the same solutions bit for bit),
        None to leave them to CasADi's virtual machine."""
        self.spec, self.N = spec, horizon
        step = spec.model.step_function()
        X, U, T = (
            ca.SX.sym("X", 6, horizon + 1),
            ca.SX.sym("U", 3, horizon),
            ca.SX.sym("T", 3, horizon + 1),
        )
        n_slack = 3 if spec.observe else 0
        S = ca.SX.sym("S", n_slack, horizon + 1)
        x0, c_p, c_t = (
            ca.SX.sym("x0", 6),
            ca.SX.sym("cp", 2, horizon + 1),
            ca.SX.sym("ct", 3, horizon + 1),
        )
        cost, g = 0, [X[:, 0] - x0]
        self._g_bounds: list[tuple[float, float, int]] = [(0.0, 0.0, 6)]
        for k in range(horizon + 1):
            error = spec.rendezvous_point(X[:, k]) - T[:, k]
            nu = X[3:, k]
            cost += ca.bilin(ca.DM(spec.P), error, error) + ca.bilin(ca.DM(spec.W), nu, nu)
            cost += ca.dot(c_p[:, k], X[:2, k]) + ca.dot(c_t[:, k], T[:, k])
            if k < horizon:
                cost += ca.bilin(ca.DM(spec.R), U[:, k], U[:, k])
                g.append(X[:, k + 1] - step(X[:, k], U[:, k]))
                self._g_bounds.append((0.0, 0.0, 6))
            if n_slack and k > 0:
                cost += SLACK_WEIGHT * ca.sum1(S[:, k])
                g += _object_terms(spec, X[:, k], S[:, k])
                self._g_bounds.append((-ca.inf, 0.0, 3))
        w = ca.veccat(X, U, T, S)
        self._shapes = [(6, horizon + 1), (3, horizon), (3, horizon + 1), (n_slack, horizon + 1)]
        nlp = {"x": w, "p": ca.veccat(x0, c_p, c_t), "f": cost, "g": ca.vertcat(*g)}
        self.solver = nlp_solver(f"local_{spec.name}", nlp, solver)
        functions = compiled_functions(self.solver, compiled) if compiled else None
        if functions:
            self.solver = nlp_solver(f"local_{spec.name}", nlp, solver, functions)
        # Interior point as the fallback when the faster SQP does not converge.
        self.fallback = (
            nlp_solver(f"local_{spec.name}_ip", nlp, "ipopt") if solver != "ipopt" else None
        )
        umax = np.tile(spec.model.max_input, horizon)
        big = np.full(w.numel(), np.inf)
        self.lbw, self.ubw = -big.copy(), big.copy()
        offset = 6 * (horizon + 1)
        self.lbw[offset : offset + 3 * horizon], self.ubw[offset : offset + 3 * horizon] = (
            -umax,
            umax,
        )
        slack_start = offset + 3 * horizon + 3 * (horizon + 1)
        self.lbw[slack_start:] = 0.0
        self.lbg = np.concatenate([np.full(n, lo) for lo, _, n in self._g_bounds])
        self.ubg = np.concatenate([np.full(n, hi) for _, hi, n in self._g_bounds])
        # the solver evaluated in place: bounds written once, no conversions per call
        self._call = InPlaceCall(self.solver)
        bounds = {"lbx": self.lbw, "ubx": self.ubw, "lbg": self.lbg, "ubg": self.ubg}
        for name, values in bounds.items():
            self._call.inputs[name][:] = values
        self._warm: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def _unpack(self, w: np.ndarray) -> list[np.ndarray]:
        parts, k = [], 0
        for rows, cols in self._shapes:
            parts.append(w[k : k + rows * cols].reshape(cols, rows))
            k += rows * cols
        return parts

    def solve(
        self, x0: np.ndarray, price_p: np.ndarray, price_t: np.ndarray, guess: np.ndarray
    ) -> Solution:
        """Solve with linear prices on positions (N+1, 2) and consensus points (N+1, 3)."""
        args, n_p = self._call.inputs, price_p.size
        args["x0"][:] = guess
        args["p"][:6], args["p"][6 : 6 + n_p] = x0, price_p.ravel()
        args["p"][6 + n_p :] = price_t.ravel()
        # without a previous solution, the multipliers start at zero (the solver's default)
        for name, previous in (("lam_x0", 1), ("lam_g0", 2)):
            args[name][:] = 0.0 if self._warm is None else self._warm[previous]
        stats = self._call()
        result = self._call.outputs
        if not stats["success"] and self.fallback is not None:
            cold = {k: v for k, v in args.items() if not k.startswith("lam")}
            result = {k: np.asarray(v).ravel() for k, v in self.fallback(**cold).items()}
            stats = self.fallback.stats()
        w = result["x"].copy()
        self._warm = (w, result["lam_x"].copy(), result["lam_g"].copy())
        X, U, T, _ = self._unpack(w)
        return Solution(
            X,
            U,
            T,
            bool(stats["success"]),
            float(stats.get("t_wall_total", 0.0)),
            stats["return_status"],
        )

    def initial_guess(self, x0: np.ndarray) -> np.ndarray:
        """Rest at x0, consensus point at the vehicle's own rendezvous point."""
        X = np.tile(x0, (self.N + 1, 1))
        T = np.tile(self.spec.rendezvous_point(x0), (self.N + 1, 1))
        S = np.zeros((self.N + 1, self._shapes[3][0]))
        return np.concatenate([X.ravel(), np.zeros(3 * self.N), T.ravel(), S.ravel()])

    def pack(self, X: np.ndarray, U: np.ndarray, T: np.ndarray) -> np.ndarray:
        """Decision vector of trajectories (for warm starts)."""
        S = np.zeros((self.N + 1, self._shapes[3][0]))
        return np.concatenate([X.ravel(), U.ravel(), T.ravel(), S.ravel()])
