"""MurCoSim as a model library: its components' inputs and outputs are MurCoSim.Interfaces
connectors, and the FMUs built from them have the variables the plain ``input Real`` /
``output Real`` declarations gave."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fmpy import read_model_description
from pymoca import ast

from orchestrator.compiler import build_library
from orchestrator.compiler.modelica import ModelicaLibrary, load_library
from orchestrator.errors import BuildError

MURCOSIM = Path(__file__).parents[2] / "modelica" / "MurCoSim"
CONNECTORS = {
    "MurCoSim.Interfaces.RealInput": "input",
    "MurCoSim.Interfaces.RealOutput": "output",
}
SPEED_UNITS = ("m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s")
FORCE_UNITS = ("N", "N", "N", "N.m", "N.m", "N.m")
NU_R = "Vehicle velocity relative to the water at CO, body frame"
TAU = "Generalized force on the vehicle at CO, body frame"
IMMERSION = (
    "Immersed fraction of the propeller, 0..1: its thrust and torque scale with it "
    "(the vehicle's thruster_immersion under a free surface)"
)
# The Thruster's inputs and outputs as ThrusterBase declares them (Thrusters/package.mo):
# name, causality, variability, start, unit, description.
THRUSTER_SIGNALS = [
    ("pwm", "input", "continuous", "1500.0", "us", "ESC command pulse width"),
    *[
        (f"nu_r[{i + 1}]", "input", "continuous", "0.0", unit, NU_R)
        for i, unit in enumerate(SPEED_UNITS)
    ],
    ("immersion", "input", "continuous", "1.0", None, IMMERSION),
    ("thrust", "output", "continuous", None, "N", "Thrust along direction"),
    (
        "torque",
        "output",
        "continuous",
        None,
        "N.m",
        "Shaft torque (reaction on the vehicle is -spin*torque*direction)",
    ),
    *[
        (f"tau[{i + 1}]", "output", "continuous", None, unit, TAU)
        for i, unit in enumerate(FORCE_UNITS)
    ],
]


@pytest.fixture(scope="module")
def library() -> ModelicaLibrary:
    return load_library(MURCOSIM)


@pytest.fixture(scope="module")
def classes(library) -> dict[str, ast.Class]:
    """Every class of the library by its full name."""
    found: dict[str, ast.Class] = {}
    pending = [("", library.root)]
    while pending:
        name, cls = pending.pop()
        for child_name, child in cls.classes.items():
            full = f"{name}.{child_name}" if name else child_name
            found[full] = child
            pending.append((full, child))
    return found


def _resolve(classes: dict[str, ast.Class], reference: str, scope: str) -> str | None:
    """The full name of class ``reference`` seen from inside ``scope`` (Modelica's lookup in
    the enclosing classes, enough for MurCoSim's names); None for a built-in type."""
    parts = scope.split(".")
    for depth in range(len(parts), -1, -1):
        candidate = ".".join([*parts[:depth], reference])
        if candidate in classes:
            return candidate
    assert reference in ("Real", "Integer", "Boolean"), f"{reference} not found from {scope}"
    return None


def _signals(classes: dict[str, ast.Class], model: str) -> dict[str, str]:
    """Components of ``model`` and the classes it extends declared with a MurCoSim.Interfaces
    connector: name -> "input" or "output"."""
    found: dict[str, str] = {}
    pending = [model]
    while pending:
        name = pending.pop()
        for symbol_name, symbol in classes[name].symbols.items():
            if str(symbol.type) in CONNECTORS:
                found[symbol_name] = CONNECTORS[str(symbol.type)]
        pending += [_resolve(classes, str(e.component), name) for e in classes[name].extends]
    return found


def test_components_declare_inputs_and_outputs_through_the_interfaces(classes):
    """No component of MurCoSim carries ``input`` or ``output`` itself; RealInput and
    RealOutput are short connector classes (the prefix is theirs, as the source says), and
    every component whose class is a connector uses one of them."""
    prefixed, connected = [], []
    for name, cls in classes.items():
        if name.startswith("MurCoSim.Interfaces."):
            assert cls.type == "connector" and cls.is_short_class_definition, name
            continue
        for symbol_name, symbol in cls.symbols.items():
            if {"input", "output"} & set(symbol.prefixes):
                prefixed.append(f"{name}.{symbol_name}")
            kind = _resolve(classes, str(symbol.type), name)
            if kind is not None and classes[kind].type == "connector":
                assert kind in CONNECTORS, f"{name}.{symbol_name}: {kind}"
                connected.append(f"{name}.{symbol_name}")
    assert prefixed == []
    assert len(connected) == 50  # the declarations that were plain input/output Real
    interfaces = (MURCOSIM / "Interfaces" / "package.mo").read_text(encoding="utf-8")
    for short, prefix in (("RealInput", "input"), ("RealOutput", "output")):
        assert re.search(rf'connector {short} = {prefix} Real "', interfaces), short


def test_fmu_inputs_and_outputs_are_the_connector_components(library, classes, fmu_dir):
    """Every MurCoSim FMU's inputs and outputs are exactly the components its model declares
    with RealInput and RealOutput (array elements by their base name), with that causality;
    the one declared signal an FMU may lack is an array of size zero: thruster_immersion of a
    body without thruster mounts."""
    for model in library.models():
        fmu = fmu_dir / f"{model.split('.')[-1]}.fmu"
        variables = read_model_description(str(fmu)).modelVariables
        names = {v.name.split("[")[0] for v in variables}
        built = {
            v.name.split("[")[0]: v.causality
            for v in variables
            if v.causality in ("input", "output")
        }
        declared = _signals(classes, model)
        assert built == {n: c for n, c in declared.items() if n in names}, model
        assert set(declared) - names <= {"thruster_immersion"}, model  # data.n_thrusters = 0


def test_thruster_signals_are_unchanged(fmus):
    """The Thruster FMU's inputs and outputs, attribute by attribute, as the declarations
    gave them before they became connectors."""
    variables = fmus("Thruster").model_description.modelVariables
    got = [
        (v.name, v.causality, v.variability, v.start, v.unit, v.description)
        for v in variables
        if v.causality in ("input", "output")
    ]
    assert got == THRUSTER_SIGNALS


@pytest.mark.parametrize(
    ("model", "problem"),
    [
        (
            "Thruster",
            "component position in MurCoSim.Thrusters.ThrusterBase: an array of the derived "
            "type MurCoSim.Position, whose dimensions",
        ),
        (
            "JointServo",
            "component theta_cmd in MurCoSim.Buoys.JointServo: its type "
            "MurCoSim.Interfaces.RealInput is a short connector class, whose input or output",
        ),
    ],
)
def test_pymoca_refuses_murcosim_in_one_line(tmp_path, model, problem):
    """pymoca 0.12 drops a short connector class's input/output and the dimensions of an
    array of a derived type (``Position r[3]``): MurCoSim's models are refused with the
    component, what pymoca would lose and the front end to use, not with pymoca's error."""
    with pytest.raises(BuildError) as caught:
        build_library(
            MURCOSIM,
            tmp_path,
            backend="pymoca",
            models=[model],
            variants=("me",),
            report=lambda _: None,
        )
    assert str(caught.value).endswith(f": {problem} pymoca 0.12 drops: build with --backend rumoca")
