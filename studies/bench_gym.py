"""Benchmark of the Gymnasium environment: steps per second of the station-keeping BlueROV2
Heavy (eight thruster FMUs, allocation, 20 Hz) on one core and in two worker processes,
against a plain run of the same scenario.

Episodes are 20 s (400 steps) with actions drawn once beforehand (the policy's cost is not
the environment's). One core: steps per second of whole episodes (resets included) and of
the steps alone, against a plain run of ``bluerov2_heavy_single`` over the same 20 s (its
400 samples per run-loop second: the autopilot and allocation at 20 Hz, rows recorded);
the three alternate in one process. Two workers: Gymnasium's ``AsyncVectorEnv`` over two
processes, stepping both with automatic resets, against the one-core rate with resets.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np

from studies.bench import SCENARIOS, Row

EPISODE = 20.0  # s
SAMPLE = 0.05  # s
STEPS = round(EPISODE / SAMPLE)


def _actions(n: int, rng: np.random.Generator) -> np.ndarray:
    from orchestrator.rl.station import TAU_LIMIT

    return rng.uniform(-1.0, 1.0, size=(n, 6)) * np.asarray(TAU_LIMIT) * 0.5


def gym_rows(fmu_dir: Path, repeats: int) -> list[Row]:
    """Steps per second on one core and with two workers, and the overhead over a run."""
    from orchestrator.rl.env import vector_env
    from orchestrator.rl.station import (
        OBSERVATION,
        START,
        TAU_LIMIT,
        station_keeping_env,
        station_reward,
        station_scenario,
    )
    from orchestrator.runner.run import simulate
    from orchestrator.scenario.reading import load_scenario

    actions = _actions(STEPS, np.random.default_rng(0))
    env = station_keeping_env(SCENARIOS, max_time=EPISODE, fmu_dir=fmu_dir)
    plain = load_scenario(SCENARIOS / "bluerov2_heavy_single.toml")
    plain = plain.model_copy(
        update={"simulation": plain.simulation.model_copy(update={"stop_time": EPISODE})}
    )
    episode_seconds, step_seconds, run_seconds = [], [], []
    try:
        for k in range(repeats):
            started = time.perf_counter()
            env.reset(seed=k)
            stepping = time.perf_counter()
            for action in actions:
                env.step(action)
            ended = time.perf_counter()
            episode_seconds.append(ended - started)
            step_seconds.append(ended - stepping)
            result = simulate(plain, str(SCENARIOS / "bluerov2_heavy_single.toml"), None, fmu_dir)
            run_seconds.append(result.statistics.wall_seconds)
    finally:
        env.close()
    with_resets = STEPS / statistics.median(episode_seconds)
    steps_alone = STEPS / statistics.median(step_seconds)
    run_rate = STEPS / statistics.median(run_seconds)
    overhead = 1e6 * (1.0 / steps_alone - 1.0 / run_rate)

    vector = vector_env(
        2,
        station_scenario(SCENARIOS, False),
        OBSERVATION,
        {f"agent.tau[{i}]": (-b, b) for i, b in enumerate(TAU_LIMIT, start=1)},
        reward=station_reward,
        start=START,
        max_time=EPISODE,
        source=SCENARIOS / "bluerov2_heavy_single.toml",
        fmu_dir=fmu_dir,
    )
    many = _actions(STEPS * repeats, np.random.default_rng(1))
    try:
        vector.reset(seed=[0, 1])
        for action in many[:STEPS]:  # warm-up: the workers' first episode
            vector.step(np.stack([action, action]))
        started = time.perf_counter()
        for action in many:
            vector.step(np.stack([action, -action]))
        two = 2 * len(many) / (time.perf_counter() - started)
    finally:
        vector.close()
    return [
        Row(
            "gym: BlueROV2 Heavy, 8 thrusters, 20 Hz: steps/s on one core",
            f"{with_resets:,.0f}",
            ">= 5,000",
            f"resets included ({STEPS}-step episodes, median of {repeats}); steps alone "
            f"{steps_alone:,.0f}/s; a plain run of the scenario samples {run_rate:,.0f}/s, "
            f"the environment adds {overhead:.0f} us per step",
        ),
        Row(
            "gym: two worker processes (AsyncVectorEnv) / one core",
            f"{two / with_resets:.2f}x",
            ">= 1.7x",
            f"{two:,.0f} steps/s over {len(many)} steps of each worker, automatic resets",
        ),
    ]
