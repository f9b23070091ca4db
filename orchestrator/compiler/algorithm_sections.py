"""Algorithm sections in models and blocks that rumoca 0.10 does not translate, made buildable.

An algorithm section in a model is one atomic vector equation: its statements run in order,
each variable it assigns entering with its start value (a discrete one with its pre value),
and the section gives the values they hold at its end (Modelica Language Specification 3.6,
Sec. 11.1). rumoca 0.10 flattens such a section faithfully but its translation to a DAE
refuses those that assign several variables or read a variable after assigning it ("a
multi-output algorithm requires one checked atomic vector-equation owner", "sequential read
of ..."), while it translates the same statements inside a when-statement. The build
translates a section's statements itself from the flat form
(:mod:`orchestrator.compiler.flat_model`), so rumoca is given a copy of the library in which
each such section's statements stand inside ``when initial() then ... end when;``, and the
wrapper is taken off the flat form again: the statements reach the build as the user wrote
them, and every place in a message is that of the user's file (:class:`Rewritten`).

Only sections without event operators or when-statements are wrapped (in those rumoca's checks
differ inside a when-statement); a section whose discrete variable would keep its pre value
on some path is refused (:func:`entry_dependent_discrete`).
"""

from __future__ import annotations

import shutil
import tempfile
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.compiler.flat_model import assignment_targets
from orchestrator.compiler.source_algorithms import source_algorithms

# tokens after which a section's statements would mean something else inside a when-statement
EVENT_WORDS = {
    "when", "elsewhen", "reinit", "pre", "edge", "change", "sample", "initial", "terminal",
    "return", "break", "hold", "previous", "subSample", "superSample", "shiftSample",
    "backSample", "Clock", "interval", "firstTick",
}  # fmt: skip
OPENING = "when initial() then "
CLOSING = " end when;"


@dataclass
class Rewrite:
    """A source text with its wrapped sections: the text given to rumoca, the insertions
    (position in the user's text, inserted text) in order, and the positions in the new text
    where each wrapper's condition starts (rumoca's span of the when-statement)."""

    text: str
    insertions: list[tuple[int, str]] = field(default_factory=list)
    conditions: set[int] = field(default_factory=set)

    def original_offset(self, offset: int) -> int:
        """The position in the user's text of ``offset`` in the new text (inserted text maps to
        the place it was inserted at)."""
        shift = 0
        for position, inserted in self.insertions:
            if offset < position + shift:
                break
            if offset < position + shift + len(inserted):
                return position
            shift += len(inserted)
        return offset - shift


def wrapped(text: str) -> Rewrite:
    """``text`` with the statements of each algorithm section of a non-function class that
    uses no event operator in ``when initial() then ... end when;``."""
    if "algorithm" not in text:
        return Rewrite(text)
    insertions: list[tuple[int, str]] = []
    for section in source_algorithms(text):
        if section.of_model and EVENT_WORDS.isdisjoint(section.words):
            insertions += [(section.start, " " + OPENING), (section.end, CLOSING)]
    rewrite = Rewrite(text, insertions)
    pieces, previous, shift = [], 0, 0
    for position, inserted in insertions:
        pieces += [text[previous:position], inserted]
        if inserted.endswith(OPENING):
            rewrite.conditions.add(position + shift + len(inserted) - len(OPENING) + len("when "))
        previous, shift = position, shift + len(inserted)
    rewrite.text = "".join([*pieces, text[previous:]])
    return rewrite


class Rewritten:
    """A copy of a library folder (its ``.mo`` files and ``package.order`` files, in a temporary
    folder kept while this object lives) with its algorithm sections wrapped, and the way back
    from the copy's paths and positions to the user's."""

    def __init__(self, folder: Path) -> None:
        self._temporary = tempfile.TemporaryDirectory(prefix="algorithm-sections-")
        self.original = folder
        self.folder = Path(self._temporary.name).resolve() / folder.name
        self.rewrites: dict[Path, Rewrite] = {}  # by the copy's path
        for path in sorted(folder.rglob("*")):
            if path.suffix != ".mo" and path.name != "package.order":
                continue
            copy = self.folder / path.relative_to(folder)
            copy.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix != ".mo":
                shutil.copyfile(path, copy)
                continue
            rewrite = wrapped(path.read_text(encoding="utf-8"))
            copy.write_text(rewrite.text, encoding="utf-8")
            if rewrite.insertions:
                self.rewrites[copy] = rewrite

    def user_path(self, path: Path) -> Path:
        """The user's file of a path in the copy (any other path as it is)."""
        try:
            return self.original / Path(path).resolve().relative_to(self.folder)
        except ValueError:
            return Path(path)

    def user_offset(self, path: Path, offset: int) -> int:
        """The position in the user's file of ``offset`` in the copy's file ``path``."""
        rewrite = self.rewrites.get(Path(path).resolve())
        return rewrite.original_offset(offset) if rewrite else offset

    def user_line_column(self, path: Path, line: int, column: int) -> tuple[int, int]:
        """The user's line and column of a line and column (from 1) in the copy's ``path``."""
        rewrite = self.rewrites.get(Path(path).resolve())
        if rewrite is None:
            return line, column
        starts = [0] + [k + 1 for k, c in enumerate(rewrite.text) if c == "\n"]
        offset = rewrite.original_offset(starts[min(line, len(starts)) - 1] + column - 1)
        text = self.user_path(path).read_text(encoding="utf-8")
        starts = [0] + [k + 1 for k, c in enumerate(text) if c == "\n"]
        row = bisect_right(starts, offset)
        return row, offset - starts[row - 1] + 1

    def is_wrapper(self, path: Path, offset: int) -> bool:
        """Whether a when-statement whose span starts at ``offset`` of the copy's ``path`` is
        one this copy put in."""
        rewrite = self.rewrites.get(Path(path).resolve())
        return rewrite is not None and offset in rewrite.conditions

    def unwrap(self, flat: dict, path_of: dict[int, str]) -> list[dict]:
        """Take the wrappers off the algorithm sections of rumoca's flat form ``flat``
        (``path_of``: rumoca's source ids to paths), in place; the sections unwrapped."""
        unwrapped = []
        for algorithm in flat.get("algorithms", []):
            statements = algorithm.get("statements") or []
            when = statements[0].get("When") if len(statements) == 1 else None
            span = (when or {}).get("span") or {}
            path = path_of.get(int(span.get("source", -1)))
            if path and len(when["blocks"]) == 1 and self.is_wrapper(path, int(span["start"])):
                algorithm["statements"] = when["blocks"][0]["stmts"]
                unwrapped.append(algorithm)
        return unwrapped


def _reads(node: object, names: set[str]) -> dict | None:
    """The first reference in expression ``node`` to a variable of ``names``."""
    if isinstance(node, dict):
        reference = node.get("VarRef")
        if isinstance(reference, dict) and reference["name"]["name"].split("[")[0] in names:
            return reference
        for value in node.values():
            found = _reads(value, names)
            if found:
                return found
    elif isinstance(node, list):
        for value in node:
            found = _reads(value, names)
            if found:
                return found
    return None


def _target(comp: dict) -> str:
    return ".".join(part["ident"] for part in comp["parts"])


def _assigned_before_read(
    statements: list, discrete: set[str], assigned: set[str]
) -> tuple[set[str], dict | None]:
    """The variables of ``discrete`` that ``statements`` assign whole on every path (``assigned``
    those assigned before them), and the first read of one of ``discrete`` not yet assigned
    (None if there is none)."""
    assigned = set(assigned)
    for statement in statements:
        kind, body = next(iter(statement.items())) if isinstance(statement, dict) else ("", {})
        unassigned = discrete - assigned
        if kind == "Assignment":
            read = _reads([body["value"], body["comp"]], unassigned)
            if read:
                return assigned, read
            if not any(part["subs"] for part in body["comp"]["parts"]):
                assigned.add(_target(body["comp"]))
        elif kind == "FunctionCall":
            read = _reads(body["args"], unassigned)
            if read:
                return assigned, read
            whole = [t for t in body["outputs"] if t.get("parts")]
            assigned |= {_target(t) for t in whole if not any(p["subs"] for p in t["parts"])}
        elif kind == "If":
            branches = [block["stmts"] for block in body["cond_blocks"]]
            branches.append(body.get("else_block") or [])
            read = _reads([block["cond"] for block in body["cond_blocks"]], unassigned)
            if read:
                return assigned, read
            results = [_assigned_before_read(b, discrete, assigned) for b in branches]
            read = next((r for _, r in results if r), None)
            if read:
                return assigned, read
            assigned = set.intersection(*(a for a, _ in results))
        else:  # a loop may run no pass: nothing it assigns is assigned on every path
            inner = body.get("equations") or body.get("stmts") or []
            read = _reads({k: v for k, v in body.items() if k not in ("equations", "stmts")},
                          unassigned)  # fmt: skip
            read = read or _assigned_before_read(inner, discrete, assigned)[1]
            if read:
                return assigned, read
    return assigned, None


def entry_dependent_discrete(algorithm: dict, flat: dict) -> tuple[str, dict | None] | None:
    """A discrete variable (Integer, Boolean, enumeration, ``discrete Real``) that ``algorithm``
    reads before assigning it or leaves unassigned on some path, with the place of that read
    or of its first assignment: its value would then be its pre value, which the build keeps
    only in when-statements. None when there is none."""
    variables = flat.get("variables", {})
    targets: dict[str, dict] = {}
    for comp in assignment_targets(algorithm["statements"]):
        targets.setdefault(_target(comp), comp)
    discrete = {
        name
        for name in targets
        if name in variables
        and (
            variables[name].get("is_discrete_type")
            or str(variables[name].get("variability")).startswith("Discrete")
        )
    }
    assigned, read = _assigned_before_read(algorithm["statements"], discrete, set())
    if read:
        return read["name"]["name"].split("[")[0], read.get("span")
    left = sorted(discrete - assigned)
    return (left[0], targets[left[0]].get("span")) if left else None
