"""Which Integer, Boolean and enumeration parameters of a flat model are structural.

A structural parameter decides the model's structure: it sizes an array, bounds a ``for``
range, chooses between the branches of an if-equation that hold different numbers of
equations, makes a component conditional (``RealInput u if use_u``), is marked
``annotation(Evaluate = true)`` (Modelica Language Specification 3.6, Sec. 18.3), or cannot be
changed from outside (``final``, ``protected``). Its value is substituted when the model is
built and the FMU does not list it, as no value set at run time could rebuild the structure.
Every other one only enters equations as a number or a condition (``y = if mode == 2 then a
else b``): the FMU lists it as a parameter of its type, settable like a Real one.

rumoca 0.10 names the parameters its flattening evaluated for array dimensions, ``for``
ranges and if-equation branches (``parameter_branch_selections``); conditional components it
leaves out without a trace, so their conditions are read from the sources. A parameter that
a structural one's binding refers to is structural too (``Sub s(m = k)`` with ``m`` sizing an
array makes ``k`` structural), and so is one in the condition of an if-equation that rumoca
gives as one residual (an if-expression as the whole residual) whose branches refer to
different unknowns: its value decides which variables the equation determines, which the
causalization must know. An if-expression inside an equation (``y = if on then x else 0``)
leaves the equation's unknowns as they are: its parameters are settable. One passed to a
function is structural too: a function's loops, sizes and branches may need its value as a
number, and the inlined function would grow by every branch it could take. A start value must
be a number where the FMU declares it (a discrete variable's, an input's, a guess), so the
parameters it refers to are structural, except in the start of a state with ``fixed =
true``, which the initialization computes (``Real c(start = n0, fixed = true)``: ``n0`` is a
``fixed`` parameter).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from orchestrator.compiler.pre_values import flat_nodes

TYPED = ("Integer", "Boolean")
# a declaration's condition attribute: ``if`` after the declared name, its subscripts or its
# modification, up to the annotation or the end of the declaration (strings and comments
# taken out first: QUIET)
CONDITION = re.compile(r"(\w+|[\])])\s+if\b([^;]*?)(?=;|\bannotation\b)")
QUIET = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)
NOT_DECLARED = {"end", "equation", "algorithm", "loop", "then", "else", "initial"}
NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _kind(variable: dict) -> str:
    declared = variable["variability"]
    return next(iter(declared)) if isinstance(declared, dict) else str(declared)


def references(node: object) -> Iterator[str]:
    """The names of the variables (and derivatives, ``der(x)`` as ``x'``) an expression of
    rumoca's flat dictionary refers to."""
    if isinstance(node, dict):
        call = node.get("BuiltinCall")
        if isinstance(call, dict) and call.get("function") == "Der":
            yield from (name + "'" for name in references(call.get("args")))
            return
        ref = node.get("VarRef")
        if isinstance(ref, dict) and isinstance(ref.get("name"), dict):
            yield ref["name"].get("name", "")
        for value in node.values():
            yield from references(value)
    elif isinstance(node, list):
        for value in node:
            yield from references(value)


def _call_arguments(node: object) -> Iterator[str]:
    """The names the arguments of the function calls in ``node`` refer to."""
    for found in flat_nodes(node):
        call = found.get("FunctionCall")
        if isinstance(call, dict):
            yield from references(call.get("args"))


def _deciding_conditions(residual: object, unknowns: set[str]) -> Iterator[str]:
    """The names in the conditions of an if-equation that rumoca gives as one residual (an
    if-expression as the whole residual, its branches the equations' residuals) whose
    branches refer to different sets of ``unknowns``; nested if-equations too."""
    branching = residual.get("If") if isinstance(residual, dict) else None
    if not isinstance(branching, dict):
        return
    branches = branching.get("branches", [])
    values = [value for _, value in branches] + [branching.get("else_branch")]
    seen = [set(references(value)) & unknowns for value in values]
    if any(s != seen[0] for s in seen[1:]):
        for condition, _ in branches:
            yield from references(condition)
    for value in values:
        yield from _deciding_conditions(value, unknowns)


def condition_names(texts: list[str]) -> set[str]:
    """The last name components of the names in the conditions of conditional component
    declarations (``RealInput u if use_u`` gives ``use_u``) in the source ``texts``; a text
    that reads like one elsewhere adds names too, which only keeps more parameters
    structural."""
    found: set[str] = set()
    for text in texts:
        for match in CONDITION.finditer(QUIET.sub(";", text)):
            if match.group(1) in NOT_DECLARED:
                continue
            found.update(name.rsplit(".", 1)[-1] for name in NAME.findall(match.group(2)))
    return found


def structural_parameters(flat: dict, texts: list[str] | None) -> set[str] | None:
    """The Integer, Boolean and enumeration parameters of rumoca's flat dictionary ``flat``
    that are structural (module docstring), the conditions of conditional components read
    from the source ``texts`` rumoca read (those that mention a parameter in question); None,
    all of them structural, where some are in question and the sources are not known."""
    variables = flat.get("variables", {})
    names = flat.get("variable_type_names", {})
    enumerations = set(flat.get("enumeration_types", []))
    typed = {
        name
        for name, v in variables.items()
        if _kind(v) == "Parameter"
        and (names.get(name) in TYPED or v.get("type_id") in enumerations)
    }
    final = {name for name, flag in flat.get("variable_final_flags", {}).items() if flag}
    found = {
        name
        for name in typed
        if variables[name].get("evaluate") or variables[name].get("is_protected") or name in final
    }
    for selection in flat.get("parameter_branch_selections", []):
        found.update(reference[0] for reference in selection.get("references", []) if reference)
    unknowns = {name for name, v in variables.items() if _kind(v) not in ("Parameter", "Constant")}
    unknowns |= {name + "'" for name in unknowns}
    derived = set()
    for equation in [*flat.get("equations", []), *flat.get("initial_equations", [])]:
        found.update(_deciding_conditions(equation.get("residual"), unknowns))
        derived.update(n[:-1] for n in references(equation.get("residual")) if n[-1:] == "'")
    for variable in variables.values():  # a function's loops and sizes may need numbers
        found.update(_call_arguments(variable.get("binding")))
    for equation in flat.get("equations", []):
        found.update(_call_arguments(equation.get("residual")))
    for name, variable in variables.items():
        fixed = variable.get("fixed")
        if name not in derived or not fixed or not all(fixed):
            found.update(references(variable.get("start")))
    last = {name.rsplit(".", 1)[-1] for name in typed - found}
    if last and texts is None:
        return None
    mentioning = [text for text in texts or [] if any(name in text for name in last)]
    conditions = condition_names(mentioning) & last
    found |= {name for name in typed if name.rsplit(".", 1)[-1] in conditions}
    frontier = list(found)
    while frontier:
        binding = variables.get(frontier.pop(), {}).get("binding")
        for name in references(binding):
            if name in variables and name not in found:
                found.add(name)
                frontier.append(name)
    return found & typed
