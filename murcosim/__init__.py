"""murcosim: co-simulation of modular underwater robots from Python.

Scenarios are pydantic objects: load one from a TOML file (:func:`load_scenario`), change it
(:func:`edit`), or build one in code from :class:`Scenario`, :class:`Simulation`,
:class:`Component`, :class:`Connection`, joints, docking pairs and controller configurations.
:func:`run` runs it (from a file or in memory, with a callback at communication points and a
progress bar) and returns :class:`Results`: the time series as a pandas DataFrame indexed by
time (s) with units in ``attrs["units"]``, and the events as a DataFrame. :func:`sweep` runs a
scenario file many times with any of its values varied (uniform, normal, choice, grid, Latin
hypercube), each case isolated, locally or on a Dask cluster, and returns the table of the
cases as a DataFrame. :func:`regress`
compares components and scenarios with stored references. The scenario classes live in
:mod:`murcosim.configuration` (also reachable as ``murcosim.Scenario`` and so on); the API
reference is built by ``make docs``.

    import murcosim
    scenario = murcosim.load_scenario("scenarios/bluerov2_heavy_single.toml")
    short = murcosim.edit(scenario, {"simulation": {"stop_time": 5.0}})
    results = murcosim.run(short, source="scenarios/bluerov2_heavy_single.toml")
    depth = results.timeseries["rov.p[3]"]    # m, NED z
"""

from importlib.metadata import version

from murcosim import configuration
from murcosim.regression import regress
from murcosim.results import Results, load_results
from murcosim.running import run
from murcosim.scenarios import edit, load_scenario, parse_scenario, save_scenario, scenario_toml
from murcosim.sweeping import sweep
from orchestrator.controllers.base import Controller
from orchestrator.errors import FMUError, MurcosimError, ScenarioError, SimulationError
from orchestrator.master.probe import Probe
from orchestrator.runner.run import StopRun

__version__ = version("murcosim")


__all__ = [
    "Controller",
    "FMUError",
    "MurcosimError",
    "Probe",
    "Results",
    "ScenarioError",
    "SimulationError",
    "StopRun",
    "__version__",
    "edit",
    "load_results",
    "load_scenario",
    "parse_scenario",
    "regress",
    "run",
    "save_scenario",
    "scenario_toml",
    "sweep",
]


def __getattr__(name: str) -> object:
    """The scenario classes of :mod:`murcosim.configuration` (``murcosim.Scenario``, ...),
    kept out of this module's own pages so that ``help(murcosim)`` stays a page to read."""
    if name in configuration.__all__:
        return getattr(configuration, name)
    raise AttributeError(f"module 'murcosim' has no attribute '{name}'")
