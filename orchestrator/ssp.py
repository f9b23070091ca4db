"""SSP 1.0 archives of a scenario's system: its FMUs, connections and parameter values.

Export writes ``resources/<Name>.fmu`` and a ``SystemStructure.ssd`` with one component per
instance (connectors for its connected and set variables), one connection per scalar link,
parameters and start values as inline parameter values, and the run's start and stop times as
the default experiment. What lives on the Python side (controllers, joints, docking,
thruster mounts, weak-coupling settings) is not part of SSP and stays in the scenario file.

Import reads an archive with FMPy's SSP reader (schema-validated), extracts the FMUs beside
the new scenario file, and writes a scenario with those components and connections. Given a
template scenario, its Python side is kept: every section but the components and
connections, and each component's ``mount`` and ``slot``, matched by component name.
"""

from __future__ import annotations

import json
import re
import tomllib
import zipfile
from pathlib import Path
from xml.etree import ElementTree

from fmpy import read_model_description

from orchestrator.errors import ScenarioError
from orchestrator.fmu import FMU
from orchestrator.scenario import load_scenario
from orchestrator.system import System, expand

SSD = "http://ssp-standard.org/SSP1/SystemStructureDescription"
SSC = "http://ssp-standard.org/SSP1/SystemStructureCommon"
SSV = "http://ssp-standard.org/SSP1/SystemStructureParameterValues"
CONNECTOR_KINDS = ("input", "output", "parameter", "calculatedParameter")
SYSTEM_KEYS = ("components", "connections")


def export_ssp(scenario_path: Path, fmu_dir: Path, target: Path) -> Path:
    """Write the system of the scenario file ``scenario_path`` as the SSP archive ``target``."""
    scenario = load_scenario(scenario_path)
    source = str(scenario_path)
    system = System(scenario, source, fmu_dir)
    try:
        fmus = {name: instance.fmu for name, instance in system.instances.items()}
        links = []
        driven: set[str] = set()
        for k, c in enumerate(scenario.connections):
            a, _, a_var = c.source.partition(".")
            b, _, b_var = c.target.partition(".")
            for out, inp in zip(expand(fmus[a], a_var), expand(fmus[b], b_var), strict=True):
                if f"{b}.{inp}" in driven:
                    raise ScenarioError(
                        f"{source}: connections[{k}].to: {b}.{inp} is driven twice; SSP "
                        "connects an input once (sums of connections cannot be exported)"
                    )
                driven.add(f"{b}.{inp}")
                links.append((a, out, b, inp))
    finally:
        system.close()
    files: dict[str, Path] = {}
    for name, fmu in fmus.items():
        if files.setdefault(fmu.path.name, fmu.path) != fmu.path:
            raise ScenarioError(f"{source}: components.{name}.fmu: two FMUs named {fmu.path.name}")
    sim = scenario.simulation
    root = ElementTree.Element(
        f"{{{SSD}}}SystemStructureDescription",
        {"version": "1.0", "name": scenario_path.stem, "generationTool": "murcosim"},
    )
    ssd_system = ElementTree.SubElement(root, f"{{{SSD}}}System", {"name": scenario_path.stem})
    elements = ElementTree.SubElement(ssd_system, f"{{{SSD}}}Elements")
    for name, component in scenario.components.items():
        values = {**component.parameters, **component.start}
        used = [out for a, out, _, _ in links if a == name]
        used += [inp for _, _, b, inp in links if b == name] + list(values)
        _component(elements, name, fmus[name], list(dict.fromkeys(used)), values)
    connections = ElementTree.SubElement(ssd_system, f"{{{SSD}}}Connections") if links else None
    for a, out, b, inp in links:
        ElementTree.SubElement(
            connections,
            f"{{{SSD}}}Connection",
            {"startElement": a, "startConnector": out, "endElement": b, "endConnector": inp},
        )
    ElementTree.SubElement(
        root,
        f"{{{SSD}}}DefaultExperiment",
        {"startTime": repr(sim.start_time), "stopTime": repr(sim.stop_time)},
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("SystemStructure.ssd", ElementTree.tostring(root, xml_declaration=True))
        for file_name, path in files.items():
            archive.write(path, f"resources/{file_name}")
    return target


def _component(
    parent: ElementTree.Element, name: str, fmu: FMU, used: list[str], values: dict[str, float]
) -> None:
    """One ssd:Component: connectors of the variables ``used``, ``values`` as bindings."""
    element = ElementTree.SubElement(
        parent,
        f"{{{SSD}}}Component",
        {
            "name": name,
            "type": "application/x-fmu-sharedlibrary",
            "source": f"resources/{fmu.path.name}",
        },
    )
    exposed = [fmu.variables[n] for n in used if fmu.variables[n].causality in CONNECTOR_KINDS]
    connectors = ElementTree.SubElement(element, f"{{{SSD}}}Connectors") if exposed else None
    for variable in exposed:
        connector = ElementTree.SubElement(
            connectors, f"{{{SSD}}}Connector", {"name": variable.name, "kind": variable.causality}
        )
        unit = {"unit": variable.unit} if variable.unit else {}
        ElementTree.SubElement(connector, f"{{{SSC}}}Real", unit)
    if values:
        bindings = ElementTree.SubElement(element, f"{{{SSD}}}ParameterBindings")
        binding = ElementTree.SubElement(bindings, f"{{{SSD}}}ParameterBinding")
        holder = ElementTree.SubElement(binding, f"{{{SSD}}}ParameterValues")
        parameter_set = ElementTree.SubElement(
            holder, f"{{{SSV}}}ParameterSet", {"version": "1.0", "name": name}
        )
        parameters = ElementTree.SubElement(parameter_set, f"{{{SSV}}}Parameters")
        for variable_name, value in values.items():
            parameter = ElementTree.SubElement(
                parameters, f"{{{SSV}}}Parameter", {"name": variable_name}
            )
            ElementTree.SubElement(parameter, f"{{{SSV}}}Real", {"value": repr(float(value))})


def import_ssp(archive: Path, scenario_path: Path, template: Path | None = None) -> Path:
    """Write the scenario file ``scenario_path`` running the system of the SSP ``archive``.

    FMUs go to ``<scenario stem>_fmus/`` beside it; ``template`` gives the Python side.
    """
    from fmpy.ssp.ssd import read_ssd

    try:
        ssd = read_ssd(str(archive))
    except Exception as exc:  # noqa: BLE001 - FMPy raises plain exceptions for every problem
        raise ScenarioError(f"{archive}: not a valid SSP archive: {exc}") from None
    data: dict = {}
    if template is not None:
        load_scenario(template)  # a template with errors is reported against its own file
        data = tomllib.loads(template.read_text(encoding="utf-8"))
    placed = data.get("components", {})
    data = {k: v for k, v in data.items() if k not in SYSTEM_KEYS}
    experiment = ssd.defaultExperiment
    if "simulation" not in data:
        if experiment is None or experiment.stopTime is None:
            raise ScenarioError(f"{archive}: no DefaultExperiment stopTime and no template")
        data["simulation"] = {"stop_time": float(experiment.stopTime)}
        if experiment.startTime is not None:
            data["simulation"]["start_time"] = float(experiment.startTime)
    folder = scenario_path.parent / f"{scenario_path.stem}_fmus"
    folder.mkdir(parents=True, exist_ok=True)
    components: dict[str, dict] = {}
    with zipfile.ZipFile(archive) as zipped:
        for element in ssd.system.elements:
            name = element.name
            fmu_file = folder / Path(element.source).name
            try:
                fmu_file.write_bytes(zipped.read(element.source))
            except KeyError:
                raise ScenarioError(
                    f"{archive}: component {name}: {element.source} is not in the archive"
                ) from None
            causality = {
                v.name: v.causality for v in read_model_description(str(fmu_file)).modelVariables
            }
            entry: dict = {"fmu": f"{folder.name}/{fmu_file.name}"}
            for binding in element.parameterBindings:
                for parameter_set in binding.parameterValues:
                    for p in parameter_set.parameters:
                        group = "parameters" if causality.get(p.name) == "parameter" else "start"
                        entry.setdefault(group, {})[p.name] = float(p.value)
            for key in ("mount", "slot"):
                if key in placed.get(name, {}):
                    entry[key] = placed[name][key]
            components[name] = entry
    data["components"] = components
    data["connections"] = [
        {"from": f"{c.startElement}.{c.startConnector}", "to": f"{c.endElement}.{c.endConnector}"}
        for c in ssd.system.connections
    ]
    scenario_path.write_text(toml_text(data), encoding="utf-8")
    load_scenario(scenario_path)
    return scenario_path


def toml_text(data: dict, prefix: str = "") -> str:
    """TOML text of nested dicts and lists (tables, arrays of tables, plain values)."""
    lines, tables = [], []
    for key, value in data.items():
        name = f"{prefix}.{_key(key)}" if prefix else _key(key)
        if isinstance(value, dict):
            tables.append(f"\n[{name}]\n" + toml_text(value, name))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            tables += [f"\n[[{name}]]\n" + toml_text(v, name) for v in value]
        else:
            lines.append(f"{_key(key)} = {_value(value)}\n")
    return "".join(lines) + "".join(tables)


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return repr(value)
