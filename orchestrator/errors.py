"""Errors that reach the user: each names the file, key or component and what was expected."""


class MurcosimError(Exception):
    """Base class of all errors reported to the user as one line, without a traceback."""


class BuildError(MurcosimError):
    """A Modelica model could not be turned into an FMU."""


class ScenarioError(MurcosimError):
    """A scenario file is missing, malformed or refers to something that does not exist."""


class FMUError(MurcosimError):
    """An FMU could not be loaded, or one of its calls failed."""


class SimulationError(MurcosimError):
    """A run stopped: the integrator failed or the state left the finite numbers."""
