"""Two builds of the component library compared: the same trajectories, and what one system
right-hand side costs with each.

    python -m studies.build_compare BEFORE AFTER [--scenario NAME ...] [--swarm N ...]
                                    [--repeats N]

``BEFORE`` and ``AFTER`` are FMU folders (``murcosim build --out``), e.g. the build of the
last commit and of a change to the compiler. Every shipped scenario (default) runs against
each folder, and each time series is compared with the other bit for bit; the MPC's
``*_solve_time`` columns (wall-clock seconds) are left out. Then, for ``docking_realistic``
and ``bluerov2_heavy_single``, one right-hand side of the whole system (the compiled
kernel's loop of FMI calls, as the ``rhs`` part of ``murcosim bench`` measures its floor)
is timed with each folder, alternating in one process, and its derivatives compared; so is
that of each swarm of N vehicles given with ``--swarm`` (``studies.bench_swarm``'s swarms),
per vehicle.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import tomli_w

from studies.bench import SCENARIOS, interleaved
from studies.bench_swarm import SIMULATED, swarm_document

TIMED = ("docking_realistic", "bluerov2_heavy_single")
CALLS = 2000  # right-hand sides per measurement


def differing_columns(name: str, before: Path, after: Path, folder: Path) -> list[str]:
    """The columns of scenario ``name`` whose series differ between the two FMU folders."""
    from murcosim import load_results
    from orchestrator.runner.run import run_scenario

    tables = []
    for k, fmu_dir in enumerate((before, after)):
        out = folder / name / str(k)
        run_scenario(SCENARIOS / f"{name}.toml", out, fmu_dir, plots=False, formats=("parquet",))
        tables.append(load_results(out).timeseries)
    first, second = tables
    if list(first.columns) != list(second.columns):
        return ["(the columns)"]
    return [
        column
        for column in first.columns
        if not column.endswith("_solve_time")
        and not np.array_equal(first[column].to_numpy(), second[column].to_numpy(), equal_nan=True)
    ]


def rhs_microseconds(
    path: Path, before: Path, after: Path, repeats: int
) -> tuple[float, float, bool]:
    """Median time of one system right-hand side of the scenario file ``path`` with each
    folder, us, and whether both give the same derivatives to the bit."""
    from orchestrator.scenario.reading import load_scenario
    from orchestrator.system.system import System

    scenario = load_scenario(path)
    systems = [System(scenario, str(path), fmu_dir) for fmu_dir in (before, after)]
    try:
        points, slopes = [], []
        for system in systems:
            x = system.initialize(0.0, scenario.environment.current)
            points.append(x + 1e-3 * np.random.default_rng(0).normal(size=x.size))
            slopes.append(np.zeros(system.n_states))

        def timer(k: int):
            def seconds() -> float:
                start = time.perf_counter()
                systems[k].compiled._kernel.derivatives(0.0, points[k], slopes[k], CALLS)
                return (time.perf_counter() - start) / CALLS

            return seconds

        first, second = interleaved(timer(0), timer(1), repeats)
    finally:
        for system in systems:
            system.close()
    return 1e6 * first, 1e6 * second, bool(np.array_equal(*slopes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="FMU folder of the first build")
    parser.add_argument("after", type=Path, help="FMU folder of the second build")
    parser.add_argument("--scenario", action="append", help="shipped scenario (default: all)")
    parser.add_argument(
        "--swarm", type=int, action="append", default=[], metavar="N", help="swarm size to time"
    )
    parser.add_argument("--repeats", type=int, default=7, help="measurements per median")
    args = parser.parse_args()
    names = args.scenario or sorted(p.stem for p in SCENARIOS.glob("*.toml"))
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            differ = differing_columns(name, args.before, args.after, Path(folder))
            print(f"{name}: " + (f"differs in {', '.join(differ[:5])}" if differ else "identical"))
        timed = [(name, SCENARIOS / f"{name}.toml", 1) for name in TIMED]
        for n in args.swarm:
            path = Path(folder) / f"swarm_{n}.toml"
            path.write_text(tomli_w.dumps(swarm_document(n, SIMULATED)), encoding="utf-8")
            timed.append((f"swarm of {n}", path, n))
        for name, path, vehicles in timed:
            first, second, same = rhs_microseconds(path, args.before, args.after, args.repeats)
            first, second = first / vehicles, second / vehicles
            print(
                f"{name}: one right-hand side{' per vehicle' if vehicles > 1 else ''} "
                f"{first:.2f} us -> {second:.2f} us ({first / second:.2f}x), derivatives "
                f"{'identical' if same else 'DIFFER'}"
            )


if __name__ == "__main__":
    main()
