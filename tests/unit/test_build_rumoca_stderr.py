"""A build that rumoca 0.10 stops with a Rust panic prints one line on standard error.

rumoca's Rust code writes a panic's text (thread, source place, backtrace note) on the
process' file descriptor 2 itself; the build leads that descriptor into a temporary file
during rumoca's calls only, so the user reads the build's one-line refusal alone, and the
project's own log lines, written outside those calls, still reach standard error.
``tests/data/rumoca_panic/PanicLib.M`` indexes fields of an array of records in a for loop
(``b[i].m``), which rumoca 0.10 panics on.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LIBRARY = Path(__file__).parents[1] / "data" / "rumoca_panic" / "PanicLib"


def test_panic_gives_one_line(tmp_path):
    build = [sys.executable, "-m", "orchestrator.cli", "build", "--library", str(LIBRARY)]
    done = subprocess.run(
        [*build, "--out", str(tmp_path), "--model", "M"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "PanicLib/package.mo: PanicLib.M: rumoca 0.10 failed with an internal error" in lines[0]
    assert "panicked" not in done.stderr and "RUST_BACKTRACE" not in done.stderr


def test_own_log_lines_outside_rumoca_calls_kept():
    script = (
        "import logging, os\n"
        "from orchestrator.compiler.rumoca_front import _rust_stderr\n"
        "logging.warning('before')\n"
        "with _rust_stderr() as written:\n"
        "    os.write(2, b'thread panicked at lib.rs:1:2:\\n')\n"
        "logging.warning('after')\n"
        "print(written[0], end='')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["WARNING:root:before", "WARNING:root:after"]
    assert done.stdout == "thread panicked at lib.rs:1:2:\n"
