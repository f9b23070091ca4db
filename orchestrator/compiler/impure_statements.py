"""Call statements of impure external functions without outputs in functions, in a form
rumoca 0.10 translates.

A function that calls an impure function is impure (Modelica Language Specification 3.6, Sec.
12.3 asks that it be declared so; Modelica tools accept one that is not, with a warning). MSL
4.0.0's ``Math.Random.Utilities.initializeImpureRandom``, which the ``GlobalSeed`` of every
``Blocks.Noise`` model calls, is not declared impure and stores its state vector by the call
statement ``setInternalState(rngState, id)`` of an impure external C function without outputs.
rumoca 0.10 refuses the call from a function not declared impure ("is called from a pure
function body"), the function declared impure ("declares an impure Modelica body"), and any
call statement in a function ("without reading a result").

A source rewriter (:mod:`orchestrator.compiler.source_rewrites`) gives rumoca such a callee
``g`` (declared ``impure``, external, without outputs) as a function not declared impure with
the output :data:`EFFECT_OUTPUT`, which the C call is written to return; the build's C wrapper
calls the C function, which returns nothing, and gives that output 0 after it, and takes the
function for impure (:mod:`orchestrator.compiler.external_c`: made once at initialization, or
where its when-clause fires, as any impure call). In a function with an algorithm, each call
statement ``g(...);`` becomes ``mcx_effects := mcx_effects + g(...);`` (a protected Integer,
0 at the start), and each scalar Integer or Real output ``y`` adds it as the last statement,
``y := y + mcx_effects``: what the caller gives is unchanged, and it is not given without the
call being made (CasADi drops a call whose value no output reads). Such a caller is impure for
the build as it is for Modelica tools: its calls are the callee's.

Left as written, and so refused as before: a caller with a ``return`` (the outputs would be
given before the last statement), without a scalar Integer or Real output, and a call of a
name that also names a function other than such callees (whose value would be added).
"""

from __future__ import annotations

from orchestrator.compiler.class_rewrites import SourceClass, source_classes
from orchestrator.compiler.source_algorithms import SourceAlgorithm, source_algorithms
from orchestrator.compiler.source_rewrites import Edit, LibraryRewriter, SourceRewriter
from orchestrator.compiler.tokens import tokens

Token = tuple[int, str]
EFFECT_OUTPUT = "mcx_effect"  # the output a callee is given: 0 once its C function is called
EFFECTS = "mcx_effects"  # the caller's sum of its callees' outputs
STATEMENT_STARTS = {";", "then", "else", "loop"}


def _own(listed: list[Token], cls: SourceClass) -> list[Token]:
    """The tokens of ``cls`` from its name to its ``end``, without those of the classes
    declared in it."""
    nested = [(c.start, c.stop) for c in cls.nested or []]
    return [
        (p, t)
        for p, t in listed
        if cls.name_at <= p < cls.end_name_at and not any(a <= p < b for a, b in nested)
    ]


def _effect_function(own: list[Token], cls: SourceClass) -> bool:
    """Whether ``cls`` is an impure external function without outputs that names its C
    function (``external "C" f(...)``)."""
    words = [t for _, t in own]
    if cls.kind != "function" or "impure" not in cls.prefixes or "output" in words:
        return False
    if "external" not in words:
        return False
    k = words.index("external") + 1
    k += words[k].startswith('"') if k < len(words) else 0
    return k + 1 < len(words) and words[k].isidentifier() and words[k + 1] == "("


def _declared_functions(texts: list[str]) -> tuple[set[str], set[str]]:
    """The names of the effect functions of ``texts`` (:func:`_effect_function`) and of all
    their other functions."""
    effects, others = set(), set()
    for text in texts:
        if "function" not in text:
            continue
        listed = list(tokens(text))
        for cls in source_classes(text):
            if cls.kind == "function":
                found = _effect_function(_own(listed, cls), cls)
                (effects if found else others).add(cls.name)
    return effects, others


def _callee_edits(text: str, listed: list[Token], cls: SourceClass) -> list[Edit]:
    """``impure`` taken off an effect function, the output :data:`EFFECT_OUTPUT` declared
    after its name (and description) and returned by its C call."""
    own = _own(listed, cls)
    words = [t for _, t in own]
    impure = next(p for p, t in tokens(text, cls.start) if t == "impure")
    head = own[1] if len(own) > 1 and own[1][1].startswith('"') else own[0]
    after_head = head[0] + len(head[1])
    k = words.index("external") + 1
    k += words[k].startswith('"')
    return [
        Edit(impure, impure + len("impure"), ""),
        Edit(after_head, after_head, f" output Integer {EFFECT_OUTPUT};"),
        Edit(own[k][0], own[k][0], f"{EFFECT_OUTPUT} = "),
    ]


def _scalar_outputs(own: list[Token]) -> list[str]:
    """The names of the scalar Integer and Real outputs declared in ``own``."""
    names = []
    for k, (_, token) in enumerate(own[:-2]):
        kind, name, after = own[k + 1][1], own[k + 2][1], own[k + 3][1] if k + 3 < len(own) else ""
        scalar = name.isidentifier() and after != "["
        if token == "output" and kind in ("Integer", "Real") and scalar:
            names.append(name)
    return names


def _calls(statements: list[Token], effects: set[str]) -> list[int]:
    """The positions of the call statements ``g(...);`` of ``effects`` among a section's
    tokens."""
    found, depth = [], 0
    for k, (position, token) in enumerate(statements[:-1]):
        previous = statements[k - 1][1] if k else ";"
        depth += (token in "([{") - (token in ")]}")
        called = statements[k + 1][1] == "(" and token.split(".")[-1] in effects
        if depth == 0 and previous in STATEMENT_STARTS and called:
            found.append(position)
    return found


def _caller_edits(
    listed: list[Token], cls: SourceClass, sections: list[SourceAlgorithm], effects: set[str]
) -> list[Edit]:
    """The edits of a function with an algorithm that calls ``effects`` (see the module's
    text); none where it calls none, returns, or has no scalar Integer or Real output."""
    own = _own(listed, cls)
    positions = {p for p, _ in own}
    mine = [s for s in sections if s.statements[0][0] in positions]
    calls = [p for s in mine for p in _calls(s.statements, effects)]
    outputs = _scalar_outputs(own)
    if not calls or not outputs or any("return" in s.words for s in mine):
        return []
    keyword = mine[0].start - len("algorithm")
    declared = f'protected Integer {EFFECTS} = 0 "the effects made (0)"; '
    added = "".join(f" {y} := {y} + {EFFECTS};" for y in outputs)
    return [
        Edit(keyword, keyword, declared),
        *(Edit(p, p, f"{EFFECTS} := {EFFECTS} + ") for p in calls),
        Edit(mine[-1].end, mine[-1].end, added),
    ]


def _rewriter(effects: set[str]) -> SourceRewriter:
    """The rewriter of one file's text, given the names of the effect functions."""

    def rewrite(text: str) -> list[Edit]:
        if not any(name in text for name in effects):
            return []
        listed = list(tokens(text))
        sections = list(source_algorithms(text))
        edits: list[Edit] = []
        for cls in source_classes(text):
            if cls.kind != "function":
                continue
            if cls.name in effects and _effect_function(_own(listed, cls), cls):
                edits += _callee_edits(text, listed, cls)
            else:
                edits += _caller_edits(listed, cls, sections, effects)
        return edits

    return rewrite


def _prepare(texts: list[str]) -> SourceRewriter:
    effects, others = _declared_functions(texts)
    return _rewriter(effects - others)


impure_statements = LibraryRewriter(_prepare)
