"""Modelica -> FMU build: every non-partial model of the library becomes ``fmus/<Name>.fmu``.

The default backend is pure PyPI (pymoca + causalization + CasADi + gcc). The OpenModelica
backend exports the same sources with OMPython when ``omc`` is installed. FMUs are rebuilt
only when the library sources, the build code or the toolchain versions change.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from orchestrator.errors import BuildError

STAMP = ".build-stamp.json"
BACKENDS = ("pymoca", "openmodelica")


def fmu_name(model: str) -> str:
    """File stem of a model's FMU: the last part of its Modelica name."""
    return model.split(".")[-1]


def source_hash(library: Path, backend: str) -> str:
    """Fingerprint of everything an FMU depends on: sources, build code, tool versions."""
    digest = hashlib.sha256(backend.encode())
    for path in sorted(library.rglob("*.mo")) + sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    for package in ("pymoca", "casadi", "fmpy"):
        digest.update(f"{package}={metadata.version(package)}".encode())
    return digest.hexdigest()


def _stamp(out: Path) -> dict:
    try:
        return json.loads((out / STAMP).read_text())
    except (OSError, ValueError):
        return {}


def build_library(
    library: Path,
    out: Path,
    backend: str = "pymoca",
    force: bool = False,
    report: Callable[[str], None] = print,
) -> list[Path]:
    """Export every model of ``library`` into ``out``; returns the FMU paths.

    Up-to-date FMUs (same source hash, file present) are kept unless ``force`` is set.
    """
    if backend not in BACKENDS:
        raise BuildError(f"unknown backend '{backend}', expected one of {', '.join(BACKENDS)}")
    if not library.is_dir():
        raise BuildError(f"{library}: Modelica library folder not found")
    fingerprint = source_hash(library, backend)
    stamp = _stamp(out)
    if backend == "openmodelica":
        from orchestrator.build.openmodelica import OpenModelicaExporter

        exporter = OpenModelicaExporter(library)
        models = exporter.models()
        export = exporter.export
    else:
        from orchestrator.build.fmu_export import export_fmu
        from orchestrator.build.modelica import load_library

        source = load_library(library)
        models = source.models()

        def export(model: str, target: Path) -> Path:
            casadi_model, info = source.translate(model)
            return export_fmu(model, casadi_model, info, source.description(model), target)

    names = [fmu_name(m) for m in models]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise BuildError(f"{library}: several models would export as {', '.join(duplicates)}.fmu")
    built: list[Path] = []
    for model, name in zip(models, names, strict=True):
        target = out / f"{name}.fmu"
        if not force and target.exists() and stamp.get(name) == fingerprint:
            report(f"up to date  {target}")
        else:
            report(f"building    {target}  ({model}, {backend})")
            export(model, target)
            stamp[name] = fingerprint
            (out / STAMP).write_text(json.dumps(stamp, indent=1, sort_keys=True))
        built.append(target)
    return built
