"""System assembly: FMU instances, connections between them, and one state vector.

The ``System`` turns a validated scenario into running FMU instances, mounts thrusters on
their vehicles, checks every name the scenario uses, and orders the propagation of
connected signals so that each right-hand-side evaluation sets every input before the
outputs that depend on it are read. Controllers see the system only through named signals.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import numpy as np

from orchestrator.errors import FMUError, ScenarioError
from orchestrator.fmi.fmu import CO_SIMULATION, FMU, MODEL_EXCHANGE, FMUInstance, Port, Variable
from orchestrator.fmi.folder import missing_fmu
from orchestrator.native.kernel import CompiledSystem
from orchestrator.native.transfer import PortBatch, Watch
from orchestrator.scenario.model import Component, Scenario
from orchestrator.system.ocean import (
    SEED,
    drawn_names,
    environment_parameters,
    seeded_parameters,
)

CURRENT_INPUTS = ["v_c[1]", "v_c[2]", "v_c[3]"]
MASS = [f"M[{i},{j}]" for i in range(1, 7) for j in range(1, 7)]
INTERFACES = {"model_exchange": MODEL_EXCHANGE, "co_simulation": CO_SIMULATION}
# The causalities of the FMU variables a component's parameters and start tables may set.
SETTABLE = {
    "parameters": ("parameter", "structuralParameter"),
    "start": ("local", "output", "input"),
}


def expand(fmu: FMU, variable: str) -> list[str]:
    """Scalar variable names meant by ``variable``: itself, or all elements of an array."""
    if variable in fmu.variables:
        return [variable]
    pattern = re.compile(re.escape(variable) + r"\[[\d,]+\]$")
    return [name for name in fmu.variables if pattern.match(name)]


def _by_group(order: list[tuple[str, str]], links: list[Link]) -> list[tuple[str, str]]:
    """``order`` (reads and writes: kind, instance) with those of each group of linked
    instances together, each group where its first one was, their order within it kept.
    Groups share no signal, so no value changes; a right-hand side then goes through one
    group's instances at a time (a swarm vehicle after vehicle, not all vehicles' reads, then
    all thrusters' writes), which keeps them in the processor's caches."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for c in links:
        parent[root(c.source.name)] = root(c.target.name)
    first: dict[str, int] = {}
    for k, (_, name) in enumerate(order):
        first.setdefault(root(name), k)
    return sorted(order, key=lambda node: first[root(node[1])])


# Largest entry of a body's generalized mass: far beyond any vehicle (a supertanker is some
# 5e8 kg), and small enough that the coupling's products of M (M^2 in forming M^-1/2) stay
# finite doubles; a larger one is a typing slip.
LARGEST_MASS = 1e100


def _seed(value: object) -> bool:
    """Whether ``value`` seeds NumPy's generator: a whole number >= 0 (1.0 as well as 1)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return number and value >= 0 and float(value).is_integer()


def _declared(variable: Variable) -> str:
    return f" '{variable.declared_type}'" if variable.declared_type else ""


def _same_unit(fmu_a: FMU, unit_a: str, fmu_b: FMU, unit_b: str) -> bool:
    """Whether two differently named units have equal definitions in their FMUs."""
    keys = []
    for fmu, unit in ((fmu_a, unit_a), (fmu_b, unit_b)):
        found = [u for u in fmu.model_description.unitDefinitions if u.name == unit]
        base = found[0].baseUnit if found else None
        if base is None:
            return False
        keys.append(
            (base.kg, base.m, base.s, base.A, base.K, base.mol, base.cd, base.rad)
            + (float(base.factor), float(base.offset))
        )
    return keys[0] == keys[1]


@dataclass
class Link:
    """Output names of a source instance feeding the input names of a target, element-wise."""

    source: FMUInstance
    target: FMUInstance
    source_names: list[str]
    target_names: list[str]
    factor: float = 1.0  # target = factor * source + offset, element-wise
    offset: float = 0.0


@dataclass
class _Inflow:
    """All connections into one instance: its connected inputs are the sum of their sources."""

    port: Port
    # (source port, source positions, target positions, factor, offset): target += factor *
    # source + offset, element-wise
    terms: list[tuple[Port, np.ndarray, np.ndarray, float, float]] = field(default_factory=list)


class System:
    """Running FMU instances of a scenario, with their connections and state layout."""

    def __init__(
        self,
        scenario: Scenario,
        source: str,
        fmu_dir: Path,
        loaded: dict[tuple[Path, str], FMU] | None = None,
    ) -> None:
        """Instantiate the scenario's components. ``loaded``: FMUs loaded before, by (path,
        interface), shared with later systems (loading is most of the set-up): the system
        takes them from there, adds the ones it loads, and leaves them all open on
        :meth:`close` (whoever gave the dictionary closes them)."""
        self.scenario = scenario
        self.source = source
        self._owns_fmus = loaded is None
        self._fmus: dict[tuple[Path, str], FMU] = {} if loaded is None else loaded
        self.instances: dict[str, FMUInstance] = {}
        self.mounts: dict[str, list[tuple[int, str]]] = {}
        self._mounted_values: dict[str, dict[str, float]] = {}
        base = Path(source).parent
        try:
            requests = [
                (self._fmu(name, component, fmu_dir, base), name)
                for name, component in scenario.components.items()
            ]
            # in the scenario's order, next to each other in memory (a vehicle, its thrusters)
            for instance in FMUInstance.together(requests):
                self.instances[instance.name] = instance
            # Co-Simulation instances under strong coupling: sampled units of the master
            self.sampled = [
                i
                for i in self.instances.values()
                if i.kind == CO_SIMULATION and not scenario.cosimulation
            ]
            self._check_sampled_bodies()
            self._check_values()  # before the mounts and the draws read them
            self._connections = self._resolve_connections()
            self._configure()
        except FMUError as exc:
            self.close()
            raise ScenarioError(f"{source}: {exc}") from None
        except ScenarioError:
            self.close()
            raise
        self._slices: list[tuple[FMUInstance, slice]] = []
        offset = 0
        for instance in self.instances.values():
            if instance.n_states:
                self._slices.append((instance, slice(offset, offset + instance.n_states)))
                offset += instance.n_states
        self.n_states = offset
        self._stateless = [
            i for i in self.instances.values() if not i.n_states and i not in self.sampled
        ]
        self._dx = np.zeros(offset)
        self._schedule = [] if scenario.cosimulation else self._order_connections()
        self.compiled = (
            None
            if scenario.cosimulation
            else CompiledSystem(self._slices, self._stateless, self._schedule, offset)
        )
        self.watched: Watch | None = None  # breadcrumbs of FMI calls made in C

    # -- assembly -------------------------------------------------------------------------

    def _error(self, key: str, message: str) -> ScenarioError:
        return ScenarioError(f"{self.source}: {key}: {message}")

    def _fmu(self, name: str, component: Component, fmu_dir: Path, base: Path) -> FMU:
        """The loaded FMU of a component, run through the interface it asks for (or the
        default of the coupling: Model Exchange for strong, Co-Simulation for weak)."""
        path = self._fmu_path(name, component, fmu_dir, base)
        default = "co_simulation" if self.scenario.cosimulation else "model_exchange"
        wanted = INTERFACES[component.interface or default]
        if (path, wanted) not in self._fmus:
            self._fmus[(path, wanted)] = FMU(path, wanted)
        fmu = self._fmus[(path, wanted)]
        if component.interface is not None and fmu.kind != wanted:
            raise self._error(
                f"components.{name}.interface",
                f"{path.name} has no {wanted} interface (it offers {fmu.kind} only)",
            )
        return fmu

    def _check_sampled_bodies(self) -> None:
        """Joints and docking act on Model Exchange bodies, whose states the master holds."""
        ends = [(f"joints[{k}]", j.a, j.b) for k, j in enumerate(self.scenario.joints)]
        ends += [(f"docking[{k}]", d.a, d.b) for k, d in enumerate(self.scenario.docking)]
        sampled = {i.name for i in self.sampled}
        for key, *bodies in ends:
            for end, body in zip("ab", bodies, strict=True):
                if body in sampled:
                    raise self._error(
                        f"{key}.{end}",
                        f"'{body}' runs as a Co-Simulation FMU; joints and docking need a Model "
                        'Exchange body (interface = "model_exchange", or a [cosimulation] '
                        "section)",
                    )

    def _fmu_path(self, name: str, component: Component, fmu_dir: Path, base: Path) -> Path:
        if component.fmu.endswith(".fmu"):
            path = (base / component.fmu).resolve()
            if not path.is_file():
                raise self._error(f"components.{name}.fmu", f"FMU not found: {path}")
            return path
        path = fmu_dir / f"{component.fmu}.fmu"
        if not path.is_file():
            raise self._error(f"components.{name}.fmu", missing_fmu(fmu_dir, component.fmu))
        return path

    def instance(self, name: str, key: str) -> FMUInstance:
        """The instance called ``name``; ``key`` names the scenario entry for errors."""
        if name not in self.instances:
            known = ", ".join(self.instances)
            raise self._error(key, f"unknown component '{name}' (components: {known})")
        return self.instances[name]

    def _names(self, qualified: str, key: str) -> tuple[FMUInstance, list[str]]:
        instance_name, _, variable = qualified.partition(".")
        instance = self.instance(instance_name, key)
        names = expand(instance.fmu, variable)
        if not names:
            fmu = instance.fmu
            raise self._error(
                key, f"'{variable}' is not a variable of {fmu.path.name}{fmu.suggest(variable)}"
            )
        return instance, names

    def _resolve_connections(self) -> list[Link]:
        links: list[Link] = []
        for k, connection in enumerate(self.scenario.connections):
            key = f"connections[{k}]"
            source, source_names = self._names(connection.source, key + ".from")
            target, target_names = self._names(connection.target, key + ".to")
            self._check_causality(source, source_names, ("output",), key + ".from")
            self._check_causality(target, target_names, ("input",), key + ".to")
            if len(source_names) != len(target_names):
                raise self._error(
                    key,
                    f"{connection.source} has {len(source_names)} element(s), "
                    f"{connection.target} has {len(target_names)}",
                )
            link = Link(
                source, target, source_names, target_names, connection.factor, connection.offset
            )
            self._check_compatible(link, key)
            links.append(link)
        for name, component in self.scenario.components.items():
            if component.mount is not None:
                for link in self._mount(name, component):
                    self._check_compatible(link, f"components.{name}.mount")
                    links.append(link)
        return links

    def _check_compatible(self, link: Link, key: str) -> None:
        """Same type (and enumeration type) and the same unit at both ends of every element.

        Units are the same when their names are, or when both FMUs define them with equal
        SI base-unit exponents, factor and offset; a unit left out at one end matches any, and
        a connection with a factor or offset converts between any two.
        """
        pairs = zip(link.source_names, link.target_names, strict=True)
        converted = (link.factor, link.offset) != (1.0, 0.0)
        for out, inp in pairs:
            a = link.source.fmu.variables[out]
            b = link.target.fmu.variables[inp]
            ends = f"{link.source.name}.{out} -> {link.target.name}.{inp}"
            if (a.type, a.declared_type) != (b.type, b.declared_type):
                raise self._error(
                    key,
                    f"{ends}: types differ ({a.type}{_declared(a)} -> {b.type}{_declared(b)})",
                )
            if a.type in ("String", "Binary"):
                raise self._error(
                    key,
                    f"{ends}: {a.type} variables cannot be connected (connected inputs are "
                    "sums of their sources); set them as start values",
                )
            clocked = a if a.clocks else b if b.clocks else None
            if not self.scenario.cosimulation and clocked is not None:
                raise self._error(
                    key,
                    f"{ends}: '{clocked.name}' is clocked ({', '.join(clocked.clocks)}), read and "
                    "set only when its clock is active, and strong coupling connects signals "
                    "inside the right-hand side; run it under weak coupling ([cosimulation])",
                )
            if not self.scenario.cosimulation and (a.type, a.size, b.size) != ("Float64", 1, 1):
                raise self._error(
                    key,
                    f"{ends}: strong coupling connects Float64 scalars (this is {a.type}"
                    f"{' array' if max(a.size, b.size) > 1 else ''}); run it under weak coupling "
                    "([cosimulation]), which connects every numeric type",
                )
            same = a.unit == b.unit or not a.unit or not b.unit or converted
            if not same and not _same_unit(link.source.fmu, a.unit, link.target.fmu, b.unit):
                raise self._error(key, f"{ends}: units differ ('{a.unit}' -> '{b.unit}')")

    def _check_causality(
        self, instance: FMUInstance, names: list[str], allowed: tuple[str, ...], key: str
    ) -> None:
        for n in names:
            causality = instance.fmu.variables[n].causality
            if causality not in allowed:
                raise self._error(
                    key, f"{instance.name}.{n} is a(n) {causality}, expected {' or '.join(allowed)}"
                )

    def _mount(self, name: str, component: Component) -> list[Link]:
        """Place thruster ``name`` on its vehicle's mount ``slot`` and wire it to the vehicle."""
        key = f"components.{name}"
        vehicle = self.instance(component.mount, key + ".mount")
        slot = component.slot
        if slot is None:
            raise self._error(key + ".slot", "missing: the vehicle's thruster mount number")
        geometry = {}
        for field_name in ("position", "direction"):
            names = [f"data.thruster_{field_name}[{slot},{i}]" for i in (1, 2, 3)]
            if names[0] not in vehicle.fmu.variables:
                count = len(expand(vehicle.fmu, "data.thruster_position")) // 3
                raise self._error(
                    key + ".slot", f"{component.mount} has {count} thruster mount(s), not {slot}"
                )
            geometry[field_name] = [self._parameter(component.mount, n) for n in names]
        thruster = self.instances[name]
        for field_name, values in geometry.items():
            for i, value in enumerate(values, 1):
                thruster.fmu.variable(f"{field_name}[{i}]")
                self._mounted_values.setdefault(name, {})[f"{field_name}[{i}]"] = value
        self.mounts.setdefault(component.mount, []).append((slot, name))
        speed = expand(vehicle.fmu, "nu_r")
        force = expand(vehicle.fmu, "tau_ext")
        links = [
            Link(vehicle, thruster, speed, expand(thruster.fmu, "nu_r")),
            Link(thruster, vehicle, expand(thruster.fmu, "tau"), force),
        ]
        # Under a free surface (hull_height > 0) the thrust fades as the mount leaves the water.
        immersion = f"thruster_immersion[{slot}]"
        wired = immersion in vehicle.fmu.variables and "immersion" in thruster.fmu.variables
        if wired and self._parameter(component.mount, "hull_height") > 0:
            links.append(Link(vehicle, thruster, [immersion], ["immersion"]))
        return links

    def _parameter(self, instance: str, variable: str) -> float:
        """Value a parameter will have: the scenario's override, else the FMU's start value."""
        component = self.scenario.components[instance]
        if variable in component.parameters:
            return component.parameters[variable]
        start = self.instances[instance].fmu.variable(variable).start
        return float("nan") if start is None else start

    def _configure(self) -> None:
        simulation = self.scenario.simulation
        for name, component in self.scenario.components.items():
            instance = self.instances[name]
            instance.setup_experiment(simulation.start_time, simulation.stop_time)
            values = dict(self._mounted_values.get(name, {}))
            values.update(seeded_parameters(instance.fmu, component.parameters))
            seabed = self.scenario.environment.seabed_depth
            values.update(environment_parameters(instance.fmu, component.parameters, seabed))
            for group in SETTABLE:
                values.update(getattr(component, group))
            instance.set_start_values(values)

    def _check_values(self) -> None:
        """Every parameter and start value of the scenario names a variable of its FMU that
        takes a value there, of its type; a seed of random draws is a whole number >= 0."""
        for name, component in self.scenario.components.items():
            fmu = self.instances[name].fmu
            for group, allowed in SETTABLE.items():
                for variable, value in getattr(component, group).items():
                    key = f"components.{name}.{group}.{variable}"
                    if variable not in fmu.variables:
                        raise self._error(
                            key,
                            f"no variable '{variable}' in {fmu.path.name}{fmu.suggest(variable)}",
                        )
                    causality = fmu.variables[variable].causality
                    if causality not in allowed:
                        raise self._error(
                            key, f"'{variable}' is a(n) {causality}, not settable here"
                        )
                    if fmu.variables[variable].initial == "calculated":
                        raise self._error(
                            key,
                            f"'{variable}' is calculated by the FMU (initial = calculated): it "
                            "takes no start value",
                        )
                    try:
                        fmu.checked_value(variable, value)
                    except FMUError as exc:
                        raise self._error(key, str(exc)) from None
                    if variable == SEED and drawn_names(fmu.variables) and not _seed(value):
                        raise self._error(
                            key, f"expected a whole number >= 0 (the draws' seed), got {value!r}"
                        )

    def _compiled_links(self) -> list[Link]:
        """Links between Model Exchange instances, which the compiled right-hand side
        propagates. Links to or from a sampled Co-Simulation unit go through the master at
        communication points, so no input may sum sources of both kinds."""
        compiled = [
            c
            for c in self._connections
            if c.source not in self.sampled and c.target not in self.sampled
        ]
        first: dict[str, tuple[bool, str]] = {}  # input -> (from a sampled unit, its source)
        for c in self._connections:
            sampled = c.source in self.sampled
            for name in c.target_names:
                target = f"{c.target.name}.{name}"
                other_sampled, other = first.setdefault(target, (sampled, c.source.name))
                if other_sampled != sampled:
                    raise self._error(
                        "connections",
                        f"{target} sums outputs of {other} and {c.source.name}, one Model "
                        "Exchange and one Co-Simulation; under strong coupling an input's "
                        "sources are all of one kind",
                    )
        return compiled

    def _order_connections(self) -> list[tuple[str, FMUInstance, object]]:
        """Order reading outputs and writing inputs so that no input is read stale.

        Reads and writes of an instance are split where its direct feedthrough allows: the
        outputs read that depend on no written input are read early, the written inputs that
        no read output depends on are written late. A vehicle sampling a current field at its
        position (no feedthrough) and driven by thrusters that read its velocity relative to
        that current (feedthrough from the current, not from the thrust) needs both splits.
        Instances without such a split are read once and written once, as before.
        """
        links = self._compiled_links()
        # the links of each instance as source and as target, in link order (one pass, so the
        # ordering costs time linear in the number of links)
        by_source: dict[str, list[Link]] = {}
        by_target: dict[str, list[Link]] = {}
        for c in links:
            by_source.setdefault(c.source.name, []).append(c)
            by_target.setdefault(c.target.name, []).append(c)
        written: dict[str, list[str]] = {}
        for c in links:
            names = written.setdefault(c.target.name, [])
            names += [n for n in c.target_names if n not in names]
        read: dict[str, list[str]] = {}
        for c in links:
            names = read.setdefault(c.source.name, [])
            names += [n for n in c.source_names if n not in names]
        # inputs some read output depends on (with every input written by the same link)
        feeding: dict[str, set[str]] = {}
        for name, inputs in written.items():
            fmu = self.instances[name].fmu
            used = {
                u for u in inputs if any(fmu.output_depends_on(o, [u]) for o in read.get(name, []))
            }
            feeding[name] = set()
            for c in by_target[name]:
                if used.intersection(c.target_names):
                    feeding[name].update(c.target_names)

        def direct(c: Link) -> bool:
            """Whether an output ``c`` reads depends on an input written to its source."""
            fmu, inputs = c.source.fmu, written.get(c.source.name, [])
            return any(fmu.output_depends_on(o, inputs) for o in c.source_names)

        # per source: whether its links' reads differ in feedthrough (some direct, some not)
        mixed = {name: len({direct(d) for d in out}) > 1 for name, out in by_source.items()}

        def read_node(c: Link) -> tuple[str, str]:
            name = c.source.name
            return ("read early", name) if mixed[name] and not direct(c) else ("read", name)

        def write_node(c: Link) -> tuple[str, str]:
            name = c.target.name
            late = feeding[name] and not feeding[name].issuperset(written[name])
            return (
                ("write late", name)
                if late and not feeding[name].intersection(c.target_names)
                else ("write", name)
            )

        read_nodes = [read_node(c) for c in links]
        write_nodes = [write_node(c) for c in links]
        reads: dict[tuple[str, str], list[str]] = {}
        writes: dict[tuple[str, str], list[str]] = {}
        for c, r, w in zip(links, read_nodes, write_nodes, strict=True):
            names = reads.setdefault(r, [])
            names += [n for n in c.source_names if n not in names]
            names = writes.setdefault(w, [])
            names += [n for n in c.target_names if n not in names]
        read_ports = {node: self.instances[node[1]].port(v) for node, v in reads.items()}
        inflows = {node: _Inflow(self.instances[node[1]].port(v)) for node, v in writes.items()}
        for c, r, w in zip(links, read_nodes, write_nodes, strict=True):
            src, flow = read_ports[r], inflows[w]
            flow.terms.append(
                (
                    src,
                    np.array([src.names.index(n) for n in c.source_names]),
                    np.array([flow.port.names.index(n) for n in c.target_names]),
                    c.factor,
                    c.offset,
                )
            )
        graph: TopologicalSorter[tuple[str, str]] = TopologicalSorter()
        for r, w in zip(read_nodes, write_nodes, strict=True):
            graph.add(w, r)
        for (kind, name), flow in inflows.items():
            port = read_ports.get(("read", name))
            if kind == "write" and port is not None:
                fmu = self.instances[name].fmu
                if any(fmu.output_depends_on(o, flow.port.names) for o in port.names):
                    graph.add(("read", name), ("write", name))
        try:
            order = _by_group(list(graph.static_order()), links)
        except CycleError as exc:
            loop = " -> ".join(f"{kind} {name}" for kind, name in exc.args[1])
            raise ScenarioError(
                f"{self.source}: connections: algebraic loop through direct feedthrough: {loop}"
            ) from None
        return [
            (
                kind.split()[0],
                self.instances[name],
                inflows[(kind, name)] if kind.startswith("write") else read_ports[(kind, name)],
            )
            for kind, name in order
        ]

    # -- running --------------------------------------------------------------------------

    def state_index(self) -> dict[str, int]:
        """Position of every state ``<instance>.<state>`` in the state vector."""
        index = {}
        for instance, part in self._slices:
            for k, name in enumerate(instance.fmu.states):
                index[f"{instance.name}.{name}"] = part.start + k
        return index

    @property
    def connections(self) -> list[Link]:
        """Every signal link, from the scenario's connections and the thruster mounts."""
        return self._connections

    @property
    def connected_inputs(self) -> set[str]:
        """Qualified names of inputs driven by connections."""
        return {f"{c.target.name}.{n}" for c in self._connections for n in c.target_names}

    def initialize(self, start_time: float, current: tuple[float, float, float]) -> np.ndarray:
        """Initialize every instance, apply the ocean current (m/s, NED) to the inputs
        ``v_c[1..3]`` that no connection drives and the component gives no start value (a
        current component that reaches none of them is refused); return the initial state."""
        driven = self.connected_inputs
        x0 = np.zeros(self.n_states)
        taken: set[int] = set()  # components of the current some input takes
        for name, instance in self.instances.items():
            instance.initialize(start_time)
            if MASS[-1] in instance.fmu.variables:
                self._check_mass(name, instance.get_values(MASS).reshape(6, 6))
            if not all(n in instance.fmu.variables for n in CURRENT_INPUTS):
                continue
            given = self.scenario.components[name].start
            free = [
                k
                for k, n in enumerate(CURRENT_INPUTS)
                if f"{name}.{n}" not in driven and n not in given
            ]
            if free:
                port = instance.port([CURRENT_INPUTS[k] for k in free])
                port.values[:] = [current[k] for k in free]
                instance.write(port)
                taken.update(free)
        for k, value in enumerate(current):
            if value and k not in taken:  # a current set and felt by nothing
                raise self._error(
                    f"environment.current[{k}]",
                    f"{value:g} m/s reaches no component: no input v_c[{k + 1}] is left free "
                    "(each is driven by a connection or given a start value, or there is none)",
                )
        for instance, part in self._slices:
            x0[part] = instance.read(instance.states)
        return x0

    def _check_mass(self, name: str, M: np.ndarray) -> None:
        """A body's generalized mass M = M_RB + M_A must be symmetric (within 1e-9 of its
        largest entry) and positive definite: a full added-mass matrix set by hand may not be."""
        key = f"components.{name}.parameters"
        scale = np.max(np.abs(M))
        if not scale <= LARGEST_MASS:  # also NaN
            raise self._error(
                key,
                f"the generalized mass M has an entry of {scale:g}, expected finite entries "
                f"below {LARGEST_MASS:g} (kg, kg.m, kg.m2)",
            )
        if np.max(np.abs(M - M.T)) > 1e-9 * scale:
            i, j = np.unravel_index(np.argmax(np.abs(M - M.T)), M.shape)
            raise self._error(
                key,
                f"the generalized mass M is not symmetric: M[{i + 1},{j + 1}] = {M[i, j]:g} but "
                f"M[{j + 1},{i + 1}] = {M[j, i]:g} (expected data.added_mass_coupling symmetric)",
            )
        smallest = np.linalg.eigvalsh(0.5 * (M + M.T))[0]  # no overflow below LARGEST_MASS
        if smallest <= 0:
            raise self._error(
                key,
                f"the generalized mass M is not positive definite (smallest eigenvalue "
                f"{smallest:g}; expected data.m, data.I_g and the added mass to make it so)",
            )

    def derivatives(self, time: float, x: np.ndarray) -> np.ndarray:
        """Right-hand side of the whole system: set states, propagate signals, get der(x)
        (compiled; the returned buffer is reused by the next call)."""
        self.compiled.derivatives(time, x, self._dx)
        return self._dx

    def completed_step(self, time: float) -> bool:
        """Report an integrator step accepted at ``time`` (s) to every instance; whether one
        asks for event mode (a step event)."""
        return any(
            [instance.completed_integrator_step(time) for instance in self.instances.values()]
        )

    def recorded_names(self) -> list[str]:
        """Qualified names of every state, input and time-varying output (variability not
        constant, fixed or tunable) of numeric type."""
        names: list[str] = []
        for instance in self.instances.values():
            fmu = instance.fmu
            varying = [o for o in fmu.outputs if not fmu.is_constant_output(o)]
            chosen = [n for n in fmu.states + fmu.inputs + varying if n in fmu.recordable]
            seen: set[str] = set()
            for n in chosen:
                if n not in seen:
                    seen.add(n)
                    names.append(f"{instance.name}.{n}")
        return names

    def watch(self, address: int, code: Callable[[FMUInstance, str], float]) -> None:
        """Before every FMI call made in C (the compiled right-hand side, and the port batches
        made after this), store ``code(instance, method)`` in the double at ``address``."""
        self.watched = (address, code)
        if self.compiled is not None:
            self.compiled.watch(address, code)

    def batch(self, ports: list[tuple[FMUInstance, Port]], write: bool) -> PortBatch:
        """The ports read (or written) together by one compiled call (see
        :class:`~orchestrator.native.transfer.PortBatch`)."""
        return PortBatch(ports, write, self.watched)

    def port(self, qualified: list[str], key: str) -> list[tuple[FMUInstance, Port, np.ndarray]]:
        """Ports reading or writing qualified FMU variable names, grouped by instance.

        Returns (instance, port, positions) where positions index into ``qualified``.
        """
        groups: dict[str, list[int]] = {}
        for k, name in enumerate(qualified):
            instance, names = self._names(name, key)
            if names != [name.partition(".")[2]]:
                raise self._error(key, f"'{name}' must name one scalar variable")
            groups.setdefault(instance.name, []).append(k)
        return [
            (
                self.instances[i],
                self.instances[i].port([qualified[k].partition(".")[2] for k in ks]),
                np.array(ks),
            )
            for i, ks in groups.items()
        ]

    def restart(self, scenario: Scenario) -> bool:
        """Set this system up again for ``scenario`` on the same instances, each reset in place
        (``fmi3Reset``/``fmi2Reset``), when ``scenario`` is this one's with other start values
        and parameters, the parameters of vehicles carrying thrusters aside (their mounts were
        read at assembly); :meth:`initialize` follows as after construction. False when it
        cannot (another structure, an instance that cannot be reset): then only :meth:`close`
        is left."""

        def structure(s: Scenario) -> tuple:
            blank = {"start": {}, "parameters": {}}
            components = {n: c.model_copy(update=blank) for n, c in s.components.items()}
            mounts = {n: s.components[n].parameters for n in self.mounts if n in s.components}
            return (components, mounts, s.connections, s.simulation, s.environment, s.cosimulation)

        if structure(scenario) != structure(self.scenario):
            return False
        if not all([instance.reset() for instance in self.instances.values()]):
            return False
        self.scenario = scenario
        self._configure()
        return True

    def close(self) -> None:
        """Free every instance and the unpacked FMUs (unless they were given, see
        ``loaded``)."""
        for instance in self.instances.values():
            instance.terminate()
        if self._owns_fmus:
            for fmu in self._fmus.values():
                fmu.close()
