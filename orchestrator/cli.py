"""Command line: ``murcosim build | run | plot | check | bench | ssp | drift | ...``."""

from __future__ import annotations

import argparse
import gc
import importlib
import signal
import sys
from pathlib import Path
from types import ModuleType

from orchestrator.errors import MurcosimError
from orchestrator.recording.tables import FORMATS
from orchestrator.runner.interrupts import exit_status, signal_name, signal_of, terminate_interrupts

FMU_DIR_HELP = "FMU folder (default: 'fmus' in the current folder or the nearest one above it)"
SCENARIO_FMU_DIR_HELP = (
    "FMU folder (default: the scenario's fmu_dir, else 'fmus' next to the scenario file or in "
    "the nearest folder above it)"
)
BENCH_PARTS = ("rhs", "fmpy", "scenarios", "coupling", "startup", "gym", "swarm")  # bench.PARTS


def _studies(module: str, command: str) -> ModuleType:
    """The module ``module`` of the ``studies`` folder of the repository checkout the command
    runs from (the current folder or the nearest one above it), else of the one already on the
    import path (``PYTHONPATH``): the studies and benchmarks are not installed with the package,
    and the package reads nothing around itself."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "studies" / "__init__.py").is_file() and (folder / "pyproject.toml").is_file():
            if str(folder) not in sys.path:
                sys.path.insert(0, str(folder))
            break
    try:
        return importlib.import_module(f"studies.{module}")
    except ModuleNotFoundError as error:
        if error.name not in ("studies", f"studies.{module}"):
            raise
    raise MurcosimError(
        f"{command}: needs the repository checkout (its studies/ folder): "
        "run it from inside a clone of murcosim"
    )


def _fmus(given: Path | None) -> Path:
    """The FMU folder of a command without a scenario: ``--fmu-dir``, else ``fmus`` in the
    current folder or the nearest one above it (:mod:`orchestrator.fmi.folder`)."""
    from orchestrator.fmi.folder import command_fmu_folder

    return command_fmu_folder(given)


def _build(args: argparse.Namespace) -> None:
    from orchestrator.compiler import build_library
    from orchestrator.compiler.library import default_library, default_out

    variants = tuple(args.variant) if args.variant else None
    build_library(
        args.library or default_library(),
        args.out or default_out(),
        backend=args.backend,
        force=args.force,
        variants=variants,
        library_path=args.library_path,
        models=args.model,
        experiments=args.experiments,
    )


def _run(args: argparse.Namespace) -> None:
    from orchestrator.master.summary import run_summary
    from orchestrator.recording.folder import prepare_folder
    from orchestrator.runner.supervise import run_supervised
    from orchestrator.scenario.reading import load_scenario

    load_scenario(args.scenario)  # a bad file is reported before a process is started for it
    out = args.out or Path("results") / args.scenario.stem
    # a folder given with --out is the user's: another run's files there are kept unless
    # --overwrite; the default folder is the scenario's own, replaced by its next run
    prepare_folder(out, args.overwrite or args.out is None, keep=args.scenario)
    result = run_supervised(
        args.scenario,
        out,
        args.fmu_dir,
        progress=not args.quiet,
        plots=not args.no_plots,
        stall_seconds=args.stall_timeout,
        formats=args.format or ("csv",),
    )
    summary = run_summary(result.event_table, result.table, result.statistics)
    print(f"{args.scenario}: {summary}; results in {out}")


def _regress(args: argparse.Namespace) -> int:
    from orchestrator.analysis.regression import regress
    from orchestrator.analysis.regression.report import write_html, write_junit

    if args.suite is None and not args.variants:
        raise MurcosimError("regress: expected a suite file, --variants, or both")
    results = []
    if args.suite is not None:
        results.append(regress(args.suite, args.case, update=args.update))
    if args.variants:
        from orchestrator.analysis.regression.variants import check_variants

        results.append(check_variants(_fmus(args.fmu_dir), args.model))
    for result in results:
        stem = result.suite.stem if result.suite.suffix else "variants"
        report = write_html(result, (args.report or Path("results/regress")) / f"{stem}.html")
        print(f"report in {report}")
        if args.junit:
            junit = args.junit if len(results) == 1 else args.junit.with_stem(
                f"{args.junit.stem}-{stem}"
            )  # fmt: skip
            print(f"JUnit XML in {write_junit(result, junit)}")
    return 0 if all(r.passed for r in results) else 1


def _plot(args: argparse.Namespace) -> None:
    from orchestrator.visualization.plots import plot_run

    for path in plot_run(args.results, per_body=args.per_body):
        print(path)


def _replay(args: argparse.Namespace) -> None:
    from orchestrator.visualization.replay import write_replay

    print(write_replay(args.results, args.out, args.fmu_dir))


def _crosscheck(args: argparse.Namespace) -> None:
    from orchestrator.analysis.crosscheck import export_crosscheck

    export_crosscheck(_fmus(args.fmu_dir), args.out, args.model)


def _scenario_reference(args: argparse.Namespace) -> None:
    from orchestrator.scenario.reference import scenario_reference

    text = scenario_reference()
    if args.out is None:
        print(text, end="")
    else:
        args.out.write_text(text, encoding="utf-8")
        print(f"written to {args.out}")


def _info(args: argparse.Namespace) -> None:
    from orchestrator.fmi.info import describe

    path = args.fmu
    if not path.is_file() and path.suffix != ".fmu" and len(path.parts) == 1:
        path = _fmus(args.fmu_dir) / f"{path}.fmu"  # a name: from the FMU folder
    print(describe(path))


def _check(args: argparse.Namespace) -> None:
    from fmpy import simulate_fmu
    from fmpy.validation import validate_fmu

    folder = _fmus(args.fmu_dir)
    paths = sorted(folder.rglob("*.fmu"))  # fmi2/ holds the FMI 2.0 variants
    if not paths:
        raise MurcosimError(
            f"{folder}: no FMUs to check ('murcosim build --out {folder}' exports them there)"
        )
    failed = 0
    for path in paths:
        problems = validate_fmu(str(path))
        try:
            simulate_fmu(str(path), stop_time=1.0)
        except Exception as exc:  # noqa: BLE001 - reported per FMU
            problems.append(f"fmpy simulate failed: {exc}")
        failed += bool(problems)
        print(
            f"{'ok  ' if not problems else 'FAIL'} {path}"
            + "".join(f"\n     {p}" for p in problems)
        )
    if failed:
        raise MurcosimError(f"{failed} of {len(paths)} FMU(s) failed the check")


def _bench(args: argparse.Namespace) -> None:
    bench = _studies("bench", "bench")
    if args.repeats < 1:
        raise SystemExit("murcosim bench: --repeats: expected a positive count")
    table = bench.run_suite(_fmus(args.fmu_dir), tuple(args.parts), args.repeats)
    print()
    print(table)
    if args.update_readme:
        command = f"murcosim bench --parts {' '.join(args.parts)} --repeats {args.repeats}"
        bench.update_readme(bench.ROOT / "README.md", table, command)


def _ssp(args: argparse.Namespace) -> None:
    from orchestrator.system.ssp import export_ssp, import_ssp

    if args.action == "export":
        print(export_ssp(args.source, args.fmu_dir, args.target, args.ssp_version))
    else:
        print(import_ssp(args.source, args.target, args.template))


def _drift(args: argparse.Namespace) -> None:
    from orchestrator.analysis.drift import DEFAULT_STEPS, drift_table, markdown

    steps = tuple(args.steps) if args.steps else DEFAULT_STEPS
    rows = drift_table(args.scenario, args.fmu_dir, args.out, steps, args.order)
    print(markdown(rows, args.scenario) + f"\nwritten to {args.out / 'drift.md'}")


def _sweep(args: argparse.Namespace) -> None:
    from orchestrator.analysis.sweep import run_sweep
    from orchestrator.analysis.sweep_table import Metric
    from orchestrator.analysis.variations import Variation

    variations = [Variation.parse(v) for v in args.vary]
    metrics = [Metric.parse(m) for m in args.metric] if args.metric else None
    out = args.out or Path("results") / f"{args.scenario.stem}_sweep"
    run_sweep(
        args.scenario,
        variations,
        args.runs,
        args.seed,
        out,
        args.fmu_dir,
        metrics=metrics,
        scheduler=args.scheduler,
        workers=args.workers,
        progress=not args.quiet,
        stall_seconds=args.stall_timeout,
        design=args.design,
    )


def _rendezvous(args: argparse.Namespace, command: str) -> tuple[object, object]:
    """The scenario's rendezvous MPC settings and the planar start states of its vehicles."""
    from orchestrator.scenario.model import RendezvousConfig
    from orchestrator.scenario.reading import load_scenario

    scenario = load_scenario(args.scenario)
    config = scenario.controllers.get(args.controller)
    if not isinstance(config, RendezvousConfig):
        raise MurcosimError(f"{args.scenario}: controllers.{args.controller}: not a rendezvous_mpc")
    return config, _studies("rendezvous_study", command).initial_planar_states(scenario, config)


def _study(args: argparse.Namespace) -> None:
    study = _studies("rendezvous_study", "rendezvous-study")
    config, initial = _rendezvous(args, "rendezvous-study")
    results = [
        study.run_planar(
            config.model_copy(update={"method": m, "solver": s}),
            initial,
            args.duration,
            args.tolerance,
        )
        for m, s in (("distributed", "sqp"), ("centralized", "ipopt"))
    ]
    print(study.comparison_table(results))


def _docking_study(args: argparse.Namespace) -> None:
    study = _studies("docking_study", "docking-study")
    from orchestrator.scenario.reading import load_scenario

    if args.realistic is not None:
        out = args.out or Path("results") / "docking_study"
        columns, durations = {}, {}
        for name, scenario in (("perfect state", args.scenario), ("realistic", args.realistic)):
            print(f"{name}: {scenario}")
            folder = out / name.replace(" ", "_")
            columns[name] = study.run_cosim_cases(
                scenario,
                args.controller,
                args.runs,
                args.seed,
                study.StartRanges(),
                folder,
                args.fmu_dir,
                workers=args.workers,
            )
            durations[name] = load_scenario(scenario).simulation.stop_time
        print(study.comparison_table(columns, args.seed, durations))
        return
    if args.model == "cosim":
        out = args.out or Path("results") / "docking_study"
        cases = study.run_cosim_cases(
            args.scenario,
            args.controller,
            args.runs,
            args.seed,
            study.StartRanges(),
            out,
            args.fmu_dir,
        )
        duration = load_scenario(args.scenario).simulation.stop_time
    else:
        config, initial = _rendezvous(args, "docking-study")
        cases = study.run_cases(
            config, initial, args.runs, args.seed, args.duration, study.StartRanges()
        )
        duration = args.duration
    print(study.success_table(cases, args.seed, duration))


def _docking_report(args: argparse.Namespace) -> None:
    from orchestrator.analysis.docking_report import docking_report, report_table

    print(report_table(docking_report(args.folder, args.controller)))


def _buoy_parts() -> tuple[str, ...]:
    return _studies("buoy_study", "buoy-study").PARTS


def _buoy_study(args: argparse.Namespace) -> None:
    study = _studies("buoy_study", "buoy-study")
    parts = args.parts or list(_buoy_parts())
    unknown = [p for p in parts if p not in _buoy_parts()]
    if unknown:
        raise MurcosimError(f"buoy-study: unknown part(s) {unknown}, expected {_buoy_parts()}")
    model = study.model_changes(args.axial_drag, args.boundary_layer)
    print(f"written to {study.run_studies(parts, args.out, args.fmu_dir, model)}")


def _rendezvous_arguments(parser: argparse.ArgumentParser, scenario: str) -> None:
    """The scenario (default ``scenario``) and controller arguments of the MPC studies."""
    parser.add_argument(
        "scenario",
        type=Path,
        nargs="?",
        default=Path(scenario),
        help="scenario file with a rendezvous_mpc controller",
    )
    parser.add_argument(
        "--controller", default="rendezvous", help="name of the rendezvous_mpc controller"
    )


class _Version(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked for
    (importlib.metadata is a tenth of a short run's start-up)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import version

        print(f"murcosim {version('murcosim')}")
        parser.exit()


def parser() -> argparse.ArgumentParser:
    """The argument parser of the ``murcosim`` command."""
    p = argparse.ArgumentParser(
        prog="murcosim", description="Co-simulation of modular underwater robots"
    )
    p.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser(
        "build",
        help="export the Modelica library's models and blocks as FMUs",
        description="Export the non-partial models and blocks of a Modelica library as FMUs: "
        "the ones named with --model, else all, skipping (one line each, with the reason) "
        "those that cannot run alone. A class's experiment annotation becomes the FMU's "
        "DefaultExperiment; models whose last names collide get their full name as FMU name.",
    )
    b.add_argument(
        "--library",
        type=Path,
        help="Modelica package folder (default: the MurCoSim library installed with murcosim, "
        "modelica/MurCoSim of the repository)",
    )
    b.add_argument(
        "--out",
        type=Path,
        help="FMU output folder (default: 'fmus' in the current folder or the nearest one above "
        "it, else a new 'fmus' in the current folder: where the other commands look)",
    )
    b.add_argument(
        "--backend",
        default="rumoca",
        choices=["rumoca", "pymoca", "openmodelica"],
        help="Modelica front end: rumoca (default: MSL-style libraries, library path; "
        "MurCoSim needs it) or pymoca, both with the project's index reduction, "
        "initialization, events, CasADi code and FMI layer; or OpenModelica (needs omc)",
    )
    b.add_argument(
        "--library-path",
        type=Path,
        action="append",
        help="folder holding other Modelica libraries the library uses (e.g. the Modelica "
        "Standard Library), repeatable; MODELICAPATH is searched after (rumoca backend)",
    )
    b.add_argument(
        "--model",
        action="append",
        metavar="NAME",
        help="model or block to build, full or last Modelica name, repeatable (default: all "
        "that can run alone); a named one that fails is an error (exit status 2)",
    )
    b.add_argument(
        "--experiments",
        action="store_true",
        help="build only the models with an experiment annotation (examples, test models)",
    )
    b.add_argument("--force", action="store_true", help="rebuild even if up to date")
    b.add_argument(
        "--variant",
        action="append",
        choices=["me", "fmi3", "fmi2"],
        help="FMUs to write, repeatable (default all): me -> OUT/<Name>.fmu (FMI 3.0 Model "
        "Exchange), fmi3 -> OUT/fmi3/<Name>.fmu, fmi2 -> OUT/fmi2/<Name>.fmu (FMI 3.0 / 2.0, "
        "Model Exchange and Co-Simulation)",
    )
    b.set_defaults(func=_build)
    r = sub.add_parser("run", help="run a scenario file")
    r.add_argument("scenario", type=Path, help="scenario file (TOML)")
    r.add_argument("--out", type=Path, help="results folder (default results/<scenario name>)")
    r.add_argument("--fmu-dir", type=Path, help=SCENARIO_FMU_DIR_HELP)
    r.add_argument(
        "--format",
        action="append",
        choices=FORMATS,
        help="time-series file format, repeatable (default csv; events.csv is always written)",
    )
    r.add_argument(
        "--overwrite",
        action="store_true",
        help="empty the --out folder of another run's files first (default: refuse such a "
        "folder; the default folder results/<scenario name> is replaced)",
    )
    r.add_argument("--no-plots", action="store_true", help="write no plots")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.add_argument(
        "--stall-timeout",
        type=float,
        metavar="SECONDS",
        help="end the run when no macro step completes for this long (a hung FMU); default: wait",
    )
    r.set_defaults(func=_run)
    pl = sub.add_parser("plot", help="(re)make the plots of a results folder")
    pl.add_argument("results", type=Path, help="results folder of 'murcosim run'")
    pl.add_argument(
        "--per-body", action="store_true", help="also trajectory, attitude, velocity per body"
    )
    pl.set_defaults(func=_plot)
    rp = sub.add_parser("replay", help="write a results folder's 3D replay as one HTML file")
    rp.add_argument("results", type=Path, help="results folder of 'murcosim run'")
    rp.add_argument("--out", type=Path, help="HTML file (default RESULTS/replay.html)")
    rp.add_argument(
        "--fmu-dir",
        type=Path,
        help="FMU folder the run used (default: the one RESULTS/run.json records, else 'fmus' "
        "in the results folder or the nearest folder above it)",
    )
    rp.set_defaults(func=_replay)
    rg = sub.add_parser(
        "regress",
        help="compare components and scenarios with stored references (tolerance tubes)",
        description="Run the cases of a regression suite file and compare each with its stored "
        "reference by tolerance tubes (pyfunnel) and events; --update stores the runs as the new "
        "references and says what changed; --variants checks that every model's FMI 2.0/3.0 "
        "Model Exchange and Co-Simulation variants and FMPy agree. Exit status 1 when a case "
        "failed, 2 on a bad suite file.",
    )
    rg.add_argument("suite", type=Path, nargs="?", help="suite file (TOML)")
    rg.add_argument("--case", action="append", help="case name, repeatable (default: all)")
    rg.add_argument("--update", action="store_true", help="store the runs as the references")
    rg.add_argument(
        "--report", type=Path, help="folder of the HTML report (default results/regress)"
    )
    rg.add_argument("--junit", type=Path, help="also write JUnit XML to this file")
    rg.add_argument("--variants", action="store_true", help="check the FMU variants agree")
    rg.add_argument("--fmu-dir", type=Path, help=FMU_DIR_HELP)
    rg.add_argument("--model", action="append", help="model of --variants, repeatable")
    rg.set_defaults(func=_regress)
    x = sub.add_parser("crosscheck", help="test FMUs and references in the FMI cross-check layout")
    x.add_argument("out", type=Path, help="output folder (fmus/<version>/<me|cs>/... below it)")
    x.add_argument("--fmu-dir", type=Path, help=FMU_DIR_HELP)
    x.add_argument("--model", action="append", help="model name, repeatable (default: all)")
    x.set_defaults(func=_crosscheck)
    sr = sub.add_parser(
        "scenario-reference", help="the reference of every scenario key, as Markdown"
    )
    sr.add_argument("--out", type=Path, help="write to this file instead of printing")
    sr.set_defaults(func=_scenario_reference)
    i = sub.add_parser(
        "info", help="an FMU's interfaces, sizes and variables, as murcosim reads it"
    )
    i.add_argument("fmu", type=Path, help="FMU file, or the name of one in the FMU folder")
    i.add_argument("--fmu-dir", type=Path, help=FMU_DIR_HELP + "; for an FMU given by name")
    i.set_defaults(func=_info)
    c = sub.add_parser("check", help="validate every FMU and simulate it standalone with FMPy")
    c.add_argument("--fmu-dir", type=Path, help=FMU_DIR_HELP)
    c.set_defaults(func=_check)
    be = sub.add_parser(
        "bench", help="benchmark suite: ratios measured interleaved, printed as a markdown table"
    )
    be.add_argument(
        "--parts",
        nargs="+",
        choices=BENCH_PARTS,
        default=list(BENCH_PARTS),
        help="which benchmarks to run (default: all)",
    )
    be.add_argument("--repeats", type=int, default=5, help="measurements per median")
    be.add_argument(
        "--update-readme",
        action="store_true",
        help="write the table into README.md's Performance section",
    )
    be.add_argument("--fmu-dir", type=Path, help=FMU_DIR_HELP)
    be.set_defaults(func=_bench)
    s = sub.add_parser("ssp", help="export a scenario's system as SSP, or import an SSP archive")
    s.add_argument(
        "action", choices=["export", "import"], help="export a scenario or import an archive"
    )
    s.add_argument("source", type=Path, help="export: scenario file; import: .ssp archive")
    s.add_argument("target", type=Path, help="export: .ssp archive; import: new scenario file")
    s.add_argument("--fmu-dir", type=Path, help="export: " + SCENARIO_FMU_DIR_HELP)
    s.add_argument("--template", type=Path, help="import: scenario giving the Python side")
    s.add_argument("--ssp-version", default="1.0", choices=["1.0", "2.0"], help="export")
    s.set_defaults(func=_ssp)
    d = sub.add_parser("drift", help="joint drift of weak coupling against strong coupling")
    d.add_argument(
        "scenario",
        type=Path,
        nargs="?",
        default=Path("scenarios/cosim_weld_pair.toml"),
        help="scenario file run with weak and strong coupling",
    )
    d.add_argument(
        "--out", type=Path, default=Path("results/drift"), help="results folder and drift.md"
    )
    d.add_argument("--steps", type=float, nargs="+", help="macro steps (s), default 0.1 to 0.001")
    d.add_argument(
        "--order",
        default="jacobi",
        choices=["jacobi", "gauss_seidel"],
        help="order of the weak-coupling macro step",
    )
    d.add_argument("--fmu-dir", type=Path, help=SCENARIO_FMU_DIR_HELP)
    d.set_defaults(func=_drift)
    sw = sub.add_parser("sweep", help="run a scenario many times with varied values")
    sw.add_argument("scenario", type=Path, help="scenario file")
    sw.add_argument(
        "--runs",
        type=int,
        help="draws per combination of the grids' values (default 30; 1 when every --vary is "
        "a grid)",
    )
    sw.add_argument("--seed", type=int, default=0, help="seed of the random draws (default 0)")
    sw.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=DISTRIBUTION",
        help="a scenario value (e.g. components.rov.parameters.data.m, "
        "controllers.autopilot.gains.depth.kp, environment.current[0], or COMPONENT.VARIABLE "
        "for a start value) drawn from uniform(LOW,HIGH) (or LOW:HIGH), normal(MEAN,SIGMA), "
        "choice(A,B,...) or stepped through grid(LOW,HIGH,N); repeatable; every case is "
        "checked before any starts",
    )
    sw.add_argument(
        "--design",
        choices=("random", "lhs"),
        default="random",
        help="lhs: a Latin hypercube over the uniform and normal variations (default random)",
    )
    sw.add_argument("--out", type=Path, help="results folder (default results/<scenario>_sweep)")
    sw.add_argument("--fmu-dir", type=Path, help=SCENARIO_FMU_DIR_HELP)
    sw.add_argument(
        "--metric",
        action="append",
        metavar="COLUMN:final|max|min|maxabs",
        help="summary of each case in the table (repeatable; also 'dock_time'; "
        "default: dock_time when the scenario docks)",
    )
    sw.add_argument("--scheduler", metavar="ADDRESS", help="run the cases on this Dask cluster")
    sw.add_argument("--workers", type=int, help="cases at a time (local; default: CPU count)")
    sw.add_argument("--quiet", action="store_true", help="no progress bar")
    sw.add_argument("--stall-timeout", type=float, metavar="SECONDS", help="as for 'run'")
    sw.set_defaults(func=_sweep)
    st = sub.add_parser(
        "rendezvous-study", help="distributed vs centralized MPC on the planar model"
    )
    _rendezvous_arguments(st, "scenarios/monitoring_rendezvous.toml")
    st.add_argument("--duration", type=float, default=60.0, help="simulated time per method (s)")
    st.add_argument(
        "--tolerance", type=float, default=0.1, help="rendezvous gap counted as met (m)"
    )
    st.set_defaults(func=_study)
    ds = sub.add_parser(
        "docking-study",
        help="docking success over randomized follower starts (planar model or co-simulation): "
        "N -7..-2 m, E -3..3 m, yaw -60..60 deg",
    )
    _rendezvous_arguments(ds, "scenarios/docking_mpc.toml")
    ds.add_argument("--runs", type=int, default=100, help="number of randomized starts")
    ds.add_argument("--seed", type=int, default=1, help="seed of the random draws")
    ds.add_argument("--duration", type=float, default=60.0, help="s per case (planar model)")
    ds.add_argument(
        "--model",
        choices=("planar", "cosim"),
        default="planar",
        help="the MPC's planar model, or the co-simulation of the scenario (each case a sweep "
        "run for the scenario's stop time; few cases: each takes seconds to minutes)",
    )
    ds.add_argument(
        "--realistic",
        type=Path,
        nargs="?",
        const=Path("scenarios/docking_realistic.toml"),
        help="also run this scenario (default scenarios/docking_realistic.toml: sensors, "
        "filters, current, waves, tethers) from the same starts in co-simulation, beside "
        "SCENARIO's (the perfect-state baseline), and print both",
    )
    ds.add_argument(
        "--workers", type=int, default=1, help="co-simulation cases run at a time (default 1)"
    )
    ds.add_argument(
        "--out",
        type=Path,
        help="results of --model cosim or --realistic (default results/docking_study)",
    )
    ds.add_argument("--fmu-dir", type=Path, help=SCENARIO_FMU_DIR_HELP)
    ds.set_defaults(func=_docking_study)
    dr = sub.add_parser(
        "docking-report", help="dock time, final errors, thrust, MPC solve times of a run"
    )
    dr.add_argument("folder", type=Path, help="results folder of a docking run")
    dr.add_argument(
        "--controller", default="rendezvous", help="name of the rendezvous_mpc controller"
    )
    dr.set_defaults(func=_docking_report)
    bs = sub.add_parser("buoy-study", help="joint-actuated buoy: K_ff, sensitivities, waves")
    bs.add_argument(
        "--parts",
        nargs="+",
        default=None,
        metavar="PART",
        help="parts of the study to run (default: all; an unknown name lists them)",
    )
    bs.add_argument("--out", type=Path, default=Path("results/buoy_study"), help="results folder")
    bs.add_argument("--axial-drag", type=float, help="C_Df_z of both bodies (N.s/m3)")
    bs.add_argument("--boundary-layer", type=float, help="sliding mode h (rad/s)")
    bs.add_argument(
        "--fmu-dir",
        type=Path,
        help="FMU folder (default: as for 'murcosim run' of the study's scenarios in the "
        "project's scenarios/: their fmu_dir, else the nearest 'fmus')",
    )
    bs.set_defaults(func=_buoy_study)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point; user errors are printed as one line, exit status 2. Ctrl-C and SIGTERM end
    a command as one line too, exit status 130 and 143 (128 + the signal's number)."""
    args = parser().parse_args(argv)
    try:
        with terminate_interrupts():
            status = args.func(args)
    except MurcosimError as exc:
        print(f"murcosim: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:
        signum = signal_of(interrupt)
        by = "" if signum == signal.SIGINT else f" by {signal_name(signum)}"
        print(f"murcosim: interrupted{by}; results written so far are kept", file=sys.stderr)
        return exit_status(interrupt)
    return status or 0


def command() -> int:
    """The ``murcosim`` command: :func:`main`, then the objects left are kept out of the garbage
    collector's passes over everything at interpreter exit (which take longer than a short
    run: about 65 ms after the imports of a run; the memory goes back to the system anyway)."""
    status = main()
    gc.freeze()
    return status


if __name__ == "__main__":
    sys.exit(command())
