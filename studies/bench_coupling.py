"""Benchmark of the constraint coupling's cost against the number of welded bodies.

Chains of N GenericVehicles (N = 1 ... 64) welded end to end, 0.5 m apart along y, and a
grid of R x R GenericVehicles welded to their neighbours in x and y (closed loops), all
integrated by RK4 with a 0.01 s step. For each system: the cost of the coupling in one
right-hand side (the integrators' post-process: joint rows, Phi M^-1 Phi', solve; compiled for
welded chains, ``ConstraintCoupling.apply`` for the grid's closed loops), the same for
the dense SVD form (``[coupling] solver = "svd"``) as the reference, and a whole run
(the CPU time of its run loop, start-up excluded): real-time factor and the coupling's share
of the run. The exponent of the
coupling's cost is fitted over N = 8 ... 64. Small dense algebra runs on one BLAS thread.
Times are the process's CPU time, which other processes on a shared machine disturb less
than wall time; nothing here is a test.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from orchestrator.coupling.runtime import ConstraintCoupling
from orchestrator.runner.run import run_scenario
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System

SPACING = 0.5  # m between neighbouring vehicle origins
FIT_FROM = 8  # smallest N of the fitted exponent
SVD_TIME = 0.1  # s: the short run whose coupling is timed in the dense SVD form


def _vehicle(name: str, x: float, y: float, start: str = "") -> str:
    return f"""
[components.{name}]
fmu = "GenericVehicle"
start = {{ "p[1]" = {x}, "p[2]" = {y}{start} }}
"""


def _weld(a: str, b: str, at: tuple[float, float, float]) -> str:
    return f"""
[[joints]]
name = "{a}_{b}"
type = "weld"
a = "{a}"
b = "{b}"
at = [{at[0]}, {at[1]}, {at[2]}]
"""


def _header(stop_time: float, solver: str) -> str:
    return f"""
[simulation]
stop_time = {stop_time}
output_interval = 0.1
solver = "RK4"
step = 0.01

[coupling]
solver = "{solver}"
"""


# The first vehicle starts surging and yawing, so that the welds carry loads.
_KICK = ', "nu[1]" = 0.3, "nu[6]" = 0.2'


def chain_scenario(n: int, stop_time: float, solver: str = "auto") -> str:
    """Scenario text: ``n`` GenericVehicles welded in a chain along y."""
    text = _header(stop_time, solver)
    for k in range(n):
        text += _vehicle(f"v{k}", 0.0, SPACING * k, _KICK if k == 0 else "")
    for k in range(n - 1):
        text += _weld(f"v{k}", f"v{k + 1}", (0.0, SPACING / 2, 0.0))
    return text


def grid_scenario(size: int, stop_time: float, solver: str = "auto") -> str:
    """Scenario text: ``size`` x ``size`` GenericVehicles, each welded to its neighbours in
    x and y (2 size (size - 1) welds, (size - 1)^2 closed loops)."""
    text = _header(stop_time, solver)
    for i in range(size):
        for j in range(size):
            start = _KICK if i == j == 0 else ""
            text += _vehicle(f"v{i}_{j}", SPACING * i, SPACING * j, start)
    for i in range(size):
        for j in range(size):
            if i + 1 < size:
                text += _weld(f"v{i}_{j}", f"v{i + 1}_{j}", (SPACING / 2, 0.0, 0.0))
            if j + 1 < size:
                text += _weld(f"v{i}_{j}", f"v{i}_{j + 1}", (0.0, SPACING / 2, 0.0))
    return text


def _per_call(action: Callable[[], object], evaluations: int, rounds: int = 3) -> float:
    """Seconds per call: the best of ``rounds`` means over ``evaluations`` calls."""
    action()
    best = np.inf
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(evaluations):
            action()
        best = min(best, (time.process_time() - start) / evaluations)
    return best


def run_cost(path: Path, fmu_dir: Path, out_dir: Path) -> tuple[float, int]:
    """CPU seconds of the run loop and right-hand sides of a run of ``path`` (files, no
    plots; start-up excluded)."""
    statistics = run_scenario(path, out_dir, fmu_dir, plots=False).statistics
    return statistics.cpu_seconds, statistics.rhs_evaluations


def coupling_cost(path: Path, fmu_dir: Path, evaluations: int) -> tuple[float, float]:
    """Seconds per right-hand side of the coupling alone and of the FMUs' derivatives."""
    scenario = load_scenario(path)
    system = System(scenario, str(path), fmu_dir)
    try:
        x = system.initialize(0.0, scenario.environment.current)
        if not scenario.joints:
            return 0.0, _per_call(lambda: system.derivatives(0.0, x), evaluations)
        coupling = ConstraintCoupling(
            system, scenario.joints, scenario.docking, scenario.coupling, x
        )
        x = coupling.project(x)
        dx = system.derivatives(0.0, x).copy()
        work = dx.copy()

        def apply() -> None:
            work[:] = dx
            coupling.post_process()(x, work)

        fmus = _per_call(lambda: system.derivatives(0.0, x), evaluations)
        return _per_call(apply, evaluations), fmus
    finally:
        system.close()


def _measure(
    name: str,
    scenario: Callable[..., str],
    stop_time: float,
    folder: Path,
    fmu_dir: Path,
    evaluations: int,
) -> dict[str, float | str]:
    """Per-RHS costs and whole-run figures of one system; ``scenario(stop_time, solver)``."""
    texts = {"run": scenario(stop_time), "svd": scenario(SVD_TIME, "svd")}
    paths = {key: folder / f"{name}_{key}.toml" for key in texts}
    for key, text in texts.items():
        paths[key].write_text(text)
    coupling, fmus = coupling_cost(paths["run"], fmu_dir, evaluations)
    reference, _ = coupling_cost(paths["svd"], fmu_dir, max(3, evaluations // 50))
    seconds, evaluated = run_cost(paths["run"], fmu_dir, folder / name)
    scenario_ = load_scenario(paths["run"])
    return {
        "system": name,
        "bodies": len(scenario_.components),
        "joints": len(scenario_.joints),
        "coupling_us": 1e6 * coupling,
        "svd_us": 1e6 * reference,
        "fmus_us": 1e6 * fmus,
        "real_time": stop_time / seconds,
        "coupling_share": evaluated * coupling / seconds,
    }


def fitted_exponent(sizes: list[int], costs: list[float]) -> float:
    """Slope of log(cost) against log(N), least squares."""
    return float(np.polyfit(np.log(sizes), np.log(costs), 1)[0])


def coupling_benchmarks(
    fmu_dir: Path,
    sizes: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64),
    grid: int = 8,
    stop_time: float = 2.0,
    evaluations: int = 200,
) -> dict[str, object]:
    """Measure chains of ``sizes`` bodies and a ``grid`` x ``grid`` grid; print a markdown
    table and the fitted exponent of the coupling's cost over N >= 8; return the rows."""
    rows = []
    systems = [(f"chain_{n}", partial(chain_scenario, n)) for n in sizes]
    if grid:
        systems.append((f"grid_{grid}x{grid}", partial(grid_scenario, grid)))
    with threadpool_limits(limits=1, user_api="blas"), tempfile.TemporaryDirectory() as tmp:
        for name, scenario in systems:
            rows.append(_measure(name, scenario, stop_time, Path(tmp), fmu_dir, evaluations))
    fitted = [(r["bodies"], r["coupling_us"]) for r in rows if str(r["system"]).startswith("chain")]
    fitted = [(n, c) for n, c in fitted if n >= FIT_FROM]
    exponent = fitted_exponent(*zip(*fitted, strict=True)) if len(fitted) >= 2 else float("nan")
    print(
        "| system | bodies | joints | coupling per RHS (us) | dense SVD per RHS (us) "
        "| FMUs per RHS (us) | real time | coupling share of the run |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['system']} | {r['bodies']} | {r['joints']} | {r['coupling_us']:.0f} "
            f"| {r['svd_us']:.0f} | {r['fmus_us']:.0f} | {r['real_time']:.2f}x "
            f"| {100 * r['coupling_share']:.0f} % |"
        )
    print(f"\nfitted exponent of the coupling's cost over chains N = {FIT_FROM}..{max(sizes)}: "
          f"{exponent:.2f}")  # fmt: skip
    return {"rows": rows, "exponent": exponent}
