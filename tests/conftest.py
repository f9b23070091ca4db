"""Shared fixtures: the built FMUs, FMU instances with chosen parameters, scenario runs."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import numpy as np
import pytest

from orchestrator.compiler import build_library
from orchestrator.fmi.fmu import FMU, FMUInstance
from orchestrator.recording.tables import read_events, read_timeseries
from orchestrator.runner.run import run_scenario

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "modelica" / "MurCoSim"
FMU_DIR = ROOT / "fmus"


def skip_claim(reason: str) -> NoReturn:
    """Skip a test that backs a claim of the README (another importer, a browser), saying
    why; under CI (``CI=true``) the skip is a failure: CI must show the claim."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true, and this test of a claim cannot run: {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def claim_loads(what: str, code: str, hint: str) -> None:
    """``skip_claim`` unless ``code`` (Python) runs in an interpreter of its own (a library
    that fails to load, or loads badly, leaves nothing behind in this one): ``what`` cannot
    be loaded, with the last line of its error and ``hint`` (where it comes from)."""
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if probe.returncode:
        reason = (probe.stderr.strip().splitlines() or ["unknown error"])[-1]
        skip_claim(f"{what} cannot be loaded: {reason} ({hint})")


@pytest.fixture(scope="session")
def fmu_dir() -> Path:
    """The project's FMUs, built now if missing or out of date. The suite's worker processes
    (``pytest -n``) take turns: one builds while the others wait, then find them up to date."""
    FMU_DIR.mkdir(exist_ok=True)
    with open(FMU_DIR / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        build_library(LIBRARY, FMU_DIR, report=lambda _: None)
    return FMU_DIR


@pytest.fixture(scope="session")
def fmus(fmu_dir):
    """Loaded FMUs by name, shared by the whole session."""
    loaded: dict[str, FMU] = {}

    def get(name: str) -> FMU:
        if name not in loaded:
            loaded[name] = FMU(fmu_dir / f"{name}.fmu")
        return loaded[name]

    yield get
    for fmu in loaded.values():
        fmu.close()


@pytest.fixture
def instance(fmus):
    """Factory of initialized instances: instance("BlueROV2Heavy", {"data.m": 12})."""
    made: list[FMUInstance] = []

    def make(name: str, values: dict[str, float] | None = None) -> FMUInstance:
        inst = fmus(name).instantiate(f"{name.lower()}_{len(made)}")
        inst.set_start_values(values or {})
        inst.initialize(0.0)
        made.append(inst)
        return inst

    yield make
    for inst in made:
        inst.terminate()


def cli_error(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> str:
    """Run ``murcosim run path``; assert exit status 2 and one line; return that line."""
    from orchestrator.cli import main

    args = ["run", str(path), "--out", str(tmp_path / "out"), "--fmu-dir", str(FMU_DIR)]
    status = main([*args, "--quiet", "--no-plots"])
    err = capsys.readouterr().err.strip()
    assert status == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def scenario_error(text: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> str:
    """Write ``text`` as a scenario file and run it; its one-line error, which names the file."""
    path = tmp_path / "bad.toml"
    path.write_text(text)
    err = cli_error(path, tmp_path, capsys)
    assert err.startswith(f"murcosim: error: {path}: "), err
    return err


def set_and_derive(inst: FMUInstance, x: np.ndarray, inputs: dict[str, float]) -> np.ndarray:
    """Derivatives of ``inst`` at state ``x`` with the given input values."""
    if inputs:
        port = inst.port(list(inputs))
        port.values[:] = list(inputs.values())
        inst.write(port)
    inst.set_time(0.0)
    inst.set_continuous_states(x)
    return inst.get_derivatives().copy()


@pytest.fixture
def run(fmu_dir, tmp_path):
    """Run scenario text; returns (columns, events) of the results."""

    def go(text: str, name: str = "scenario"):
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        out = tmp_path / f"{name}_results"
        run_scenario(path, out, fmu_dir, plots=False)
        return read_timeseries(out / "timeseries.csv"), read_events(out / "events.csv")

    return go


@pytest.fixture
def ctrl_c():
    """Ctrl-C (SIGINT) delivered to this process and its children as at a terminal, also when
    the suite itself runs with SIGINT ignored (a shell without job control ignores it in
    commands started with ``&``, and children inherit that)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
