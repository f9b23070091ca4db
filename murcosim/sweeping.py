"""``murcosim.sweep``: many runs of a scenario with varied values, as one pandas table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from orchestrator.analysis.sweep import run_sweep
from orchestrator.analysis.sweep_table import Metric
from orchestrator.analysis.variations import Value, Variation


def _variation(key: str, spec: str | Sequence[Value]) -> Variation:
    """``key`` with a distribution (text as after ``--vary KEY=``) or a list of choices."""
    if isinstance(spec, str):
        return Variation.parse(f"{key}={spec}")
    items = ", ".join(str(v).lower() if isinstance(v, bool) else repr(v) for v in spec)
    return Variation.parse(f"{key}=choice({items})")


def sweep(
    scenario: str | Path,
    vary: Mapping[str, str | Sequence[Value]] | Sequence[str],
    *,
    runs: int | None = None,
    seed: int = 0,
    design: str = "random",
    out: str | Path | None = None,
    fmu_dir: str | Path | None = None,
    metrics: Sequence[str] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool = True,
    stall_seconds: float | None = None,
) -> pd.DataFrame:
    """Run the scenario file ``scenario`` once per case, each in its own process, and return
    the sweep's table (also written as ``sweep.csv`` and ``sweep.parquet`` in ``out``).

    ``vary``: scenario keys and their distributions, ``{"components.rov.parameters.data.m":
    "uniform(10, 14)", "controllers.autopilot.gains.depth.kp": "grid(30, 90, 3)"}`` (also
    ``normal(MEAN, SIGMA)``, ``choice(A, B, ...)`` or a list of choices; array items counted
    from 0, ``environment.current[0]``), or ``["KEY=DISTRIBUTION", ...]`` as on the command
    line. Every case is checked before any starts: a bad key or value raises
    :class:`murcosim.ScenarioError` naming it. ``runs``: draws per combination of the grids'
    values (default 30, or 1 when everything varied is a grid), seeded with ``seed``;
    ``design="lhs"`` draws the uniform and normal values from a Latin hypercube. ``out``: the
    sweep folder (default ``results/<scenario>_sweep``); running the same sweep into it again
    resumes it (finished cases are not run again). ``metrics``: ``"COLUMN:final"`` (``max``,
    ``min``, ``maxabs``) of recorded columns, or ``"dock_time"`` (the default for scenarios
    that dock). ``scheduler``: the address of a Dask cluster to run the cases on (else
    ``workers`` local processes at a time, default the CPU count). ``stall_seconds``: end a
    case whose FMU makes no step for that long.

    The table has one row per case, indexed by ``run``: the varied values (columns named by
    their keys; ``COMPONENT.VARIABLE`` as given in that short form), ``status`` (``done`` or
    ``failed``: a crashing case does not stop the others), ``wall_seconds``, the metrics, and
    the ``message`` of a failed case; ``attrs["out"]`` is the sweep folder. Raises
    :class:`murcosim.MurcosimError` when every case failed.
    """
    scenario = Path(scenario)
    if isinstance(vary, Mapping):
        variations = [_variation(key, spec) for key, spec in vary.items()]
    else:
        variations = [Variation.parse(text) for text in vary]
    folder = Path(out) if out is not None else Path("results") / f"{scenario.stem}_sweep"
    table = run_sweep(
        scenario,
        variations,
        runs,
        seed,
        folder,
        Path(fmu_dir) if fmu_dir is not None else None,
        metrics=[Metric.parse(m) for m in metrics] if metrics is not None else None,
        scheduler=scheduler,
        workers=workers,
        progress=progress,
        stall_seconds=stall_seconds,
        design=design,
    )
    frame = pd.read_parquet(table.with_suffix(".parquet")).set_index("run")
    frame.attrs["out"] = folder
    return frame
