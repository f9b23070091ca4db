"""Places of the statements in algorithm sections that rumoca 0.10 refuses without a place,
and of ``sample(...)`` and of references to an outer component's ``fixed = false`` parameters
in an initial equation or algorithm.

rumoca 0.10 refuses a call statement in a model's algorithm section (``reinit(v, 0);``,
``terminate("done");``, ``print(x);``: "function-call assignment must retain at least one
output") and a when-statement inside an if-, for- or while-statement (which the Modelica
Language Specification 3.6, Sec. 11.2.7.1 forbids) without saying where. The build finds the
first such statement in the library's source text from the tokens of its algorithm sections
(:mod:`orchestrator.compiler.source_algorithms`).
"""

from __future__ import annotations

from collections.abc import Callable

from orchestrator.compiler.source_algorithms import BLOCK_ENDS, SECTION_ENDS, source_algorithms
from orchestrator.compiler.tokens import tokens

BLOCKS = {"if", "for", "while", "when"}
KEYWORDS = BLOCKS | {"elseif", "elsewhen", "else", "end", "return", "break", "assert"}
STATEMENT_STARTS = {";", "then", "else", "loop"}


def refused_statement(text: str, nested_when: bool) -> int | None:
    """The position in ``text`` of the first call statement (``name(...);``) in an algorithm
    section of a class other than a function, not an initial one; with ``nested_when``, of
    the first when-statement inside an if-, for- or while-statement of any algorithm
    section. None where there is none."""
    for section in source_algorithms(text):
        if nested_when or section.of_model:
            position = _first_refused(section.statements, nested_when)
            if position is not None:
                return position
    return None


def sample_in_initial_section(text: str) -> int | None:
    """The position in ``text`` of the first ``sample(`` in an initial equation or initial
    algorithm section, which rumoca 0.10 refuses naming no place; None where there is none."""
    return _first_in_initial_sections(
        text, lambda token, following: (token, following) == ("sample", "(")
    )


def reference_in_initial_section(text: str, reference: str) -> int | None:
    """The position in ``text`` of the first component reference through a component
    (``world.seed``) that the instance's path ``reference`` (``body.world.seed``) ends with,
    in an initial equation or initial algorithm section; None where there is none. rumoca
    0.10 calls an outer component's ``fixed = false`` parameter read there in ``pre(s) =
    {world.seed, 1}`` an unresolved reference, naming no place."""
    return _first_in_initial_sections(
        text, lambda token, _: "." in token and f".{reference}".endswith(f".{token}")
    )


def _first_in_initial_sections(text: str, matches: Callable[[str, str], bool]) -> int | None:
    """The position in ``text`` of the first token in an initial equation or initial algorithm
    section that ``matches`` (the token and the one after it); None where there is none."""
    listed = list(tokens(text))
    inside = False
    for k, (position, token) in enumerate(listed):
        previous = listed[k - 1][1] if k else ""
        following = listed[k + 1][1] if k + 1 < len(listed) else ""
        if token in ("equation", "algorithm") and previous == "initial":
            inside = True
        elif (
            token in SECTION_ENDS
            or (token == "initial" and following != "(")
            or (token == "end" and following not in BLOCK_ENDS)  # the class's end
        ):
            inside = False
        elif inside and matches(token, following):
            return position
    return None


def _first_refused(statements: list[tuple[int, str]], nested_when: bool) -> int | None:
    """The position of the first call statement among the tokens ``statements`` of a section
    (with ``nested_when``: of the first when-statement inside an if-, for- or while-statement);
    None where there is none."""
    opened: list[str] = []  # if, for, while and when statements open at this point
    in_expression = False  # past an assignment's ':=' or inside brackets, up to the next ';'
    depth = 0
    for k, (position, token) in enumerate(statements):
        previous = statements[k - 1][1] if k else ";"
        following = statements[k + 1][1] if k + 1 < len(statements) else ""
        depth += (token in "([{") - (token in ")]}")
        if token == "=" and previous == ":":  # ':=' comes as two tokens
            in_expression = True
        elif token == ";":
            in_expression = False
        if in_expression or depth:
            continue  # an if-expression's 'then' and 'else' start no statement
        if token == "end" and following in BLOCKS:
            opened = opened[:-1]
        elif previous in STATEMENT_STARTS and token in BLOCKS:
            if nested_when and token == "when" and any(b != "when" for b in opened):
                return position
            opened.append(token)
        elif (
            not nested_when
            and previous in STATEMENT_STARTS
            and token not in KEYWORDS
            and following == "("
        ):
            return position
    return None


def loop_beyond_elements(text: str) -> int | None:
    """The position in ``text`` of the first for-statement in a model's algorithm section
    whose body does more than assign array elements subscripted by its index alone (``w[i]
    := ...;``): a running value (``z := div(z, 2);``, MSL's ``AD_Converter``), a branch, a
    nested loop. rumoca 0.10 translates only such element assignments ("event tensor loop
    must cover every target axis exactly once") and names no place. None where there is none
    (a loop over part of an array's range is refused too and not found here)."""
    for section in source_algorithms(text):
        if section.of_model:
            position = _first_loop_beyond_elements(section.statements)
            if position is not None:
                return position
    return None


def _first_loop_beyond_elements(statements: list[tuple[int, str]]) -> int | None:
    for k, (position, token) in enumerate(statements):
        previous = statements[k - 1][1] if k else ";"
        if token != "for" or previous not in STATEMENT_STARTS or k + 2 >= len(statements):
            continue
        index = statements[k + 1][1]
        body = next((j for j in range(k, len(statements)) if statements[j][1] == "loop"), None)
        if body is None:
            return position
        j = body + 1
        while j < len(statements) and statements[j][1] != "end":
            target = [t for _, t in statements[j : j + 6]]
            if target[1:] != ["[", index, "]", ":", "="] or target[0] in KEYWORDS:
                return position
            while j < len(statements) and statements[j][1] != ";":  # to the statement's end
                j += 1
            j += 1
    return None
