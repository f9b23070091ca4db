"""Benchmarks of the orchestration cost, reported as ratios measured in one run.

``murcosim bench [SCENARIO]`` times N right-hand-side evaluations of the scenario's system
and N replays of exactly the FMU C calls one evaluation makes (same functions, same
arguments, no orchestration logic around them). Their ratio is the share of a right-hand
side spent inside the FMUs; the rest is Python orchestration. Timings vary on shared
machines, so only numbers measured in the same run are compared; nothing here is a test.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from orchestrator.scenario import load_scenario
from orchestrator.system import System


def fmu_calls(system: System) -> list[tuple[Callable[..., int], tuple]]:
    """The C calls of one ``System.derivatives`` evaluation, bound to their arguments."""
    calls: list[tuple[Callable[..., int], tuple]] = []
    for instance, _ in system._slices:
        calls.append((instance._set_time, (instance._handle, 0.0)))
        calls.append(
            (instance._set_states, (instance._handle, instance._state_ptr, instance.n_states))
        )
    for instance in system._stateless:
        calls.append((instance._set_time, (instance._handle, 0.0)))
    for kind, instance, item in system._schedule:
        port = item if kind == "read" else item.port
        function = instance._get_real if kind == "read" else instance._set_real
        n = len(port)
        extra = (n,) if instance._fmi3 else ()
        calls.append((function, (instance._handle, port._vr, n, port._values_ptr, *extra)))
    for instance, _ in system._slices:
        calls.append(
            (
                instance._get_derivatives,
                (instance._handle, instance._derivatives_ptr, instance.n_states),
            )
        )
    return calls


def _per_call(action: Callable[[], object], repeats: int) -> float:
    start = time.perf_counter()
    for _ in range(repeats):
        action()
    return (time.perf_counter() - start) / repeats


def run_benchmarks(scenario_path: Path, fmu_dir: Path, evaluations: int) -> dict[str, float]:
    """Measure and print the per-right-hand-side cost of ``scenario_path``'s system."""
    scenario = load_scenario(scenario_path)
    system = System(scenario, str(scenario_path), fmu_dir)
    try:
        x = system.initialize(scenario.simulation.start_time, scenario.environment.current)
        x = x + 1e-3 * np.random.default_rng(0).normal(size=x.size)
        calls = fmu_calls(system)

        def replay() -> None:
            for function, arguments in calls:
                function(*arguments)

        system.derivatives(0.0, x)  # warm-up
        total = _per_call(lambda: system.derivatives(0.0, x), evaluations)
        inside = _per_call(replay, evaluations)
        loop = _per_call(lambda: [None for _ in calls], evaluations)
    finally:
        system.close()
    result = {
        "instances": len(system.instances),
        "states": system.n_states,
        "fmu_calls_per_rhs": len(calls),
        "rhs_us": 1e6 * total,
        "fmu_us": 1e6 * inside,
        "fmu_share": inside / total,
        "replay_loop_us": 1e6 * loop,
    }
    print(f"scenario            {scenario_path}")
    print(f"instances / states  {result['instances']} / {result['states']}")
    print(f"FMU calls per RHS   {result['fmu_calls_per_rhs']}")
    print(f"per right-hand side {result['rhs_us']:.1f} us (mean of {evaluations})")
    share = 100 * result["fmu_share"]
    print(f"inside FMU calls    {result['fmu_us']:.1f} us  ({share:.0f} % of the RHS)")
    print(f"orchestration       {result['rhs_us'] - result['fmu_us']:.1f} us")
    print(f"(replay loop overhead alone: {result['replay_loop_us']:.2f} us, included in 'inside')")
    return result
