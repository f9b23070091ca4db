"""Nested ``for`` loops of a flattened Modelica model, unrolled for pymoca's CasADi backend.

pymoca translates one level of ``for`` loop (into a CasADi ``map``). Outer levels, and all but
the last index of ``for i in 1:n, j in 1:m``, are unrolled here: their bodies are repeated
with the index replaced by each of its values. Ranges must be integers known when the model
is flattened: literals, parameters with literal values, and ``+ - *`` of those.
"""

from __future__ import annotations

import copy

from pymoca import ast

from orchestrator.errors import BuildError


def unroll_nested_loops(cls: ast.Class, model: str) -> None:
    """Unroll every loop level but the innermost in the equations of ``cls`` (in place)."""
    cls.equations = _unrolled(cls.equations, cls, model)
    cls.initial_equations = _unrolled(cls.initial_equations, cls, model)


def _nested(equation: object) -> bool:
    return isinstance(equation, ast.ForEquation) and (
        len(equation.indices) > 1 or any(isinstance(e, ast.ForEquation) for e in equation.equations)
    )


def _unrolled(equations: list, cls: ast.Class, model: str) -> list:
    result: list = []
    for equation in equations:
        if not _nested(equation):
            result.append(equation)
            continue
        first, *rest = equation.indices
        if rest:
            body = [ast.ForEquation(indices=rest, equations=equation.equations)]
        else:
            body = equation.equations
        for value in _values(first.expression, cls, model, first.name):
            copies = [_substitute(copy.deepcopy(e), first.name, value) for e in body]
            result.extend(_unrolled(copies, cls, model))
    return result


def _substitute(node: object, name: str, value: int) -> object:
    """``node`` with every plain reference to the loop index ``name`` replaced by ``value``."""
    if (
        isinstance(node, ast.ComponentRef)
        and node.name == name
        and not node.child
        and node.indices == [[None]]
    ):
        return ast.Primary(value=value)
    if isinstance(node, list):
        return [_substitute(item, name, value) for item in node]
    if isinstance(node, ast.Node):
        for key, child in vars(node).items():
            setattr(node, key, _substitute(child, name, value))
    return node


def _values(expression: object, cls: ast.Class, model: str, index: str) -> list[int]:
    if isinstance(expression, ast.Slice):
        start, stop = (_integer(e, cls, model, index) for e in (expression.start, expression.stop))
        step = _integer(expression.step, cls, model, index)
        return list(range(start, stop + (1 if step > 0 else -1), step))
    if isinstance(expression, ast.Array):
        return [_integer(e, cls, model, index) for e in expression.values]
    raise BuildError(f"{model}: for-loop index '{index}': range must be a:b, a:s:b or {{...}}")


def _integer(node: object, cls: ast.Class, model: str, index: str) -> int:
    if isinstance(node, ast.Primary) and isinstance(node.value, int | float):
        return int(node.value)
    if isinstance(node, ast.ComponentRef) and node.name in cls.symbols and not node.child:
        return _integer(cls.symbols[node.name].value, cls, model, index)
    if isinstance(node, ast.Expression) and node.operator in ("+", "-", "*"):
        values = [_integer(e, cls, model, index) for e in node.operands]
        if node.operator == "*":
            return values[0] * values[1]
        if node.operator == "-":
            return -values[0] if len(values) == 1 else values[0] - values[1]
        return sum(values)
    raise BuildError(
        f"{model}: nested for-loop over '{index}': its range must be integers known at "
        "translation (literals or parameters with literal values)"
    )
