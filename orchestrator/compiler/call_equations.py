"""Call equations of functions without outputs, which rumoca 0.10 drops without a word.

An equation may be a call of a function without outputs, ``check(x);`` (Modelica Language
Specification 3.6, Sec. 8.3: the grammar's ``equation`` of a component reference with
function call arguments), made for the function's asserts or an effect such as printing.
rumoca 0.10 leaves such an equation out of the flat model: the asserts in the function would
never be checked. The build finds them in the source texts rumoca read, in the classes the
model uses: it refuses the model in one line at the first one that always holds, and names each
one in a branch of an if- or when-equation in a warning (a branch that may never be active, as
MSL's ``LimPID`` calls ``Streams.error`` only for a start value outside its limits).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from orchestrator.compiler.redeclarations import class_closure, enclosing_class, inside
from orchestrator.compiler.source_algorithms import BLOCK_ENDS, SECTION_ENDS
from orchestrator.compiler.tokens import tokens

# calls that are equations of their own, which rumoca translates (and ``Connections.branch``,
# ``Connections.root`` ... of overdetermined connectors, by their prefix)
SPECIAL = {"assert", "terminate", "reinit", "connect", "annotation"}
KEYWORDS = BLOCK_ENDS | {"elseif", "elsewhen", "else", "end", "equation", "initial"}
EQUATION_STARTS = {";", "equation", "then", "else", "loop"}


@dataclass(frozen=True)
class CallEquation:
    """A call equation in source ``source`` (rumoca's id) at offset ``start``; conditional
    where it stands in a branch of an if- or when-equation."""

    source: int
    start: int
    function: str
    conditional: bool


@functools.cache  # a library's texts, read again for each of its models
def call_equations(text: str) -> tuple[tuple[int, str, bool], ...]:
    """The offsets in ``text``, the called names and whether they stand in a branch of an if-
    or when-equation, of the call equations in its equation sections (initial ones too)."""
    listed = list(tokens(text))
    found = []
    inside_equations, in_expression, depth = False, False, 0
    opened: list[str] = []  # the if-, when- and for-equations open at a token
    for k, (position, token) in enumerate(listed):
        previous = listed[k - 1][1] if k else ""
        following = listed[k + 1][1] if k + 1 < len(listed) else ""
        depth += (token in "([{") - (token in ")]}")
        if depth:
            continue
        if token == "=" and previous not in "<>=:" and following != "=":
            in_expression = True  # the right-hand side of an equation, up to its ';'
        elif token == ";":
            in_expression = False
        if token == "equation":
            inside_equations, opened = True, []
        elif (
            token in SECTION_ENDS
            or (token == "initial" and following != "(")
            or (token == "end" and following not in BLOCK_ENDS)  # the class's end
        ):
            inside_equations = False
        elif not inside_equations or in_expression:
            continue
        elif token == "end":
            opened = opened[:-1]
        elif previous in EQUATION_STARTS and token in BLOCK_ENDS:
            opened.append(token)
        elif (
            previous in EQUATION_STARTS
            and following == "("
            and token not in SPECIAL | KEYWORDS
            and not token.startswith("Connections.")
            and _after_arguments(listed, k + 1) == ";"
        ):
            found.append((position, token, bool({"if", "when"} & set(opened))))
    return tuple(found)


def _after_arguments(listed: list[tuple[int, str]], opening: int) -> str:
    """The token after the parenthesis that closes the one at index ``opening``."""
    depth = 0
    for k in range(opening, len(listed)):
        depth += (listed[k][1] in "([{") - (listed[k][1] in ")]}")
        if depth == 0:
            return listed[k + 1][1] if k + 1 < len(listed) else ""
    return ""


def dropped_call_equations(
    model: str, flat: dict, sources: dict[int, tuple[str, str]]
) -> list[CallEquation]:
    """The call equations in the classes the flat model of ``model`` uses (the model, a class
    it extends, or a class whose variables or equations it has), in the order of the
    sources."""
    calls = [
        CallEquation(source, position, name, conditional)
        for source, (_, text) in sources.items()
        if "(" in text
        for position, name, conditional in call_equations(text)
    ]
    if not calls:
        return []
    used = class_closure([model.split(".")[-1]], sources)
    spans = [v.get("source_span") or {} for v in flat["variables"].values()]
    spans += [e.get("span") or {} for e in flat.get("equations", [])]
    found = []
    for call in calls:
        around = enclosing_class((call.source, call.start), sources)
        if inside(call.source, call.start, used) or any(
            "source" in s and inside(int(s["source"]), int(s["start"]), around) for s in spans
        ):
            found.append(call)
    return found
