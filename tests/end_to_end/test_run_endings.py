"""How runs end: an ``interrupted`` row with the time reached, an FMU's request to terminate as
a normal end (a ``terminated`` row, exit status 0), the results folder locked while a run
writes it, and one line for a results folder that is a file."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from event_fmus import staircase, staircase_fmu
from foreign import spring_mass_fmu

from orchestrator.cli import main
from orchestrator.errors import MurcosimError
from orchestrator.recording.tables import ResultsFolderLock, read_events, read_timeseries
from orchestrator.runner.run import run_scenario

X0, V0 = 1.0, 0.5  # m, m/s


@pytest.fixture(scope="module")
def free_mass(tmp_path_factory) -> Path:
    """A free mass (spring-mass FMU, no spring) moving at V0 for a long time (1e4 s)."""
    folder = tmp_path_factory.mktemp("free_mass")
    fmu = spring_mass_fmu(folder, ("ModelExchange",))
    path = folder / "free_mass.toml"
    path.write_text(
        f"""
[simulation]
stop_time = 1e4
output_interval = 0.1
solver = "RK4"
step = 0.01

[components.mass]
fmu = "{fmu}"
start = {{ x = {X0}, v = {V0} }}
"""
    )
    return path


def test_interrupted_run_says_so_and_when(free_mass, tmp_path, ctrl_c):
    """Ctrl-C (SIGINT) once the run has started: events.csv ends with 'interrupted' and
    'stop' at the time reached, after the last row written; the rows are the free motion."""
    out = tmp_path / "out"
    events = out / "events.csv"

    def interrupt() -> None:
        while not (events.exists() and "start" in events.read_text()):
            time.sleep(0.05)
        time.sleep(0.5)
        signal.raise_signal(signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        run_scenario(free_mass, out, tmp_path, plots=False)
    rows = read_events(events)
    assert [r["event"] for r in rows[-2:]] == ["interrupted", "stop"]
    reached = float(rows[-1]["time"])
    assert float(rows[-2]["time"]) == reached and reached > 0
    wall = float(rows[-2]["detail"].split(" after ")[1].split(" s wall")[0])
    assert wall >= 0.5
    cols = read_timeseries(out / "timeseries.csv")
    assert 0 < cols["time"][-1] <= reached
    np.testing.assert_allclose(cols["mass.x"], X0 + V0 * cols["time"], atol=1e-9)


def test_second_run_into_a_locked_folder_is_refused(free_mass, tmp_path):
    out = tmp_path / "busy"
    with ResultsFolderLock(out), pytest.raises(MurcosimError) as refused:
        run_scenario(free_mass, out, tmp_path, plots=False)
    assert str(refused.value).startswith(f"{out}: results folder is in use by another run")
    assert not (out / "events.csv").exists()  # the running run's files are left alone


def test_lock_is_released_after_a_run(tmp_path):
    with ResultsFolderLock(tmp_path / "a"):
        pass
    with ResultsFolderLock(tmp_path / "a"):  # would raise if the first were still held
        pass


def test_results_folder_that_is_a_file_is_one_line(free_mass, tmp_path, capsys):
    out = tmp_path / "taken"
    out.write_text("not a folder")
    status = main(["run", str(free_mass), "--out", str(out), "--quiet", "--no-plots"])
    err = capsys.readouterr().err.strip()
    assert (
        status == 2
        and err == f"murcosim: error: {out}: results folder is a file, expected a folder"
    )


@pytest.mark.parametrize(
    ("budget", "said"),
    [("step_limit = 20", "step limit of 20 integrator steps"), ("wall_time_limit = 1e-6", "wall")],
)
def test_budgets_stop_a_run_with_its_results(fmu_dir, tmp_path, budget, said):
    """A step or wall-time budget ends the run with an error naming the budget's key; the
    rows recorded before it stay."""
    path = tmp_path / "budget.toml"
    path.write_text(
        f'[simulation]\nstop_time = 10.0\n{budget}\n[components.rov]\nfmu = "BlueROV2Heavy"\n'
        '[components.rov.start]\n"nu[1]" = 0.5\n'
    )
    with pytest.raises(MurcosimError, match=rf"{said}.*simulation\.(step|wall_time)_limit"):
        run_scenario(path, tmp_path / "out", fmu_dir, plots=False)
    events = read_events(tmp_path / "out" / "events.csv")
    assert [e["event"] for e in events[-2:]] == ["error", "stop"]
    assert len(read_timeseries(tmp_path / "out" / "timeseries.csv")["time"]) >= 1


@pytest.fixture(scope="module")
def staircases(tmp_path_factory) -> dict[str, Path]:
    """The staircase FMU (data/staircase.h: count += 1 at t = 1, 2, ... s, x = its integral)
    by FMI version; its parameter ``limit`` makes it ask to end the run at that count."""
    folder = tmp_path_factory.mktemp("staircase")
    return {version: staircase_fmu(folder, version) for version in ("2.0", "3.0")}


def write_staircase(path: Path, fmu: Path, simulation: str, component: str) -> Path:
    """A scenario of one staircase ``it`` to 8.5 s, rows every 0.5 s, with extra lines for
    the simulation table (or tables after it) and the component."""
    path.write_text(
        f"""[simulation]
stop_time = 8.5
output_interval = 0.5
step = 0.01
{simulation}
[components.it]
fmu = "{fmu.as_posix()}"
{component}
"""
    )
    return path


WEAK = "[cosimulation]\nmacro_step = 0.1"
UPDATE = {"2.0": "fmi2NewDiscreteStates", "3.0": "fmi3UpdateDiscreteStates"}
AFTER_STEP = {"2.0": "fmi2CompletedIntegratorStep", "3.0": "fmi3CompletedIntegratorStep"}
DO_STEP = {"2.0": "fmi2DoStep", "3.0": "fmi3DoStep"}


@pytest.mark.parametrize("version", ["2.0", "3.0"], ids=["FMI2", "FMI3"])
@pytest.mark.parametrize(
    ("simulation", "interface", "ask", "calls", "end"),
    [
        ("", "", "limit = 3", UPDATE, 3.0),
        ("", "", "limit = 0", UPDATE, 0.0),
        ('solver = "RK4"', "", "limit = 3, ask = 1", AFTER_STEP, 3.01),
        ("", "", "limit = 3, ask = 1", AFTER_STEP, 3.01),
        ("", "co_simulation", "limit = 3", DO_STEP, 3.0),
        (WEAK, "", "limit = 3", DO_STEP, 3.0),
        (WEAK, "model_exchange", "limit = 3", UPDATE, 3.0),
        (WEAK, "model_exchange", "limit = 3, ask = 1", AFTER_STEP, 3.1),
    ],
    ids=[
        "strong-update",
        "strong-initial-update",
        "strong-RK4-after-step",
        "strong-RK45-after-step",
        "strong-sampled-co-simulation",
        "weak-co-simulation",
        "weak-update",
        "weak-after-step",
    ],
)
def test_fmu_asking_to_terminate_ends_the_run_normally(
    staircases, tmp_path, version, simulation, interface, ask, calls, end
):
    """The staircase asks to end the run once its count reaches ``limit``, in the event update
    (the initial one for limit 0), the next completedIntegratorStep (at the end of that
    integrator step, 0.01 s, or macro step, 0.1 s) or its Co-Simulation step. The run ends there
    normally: the rows stop at that time with the staircase's exact values, then come a
    ``terminated`` row naming the instance and the FMI call and ``stop``, both at that time."""
    component = f"parameters = {{ {ask} }}" + (f'\ninterface = "{interface}"' if interface else "")
    path = write_staircase(tmp_path / "ask.toml", staircases[version], simulation, component)
    result = run_scenario(path, tmp_path / "out", tmp_path, plots=False)
    events = read_events(tmp_path / "out" / "events.csv")
    assert [e["event"] for e in events[-2:]] == ["terminated", "stop"]
    assert events[-2]["detail"] == f"it: terminateSimulation from {calls[version]}"
    assert [float(e["time"]) for e in events[-2:]] == pytest.approx([end, end], abs=1e-12)
    data = read_timeseries(tmp_path / "out" / "timeseries.csv")
    assert data["time"][-1] == pytest.approx(end, abs=1e-12)
    assert np.all(np.diff(data["time"]) > 0)
    count, x = staircase(data["time"])
    np.testing.assert_array_equal(data["it.count"], count)
    np.testing.assert_allclose(data["it.x"], x, atol=1e-9)
    assert result.final_state is not None


def test_terminated_run_exits_with_status_zero_and_says_why(staircases, tmp_path, capsys):
    """``murcosim run``: exit status 0, and the last line says the FMU ended the run."""
    path = write_staircase(
        tmp_path / "ask.toml", staircases["3.0"], "", "parameters = { limit = 3 }"
    )
    out = tmp_path / "out"
    status = main(["run", str(path), "--out", str(out), "--quiet", "--no-plots"])
    printed = capsys.readouterr()
    assert status == 0, printed.err
    last = printed.out.strip().splitlines()[-1]
    assert last.startswith(
        f"{path}: ended at 3 s at the FMU's request "
        "(it: terminateSimulation from fmi3UpdateDiscreteStates); 0 controller fault(s); "
    )
    assert last.endswith(f"; results in {out}")
