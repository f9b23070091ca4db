"""The supervised run's child, a new program: ``python -m orchestrator.runner.supervised_child
SPEC``, where SPEC (JSON) holds the scenario file, results folder, FMU folder, progress, plots,
formats and three inherited file descriptors: the breadcrumbs' file, the write end of the pipe
of the child's message, and the read end of the caller's watch pipe (``supervise.py``)."""

from __future__ import annotations

import json
import mmap
import sys
from multiprocessing.connection import Connection
from pathlib import Path

from orchestrator.runner.breadcrumbs import MAPPED_BYTES, Breadcrumbs
from orchestrator.runner.supervise import run_child


def main(spec: str) -> None:
    """Run the child described by ``spec`` (JSON, as ``supervise.Child`` writes it)."""
    given = json.loads(spec)
    crumbs_file, sender, watched = given["fds"]
    crumbs = Breadcrumbs.mapped(mmap.mmap(crumbs_file, MAPPED_BYTES), fresh=False)
    fmu_dir = given["fmu_dir"]
    run_child(
        Path(given["path"]),
        Path(given["out_dir"]),
        None if fmu_dir is None else Path(fmu_dir),
        given["progress"],
        given["plots"],
        crumbs,
        Connection(sender, readable=False),
        tuple(given["formats"]),
        watched,
    )


if __name__ == "__main__":
    main(sys.argv[1])
