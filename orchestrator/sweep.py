"""Batches of runs of one scenario with randomized initial conditions, in parallel with dask.

``murcosim sweep SCENARIO --runs 30 --vary follower.p[1]=-5:-2 --vary follower.yaw=-30:30``
draws each varied start value uniformly (seeded), runs every case in its own process and
writes ``sweep.csv``: the drawn values, whether a ``dock`` event happened and when, and the
outcome of the run (``docked``, ``not docked``, ``error: ...``). ``yaw`` (deg) sets the
quaternion of a body heading that way, level.
"""

from __future__ import annotations

import csv
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import tomli_w

from orchestrator.errors import MurcosimError, ScenarioError
from orchestrator.kinematics import quaternion_from_euler
from orchestrator.results import read_events


@dataclass(frozen=True)
class Variation:
    """A start value drawn uniformly in [low, high]: ``component.variable``."""

    component: str
    variable: str
    low: float
    high: float

    @classmethod
    def parse(cls, text: str) -> Variation:
        match = re.fullmatch(r"([A-Za-z_]\w*)\.([^=]+)=(-?[\d.eE+-]+):(-?[\d.eE+-]+)", text.strip())
        if not match:
            raise ScenarioError(f"--vary '{text}': expected COMPONENT.VARIABLE=LOW:HIGH")
        low, high = float(match.group(3)), float(match.group(4))
        if high < low:
            raise ScenarioError(f"--vary '{text}': LOW must not exceed HIGH")
        return cls(match.group(1), match.group(2), low, high)


def _start_values(variations: list[Variation], values: np.ndarray) -> dict[str, dict[str, float]]:
    starts: dict[str, dict[str, float]] = {}
    for v, value in zip(variations, values, strict=True):
        entry = starts.setdefault(v.component, {})
        if v.variable == "yaw":
            q = quaternion_from_euler(0.0, 0.0, np.radians(value))
            entry |= {f"q[{i + 1}]": float(q[i]) for i in range(4)}
        else:
            entry[v.variable] = float(value)
    return starts


def _case_text(base: dict, starts: dict[str, dict[str, float]]) -> dict:
    data = {**base, "components": {k: dict(v) for k, v in base["components"].items()}}
    for component, values in starts.items():
        if component not in data["components"]:
            raise ScenarioError(f"--vary: unknown component '{component}'")
        data["components"][component]["start"] = {
            **data["components"][component].get("start", {}),
            **values,
        }
    return data


def _run_case(scenario: Path, data: dict, out: Path, fmu_dir: Path) -> tuple[str, float]:
    from orchestrator.run import run_scenario

    out.mkdir(parents=True, exist_ok=True)
    path = out / "case.toml"
    path.write_text(tomli_w.dumps(data))
    try:
        run_scenario(path, out, fmu_dir, plots=False)
    except MurcosimError as exc:
        return f"error: {exc}", float("nan")
    docks = [e for e in read_events(out / "events.csv") if e["event"] == "dock"]
    return ("docked", float(docks[0]["time"])) if docks else ("not docked", float("nan"))


def run_sweep(
    scenario: Path, variations: list[Variation], runs: int, seed: int, out: Path, fmu_dir: Path
) -> Path:
    """Run ``runs`` randomized cases in parallel; returns the path of ``sweep.csv``."""
    import dask
    from dask import delayed

    base = tomllib.loads(Path(scenario).read_text(encoding="utf-8"))
    rng = np.random.default_rng(seed)
    draws = rng.uniform(
        [v.low for v in variations], [v.high for v in variations], size=(runs, len(variations))
    )
    cases = [_case_text(base, _start_values(variations, row)) for row in draws]
    tasks = [
        delayed(_run_case)(scenario, data, out / f"run_{k:03d}", fmu_dir.resolve())
        for k, data in enumerate(cases)
    ]
    outcomes = dask.compute(*tasks, scheduler="processes")
    out.mkdir(parents=True, exist_ok=True)
    table = out / "sweep.csv"
    with table.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["run", *[f"{v.component}.{v.variable}" for v in variations], "outcome", "dock_time"]
        )
        for k, (row, (outcome, when)) in enumerate(zip(draws, outcomes, strict=True)):
            writer.writerow([k, *[f"{x:.4f}" for x in row], outcome, f"{when:.2f}"])
    docked = sum(o == "docked" for o, _ in outcomes)
    print(f"{docked} of {runs} runs docked ({100 * docked / runs:.0f} %); details in {table}")
    return table
