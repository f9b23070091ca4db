"""Test FMUs for other tools' regression suites, in the FMI cross-check repository layout.

For every FMU and FMI version, and for each interface (``me``, ``cs``), a folder
``OUT/fmus/<2.0|3.0>/<me|cs>/linux64/murcosim/<version>/<Model>/`` holds the FMU,
``<Model>_in.csv`` (the inputs, held at ``start + 0.1 max(1, |start|)`` so that the model
moves), ``<Model>_ref.csv`` (states and time-varying outputs computed by the murcosim
strong-coupling master from the same FMU and exactly those inputs; elements of 2-D arrays,
``M[1,1]``, are left out: the cross-check CSV files are read by splitting at every comma, names
included), ``<Model>_ref.opt`` (start, stop, step, tolerance) and a short ``ReadMe.md``.
"""

from __future__ import annotations

import csv
import shutil
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from orchestrator.compiler import fmu_path
from orchestrator.errors import MurcosimError

TOOL = "murcosim"
PLATFORM = "linux64"
STOP_TIME = 2.0  # s
STEP = 0.01  # s, output interval of the reference and communication step of the check
REL_TOL = 1e-10  # relative tolerance of the master's integrator (RK45, absolute 1e-12)
README = """# {model}

{description}

FMI {version} {interface_name} FMU exported by murcosim {tool_version} (pymoca + CasADi model
code, murcosim's own FMI layer; Co-Simulation integrates with an embedded Dormand-Prince 5(4)
pair, tolerance and maximum step are the parameters `solver.tolerance` and
`solver.max_step`).

`{model}_ref.csv` holds the states and time-varying outputs from {start} s to {stop} s every
{step} s, computed by the murcosim strong-coupling master (RK45, relative tolerance {rtol:g},
absolute 1e-12) from this FMU. {inputs}
"""


def held_inputs(fmu: Path) -> dict[str, float]:
    """Input values of the check: each input's start value moved by 10 % (at least 0.1)."""
    from fmpy import read_model_description

    md = read_model_description(str(fmu))
    held = {}
    for variable in md.modelVariables:
        if variable.causality == "input":
            start = float(variable.start)
            held[variable.name] = start + 0.1 * max(1.0, abs(start))
    return held


def standalone_parameters(fmu: Path) -> dict[str, float]:
    """The FMU's own values of the parameters a murcosim system would set itself (an irregular
    sea's random draws, see ``orchestrator/system/ocean.py``), so that a run in murcosim is the run
    another importer makes of the FMU alone."""
    from fmpy import read_model_description

    from orchestrator.system.ocean import drawn_names

    starts = {v.name: v.start for v in read_model_description(str(fmu)).modelVariables}
    return {name: float(starts[name]) for name in drawn_names(starts)}


def _reference(fmu: Path, inputs: dict[str, float], work: Path) -> dict[str, list[float]]:
    """The master's run of ``fmu`` alone with ``inputs`` held (as its start values): columns
    by variable name (``time`` first), the inputs and the names with a comma left out. An
    input the run held at another value than the one given (and written to ``_in.csv``) is a
    MurcosimError."""
    from orchestrator.recording.tables import read_timeseries
    from orchestrator.runner.run import run_scenario

    scenario = work / "reference.toml"
    scenario.write_text(
        f"""[simulation]
stop_time = {STOP_TIME}
output_interval = {STEP}
solver = "RK45"
rtol = {REL_TOL}
atol = 1e-12

[components.m]
fmu = "{fmu.resolve().as_posix()}"
[components.m.parameters]
"""
        + "".join(f'"{n}" = {v!r}\n' for n, v in standalone_parameters(fmu).items())
        + "[components.m.start]\n"
        + "".join(f'"{name}" = {value!r}\n' for name, value in inputs.items())
    )
    run_scenario(scenario, work / "results", fmu.parent, plots=False)
    columns = read_timeseries(work / "results" / "timeseries.csv")
    reference = {name.removeprefix("m."): list(values) for name, values in columns.items()}
    for name, value in inputs.items():
        held = set(reference.pop(name))
        if held != {value}:
            raise MurcosimError(
                f"{fmu}: the reference run held input '{name}' at {sorted(held)}, not at "
                f"{value!r} as {fmu.stem}_in.csv does"
            )
    return {name: values for name, values in reference.items() if "," not in name}


def _write_csv(path: Path, columns: dict[str, list[float]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows(zip(*columns.values(), strict=True))


def export_crosscheck(
    fmu_dir: Path,
    out: Path,
    models: list[str] | None = None,
    report: Callable[[str], None] = print,
) -> list[Path]:
    """Write the cross-check folders of the FMI 2.0 and 3.0 FMUs in ``fmu_dir`` (``fmi2/`` and
    ``fmi3/``, as ``murcosim build`` lays them out) below ``out``; returns the model folders."""
    from fmpy import read_model_description

    names = models or sorted(p.stem for p in fmu_dir.glob("*.fmu"))
    if not names:
        raise MurcosimError(f"{fmu_dir}: no FMUs to export (run 'murcosim build')")
    tool_version = metadata.version("murcosim")
    written: list[Path] = []
    for name in names:
        for variant, version in (("fmi2", "2.0"), ("fmi3", "3.0")):
            fmu = fmu_path(fmu_dir, name, variant)
            if not fmu.is_file():
                raise MurcosimError(f"{fmu}: FMU not found (run 'murcosim build')")
            md = read_model_description(str(fmu))
            inputs = held_inputs(fmu)
            with tempfile.TemporaryDirectory(prefix="murcosim-crosscheck-") as tmp:
                ref = _reference(fmu, inputs, Path(tmp))
            for interface, interface_name in (("me", "Model Exchange"), ("cs", "Co-Simulation")):
                folder = out / "fmus" / version / interface / PLATFORM / TOOL / tool_version / name
                folder.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(fmu, folder / f"{name}.fmu")
                _write_csv(folder / f"{name}_ref.csv", ref)
                if inputs:
                    held = {k: [v, v] for k, v in inputs.items()}
                    _write_csv(folder / f"{name}_in.csv", {"time": [0.0, STOP_TIME], **held})
                (folder / f"{name}_ref.opt").write_text(
                    f"StartTime,0.0\nStopTime,{STOP_TIME}\nStepSize,{STEP}\nRelTol,1e-06\n"
                )
                held_text = (
                    f"`{name}_in.csv` holds the inputs constant, each at its start value moved "
                    "by 10 % of max(1, |start|)."
                    if inputs
                    else "The model has no inputs."
                )
                (folder / "ReadMe.md").write_text(
                    README.format(
                        model=name,
                        description=md.description or "",
                        version=version,
                        interface_name=interface_name,
                        tool_version=tool_version,
                        start=0.0,
                        stop=STOP_TIME,
                        step=STEP,
                        rtol=REL_TOL,
                        inputs=held_text,
                    )
                )
                written.append(folder)
            report(f"exported    {name} (FMI {version}, me + cs)")
    return written
