"""Do an FMU's variants agree? FMI 2.0 and 3.0, Model Exchange and Co-Simulation, and FMPy.

For every model of a build folder (``<Model>.fmu``, ``fmi3/<Model>.fmu``, ``fmi2/<Model>.fmu``, as
``murcosim build`` lays them out), the reference is the strong-coupling master's run of the FMI 3.0
Model Exchange FMU alone (the FMU's own parameter values, see ``standalone_parameters``) with the
inputs of the cross-check export (each held at its start value moved by 10 %), 2 s, RK45 at
relative tolerance 1e-10. Compared with it, by the tubes of ``murcosim regress``:

- the Model Exchange interfaces of the FMI 2.0 and 3.0 FMUs in the same master: the same model
  code and integrator, so they agree to round-off (``ME`` tube, 1e-9; MurCoSim's 18 models
  agree bit for bit);
- their Co-Simulation interfaces in the master (stepped every 10 ms) and in FMPy
  (``fmpy.simulate_fmu``, as another importer replays the cross-check export): the FMUs'
  embedded Dormand-Prince integrator at its default tolerance (``solver.tolerance``, 1e-9 per
  step, at most 10 ms steps) accumulates up to 5.7e-6 (times 1 + |y|) over the 200 steps
  of MurCoSim's models, hence the ``CS`` tube, 1e-5 absolute and relative.
"""

from __future__ import annotations

import time as clock
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from fmpy import read_model_description

from orchestrator.analysis.crosscheck import STEP, STOP_TIME, held_inputs, standalone_parameters
from orchestrator.analysis.regression import (
    ERROR,
    FAILED,
    PASSED,
    CaseResult,
    SuiteResult,
    case_line,
)
from orchestrator.analysis.regression.cases import ALONE, CaseRun, alone_scenario
from orchestrator.analysis.regression.compare import compare_columns
from orchestrator.analysis.regression.suite import Tolerance
from orchestrator.compiler import fmu_path
from orchestrator.errors import MurcosimError
from orchestrator.runner.run import simulate

ME = Tolerance(atol=1e-9, rtol=1e-9)
CS = Tolerance(atol=1e-5, rtol=1e-5)
REFERENCE_SOLVER = {"solver": "RK45", "rtol": 1e-10, "atol": 1e-12}


def check_variants(
    fmu_dir: Path, models: list[str] | None = None, report: Callable[[str], None] = print
) -> SuiteResult:
    """Each model's variants against its reference run, as cases ``<Model>/<variant>``."""
    fmu_dir = Path(fmu_dir)
    names = models or sorted(p.stem for p in fmu_dir.glob("*.fmu"))
    if not names:
        raise MurcosimError(f"{fmu_dir}: no FMUs to check (run 'murcosim build')")
    cases = []
    for name in names:
        main = fmu_dir / f"{name}.fmu"
        if not main.is_file():
            raise MurcosimError(f"{main}: FMU not found (run 'murcosim build')")
        inputs = held_inputs(main)
        reference = _master(main, inputs, None)
        outputs = [
            v.name for v in read_model_description(str(main)).modelVariables
            if v.causality == "output"
        ]  # fmt: skip
        for variant, version in (("fmi2", "2.0"), ("fmi3", "3.0")):
            fmu = fmu_path(fmu_dir, name, variant)
            runs: dict[str, Callable[[], CaseRun]] = {
                f"FMI {version} ME": partial(_master, fmu, inputs, "model_exchange"),
                f"FMI {version} CS": partial(_master, fmu, inputs, "co_simulation"),
                f"FMI {version} CS in FMPy": partial(_fmpy, fmu, inputs, reference),
            }
            for label, run in runs.items():
                tube = ME if label.endswith("ME") else CS
                # A Co-Simulation unit in the master shows its outputs, not its states.
                shown = outputs if label.endswith("CS") else list(reference.columns)
                result = _case(f"{name}/{label}", fmu, (reference, shown), run, tube)
                report(case_line(result))
                cases.append(result)
    return SuiteResult(fmu_dir, cases)


def _case(
    name: str,
    fmu: Path,
    expected: tuple[CaseRun, list[str]],
    run: Callable[[], CaseRun],
    tube: Tolerance,
) -> CaseResult:
    """``run`` against the reference run in ``expected``, on the signals it names: every
    signal of the reference the run has, and those named must be there."""
    reference, shown = expected
    started = clock.perf_counter()
    try:
        test = run()
    except MurcosimError as exc:
        return CaseResult(name, str(fmu), ERROR, messages=[str(exc)])
    common = {n: v for n, v in reference.columns.items() if n in test.columns or n in shown}
    signals = compare_columns((reference.time, common), (test.time, test.columns), lambda _: tube)
    result = CaseResult(name, str(fmu), PASSED, signals, units=reference.units)
    result.messages = [s.describe() for s in result.failed_signals]

    result.status = FAILED if result.messages else PASSED
    result.seconds = clock.perf_counter() - started
    return result


def _master(fmu: Path, inputs: dict[str, float], interface: str | None) -> CaseRun:
    """The strong-coupling master's run of ``fmu`` alone: states and time-varying outputs."""
    simulation = {"stop_time": STOP_TIME, "output_interval": STEP, "step": STEP}
    parameters = standalone_parameters(fmu)
    scenario = alone_scenario(
        fmu.resolve(),
        {**simulation, **REFERENCE_SOLVER},
        parameters,
        dict(inputs),
        interface=interface,
    )
    result = simulate(scenario, str(fmu), None, fmu.parent)
    rows = np.array(result.table.rows, dtype=float)
    prefix = f"{ALONE}."
    columns = {
        n.removeprefix(prefix): rows[:, k]
        for k, n in enumerate(result.columns)
        if n.removeprefix(prefix) not in inputs
    }
    units = {n.removeprefix(prefix): u for n, u in result.units.items()}
    return CaseRun(np.array(result.table.times), columns, units, [])


def _fmpy(fmu: Path, inputs: dict[str, float], reference: CaseRun) -> CaseRun:
    """FMPy's Co-Simulation run of ``fmu`` with the held inputs, recording the reference's
    signals."""
    import fmpy

    try:
        table = fmpy.simulate_fmu(
            str(fmu),
            stop_time=STOP_TIME,
            output_interval=STEP,
            fmi_type="CoSimulation",
            start_values=dict(inputs),
            output=list(reference.columns),
        )
    except Exception as exc:  # noqa: BLE001 - FMPy raises anything a failing FMU gives it
        raise MurcosimError(f"{fmu}: FMPy's Co-Simulation run failed ({exc})") from None
    columns = {n: np.asarray(table[n], dtype=float) for n in reference.columns}
    return CaseRun(np.asarray(table["time"], dtype=float), columns, reference.units, [])
