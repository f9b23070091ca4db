"""The FMI types of a flat model's Integer, Boolean and enumeration variables.

The model computes every variable as a double; the FMU declares these as FMI 2.0
``Integer``/``Boolean``/``Enumeration`` and FMI 3.0 ``Int32``/``Boolean``/``Enumeration``
(FMI 2.0 Sec. 2.2.3, FMI 3.0 Sec. 2.4.7.6), discrete, and its getters and setters convert
exactly (whole numbers, Booleans 0 and 1). Real variables are not listed.

rumoca 0.10 gives each variable a type id whose canonical type is a predefined type or an
enumeration; an enumeration's qualified name and literals come from the literals the flat
model refers to (``TypedLib.Mode.Fast``, whose definition id is the enumeration's).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from orchestrator.errors import BuildError

INTEGER, BOOLEAN, ENUMERATION = "Integer", "Boolean", "Enumeration"
C_CODES = {INTEGER: 1, BOOLEAN: 2, ENUMERATION: 3}  # the C layer's VALUE_TYPES, Real is 0


@dataclass(frozen=True)
class Enumeration:
    """An enumeration type: its qualified Modelica name and its literals with their values
    (1, 2, ... in declaration order, Modelica 3.6 Sec. 4.9.5)."""

    name: str
    literals: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class ValueType:
    """The FMI type of one variable: ``Integer``, ``Boolean`` or ``Enumeration`` (with its
    type)."""

    kind: str
    enumeration: Enumeration | None = None

    def text(self, value: float) -> str:
        """``value`` (the double the model holds) in the type's syntax: ``true``/``false``,
        whole numbers."""
        if self.kind == BOOLEAN:
            return "true" if value != 0.0 else "false"
        return str(round(value))


def _var_refs(node: object) -> Iterator[dict]:
    """Every ``VarRef`` of rumoca's flat dictionary."""
    if isinstance(node, dict):
        if "VarRef" in node and isinstance(node["VarRef"], dict):
            yield node["VarRef"]
        for value in node.values():
            yield from _var_refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _var_refs(value)


def _literals(prefix: str, ordinals: dict[str, int]) -> tuple[tuple[str, int], ...]:
    """The literals of the enumeration type named ``prefix`` with their values, in order."""
    items = (
        (key[len(prefix) + 1 :], value)
        for key, value in ordinals.items()
        if key.startswith(prefix + ".") and "." not in key[len(prefix) + 1 :]
    )
    return tuple(sorted(items, key=lambda item: item[1]))


def _enumerations(flat: dict) -> dict[int, Enumeration]:
    """The enumeration types of ``flat`` by canonical type id, found from the literals its
    expressions refer to; the types none of them refers to by the order rumoca gives both
    (type ids in the order of the literals' types), where that order agrees with the
    literals found."""
    roots = sorted(flat.get("enumeration_type_roots", []))
    ordinals = {
        name: int(value)
        for name, value in flat.get("enum_literal_ordinals", {}).items()
        if "'" not in name
    }
    type_of_definition = {int(k): v for k, v in flat.get("type_ids_by_def_id", {}).items()}
    found: dict[int, Enumeration] = {}
    for ref in _var_refs(flat):
        name = ref.get("name", {})
        qualified = name.get("name", "") if isinstance(name, dict) else ""
        parts = (name.get("component_ref") or {}).get("parts", []) if isinstance(name, dict) else []
        if qualified not in ordinals or "." not in qualified or not parts:
            continue
        type_id = type_of_definition.get(parts[-1].get("def_id"))
        if type_id not in roots or type_id in found:
            continue
        prefix = qualified.rsplit(".", 1)[0]
        found[type_id] = Enumeration(prefix, _literals(prefix, ordinals))
    prefixes: list[str] = []  # full names, in order (rumoca also lists them by last name)
    for key in ordinals:
        prefix = key.rsplit(".", 1)[0]
        if prefix not in prefixes and not any(p.endswith("." + prefix) for p in prefixes):
            prefixes.append(prefix)
    if len(prefixes) == len(roots):
        by_order = dict(zip(roots, prefixes, strict=True))
        if all(by_order[t] == e.name for t, e in found.items()):
            for t in roots:
                found.setdefault(t, Enumeration(by_order[t], _literals(by_order[t], ordinals)))
    return found


def value_types(flat: dict, model: str) -> dict[str, ValueType]:
    """The Integer, Boolean and enumeration variables of rumoca's flat dictionary of
    ``model``, by declared name (array elements share their array's type)."""
    predefined = flat.get("predefined_types", {})
    integer, boolean = predefined.get("integer", 1), predefined.get("boolean", 2)
    effective = flat.get("effective_types", {})
    roots = set(flat.get("enumeration_type_roots", []))
    enumerations: dict[int, Enumeration] | None = None
    types: dict[str, ValueType] = {}
    for name, variable in flat.get("variables", {}).items():
        entry = effective.get(str(variable.get("type_id")))
        canonical = entry.get("canonical_type") if entry else None
        if canonical == integer:
            types[name] = ValueType(INTEGER)
        elif canonical == boolean:
            types[name] = ValueType(BOOLEAN)
        elif canonical in roots:
            if enumerations is None:
                enumerations = _enumerations(flat)
            types[name] = ValueType(ENUMERATION, enumerations.get(canonical))
    return types


def declared_types(
    model: str, types: dict[str, ValueType], names: set[str]
) -> dict[str, ValueType]:
    """The ``types`` of the variables an FMU of ``model`` declares (``names``); a BuildError
    for one of an enumeration whose literals are not known (the model refers to none of
    them), which the FMU could not define."""
    declared = {name: t for name, t in types.items() if name in names}
    for name, value_type in declared.items():
        if value_type.kind == ENUMERATION and value_type.enumeration is None:
            raise BuildError(
                f"{model}: the literals of the enumeration type of '{name}' are not known "
                "(the model refers to none of them): compare it with one of its literals"
            )
    return declared
