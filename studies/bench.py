"""Benchmarks of the core, as ratios measured interleaved in one process.

``murcosim bench`` prints a markdown table. The machines this runs on are shared and noisy,
so every comparison alternates its two sides in one process and reports the ratio of the
medians, with the absolute medians for context; nothing here is a test. Parts:

- ``rhs``: one right-hand side of ``bluerov2_heavy_single`` (9 instances) called from Python,
  and inside the compiled integrator, against the floor: the same FMI calls repeated in a C
  loop.
- ``fmpy``: the BlueROV2 Heavy FMU alone, 60 s of free motion, murcosim (compiled
  Dormand-Prince) against ``fmpy.simulate_fmu`` (CVode) at matched error: murcosim's
  tolerance is the loosest whose error against a tight reference does not exceed FMPy's.
- ``scenarios``: real-time factor (simulated / wall time of the run loop, start-up excluded)
  of shipped scenarios; and ``uvms_spiral`` against its integration alone (the scenario
  without its controllers: no samples, the compiled RK4 steps from one recording point to
  the next) and with the master's compiled ticks against its Python loop making every tick,
  in CPU time, which other jobs on the machine change less than wall time.
- ``coupling``: chains of N welded GenericVehicles, welded grids (closed loops) and the
  shipped systems of mixed joints, compiled against the Python path (see
  ``studies.bench_coupling``).
- ``startup``: wall time of the command ``murcosim run`` (a new interpreter, imports, the
  supervised child, forked, FMU loading, files) on ``bluerov2_heavy_single`` cut to 0.1 s,
  against the same command with its child a new program and the interpreter alone starting and
  importing NumPy; CPU time of the same run supervised from a Python caller that has imported
  murcosim with its child forked from the forkserver (a sweep's case) and a new program, against
  the run in its process; and ``murcosim sweep`` of 8 cases of the scenario cut to 1 s, its
  cases forked from the forkserver against new programs.
- ``gym``: steps per second of the station-keeping Gymnasium environment on one core and in
  two worker processes, and its overhead over a plain run (see ``studies.bench_gym``).
- ``swarm``: swarms of 16, 64 and 256 BlueROV2 Heavy vehicles with their thrusters, autopilots
  and constrained allocations: real-time factors and the fitted cost exponent (see
  ``studies.bench_swarm``).
"""

from __future__ import annotations

import ctypes
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import tomli_w

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"

# shipped scenarios timed by default: (file stem, simulated seconds, target x real time)
SCENARIO_TARGETS = [
    ("bluerov2_heavy_single", 60.0, 300.0),
    ("bluerov2_heavy_welded_pair", 60.0, 100.0),
    ("uvms_spiral", 20.0, 30.0),
    ("docking_mpc", 60.0, 3.0),
    ("docking_realistic", 60.0, 10.0),
    ("module_ring", 30.0, None),
    ("buoy_calm", 30.0, 30.0),
]


@dataclass
class Row:
    """One line of the table."""

    benchmark: str
    result: str
    target: str
    detail: str


def interleaved(
    first: Callable[[], float], second: Callable[[], float], repeats: int
) -> tuple[float, float]:
    """Medians of two measurements taken in alternation (each call returns seconds)."""
    a, b = [], []
    for _ in range(repeats):
        a.append(first())
        b.append(second())
    return statistics.median(a), statistics.median(b)


def _scenario_file(stem: str, folder: Path, **simulation: object) -> Path:
    document = tomllib.loads((SCENARIOS / f"{stem}.toml").read_text(encoding="utf-8"))
    document["simulation"].update(simulation)
    path = folder / f"{stem}.toml"
    path.write_text(tomli_w.dumps(document), encoding="utf-8")
    return path


def _run_seconds(path: Path, fmu_dir: Path, out: Path) -> tuple[float, object]:
    """Wall time of the run loop alone (start-up and plots excluded), and the result."""
    from orchestrator.runner.run import run_scenario

    result = run_scenario(path, out, fmu_dir, plots=False)
    return result.statistics.wall_seconds, result


# -- per right-hand side -------------------------------------------------------------------


def rhs_rows(fmu_dir: Path, repeats: int) -> list[Row]:
    """Per-RHS cost from Python and inside the integrator against the C-loop floor."""
    from orchestrator.scenario.reading import load_scenario
    from orchestrator.system.system import System

    path = SCENARIOS / "bluerov2_heavy_single.toml"
    scenario = load_scenario(path)
    system = System(scenario, str(path), fmu_dir)
    try:
        x = system.initialize(0.0, scenario.environment.current)
        x = x + 1e-3 * np.random.default_rng(0).normal(size=x.size)
        compiled, dx, n = system.compiled, np.zeros(system.n_states), 2000

        def floor() -> float:
            start = time.perf_counter()
            compiled._kernel.derivatives(0.0, x, dx, n)
            return (time.perf_counter() - start) / n

        def from_python() -> float:
            start = time.perf_counter()
            for _ in range(n):
                system.derivatives(0.0, x)
            return (time.perf_counter() - start) / n

        def in_integrator() -> float:
            before = compiled.evaluations
            compiled.dopri_reset(0.0, x, 0.01)
            out = np.zeros_like(x)
            start = time.perf_counter()
            compiled.dopri_advance(2.0, 2.0, out, (1e-8, 1e-10, 0.05), None)
            return (time.perf_counter() - start) / (compiled.evaluations - before)

        python, c_loop = interleaved(from_python, floor, repeats)
        integrator, c_loop2 = interleaved(in_integrator, floor, repeats)
    finally:
        system.close()
    detail = f"{len(system.instances)} instances, {system.n_states} states"
    return [
        Row(
            "RHS in the integrator / C-loop floor",
            f"{integrator / c_loop2:.2f}x",
            "<= 2x",
            f"{1e6 * integrator:.2f} vs {1e6 * c_loop2:.2f} us; {detail}",
        ),
        Row(
            "RHS called from Python / C-loop floor",
            f"{python / c_loop:.2f}x",
            "",
            f"{1e6 * python:.2f} vs {1e6 * c_loop:.2f} us (SciPy and CVODE methods)",
        ),
    ]


# -- against FMPy ----------------------------------------------------------------------------

FREE_MOTION = {"nu[1]": 0.8, "nu[2]": 0.2, "nu[3]": -0.3, "nu[4]": 0.4, "nu[5]": 0.2, "nu[6]": 0.6}
POSITIONS = ["p[1]", "p[2]", "p[3]"]


def fmpy_rows(fmu_dir: Path, repeats: int) -> list[Row]:
    """BlueROV2 Heavy alone: murcosim against fmpy.simulate_fmu (CVode) at matched error."""
    from fmpy import extract, read_model_description, simulate_fmu

    from orchestrator.recording.tables import read_timeseries

    fmu = fmu_dir / "BlueROV2Heavy.fmu"
    stop, interval = 60.0, 0.1
    with tempfile.TemporaryDirectory(prefix="murcosim-bench-") as folder:
        folder = Path(folder)

        def ours(rtol: float) -> tuple[float, np.ndarray]:
            document = {
                "simulation": {
                    "stop_time": stop,
                    "output_interval": interval,
                    "solver": "RK45",
                    "rtol": rtol,
                    "atol": rtol * 1e-2,
                    "step": 1.0,
                },
                "components": {"rov": {"fmu": "BlueROV2Heavy", "start": FREE_MOTION}},
                "record": ["rov.p*"],  # a glob: brackets would be a character class
            }
            path = folder / "free.toml"
            path.write_text(tomli_w.dumps(document), encoding="utf-8")
            seconds, _ = _run_seconds(path, fmu_dir, folder / "ours")
            data = read_timeseries(folder / "ours" / "timeseries.csv")
            return seconds, np.column_stack([data[f"rov.{p}"] for p in POSITIONS])

        unzipped = extract(str(fmu))
        description = read_model_description(unzipped, validate=False)

        def theirs() -> tuple[float, np.ndarray]:
            start = time.perf_counter()
            result = simulate_fmu(
                unzipped,
                validate=False,
                model_description=description,
                stop_time=stop,
                output_interval=interval,
                relative_tolerance=1e-6,
                start_values=FREE_MOTION,
                output=POSITIONS,
                solver="CVode",
            )
            seconds = time.perf_counter() - start
            grid = np.round(result["time"] / interval).astype(int)  # event rows repeat times
            _, first = np.unique(grid, return_index=True)
            return seconds, np.column_stack([result[p][first] for p in POSITIONS])

        _, reference = ours(1e-12)
        _, fmpy_states = theirs()
        n = min(len(reference), len(fmpy_states))
        fmpy_error = np.abs(fmpy_states[:n] - reference[:n]).max()
        chosen = 1e-4
        for rtol in (1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9):
            chosen = rtol
            _, states = ours(rtol)
            if np.abs(states[:n] - reference[:n]).max() <= fmpy_error:
                break
        our_error = np.abs(ours(chosen)[1][:n] - reference[:n]).max()
        mine, fmpy_time = interleaved(lambda: ours(chosen)[0], lambda: theirs()[0], repeats)
    return [
        Row(
            "BlueROV2Heavy alone, 60 s: murcosim / fmpy.simulate_fmu (CVode)",
            f"{mine / fmpy_time:.2f}x",
            "<= 1.0x",
            f"{1e3 * mine:.1f} vs {1e3 * fmpy_time:.1f} ms; position error {our_error:.1e} m "
            f"(rtol {chosen:g}) vs FMPy's {fmpy_error:.1e} m (rtol 1e-6)",
        )
    ]


# -- whole scenarios -------------------------------------------------------------------------


def scenario_rows(fmu_dir: Path, repeats: int, names: list[str] | None = None) -> list[Row]:
    """Real-time factor of shipped scenarios (median of ``repeats`` runs). The runs go round
    the scenarios in turn, so that a slow spell of the shared machine (seconds long) falls on
    a few runs of each scenario rather than on all runs of one."""
    chosen = [t for t in SCENARIO_TARGETS if names is None or t[0] in names]
    walls: dict[str, list[float]] = {stem: [] for stem, _, _ in chosen}
    with tempfile.TemporaryDirectory(prefix="murcosim-bench-") as folder:
        folder = Path(folder)
        paths = {stem: _scenario_file(stem, folder, stop_time=s) for stem, s, _ in chosen}
        for _ in range(repeats):
            for stem in walls:
                walls[stem].append(_run_seconds(paths[stem], fmu_dir, folder / stem)[0])
    rows = []
    for stem, seconds, target in chosen:
        wall = statistics.median(walls[stem])
        rows.append(
            Row(
                f"{stem}: real-time factor",
                f"{seconds / wall:.0f}x" if seconds / wall >= 10 else f"{seconds / wall:.2g}x",
                f">= {target:g}x" if target else "",
                f"{seconds:g} s simulated in {wall:.3g} s (median of {repeats})",
            )
        )
    if names is None or "uvms_spiral" in names:
        rows += [_samples_row(fmu_dir, repeats), _ticks_row(fmu_dir, repeats)]
    return rows


def _samples_row(fmu_dir: Path, repeats: int) -> Row:
    """uvms_spiral (three controllers sampled every 2 ms step) against its integration alone
    (its controllers left out), CPU time of the run loops, interleaved."""
    document = tomllib.loads((SCENARIOS / "uvms_spiral.toml").read_text(encoding="utf-8"))
    bare = {key: value for key, value in document.items() if key != "controllers"}
    with tempfile.TemporaryDirectory(prefix="murcosim-bench-") as folder:
        folder = Path(folder)
        paths = {"run": folder / "run.toml", "bare": folder / "bare.toml"}
        paths["run"].write_text(tomli_w.dumps(document), encoding="utf-8")
        paths["bare"].write_text(tomli_w.dumps(bare), encoding="utf-8")
        count = iter(range(2 * repeats))

        def cpu(which: str) -> Callable[[], float]:
            def seconds() -> float:
                out = folder / f"{which}{next(count)}"
                return _run_seconds(paths[which], fmu_dir, out)[1].statistics.cpu_seconds

            return seconds

        run, bare_run = interleaved(cpu("run"), cpu("bare"), repeats)
    simulated = document["simulation"]["stop_time"]
    return Row(
        "uvms_spiral: run / integration alone (CPU time)",
        f"{run / bare_run:.2f}",
        "",
        f"{run:.3g} vs {bare_run:.3g} s CPU for {simulated:g} s ({simulated / run:.0f}x vs "
        f"{simulated / bare_run:.0f}x; median of {repeats})",
    )


def _ticks_row(fmu_dir: Path, repeats: int) -> Row:
    """uvms_spiral with the master's compiled ticks against its Python loop making every tick
    (the same arithmetic), CPU time of the run loops, interleaved."""
    from orchestrator.master.master import Master

    with tempfile.TemporaryDirectory(prefix="murcosim-bench-") as folder:
        folder = Path(folder)
        path = _scenario_file("uvms_spiral", folder)
        count = iter(range(2 * repeats))

        def cpu(compiled: bool) -> Callable[[], float]:
            def seconds() -> float:
                Master.compiled_ticks = compiled
                try:
                    out = folder / f"run{next(count)}"
                    return _run_seconds(path, fmu_dir, out)[1].statistics.cpu_seconds
                finally:
                    Master.compiled_ticks = True

            return seconds

        compiled, python = interleaved(cpu(True), cpu(False), repeats)
        simulated = tomllib.loads(path.read_text(encoding="utf-8"))["simulation"]["stop_time"]
    return Row(
        "uvms_spiral: compiled ticks / Python loop (CPU time)",
        f"{compiled / python:.2f}",
        "",
        f"{compiled:.3g} vs {python:.3g} s CPU for {simulated:g} s ({simulated / compiled:.0f}x "
        f"vs {simulated / python:.0f}x; median of {repeats})",
    )


def startup_rows(fmu_dir: Path, repeats: int) -> list[Row]:
    """Median wall time of ``murcosim run`` on a 0.1 s scenario, as a user starts it (its
    child forked), against the same command with its child a new program and the interpreter
    alone importing NumPy, taken in turn; the CPU time of a sweep's case; and a sweep."""
    from orchestrator.runner.supervise import START_VARIABLE

    with tempfile.TemporaryDirectory(prefix="murcosim-bench-") as folder:
        folder = Path(folder)
        path = _scenario_file("bluerov2_heavy_single", folder, stop_time=0.1)
        command = [sys.executable, "-m", "orchestrator.cli", "run", str(path)]
        command += ["--fmu-dir", str(fmu_dir), "--out", str(folder / "out"), "--no-plots"]
        command += ["--quiet", "--overwrite"]  # each repeat replaces the one before
        interpreter = [sys.executable, "-c", "import numpy"]
        environment = {k: v for k, v in os.environ.items() if k != START_VARIABLE}
        starts = {
            "chosen": (command, environment),
            "program": (command, {**environment, START_VARIABLE: "program"}),
            "interpreter": (interpreter, environment),
        }
        walls: dict[str, list[float]] = {start: [] for start in starts}
        cpus: dict[str, list[float]] = {start: [] for start in starts}
        for _ in range(repeats):
            for start, (arguments, env) in starts.items():
                wall, cpu = time.perf_counter(), _cpu_seconds()
                subprocess.run(arguments, check=True, capture_output=True, env=env)
                cpus[start].append(_cpu_seconds() - cpu)
                walls[start].append(time.perf_counter() - wall)
        wall, program, floor = (statistics.median(walls[start]) for start in starts)
        cpu, program_cpu, floor_cpu = (statistics.median(cpus[start]) for start in starts)
        walls_cpus = _child_seconds(path, fmu_dir, folder, repeats)
        (served, program_case, in_process), (served_cpu, program_case_cpu, in_process_cpu) = (
            walls_cpus
        )
        sweep_path = _scenario_file("bluerov2_heavy_single", folder, stop_time=1.0)
        sweeps = _sweep_seconds(sweep_path, fmu_dir, folder, repeats)
    return [
        Row(
            "start-up: `murcosim run` of a 0.1 s scenario, wall time",
            f"{wall:.2f} s",
            "< 0.5 s",
            f"median of {repeats}, the child forked; with the child a new program "
            f"({START_VARIABLE}=program) {program:.2f} s; interpreter + NumPy import alone "
            f"{floor:.2f} s; CPU time {cpu:.2f} s, {program_cpu:.2f} s and {floor_cpu:.2f} s",
        ),
        Row(
            "start-up: the same run supervised from Python, its child from the forkserver "
            "(a sweep's case), CPU time",
            f"{served_cpu:.2f} s",
            "",
            f"median of {repeats}; with the child a new program {program_case_cpu:.2f} s; in "
            f"the caller's process {in_process_cpu:.2f} s; wall time {served:.2f} s, "
            f"{program_case:.2f} s and {in_process:.2f} s",
        ),
        Row(
            f"start-up: `murcosim sweep` of {SWEEP_CASES} cases of the scenario cut to 1 s "
            f"({SWEEP_WORKERS} workers), cases from the forkserver / new programs, CPU time",
            f"{sweeps['forkserver'][1] / sweeps['program'][1]:.2f}",
            "",
            f"median of {repeats}, taken in turn; {sweeps['forkserver'][1]:.2f} s vs "
            f"{sweeps['program'][1]:.2f} s CPU (the command and all its processes); wall time "
            f"{sweeps['forkserver'][0]:.2f} s vs {sweeps['program'][0]:.2f} s",
        ),
    ]


SWEEP_CASES, SWEEP_WORKERS = 8, 2
PR_SET_CHILD_SUBREAPER = 36  # prctl option (linux/prctl.h)


def _sweep_seconds(
    path: Path, fmu_dir: Path, folder: Path, repeats: int
) -> dict[str, tuple[float, float]]:
    """Per start of the cases ("forkserver", as chosen, and "program"): medians (s) of the wall
    and CPU time of ``murcosim sweep`` of ``path``, taken in turn. The CPU time counts every
    process of the command, the forkserver and its children too: this process adopts them
    (a child subreaper) and waits for them when the command has ended."""
    from orchestrator.runner.supervise import START_VARIABLE

    environment = {k: v for k, v in os.environ.items() if k != START_VARIABLE}
    starts = {"forkserver": environment, "program": {**environment, START_VARIABLE: "program"}}
    spent: dict[str, list[tuple[float, float]]] = {start: [] for start in starts}
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    try:
        for repeat in range(repeats):
            for start, env in starts.items():
                out = folder / f"sweep_{start}_{repeat}"
                command = [sys.executable, "-m", "orchestrator.cli", "sweep", str(path)]
                command += ["--runs", str(SWEEP_CASES), "--vary", "rov.p[3]=0.5:1.5"]
                command += ["--workers", str(SWEEP_WORKERS), "--fmu-dir", str(fmu_dir)]
                command += ["--out", str(out), "--quiet"]
                wall, cpu, before = time.perf_counter(), _cpu_seconds(), _children()
                subprocess.run(command, check=True, capture_output=True, env=env)
                for orphan in _children() - before:  # adopted when the command ended
                    os.waitpid(orphan, 0)
                spent[start].append((time.perf_counter() - wall, _cpu_seconds() - cpu))
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    return {
        start: tuple(statistics.median(column) for column in zip(*runs, strict=True))
        for start, runs in spent.items()
    }


def _children() -> set[int]:
    """This process's children (``/proc/PID/stat``)."""
    return {pid for pid, parent in _parents().items() if parent == os.getpid()}


def _parents() -> dict[int, int]:
    """The parent of every process (``/proc/PID/stat``)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except OSError:  # ended meanwhile
            continue
    return parents


def _cpu_seconds() -> float:
    """CPU time (s, user + system) of this process and of its children that have ended."""
    own, children = (
        resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _child_seconds(
    path: Path, fmu_dir: Path, folder: Path, repeats: int
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Medians (s) of the wall and of the CPU time of ``run_supervised`` with its child forked
    from the forkserver (as a sweep's case) and a new program, and of ``run_scenario`` of
    ``path`` in this process, taken in turn, each into a new folder, after one run of each (the
    forkserver's start). CPU time counts the forkserver's and its ended children's (``/proc``,
    in clock ticks of 10 ms)."""
    from orchestrator.runner.run import run_scenario
    from orchestrator.runner.supervise import START_VARIABLE, run_supervised

    runs = iter(range(3 * repeats + 3))
    given = os.environ.get(START_VARIABLE)

    def supervised(start: str) -> Callable[..., object]:
        def run(*arguments: object, **options: object) -> object:
            os.environ[START_VARIABLE] = start
            return run_supervised(*arguments, **options)

        return run

    ways = {"forkserver": supervised("forkserver"), "program": supervised("program")}
    ways["in_process"] = run_scenario
    spent: dict[str, list[tuple[float, float]]] = {way: [] for way in ways}
    try:
        for repeat in range(repeats + 1):
            for way, run in ways.items():
                wall, cpu = time.perf_counter(), _cpu_seconds() + _forkserver_cpu_seconds()
                run(path, folder / f"child_{next(runs)}", fmu_dir, plots=False)
                cpu = _cpu_seconds() + _forkserver_cpu_seconds() - cpu
                if repeat:
                    spent[way].append((time.perf_counter() - wall, cpu))
    finally:
        if given is None:
            os.environ.pop(START_VARIABLE, None)
        else:
            os.environ[START_VARIABLE] = given
    medians = [tuple(statistics.median(c) for c in zip(*spent[w], strict=True)) for w in ways]
    walls, cpus = zip(*medians, strict=True)
    return walls, cpus


def _forkserver_cpu_seconds() -> float:
    """CPU time (s) of this process's forkserver and of its children that have ended
    (``/proc/PID/stat``: utime, stime, cutime, cstime); 0 while there is none."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:  # ended meanwhile
            continue
        if int(fields[1]) == os.getpid() and b"multiprocessing.forkserver" in command:
            return sum(map(int, fields[11:15])) / os.sysconf("SC_CLK_TCK")
    return 0.0


# -- the table -------------------------------------------------------------------------------

# the command line lists them
PARTS = ("rhs", "fmpy", "scenarios", "coupling", "startup", "gym", "swarm")


def run_suite(fmu_dir: Path, parts: tuple[str, ...] = PARTS, repeats: int = 5) -> str:
    """Run the chosen parts; return the markdown table (also printed as it grows)."""
    rows: list[Row] = []
    makers: dict[str, Callable[[], list[Row]]] = {
        "rhs": lambda: rhs_rows(fmu_dir, repeats),
        "fmpy": lambda: fmpy_rows(fmu_dir, max(3, repeats // 2)),
        "scenarios": lambda: scenario_rows(fmu_dir, repeats),
        "coupling": lambda: _coupling_rows(fmu_dir),
        "startup": lambda: startup_rows(fmu_dir, max(5, repeats)),
        "gym": lambda: _gym_rows(fmu_dir, repeats),
        "swarm": lambda: _swarm_rows(fmu_dir, repeats),
    }
    for part in parts:
        for row in makers[part]():
            rows.append(row)
            print(f"{row.benchmark}: {row.result} ({row.detail})", flush=True)
    lines = ["| benchmark | result | target | measured |", "| --- | --- | --- | --- |"]
    lines += [f"| {r.benchmark} | {r.result} | {r.target} | {r.detail} |" for r in rows]
    return "\n".join(lines)


def _coupling_rows(fmu_dir: Path) -> list[Row]:
    """Chains and grids of welded GenericVehicles, shipped systems of mixed joints
    (``studies.bench_coupling``)."""
    from studies.bench_coupling import FIT_FROM, GRID_FIT_FROM, coupling_benchmarks

    measured = coupling_benchmarks(fmu_dir)
    rows = {str(r["system"]): r for r in measured["rows"]}
    result = []
    for kind, smallest in (("chain", FIT_FROM), ("grid", GRID_FIT_FROM)):
        systems = [r for name, r in rows.items() if name.startswith(kind)]
        costs = ", ".join(f"N={r['bodies']}: {r['coupling_us']:.0f}" for r in systems)
        result.append(
            Row(
                f"coupling cost of welded {kind}s, fitted exponent over N >= {smallest}",
                f"{measured['exponents'][kind]:.2f}",
                "<= 1.2",
                f"us per RHS (CPU time) {costs}",
            )
        )
    for name, target in (("chain_64", 2.0), ("grid_8x8", 30.0), ("grid_16x16", 1.0)):
        r = rows[name]
        svd = f", dense SVD {r['svd_us']:.0f} us" if np.isfinite(r["svd_us"]) else ""
        python = f", Python path {r['python_us']:.0f} us" if np.isfinite(r["python_us"]) else ""
        result.append(
            Row(
                f"{name.replace('_', ' ')} welded GenericVehicles (RK4, 0.01 s): real-time factor",
                f"{r['real_time']:.2g}x",
                f">= {target:g}x",
                f"coupling {r['coupling_us']:.0f} us per RHS ({r['joints']} joints{svd}{python}), "
                f"{100 * r['coupling_share']:.0f} % of the run (CPU time)",
            )
        )
    for r in measured["mixed"]:
        result.append(
            Row(
                f"{r['system']}: compiled coupling / Python path per RHS",
                f"{r['coupling_us'] / r['python_us']:.3f}",
                "",
                f"{r['coupling_us']:.1f} vs {r['python_us']:.0f} us; FMUs {r['fmus_us']:.1f} us "
                f"per RHS; run {r['real_time']:.0f}x real time, coupling "
                f"{100 * r['coupling_share']:.0f} % of it (CPU time)",
            )
        )
    return result


def _gym_rows(fmu_dir: Path, repeats: int) -> list[Row]:
    """The Gymnasium environment (``studies.bench_gym``; imports Gymnasium)."""
    from studies.bench_gym import gym_rows

    return gym_rows(fmu_dir, repeats)


def _swarm_rows(fmu_dir: Path, repeats: int) -> list[Row]:
    """Swarms of BlueROV2 Heavy vehicles (``studies.bench_swarm``)."""
    from studies.bench_swarm import swarm_rows

    return swarm_rows(fmu_dir, repeats)


README_START = "<!-- bench:start -->"
README_END = "<!-- bench:end -->"


def update_readme(readme: Path, table: str, command: str) -> None:
    """Replace the generated table between the README's bench markers."""
    text = readme.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        raise ValueError(f"{readme}: no '{README_START}' ... '{README_END}' section")
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    block = f"{README_START}\n_Generated by `{command}`._\n\n{table}\n{README_END}"
    readme.write_text(head + block + tail, encoding="utf-8")
