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
them, and every place in a message is that of the user's file
(:mod:`orchestrator.compiler.source_rewrites`).

Only sections without event operators or when-statements are wrapped (in those rumoca's checks
differ inside a when-statement); a section whose discrete variable would keep its pre value
on some path is refused (:func:`entry_dependent_discrete`).
"""

from __future__ import annotations

from pathlib import Path

from orchestrator.compiler.flat_model import assignment_targets
from orchestrator.compiler.source_algorithms import source_algorithms
from orchestrator.compiler.source_rewrites import Edit, Rewritten

# tokens after which a section's statements would mean something else inside a when-statement
EVENT_WORDS = {
    "when", "elsewhen", "reinit", "pre", "edge", "change", "sample", "initial", "terminal",
    "return", "break", "hold", "previous", "subSample", "superSample", "shiftSample",
    "backSample", "Clock", "interval", "firstTick",
}  # fmt: skip
OPENING = "when initial() then "
CLOSING = " end when;"


def wrapped(text: str) -> list[Edit]:
    """The insertions that put the statements of each algorithm section of a non-function
    class that uses no event operator in ``when initial() then ... end when;`` (a source
    rewriter, :mod:`orchestrator.compiler.source_rewrites`)."""
    if "algorithm" not in text:
        return []
    edits: list[Edit] = []
    for section in source_algorithms(text):
        if section.of_model and EVENT_WORDS.isdisjoint(section.words):
            edits += [
                Edit(section.start, section.start, " " + OPENING),
                Edit(section.end, section.end, CLOSING),
            ]
    return edits


def is_wrapper(rewritten: Rewritten, path: Path, offset: int) -> bool:
    """Whether a when-statement whose span starts at ``offset`` of the copy's ``path`` (its
    condition) is one :func:`wrapped` put in."""
    rewrite = rewritten.rewrite(path)
    return rewrite is not None and any(
        edit.text.endswith(OPENING)
        and offset == rewrite.new_offset(edit) + len(edit.text) - len(OPENING) + len("when ")
        for edit in rewrite.edits
    )


def unwrap(rewritten: Rewritten, flat: dict, path_of: dict[int, str]) -> list[dict]:
    """Take the wrappers off the algorithm sections of rumoca's flat form ``flat`` of the
    ``rewritten`` sources (``path_of``: rumoca's source ids to paths), in place; the sections
    unwrapped."""
    unwrapped = []
    for algorithm in flat.get("algorithms", []):
        statements = algorithm.get("statements") or []
        when = statements[0].get("When") if len(statements) == 1 else None
        span = (when or {}).get("span") or {}
        path = path_of.get(int(span.get("source", -1)))
        if path and len(when["blocks"]) == 1 and is_wrapper(rewritten, path, int(span["start"])):
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
