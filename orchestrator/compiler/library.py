"""What ``murcosim build`` builds and where to, when not told: from any working folder.

The MurCoSim Modelica library is part of the murcosim repository (``modelica/MurCoSim``), not
of the Python package: the default library is the one of the checkout the package runs from
(an editable install, or the source tree). An installation without the checkout has no
default and must be given ``--library``. The default output folder is the FMU folder the
other commands look in from the current folder (``fmus`` there or in the nearest folder above
it), else a new ``fmus`` in the current folder.
"""

from __future__ import annotations

from pathlib import Path

from orchestrator.errors import BuildError
from orchestrator.fmi.folder import DEFAULT_NAME, nearest

CHECKOUT = Path(__file__).resolve().parents[2]  # orchestrator/compiler/ -> the repository
LIBRARY = Path("modelica") / "MurCoSim"


def default_library(checkout: Path = CHECKOUT) -> Path:
    """The MurCoSim library of the murcosim checkout; a one-line error when there is none."""
    library = checkout / LIBRARY
    if not (library / "package.mo").is_file():
        raise BuildError(
            f"--library: not given, and this murcosim installation has no MurCoSim library "
            f"beside it (looked for {library}; the library is in the repository's {LIBRARY}): "
            "give --library <Modelica package folder>"
        )
    return library


def default_out() -> Path:
    """The FMU folder the other commands find from the current folder, else ``./fmus``."""
    return nearest(Path.cwd()) or Path(DEFAULT_NAME)
