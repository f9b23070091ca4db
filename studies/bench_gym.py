"""Benchmark of the Gymnasium environment: steps per second of the station-keeping BlueROV2
Heavy (eight thruster FMUs, allocation, 20 Hz) on one core and in two processes, against a
plain run of the same scenario.

Episodes are 20 s (400 steps) with actions drawn once beforehand (the policy's cost is not the
environment's). Each repeat takes, in turn in one process: one episode on one core (reset and
steps timed apart), a plain run of ``bluerov2_heavy_single`` over the same 20 s (its 400
samples: the autopilot and allocation at 20 Hz, rows recorded); for each number of environments
in :data:`ENVS`, one episode of each in a :class:`~orchestrator.rl.batched.BatchedVectorEnv`
over two processes (the calling one and a worker, each stepping half of them per message, the
environments of each process sharing their FMUs as :func:`~orchestrator.rl.env.vector_env`
makes them) and one episode of half as many stepped in turn in this process (what one process
of the pair does, without the exchange), and the same in Gymnasium's ``AsyncVectorEnv`` over two
environments (a process each, as before), counting the 400 transitions of each and its
automatic reset; last, as the machine's ceiling at that moment, two independent processes each
running one episode of an environment of its own at the same time (no exchange at all). The
ratios are of the medians of a two-process rate and the one-core rate with resets. The calling
process' CPU time per environment step of a vector environment (its own half of the
environments, the exchange and the waiting) is set against half the CPU time per step on one
core: other jobs on the machine change it less than the wall-time rates.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import time
from collections.abc import Callable
from functools import partial
from multiprocessing.queues import SimpleQueue
from multiprocessing.synchronize import Barrier
from pathlib import Path

import numpy as np

from studies.bench import SCENARIOS, Row

EPISODE = 20.0  # s
SAMPLE = 0.05  # s
STEPS = round(EPISODE / SAMPLE)
ENVS = (4, 8, 16)  # environments of the two processes: two, four and eight per process and message
WORKERS = 2


def _actions(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    from orchestrator.rl.station import TAU_LIMIT

    return rng.uniform(-1.0, 1.0, size=(*shape, 6)) * np.asarray(TAU_LIMIT) * 0.5


def _independent(
    make: Callable, actions: np.ndarray, repeats: int, start: Barrier, done: SimpleQueue
) -> None:
    """One of the independent processes: an episode per repeat, started with the others at
    the barrier ``start``; ``done`` gets one item per episode."""
    env = make()
    for _ in range(repeats):
        start.wait()
        env.reset(seed=0)
        for action in actions:
            env.step(action)
        done.put(None)
    env.close()


def _in_turn(envs: list, batches: np.ndarray, seed: int) -> float:
    """Seconds for one episode of ``envs`` stepped in turn in this process (reset, then a
    step of each with its column of ``batches[1:]``), as one process of a vector environment
    steps its slice."""
    started = time.perf_counter()
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
    for batch in batches[1:]:
        for env, action in zip(envs, batch[: len(envs)], strict=True):
            env.step(action)
    return time.perf_counter() - started


def gym_rows(fmu_dir: Path, repeats: int) -> list[Row]:
    """Steps per second on one core and with two workers, and the overhead over a run."""
    import gymnasium

    from orchestrator.rl.batched import BatchedVectorEnv
    from orchestrator.rl.shared_fmus import SharedFMUs
    from orchestrator.rl.station import station_keeping_env
    from orchestrator.runner.run import simulate
    from orchestrator.scenario.reading import load_scenario

    source = SCENARIOS / "bluerov2_heavy_single.toml"
    actions = _actions((STEPS,), np.random.default_rng(0))
    plain = load_scenario(source)
    plain = plain.model_copy(
        update={"simulation": plain.simulation.model_copy(update={"stop_time": EPISODE})}
    )
    env = station_keeping_env(SCENARIOS, max_time=EPISODE, fmu_dir=fmu_dir)
    make_env = partial(station_keeping_env, SCENARIOS, max_time=EPISODE, fmu_dir=fmu_dir)
    vectors = {
        n: BatchedVectorEnv([partial(make_env, shared_fmus=SharedFMUs())] * n, workers=WORKERS)
        for n in ENVS
    }
    in_turn: dict[int, list] = {}  # one process of each pair alone: half its environments
    for n in ENVS:
        fmus = SharedFMUs()
        in_turn[n] = [make_env(shared_fmus=fmus) for _ in range(n // WORKERS)]
    # key 0: as before, Gymnasium's AsyncVectorEnv with a process per environment
    vectors[0] = gymnasium.vector.AsyncVectorEnv([make_env] * WORKERS)
    batches = {n: _actions((STEPS + 1, n or WORKERS), np.random.default_rng(n)) for n in vectors}
    ctx = multiprocessing.get_context()
    start, done = ctx.Barrier(WORKERS + 1), ctx.SimpleQueue()
    independent = [
        ctx.Process(
            target=_independent, args=(make_env, actions, repeats, start, done), daemon=True
        )
        for _ in range(WORKERS)
    ]
    for process in independent:
        process.start()
    episode_seconds, step_seconds, run_seconds, free_seconds, episode_cpu = [], [], [], [], []
    reset_seconds, step_cpu, run_cpu = [], [], []  # CPU times
    vector_seconds: dict[int, list[float]] = {n: [] for n in vectors}
    turn_seconds: dict[int, list[float]] = {n: [] for n in in_turn}
    vector_cpu: dict[int, list[float]] = {n: [] for n in vectors}  # the calling process'

    load = [os.getloadavg()[0]]  # the machine's 1-minute load average, before and after
    try:
        for n, vector in vectors.items():
            vector.reset(seed=0)
            for batch in batches[n][1:]:  # warm-up: the workers' first episode
                vector.step(batch)
        for n, envs in in_turn.items():
            _in_turn(envs, batches[n], 0)
        for k in range(repeats):
            started, cpu = time.perf_counter(), time.process_time()
            env.reset(seed=k)
            stepping, reset_cpu = time.perf_counter(), time.process_time() - cpu
            for action in actions:
                env.step(action)
            ended = time.perf_counter()
            episode_seconds.append(ended - started)
            reset_seconds.append(reset_cpu)
            episode_cpu.append(time.process_time() - cpu)
            step_cpu.append(episode_cpu[-1] - reset_cpu)
            step_seconds.append(ended - stepping)
            result = simulate(plain, str(source), None, fmu_dir)
            run_seconds.append(result.statistics.wall_seconds)
            run_cpu.append(result.statistics.cpu_seconds)
            for n, vector in vectors.items():
                started, cpu = time.perf_counter(), time.process_time()
                for batch in batches[n]:  # the automatic reset, then a whole episode
                    vector.step(batch)
                vector_seconds[n].append(time.perf_counter() - started)
                vector_cpu[n].append(time.process_time() - cpu)
                if n in in_turn:
                    turn_seconds[n].append(_in_turn(in_turn[n], batches[n], k))
            start.wait()
            started = time.perf_counter()
            for _ in independent:
                done.get()
            free_seconds.append(time.perf_counter() - started)
    finally:
        load.append(os.getloadavg()[0])
        for process in independent:
            process.join(timeout=60)
        env.close()
        for vector in vectors.values():
            vector.close()
        for envs in in_turn.values():
            for each in envs:
                each.close()
    with_resets = STEPS / statistics.median(episode_seconds)
    steps_alone = STEPS / statistics.median(step_seconds)
    reset = 1e3 * statistics.median(reset_seconds)
    cpu_rate = STEPS / statistics.median(episode_cpu)
    run_rate = STEPS / statistics.median(run_seconds)
    overhead = 1e6 * (1.0 / steps_alone - 1.0 / run_rate)
    overhead_cpu = 1e6 * (statistics.median(step_cpu) - statistics.median(run_cpu)) / STEPS
    rows = [
        Row(
            "gym: BlueROV2 Heavy, 8 thrusters, 20 Hz: steps/s on one core",
            f"{with_resets:,.0f}",
            ">= 5,000",
            f"resets included ({STEPS}-step episodes, median of {repeats}; a reset "
            f"{reset:.1f} ms of CPU; {cpu_rate:,.0f} per second of CPU time); steps alone "
            f"{steps_alone:,.0f}/s; a plain run of the scenario samples {run_rate:,.0f}/s, "
            f"the environment adds {overhead:.0f} us per step ({overhead_cpu:.0f} us of CPU)",
        )
    ]
    free = WORKERS * STEPS / statistics.median(free_seconds)
    half = 1e6 * statistics.median(episode_cpu) / STEPS / WORKERS  # us: a core's share
    for n, seconds in vector_seconds.items():
        rate = (n or WORKERS) * STEPS / statistics.median(seconds)
        cpu = 1e6 * statistics.median(vector_cpu[n]) / ((n or WORKERS) * STEPS)
        if not n:
            rows.append(
                Row(
                    f"gym: Gymnasium's AsyncVectorEnv, {WORKERS} environments / one core",
                    f"{rate / with_resets:.2f}x",
                    "",
                    f"{rate:,.0f} steps/s, {rate / free:.0%} of two independent processes' "
                    "(a process per environment, pickled exchange per step; as before)",
                )
            )
            continue
        turn = n // WORKERS * STEPS / statistics.median(turn_seconds[n])
        rows.append(
            Row(
                f"gym: {WORKERS} processes, {n} environments (BatchedVectorEnv) / one core",
                f"{rate / with_resets:.2f}x",
                ">= 1.7x",
                f"{rate:,.0f} steps/s, {rate / free:.0%} of two independent processes' "
                f"({n // WORKERS} environments per process and message, those of a process "
                f"sharing their FMUs; resets included, median of {repeats} episodes of each, "
                f"interleaved with the one-core ones); {n // WORKERS} environments stepped in "
                f"turn in one process, without exchange: {turn:,.0f} steps/s "
                f"({turn / with_resets:.0%} of one environment's); the calling process' CPU "
                f"{cpu:.0f} us per environment step (its own half of the environments, the "
                f"exchange and the waiting; half of one core's CPU per step: {half:.0f} us)",
            )
        )
    rows.append(
        Row(
            f"gym: {WORKERS} independent processes (no exchange) / one core: the ceiling",
            f"{free / with_resets:.2f}x",
            "",
            f"{free:,.0f} steps/s: what the machine gave two processes at the time (shared "
            f"with other jobs: 1-minute load average {load[0]:.1f} before, {load[1]:.1f} after, "
            "this benchmark's own processes included)",
        )
    )
    return rows
