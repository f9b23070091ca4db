"""Package constants and functions that rumoca 0.10 does not take from the package a library
names, found in the sources.

A medium written as the MSL writes them is a package of constants and functions, extended
with modifications (``package Water extends PartialMedium(cp = 4184)``) and redeclared into
components (``redeclare package Medium = Water``). Two forms of it build silently wrong with
rumoca 0.10, where the outer modification should win (Modelica Language Specification 3.6,
Sec. 7.2.4):

- a constant modified again where a package that already modifies it is extended or named in
  a short class: ``package LightWater extends Water(cp = 4000)``, ``package LightWater =
  Water(cp = 4000)`` or ``redeclare package Medium = Water(cp = 4000)``: the constant keeps
  Water's 4184;
- a function of a replaceable package called in a model that an ``extends`` clause
  redeclares the package of (``extends Tank(redeclare package Medium = Oil)``, ``Tank``
  calling ``Medium.f(T)``): the call keeps the function of the package ``Tank`` declares.

Each is found in the classes the model uses and refused in one line at the modification.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orchestrator.compiler.redeclarations import (
    class_closure,
    enclosing_class,
    end_of,
    inside,
    modified_names,
)
from orchestrator.compiler.tokens import tokens

CANDIDATE = re.compile(r"\bpackage\s+\w+\s*=\s*[\w.]+\s*\(|\bextends\s+[\w.]+\s*\(")
DEFINITION = re.compile(r"\b(model|block|record|class|connector|package|function|type)\s+(\w+)\b")
SHORT = re.compile(r"\s*=")  # after a definition's name: a short class
KEYWORDS = {"each", "final", "redeclare", "replaceable", "package", "model", "record", "function"}


@dataclass(frozen=True)
class Site:
    """A class modification of a package: ``package Name = Base(...)`` or ``extends
    Base(...)``, with the names it modifies and the package it defines (``owner``)."""

    source: int
    start: int
    owner: str  # the package the modification defines ("" for an extends of a model)
    redeclaration: bool  # ``redeclare package Medium = Base(...)``: used where it stands
    base: str  # last name of the class modified
    names: frozenset[str]  # names given values
    redeclared: frozenset[str]  # packages redeclared in it (``redeclare package Medium = ..``)


@dataclass(frozen=True)
class Dropped:
    """A modification rumoca 0.10 does not follow: where, and what in words."""

    source: int
    start: int
    what: str


def _regions(text: str) -> list[tuple[int, int, str, str]]:
    """(start, end, kind, name) of the long class definitions of ``text``."""
    found = []
    for match in DEFINITION.finditer(text):
        kind, name = match.groups()
        if SHORT.match(text, match.end()):
            continue
        end = end_of(text, name, match.end())
        if end is not None:
            found.append((match.start(), end, kind, name))
    return found


def sites(source: int, text: str) -> list[Site]:
    """The class modifications of packages and the extends clauses of ``text``."""
    if not CANDIDATE.search(text):
        return []
    listed = [(p, t) for p, t in tokens(text) if not t.startswith('"')]
    regions = _regions(text)
    found = []
    for k, (start, token) in enumerate(listed[:-4]):
        after = [t for _, t in listed[k + 1 : k + 5]]
        redeclaration = False
        if token == "package" and after[1] == "=" and after[3] == "(":
            names, redeclared, _ = modified_names(listed, k + 4, KEYWORDS)
            owner, base = after[0], after[2]
            before = [t for _, t in listed[max(k - 3, 0) : k]]
            redeclaration = "redeclare" in before
        elif token == "extends" and after[1] == "(":
            names, redeclared, _ = modified_names(listed, k + 2, KEYWORDS)
            around = [r for r in regions if r[0] <= start < r[1]]
            innermost = max(around, default=None)
            owner = innermost[3] if innermost and innermost[2] == "package" else ""
            base = after[0]
        else:
            continue
        last = base.split(".")[-1]
        found.append(
            Site(source, start, owner, redeclaration, last, frozenset(names), frozenset(redeclared))
        )
    return found


def _modified_by(base: str, every: list[Site], seen: set[str]) -> set[str]:
    """The names the package ``base`` (a last name) and the packages it extends modify."""
    if base in seen:
        return set()
    seen.add(base)
    names: set[str] = set()
    for site in every:
        if site.owner == base:
            names |= site.names | _modified_by(site.base, every, seen)
    return names


def dropped_package_modification(
    model: str, flat: dict, sources: dict[int, tuple[str, str]]
) -> Dropped | None:
    """The first modification of a package constant or redeclaration of a package in an
    extends clause that the flat model of ``model`` would not follow (see the module's
    docstring), in the classes the model uses; None when there is none."""
    every = [s for source, (_, text) in sources.items() for s in sites(source, text)]
    suspects = []
    for site in every:
        twice = sorted(site.names & _modified_by(site.base, every, set()))
        if site.owner and twice:
            suspects.append(
                (
                    site,
                    f"modification of package constant '{twice[0]}' that '{site.base}' already "
                    f"modifies (rumoca 0.10 keeps {site.base}'s value, in the package's "
                    "functions at least: extend the package that declares the constant "
                    "instead)",
                )
            )
        for package in sorted(site.redeclared):
            called = re.compile(rf"\b{re.escape(package)}\.\w+\s*\(")
            regions = class_closure([site.base], sources)
            if any(called.search(sources[s][1][a:b]) for s, a, b in regions):
                suspects.append(
                    (
                        site,
                        f"redeclaration of package '{package}' in an extends clause of a class "
                        f"that calls its functions (rumoca 0.10 calls those of the package "
                        f"'{site.base}' declares: redeclare it in a component's modification)",
                    )
                )
    if not suspects:
        return None
    used = class_closure([model.split(".")[-1]], sources)
    spans = [v.get("source_span") or {} for v in flat["variables"].values()]
    for span in {(int(s["source"]), int(s["start"])) for s in spans if "source" in s}:
        if span[0] in sources and not inside(*span, used):
            used += enclosing_class(span, sources)
    named = {
        part
        for s, a, b in used
        for _, token in tokens(sources[s][1][a:b])
        if not token.startswith('"')
        for part in token.split(".")
    }
    for site, what in suspects:
        if inside(site.source, site.start, used) or (
            site.owner and not site.redeclaration and site.owner in named
        ):
            return Dropped(site.source, site.start, what)
    return None
