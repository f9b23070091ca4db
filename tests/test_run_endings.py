"""How runs end: an ``interrupted`` row with the time reached, the results folder locked while a
run writes it, and one line for a results folder that is a file."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from foreign import spring_mass_fmu

from orchestrator.cli import main
from orchestrator.errors import MurcosimError
from orchestrator.results import ResultsFolderLock, read_events, read_timeseries
from orchestrator.run import run_scenario

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
