"""Checks across the keys of a validated scenario that no single key's type can express.

Each check returns the key at fault and what was expected, so a scenario with nonsense in it
is refused with one line before any FMU is loaded: times in order, run lengths that give a
bounded number of output rows and integration steps, unique names, scheduled events of joints
that exist, no connection twice, one thruster per mount, physical masses and inertias where
the scenario sets them, physical parameters of MurCoSim's models (tethers, waves, currents,
bodies), tether ends reading a whole body state, unit quaternions and start positions. (Joint
axes and rotations are checked where the joints are made, ``coupling/``.)
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import PurePath

import numpy as np

from orchestrator.scenario.model import LONGEST_TIME, RendezvousConfig, Scenario

# Most output rows or controller samples of one run: 1e6 rows of a few hundred columns are a few
# GB of CSV; more is a typing slip (an interval in ms written as s), not a study.
MOST_SAMPLES = 1_000_000
# Most integration steps (RK4 steps, or solve_ivp steps forced by the largest step) of one run:
# at some 100 us per right-hand side this is already hours of wall time.
MOST_STEPS = 10_000_000
# Farthest start position of a body from the NED origin (m): the Earth's diameter; a farther
# one is a slip (1e308 m overflowed in the joints' solve).
FARTHEST = 1.3e7
# Scalar-first unit quaternions written with 4 decimals have norms within 1e-3 of 1.
QUATERNION_TOLERANCE = 1e-3

Problem = tuple[str, str]


def first_problem(scenario: Scenario) -> Problem | None:
    """The first inconsistency (key, message) of ``scenario``, or None."""
    for check in (
        _times,
        _names,
        _connections,
        _thrusters,
        _masses,
        _model_parameters,
        _tether_ends,
        _start_poses,
    ):
        for problem in check(scenario):
            return problem
    return None


def _times(scenario: Scenario) -> Iterator[Problem]:
    sim = scenario.simulation
    length = sim.stop_time - sim.start_time
    if length <= 0:
        yield (
            "simulation.start_time",
            f"must be before stop_time (got start {sim.start_time:g} s, stop {sim.stop_time:g} s)",
        )
        return
    yield from _periods(scenario)
    rows = length / sim.output_interval
    if rows > MOST_SAMPLES:
        yield (
            "simulation.output_interval",
            f"{sim.output_interval:g} s gives {rows:.3g} output rows over {length:g} s, "
            f"expected at most {MOST_SAMPLES:.0e} (a larger interval)",
        )
    steps = length / sim.step
    if steps > MOST_STEPS:
        yield (
            "simulation.step",
            f"{sim.step:g} s gives {steps:.3g} steps over {length:g} s, "
            f"expected at most {MOST_STEPS:.0e} (a larger step)",
        )
    if scenario.cosimulation and length / scenario.cosimulation.macro_step > MOST_STEPS:
        yield (
            "cosimulation.macro_step",
            f"{scenario.cosimulation.macro_step:g} s gives more than {MOST_STEPS:.0e} "
            f"macro steps over {length:g} s",
        )
    for name, controller in scenario.controllers.items():
        if length / controller.sample_time > MOST_SAMPLES:
            yield (
                f"controllers.{name}.sample_time",
                f"{controller.sample_time:g} s gives more than {MOST_SAMPLES:.0e} samples "
                f"over {length:g} s",
            )


def _periods(scenario: Scenario) -> Iterator[Problem]:
    """Intervals of the run no longer than the longest run: the master's tick is their
    greatest common divisor in nanoseconds, which a longer one overflows."""
    sim = scenario.simulation
    periods = [("simulation.output_interval", sim.output_interval), ("simulation.step", sim.step)]
    if scenario.cosimulation:
        periods.append(("cosimulation.macro_step", scenario.cosimulation.macro_step))
    for name, controller in scenario.controllers.items():
        periods.append((f"controllers.{name}.sample_time", controller.sample_time))
        periods.append((f"controllers.{name}.latency", getattr(controller, "latency", 0.0)))
    for key, period in periods:
        if period > LONGEST_TIME:
            yield key, f"{period:g} s, expected at most {LONGEST_TIME:g} s (the longest run)"


def _names(scenario: Scenario) -> Iterator[Problem]:
    seen: dict[str, str] = {}
    for k, joint in enumerate(scenario.joints):
        key = f"joints[{k}].name"
        if joint.name in seen:
            yield key, f"'{joint.name}' is already the name of {seen[joint.name]}"
        seen[joint.name] = key
    for k, pair in enumerate(scenario.docking):
        key = f"docking[{k}].name"
        if pair.name is not None and pair.name in seen:
            yield key, f"'{pair.name}' is already the name of {seen[pair.name]}"
        if pair.name is not None:
            seen[pair.name] = key
    for pair in scenario.docking:
        if pair.name is None:  # the coupling's name of an unnamed pair's weld
            seen.setdefault(f"dock_{pair.a}_{pair.b}", "an unnamed docking pair")
    for k, event in enumerate(scenario.events):
        if event.joint not in seen:
            known = sorted(seen)
            close = difflib.get_close_matches(event.joint, known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"expected one of {known}"
            yield f"events[{k}].joint", f"'{event.joint}' names no joint or docking pair ({hint})"
    for name, controller in scenario.controllers.items():
        if isinstance(controller, RendezvousConfig):
            listed: dict[str, int] = {}
            for k, vehicle in enumerate(controller.vehicles):
                if vehicle.name in listed:
                    yield (
                        f"controllers.{name}.vehicles[{k}].name",
                        f"'{vehicle.name}' is vehicles[{listed[vehicle.name]}] already",
                    )
                listed.setdefault(vehicle.name, k)
    for name in scenario.controllers:
        if name in scenario.components:
            yield (
                f"controllers.{name}",
                f"'{name}' is also a component; signals '{name}.*' would be ambiguous",
            )


def _connections(scenario: Scenario) -> Iterator[Problem]:
    """No connection twice: connections into one input add up, so a repeated one (a copy
    left in) would double its signal."""
    seen: dict[tuple[str, str], int] = {}
    for k, connection in enumerate(scenario.connections):
        pair = (connection.source, connection.target)
        if pair in seen:
            yield (
                f"connections[{k}]",
                f"{connection.source} -> {connection.target} is connections[{seen[pair]}] "
                "again (connections into one input add up: it would count twice)",
            )
        seen.setdefault(pair, k)


def _thrusters(scenario: Scenario) -> Iterator[Problem]:
    taken: dict[tuple[str, int], str] = {}
    for name, component in scenario.components.items():
        if component.mount is None or component.slot is None:
            continue
        place = (component.mount, component.slot)
        if place in taken:
            yield (
                f"components.{name}.slot",
                f"mount {component.slot} of {component.mount} already holds {taken[place]}",
            )
        taken[place] = name


def _number(value: object) -> bool:
    """Whether a parameter or start value is a real number (not a Boolean or a string, whose
    types are checked against the FMU's variables when the run starts)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _masses(scenario: Scenario) -> Iterator[Problem]:
    """The body data record's mass ``data.m`` (kg) and inertia ``data.I_g`` (kg.m2) where given.

    A full inertia must be symmetric positive definite; a partial one needs positive diagonal
    entries and off-diagonal entries with I_ij^2 < I_ii I_jj (2x2 minors of a positive definite
    matrix); the FMU's own values fill the rest, checked when the run starts.
    """
    for name, component in scenario.components.items():
        values = {k: v for k, v in component.parameters.items() if _number(v)}
        key = f"components.{name}.parameters"
        if "data.m" in values and values["data.m"] <= 0:
            yield f"{key}.data.m", f"mass must be positive (got {values['data.m']:g} kg)"
        inertia = {
            (i, j): values[f"data.I_g[{i},{j}]"]
            for i in (1, 2, 3)
            for j in (1, 2, 3)
            if f"data.I_g[{i},{j}]" in values
        }
        for (i, j), value in inertia.items():
            if i == j and value <= 0:
                yield f"{key}.data.I_g[{i},{i}]", f"must be positive (got {value:g} kg.m2)"
            if (i, j) in inertia and (j, i) in inertia and inertia[(j, i)] != value:
                yield f"{key}.data.I_g[{i},{j}]", "inertia must be symmetric"
            both = (i, i) in inertia and (j, j) in inertia
            if i != j and both and value**2 >= inertia[(i, i)] * inertia[(j, j)]:
                yield f"{key}.data.I_g[{i},{j}]", "inertia is not positive definite"
        if len(inertia) == 9:
            matrix = np.array([[inertia[(i, j)] for j in (1, 2, 3)] for i in (1, 2, 3)])
            if np.linalg.eigvalsh(matrix)[0] <= 0:
                yield f"{key}.data.I_g", "inertia is not positive definite"


# MurCoSim's Tether: parameters that must be positive, with their units.
TETHER_UNITS = {"L": "m", "d": "m", "m_l": "kg/m", "EA": "N", "rho": "kg/m3"}

# Bodies of the MurCoSim library (those with a hull height, thruster immersion and seabed).
BODIES = (
    "AnthropomorphicLink1",
    "AnthropomorphicLink2",
    "AnthropomorphicLink3",
    "BlueROV",
    "BlueROV2Heavy",
    "ConnectorBracket",
    "GenericVehicle",
    "LargeTestCylinder",
    "PrototypeHousing",
    "PrototypePayload",
    "RexROV",
    "RodLink",
    "SphereModule",
    "SphereModuleHull",
)
# MurCoSim models' parameters that must be positive where a scenario sets them, by FMU name:
# parameter -> unit. A Modelica min, and so an FMU's declared min, includes its bound: it says
# "not negative" (min = 0, which the FMU's model description carries and the run refuses) but
# not "more than 0". Values outside make no error in the models themselves: a negative H_s
# gives the sea of |H_s|.
POSITIVE: dict[str, dict[str, str]] = {
    "Tether": TETHER_UNITS,
    "RegularWave": {"period": "s"},
    "IrregularSea": {
        "H_s": "m",
        "omega_min": "rad/s",
        "omega_max": "rad/s",
        "omega_cutoff": "rad/s",
    },
    "CurrentField": {"speed_tau": "s", "direction_tau": "s"},
    **dict.fromkeys(BODIES, {"thruster_height": "m"}),
}
# Parameters that must increase in this order where a scenario sets two of them.
INCREASING = {
    "IrregularSea": ("omega_min", "omega_max"),
    "CurrentField": tuple(f"profile_depth[{i}]" for i in (1, 2, 3, 4)),
}
# IrregularSea sums its n = 128 components: a larger count would space them over a wider band
# than they cover.
SEA_COMPONENTS = 128


def _model_parameters(scenario: Scenario) -> Iterator[Problem]:
    """Parameters of MurCoSim's models where given: positive (:data:`POSITIVE`; their other
    bounds are the FMUs' declared min and max, checked when the run starts), in increasing
    order (:data:`INCREASING`), and an irregular sea's component count a whole number from 1
    to 128."""
    for name, component in scenario.components.items():
        model = PurePath(component.fmu).stem
        values = {k: v for k, v in component.parameters.items() if _number(v)}
        key = f"components.{name}.parameters"
        for parameter, unit in POSITIVE.get(model, {}).items():
            value = values.get(parameter)
            if value is not None and value <= 0:
                yield f"{key}.{parameter}", f"must be positive (got {value:g} {unit})"
        given = [p for p in INCREASING.get(model, ()) if p in values]
        for lower, upper in zip(given, given[1:], strict=False):
            if values[upper] <= values[lower]:
                yield (
                    f"{key}.{upper}",
                    f"must be more than {lower} ({values[lower]:g}), got {values[upper]:g}",
                )
        count = values.get("components") if model == "IrregularSea" else None
        if count is not None and not (float(count).is_integer() and 1 <= count <= SEA_COMPONENTS):
            yield (
                f"{key}.components",
                f"expected a whole number from 1 to {SEA_COMPONENTS} (got {count:g})",
            )


TETHER_END = ("p", "q", "nu")  # the state of the body an end sits on: p_a, q_a, nu_a (b too)


def _tether_ends(scenario: Scenario) -> Iterator[Problem]:
    """Each end of a ``Tether`` reads a body's whole state, ``p``, ``q`` and ``nu`` of one
    body, or none of it (a fixed point): an input left out keeps its start value (an
    attachment that does not turn or move with its body), without a word."""
    for name, component in scenario.components.items():
        if PurePath(component.fmu).stem != "Tether":
            continue
        for end in ("a", "b"):
            sources: dict[str, set[str]] = {}
            for connection in scenario.connections:
                instance, _, variable = connection.target.partition(".")
                base = variable.partition("[")[0]
                state = base.removesuffix(f"_{end}")
                if instance == name and base == f"{state}_{end}" and state in TETHER_END:
                    sources.setdefault(state, set()).add(connection.source.partition(".")[0])
            if not sources:
                continue
            missing = [f"{s}_{end}" for s in TETHER_END if s not in sources]
            bodies = set().union(*sources.values())
            if missing:
                yield (
                    f"components.{name}",
                    f"end {end} reads {', '.join(f'{s}_{end}' for s in sources)} but not "
                    f"{', '.join(missing)} (an end takes p, q and nu of one body, or none)",
                )
            elif len(bodies) > 1:
                yield (
                    f"components.{name}",
                    f"end {end} reads the state of {', '.join(sorted(bodies))} (expected one "
                    "body's p, q and nu)",
                )


def _start_poses(scenario: Scenario) -> Iterator[Problem]:
    """Unit start quaternions, and start positions of MurCoSim's bodies within FARTHEST."""
    for name, component in scenario.components.items():
        names = [f"q[{i}]" for i in (1, 2, 3, 4)]
        if all(_number(component.start.get(n)) for n in names):
            norm = float(np.linalg.norm([component.start[n] for n in names]))
            if abs(norm - 1.0) > QUATERNION_TOLERANCE:
                yield (
                    f"components.{name}.start.q",
                    f"a unit quaternion was expected (got norm {norm:.6g})",
                )
        if PurePath(component.fmu).stem not in BODIES:
            continue
        for n in ("p[1]", "p[2]", "p[3]"):
            value = component.start.get(n)
            if _number(value) and abs(value) > FARTHEST:
                yield (
                    f"components.{name}.start.{n}",
                    f"a position (m, NED) within {FARTHEST:g} m of the origin was expected "
                    f"(got {value:g})",
                )
        for n in names:  # some given, the FMU's start the others: each within [-1, 1]
            value = component.start.get(n)
            if _number(value) and abs(value) > 1.0 + QUATERNION_TOLERANCE:
                yield (
                    f"components.{name}.start.{n}",
                    f"a component of a unit quaternion was expected, within [-1, 1] "
                    f"(got {value:g})",
                )
