"""Where a run finds the FMUs its components name: paths are resolved against the scenario.

A component's ``fmu = "BlueROV2Heavy"`` means ``<FMU folder>/BlueROV2Heavy.fmu``; a value
ending in ``.fmu`` is a file path relative to the scenario file (``System`` resolves it). The
FMU folder is, first found:

1. the folder given to the run (``murcosim run --fmu-dir``, ``murcosim.run(fmu_dir=...)``),
   relative to the current directory;
2. the scenario's ``fmu_dir`` key, relative to the scenario file;
3. a folder ``fmus`` next to the scenario file or in the nearest folder above it that has one
   (``scenarios/x.toml`` finds the project's ``fmus/``). A scenario built in Python without a
   file searches from the current directory. A scenario whose components all name their
   ``.fmu`` files needs no FMU folder.
"""

from __future__ import annotations

from pathlib import Path

from orchestrator.errors import ScenarioError
from orchestrator.scenario import Scenario

DEFAULT_NAME = "fmus"


def fmu_folder(scenario: Scenario, base: Path, source: str, given: Path | None = None) -> Path:
    """The FMU folder of a run of ``scenario``; ``base`` is the scenario file's folder (or the
    current directory), ``source`` names the scenario in errors."""
    if given is not None:
        folder, key = Path(given), "fmu_dir given to the run (--fmu-dir)"
    elif scenario.fmu_dir is not None:
        folder, key = (base / scenario.fmu_dir).resolve(), "fmu_dir"
    else:
        start = base.resolve()
        for candidate in (start, *start.parents):
            if (candidate / DEFAULT_NAME).is_dir():
                return candidate / DEFAULT_NAME
        by_name = [n for n, c in scenario.components.items() if not c.fmu.endswith(".fmu")]
        if not by_name:
            return start  # every component names its file: no FMU folder is used
        raise ScenarioError(
            f"{source}: components.{by_name[0]}.fmu: no folder '{DEFAULT_NAME}' in {start} or "
            "above it (expected the FMU folder: run 'murcosim build' there, or give fmu_dir / "
            "--fmu-dir)"
        )
    if not folder.is_dir():
        raise ScenarioError(f"{source}: {key}: FMU folder {folder} does not exist")
    return folder
