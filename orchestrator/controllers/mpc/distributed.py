"""Distributed MPC by dual decomposition (Nielsen 2018, Algorithm 1) and the centralized baseline.

Each sample: for r = 0..L-1 every vehicle solves its local problem with the present prices,
the vehicles exchange state and consensus trajectories, and the prices are updated:

    lambda_ij,k <- max(0, lambda_ij,k + kappa A_ij,k (p_j,k - p_i,k))     (eq. 8.24)
    mu_e,k      <- mu_e,k + gamma (theta_i,k - theta_j,k)                  (eq. 8.25)

where A_ij,k = [n+; n-] of vehicle i's camera that must see j, at vehicle i's predicted
heading (so A is updated over the horizon). The first input of the last iterate is applied;
prices and trajectories are shifted by one step to warm-start the next sample.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import casadi as ca
import numpy as np

from orchestrator.controllers.mpc.problem import (
    SLACK_WEIGHT,
    LocalProblem,
    Solution,
    VehicleSpec,
    _object_terms,
    nlp_solver,
)


@dataclass
class SampleReport:
    """What one sample of a rendezvous controller did (per vehicle where it applies)."""

    inputs: dict[str, np.ndarray]
    seconds: dict[str, float]  # solver wall time of all iterations together (s)
    failures: dict[str, int]  # failed solves in this sample
    consensus: np.ndarray  # agreed rendezvous pose (north, east, heading)


def _shift(a: np.ndarray) -> np.ndarray:
    """Drop the first step, repeat the last."""
    return np.concatenate([a[1:], a[-1:]])


class DistributedMPC:
    """Algorithm 1 over a set of vehicles with mutual camera constraints."""

    def __init__(
        self,
        specs: list[VehicleSpec],
        horizon: int,
        iterations: int,
        kappa: float,
        gamma: float,
        solver: str = "sqp",
        parallel: bool = True,
        budget: float = float("inf"),
        compiled: Path | None = None,
    ) -> None:
        """With ``parallel``, the vehicles' local problems of a dual iteration are solved in
        threads at once (CasADi releases the interpreter lock while it solves). ``budget`` (s):
        no further dual iteration starts once a sample has taken this long (the last
        iterate, warm-started, is used; at least one iteration is made). ``compiled``: the
        cache folder of the local problems' compiled NLP functions (see
        :class:`LocalProblem`)."""
        if iterations < 1 or horizon < 1:
            raise ValueError(
                f"MPC: iterations and horizon must be >= 1, got {iterations}, {horizon}"
            )
        names = {s.name for s in specs}
        for s in specs:
            for other, camera in s.sees.items():
                if other not in names or other == s.name:
                    raise ValueError(
                        f"MPC vehicle '{s.name}': cannot see unknown vehicle '{other}'"
                    )
                if not 0 <= camera < len(s.cameras):
                    raise ValueError(f"MPC vehicle '{s.name}': no camera {camera + 1}")
        self.specs = {s.name: s for s in specs}
        self.N, self.L, self.kappa, self.gamma = horizon, iterations, kappa, gamma
        self.budget = budget
        self.problems = {s.name: LocalProblem(s, horizon, solver, compiled) for s in specs}
        ordered = sorted(names)
        self.edges = [(a, b) for k, a in enumerate(ordered) for b in ordered[k + 1 :]]
        self.reset()
        self._pool = ThreadPoolExecutor(len(specs)) if parallel and len(specs) > 1 else None

    def reset(self) -> None:
        """Forget prices and plans: the next sample starts from rest, as the first one."""
        self.lam = {
            (i, j): np.zeros((self.N + 1, 2)) for i, s in self.specs.items() for j in s.sees
        }
        self.mu = {e: np.zeros((self.N + 1, 3)) for e in self.edges}
        self.plans: dict[str, Solution] = {}

    def _position_prices(self, i: str, plans: dict[str, Solution]) -> np.ndarray:
        """c_i,k = sum_j A_ji' lambda_ji - A_ij' lambda_ij (eq. 8.21), position part."""
        price = np.zeros((self.N + 1, 2))
        for (a, b), lam in self.lam.items():
            camera = self.specs[a].cameras[self.specs[a].sees[b]]
            A = camera.normals_along(plans[a].X[:, 2])  # (N+1, 2, 2)
            term = np.einsum("kij,ki->kj", A, lam)
            if b == i:
                price += term
            if a == i:
                price -= term
        return price

    def _consensus_prices(self, i: str) -> np.ndarray:
        price = np.zeros((self.N + 1, 3))
        for (a, b), mu in self.mu.items():
            price += mu if a == i else -mu if b == i else 0.0
        return price

    def step(self, states: dict[str, np.ndarray]) -> SampleReport:
        """One sample: L dual iterations, then the first inputs of the last solutions. A vehicle
        whose local solve fails keeps its previous plan for the rest of the sample (no further
        solves until the next one), which bounds the time a failing sample takes."""
        seconds = dict.fromkeys(self.specs, 0.0)
        failures = dict.fromkeys(self.specs, 0)
        plans = {n: self.plans.get(n) or self._resting(n, states[n]) for n in self.specs}
        started = time.perf_counter()
        for _ in range(self.L):
            active = [n for n in self.problems if not failures[n]]
            calls = [
                (n, states[n], self._position_prices(n, plans), self._consensus_prices(n), plans[n])
                for n in active
            ]
            run = self._pool.map if self._pool else map
            mapped = run(lambda call: self._solve(*call), calls)
            new = dict(plans)
            for name, (solution, elapsed) in zip(active, mapped, strict=True):
                seconds[name] += elapsed
                if not solution.success:
                    failures[name] += 1
                    solution = plans[name]
                new[name] = solution
            plans = new
            self._update_prices(plans)
            if time.perf_counter() - started > self.budget:
                break
        self.plans = {
            n: Solution(_shift(s.X), _shift(s.U), _shift(s.theta), s.success, s.seconds, s.status)
            for n, s in plans.items()
        }
        self.lam = {k: _shift(v) for k, v in self.lam.items()}
        self.mu = {k: _shift(v) for k, v in self.mu.items()}
        consensus = np.mean([p.theta[0] for p in plans.values()], axis=0)
        inputs = {n: p.U[0] for n, p in plans.items()}
        return SampleReport(inputs, seconds, failures, consensus)

    def _solve(
        self,
        name: str,
        state: np.ndarray,
        price_p: np.ndarray,
        price_t: np.ndarray,
        previous: Solution,
    ) -> tuple[Solution, float]:
        """Vehicle ``name``'s local problem warm-started from ``previous``; its wall time (s)."""
        problem = self.problems[name]
        guess = problem.pack(previous.X, previous.U, previous.theta)
        started = time.perf_counter()
        solution = problem.solve(state, price_p, price_t, guess)
        return solution, time.perf_counter() - started

    def _resting(self, name: str, x0: np.ndarray) -> Solution:
        problem = self.problems[name]
        w = problem.initial_guess(x0)
        X, U, T, _ = problem._unpack(w)
        return Solution(X, U, T, True, 0.0, "initial guess")

    def _update_prices(self, plans: dict[str, Solution]) -> None:
        for (a, b), lam in self.lam.items():
            camera = self.specs[a].cameras[self.specs[a].sees[b]]
            A = camera.normals_along(plans[a].X[:, 2])
            gap = plans[b].X[:, :2] - plans[a].X[:, :2]
            self.lam[(a, b)] = np.maximum(0.0, lam + self.kappa * np.einsum("kij,kj->ki", A, gap))
        for (a, b), mu in self.mu.items():
            self.mu[(a, b)] = mu + self.gamma * (plans[a].theta - plans[b].theta)


class CentralizedMPC:
    """All vehicles in one problem: Laplacian consensus cost and exact camera constraints."""

    def __init__(self, specs: list[VehicleSpec], horizon: int, solver: str = "ipopt") -> None:
        self.specs, self.N = specs, horizon
        n = len(specs)
        X = [ca.SX.sym(f"X{k}", 6, horizon + 1) for k in range(n)]
        U = [ca.SX.sym(f"U{k}", 3, horizon) for k in range(n)]
        links = [
            (a, b) for a, s in enumerate(specs) for b, t in enumerate(specs) if t.name in s.sees
        ]
        n_obj = sum(3 for s in specs if s.observe)
        S = ca.SX.sym("S", 2 * len(links) + n_obj, horizon + 1)
        x0 = ca.SX.sym("x0", 6 * n)
        cost, g, lbg, ubg = 0, [], [], []
        steps = [s.model.step_function() for s in specs]
        for a in range(n):
            g.append(X[a][:, 0] - x0[6 * a : 6 * a + 6])
            lbg += [0.0] * 6
            ubg += [0.0] * 6
        for k in range(horizon + 1):
            for a, s in enumerate(specs):
                nu = X[a][3:, k]
                cost += ca.bilin(ca.DM(s.W), nu, nu)
                if k < horizon:
                    cost += ca.bilin(ca.DM(s.R), U[a][:, k], U[a][:, k])
                    g.append(X[a][:, k + 1] - steps[a](X[a][:, k], U[a][:, k]))
                    lbg += [0.0] * 6
                    ubg += [0.0] * 6
                for b in range(a + 1, n):
                    error = s.rendezvous_point(X[a][:, k]) - specs[b].rendezvous_point(X[b][:, k])
                    cost += ca.bilin(ca.DM(s.P), error, error)
            if k == 0:
                continue
            row = 0
            for a, b in links:
                camera = specs[a].cameras[specs[a].sees[specs[b].name]]
                g.append(
                    camera.normals(X[a][2, k]) @ (X[b][:2, k] - X[a][:2, k]) - S[row : row + 2, k]
                )
                lbg += [-ca.inf] * 2
                ubg += [0.0] * 2
                row += 2
            for a, s in enumerate(specs):
                if s.observe:
                    g += _object_terms(s, X[a][:, k], S[row : row + 3, k])
                    lbg += [-ca.inf] * 3
                    ubg += [0.0] * 3
                    row += 3
            cost += SLACK_WEIGHT * ca.sum1(S[:, k])
        w = ca.veccat(*X, *U, S)
        nlp = {"x": w, "p": x0, "f": cost, "g": ca.vertcat(*g)}
        self.solver = nlp_solver("central", nlp, solver)
        self.lbg, self.ubg = np.array(lbg), np.array(ubg)
        big = np.full(w.numel(), np.inf)
        self.lbw, self.ubw = -big.copy(), big.copy()
        offset = 6 * (horizon + 1) * n
        for a, s in enumerate(specs):
            start = offset + 3 * horizon * a
            umax = np.tile(s.model.max_input, horizon)
            self.lbw[start : start + 3 * horizon], self.ubw[start : start + 3 * horizon] = (
                -umax,
                umax,
            )
        self.lbw[offset + 3 * horizon * n :] = 0.0
        self.n = n
        self._guess: np.ndarray | None = None
        self._duals: tuple[np.ndarray, np.ndarray] | None = None

    def step(self, states: dict[str, np.ndarray]) -> SampleReport:
        """One sample of the centralized controller."""
        x0 = np.concatenate([states[s.name] for s in self.specs])
        guess = self._guess
        if guess is None:
            guess = np.zeros(self.lbw.size)
            for a in range(self.n):
                guess[6 * (self.N + 1) * a : 6 * (self.N + 1) * (a + 1)] = np.tile(
                    x0[6 * a : 6 * a + 6], self.N + 1
                )
        args = {
            "x0": guess,
            "p": x0,
            "lbx": self.lbw,
            "ubx": self.ubw,
            "lbg": self.lbg,
            "ubg": self.ubg,
        }
        if self._duals is not None:
            args["lam_x0"], args["lam_g0"] = self._duals
        started = time.perf_counter()
        result = self.solver(**args)
        seconds = time.perf_counter() - started
        success = bool(self.solver.stats()["success"])
        w = np.asarray(result["x"]).ravel()
        self._guess, self._duals = (
            w,
            (np.asarray(result["lam_x"]).ravel(), np.asarray(result["lam_g"]).ravel()),
        )
        inputs, points = {}, []
        offset = 6 * (self.N + 1) * self.n
        for a, s in enumerate(self.specs):
            X = w[6 * (self.N + 1) * a : 6 * (self.N + 1) * (a + 1)].reshape(self.N + 1, 6)
            inputs[s.name] = w[offset + 3 * self.N * a : offset + 3 * self.N * a + 3]
            points.append(s.rendezvous_point(X[0]))
        names = [s.name for s in self.specs]
        return SampleReport(
            inputs,
            dict.fromkeys(names, seconds),
            dict.fromkeys(names, 0 if success else 1),
            np.mean(points, axis=0),
        )
