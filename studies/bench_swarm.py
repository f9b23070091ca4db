"""Benchmark of swarms: N free BlueROV2 Heavy vehicles, each with its eight thruster FMUs, its
depth, heading and surge-speed autopilot and its constrained thrust allocation (the vehicle of
``scenarios/bluerov2_heavy_single.toml``, 9 FMUs and two controllers at 20 Hz per vehicle).

The vehicles stand on a square grid 5 m apart (they do not interact) and each is given its own
heading set point (spread over the circle) and depth (2 to 3 m), so that their transients
differ. Each repeat runs every N in :data:`SIZES` in turn; the table gives the real-time
factor of each (median wall time of the run loop, start-up excluded), the cost per vehicle and
simulated second (CPU time), the CPU time of one right-hand side per vehicle (the FMUs of the
whole swarm evaluated in the compiled loop), the same inside the compiled integrator (one
simulated second with the inputs held, where a swarm is stepped vehicle by vehicle) and the
exponent of a least-squares fit cost ~ N^k. The integrator's counts show whether the
vehicles' transients cost steps: the right-hand sides per simulated second of the swarm
against one of its vehicles flown alone, and for the smallest swarm against each of its
vehicles flown alone (what stepping each vehicle with its own error estimate would take).
The swarm of :data:`COMPARED` vehicles is also run with its controllers sampled one by one
(as before the batches), interleaved: the ratio of the CPU times.
"""

from __future__ import annotations

import math
import statistics
import tempfile
import time
import tomllib
from pathlib import Path
from unittest.mock import patch

import numpy as np
import tomli_w

import orchestrator.controllers.batch as batch
from studies.bench import SCENARIOS, Row, _run_seconds

SIZES = (16, 64, 256)
TARGETS = {64: 10.0, 256: 2.0}  # x real time
SPACING = 5.0  # m between neighbours
SIMULATED = 10.0  # s
WATCHED = 1  # the largest swarm's vehicle also flown alone
COMPARED = 64  # the swarm also run with its controllers sampled one by one


def swarm_document(n: int, stop_time: float) -> dict:
    """A scenario document of ``n`` BlueROV2 Heavy vehicles (``rov<k>``, thrusters
    ``rov<k>_t1`` ... ``_t8``, controllers ``rov<k>_autopilot`` and ``rov<k>_allocation``)
    on a square grid, each with its own heading and depth set point."""
    base = tomllib.loads((SCENARIOS / "bluerov2_heavy_single.toml").read_text(encoding="utf-8"))
    side = math.ceil(math.sqrt(n))
    components: dict[str, dict] = {}
    controllers: dict[str, dict] = {}
    for k in range(n):
        vehicle = f"rov{k}"
        start = {"p[1]": SPACING * (k % side), "p[2]": SPACING * (k // side), "p[3]": 0.5}
        components[vehicle] = {"fmu": "BlueROV2Heavy", "start": start}
        for slot in range(1, 9):
            components[f"{vehicle}_t{slot}"] = {"fmu": "LaggedThruster", "mount": vehicle}
            components[f"{vehicle}_t{slot}"]["slot"] = slot
        autopilot = dict(base["controllers"]["autopilot"], vehicle=vehicle)
        autopilot.update(heading=round(360.0 * k / n, 6), depth=2.0 + (k % 5) / 4)
        controllers[f"{vehicle}_autopilot"] = autopilot
        allocation = dict(base["controllers"]["allocation"], vehicle=vehicle)
        controllers[f"{vehicle}_allocation"] = dict(allocation, command=f"{vehicle}_autopilot.tau")
    return {
        "simulation": dict(base["simulation"], stop_time=stop_time),
        "environment": base["environment"],
        "components": components,
        "controllers": controllers,
    }


def alone_document(document: dict, k: int) -> dict:
    """The swarm ``document`` cut down to vehicle ``rov<k>``, its thrusters and controllers."""
    vehicle = f"rov{k}"
    mine = {vehicle, *(f"{vehicle}_t{slot}" for slot in range(1, 9))}
    return {
        **document,
        "components": {n: c for n, c in document["components"].items() if n in mine},
        "controllers": {
            n: c for n, c in document["controllers"].items() if n.partition("_")[0] == vehicle
        },
    }


def _rhs_seconds(path: Path, fmu_dir: Path, calls: int) -> float:
    """CPU time (s) of one right-hand side of the scenario at ``path`` (compiled, called
    ``calls`` times in a C loop; the least of five)."""
    from orchestrator.scenario.reading import load_scenario
    from orchestrator.system.system import System

    scenario = load_scenario(path)
    system = System(scenario, str(path), fmu_dir)
    try:
        x = system.initialize(0.0, scenario.environment.current)
        dx, kernel, best = np.zeros_like(x), system.compiled._kernel, math.inf
        for _ in range(5):
            start = time.process_time()
            kernel.derivatives(0.0, x, dx, calls)
            best = min(best, (time.process_time() - start) / calls)
    finally:
        system.close()
    return best


def _integrator_seconds(path: Path, fmu_dir: Path) -> float:
    """CPU time (s) per right-hand side of the compiled Dormand-Prince integrator stepping the
    scenario at ``path`` for one simulated second from its initial state, inputs held (the
    least of three)."""
    from orchestrator.scenario.reading import load_scenario
    from orchestrator.system.system import System

    scenario = load_scenario(path)
    system = System(scenario, str(path), fmu_dir)
    try:
        x0 = system.initialize(0.0, scenario.environment.current)
        compiled, out, best = system.compiled, np.zeros_like(x0), math.inf
        for _ in range(3):
            evaluations, start = compiled.evaluations, time.process_time()
            compiled.dopri_reset(0.0, x0.copy(), 1e-3)
            compiled.dopri_advance(1.0, 1.0, out, (1e-6, 1e-6, 0.05), None)
            seconds = time.process_time() - start
            best = min(best, seconds / (compiled.evaluations - evaluations))
    finally:
        system.close()
    return best


def swarm_rows(fmu_dir: Path, repeats: int) -> list[Row]:
    """Real-time factors of swarms of :data:`SIZES` vehicles and the fitted cost exponent."""
    walls: dict[int, list[float]] = {n: [] for n in SIZES}
    cpus: dict[int, list[float]] = {n: [] for n in SIZES}
    evaluations: dict[int, int] = {}
    unbatched: list[float] = []  # CPU time (s) of the compared swarm without batches
    with tempfile.TemporaryDirectory(prefix="murcosim-bench-") as folder:
        folder = Path(folder)
        paths, documents = {}, {n: swarm_document(n, SIMULATED) for n in SIZES}
        documents[1] = alone_document(documents[SIZES[-1]], WATCHED)
        for n, document in documents.items():
            paths[n] = folder / f"swarm_{n}.toml"
            paths[n].write_text(tomli_w.dumps(document), encoding="utf-8")
        _, single = _run_seconds(paths[1], fmu_dir, folder / "alone")
        evaluations[1] = single.statistics.rhs_evaluations
        each = []  # right-hand sides per simulated second of each vehicle of SIZES[0] alone
        for k in range(SIZES[0]):
            path = folder / f"alone_{k}.toml"
            path.write_text(tomli_w.dumps(alone_document(documents[SIZES[0]], k)), "utf-8")
            _, result = _run_seconds(path, fmu_dir, folder / "alone")
            each.append(result.statistics.rhs_evaluations / SIMULATED)
        rhs = {n: _rhs_seconds(paths[n], fmu_dir, max(20, 4000 // n)) for n in SIZES}
        stepped = {n: _integrator_seconds(paths[n], fmu_dir) for n in SIZES}
        for _ in range(repeats):
            for n in SIZES:
                wall, result = _run_seconds(paths[n], fmu_dir, folder / "out")
                walls[n].append(wall)
                cpus[n].append(result.statistics.cpu_seconds)
                evaluations[n] = result.statistics.rhs_evaluations
            with patch.object(batch, "batched", list):  # one controller per vehicle
                _, result = _run_seconds(paths[COMPARED], fmu_dir, folder / "out")
                unbatched.append(result.statistics.cpu_seconds)
    cost = {n: statistics.median(cpus[n]) for n in SIZES}
    exponent = np.polyfit(np.log(SIZES), np.log([cost[n] for n in SIZES]), 1)[0]
    rows = []
    for n in SIZES:
        wall = statistics.median(walls[n])
        target = TARGETS.get(n)
        rows.append(
            Row(
                f"swarm of {n} BlueROV2 Heavy (8 thrusters, autopilot, QP allocation each): "
                "real-time factor",
                f"{SIMULATED / wall:.3g}x",
                f">= {target:g}x" if target else "",
                f"{SIMULATED:g} s in {wall:.3g} s (median of {repeats}); CPU "
                f"{1e3 * cost[n] / n / SIMULATED:.2f} ms per vehicle and simulated s; "
                f"{evaluations[n] / SIMULATED:.0f} RHS per s (its rov{WATCHED} alone: "
                f"{evaluations[1] / SIMULATED:.0f}), {1e6 * rhs[n] / n:.2f} us per RHS and "
                f"vehicle ({1e6 * stepped[n] / n:.2f} us in the integrator)",
            )
        )
    alone = statistics.median(unbatched)
    rows.append(
        Row(
            f"swarm of {COMPARED}: CPU time batched / one controller per vehicle",
            f"{cost[COMPARED] / alone:.2f}",
            "",
            f"{cost[COMPARED]:.2f} vs {alone:.2f} s for {SIMULATED:g} s simulated "
            f"(medians of {repeats})",
        )
    )
    rows.append(
        Row(
            f"swarm of {SIZES[0]}: right-hand sides per simulated s, each vehicle alone / swarm",
            f"{statistics.mean(each) / (evaluations[SIZES[0]] / SIMULATED):.3f}",
            "",
            f"its vehicles alone: mean {statistics.mean(each):.1f} (from {min(each):.0f} to "
            f"{max(each):.0f}), the swarm {evaluations[SIZES[0]] / SIMULATED:.1f}",
        )
    )
    costs = ", ".join(f"N={n}: {cost[n]:.2f} s" for n in SIZES)
    rows.append(
        Row(
            f"swarm cost (CPU time), fitted exponent over N = {SIZES[0]}..{SIZES[-1]}",
            f"{exponent:.2f}",
            "<= 1.0",
            f"{SIMULATED:g} s simulated: {costs}",
        )
    )
    return rows
