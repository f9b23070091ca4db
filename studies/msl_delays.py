"""The Modelica Standard Library's classes that use ``delay``, built by murcosim and held to
their analytic responses.

    python -m studies.msl_delays --msl MSL

``MSL`` is a folder holding an MSL 4.0.0 installation (``Modelica/package.mo``), not part of
this repository. No example of MSL 4.0.0 with reference results uses ``delay``; the classes
that do are ``Blocks.Nonlinear.FixedDelay``, ``Blocks.Nonlinear.VariableDelay`` and the
lossless lines ``Electrical.Analog.Lines.TLine1`` to ``TLine3``. Three models written here
use them:

- a sine of 1 Hz through ``FixedDelay`` (0.2 s): ``sin(2 pi (t - 0.2))``, 0 (the input at
  the start) before 0.2 s;
- the same sine through ``VariableDelay`` with the delay time ``0.3 + 0.1 sin(pi t)``;
- a 1 V step at 0.1 s from a 50 Ohm source through ``TLine1`` (Z0 = 50 Ohm, TD = 0.3 s) into
  a matched 50 Ohm load, whose voltage is half the step 0.3 s later (no reflection). The
  line's four delays read each other's histories (``es = 2 delay(v2) - delay(er)``).

Each is built in all four variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation) and
run by FMPy with a communication step of 1 ms, where the delays' histories take their points,
and a relative tolerance of 1e-10; the table gives the largest difference from the analytic
response at 81 points over 2 s (the line's switching time, 0.4 s, left out). Linear
interpolation between points h = 1 ms apart is off by at most h^2/8 max|u''|: 4.9e-6 for the
1 Hz sine.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

LIBRARY = """package MslDelays "MSL 4's classes that use delay()"
  model FixedDelaySine
    Modelica.Blocks.Sources.Sine sine(f = 1);
    Modelica.Blocks.Nonlinear.FixedDelay fixedDelay(delayTime = 0.2);
  equation
    connect(sine.y, fixedDelay.u);
  end FixedDelaySine;
  model VariableDelaySine
    Modelica.Blocks.Sources.Sine sine(f = 1);
    Modelica.Blocks.Sources.Sine delayTime(f = 0.5, amplitude = 0.1, offset = 0.3);
    Modelica.Blocks.Nonlinear.VariableDelay variableDelay(delayMax = 0.5);
  equation
    connect(sine.y, variableDelay.u);
    connect(delayTime.y, variableDelay.delayTime);
  end VariableDelaySine;
  model MatchedLine
    Modelica.Electrical.Analog.Sources.StepVoltage source(V = 1, startTime = 0.1);
    Modelica.Electrical.Analog.Basic.Resistor sourceResistance(R = 50);
    Modelica.Electrical.Analog.Lines.TLine1 line(Z0 = 50, TD = 0.3);
    Modelica.Electrical.Analog.Basic.Resistor load(R = 50);
    Modelica.Electrical.Analog.Basic.Ground ground;
  equation
    connect(source.p, sourceResistance.p);
    connect(sourceResistance.n, line.p1);
    connect(line.p2, load.p);
    connect(load.n, ground.p);
    connect(line.n1, ground.p);
    connect(line.n2, ground.p);
    connect(source.n, ground.p);
  end MatchedLine;
end MslDelays;
"""
TIMES = np.linspace(0.0, 2.0, 81)
STEP = 1e-3  # s, communication step
VARIANTS = (("me", "ModelExchange"), ("fmi3", "CoSimulation"))
VARIANTS += (("fmi2", "ModelExchange"), ("fmi2", "CoSimulation"))


def _late_sine(late: np.ndarray) -> np.ndarray:
    """sin(2 pi late) where late >= 0, else the sine at the start, 0."""
    return np.where(late >= 0.0, np.sin(2 * np.pi * late), 0.0)


EVERY = np.full(TIMES.shape, True)
# model: (signal, its analytic response at TIMES, the points compared)
CASES = {
    "FixedDelaySine": ("fixedDelay.y", _late_sine(TIMES - 0.2), EVERY),
    "VariableDelaySine": (
        "variableDelay.y",
        _late_sine(TIMES - (0.3 + 0.1 * np.sin(np.pi * TIMES))),
        EVERY,
    ),
    "MatchedLine": ("load.v", np.where(TIMES > 0.4, 0.5, 0.0), np.abs(TIMES - 0.4) > 1e-9),
}


def largest_errors(msl: Path, work: Path) -> dict[str, list[float]]:
    """Each model's largest difference from its response, one per variant (VARIANTS)."""
    from fmpy import simulate_fmu

    from orchestrator.compiler import build_library

    library = work / "MslDelays"
    library.mkdir()
    (library / "package.mo").write_text(LIBRARY, encoding="utf-8")
    out = work / "fmus"
    build_library(library, out, library_path=[msl], report=lambda _: None)
    errors: dict[str, list[float]] = {}
    for model, (signal, response, compared) in CASES.items():
        for variant, interface in VARIANTS:
            path = out / f"{model}.fmu" if variant == "me" else out / variant / f"{model}.fmu"
            result = simulate_fmu(
                str(path),
                fmi_type=interface,
                stop_time=TIMES[-1],
                output_interval=STEP,
                relative_tolerance=1e-10,
                output=[signal],
            )
            got = np.interp(TIMES, result["time"], result[signal])
            error = float(np.max(np.abs(got - response)[compared]))
            errors.setdefault(model, []).append(error)
    return errors


def markdown(errors: dict[str, list[float]]) -> str:
    """The table of largest differences, a row per model, a column per variant."""
    names = [f"{'fmi3' if v == 'me' else v} {i}" for v, i in VARIANTS]
    lines = ["| model | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for model, values in errors.items():
        lines.append(f"| `{model}` | " + " | ".join(f"{e:.1e}" for e in values) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--msl", type=Path, required=True, help="folder holding Modelica/")
    args = parser.parse_args(argv)
    if not (args.msl / "Modelica" / "package.mo").is_file():
        raise SystemExit(f"--msl {args.msl}: expected a folder holding Modelica/package.mo")
    with tempfile.TemporaryDirectory(prefix="msl-delays-") as work:
        print(markdown(largest_errors(args.msl, Path(work))))


if __name__ == "__main__":
    main()
