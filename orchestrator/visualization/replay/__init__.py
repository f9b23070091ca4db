"""3D replay of a run as one self-contained HTML file (three.js, no network at view time).

``write_replay(results, out)`` reads the results folder (``timeseries.csv`` or
``timeseries.parquet``, ``events.csv``, ``scenario.toml``) and the FMUs' parameters, and writes
the page: bodies, thrusters, joints, docking ports, the sea surface moved by the wave, the
seabed, tethers, the cameras' fields of view with their markers and detections and the DVLs'
beams (each shown or hidden by a toggle), with play, pause, scrub, speed, events and
detections on the time line and a camera that follows a body. The page's address
takes ``#t=<s>&follow=<body|scene|free>&play=<0|1>&speed=<x>`` to open at a given time and
view, ``&camera=<n,e,d>&target=<n,e,d>`` (NED, m) to place the camera, ``&hide=<layers>``
(comma-separated: surface, seabed, tethers, views, beams, markers) to open with layers hidden,
and ``&ui=0`` for the 3D view alone.
"""

from __future__ import annotations

from pathlib import Path

from orchestrator.fmi.folder import results_fmu_folder
from orchestrator.visualization.replay.page import render_page
from orchestrator.visualization.replay.scene import build_scene, read_results

__all__ = ["write_replay"]


def write_replay(
    results: Path,
    out: Path | None = None,
    fmu_dir: Path | None = None,
    three_dir: Path | None = None,
) -> Path:
    """Write the replay page of the results folder ``results`` to ``out``
    (default ``results/replay.html``); returns its path. The FMUs are the ones in ``fmu_dir``,
    else in the folder the results record, else in the nearest ``fmus`` above them; three.js
    is the npm install in ``three_dir``, else the one
    :func:`~orchestrator.visualization.replay.page.three_folder` finds."""
    results = Path(results)
    out = Path(out) if out is not None else results / "replay.html"
    read = read_results(results)
    page = render_page(build_scene(read, results_fmu_folder(results, fmu_dir)), three_dir)
    out.write_text(page, encoding="utf-8")
    return out
