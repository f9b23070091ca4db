"""CPU time of the rendezvous MPC's local solves: CasADi's interpreted NLP functions against
the compiled ones (:mod:`orchestrator.controllers.mpc.compiled`), and the check that both
give the same inputs bit for bit.

The distributed MPC of a scenario's ``rendezvous_mpc`` entry runs in closed loop with its
planar model as the plant (as in :mod:`studies.rendezvous_study`) from the scenario's start
states, once with each kind of functions, the runs interleaved (a slow spell of a shared
machine falls on both), the local problems solved one after the other in this thread.
Reported: the MPC's CPU time per local solve (the samples' whole steps, dual updates
included, over their solves; median over the repeats), the ratio, and whether every sample's
inputs agreed bit for bit; and what the compiled functions cost first: the CPU time (this
process and the compilers it runs) and wall time of making the MPC with libraries built into
an empty cache folder, less the same for the interpreted MPC, and the simulated seconds of
MPC after which the faster solves have paid it back. With ``--runs R``, the whole scenario
is run R times with ``compile_nlp`` false and true in turn (the library built beforehand),
and the medians of the run loops' CPU time are reported.

    python -m studies.mpc_cost [SCENARIO] [--samples N] [--repeats R] [--runs R]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np
import tomli_w

from orchestrator.controllers.mpc.distributed import DistributedMPC
from orchestrator.controllers.rendezvous import vehicle_specs
from orchestrator.runner.run import run_scenario
from orchestrator.scenario.model import RendezvousConfig
from orchestrator.scenario.reading import load_scenario
from studies.rendezvous_study import initial_planar_states

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "docking_realistic.toml"


def closed_loop(
    config: RendezvousConfig,
    initial: dict[str, np.ndarray],
    samples: int,
    compiled: Path | None,
) -> tuple[float, np.ndarray]:
    """CPU seconds per local solve of ``samples`` samples, and every sample's inputs
    (samples, vehicles, 3)."""
    specs = vehicle_specs(config)
    mpc = _mpc(config, compiled)
    step = specs[0].model.step_function()
    x = {s.name: np.asarray(initial[s.name], dtype=float) for s in specs}
    inputs = []
    started = time.process_time()
    for _ in range(samples):
        report = mpc.step(x)
        inputs.append([report.inputs[s.name] for s in specs])
        x = {s.name: np.asarray(step(x[s.name], report.inputs[s.name])).ravel() for s in specs}
    solves = samples * config.iterations * len(specs)
    return (time.process_time() - started) / solves, np.array(inputs)


def _mpc(config: RendezvousConfig, compiled: Path | None) -> DistributedMPC:
    return DistributedMPC(
        vehicle_specs(config),
        config.horizon,
        config.iterations,
        config.kappa,
        config.gamma,
        config.solver,
        parallel=False,
        compiled=compiled,
    )


def _cpu_seconds() -> float:
    """CPU time (user and system) of this process and of its waited-for children (s)."""
    own, children = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def first_build(config: RendezvousConfig, folder: Path) -> tuple[float, float]:
    """CPU and wall seconds of making the MPC with its libraries built into the empty
    ``folder``, less those of making the interpreted MPC."""
    _mpc(config, None)  # CasADi's solver plugins loaded before either is measured
    costs = []
    for compiled in (None, folder):
        cpu, wall = _cpu_seconds(), time.perf_counter()
        _mpc(config, compiled)
        costs.append((_cpu_seconds() - cpu, time.perf_counter() - wall))
    (cpu_plain, wall_plain), (cpu_built, wall_built) = costs
    return cpu_built - cpu_plain, wall_built - wall_plain


def whole_runs(path: Path, runs: int, folder: Path) -> dict[bool, float]:
    """Median CPU seconds of the run loop of the scenario at ``path`` by ``compile_nlp``, its
    ``runs`` runs of each taken in turn after one that builds the libraries (into a cache
    folder in ``folder``)."""
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    [entry] = [c for c in document["controllers"].values() if c["type"] == "rendezvous_mpc"]
    files = {}
    for compile_nlp in (False, True):
        entry["compile_nlp"] = compile_nlp
        files[compile_nlp] = folder / f"compile_nlp_{compile_nlp}.toml"
        files[compile_nlp].write_text(tomli_w.dumps(document), encoding="utf-8")
    fmu_dir = Path(__file__).resolve().parents[1] / "fmus"
    seconds: dict[bool, list[float]] = {False: [], True: []}
    cache = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder / "cache")
    try:
        for count in range(-1, runs):
            for compile_nlp in (False, True):
                out = folder / f"run_{compile_nlp}_{count}"
                result = run_scenario(files[compile_nlp], out, fmu_dir, plots=False)
                if count >= 0:
                    seconds[compile_nlp].append(result.statistics.cpu_seconds)
    finally:
        if cache is None:
            del os.environ["XDG_CACHE_HOME"]
        else:
            os.environ["XDG_CACHE_HOME"] = cache
    return {key: statistics.median(values) for key, values in seconds.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.mpc_cost", description=__doc__)
    parser.add_argument("scenario", nargs="?", type=Path, default=SCENARIO)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--runs", type=int, default=0, help="whole runs of each kind")
    args = parser.parse_args(argv)
    scenario = load_scenario(args.scenario)
    [config] = [c for c in scenario.controllers.values() if isinstance(c, RendezvousConfig)]
    initial = initial_planar_states(scenario, config)
    seconds: dict[str, list[float]] = {"interpreted": [], "compiled": []}
    identical = True
    with tempfile.TemporaryDirectory(prefix="murcosim-nlp-") as folder:
        build_cpu, build_wall = first_build(config, Path(folder))
        for _ in range(args.repeats):
            interpreted, reference = closed_loop(config, initial, args.samples, None)
            compiled, inputs = closed_loop(config, initial, args.samples, Path(folder))
            seconds["interpreted"].append(interpreted)
            seconds["compiled"].append(compiled)
            identical = identical and np.array_equal(inputs, reference)
    slow, fast = (1e3 * statistics.median(seconds[k]) for k in ("interpreted", "compiled"))
    print(f"{args.scenario.name}: {args.samples} samples, {args.repeats} repeats interleaved")
    print(f"MPC CPU per local solve: interpreted {slow:.3f} ms, compiled {fast:.3f} ms ", end="")
    print(f"({slow / fast:.2f}x); inputs identical bit for bit: {identical}")
    solves_per_second = config.iterations * len(config.vehicles) / config.sample_time
    payback = build_cpu / ((slow - fast) * 1e-3 * solves_per_second)
    print(
        f"first build ({len(config.vehicles)} libraries, empty cache): {build_cpu:.1f} s CPU, ",
        end="",
    )
    print(f"{build_wall:.1f} s wall; paid back after {payback:.0f} s of MPC ", end="")
    print(f"({solves_per_second:.0f} local solves per simulated s)")
    if args.runs:
        with tempfile.TemporaryDirectory(prefix="murcosim-runs-") as folder:
            cpu = whole_runs(args.scenario, args.runs, Path(folder))
        print(f"whole runs ({args.runs} of each, interleaved), run loop's CPU: ", end="")
        print(f"interpreted {cpu[False]:.2f} s, compiled {cpu[True]:.2f} s")


if __name__ == "__main__":
    main()
