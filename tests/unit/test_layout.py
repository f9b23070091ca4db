"""The package's layout, read from its imports: folders by layer, lower layers never importing
higher ones, no import loops between modules, and few top-level entries.

The layers, lowest first, are the ones the README's Layout section draws. A module may import
its own folder and any lower layer; ``murcosim`` (the public API) may import any layer and no
layer imports it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "orchestrator"

# Top-level folders and modules of orchestrator/, lowest layer first.
LAYERS = (
    "errors",
    "kinematics",
    "scenario",
    "fmi",
    "compiler",
    "native",
    "system",
    "coupling",
    "sensors",
    "navigation",
    "controllers",
    "recording",
    "master",
    "visualization",
    "runner",
    "rl",
    "analysis",
    "cli",
)
MOST_ENTRIES = 20


def _modules(package: Path) -> dict[str, Path]:
    """Every module under ``package`` by its dotted name (a package by its ``__init__.py``)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules(PACKAGE)


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module ``name`` is, or is in (an imported function names its module)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str, modules: dict[str, Path] = MODULES) -> set[str]:
    """The package's modules that ``module`` imports, anywhere in it (type-checking blocks and
    imports inside functions included); ``from package import submodule`` imports the
    submodule."""
    path = modules[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*head, base] if base else head)
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names
            ]
        else:
            continue
        found.update(m for m in (_resolve(n, modules) for n in names) if m and m != module)
    return found


def _layer(module: str) -> str:
    return module.split(".")[1] if "." in module else ""


def _loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
            if len(component) > 1:
                loops.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return loops


def test_every_top_level_entry_has_a_layer():
    entries = {p.stem for p in PACKAGE.iterdir() if p.name != "__pycache__"} - {"__init__"}
    assert entries == set(LAYERS)
    assert len(entries) + 1 <= MOST_ENTRIES  # with __init__.py


def test_no_lower_layer_imports_a_higher_one():
    rank = {name: k for k, name in enumerate(LAYERS)}
    upward = [
        f"{module} -> {other}"
        for module in MODULES
        for other in imports(module)
        if _layer(module) and _layer(other) and rank[_layer(other)] > rank[_layer(module)]
    ]
    assert upward == []


def test_no_import_loops():
    graph = {module: imports(module) for module in MODULES}
    assert _loops(graph) == []


def test_the_package_imports_neither_the_public_api_nor_the_studies():
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                names.append(getattr(node, "module", None) or "")
                outside = [n for n in names if n.split(".")[0] in ("murcosim", "studies", "tests")]
                assert outside == [], module


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
    ],
)
def test_the_loop_finder_finds_loops(graph, expected):
    assert _loops(graph) == expected


def test_the_import_reader_sees_every_kind_of_import(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    for name in ("__init__.py", "low.py", "sub/__init__.py", "sub/leaf.py"):
        (package / name).write_text("")
    (package / "high.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from pkg.sub import leaf\n"
        "if TYPE_CHECKING:\n    from pkg.low import thing\n"
        "def f():\n    import pkg.sub\n"
    )
    modules = _modules(package)
    assert imports("pkg.high", modules) == {"pkg.sub.leaf", "pkg.low", "pkg.sub"}
