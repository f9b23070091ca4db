"""External objects: a class that ``extends ExternalObject`` with a ``constructor`` and a
``destructor`` function external in C (Modelica Language Specification 3.6, Sec. 12.9.7), as
the MSL's tables (``Modelica.Blocks.Types.ExternalCombiTable1D``, ``ExternalCombiTimeTable``)
keep their interpolation tables.

A parameter of such a class, ``parameter ExternalCombiTable1D tableID =
ExternalCombiTable1D(tableName, fileName, table, ...)``, is no variable of the FMU: where the
equations use it, they use the constructor's call, one external call of the model whose value
is the object's slot in the instance (a number the build gives each object). Its arguments
depend on parameters only, so the call is among the model's parts that are computed when the
parameters change (``model_parametric``): the wrapper (:mod:`orchestrator.compiler.external_c`)
constructs the object in its slot of the instance there, and again only when the numbers of
its arguments differ from those it was constructed with; a function taking the object gets the
slot's ``void*``. The destructor runs at ``fmiFreeInstance`` and ``fmiReset`` (after which the
next evaluation constructs the object again). String arguments (``tableName``, ``fileName``)
must be known when the model is translated: literals, String parameters and ``if`` expressions
of them; they are written into the wrapper as C string literals.

rumoca 0.10 flattens only the external objects whose constructor calls
``ModelicaStandardTables_CombiTable1D_init2`` or ``ModelicaStandardTables_CombiTimeTable_init2``
with inputs named ``table`` and ``columns`` (it recognizes the MSL's tables by that entry point);
any other constructor it refuses (``function value type ... has unsupported type``). Its flat
model does not carry the destructor: it is read from the class's declaration in the source.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from orchestrator.compiler.external_c import ExternalError, translate_call


def is_constructor(definition: dict | None) -> bool:
    """Whether ``definition`` (a flat function) is an external object's constructor: its one
    output is of the object's class."""
    outputs = (definition or {}).get("outputs", [])
    return len(outputs) == 1 and outputs[0].get("type_class") == "Class"


def object_variables(flat: dict) -> dict[str, dict]:
    """The variables of ``flat`` that hold external objects, with the expression that
    constructs each (the constructor's call)."""
    functions = flat.get("functions", {})
    found = {}
    for name, type_name in flat.get("variable_type_names", {}).items():
        if is_constructor(functions.get(type_name)) and name in flat["variables"]:
            variable = flat["variables"][name]
            value = variable.get("binding") or variable.get("start")
            if value is None:
                raise ExternalError(
                    f"external object '{name}' without a constructor call",
                    variable.get("source_span"),
                )
            found[name] = value
    return found


def destructor_name(definition: dict, locate: Callable[[dict | None], Path | None]) -> str:
    """The C function of the destructor of the external object class whose constructor is
    ``definition``, read from the class's declaration after the constructor."""
    span = definition.get("span")
    path = locate(span)
    short = definition["name"].split(".")[-1]
    if path is None or span is None:
        raise ExternalError(
            f"external object '{definition['name']}': the source of its class is not found", span
        )
    text = path.read_bytes()[int(span["end"]) :].decode("utf-8", errors="replace")
    body = re.split(rf"\bend\s+{re.escape(short)}\s*;", text, maxsplit=1)[0]
    found = re.search(
        r'\bfunction\s+destructor\b.*?\bexternal\s+"C"\s+(\w+)\s*\(', body, flags=re.DOTALL
    )
    if found is None:
        raise ExternalError(
            f"external object '{definition['name']}' without a destructor external in C", span
        )
    return found.group(1)


def string_value(translator: object, node: dict, local: dict) -> str:
    """The value of a String expression known when the model is translated: a literal, a
    String parameter (``translator.strings``, their bindings by name) or an ``if``
    expression whose conditions are (``and``, ``or`` and ``not`` of them, comparisons of
    Strings, anything else the translator evaluates to a number)."""
    kind, body = next(iter(node.items()))
    if kind == "Literal":
        literal_kind, value = next(iter(body["value"].items()))
        if literal_kind == "String":
            return str(value)
    elif kind == "VarRef" and not body["subscripts"]:
        name = body["name"]["name"]
        if name in local and isinstance(local[name], str):
            return local[name]
        binding = translator.strings.get(name)
        if binding is not None:
            return string_value(translator, binding, local)
    elif kind == "If":
        for condition, value in body["branches"]:
            if _condition(translator, condition, local):
                return string_value(translator, value, local)
        return string_value(translator, body["else_branch"], local)
    raise ExternalError(
        "String argument of an external object's constructor that is not known when the model "
        "is translated (a literal, a String parameter, or an if-expression of them)",
        body.get("span") if isinstance(body, dict) else None,
    )


def _condition(translator: object, node: dict, local: dict) -> bool:
    """A condition known when the model is translated, ``and`` and ``or`` short-circuited."""
    kind, body = next(iter(node.items()))
    if kind == "Binary" and body["op"] in ("And", "Or"):
        first = _condition(translator, body["lhs"], local)
        if first == (body["op"] == "Or"):
            return first
        return _condition(translator, body["rhs"], local)
    if kind == "Unary" and body["op"] == "Not":
        return not _condition(translator, body["rhs"], local)
    if kind == "Binary" and body["op"] in ("Eq", "Ne") and _is_string(translator, body["lhs"]):
        same = string_value(translator, body["lhs"], local) == string_value(
            translator, body["rhs"], local
        )
        return same == (body["op"] == "Eq")
    value = translator.expr(node, local)
    try:
        return bool(float(value))
    except (TypeError, RuntimeError):
        raise ExternalError(
            "condition of an external object's constructor argument that is not known when "
            "the model is translated",
            body.get("span") if isinstance(body, dict) else None,
        ) from None


def _is_string(translator: object, node: dict) -> bool:
    kind, body = next(iter(node.items()))
    if kind == "Literal":
        return "String" in body["value"]
    return kind == "VarRef" and body["name"]["name"] in translator.strings


def constructor_arguments(
    translator: object, definition: dict, nodes: list[dict], local: dict
) -> list[object]:
    """The arguments of a call of the constructor ``definition``: Strings as ``str`` (known
    when the model is translated), the others as the translator's values."""
    inputs = definition["inputs"]
    values: list[object] = []
    for declared, node in zip(inputs, nodes, strict=False):
        if declared.get("type_name") == "String":
            values.append(string_value(translator, node, local))
        else:
            values.append(translator.expr(node, local))
    return values


def construct(
    translator: object, definition: dict, nodes: list[dict], local: dict, span: dict | None
) -> object:
    """The value of a call of the external object constructor ``definition`` on the argument
    expressions ``nodes``: its slot, given by the wrapper that constructs it (a new slot for
    each call translated: one per object variable)."""
    functions = translator.external_c
    if functions is None:
        raise ExternalError(f"external object '{definition['name']}' (no compiler given)", span)
    args = constructor_arguments(translator, definition, nodes, local)
    destructor = destructor_name(definition, functions.locate)
    slot = functions.objects
    functions.objects += 1
    return translate_call(translator, definition, args, span, (slot, destructor))[0]
