"""A run killed outright (SIGKILL of its whole process group: a CI job's timeout, the OOM
killer, ``kill -9``) writes nothing more, not even its end. Its results folder still loads:
the rows written so far, each exact, marked incomplete (``Results.complete`` False); a row cut
off mid-write is left out; the Parquet file, whose footer is written only at its close, is
passed over for the CSV file beside it. A new run into the folder does not mix with it: it is
refused, or with ``--overwrite`` starts from an empty folder.

The FMU is the free mass of ``test_faults`` (x(t) = x0 + v0 t, RK4 10 ms steps, rows every
0.1 s) made to hang in C on its 101st derivative call (t = 0.25 s): the rows at 0, 0.1 and
0.2 s are on disk when the run is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from test_faults import V0, X0, faulty_run

import murcosim
from orchestrator.cli import main

ROOT = Path(__file__).resolve().parents[2]
WRITTEN = [0.0, 0.1, 0.2]  # s, the rows before the hang


def _killed_run(tmp_path: Path) -> Path:
    """The results folder of a run killed with SIGKILL (its command and child) once the rows
    before the hang are on disk."""
    path, out = faulty_run(tmp_path, "fmi2GetDerivatives", "HANG", 100)
    command = [sys.executable, "-m", "orchestrator.cli", "run", str(path), "--out", str(out)]
    command += ["--quiet", "--no-plots", "--format", "csv", "--format", "parquet"]
    process = subprocess.Popen(
        command,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, killed as a whole
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    table = out / "timeseries.csv"
    deadline = time.monotonic() + 60
    try:
        while not (table.exists() and table.read_text().count("\n") > len(WRITTEN)):
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)
        time.sleep(0.2)  # into the hang: nothing more is written
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    return out


@pytest.fixture
def killed(tmp_path) -> Path:
    return _killed_run(tmp_path)


def _free_mass(results: murcosim.Results) -> None:
    """The rows before the hang, each the free mass's motion (RK4 is exact on it to
    round-off: 1e-12 m)."""
    assert results.timeseries.index.tolist() == WRITTEN
    x = results.timeseries["spring.x"].to_numpy()
    np.testing.assert_allclose(x, X0 + V0 * np.array(WRITTEN), rtol=0, atol=1e-12)


def test_a_killed_run_loads_its_rows_so_far_marked_incomplete(killed):
    assert (killed / "timeseries.parquet").stat().st_size < 8  # no footer: never closed
    results = murcosim.load_results(killed)
    _free_mass(results)
    assert not results.complete and results.summary is None
    assert results.events["event"].tolist() == ["start"]  # no error, no stop: it was killed


def test_a_row_cut_off_mid_write_is_left_out(killed):
    """The last row without its newline (a write cut short, as on a full disk)."""
    table = killed / "timeseries.csv"
    whole = table.read_text()
    table.write_text(whole + whole.splitlines()[-1][:25])
    _free_mass(murcosim.load_results(killed))


def test_a_killed_runs_parquet_file_alone_is_one_line(killed):
    (killed / "timeseries.csv").unlink()
    with pytest.raises(murcosim.MurcosimError) as error:
        murcosim.load_results(killed)
    message = str(error.value)
    assert "\n" not in message and message.startswith(f"{killed / 'timeseries.parquet'}: ")
    assert "no Parquet footer" in message, message


def test_a_new_run_into_the_folder_does_not_mix_with_the_killed_one(killed, tmp_path, capsys):
    """Refused with one line, the killed run's files left as they were; with --overwrite the
    new run's files alone: its 11 rows, one start and one stop, no Parquet file of the
    killed run left behind."""
    (tmp_path / "good").mkdir()
    good, _ = faulty_run(tmp_path / "good", "fmi2GetDerivatives", "HANG", 10**6)
    before = {p.name: p.read_bytes() for p in killed.iterdir() if p.name != ".lock"}
    args = ["run", str(good), "--out", str(killed), "--quiet", "--no-plots"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "holds another run's files" in err, err
    assert {p.name: p.read_bytes() for p in killed.iterdir() if p.name != ".lock"} == before
    assert main([*args, "--overwrite"]) == 0
    results = murcosim.load_results(killed)
    assert results.complete and not (killed / "timeseries.parquet").exists()
    assert results.timeseries.index.tolist() == pytest.approx(np.arange(11) / 10, abs=1e-12)
    assert results.events["event"].tolist() == ["start", "stop"]
