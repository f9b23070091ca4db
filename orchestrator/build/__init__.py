"""Modelica -> FMU build: every non-partial model of the library becomes FMUs.

Layout of the output folder, one file per variant:

- ``me``: ``<Name>.fmu``, FMI 3.0 Model Exchange, the file the orchestrator loads;
- ``fmi3``: ``fmi3/<Name>.fmu``, FMI 3.0 Model Exchange and Co-Simulation;
- ``fmi2``: ``fmi2/<Name>.fmu``, FMI 2.0 Model Exchange and Co-Simulation.

The default backend is pure PyPI (pymoca + causalization + CasADi + the project's C FMI layer
+ gcc) and writes all three. The ``rumoca`` backend puts the rumoca compiler in pymoca's place
(MSL-style libraries: short connector classes, ``flow``, ``inner``/``outer``, redeclared
records, component arrays, package constants, a library path, index reduction) with the same
causalization, code generation and FMI layer behind it. The OpenModelica backend exports the
same sources (``me`` only) with OMPython when ``omc`` is installed. FMUs are rebuilt only when
the library sources, the build code or the toolchain versions change.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from orchestrator.errors import BuildError

STAMP = ".build-stamp.json"
BACKENDS = ("pymoca", "rumoca", "openmodelica")
VARIANTS = ("me", "fmi3", "fmi2")


def fmu_path(out: Path, name: str, variant: str) -> Path:
    """Where a model's FMU of one variant goes: ``out/<Name>.fmu`` for ``me``, else
    ``out/<variant>/<Name>.fmu``."""
    return out / f"{name}.fmu" if variant == "me" else out / variant / f"{name}.fmu"


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
    for package in ("pymoca", "rumoca", "casadi", "fmpy"):
        digest.update(f"{package}={metadata.version(package)}".encode())
    return digest.hexdigest()


def _stamp_key(name: str, variant: str) -> str:
    return name if variant == "me" else f"{variant}/{name}"


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
    variants: tuple[str, ...] | None = None,
    library_path: list[Path] | None = None,
) -> list[Path]:
    """Export every model of ``library`` into ``out``; returns the FMU paths (the ``me`` ones
    first).

    Up-to-date FMUs (same source hash, file present) are kept unless ``force`` is set.
    ``variants`` selects some of :data:`VARIANTS`, by default all the backend offers: all for
    pymoca and rumoca, ``me`` for OpenModelica. ``library_path`` lists folders of other
    libraries the library uses (rumoca backend; ``MODELICAPATH`` is searched too).
    """
    if backend not in BACKENDS:
        raise BuildError(f"unknown backend '{backend}', expected one of {', '.join(BACKENDS)}")
    if variants is None:
        variants = ("me",) if backend == "openmodelica" else VARIANTS
    if not variants or set(variants) - set(VARIANTS):
        raise BuildError(f"FMU variants {variants}: expected some of {', '.join(VARIANTS)}")
    if backend == "openmodelica" and set(variants) != {"me"}:
        raise BuildError("the OpenModelica backend exports the 'me' variant only")
    variants = tuple(v for v in VARIANTS if v in variants)
    if not library.is_dir():
        raise BuildError(f"{library}: Modelica library folder not found")
    fingerprint = source_hash(library, backend)
    stamp = _stamp(out)
    if backend == "openmodelica":
        from orchestrator.build.openmodelica import OpenModelicaExporter

        exporter = OpenModelicaExporter(library)
        models = exporter.models()

        def export(model: str, targets: dict[str, Path]) -> list[Path]:
            return [exporter.export(model, targets["me"])]
    elif backend == "rumoca":
        from orchestrator.build.flat_dae import flat_dae
        from orchestrator.build.fmu_package import package_fmus
        from orchestrator.build.model_code import model_code
        from orchestrator.build.modelica import load_library
        from orchestrator.build.rumoca_front import RumocaLibrary
        from orchestrator.build.rumoca_front import library_path as search_path

        classes = load_library(library)
        models = classes.models()
        front = RumocaLibrary(library, search_path(library_path))

        def export(model: str, targets: dict[str, Path]) -> list[Path]:
            repeated = classes.repeated_redeclares(model)
            if repeated:
                raise BuildError(
                    f"{model}: component(s) {', '.join(repeated)} redeclared again over a base "
                    "class's redeclaration; rumoca 0.10 would keep the base's choice: "
                    "build this model with --backend pymoca"
                )
            code = model_code(flat_dae(front.flatten(model)), classes.description(model))
            return package_fmus(code, targets)
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
        targets = {v: fmu_path(out, name, v) for v in variants}
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
