"""The four variants of a test library's FMUs (FMI 3.0 and 2.0, Model Exchange and
Co-Simulation) and the library built once into them, for the build tests."""

from __future__ import annotations

from pathlib import Path

from orchestrator.compiler import build_library

# (FMU file variant, FMI interface): "me" is the FMI 3.0 file with both interfaces
VARIANTS = [
    ("me", "ModelExchange"),
    ("fmi3", "CoSimulation"),
    ("fmi2", "ModelExchange"),
    ("fmi2", "CoSimulation"),
]


def built_fmus(library: Path, out: Path, **options: object) -> dict[tuple[str, str], Path]:
    """The FMUs of ``library`` built by rumoca into ``out`` (``options`` go to
    build_library), by (variant, model's last name)."""
    built = build_library(library, out, backend="rumoca", report=lambda _: None, **options)
    return {(p.parent.name if p.parent != out else "me", p.stem): p for p in built}
