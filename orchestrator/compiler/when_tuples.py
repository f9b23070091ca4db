"""Calls of several outputs in when-equations, given to rumoca 0.10 as when-statements.

rumoca 0.10 refuses a tuple equation in a when-equation, ``when c then (r, s) =
f(pre(s)); end when;`` ("multi-output event calls require a checked function-action owner";
MSL's ``PartialNoise`` draws so: ``(r_raw, state) = generator.random(pre(state))``), and
translates the same call in a when-statement of an algorithm section of its own. A source
rewriter (:mod:`orchestrator.compiler.source_rewrites`) gives rumoca such a when-equation as
that when-statement, ``algorithm when c then (r, s) := f(pre(s)); end when; equation``, its
equations as assignments in their order.

The two mean the same where no equation of the when-equation reads a variable another one
(or itself) assigns, other than through ``pre``: then the statements' order does not matter,
each assigned variable keeps its value where the branch does not fire in both (Modelica
Language Specification 3.6, Sec. 8.3.5 and 11.1.2), and neither fires while the model
initializes. A when-equation with ``elsewhen``, with other than equations ``v = e`` and
``(a, b) = f(u)`` (``if``, ``for``, ``reinit``, ``assert``, ``terminate``), or whose equations
read what it assigns, stays as written and rumoca refuses it in one line as before.
"""

from __future__ import annotations

from orchestrator.compiler.source_rewrites import Edit
from orchestrator.compiler.tokens import tokens

Token = tuple[int, str]
SECTION_KEYWORDS = {"equation", "algorithm", "public", "protected", "end"}


def when_tuples(text: str) -> list[Edit]:
    """The edits that give rumoca 0.10 each when-equation of ``text`` holding a tuple
    equation as a when-statement of an algorithm section of its own (a source rewriter)."""
    if "when" not in text or ")" not in text:
        return []
    listed = list(tokens(text))
    edits: list[Edit] = []
    in_equations = False
    k = 0
    while k < len(listed):
        token = listed[k][1]
        previous = listed[k - 1][1] if k else ""
        if token in ("equation", "algorithm") and previous != "end":
            in_equations = token == "equation" and previous != "initial"
        elif token == "when" and previous != "end" and in_equations:
            stop = _block_end(listed, k)
            if stop is None:
                return edits
            edits += _rewritten(listed, k, stop)
            k = stop
        k += 1
    return edits


def _block_end(listed: list[Token], start: int) -> int | None:
    """The index of the ``;`` closing the when-equation whose ``when`` is at ``start``."""
    depth = 0
    for k in range(start + 1, len(listed) - 2):
        token, following = listed[k][1], listed[k + 1][1]
        if token == "when" and listed[k - 1][1] != "end":
            depth += 1
        elif token == "end" and following == "when":
            if depth == 0:
                return k + 2 if listed[k + 2][1] == ";" else None
            depth -= 1
    return None


def _rewritten(listed: list[Token], start: int, stop: int) -> list[Edit]:
    """The edits turning the when-equation ``listed[start:stop + 1]`` into a when-statement,
    none where it holds no tuple equation or the two would differ (module docstring)."""
    depth, then = 0, None
    for k in range(start + 1, stop):
        depth += (listed[k][1] in "([{") - (listed[k][1] in ")]}")
        if depth == 0 and listed[k][1] == "then":
            then = k
            break
    if then is None or any(word == "elsewhen" for _, word in listed[then:stop]):
        return []
    statements: list[list[Token]] = [[]]
    for position, token in listed[then + 1 : stop - 2]:  # up to 'end when'
        statements[-1].append((position, token))
        if token == ";":
            statements.append([])
    statements = [s for s in statements if s]
    equations = [_equation(s) for s in statements]
    if not equations or None in equations or not any(tuple_ for _, _, tuple_ in equations):
        return []
    assigned = {name for targets, _, _ in equations for name in targets}
    for (_, sign, _), statement in zip(equations, statements, strict=True):
        if _reads(statement[sign + 1 :], assigned):
            return []
    edits = [Edit(listed[start][0], listed[start][0], "algorithm\n  ")]
    for (_, sign, _), statement in zip(equations, statements, strict=True):
        edits.append(Edit(statement[sign][0], statement[sign][0] + 1, ":="))
    end = listed[stop][0] + 1
    return [*edits, Edit(end, end, "\n  equation")]


def _equation(statement: list[Token]) -> tuple[set[str], int, bool] | None:
    """The variables an equation ``v = e;`` or ``(a, b) = f(u);`` assigns (their names
    without subscripts), the index of its ``=`` and whether it is a tuple equation; None for
    any other statement."""
    words = [t for _, t in statement]
    depth = 0
    for k, word in enumerate(words):
        depth += (word in "([{") - (word in ")]}")
        if depth == 0 and word == "=" and words[k + 1 : k + 2] != ["="]:
            left = words[:k]
            if left[:1] == ["("] and left[-1:] == [")"]:
                names = {w for w in left[1:-1] if w not in ",[]" and not w[0].isdigit()}
                return names, k, True
            if left and left[0][0].isalpha() and left[0] not in ("if", "for", "reinit"):
                return {left[0]}, k, False
            return None
    return None


def _reads(expression: list[Token], names: set[str]) -> bool:
    """Whether the tokens ``expression`` read one of ``names`` other than inside ``pre(...)``."""
    inside_pre: list[int] = []  # bracket depths at which a pre( opened
    depth = 0
    for k, (_, word) in enumerate(expression):
        if word == "(":
            depth += 1
            if k and expression[k - 1][1] == "pre":
                inside_pre.append(depth)
        elif word == ")":
            if inside_pre and inside_pre[-1] == depth:
                inside_pre.pop()
            depth -= 1
        elif (word.split(".")[0] in names or word in names) and not inside_pre:
            return True
    return False
