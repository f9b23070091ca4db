"""``murcosim.run``: a scenario (file or object) run in memory, optionally written to files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from murcosim.results import Results, events_frame, timeseries_frame
from orchestrator.controllers.base import Controller
from orchestrator.master.summary import run_summary
from orchestrator.runner.run import Callback, simulate
from orchestrator.scenario.model import Scenario
from orchestrator.scenario.reading import load_scenario, validate_scenario


def run(
    scenario: Scenario | str | Path,
    *,
    out: str | Path | None = None,
    fmu_dir: str | Path | None = None,
    source: str | Path | None = None,
    formats: Sequence[str] = ("csv",),
    progress: bool = True,
    callback: Callback | None = None,
    plots: bool = False,
    overwrite: bool = False,
    controllers: Sequence[Controller] = (),
) -> Results:
    """Run a scenario and return its results as pandas tables.

    ``scenario``: a scenario file, or a :class:`murcosim.Scenario` (loaded, edited or built in
    code). ``out``: a folder the results are also written to while the run goes (``formats``
    among ``csv``, ``parquet``, ``mcap``; ``events.csv`` and ``scenario.toml`` always); None
    keeps them in memory only; a folder holding another run's files is refused unless
    ``overwrite``, which removes them first (only files murcosim writes: a folder that also
    holds other files is refused). ``fmu_dir``: the FMU folder (default: the scenario's
    ``fmu_dir``, else ``fmus`` next to the scenario or in the nearest folder above it).
    ``source``: the file a scenario object came from: its folder is where relative paths
    start (default the current directory) and errors name it. ``progress``: a progress bar in
    terminals and Jupyter. ``callback(time, probe)``: called at every communication point
    (controller samples, recording times) with the time (s) and a probe reading FMU variables
    by name, ``probe["rov.p[3]"]``; raising :class:`murcosim.StopRun` in it ends the run there
    (an event ``callback_stop``); the probe also reads controller outputs
    (``probe["autopilot.tau[3]"]``) and sets FMU inputs (``probe["rov.tau_ext[1]"] = 10.0``).
    ``plots``: write the plots into ``out``. ``controllers``: your own
    :class:`murcosim.Controller` objects, run after the scenario's controllers (each reset
    first), their outputs recorded as columns.

    A scenario object is validated again as a scenario file is (``model_copy`` and other
    changes made without :func:`murcosim.edit` skip pydantic's validation). Errors in the
    scenario raise :class:`murcosim.ScenarioError`, a run that fails raises
    :class:`murcosim.SimulationError` (with ``out``, the rows so far stay on disk).
    """
    out_dir = Path(out) if out is not None else None
    given = Path(fmu_dir) if fmu_dir is not None else None
    options = {"progress": progress, "plots": plots, "formats": formats, "callback": callback}
    scenario_file = None
    if isinstance(scenario, Scenario):
        name = str(source) if source is not None else "<scenario>"
        scenario = validate_scenario(scenario.model_dump(by_alias=True), name)
    else:
        scenario_file = Path(scenario)
        name, scenario = str(scenario_file), load_scenario(scenario_file)
    result = simulate(
        scenario,
        name,
        out_dir,
        given,
        scenario_file=scenario_file,
        overwrite=overwrite,
        controllers=controllers,
        **options,
    )
    return Results(
        timeseries_frame(result.table, result.units),
        events_frame(result.event_table),
        out_dir=out_dir,
        statistics=result.statistics,
        final_state=result.final_state,
        summary=run_summary(result.event_table, result.table, result.statistics),
    )
