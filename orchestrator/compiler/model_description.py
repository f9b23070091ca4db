"""``modelDescription.xml`` of a model in FMI 2.0 or FMI 3.0, Model Exchange and Co-Simulation
(the binary always has both; the description may offer Model Exchange alone).

Both versions are written from the same variable table (:class:`ModelCode`): units with their
SI base units and display units, descriptions, ``min`` and ``max`` where the model gives them as
numbers, a default experiment, and a model structure that lists outputs, state derivatives and
initial unknowns with the states and inputs each depends on. FMI 2.0 leaves the independent
variable ``time`` implicit.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from orchestrator.compiler.events import WarningMessage
from orchestrator.compiler.model_code import FmuVariable, ModelCode
from orchestrator.compiler.units import unit_definitions
from orchestrator.compiler.value_types import BOOLEAN, INTEGER

GENERATION_TOOL = "murcosim (pymoca + CasADi, Dormand-Prince 5(4) Co-Simulation)"
DEFAULT_EXPERIMENT = dict(startTime="0", stopTime="10", tolerance="1e-08", stepSize="0.01")


def structured_name(name: str) -> str:
    """``name`` in the FMI structured naming convention (FMI 2.0 Sec. 2.2.9, FMI 3.0 Sec.
    2.4.7.1): a derivative of order two or more is ``der(x,2)``, not ``der(der(x))`` (index
    reduction's derivatives of derivatives), which importers refuse."""
    inner, order = name, 0
    while inner.startswith("der(") and inner.endswith(")"):
        inner, order = inner[4:-1], order + 1
    return f"der({inner},{order})" if order > 1 else name


def _interfaces(root: ET.Element, code: ModelCode, version: str, co_simulation: bool) -> None:
    """Model Exchange and (when offered) Co-Simulation elements with their capability flags."""
    fmu_state = "state" if version == "2.0" else "State"
    common = {
        "modelIdentifier": code.identifier,
        "providesDirectionalDerivative" + ("" if version == "2.0" else "s"): "true",
        f"canGetAndSetFMU{fmu_state}": "true",
        f"canSerializeFMU{fmu_state}": "true",
    }
    exchange = dict(common)
    # FMI 2.0 calls it unless told not to; there the delays' histories grow, the nonlinear
    # loops' guesses move to their last solutions and warning-level asserts are checked
    warnings = any(isinstance(m, WarningMessage) for m in code.assert_messages)
    if version != "2.0" and (code.sizes.get("NDELAY") or code.sizes.get("NG") or warnings):
        exchange["needsCompletedIntegratorStep"] = "true"
    ET.SubElement(root, "ModelExchange", exchange)
    if co_simulation:
        flags = dict(common, canHandleVariableCommunicationStepSize="true")
        ET.SubElement(root, "CoSimulation", flags)


def _default_experiment(code: ModelCode) -> dict[str, str]:
    """The model's experiment annotation (``code.experiment``) over the project's default."""
    given = {key: repr(value) for key, value in (code.experiment or {}).items()}
    return {**DEFAULT_EXPERIMENT, **given}


def _initial_unknowns(code: ModelCode) -> list[FmuVariable]:
    """Outputs, states and state derivatives computed in initialization, in value-reference
    order (states are calculated where the model has initial conditions of its own)."""
    states = {v.derivative_of for v in code.variables if v.derivative_of is not None}
    return [
        v
        for v in code.variables
        if v.initial == "calculated"
        and (v.causality == "output" or v.derivative_of is not None or v.value_reference in states)
    ]


def _root(code: ModelCode, version: str) -> ET.Element:
    attributes = dict(
        fmiVersion=version,
        modelName=code.identifier,
        description=code.description,
        generationTool=GENERATION_TOOL,
        variableNamingConvention="structured",
    )
    if version == "2.0":
        attributes["guid"] = code.token
        attributes["numberOfEventIndicators"] = str(code.sizes.get("NC", 0))
    else:
        attributes["instantiationToken"] = code.token
    return ET.Element("fmiModelDescription", {k: v for k, v in attributes.items() if v})


def _units(root: ET.Element, code: ModelCode) -> None:
    units = sorted({v.unit for v in code.variables if v.unit})
    display: dict[str, set[str]] = {}
    for var in code.variables:
        if var.display_unit:
            display.setdefault(var.unit, set()).add(var.display_unit)
    if units:
        root.append(unit_definitions(units, display))


def _bounds(var: FmuVariable) -> dict[str, str]:
    """The ``min`` and ``max`` attributes of ``var`` where they are finite."""
    low, high = var.bounds
    return {k: repr(v) for k, v in (("min", low), ("max", high)) if math.isfinite(v)}


def _start(var: FmuVariable) -> str:
    """The ``start`` attribute of ``var``: none where it is calculated (FMI 2.0 Sec. 2.2.7,
    FMI 3.0 Sec. 2.4.7.5 forbid it), though the binary starts the value there before the
    initialization computes it."""
    return repr(var.start) if var.start is not None and var.initial != "calculated" else ""


def _typed(code: ModelCode, var: FmuVariable, version: str) -> tuple[str, str, dict[str, str]]:
    """The element of ``var`` (``Float64``/``Real``, ``Int32``/``Integer``, ``Boolean``,
    ``Enumeration``), its variability and its type's attributes: unit and derivative for
    Real variables only, start values and bounds in the type's syntax; the other types are
    discrete where the model's variable is continuous (FMI 2.0 Sec. 2.2.7, FMI 3.0 Sec.
    2.4.7.4 allow continuous for Real variables only)."""
    value_type = code.value_type(var)
    if value_type is None:
        derivative = str(var.derivative_of) if var.derivative_of is not None else ""
        units = dict(unit=var.unit, displayUnit=var.display_unit)
        values = dict(start=_start(var), derivative=derivative)
        if version == "3.0":
            return "Float64", var.variability, {**values, **units, **_bounds(var)}
        return "Real", var.variability, {**units, **values, **_bounds(var)}
    tag = "Int32" if value_type.kind == INTEGER and version == "3.0" else value_type.kind
    start = value_type.text(var.start) if _start(var) else ""
    attributes = dict(start=start)
    if value_type.enumeration is not None:
        attributes = dict(declaredType=value_type.enumeration.name, start=start)
    if value_type.kind != BOOLEAN:
        low, high = var.bounds
        attributes.update(
            {k: str(round(v)) for k, v in (("min", low), ("max", high)) if math.isfinite(v)}
        )
    variability = "discrete" if var.variability == "continuous" else var.variability
    return tag, variability, attributes


def _type_definitions(root: ET.Element, code: ModelCode, version: str) -> None:
    """The enumeration types of the model's variables (FMI 2.0 ``SimpleType``, FMI 3.0
    ``EnumerationType``), each with its literals."""
    types = {t.enumeration.name: t.enumeration for t in code.value_types.values() if t.enumeration}
    if not types:
        return
    definitions = ET.SubElement(root, "TypeDefinitions")
    for name in sorted(types):
        if version == "3.0":
            items = ET.SubElement(definitions, "EnumerationType", name=name)
        else:
            simple = ET.SubElement(definitions, "SimpleType", name=name)
            items = ET.SubElement(simple, "Enumeration")
        for literal, value in types[name].literals:
            ET.SubElement(items, "Item", name=literal, value=str(value))


def _text(values: tuple[int, ...] | list[int]) -> str:
    return " ".join(str(v) for v in values)


def fmi3_description(code: ModelCode, co_simulation: bool) -> ET.ElementTree:
    """The FMI 3.0 model description: Model Exchange, and Co-Simulation if asked."""
    root = _root(code, "3.0")
    _interfaces(root, code, "3.0", co_simulation)
    _units(root, code)
    _type_definitions(root, code, "3.0")
    ET.SubElement(root, "DefaultExperiment", _default_experiment(code))
    variables = ET.SubElement(root, "ModelVariables")
    for var in code.variables:
        tag, variability, typed = _typed(code, var, "3.0")
        attributes = dict(
            name=structured_name(var.name),
            valueReference=str(var.value_reference),
            description=var.description,
            causality=var.causality,
            variability=variability,
            initial=var.initial or "",
            **typed,
        )
        ET.SubElement(variables, tag, {k: v for k, v in attributes.items() if v})
    structure = ET.SubElement(root, "ModelStructure")
    for var in code.variables:
        if var.causality == "output":
            ET.SubElement(
                structure,
                "Output",
                valueReference=str(var.value_reference),
                dependencies=_text(var.dependencies),
            )
    for var in code.variables:
        if var.derivative_of is not None:
            ET.SubElement(
                structure,
                "ContinuousStateDerivative",
                valueReference=str(var.value_reference),
                dependencies=_text(var.dependencies),
            )
    for var in _initial_unknowns(code):
        ET.SubElement(
            structure,
            "InitialUnknown",
            valueReference=str(var.value_reference),
            dependencies=_text(var.dependencies),
        )
    first = code.blocks.get("z", 0)
    for k in range(code.sizes.get("NC", 0)):
        ET.SubElement(structure, "EventIndicator", valueReference=str(first + k))
    ET.indent(root)
    return ET.ElementTree(root)


def fmi2_description(code: ModelCode, co_simulation: bool) -> ET.ElementTree:
    """The FMI 2.0 model description: Model Exchange, and Co-Simulation if asked."""
    root = _root(code, "2.0")
    _interfaces(root, code, "2.0", co_simulation)
    _units(root, code)
    _type_definitions(root, code, "2.0")
    ET.SubElement(root, "DefaultExperiment", _default_experiment(code))
    variables = ET.SubElement(root, "ModelVariables")
    # ``time`` is left out, as most exporters do: FMI 2.0 makes it implicit when no variable is
    # independent, and FMI Library (libcosim's importer) reports an independent variable as an
    # error for the start value the standard forbids it to have.
    listed = [v for v in code.variables if v.causality != "independent"]
    index = {v.value_reference: i + 1 for i, v in enumerate(listed)}  # 1-based
    for var in listed:
        tag, variability, typed = _typed(code, var, "2.0")
        attributes = dict(
            name=structured_name(var.name),
            valueReference=str(var.value_reference),
            description=var.description,
            causality=var.causality,
            variability=variability,
            initial=var.initial or "",
        )
        scalar = ET.SubElement(
            variables, "ScalarVariable", {k: v for k, v in attributes.items() if v}
        )
        if var.derivative_of is not None:  # FMI 2.0 refers to the state by its index
            typed["derivative"] = str(index[var.derivative_of])
        ET.SubElement(scalar, tag, {k: v for k, v in typed.items() if v})
    structure = ET.SubElement(root, "ModelStructure")

    def unknowns(tag: str, selected: list[FmuVariable]) -> None:
        if not selected:
            return
        group = ET.SubElement(structure, tag)
        for var in selected:
            ET.SubElement(
                group,
                "Unknown",
                index=str(index[var.value_reference]),
                dependencies=_text([index[d] for d in var.dependencies]),
            )

    unknowns("Outputs", [v for v in code.variables if v.causality == "output"])
    unknowns("Derivatives", [v for v in code.variables if v.derivative_of is not None])
    unknowns("InitialUnknowns", _initial_unknowns(code))
    ET.indent(root)
    return ET.ElementTree(root)
