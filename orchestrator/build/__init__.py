"""Modelica -> FMU build: every non-partial model of the library becomes FMUs.

Layout of the output folder: ``<Name>.fmu`` is FMI 3.0 and ``fmi2/<Name>.fmu`` FMI 2.0; each
offers Model Exchange and Co-Simulation. The default backend is pure PyPI (pymoca +
causalization + CasADi + the project's C FMI layer + gcc). The OpenModelica backend exports the
same sources (FMI 3.0 Model Exchange) with OMPython when ``omc`` is installed. FMUs are rebuilt
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
FMI_VERSIONS = ("3.0", "2.0")


def fmu_path(out: Path, name: str, version: str) -> Path:
    """Where a model's FMU of one FMI version goes: ``out/<Name>.fmu`` for 3.0,
    ``out/fmi2/<Name>.fmu`` for 2.0."""
    return out / f"{name}.fmu" if version == "3.0" else out / "fmi2" / f"{name}.fmu"


def fmu_name(model: str) -> str:
    """File stem of a model's FMU: the last part of its Modelica name."""
    return model.split(".")[-1]


def source_hash(library: Path, backend: str) -> str:
    """Fingerprint of everything an FMU depends on: sources, build code, tool versions."""
    digest = hashlib.sha256(backend.encode())
    here = Path(__file__).parent
    code = [p for p in sorted(here.glob("*.py")) if p.stem != "crosscheck"]  # not in FMUs
    code += sorted(here.glob("c/*"))
    for path in sorted(library.rglob("*.mo")) + code:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    for package in ("pymoca", "casadi", "fmpy"):
        digest.update(f"{package}={metadata.version(package)}".encode())
    return digest.hexdigest()


def _stamp_key(name: str, version: str) -> str:
    return name if version == "3.0" else f"fmi2/{name}"


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
    versions: tuple[str, ...] | None = None,
) -> list[Path]:
    """Export every model of ``library`` into ``out``; returns the FMU paths (FMI 3.0 ones
    first when both versions are built).

    Up-to-date FMUs (same source hash and versions, files present) are kept unless ``force``
    is set. ``versions`` selects FMI versions, by default all the backend offers: both for
    pymoca, FMI 3.0 for OpenModelica.
    """
    if backend not in BACKENDS:
        raise BuildError(f"unknown backend '{backend}', expected one of {', '.join(BACKENDS)}")
    if versions is None:
        versions = ("3.0",) if backend == "openmodelica" else FMI_VERSIONS
    if not versions or set(versions) - set(FMI_VERSIONS):
        raise BuildError(f"FMI versions {versions}: expected some of {', '.join(FMI_VERSIONS)}")
    if backend == "openmodelica" and set(versions) != {"3.0"}:
        raise BuildError("the OpenModelica backend exports FMI 3.0 only (use --fmi 3)")
    versions = tuple(v for v in FMI_VERSIONS if v in versions)
    if not library.is_dir():
        raise BuildError(f"{library}: Modelica library folder not found")
    fingerprint = source_hash(library, backend)
    stamp = _stamp(out)
    if backend == "openmodelica":
        from orchestrator.build.openmodelica import OpenModelicaExporter

        exporter = OpenModelicaExporter(library)
        models = exporter.models()

        def export(model: str, targets: dict[str, Path]) -> list[Path]:
            return [exporter.export(model, targets["3.0"])]
    else:
        from orchestrator.build.fmu_export import export_fmus
        from orchestrator.build.modelica import load_library

        source = load_library(library)
        models = source.models()

        def export(model: str, targets: dict[str, Path]) -> list[Path]:
            casadi_model, info = source.translate(model)
            return export_fmus(model, casadi_model, info, source.description(model), targets)

    names = [fmu_name(m) for m in models]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise BuildError(f"{library}: several models would export as {', '.join(duplicates)}.fmu")
    built: list[Path] = []
    for model, name in zip(models, names, strict=True):
        targets = {v: fmu_path(out, name, v) for v in versions}
        stale = {
            v: t
            for v, t in targets.items()
            if force or not t.exists() or stamp.get(_stamp_key(name, v)) != fingerprint
        }
        for target in set(targets.values()) - set(stale.values()):
            report(f"up to date  {target}")
        if stale:
            report(f"building    {', '.join(map(str, stale.values()))}  ({model}, {backend})")
            export(model, stale)
            stamp.update({_stamp_key(name, v): fingerprint for v in stale})
            (out / STAMP).write_text(json.dumps(stamp, indent=1, sort_keys=True))
        built.extend(targets.values())
    return sorted(built, key=lambda path: path.parent != out)
