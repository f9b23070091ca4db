"""Compile a model's C code with the project's FMI layer and pack FMI 2.0 / 3.0 archives.

The CasADi model code and ``model_core.c`` are compiled once; each FMI version links them with
its own layer (``c/fmi2_layer.c``, ``c/fmi3_layer.c``) into one shared library that offers Model
Exchange and Co-Simulation. The library links everything it uses (``-lm``) and exports only the
FMI functions. The archive holds the binary, the model description and the C sources.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import fmpy

from orchestrator.compiler.external_c import ExternalError
from orchestrator.compiler.model_code import ModelCode, write_sources
from orchestrator.compiler.model_description import fmi2_description, fmi3_description
from orchestrator.errors import BuildError

FMI_HEADERS = Path(fmpy.__file__).parent / "c-code"
LAYER = Path(__file__).parent / "c"
CFLAGS = ["-O2", "-fPIC", "-fvisibility=hidden", "-std=c99", "-w"]
# variant -> (FMI version, Co-Simulation offered); the files are laid out by the build
VARIANTS = {"me": ("3.0", False), "fmi3": ("3.0", True), "fmi2": ("2.0", True)}


def _platform(version: str) -> str:
    """Binary folder name of this platform in an FMI 2.0 or 3.0 archive."""
    if not sys.platform.startswith("linux") or platform.machine() != "x86_64":
        raise BuildError(
            f"FMU export: binaries are built for x86_64 Linux only, not {sys.platform} "
            f"{platform.machine()}"
        )
    return "linux64" if version == "2.0" else "x86_64-linux"


def _run(command: list[str], model: str) -> None:
    compiler = shutil.which(command[0])
    if compiler is None:
        raise BuildError(f"{model}: C compiler '{command[0]}' not found on PATH")
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        lines = done.stderr.strip().splitlines() or ["(no message)"]
        # the first error, not a warning or the linker's "in function" before it
        first = next((ln for ln in lines if "error" in ln or "undefined reference" in ln), lines[0])
        raise BuildError(f"{model}: C compilation failed: {first}")


def package_fmus(code: ModelCode, targets: dict[str, Path], compiler: str = "cc") -> list[Path]:
    """Build one FMU per variant in ``targets`` (``{"fmi2": path, ...}``, see VARIANTS)."""
    unknown = sorted(set(targets) - set(VARIANTS))
    if unknown:
        raise BuildError(f"FMU variant {', '.join(unknown)} not offered, only {list(VARIANTS)}")
    with tempfile.TemporaryDirectory(prefix="murcosim-fmu-") as tmp:
        work = Path(tmp)
        sources = write_sources(code, work)
        sources += [shutil.copy(LAYER / name, work) for name in ("model_core.h", "model_core.c")]
        include = ["-I", str(work), "-I", str(FMI_HEADERS)]
        names, link = ["model", "model_core"], ["-lm"]
        if code.external_c is not None:
            try:
                sources += code.external_c.write_sources(work)
            except ExternalError as exc:
                raise BuildError(f"{code.identifier}: {exc}") from None
            sources.append(shutil.copy(LAYER / "external_runtime.c", work))
            include += code.external_c.compile_flags()
            compiled = [p.stem for p in code.external_c.library_sources() if p.suffix == ".c"]
            names += ["model_external", "external_runtime", *compiled]
            # a symbol no object and no library defines fails here, not when the FMU loads
            link = [*code.external_c.link_flags(), *link, "-Wl,--no-undefined"]
        objects = []
        for name in names:
            obj = work / f"{name}.o"
            _run(
                [compiler, *CFLAGS, *include, "-c", str(work / f"{name}.c"), "-o", str(obj)],
                code.identifier,
            )
            objects.append(str(obj))
        binaries: dict[str, tuple[Path, Path]] = {}  # FMI version -> (layer, binary)
        for version in sorted({VARIANTS[v][0] for v in targets}):
            layer = Path(shutil.copy(LAYER / f"fmi{version[0]}_layer.c", work))
            binary = work / version / f"{code.identifier}.so"
            binary.parent.mkdir()
            command = [compiler, *CFLAGS, *include, "-shared", str(layer), *objects]
            # -Bsymbolic: the layer's calls to its own FMI functions stay inside the binary even
            # when a host has made another FMU's FMI symbols global.
            _run([*command, "-o", str(binary), "-Wl,-Bsymbolic", *link], code.identifier)
            binaries[version] = layer, binary
        written = []
        for variant, target in targets.items():
            version, co_simulation = VARIANTS[variant]
            layer, binary = binaries[version]
            describe = fmi2_description if version == "2.0" else fmi3_description
            files = [*map(Path, sources), layer]
            written.append(_pack(target, describe(code, co_simulation), binary, files, version))
    return written


def _pack(
    target: Path, description: ET.ElementTree, binary: Path, sources: list[Path], version: str
) -> Path:
    target = target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".fmu.part")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "modelDescription.xml",
            ET.tostring(description.getroot(), xml_declaration=True, encoding="UTF-8"),
        )
        archive.write(binary, f"binaries/{_platform(version)}/{binary.name}")
        for source in sorted(sources):
            archive.write(source, f"sources/{source.name}")
    partial.replace(target)
    return target
