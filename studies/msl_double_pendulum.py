"""The MSL's ``MultiBody.Examples.Elementary.DoublePendulumInitTip`` against the same double
pendulum written here by hand, and against the MSL's reference result.

    python -m studies.msl_double_pendulum --msl MSL --references REFERENCES

``MSL`` holds an MSL 4.0.0 installation and ``REFERENCES`` the Modelica Association's
reference results of that release (as for :mod:`studies.msl_survey`); neither is part of this
repository. The example is two boxes (``BodyBox``: 0.5 m long, 0.06 m wide and high, steel
of 7700 kg/m^3) on two revolute joints about z, the first damped by 0.1 N m s/rad, gravity
9.80665 m/s^2 along -y, started at rest with the tip at (0.7, 0.3) m. Written here in the
two absolute angles (Lagrange's equations of two rigid links), integrated by SciPy's DOP853
at a relative tolerance of 1e-13, started from the joint angles of the closed-form inverse
kinematics.

The table gives each signal's largest difference over the 5 s (and at 5 s) between: the FMU
(murcosim build, CVode at 1e-10 in FMPy) and the hand-written model; the reference (Dymola's
DASSL at its tolerance of 1e-6) and the hand-written model; the FMU at the reference's
tolerance (1e-6) and the hand-written model; the hand-written model at 1e-6 and at 1e-13; and
the hand-written model started 1e-9 rad further in the first angle. The motion is chaotic
after about 3 s: the last row measures how much a difference at the start grows.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import pandas

NAME = "Modelica.Mechanics.MultiBody.Examples.Elementary.DoublePendulumInitTip"
LIBRARY = (
    "package MslDoublePendulum\n  model DoublePendulumInitTip\n"
    f"    extends {NAME};\n  end DoublePendulumInitTip;\nend MslDoublePendulum;\n"
)
LENGTH, WIDTH, DENSITY = 0.5, 0.06, 7700.0  # m, m, kg/m^3: BodyBox(r = {0.5, 0, 0})
DAMPING, GRAVITY = 0.1, 9.80665  # N m s/rad on the first joint; m/s^2 along -y
TIP = (0.7, 0.3)  # m: the tip's start position
SIGNALS = ("revolute1.phi", "revolute1.w", "revolute2.phi", "revolute2.w")


def start_angles() -> tuple[float, float]:
    """The joint angles (rad) that put the tip at TIP, the elbow as revolute2.phi's start
    value (pi/2) chooses it: the law of cosines."""
    x, y = TIP
    elbow = float(np.arccos((x * x + y * y - 2 * LENGTH**2) / (2 * LENGTH**2)))
    shoulder = np.arctan2(y, x) - np.arctan2(np.sin(elbow), 1 + np.cos(elbow))
    return float(shoulder), elbow


def hand_written(times: np.ndarray, rtol: float, shift: float = 0.0) -> dict[str, np.ndarray]:
    """The double pendulum at ``times`` in the absolute angles t1, t2 of the links: each a
    box of mass m, centre of mass at a = L/2, inertia I = m (L^2 + w^2)/12 about it."""
    from scipy.integrate import solve_ivp

    m = DENSITY * LENGTH * WIDTH * WIDTH
    a, inertia = LENGTH / 2, m * (LENGTH**2 + WIDTH**2) / 12

    def rate(_t: float, z: np.ndarray) -> list[float]:
        t1, t2, w1, w2 = z
        c, s = np.cos(t1 - t2), np.sin(t1 - t2)
        mass = [[inertia + m * a * a + m * LENGTH**2, m * LENGTH * a * c],
                [m * LENGTH * a * c, inertia + m * a * a]]  # fmt: skip
        force = [
            -DAMPING * w1 - m * LENGTH * a * s * w2 * w2 - m * GRAVITY * (a + LENGTH) * np.cos(t1),
            m * LENGTH * a * s * w1 * w1 - m * GRAVITY * a * np.cos(t2),
        ]
        return [w1, w2, *np.linalg.solve(mass, force)]

    phi1, phi2 = start_angles()
    z0 = [phi1 + shift, phi1 + shift + phi2, 0.0, 0.0]
    sol = solve_ivp(rate, (0, times[-1]), z0, method="DOP853", rtol=rtol, atol=rtol * 1e-2,
                    t_eval=times)  # fmt: skip
    t1, t2, w1, w2 = sol.y
    return dict(zip(SIGNALS, (t1, w1, t2 - t1, w2 - w1), strict=True))


def differences(msl: Path, references: Path, work: Path) -> tuple[dict, dict[str, dict]]:
    """The reference's first row and the FMU's start, and the rows of the table."""
    from fmpy import simulate_fmu

    from orchestrator.compiler import build_library

    folder = references.joinpath(*NAME.split("."))
    table = pandas.read_csv(folder / f"{folder.name}.csv").drop_duplicates("time")
    times = table["time"].to_numpy(dtype=float)
    reference = {s: table[s].to_numpy(dtype=float) for s in SIGNALS}
    library = work / "MslDoublePendulum"
    library.mkdir()
    (library / "package.mo").write_text(LIBRARY, encoding="utf-8")
    (fmu,) = build_library(
        library, work / "fmus", library_path=[msl], variants=("me",), report=lambda _: None
    )

    def run(rtol: float) -> dict[str, np.ndarray]:
        result = simulate_fmu(str(fmu), stop_time=times[-1], output_interval=times[1] - times[0],
                              relative_tolerance=rtol, output=list(SIGNALS))  # fmt: skip
        return {s: np.interp(times, result["time"], result[s]) for s in SIGNALS}

    exact = hand_written(times, 1e-13)
    fmu_result = run(1e-10)
    starts = {s: (reference[s][0], fmu_result[s][0], exact[s][0]) for s in SIGNALS}
    rows = {
        "FMU (1e-10) - hand-written": fmu_result,
        "reference (DASSL, 1e-6) - hand-written": reference,
        "FMU (1e-6) - hand-written": run(1e-6),
        "hand-written (1e-6) - hand-written": hand_written(times, 1e-6),
        "hand-written from phi1 + 1e-9 rad - hand-written": hand_written(times, 1e-13, 1e-9),
    }
    return starts, {
        label: {
            s: (np.max(np.abs(got[s] - exact[s])), abs(got[s][-1] - exact[s][-1])) for s in SIGNALS
        }  # fmt: skip
        for label, got in rows.items()
    }


def markdown(starts: dict, rows: dict[str, dict]) -> str:
    """The start values and the table of differences (largest, and at 5 s)."""
    lines = ["| start | " + " | ".join(SIGNALS) + " |", "| --- |" + " --- |" * len(SIGNALS)]
    for k, who in enumerate(("reference", "FMU", "hand-written")):
        lines.append(f"| {who} | " + " | ".join(f"{starts[s][k]:.15g}" for s in SIGNALS) + " |")
    lines += ["", "| largest (at 5 s) | " + " | ".join(SIGNALS) + " |"]
    lines.append("| --- |" + " --- |" * len(SIGNALS))
    for label, values in rows.items():
        cells = [f"{big:.2g} ({end:.2g})" for big, end in values.values()]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--msl", type=Path, required=True, help="folder holding Modelica/")
    parser.add_argument("--references", type=Path, required=True, help="reference results")
    args = parser.parse_args(argv)
    if not (args.msl / "Modelica" / "package.mo").is_file():
        raise SystemExit(f"--msl {args.msl}: expected a folder holding Modelica/package.mo")
    folder = args.references.joinpath(*NAME.split("."))
    if not (folder / f"{folder.name}.csv").is_file():
        raise SystemExit(f"--references {args.references}: expected {folder.name}.csv below it")
    with tempfile.TemporaryDirectory(prefix="msl-double-pendulum-") as work:
        print(markdown(*differences(args.msl, args.references, Path(work))))


if __name__ == "__main__":
    main()
