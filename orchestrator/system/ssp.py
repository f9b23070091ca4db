"""SSP 1.0 and 2.0 archives of a scenario: export and import, each the other's inverse.

Export writes ``resources/<Name>.fmu``, the parameters and start values of each component as
``resources/<component>.ssv`` and a ``SystemStructure.ssd`` with the standard prefixes
``ssd:``, ``ssc:``, ``ssv:``: one component per instance (connectors typed and with units),
one connection per scalar link (an input driven by several, such as a vehicle's force from
its thrusters, gets several: murcosim adds them), thruster mounts written as their explicit
connections and their geometry as a second parameter set (both annotated
``org.murcosim.mount``), connection factors and offsets as linear transformations, the units
used, and the run's start and stop times as the default experiment. What only murcosim
understands (simulation settings, controllers, joints, docking, events, the mounts
themselves) travels in the annotation ``org.murcosim.scenario`` as TOML text, so an archive
alone gives back the scenario.

Import reads any SSP 1.0 or 2.0 archive (the SSD is read here, not by FMPy's reader):
components, nested systems (flattened, names joined by ``_``, connections through the
systems' connectors followed to the FMUs), parameter values inline or from ``.ssv`` files,
linear, Boolean-mapping and unit-conversion transformations on connections (as factor and
offset), and the default experiment. A template scenario may still give the Python side.
"""

from __future__ import annotations

import json
import re
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from orchestrator.errors import ScenarioError
from orchestrator.fmi.fmu import FMU, Variable
from orchestrator.fmi.folder import fmu_folder
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System

SSD = "http://ssp-standard.org/SSP1/SystemStructureDescription"
SSC = "http://ssp-standard.org/SSP1/SystemStructureCommon"
SSV = "http://ssp-standard.org/SSP1/SystemStructureParameterValues"
OURS = "https://murcosim.org/ssp"
for _prefix, _uri in (("ssd", SSD), ("ssc", SSC), ("ssv", SSV), ("murcosim", OURS)):
    ElementTree.register_namespace(_prefix, _uri)

VERSIONS = ("1.0", "2.0")
SCENARIO_ANNOTATION = "org.murcosim.scenario"
MOUNT = "mount"
MOUNT_ANNOTATION = "org.murcosim.mount"
CONNECTOR_KINDS = ("input", "output", "parameter", "calculatedParameter", "structuralParameter")
SYSTEM_KEYS = ("components", "connections")
# FMI 3.0 type names -> SSP 1.0 connector / parameter types (2.0 uses the FMI 3.0 names)
SSP1_TYPES = {"Float32": "Real", "Float64": "Real", "Boolean": "Boolean", "String": "String"}
SSP1_TYPES |= {"Binary": "Binary", "Enumeration": "Integer"}
FLOATS = ("Float32", "Float64")
BASE_UNITS = ("kg", "m", "s", "A", "K", "mol", "cd", "rad")


def _q(namespace: str, tag: str) -> str:
    return f"{{{namespace}}}{tag}"


def _ssp_type(kind: str, version: str) -> str:
    if version == "2.0":
        return "Int64" if kind == "Enumeration" else kind
    return SSP1_TYPES.get(kind, "Integer")


# -- export ----------------------------------------------------------------------------------


def export_ssp(
    scenario_path: Path, fmu_dir: Path | None, target: Path, version: str = "1.0"
) -> Path:
    """Write the system of the scenario file ``scenario_path`` as the SSP ``version`` archive
    ``target``; its FMUs are found as ``murcosim run`` finds them (``fmu_dir``, if not None,
    else the scenario's ``fmu_dir``, else the nearest ``fmus``)."""
    if version not in VERSIONS:
        raise ScenarioError(f"{target}: SSP version {version} (expected 1.0 or 2.0)")
    scenario = load_scenario(scenario_path)
    source = str(scenario_path)
    system = System(scenario, source, fmu_folder(scenario, scenario_path.parent, source, fmu_dir))
    try:
        fmus = {name: instance.fmu for name, instance in system.instances.items()}
        mounted = {n: dict(v) for n, v in system._mounted_values.items()}
        links = [
            (link.source.name, out, link.target.name, inp, link, k >= len(scenario.connections))
            for k, link in enumerate(system.connections)
            for out, inp in zip(link.source_names, link.target_names, strict=True)
        ]
    finally:
        system.close()
    files: dict[str, Path] = {}
    for name, fmu in fmus.items():
        if files.setdefault(fmu.path.name, fmu.path) != fmu.path:
            raise ScenarioError(f"{source}: components.{name}.fmu: two FMUs named {fmu.path.name}")
    root = ElementTree.Element(
        _q(SSD, "SystemStructureDescription"),
        {"version": version, "name": scenario_path.stem, "generationTool": "murcosim"},
    )
    ssd_system = ElementTree.SubElement(root, _q(SSD, "System"), {"name": scenario_path.stem})
    elements = ElementTree.SubElement(ssd_system, _q(SSD, "Elements"))
    parameter_files: dict[str, bytes] = {}
    units: set[str] = set()
    for name, component in scenario.components.items():
        values = {**component.parameters, **component.start}
        used = [out for a, out, *_ in links if a == name]
        used += [inp for _, _, b, inp, *_ in links if b == name] + list(values)
        used += list(mounted.get(name, {}))
        variables = [fmus[name].variables[n] for n in dict.fromkeys(used)]
        units.update(v.unit for v in variables if v.unit)
        sets = {name: values, f"{name}_{MOUNT}": mounted.get(name, {})}
        sets = {file_name: v for file_name, v in sets.items() if v}
        _component(elements, name, fmus[name], variables, list(sets), version)
        for file_name, set_values in sets.items():
            parameter_files[f"resources/{file_name}.ssv"] = _parameter_set(
                scenario_path.stem, fmus[name], set_values, version
            )
    if links:
        connections = ElementTree.SubElement(ssd_system, _q(SSD, "Connections"))
    for a, out, b, inp, link, mount in links:
        connection = ElementTree.SubElement(
            connections,
            _q(SSD, "Connection"),
            {"startElement": a, "startConnector": out, "endElement": b, "endConnector": inp},
        )
        if (link.factor, link.offset) != (1.0, 0.0):
            ElementTree.SubElement(
                connection,
                _q(SSC, "LinearTransformation"),
                {"factor": repr(link.factor), "offset": repr(link.offset)},
            )
        if mount:
            _annotation(connection, MOUNT_ANNOTATION)
    _units(root, fmus.values(), sorted(units))
    sim = scenario.simulation
    ElementTree.SubElement(
        root,
        _q(SSD, "DefaultExperiment"),
        {"startTime": repr(sim.start_time), "stopTime": repr(sim.stop_time)},
    )
    python_side = _python_side(tomllib.loads(scenario_path.read_text(encoding="utf-8")))
    content = ElementTree.Element(_q(OURS, "Scenario"))
    content.text = toml_text(python_side)
    _annotation(root, SCENARIO_ANNOTATION).append(content)
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        ssd = ElementTree.tostring(root, encoding="UTF-8", xml_declaration=True)
        archive.writestr("SystemStructure.ssd", ssd)
        for file_name, text in parameter_files.items():
            archive.writestr(file_name, text)
        for file_name, path in files.items():
            archive.write(path, f"resources/{file_name}")
    return target


def _python_side(data: dict) -> dict:
    """What SSP has no place for: every section but the system, the thruster mounts and the
    interface a component is run through."""
    side = {k: v for k, v in data.items() if k not in SYSTEM_KEYS}
    kept = {
        name: {k: c[k] for k in ("mount", "slot", "interface") if k in c}
        for name, c in data.get("components", {}).items()
    }
    if any(kept.values()):
        side["components"] = {name: keys for name, keys in kept.items() if keys}
    return side


def _annotation(parent: ElementTree.Element, kind: str) -> ElementTree.Element:
    annotations = ElementTree.SubElement(parent, _q(SSD, "Annotations"))
    return ElementTree.SubElement(annotations, _q(SSC, "Annotation"), {"type": kind})


def _component(
    parent: ElementTree.Element,
    name: str,
    fmu: FMU,
    variables: list[Variable],
    files: list[str],
    version: str,
) -> None:
    """One ssd:Component: connectors of ``variables``, a binding per parameter set file
    (``resources/<file>.ssv``; the thruster mount's geometry annotated as such)."""
    element = ElementTree.SubElement(
        parent,
        _q(SSD, "Component"),
        {
            "name": name,
            "type": "application/x-fmu-sharedlibrary",
            "source": f"resources/{fmu.path.name}",
        },
    )
    exposed = [v for v in variables if v.causality in CONNECTOR_KINDS]
    if exposed:
        connectors = ElementTree.SubElement(element, _q(SSD, "Connectors"))
    for variable in exposed:
        kind = variable.causality
        if kind == "structuralParameter":
            kind = "structuralParameter" if version == "2.0" else "parameter"
        connector = ElementTree.SubElement(
            connectors, _q(SSD, "Connector"), {"name": variable.name, "kind": kind}
        )
        unit = {"unit": variable.unit} if variable.unit and variable.type in FLOATS else {}
        ElementTree.SubElement(connector, _q(SSC, _ssp_type(variable.type, version)), unit)
    if files:
        bindings = ElementTree.SubElement(element, _q(SSD, "ParameterBindings"))
    for file_name in files:
        binding = ElementTree.SubElement(
            bindings,
            _q(SSD, "ParameterBinding"),
            {"type": "application/x-ssp-parameter-set", "source": f"resources/{file_name}.ssv"},
        )
        if file_name != name:
            _annotation(binding, MOUNT_ANNOTATION)


def _parameter_set(name: str, fmu: FMU, values: dict, version: str) -> bytes:
    """An ssv:ParameterSet ``name`` of ``values`` (variable name -> value) as a file's bytes.

    Every set of an archive has the system's name, so that an importer applying sets by
    name (ecos: ``init(parameter_set=...)``) applies them all at once.
    """
    root = ElementTree.Element(_q(SSV, "ParameterSet"), {"version": version, "name": name})
    parameters = ElementTree.SubElement(root, _q(SSV, "Parameters"))
    for variable_name, value in values.items():
        variable = fmu.variables[variable_name]
        kind = _ssp_type(variable.type, version)
        parameter = ElementTree.SubElement(
            parameters, _q(SSV, "Parameter"), {"name": variable_name}
        )
        attributes = {"value": _text(variable.type, value)}
        if variable.unit and variable.type in FLOATS:
            attributes["unit"] = variable.unit
        ElementTree.SubElement(parameter, _q(SSV, kind), attributes)
    return ElementTree.tostring(root, encoding="UTF-8", xml_declaration=True)


def _text(kind: str, value: object) -> str:
    if kind == "Boolean":
        return "true" if value else "false"
    if kind in FLOATS:
        return repr(float(value))
    if kind in ("String", "Binary"):
        return value.hex() if isinstance(value, bytes) else str(value)
    return str(int(value))


def _units(root: ElementTree.Element, fmus: object, names: list[str]) -> None:
    """ssd:Units with the FMUs' definitions of the units ``names`` (those they define)."""
    definitions = {}
    for fmu in fmus:
        for unit in fmu.model_description.unitDefinitions:
            if unit.name in names and unit.baseUnit is not None:
                definitions.setdefault(unit.name, unit.baseUnit)
    if not definitions:
        return
    holder = ElementTree.SubElement(root, _q(SSD, "Units"))
    for name in sorted(definitions):
        base = definitions[name]
        element = ElementTree.SubElement(holder, _q(SSC, "Unit"), {"name": name})
        attributes = {k: str(getattr(base, k)) for k in BASE_UNITS if getattr(base, k)}
        if float(base.factor) != 1.0:
            attributes["factor"] = repr(float(base.factor))
        if float(base.offset) != 0.0:
            attributes["offset"] = repr(float(base.offset))
        ElementTree.SubElement(element, _q(SSC, "BaseUnit"), attributes)


# -- import ----------------------------------------------------------------------------------


@dataclass
class _Read:
    """What the import gathers from the (possibly nested) systems of an archive."""

    archive: Path
    zipped: zipfile.ZipFile
    units: dict[str, tuple] = field(default_factory=dict)
    components: dict[str, dict] = field(default_factory=dict)  # name -> entry
    sources: dict[str, str] = field(default_factory=dict)  # name -> FMU path in the archive
    units_of: dict[tuple[str, str], str] = field(default_factory=dict)  # connector -> unit
    edges: dict[tuple[str, str], list] = field(default_factory=dict)  # end -> [(start, a, b)]
    mount_edges: set[tuple[tuple[str, str], tuple[str, str]]] = field(default_factory=set)
    values: dict[str, dict[str, object]] = field(default_factory=dict)  # name -> sets
    mount_values: dict[str, dict[str, object]] = field(default_factory=dict)

    def error(self, where: str, message: str) -> ScenarioError:
        return ScenarioError(f"{self.archive}: {where}: {message}")


def import_ssp(archive: Path, scenario_path: Path, template: Path | None = None) -> Path:
    """Write the scenario file ``scenario_path`` running the system of the SSP ``archive``.

    FMUs go to ``<scenario stem>_fmus/`` beside it; ``template`` gives the Python side
    instead of the archive's murcosim annotation.
    """
    archive = Path(archive)
    try:
        zipped = zipfile.ZipFile(archive)
        root = ElementTree.fromstring(zipped.read("SystemStructure.ssd"))
    except (OSError, zipfile.BadZipFile, KeyError, ElementTree.ParseError) as exc:
        raise ScenarioError(f"{archive}: not a valid SSP archive: {exc}") from None
    with zipped:
        if root.tag != _q(SSD, "SystemStructureDescription") or root.get("version") not in VERSIONS:
            raise ScenarioError(
                f"{archive}: SystemStructure.ssd: expected an ssd:SystemStructureDescription of "
                f"version 1.0 or 2.0, got {root.tag} version {root.get('version')}"
            )
        read = _Read(archive, zipped)
        read.units = _read_units(root)
        system = root.find(_q(SSD, "System"))
        if system is None:
            raise read.error("SystemStructure.ssd", "no ssd:System")
        _read_system(read, system, "")
        data = _read_python_side(read, root, template)
        folder = scenario_path.parent / f"{scenario_path.stem}_fmus"
        folder.mkdir(parents=True, exist_ok=True)
        for name, entry in read.components.items():
            fmu_file = folder / Path(read.sources[name]).name
            try:
                fmu_file.write_bytes(zipped.read(read.sources[name]))
            except KeyError:
                raise read.error(
                    f"component {name}", f"{read.sources[name]} is not in the archive"
                ) from None
            entry["fmu"] = f"{folder.name}/{fmu_file.name}"
        mounted = {n for n, c in data.get("components", {}).items() if "mount" in c}
        components = {}
        for name, entry in read.components.items():
            values = read.values.get(name, {})
            if name not in mounted:
                values = {**read.mount_values.get(name, {}), **values}
            causality = _causalities(folder / Path(read.sources[name]).name)
            for variable, value in values.items():
                group = "parameters" if "arameter" in causality.get(variable, "") else "start"
                entry.setdefault(group, {})[variable] = value
            entry.update(data.get("components", {}).get(name, {}))
            components[name] = entry
    sections = {k: v for k, v in data.items() if k != "components"}
    sections["components"] = components
    sections["connections"] = _connections(read, mounted)
    scenario_path.parent.mkdir(parents=True, exist_ok=True)
    scenario_path.write_text(toml_text(sections), encoding="utf-8")
    load_scenario(scenario_path)
    return scenario_path


def _causalities(fmu_file: Path) -> dict[str, str]:
    fmu = FMU(fmu_file)
    try:
        return {n: v.causality for n, v in fmu.variables.items()}
    finally:
        fmu.close()


def _read_python_side(read: _Read, root: ElementTree.Element, template: Path | None) -> dict:
    """The Python side: the template's, else the annotation's, and the default experiment."""
    data: dict = {}
    if template is not None:
        load_scenario(template)  # a template with errors is reported against its own file
        data = _python_side(tomllib.loads(template.read_text(encoding="utf-8")))
    else:
        for annotation in root.iter(_q(SSC, "Annotation")):
            if annotation.get("type") == SCENARIO_ANNOTATION:
                text = annotation.findtext(_q(OURS, "Scenario")) or ""
                try:
                    data = tomllib.loads(text)
                except tomllib.TOMLDecodeError as exc:
                    raise read.error(f"annotation {SCENARIO_ANNOTATION}", str(exc)) from None
    experiment = root.find(_q(SSD, "DefaultExperiment"))
    simulation = data.setdefault("simulation", {})
    for key, attribute in (("start_time", "startTime"), ("stop_time", "stopTime")):
        text = experiment.get(attribute) if experiment is not None else None
        if text is not None and key not in simulation:
            try:
                simulation[key] = float(text)
            except ValueError:
                raise read.error(
                    f"DefaultExperiment.{attribute}", f"expected a number, got '{text}'"
                ) from None
    if "stop_time" not in simulation:
        raise read.error(
            "DefaultExperiment.stopTime", "missing, and no template gives simulation.stop_time"
        )
    return data


def _read_units(root: ElementTree.Element) -> dict[str, tuple]:
    units = {}
    for unit in root.iter(_q(SSC, "Unit")):
        base = unit.find(_q(SSC, "BaseUnit"))
        if base is None:
            continue
        exponents = tuple(int(base.get(k, "0")) for k in BASE_UNITS)
        units[unit.get("name")] = (
            exponents,
            float(base.get("factor", "1")),
            float(base.get("offset", "0")),
        )
    return units


def _read_system(read: _Read, system: ElementTree.Element, prefix: str) -> None:
    """Gather the components, parameter values and connections of ``system`` and below."""
    path = prefix.rstrip("_") or "(top)"
    for connector in system.iterfind(f"{_q(SSD, 'Connectors')}/{_q(SSD, 'Connector')}"):
        read.units_of[(path, connector.get("name"))] = _connector_unit(connector)
    elements = system.find(_q(SSD, "Elements"))
    names = {}
    for element in [] if elements is None else list(elements):
        name = element.get("name")
        flat = prefix + name
        if element.tag == _q(SSD, "System"):
            names[name] = flat
            _read_system(read, element, flat + "_")
            continue
        if element.tag != _q(SSD, "Component"):
            raise read.error(f"system {path}.{name}", f"unsupported element {element.tag}")
        kind = element.get("type", "application/x-fmu-sharedlibrary")
        if kind != "application/x-fmu-sharedlibrary":
            raise read.error(f"component {flat}", f"type {kind} (expected an FMU)")
        names[name] = flat
        read.components[flat] = {}
        read.sources[flat] = element.get("source", "")
        for connector in element.iterfind(f"{_q(SSD, 'Connectors')}/{_q(SSD, 'Connector')}"):
            read.units_of[(flat, connector.get("name"))] = _connector_unit(connector)
        _read_bindings(read, element, flat, flat, "")
    _read_bindings(read, system, path, None, prefix, names)
    for k, connection in enumerate(system.iterfind(f"{_q(SSD, 'Connections')}/*")):
        where = f"system {path}: connection {k + 1}"
        start = _end(connection, "start", names, path)
        end = _end(connection, "end", names, path)
        factor, offset = _transformation(read, connection, where)
        if connection.get("suppressUnitConversion") != "true":
            a, b = read.units_of.get(start, ""), read.units_of.get(end, "")
            factor, offset = _unit_conversion(read, a, b, factor, offset, where)
        read.edges.setdefault(end, []).append((start, factor, offset))
        for annotation in connection.iter(_q(SSC, "Annotation")):
            if annotation.get("type") == MOUNT_ANNOTATION:
                read.mount_edges.add((start, end))


def _connector_unit(connector: ElementTree.Element) -> str:
    for child in connector:
        if child.get("unit"):
            return child.get("unit")
    return ""


def _end(connection: ElementTree.Element, side: str, names: dict, path: str) -> tuple[str, str]:
    element = connection.get(side + "Element")
    connector = connection.get(side + "Connector")
    return (names.get(element, element) if element else path, connector)


def _transformation(read: _Read, connection: ElementTree.Element, where: str) -> tuple:
    """(factor, offset) of a connection's linear or Boolean-mapping transformation."""
    linear = connection.find(_q(SSC, "LinearTransformation"))
    if linear is not None:
        return float(linear.get("factor", "1")), float(linear.get("offset", "0"))
    mapping = connection.find(_q(SSC, "BooleanMappingTransformation"))
    if mapping is not None:
        table = {
            e.get("source") in ("true", "1"): e.get("target") in ("true", "1")
            for e in mapping.iter(_q(SSC, "MapEntry"))
        }
        if set(table) != {False, True}:
            raise read.error(where, "BooleanMappingTransformation must map both true and false")
        return float(table[True]) - float(table[False]), float(table[False])  # on 0/1
    for child in connection:
        if child.tag.endswith("MappingTransformation"):
            raise read.error(where, f"{child.tag.split('}')[1]} is not supported")
    return 1.0, 0.0


def _unit_conversion(
    read: _Read, a: str, b: str, factor: float, offset: float, where: str
) -> tuple[float, float]:
    """Compose a connection's transformation with the conversion from unit a to unit b."""
    if not a or not b or a == b:
        return factor, offset
    if a not in read.units or b not in read.units:
        raise read.error(where, f"units '{a}' and '{b}' differ and are not both in ssd:Units")
    (exp_a, fa, oa), (exp_b, fb, ob) = read.units[a], read.units[b]
    if exp_a != exp_b:
        raise read.error(where, f"units '{a}' and '{b}' are of different quantities")
    # SI value = factor * value + offset, in both units; a value in a -> the same in b
    scale = fa / fb
    return factor * scale, offset * scale + (oa - ob) / fb


def _read_bindings(
    read: _Read,
    element: ElementTree.Element,
    where: str,
    component: str | None,
    prefix: str,
    names: dict | None = None,
) -> None:
    """Parameter values of an element's bindings, inline or from .ssv files."""
    for binding in element.iterfind(
        f"{_q(SSD, 'ParameterBindings')}/{_q(SSD, 'ParameterBinding')}"
    ):
        if binding.find(_q(SSD, "ParameterMapping")) is not None:
            raise read.error(f"{where}: ParameterBinding", "ParameterMapping is not supported")
        source = binding.get("source")
        if source:
            try:
                parameter_set = ElementTree.fromstring(read.zipped.read(source))
            except (KeyError, ElementTree.ParseError) as exc:
                raise read.error(f"{where}: ParameterBinding", f"{source}: {exc}") from None
        else:
            parameter_set = binding.find(f"{_q(SSD, 'ParameterValues')}/{_q(SSV, 'ParameterSet')}")
            if parameter_set is None:
                continue
        binding_prefix = binding.get("prefix", "")
        mount = any(a.get("type") == MOUNT_ANNOTATION for a in binding.iter(_q(SSC, "Annotation")))
        for parameter in parameter_set.iter(_q(SSV, "Parameter")):
            name = parameter.get("name")
            if not name.startswith(binding_prefix):
                continue
            name = name[len(binding_prefix) :]
            target, variable = component, name
            if component is None:  # a system's binding names "<element>.<variable>"
                element_name, _, variable = name.partition(".")
                target = (names or {}).get(element_name, prefix + element_name)
                while target not in read.components and "." in variable:  # nested systems
                    inner, _, variable = variable.partition(".")
                    target = f"{target}_{inner}"
                if target not in read.components:
                    raise read.error(
                        f"{where}: parameter {parameter.get('name')}",
                        f"no component '{element_name}' in this system",
                    )
            value = _parameter_value(read, parameter, f"{where}: parameter {name}")
            store = read.mount_values if mount else read.values
            store.setdefault(target, {})[variable] = value


def _parameter_value(read: _Read, parameter: ElementTree.Element, where: str) -> object:
    typed = list(parameter)
    typed = [t for t in typed if t.tag.startswith(f"{{{SSV}}}") and t.get("value") is not None]
    if not typed:
        raise read.error(where, "no typed value")
    kind, text = typed[0].tag.split("}")[1], typed[0].get("value")
    try:
        if kind in ("Real", "Float64", "Float32"):
            return float(text)
        if kind == "Boolean":
            return {"true": True, "false": False, "1": True, "0": False}[text]
        if kind in ("String", "Binary"):
            return text
        return int(text)
    except (KeyError, ValueError):
        raise read.error(where, f"'{text}' is not a {kind} value") from None


def _connections(read: _Read, mounted: set[str]) -> list[dict]:
    """Scenario connections: every FMU input followed back through system connectors."""
    connections = []
    for end, starts in read.edges.items():
        if end[0] not in read.components:
            continue  # ends at a system connector: reached from the FMU inputs behind it
        for start, factor, offset in starts:
            chain = _source(read, start, factor, offset, set())
            if (start, end) in read.mount_edges and {start[0], end[0]} & mounted:
                continue  # made again by the mount
            for (element, connector), f, o in chain:
                entry = {"from": f"{element}.{connector}", "to": f"{end[0]}.{end[1]}"}
                if (f, o) != (1.0, 0.0):
                    entry.update(factor=f, offset=o)
                connections.append(entry)
    return connections


def _source(read: _Read, node: tuple, factor: float, offset: float, seen: set) -> list:
    """The FMU outputs that drive ``node``, with the composed factor and offset."""
    if node[0] in read.components:
        return [(node, factor, offset)]
    if node in seen:
        raise read.error(f"system {node[0]}", f"connector {node[1]} is connected in a loop")
    found = []
    for start, f, o in read.edges.get(node, []):
        # value at node = f * start + o; at the end: factor * (f * start + o) + offset
        found += _source(read, start, factor * f, factor * o + offset, seen | {node})
    return found


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
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    return repr(value)
