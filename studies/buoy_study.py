"""Studies of the joint-actuated buoy (Cortesi 2012, Ch. 5) behind ``murcosim buoy-study``.

Each study runs variants of the buoy scenario files (``scenarios/buoy_*.toml``) and reduces the
composite pointing error (the controller's ``<name>.error`` output) to a few numbers: RMS and
largest error over time windows and the settling time below 5 deg. The results go into one
markdown file. Parts: the feed-forward gain calibration (Cortesi 2012, Sec. 4.5), the payload
vertical angle, initial conditions, control rate, latency and joint acceleration limit (Secs.
5.3, 5.4, 5.7, 5.8, 5.9),
regular waves (Sec. 5.12), irregular seas (Sec. 5.13) and the sea statistics.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import tomli_w
from scipy.optimize import brentq

from orchestrator.controllers.pointing import payload_angles
from orchestrator.fmi.fmu import FMU
from orchestrator.fmi.folder import scenario_fmu_folder
from orchestrator.kinematics import euler_angles, quaternion_from_euler, rotation_matrix
from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario
from orchestrator.system.ocean import seeded_parameters

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
THRESHOLD = 5.0  # deg: Cortesi's (2012) preferred composite pointing error
PARTS = (
    "kff",
    "vertical",
    "initial",
    "rate",
    "rate_latency",
    "latency",
    "acceleration",
    "regular",
    "irregular",
    "sea",
)


@dataclass(frozen=True)
class Row:
    """One run of a study: its label and the pointing numbers (deg, s)."""

    label: str
    values: dict[str, float | None]


Study = Callable[[Path, Path, dict[str, object]], list[Row]]  # (out, fmu_dir, model changes)


def load(name: str) -> dict:
    """A scenario file of ``scenarios/`` as a dictionary."""
    return tomllib.loads((SCENARIOS / name).read_text(encoding="utf-8"))


def variant(document: dict, changes: dict[str, object]) -> dict:
    """A copy of a scenario dictionary with dotted keys set (``controllers.pointing.latency``)."""
    result = copy.deepcopy(document)
    for dotted, value in changes.items():
        *path, last = dotted.split(".")
        node = result
        for key in path:
            node = node.setdefault(key, {})
        node[last] = value
    return result


def run(document: dict, name: str, out: Path, fmu_dir: Path) -> dict[str, np.ndarray]:
    """Run a scenario dictionary (written to ``out/<name>.toml``); its time series."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.toml"
    path.write_text(tomli_w.dumps(document), encoding="utf-8")
    run_scenario(path, out / name, fmu_dir, plots=False)
    return read_timeseries(out / name / "timeseries.csv")


def window(time: np.ndarray, error: np.ndarray, start: float, stop: float) -> tuple[float, float]:
    """RMS and largest composite pointing error (deg) over [start, stop) s; ``error`` in rad."""
    inside = (time >= start) & (time < stop)
    degrees = np.degrees(error[inside])
    return float(np.sqrt(np.mean(degrees**2))), float(degrees.max())


def settling_time(time: np.ndarray, error: np.ndarray, since: float, until: float) -> float | None:
    """Time after ``since`` (s) from which the error stays below 5 deg up to ``until``; None if
    it is above 5 deg at the end of the window."""
    inside = (time >= since) & (time < until)
    above = np.flatnonzero(np.degrees(error[inside]) >= THRESHOLD)
    if not len(above):
        return 0.0
    if above[-1] == np.count_nonzero(inside) - 1:
        return None
    return float(time[inside][above[-1] + 1] - since)


def pointing_row(label: str, columns: dict[str, np.ndarray], change: float, stop: float) -> Row:
    """Settling times after the start and after the aim change, error after the change."""
    t, e = columns["time"], columns["pointing.error"]
    rms, largest = window(t, e, change + 5.0, stop + 1e-9)
    return Row(
        label,
        {
            "settling 1 (s)": settling_time(t, e, 0.0, change),
            "settling 2 (s)": settling_time(t, e, change, stop + 1e-9),
            "RMS from +5 s (deg)": rms,
            "max from +5 s (deg)": largest,
        },
    )


# -- calm water ----------------------------------------------------------------------------


def calm(vertical: float = 25.0, changes: dict[str, object] | None = None) -> dict:
    """The calm-water scenario pointed ``vertical`` deg from the zenith (azimuth 0, then 90 deg at
    10 s), with further changes."""
    document = variant(load("buoy_calm.toml"), {"controllers.pointing.vertical": vertical})
    return variant(document, changes or {})


INITIAL_CONDITIONS = {
    1: (45.0, 85.0),
    2: (85.0, 20.0),
    3: (-30.0, 45.0),
    4: (0.0, 0.0),
    5: (-45.0, -45.0),
}
"""Cortesi 2012, Table 5.2: initial housing pitch and roll (deg), yaw 0, joint straight, housing
origin 2.5 cm under the surface."""


def initial_condition_study(out: Path, fmu_dir: Path, model: dict[str, object]) -> list[Row]:
    """Cortesi 2012, Sec. 5.8 (Fig. 5.14): released from each initial condition, pointed 35 deg from
    the zenith at azimuth 0, then 90 deg at 10 s; with the housing's yaw at the change and at
    the end (deg), which decides how much joint bend the aim needs."""
    rows = []
    for number, (pitch, roll) in INITIAL_CONDITIONS.items():
        q = quaternion_from_euler(np.radians(roll), np.radians(pitch), 0.0)
        start = {"p[3]": 0.025} | {f"q[{i + 1}]": float(q[i]) for i in range(4)}
        document = calm(35.0, {**model, "components.housing.start": start})
        columns = run(document, f"initial_{number}", out, fmu_dir)
        row = pointing_row(f"IC {number} (pitch {pitch:g}, roll {roll:g})", columns, 10.0, 30.0)
        quaternions = np.stack([columns[f"housing.q[{i}]"] for i in range(1, 5)], -1)
        yaw = np.degrees(euler_angles(quaternions)[:, 2])
        change = np.searchsorted(columns["time"], 10.0)
        row.values.update({"yaw at 10 s (deg)": yaw[change], "yaw at end (deg)": yaw[-1]})
        rows.append(row)
    return rows


def sweep(
    label: str, values: list[float], changes: Callable[[float], dict[str, object]], vertical: float
) -> Study:
    """A study over ``values`` of one setting (``label``, with its unit), each run of the calm
    scenario."""

    def study(out: Path, fmu_dir: Path, model: dict[str, object]) -> list[Row]:
        rows = []
        for value in values:
            name = f"run_{value:g}".replace(".", "p")
            columns = run(calm(vertical, {**model, **changes(value)}), name, out, fmu_dir)
            rows.append(pointing_row(f"{label} {value:g}", columns, 10.0, 30.0))
        return rows

    return study


def period_sweep(latency: float) -> Study:
    """The control-period study (20-300 ms) of the calm scenario at 25 deg, with ``latency`` s."""
    return sweep(
        "period (s)",
        [0.02, 0.04, 0.08, 0.1, 0.2, 0.25, 0.3],
        lambda T: {"controllers.pointing.sample_time": T, "controllers.pointing.latency": latency},
        25.0,
    )


def static_roll(joint_angle: float, out: Path, fmu_dir: Path) -> float:
    """Payload roll (deg) at rest with joint axis 1 held at ``joint_angle`` (deg), axis 2 at 0,
    the stops lifted: the mean over the last 20 s of 60 s."""
    document = variant(
        calm(),
        {
            "simulation.stop_time": 60.0,
            "simulation.output_interval": 0.1,
            "components.servo.parameters": {"stop": np.pi / 2, "rate_max": 1.0},
            "controllers": {
                "hold": {
                    "type": "schedule",
                    "sample_time": 1.0,
                    "steps": [
                        {"time": 0.0, "values": {"servo.theta_cmd[1]": np.radians(joint_angle)}}
                    ],
                }
            },
        },
    )
    columns = run(document, f"static_{joint_angle:.3f}".replace(".", "p"), out, fmu_dir)
    late = columns["time"] >= 40.0
    quaternions = np.column_stack([columns[f"payload.q[{i}]"][late] for i in range(1, 5)])
    return float(np.mean([np.degrees(payload_angles(rotation_matrix(q))[0]) for q in quaternions]))


def calibrate_kff(out: Path, fmu_dir: Path, reference: float = 35.0) -> float:
    """Cortesi's (2012) K_ff procedure (Sec. 4.5): all gains zero, r_x = 35 deg, r_y = 0, so the
    joint holds K_ff r_x; K_ff such that the payload rests at r_x (root by Brent's method)."""
    return brentq(
        lambda k: static_roll(k * reference, out, fmu_dir) - reference, 1.4, 1.8, xtol=2e-3
    )


# -- waves ---------------------------------------------------------------------------------


def regular(amplitude: float, period: float) -> dict:
    """The regular-wave scenario with another amplitude (m) and period (s) on both bodies."""
    changes: dict[str, object] = {}
    for sea in ("sea_housing", "sea_payload"):
        changes[f"components.{sea}.parameters.amplitude"] = amplitude
        changes[f"components.{sea}.parameters.period"] = period
    return variant(load("buoy_regular_waves.toml"), changes)


def wave_row(label: str, columns: dict[str, np.ndarray], change: float, stop: float) -> Row:
    """Pointing while vertical (the 7 s before the change) and at 20 deg (from 5 s after it),
    and the heave of the housing relative to the mean level."""
    t, e = columns["time"], columns["pointing.error"]
    vertical = window(t, e, change - 7.0, change)
    pointed = window(t, e, change + 5.0, stop + 1e-9)
    heave = columns["housing.p[3]"][t >= 5.0]
    return Row(
        label,
        {
            "RMS vertical (deg)": vertical[0],
            "max vertical (deg)": vertical[1],
            "RMS at 20 deg (deg)": pointed[0],
            "max at 20 deg (deg)": pointed[1],
            "heave range (m)": float(heave.max() - heave.min()),
        },
    )


def regular_study(out: Path, fmu_dir: Path, model: dict[str, object]) -> list[Row]:
    """Cortesi's (2012) regular seas trials 2 and 3 and the prototype's own heave period."""
    slope = 0.045 * 9.8 / (8 * np.pi)  # A = M g T^2/(8 pi), Cortesi 2012, eq. 5.3
    cases = [(0.05, 2.0), (0.075, 2.0), (0.05, 1.45)]
    cases += [(round(slope * T * T, 4), T) for T in (1.0, 1.7, 2.3)]
    rows = []
    for amplitude, period in cases:
        name = f"regular_{amplitude:g}_{period:g}".replace(".", "p")
        columns = run(variant(regular(amplitude, period), model), name, out, fmu_dir)
        rows.append(wave_row(f"A {amplitude:g} m, T {period:g} s", columns, 15.0, 30.0))
    return rows


def irregular_study(out: Path, fmu_dir: Path, model: dict[str, object]) -> list[Row]:
    """Cortesi's (2012) irregular seas trial 2: the same sea with components up to 6 rad/s (c1) and
    up to 1 rad/s (c2)."""
    rows = []
    for cutoff in (6.0, 1.0):
        changes = {
            f"components.{sea}.parameters.omega_cutoff": cutoff
            for sea in ("sea_housing", "sea_payload")
        }
        document = variant(load("buoy_irregular_sea.toml"), {**model, **changes})
        columns = run(document, f"irregular_{cutoff:g}".replace(".", "p"), out, fmu_dir)
        rows.append(wave_row(f"H_s 2 m, up to {cutoff:g} rad/s", columns, 45.0, 90.0))
    return rows


def sea_statistics(fmu_dir: Path, heights: tuple[float, ...] = (2.0, 3.0, 5.0)) -> list[Row]:
    """4 std(zeta) and the zero-up-crossing H_1/3 of one hour of each sea (0.006-6 rad/s,
    seed 1) at a fixed point, against the spectrum's H_s."""
    fmu = FMU(fmu_dir / "IrregularSea.fmu")
    rows = []
    try:
        for height in heights:
            instance = fmu.instantiate(f"sea_{height:g}")
            parameters = {"H_s": height}
            instance.set_start_values({**seeded_parameters(fmu, parameters), **parameters})
            instance.initialize(0.0)
            port = instance.port(["zeta"])
            zeta = []
            for t in np.arange(0.0, 3600.0, 0.25):
                instance.set_time(t)
                zeta.append(instance.read(port)[0])
            instance.terminate()
            zeta = np.array(zeta)
            up = np.flatnonzero((zeta[:-1] < 0) & (zeta[1:] >= 0))
            waves = [
                zeta[a:b].max() - zeta[a:b].min() for a, b in zip(up[:-1], up[1:], strict=True)
            ]
            third = np.sort(waves)[-len(waves) // 3 :].mean()
            rows.append(
                Row(
                    f"H_s {height:g} m",
                    {"4 std (m)": 4 * zeta.std(), "H_1/3 (m)": float(third), "waves": len(waves)},
                )
            )
    finally:
        fmu.close()
    return rows


# -- the command ---------------------------------------------------------------------------


def markdown(title: str, rows: list[Row]) -> str:
    """A markdown table of ``rows`` under a heading."""
    columns = list(rows[0].values)
    lines = [f"### {title}", "", "| case | " + " | ".join(columns) + " |"]
    lines.append("| --- " * (len(columns) + 1) + "|")
    for row in rows:
        cells = ["never" if v is None else f"{v:.3g}" for v in row.values.values()]
        lines.append(f"| {row.label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


STUDIES: dict[str, tuple[str, Study]] = {
    "vertical": (
        "Payload vertical angle (12.5 Hz, 80 ms latency; azimuth 0 then 90 deg at 10 s)",
        lambda out, fmu_dir, model: [
            pointing_row(
                f"vertical {v:g} deg",
                run(calm(v, model), f"vertical_{v:g}", out, fmu_dir),
                10.0,
                30.0,
            )
            for v in (20.0, 25.0, 30.0, 35.0)
        ],
    ),
    "initial": (
        "Initial conditions (Table 5.2) at 35 deg from the zenith, azimuth 0 then 90 deg at 10 s",
        initial_condition_study,
    ),
    "rate": (
        "Control period, no latency (Cortesi 2012, Sec. 5.3; 25 deg from the zenith)",
        period_sweep(latency=0.0),
    ),
    "rate_latency": (
        "Control period with 80 ms latency (25 deg from the zenith)",
        period_sweep(latency=0.08),
    ),
    "latency": (
        "Latency at a 40 ms control period (25 deg from the zenith)",
        sweep(
            "latency (s)",
            [0.0, 0.04, 0.08, 0.12, 0.16, 0.2, 0.24],
            lambda d: {"controllers.pointing.sample_time": 0.04, "controllers.pointing.latency": d},
            25.0,
        ),
    ),
    "acceleration": (
        "Joint acceleration limit, 12.5 Hz and 80 ms latency (25 deg from the zenith)",
        sweep(
            "limit (deg/s2)",
            [100.0, 200.0, 250.0, 300.0, 400.0, 500.0, 1000.0],
            lambda a: {"components.servo.parameters": {"acceleration_max": np.radians(a)}},
            25.0,
        ),
    ),
    "regular": (
        "Regular waves (initial condition 1; vertical, then 20 deg at 15 s)",
        regular_study,
    ),
    "irregular": ("Irregular seas (vertical, then 20 deg at 45 s)", irregular_study),
}


def model_changes(axial_drag: float | None, boundary_layer: float | None) -> dict[str, object]:
    """Scenario changes of a model variant: both bodies' axial drag scaling C_Df_z (N.s/m3) and
    the sliding mode's boundary layer h (rad/s); None keeps the scenario files' values."""
    changes: dict[str, object] = {}
    if axial_drag is not None:
        for body in ("housing", "payload"):
            changes[f"components.{body}.parameters"] = {"data.C_Df_z": axial_drag}
    if boundary_layer is not None:
        changes["controllers.pointing.sliding_mode.h"] = boundary_layer
    return changes


def run_studies(
    parts: list[str],
    out: Path,
    fmu_dir: Path | None,
    model: dict[str, object] | None = None,
    report: Callable[[str], None] = print,
) -> Path:
    """Run the chosen parts with the ``model`` changes (see :func:`model_changes`); the tables
    go to ``out/buoy_study.md`` (returned) and ``report``. The FMUs are found as ``murcosim
    run`` finds them for the study's scenario files (``fmu_dir``, if not None, else theirs)."""
    fmu_dir = scenario_fmu_folder(SCENARIOS / "buoy_calm.toml", fmu_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    sections = [f"Model changes: {model}\n" if model else "Model as in the scenario files\n"]
    for part in parts:
        if part == "kff":
            k = calibrate_kff(out / "kff", fmu_dir)
            text = f"### Feed-forward gain\n\nK_ff = {k:.3f} (Cortesi 2012, Table 4.2: 1.60)\n"
        elif part == "sea":
            text = markdown("Irregular sea, one hour at a fixed point", sea_statistics(fmu_dir))
        else:
            title, study = STUDIES[part]
            text = markdown(title, study(out / part, fmu_dir, model or {}))
        report(text)
        sections.append(text)
    path = out / "buoy_study.md"
    path.write_text("\n".join(sections), encoding="utf-8")
    return path
