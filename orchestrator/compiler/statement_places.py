"""Places of the statements in algorithm sections that rumoca 0.10 refuses without a place.

rumoca 0.10 refuses a call statement in a model's algorithm section (``reinit(v, 0);``,
``terminate("done");``, ``print(x);``: "function-call assignment must retain at least one
output") and a when-statement inside an if-, for- or while-statement (which the Modelica
Language Specification 3.6, Sec. 11.2.7.1 forbids) without saying where. The build finds the
first such statement in the library's source text from its tokens.
"""

from __future__ import annotations

from orchestrator.compiler.tokens import tokens

CLASS_KINDS = {"model", "block", "class", "record", "connector", "package", "function", "type"}
SECTION_ENDS = {"equation", "public", "protected", "external", "annotation"}
BLOCKS = {"if", "for", "while", "when"}
KEYWORDS = BLOCKS | {"elseif", "elsewhen", "else", "end", "return", "break", "assert"}
STATEMENT_STARTS = {";", "algorithm", "then", "else", "loop"}


def refused_statement(text: str, nested_when: bool) -> int | None:
    """The position in ``text`` of the first call statement (``name(...);``) in an algorithm
    section of a class other than a function, not an initial one; with ``nested_when``, of
    the first when-statement inside an if-, for- or while-statement of any algorithm
    section. None where there is none."""
    found = list(tokens(text))
    classes: list[str] = []  # kinds of the classes open at this point, innermost last
    opened: list[str] = []  # if, for, while and when statements open at this point
    section = False
    for k, (position, token) in enumerate(found):
        previous = found[k - 1][1] if k else ""
        following = found[k + 1][1] if k + 1 < len(found) else ""
        if token in CLASS_KINDS and previous != "end":
            if k + 2 >= len(found) or found[k + 2][1] != "=":  # not a short class definition
                classes.append(token)
        elif token == "end" and following not in BLOCKS:
            classes = classes[:-1]
            section = False
        elif token == "algorithm":
            section, opened = previous != "initial" or nested_when, []
        elif token in SECTION_ENDS:
            section = False
        elif section and token == "end":
            opened = opened[:-1]
        elif section and previous in STATEMENT_STARTS and token in BLOCKS:
            if nested_when and token == "when" and any(b != "when" for b in opened):
                return position
            opened.append(token)
        elif (
            section
            and not nested_when
            and previous in STATEMENT_STARTS
            and token not in KEYWORDS
            and following == "("
            and classes[-1:] != ["function"]
        ):
            return position
    return None
