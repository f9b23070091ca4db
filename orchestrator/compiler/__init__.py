"""Modelica -> FMU build: the non-partial models and blocks of a library become FMUs.

Layout of the output folder, one file per variant:

- ``me``: ``<Name>.fmu``, FMI 3.0 Model Exchange, the file the orchestrator loads;
- ``fmi3``: ``fmi3/<Name>.fmu``, FMI 3.0 Model Exchange and Co-Simulation;
- ``fmi2``: ``fmi2/<Name>.fmu``, FMI 2.0 Model Exchange and Co-Simulation.

``<Name>`` is the last part of the Modelica name, or the full name (``Lib.A.Motor``) where
two models' last names are the same. A class's ``experiment`` annotation becomes the FMUs'
``DefaultExperiment``.

The default backend is pure PyPI: the rumoca compiler parses, resolves and flattens the
library (MSL-style libraries: short connector classes, ``flow``, ``inner``/``outer``,
redeclared records, component arrays, package constants, a library path); the project's index
reduction, causalization, initialization, events, CasADi code and C FMI layer (gcc) make the
FMUs, all three variants. The ``pymoca`` backend puts pymoca in rumoca's place for the
continuous models it reads; it refuses short connector classes and arrays of derived types,
so MurCoSim, which declares its signals and units with both, needs rumoca. The OpenModelica
backend exports the same sources (``me`` only) with OMPython when ``omc`` is installed. FMUs
are rebuilt only when the library sources, the build code or the toolchain versions change.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.errors import BuildError

if TYPE_CHECKING:
    import casadi as ca

    from orchestrator.compiler.events import EventFunctions
    from orchestrator.compiler.external_c import ExternalFunctions
    from orchestrator.compiler.initialization import Initialization
    from orchestrator.compiler.modelica import ModelicaLibrary
    from orchestrator.compiler.value_types import ValueType

    Explicit = tuple[
        ca.DaeBuilder,
        Initialization | None,
        EventFunctions | None,
        ExternalFunctions | None,
        dict[str, ValueType],
    ]

STAMP = ".build-stamp.json"
BACKENDS = ("pymoca", "rumoca", "openmodelica")
VARIANTS = ("me", "fmi3", "fmi2")
Writer = Callable[[dict[str, Path]], list[Path]]  # a translated model: writes FMUs (variant: path)


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
    code = sorted(here.glob("*.py"))
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
    backend: str = "rumoca",
    force: bool = False,
    report: Callable[[str], None] = print,
    variants: tuple[str, ...] | None = None,
    library_path: list[Path] | None = None,
    models: list[str] | None = None,
    experiments: bool = False,
) -> list[Path]:
    """Export the models and blocks of ``library`` into ``out``; returns the FMU paths (the
    ``me`` ones first).

    ``models`` names the ones to build, by full or last name; ``experiments`` builds those
    with an ``experiment`` annotation (examples, test models; with ``models``, those named
    that have one); by default all non-partial models and blocks are built, and one whose
    translation fails (it cannot run alone: a
    parameter without value, equations the build cannot solve) is reported as skipped, with
    the reason, while the others are built. A failure is raised when a named model
    fails or when every model does. Up-to-date FMUs (same source hash, file present) are
    kept unless ``force`` is set. ``variants`` selects some of :data:`VARIANTS`, by default
    all the backend offers: all for pymoca and rumoca, ``me`` for OpenModelica.
    ``library_path`` lists folders of other libraries the library uses (rumoca backend;
    ``MODELICAPATH`` is searched too).
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
    candidates, translate, experiment = _front_end(library, backend, library_path)
    stems = fmu_names(candidates)
    selected = select_models(library, candidates, models) if models else candidates
    if experiments:
        if experiment is None:
            raise BuildError("--experiments needs the rumoca or pymoca backend")
        selected = [m for m in selected if experiment(m) is not None]
        if not selected:
            raise BuildError(f"{library}: no model with an experiment annotation to build")
    built: list[Path] = []
    failures: list[BuildError] = []
    for model in selected:
        name = stems[model]
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
            try:
                write = translate(model, model_identifier(name))
            except BuildError as exc:
                reason = str(exc).partition("\n")[0].removeprefix(f"{model}: ")
                report(f"skipped     {model}: {reason}")
                failures.append(exc)
                continue
            write(stale)
            stamp.update({_stamp_key(name, v): fingerprint for v in stale})
            (out / STAMP).write_text(json.dumps(stamp, indent=1, sort_keys=True))
        built.extend(targets.values())
    count = len(selected)
    report(f"built {count - len(failures)} of {count} models; {len(failures)} skipped")
    if failures and (models or len(failures) == count):
        raise failures[0]
    return sorted(built, key=lambda path: path.parent != out)


def fmu_names(models: list[str]) -> dict[str, str]:
    """File stem of each model's FMU: its last name (:func:`fmu_name`), or its full name
    where last names collide (``Lib.A.Motor`` and ``Lib.B.Motor``)."""
    last = [fmu_name(m) for m in models]
    return {m: m if last.count(n) > 1 else n for m, n in zip(models, last, strict=True)}


def model_identifier(stem: str) -> str:
    """FMI ``modelIdentifier`` of an FMU, a C identifier: its file stem, dots made ``_``."""
    return stem.replace(".", "_")


def select_models(library: Path, candidates: list[str], names: list[str]) -> list[str]:
    """The ``candidates`` that ``names`` give by full or last name, in the library's order;
    a name that gives none or several is an error listing the close ones."""
    chosen: set[str] = set()
    for name in names:
        found = [m for m in candidates if name in (m, fmu_name(m))]
        if len(found) > 1:
            raise BuildError(
                f"{library}: model '{name}' is ambiguous: {', '.join(found)}; give the full name"
            )
        if not found:
            pool = candidates if "." in name else [fmu_name(m) for m in candidates]
            close = set(difflib.get_close_matches(name, pool, n=3))
            near = [m for m in candidates if m in close or fmu_name(m) in close]
            hint = f"; close names: {', '.join(near)}" if near else ""
            what = "non-partial model or block (full or last name)"
            raise BuildError(f"{library}: no {what} '{name}'{hint}")
        chosen.update(found)
    return [m for m in candidates if m in chosen]


def _front_end(
    library: Path, backend: str, library_path: list[Path] | None
) -> tuple[
    list[str],
    Callable[[str, str], Writer],
    Callable[[str], dict[str, float] | None] | None,
]:
    """The models and blocks of ``library``, the backend's translation of one of them (full
    name, FMI model identifier) into the writer of its FMUs, and the reader of a model's
    ``experiment`` annotation (None for OpenModelica, which translates and compiles in one
    call, in the writer: its failures stop the build)."""
    if backend == "openmodelica":
        from orchestrator.compiler.openmodelica import OpenModelicaExporter

        exporter = OpenModelicaExporter(library)

        def export(model: str, identifier: str) -> Writer:
            return lambda targets: [exporter.export(model, targets["me"], identifier)]

        return exporter.models(), export, None

    from orchestrator.compiler.fmu_package import package_fmus
    from orchestrator.compiler.model_code import model_code
    from orchestrator.compiler.modelica import load_library
    from orchestrator.compiler.value_types import declared_types

    classes = load_library(library)
    if backend == "rumoca":
        from orchestrator.compiler.flat_dae import flat_dae
        from orchestrator.compiler.rumoca_front import RumocaLibrary
        from orchestrator.compiler.rumoca_front import library_path as search_path

        front = RumocaLibrary(library, search_path(library_path))

        def explicit(model: str) -> Explicit:
            _refuse_unreliable(classes, model, "rumoca")
            flat = front.flatten(model)
            types = flat.value_types
            types = {v.name: types[v.declared] for v in flat.variables if v.declared in types}
            return *flat_dae(flat), flat.external_c, types
    else:
        from orchestrator.compiler.fmu_export import build_dae

        def explicit(model: str) -> Explicit:
            _refuse_unreliable(classes, model, "pymoca")
            # pymoca's Integer and Boolean parameters stay Float64, as its whole model does
            return build_dae(model, *classes.translate(model)), None, None, None, {}

    def translate(model: str, identifier: str) -> Writer:
        dae, initial, events, external_c, types = explicit(model)
        code = replace(
            model_code(dae, classes.description(model), initial, events),
            identifier=identifier,
            experiment=classes.experiment(model),
            external_c=external_c,
        )
        names = {v.name for v in code.variables}
        code = replace(code, value_types=declared_types(model, types, names))
        return partial(package_fmus, code)

    return classes.models(), translate, classes.experiment


def _refuse_unreliable(classes: ModelicaLibrary, model: str, backend: str) -> None:
    """Refuse, in one line, a model whose redeclarations ``backend`` gets wrong, or whose
    declarations pymoca misreads."""
    problems = classes.unreliable_redeclares(model, backend)
    if backend == "pymoca":
        problems += classes.pymoca_misreads(model)
    if problems:
        raise BuildError(f"{model}: component {problems[0]}")
