"""Modelica front end on the rumoca compiler: a library folder, its library path, flat models.

rumoca (a Modelica compiler written in Rust, on PyPI) parses the library and the libraries on
its path (``--library-path`` and ``MODELICAPATH``, e.g. a Modelica Standard Library
installation), resolves names, imports, inheritance, modifiers, redeclarations, ``inner`` /
``outer``, connections and component arrays, and flattens a model. Its flat form is read by
:mod:`orchestrator.build.flat_model`; everything after (index reduction, causalization,
CasADi code, the FMI layer) is the project's own.

Failures become one line: ``file:line:column: model: what`` where rumoca or the translation
gives a place, the model and rumoca's message otherwise.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import rumoca

from orchestrator.build.flat_model import FlatModel, UnsupportedConstructError, read_flat
from orchestrator.errors import BuildError


def library_path(extra: list[Path] | None = None) -> list[Path]:
    """Folders searched for libraries the user's library uses: ``extra`` (the command line's
    ``--library-path``) first, then the entries of ``MODELICAPATH`` (``os.pathsep``-separated,
    as Modelica tools read it)."""
    entries = list(extra or [])
    entries += [Path(p) for p in os.environ.get("MODELICAPATH", "").split(os.pathsep) if p]
    for entry in entries:
        if not entry.is_dir():
            raise BuildError(f"library path {entry}: folder not found")
    return entries


@dataclass
class RumocaLibrary:
    """A Modelica library folder (a package with ``package.mo``) and its library path."""

    folder: Path
    path: list[Path] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.folder = self.folder.resolve()  # one name per file: rumoca keys sources by path
        self.path = [entry.resolve() for entry in self.path]
        self._session = rumoca.Session(roots=[str(self.folder), *map(str, self.path)])

    @property
    def entry(self) -> Path:
        """The file rumoca starts from: the package's ``package.mo``."""
        return self.folder / "package.mo"

    def flatten(self, model: str) -> FlatModel:
        """The flat scalar model of ``model`` (its full Modelica name)."""
        try:
            compiled = self._session.load(str(self.entry), model=model)
            flat = compiled.to_dict("flat")
        except rumoca.RumocaError as exc:
            raise BuildError(self._explain(model, str(exc))) from None
        try:
            return read_flat(flat, model)
        except UnsupportedConstructError as exc:
            place = self._place(exc.span, compiled)
            raise BuildError(
                f"{place}{model}: unsupported Modelica construct {exc.construct}"
            ) from None

    def _explain(self, model: str, message: str) -> str:
        """One line of a rumoca failure, with the place of the first diagnostic if it has
        one."""
        for diagnostic in rumoca.validate(str(self.entry), model=model):
            if diagnostic.level != "error":
                continue
            text = diagnostic.message
            where = re.search(r"\[([^\]\s]+\.mo):(\d+):(\d+)\]", text)
            first = next((ln.strip(" ×") for ln in text.splitlines() if ln.strip(" ×")), "")
            if where:
                place = f"{self._relative(Path(where.group(1)))}:{where.group(2)}:{where.group(3)}"
                return f"{place}: {model}: {first}"
        detail = message.split("could not be compiled: ", 1)[-1].splitlines()[0]
        reference = re.search(r"unresolved [a-z ]+: '([^']+)'", detail)
        if reference:
            places = self._find(reference.group(1)) or self._find(reference.group(1).split(".")[-1])
            if places:
                return f"{places[0]}: {model}: {detail}"
        return f"{self._relative(self.entry)}: {model}: {detail}"

    def _place(self, span: dict | None, compiled: rumoca.Model) -> str:
        """``file:line:column: `` of a rumoca source span, or nothing when unknown."""
        if not span or "source" not in span:
            return ""
        try:
            files = compiled.to_dict("dae")["source_map"]["files"]
        except rumoca.RumocaError:
            return ""
        text = next((t for ident, _, t in files if int(ident) == int(span["source"])), None)
        path = next((p for ident, p, _ in files if int(ident) == int(span["source"])), None)
        if text is None or path is None:
            return ""
        start = min(int(span.get("start", 0)), len(text))
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        return f"{self._relative(Path(path))}:{line}:{column}: "

    def _relative(self, path: Path) -> str:
        try:
            return str(path.resolve().relative_to(self.folder.resolve().parent))
        except ValueError:
            return str(path)

    def _find(self, identifier: str) -> list[str]:
        pattern = re.compile(rf"\b{re.escape(identifier)}\b")
        places = []
        for path in sorted(self.folder.rglob("*.mo")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                column = pattern.search(line.split("//")[0])
                if column:
                    places.append(f"{self._relative(path)}:{number}:{column.start() + 1}")
        return places
