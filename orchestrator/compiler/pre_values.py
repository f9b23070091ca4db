"""``pre(v)`` of discrete variables whose value the FMU does not keep between events.

The FMU keeps the values of the variables when-equations and when-statements assign between
events (its discrete states), so ``pre`` of them is the value before the event. A discrete
variable given by an ordinary equation or set by the importer (a Boolean computed from
relations, an input of a block connected to a when-equation's variable, a ``discrete Real``)
has no such state: read as ``y`` itself, the MSL's hysteresis ``y = u > uHigh or pre(y) and
u >= uLow`` would turn into an equation in ``y`` alone (Modelica Language Specification 3.6,
Sec. 3.7.5: ``pre(y)`` is the left limit of ``y`` at the event, the event iteration runs until
``y == pre(y)``). The translation reads ``pre`` of such a variable from a memory that takes its
value at each pass of the event iteration (:meth:`EventRecord.held`), so the iteration repeats
until the value settles; initial equations (``pre(y) = false``) read the variable itself.
"""

from __future__ import annotations

from collections.abc import Iterator


def flat_nodes(tree: object) -> Iterator[dict]:
    """Every dictionary inside ``tree`` (rumoca's flat form: nested dicts and lists)."""
    if isinstance(tree, dict):
        yield tree
        for value in tree.values():
            yield from flat_nodes(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from flat_nodes(value)


def _when_targets(flat: dict) -> set[str]:
    """Names (without subscripts) of the variables when-equations and when-statements
    assign."""
    targets: set[str] = set()
    for chain in flat.get("when_chains", []):
        for node in flat_nodes(chain):
            assign = node.get("Assign")
            if isinstance(assign, dict) and isinstance(assign.get("target"), str):
                targets.add(assign["target"].split("[")[0])
    for node in flat_nodes(flat.get("algorithms", [])):
        if "When" in node:
            for inner in flat_nodes(node["When"]):
                comp = inner.get("Assignment", {}).get("comp") if "Assignment" in inner else None
                called = inner.get("FunctionCall") if "FunctionCall" in inner else None
                placed = called.get("outputs", []) if isinstance(called, dict) else []
                for target in [comp] if comp else [t for t in placed if t.get("parts")]:
                    targets.add(".".join(part["ident"] for part in target["parts"]))
    return targets


def _discrete(variable: dict) -> bool:
    declared = variable.get("variability")
    kind = next(iter(declared)) if isinstance(declared, dict) else declared
    return kind == "Discrete" or bool(variable.get("is_discrete_type"))


# the operators that read pre(v): edge(b) is b and not pre(b), change(v) is v <> pre(v)
# (Modelica Language Specification 3.6, Sec. 3.7.5)
PRE_READERS = ("Pre", "Edge", "Change")


def unheld_pre(flat: dict) -> frozenset[str]:
    """Names (without subscripts) of the discrete variables of ``flat`` that some ``pre(v)``,
    ``edge(v)`` or ``change(v)`` in its equations, when-equations or algorithms reads and no
    when-equation or when-statement assigns."""
    variables = flat.get("variables", {})
    held = _when_targets(flat)
    sections = [flat.get(k, []) for k in ("equations", "when_chains", "algorithms")]
    names: set[str] = set()
    for node in flat_nodes(sections):
        call = node.get("BuiltinCall")
        if not isinstance(call, dict) or call.get("function") not in PRE_READERS:
            continue
        for argument in call.get("args", []):
            ref = argument.get("VarRef") if isinstance(argument, dict) else None
            if not ref:
                continue
            name = ref["name"]["name"].split("[")[0]
            variable = variables.get(name)
            if variable is not None and _discrete(variable) and name not in held:
                names.add(name)
    return frozenset(names)
