"""Benchmark of the constraint coupling's cost against the number of welded bodies.

Chains of N GenericVehicles (N = 1 ... 64) welded end to end, 0.5 m apart along y, and grids
of R x R GenericVehicles (R = 2 ... 16) welded to their neighbours in x and y (closed loops:
2 R (R - 1) welds, of which (R - 1)^2 close a loop and have only redundant rows), all
integrated by RK4 with a 0.01 s step. For each system: the cost of the coupling in one
right-hand side (the integrators' post-process: joint rows, Phi M^-1 Phi', solve, in the
compiled kernel), the same for the dense SVD form (``[coupling] solver = "svd"``) as the
reference (up to 64 bodies: beyond, one SVD takes seconds), and whole runs (the CPU time of
the run loop, start-up excluded, median of three runs): real-time factor and the coupling's
share of the run. The exponents of the coupling's cost are fitted over chains of
N = 8 ... 64 and grids of N = 16 ... 256 bodies. The shipped systems of mixed joints
(``buoy_calm``: a driven universal joint; ``uvms_spiral``: twelve motored revolute joints)
and the 8 x 8 grid give the compiled coupling's cost against the Python path's
(``ConstraintCoupling.apply``), measured in alternation, and the FMUs' cost per right-hand
side. Small dense algebra runs on one BLAS
thread. Times are the process's CPU time, which other processes on a shared machine disturb
less than wall time; nothing here is a test.
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
FIT_FROM = 8  # smallest N of the chains' fitted exponent
GRID_FIT_FROM = 16  # smallest N of the grids' fitted exponent
SVD_TIME = 0.1  # s: the short run whose coupling is timed in the dense SVD form
SVD_LARGEST = 64  # bodies: the largest system whose dense SVD form is timed
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
MIXED = ("buoy_calm", "uvms_spiral")  # shipped systems of mixed joints
RUNS = 3  # whole runs of each system, of which the median CPU time counts


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
    """CPU seconds of the run loop (the median of RUNS runs) and right-hand sides of a run of
    ``path`` (files, no plots; start-up excluded)."""
    runs = [run_scenario(path, out_dir, fmu_dir, plots=False).statistics for _ in range(RUNS)]
    return float(np.median([r.cpu_seconds for r in runs])), runs[0].rhs_evaluations


def coupling_cost(
    path: Path, fmu_dir: Path, evaluations: int, python: bool = False
) -> tuple[float, float, float]:
    """Seconds per right-hand side of the coupling alone, of the FMUs' derivatives and
    (``python``) of the Python path's coupling, the last two measured in alternation with the
    first (nan when not measured)."""
    scenario = load_scenario(path)
    system = System(scenario, str(path), fmu_dir)
    try:
        x = system.initialize(0.0, scenario.environment.current)
        if not scenario.joints:
            return 0.0, _per_call(lambda: system.derivatives(0.0, x), evaluations), np.nan
        coupling = ConstraintCoupling(
            system, scenario.joints, scenario.docking, scenario.coupling, x
        )
        x = coupling.project(x)
        dx = system.derivatives(0.0, x).copy()
        work = dx.copy()

        def timed(post: Callable[[np.ndarray, np.ndarray], None]) -> Callable[[], None]:
            def apply() -> None:
                work[:] = dx
                post(x, work)

            return apply

        compiled = timed(coupling.post_process())
        fmus = _per_call(lambda: system.derivatives(0.0, x), evaluations)
        cost = _per_call(compiled, evaluations)
        reference = np.nan
        if python:
            reference = _per_call(timed(coupling.apply), max(3, evaluations // 10))
            cost = min(cost, _per_call(compiled, evaluations))
        return cost, fmus, reference
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
    bodies = len(load_scenario(paths["run"]).components)
    coupling, fmus, python = coupling_cost(paths["run"], fmu_dir, evaluations, name == "grid_8x8")
    reference = np.nan
    if bodies <= SVD_LARGEST:
        reference, _, _ = coupling_cost(paths["svd"], fmu_dir, max(3, evaluations // 50))
    seconds, evaluated = run_cost(paths["run"], fmu_dir, folder / name)
    return {
        "system": name,
        "bodies": bodies,
        "joints": len(load_scenario(paths["run"]).joints),
        "coupling_us": 1e6 * coupling,
        "python_us": 1e6 * python,
        "svd_us": 1e6 * reference,
        "fmus_us": 1e6 * fmus,
        "real_time": stop_time / seconds,
        "coupling_share": evaluated * coupling / seconds,
    }


def mixed_joint_rows(fmu_dir: Path, evaluations: int) -> list[dict[str, float | str]]:
    """The shipped systems of mixed joints: compiled and Python coupling per right-hand side,
    the FMUs' cost, and a whole run's real-time factor and coupling share (CPU time)."""
    rows = []
    for stem in MIXED:
        path = SCENARIOS / f"{stem}.toml"
        scenario = load_scenario(path)
        coupling, fmus, python = coupling_cost(path, fmu_dir, evaluations, python=True)
        with tempfile.TemporaryDirectory() as tmp:
            seconds, evaluated = run_cost(path, fmu_dir, Path(tmp) / stem)
        rows.append(
            {
                "system": stem,
                "instances": len(scenario.components),
                "joints": len(scenario.joints),
                "coupling_us": 1e6 * coupling,
                "python_us": 1e6 * python,
                "fmus_us": 1e6 * fmus,
                "real_time": scenario.simulation.stop_time / seconds,
                "coupling_share": evaluated * coupling / seconds,
            }
        )
    return rows


def fitted_exponent(sizes: list[int], costs: list[float]) -> float:
    """Slope of log(cost) against log(N), least squares."""
    return float(np.polyfit(np.log(sizes), np.log(costs), 1)[0])


def coupling_benchmarks(
    fmu_dir: Path,
    sizes: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64),
    grids: tuple[int, ...] = (2, 4, 8, 16),
    stop_time: float = 2.0,
    evaluations: int = 200,
) -> dict[str, object]:
    """Measure chains of ``sizes`` bodies, ``grids`` (R x R bodies) and the shipped systems
    of mixed joints; print markdown tables and the fitted exponents of the coupling's cost
    (chains over N >= 8, grids over N >= 16); return the rows and exponents."""
    rows = []
    systems = [(f"chain_{n}", partial(chain_scenario, n)) for n in sizes]
    systems += [(f"grid_{r}x{r}", partial(grid_scenario, r)) for r in grids]
    with threadpool_limits(limits=1, user_api="blas"), tempfile.TemporaryDirectory() as tmp:
        for name, scenario in systems:
            rows.append(_measure(name, scenario, stop_time, Path(tmp), fmu_dir, evaluations))
        mixed = mixed_joint_rows(fmu_dir, evaluations)
    exponents = {
        kind: _exponent([r for r in rows if str(r["system"]).startswith(kind)], smallest)
        for kind, smallest in (("chain", FIT_FROM), ("grid", GRID_FIT_FROM))
    }
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
    print(
        "\n| system | instances | joints | compiled coupling per RHS (us) "
        "| Python coupling per RHS (us) | FMUs per RHS (us) | real time | coupling share |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in mixed:
        print(
            f"| {r['system']} | {r['instances']} | {r['joints']} | {r['coupling_us']:.1f} "
            f"| {r['python_us']:.0f} | {r['fmus_us']:.1f} | {r['real_time']:.1f}x "
            f"| {100 * r['coupling_share']:.0f} % |"
        )
    for kind, smallest in (("chains", FIT_FROM), ("grids", GRID_FIT_FROM)):
        print(f"fitted exponent of the coupling's cost over {kind} N >= {smallest}: "
              f"{exponents[kind[:-1]]:.2f}")  # fmt: skip
    return {"rows": rows, "mixed": mixed, "exponents": exponents}


def _exponent(rows: list[dict[str, float | str]], smallest: int) -> float:
    """Fitted exponent of the coupling's cost over the rows of at least ``smallest`` bodies
    (nan with fewer than two)."""
    fitted = [(r["bodies"], r["coupling_us"]) for r in rows if int(r["bodies"]) >= smallest]
    return fitted_exponent(*zip(*fitted, strict=True)) if len(fitted) >= 2 else float("nan")
