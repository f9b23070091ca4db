"""OpenModelica backend: export the library's models with ``omc`` through OMPython.

Used when OpenModelica is installed (``omc`` on PATH). The list of models comes from the same
parse as the default backend, so both backends export the same set of FMUs.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from orchestrator.compiler.modelica import load_library
from orchestrator.errors import BuildError


class OpenModelicaExporter:
    """Exports models of one library as FMI 3.0 Model Exchange FMUs with ``omc``."""

    def __init__(self, library: Path) -> None:
        if shutil.which("omc") is None:
            raise BuildError(
                "OpenModelica backend: 'omc' was not found on PATH; install OpenModelica, "
                "or build with the default backend (murcosim build --backend rumoca)"
            )
        try:
            from OMPython import OMCSessionZMQ
        except ImportError as exc:
            raise BuildError(
                "OpenModelica backend: OMPython is not installed "
                "(pip install 'murcosim[openmodelica]')"
            ) from exc
        self.library = library
        self.session = OMCSessionZMQ()
        self._send(f'loadFile("{(library / "package.mo").as_posix()}")', "load the library")

    def _send(self, expression: str, what: str) -> object:
        result = self.session.sendExpression(expression)
        if result in (False, None, ""):
            error = self.session.sendExpression("getErrorString()")
            raise BuildError(f"OpenModelica could not {what}: {error}")
        return result

    def models(self) -> list[str]:
        """The non-partial models and blocks of the library, as the default backend sees
        them."""
        return load_library(self.library).models()

    def export(self, model: str, target: Path, identifier: str) -> Path:
        """Export ``model`` to ``target`` (FMI 3.0, Model Exchange) with the FMI model
        identifier ``identifier``."""
        with tempfile.TemporaryDirectory(prefix="murcosim-omc-") as tmp:
            self._send(f'cd("{Path(tmp).as_posix()}")', "change directory")
            produced = self._send(
                f'buildModelFMU({model}, version="3.0", fmuType="me", '
                f'fileNamePrefix="{identifier}")',
                f"export {model}",
            )
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(produced), target)
        return target
