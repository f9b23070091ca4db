"""The Modelica Standard Library's own examples, built by murcosim and held to the MSL's
reference results.

    python -m studies.msl_survey --msl MSL --references REFERENCES [--package P ...]
                                 [--co-simulation]

``MSL`` is a folder holding an MSL 4.0.0 installation (``Modelica/package.mo``); ``REFERENCES``
a checkout of the Modelica Association's reference results of that release
(``modelica/MAP-LIB_ReferenceResults``, branch ``v4.0.0``: ``Modelica/<path>/<Example>/`` with
``<Example>.csv``, ``comparisonSignals.txt`` and ``creation.txt``). Neither is part of this
repository. Every example of the packages named (default: :data:`PACKAGES`) that has
reference results is built by ``murcosim build`` (rumoca front end, FMI 3.0 Model Exchange)
from a one-line model extending it, simulated by FMPy's CVode at the reference's output
interval and a relative tolerance of at most 1e-10, with up to 100 000 steps between two output
points (FMPy's own limit, 500, is FMPy's, not the model's: a tool integrates to the next output
point in as many steps as the model needs), and each comparison signal is held to
the reference in a tube of half-height 2e-3 times the reference's range (plus 1e-9) and
half-width 1e-3 of the stop time in time (pyfunnel, as ``murcosim regress``): loose enough
for two tools' different solvers and event handling, tight enough that a wrong model
leaves it. With ``--co-simulation`` each example is built as FMI 3.0 Co-Simulation (variant
``fmi3``) instead and steps itself with its embedded integrator (``solver.tolerance`` 1e-9)
from one output point to the next.

Each example runs in a process of its own with a time limit, so that one that hangs or
crashes is a row of the table, not the end of the survey. The table (markdown) gives each
example's outcome: ``agrees``, ``differs`` (the signals outside their tubes), ``build
refused`` or ``simulation failed`` with the first line of the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from signal import SIGKILL

import numpy as np
import pandas

PACKAGES = (
    "Modelica.Blocks.Examples",
    "Modelica.Mechanics.Rotational.Examples",
    "Modelica.Mechanics.Translational.Examples",
    "Modelica.Electrical.Analog.Examples",
    "Modelica.Mechanics.MultiBody.Examples.Elementary",
)
TUBE = 2e-3  # half-height of the tube, as a fraction of the reference's range
TIME_TUBE = 1e-3  # half-width of the tube, as a fraction of the stop time
# the library that names one example: a model extending it
WRAPPER = "package MslSurvey\n  model {model}\n    extends {name};\n  end {model};\nend MslSurvey;"
# CVode's relative tolerance at most: its error at the reference's own tolerance (1e-6, set
# for DASSL), and still at 1e-8, leaves the tube on a small signal (ElasticBearing's spring
# deflection rate, the difference of two rates 1e3 times larger); at 1e-10 the tube measures
# the model, not the solver
TOLERANCE = 1e-10
LIMIT = 600.0  # s: time limit of one example (build and simulation)
# CVode's steps between two output points at most. FMPy's CVode stops after 500 (its
# ``CVodeSolver`` default, which ``simulate_fmu`` does not expose), where the model needs more
# at TOLERANCE: a stiff contact (PreLoad's ElastoGaps, 1e6 N/m on 10 g) within the reference's
# 0.1 s, DifferenceAmplifier's 200 MHz source (damped at 1e7/s) within its first 0.2 ms. The
# references were made by Dymola's DASSL at their output intervals through these transients;
# an example that needs more than this budget still fails, and LIMIT bounds its time.
STEPS = 100_000


def examples(references: Path, packages: tuple[str, ...]) -> list[str]:
    """Full names of the examples below ``packages`` that have reference results."""
    found = []
    for package in packages:
        folder = references.joinpath(*package.split("."))
        for csv in sorted(folder.glob("**/*.csv")):
            if csv.stem == csv.parent.name and (csv.parent / "comparisonSignals.txt").is_file():
                found.append(".".join(csv.parent.relative_to(references).parts))
    return found


def settings(reference: Path) -> dict[str, float]:
    """Stop time, output interval and tolerance of a reference result (its creation.txt)."""
    text = (reference / "creation.txt").read_text(encoding="utf-8")
    values = {}
    for key in ("StartTime", "StopTime", "Interval", "Tolerance"):
        found = re.search(rf"^{key}=([-+0-9.eE]+)", text, re.M)
        if found is None:
            raise ValueError(f"{reference / 'creation.txt'}: no {key}")
        values[key] = float(found.group(1))
    return values


def survey_one(
    name: str, msl: Path, references: Path, work: Path, co_simulation: bool = False
) -> dict[str, object]:
    """Build, simulate and compare one example; the row of the table."""
    from fmpy import simulate_fmu

    from orchestrator.analysis.regression.compare import compare_signal
    from orchestrator.analysis.regression.suite import Tolerance

    reference = references.joinpath(*name.split("."))
    wrapper = work / "MslSurvey"
    wrapper.mkdir(parents=True)
    model = name.replace(".", "_")
    source = WRAPPER.format(model=model, name=name)
    (wrapper / "package.mo").write_text(source, encoding="utf-8")
    built = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli", "build", "--library", str(wrapper)]
        + ["--library-path", str(msl), "--model", model]
        + ["--variant", "fmi3" if co_simulation else "me"]
        + ["--out", str(work / "fmus")],
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        reason = (built.stderr.strip().splitlines() or ["no message"])[-1]
        return {"example": name, "outcome": "build refused", "detail": _short(reason, wrapper)}
    s = settings(reference)
    signals = [
        line.strip()
        for line in (reference / "comparisonSignals.txt").read_text().splitlines()
        if line.strip() and line.strip() != "time"
    ]
    table = pandas.read_csv(reference / f"{reference.name}.csv")  # names as written ("a.b")
    try:
        with _step_budget(STEPS):
            result = simulate_fmu(
                str(work / "fmus" / ("fmi3" if co_simulation else "") / f"{model}.fmu"),
                fmi_type="CoSimulation" if co_simulation else "ModelExchange",
                start_time=s["StartTime"],
                stop_time=s["StopTime"],
                output_interval=s["Interval"],
                relative_tolerance=min(s["Tolerance"], TOLERANCE),
                output=signals,
            )
    except Exception as exc:  # noqa: BLE001 - a failing simulation is a row of the table
        return {"example": name, "outcome": "simulation failed", "detail": _short(str(exc))}
    time_tube = TIME_TUBE * (s["StopTime"] - s["StartTime"])
    outside = []
    for signal in signals:
        if signal not in table.columns:
            outside.append(f"{signal}: not in the reference results")
            continue
        values = table[signal].to_numpy(dtype=float)
        atol = TUBE * float(np.ptp(values)) + 1e-9
        verdict = compare_signal(
            signal,
            (table["time"].to_numpy(dtype=float), values),
            (result["time"], result[signal]) if signal in result.dtype.names else None,
            Tolerance(atol=atol, rtol=0.0, time=time_tube),
        )
        if not verdict.passed:
            outside.append(verdict.describe())
    if outside:
        detail = f"{len(outside)} of {len(signals)} signals: {outside[0]}"
        return {"example": name, "outcome": "differs", "detail": _short(detail)}
    return {"example": name, "outcome": "agrees", "detail": f"{len(signals)} signals"}


@contextmanager
def _step_budget(steps: int) -> Iterator[None]:
    """FMPy's CVode (Model Exchange) with at most ``steps`` steps between output points
    while inside: ``simulate_fmu`` takes its solver class from ``fmpy.sundials`` when called."""
    import fmpy.sundials

    solver = fmpy.sundials.CVodeSolver
    fmpy.sundials.CVodeSolver = partial(solver, maxNumSteps=steps)
    try:
        yield
    finally:
        fmpy.sundials.CVodeSolver = solver


def _short(text: str, wrapper: Path | None = None) -> str:
    """One line of a reason, without the temporary folder's path, at most 160 characters."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    if wrapper is not None:
        line = line.replace(f"{wrapper.parent}/", "")
    line = re.sub(r"^murcosim: error: ", "", line)
    # the wrapper's file and model name the example, which its row names already
    line = re.sub(r"(MslSurvey/package\.mo: )?MslSurvey\.\w+: ", "", line)
    return line if len(line) <= 160 else line[:157] + "..."


def survey(
    msl: Path, references: Path, packages: tuple[str, ...], co_simulation: bool = False
) -> list[dict[str, object]]:
    """One row per example, each from a process of its own with :data:`LIMIT`."""
    rows = []
    for name in examples(references, packages):
        command = [sys.executable, "-m", "studies.msl_survey", "--one", name]
        command += ["--msl", str(msl), "--references", str(references)]
        command += ["--co-simulation"] if co_simulation else []
        # a session of its own, so that a time limit ends the build and the compiler it
        # runs too, not only the example's process (they went on for half an hour)
        child = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            stdout, stderr = child.communicate(timeout=LIMIT)
            lines = stdout.strip().splitlines()
            row = json.loads(lines[-1]) if child.returncode == 0 and lines else None
            if row is None:
                reason = (stderr.strip().splitlines() or ["no message"])[-1]
                row = {"example": name, "outcome": "crashed", "detail": _short(reason)}
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, SIGKILL)
            child.communicate()
            row = {"example": name, "outcome": "timed out", "detail": f"after {LIMIT:g} s"}
        print(f"{row['outcome']:18} {name}", file=sys.stderr, flush=True)
        rows.append(row)
    return rows


OUTCOMES = ("agrees", "build refused", "simulation failed", "differs", "crashed", "timed out")


def summary(rows: list[dict[str, object]], packages: tuple[str, ...]) -> str:
    """A line per package: its examples and how many had each outcome."""
    lines = [
        "| package | examples | " + " | ".join(OUTCOMES) + " |",
        "| --- | --- | " + " | ".join("---" for _ in OUTCOMES) + " |",
    ]
    for package in packages:
        mine = [r for r in rows if str(r["example"]).startswith(package + ".")]
        counts = [sum(r["outcome"] == outcome for r in mine) for outcome in OUTCOMES]
        lines.append(f"| `{package}` | {len(mine)} | " + " | ".join(map(str, counts)) + " |")
    return "\n".join(lines) + "\n"


def markdown(rows: list[dict[str, object]]) -> str:
    """The table of examples, and the count of each outcome."""
    lines = ["| example | outcome | detail |", "| --- | --- | --- |"]
    lines += [f"| `{r['example']}` | {r['outcome']} | {r['detail']} |" for r in rows]
    counts: dict[str, int] = {}
    for r in rows:
        counts[str(r["outcome"])] = counts.get(str(r["outcome"]), 0) + 1
    summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
    return "\n".join(lines) + f"\n\n{len(rows)} examples: {summary}\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--msl", type=Path, required=True, help="folder holding Modelica/")
    parser.add_argument("--references", type=Path, required=True, help="reference results")
    parser.add_argument("--package", action="append", help="example package (repeatable)")
    parser.add_argument(
        "--co-simulation", action="store_true", help="FMI 3.0 Co-Simulation, the FMU's integrator"
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)  # one example, in a child process
    args = parser.parse_args(argv)
    if not (args.msl / "Modelica" / "package.mo").is_file():
        raise SystemExit(f"--msl {args.msl}: expected a folder holding Modelica/package.mo")
    if not (args.references / "Modelica").is_dir():
        raise SystemExit(f"--references {args.references}: expected a folder holding Modelica/")
    if args.one:
        with tempfile.TemporaryDirectory(prefix="msl-survey-") as work:
            row = survey_one(args.one, args.msl, args.references, Path(work), args.co_simulation)
            print(json.dumps(row))
        return
    packages = tuple(args.package or PACKAGES)
    rows = survey(args.msl, args.references, packages, args.co_simulation)
    print(summary(rows, packages) + "\n" + markdown(rows))


if __name__ == "__main__":
    main()
