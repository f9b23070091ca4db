"""Places of the calls rumoca 0.10 refuses without one: a call of an impure function in a
function not declared impure, and a call of a function with several outputs in a
when-equation, ``(a, b) = f(u)``.

MSL 4.0.0's ``Blocks.Noise`` makes both: ``GlobalSeed``'s ``initializeImpureRandom`` is a
function not declared impure calling the impure ``setInternalState`` ("impure function ... is
called from a pure function body"; declared impure, rumoca refuses its algorithm: "declares
an impure Modelica body"), and ``PartialNoise`` draws by ``(r_raw, state) =
generator.random(pre(state))`` in a when-equation ("multi-output event calls require a checked
function-action owner"). rumoca names the function called or nothing; the build finds the
first such call in the source text from its tokens (strings, so documentation, and comments
left out).
"""

from __future__ import annotations

from orchestrator.compiler.tokens import tokens

# tokens before a name that make it no call: a declaration or a class's end
NOT_CALLED = {"function", "end", "extends", "import"}


def call_of(text: str, name: str) -> int | None:
    """The position in ``text`` of the first call of the function whose last name is
    ``name`` (``name(`` or ``A.B.name(``), None where there is none."""
    listed = list(tokens(text))
    for k, (position, token) in enumerate(listed[:-1]):
        previous = listed[k - 1][1] if k else ""
        last = token.rsplit(".", 1)[-1]
        if last == name and listed[k + 1][1] == "(" and previous not in NOT_CALLED:
            return position
    return None


def tuple_in_when(text: str) -> int | None:
    """The position in ``text`` of the first tuple equation or assignment, ``(a, b) = f(u)``,
    inside a when-equation or when-statement; None where there is none."""
    listed = list(tokens(text))
    opened = 0  # when-blocks open at this point
    in_expression = False  # past an equation's '=' (or ':='), up to the next ';'
    for k, (position, token) in enumerate(listed):
        previous = listed[k - 1][1] if k else ";"
        following = listed[k + 1][1] if k + 1 < len(listed) else ""
        if token == "when" and previous != "end":
            opened += 1
        elif token == "end" and following == "when":
            opened -= 1
        elif token == "=" and following != "=" and previous not in ("=", "<", ">"):
            in_expression = True  # an equation's or assignment's, no relation's
        elif token == ";":
            in_expression = False
        elif opened and not in_expression and token == "(" and previous in (";", "then", "else"):
            return position
    return None
