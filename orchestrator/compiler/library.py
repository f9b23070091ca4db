"""What ``murcosim build`` builds and where to, when not told: from any working folder.

The MurCoSim Modelica library ships inside this package (``orchestrator/compiler/MurCoSim``, a
link to the repository's ``modelica/MurCoSim`` that a wheel holds as a copy), so the default
library is the installed package's own, with or without a checkout around it. The default
output folder is the FMU folder the other commands look in from the current folder (``fmus``
there or in the nearest folder above it), else a new ``fmus`` in the current folder.
"""

from __future__ import annotations

from pathlib import Path

from orchestrator.errors import BuildError
from orchestrator.fmi.folder import DEFAULT_NAME, nearest

# the library installed with the package (in a checkout the link resolves to modelica/MurCoSim,
# so messages name the files a library author edits)
PACKAGED = (Path(__file__).parent / "MurCoSim").resolve()


def default_library(library: Path = PACKAGED) -> Path:
    """The MurCoSim library installed with the package; a one-line error when it is missing
    (an installation made without its package data)."""
    if not (library / "package.mo").is_file():
        raise BuildError(
            f"--library: not given, and this murcosim installation lacks its MurCoSim library "
            f"({library}/package.mo not found): give --library <Modelica package folder>"
        )
    return library


def default_out() -> Path:
    """The FMU folder the other commands find from the current folder, else ``./fmus``."""
    return nearest(Path.cwd()) or Path(DEFAULT_NAME)
