"""FMUs that murcosim did not build, made inside the tests by other generators.

- ``spring_mass_fmu``: an FMI 2.0 FMU compiled with gcc from ``data/spring_mass.c`` against
  FMPy's copy of the FMI headers, with a hand-written modelDescription.xml;
- ``python_fmu``: an FMI 2.0 Co-Simulation FMU made by pythonfmu from a small Python class.
"""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import fmpy
from fmpy import platform

DATA = Path(__file__).parent / "data"
HEADERS = Path(fmpy.__file__).parent / "c-code"

SPRING_MASS_VARIABLES = """
    <ScalarVariable name="m" valueReference="0" causality="parameter" variability="fixed"
        description="mass"><Real unit="kg" start="1"/></ScalarVariable>
    <ScalarVariable name="k" valueReference="1" causality="parameter" variability="fixed"
        description="spring stiffness"><Real unit="N/m" start="0"/></ScalarVariable>
    <ScalarVariable name="x" valueReference="2" causality="output" variability="continuous"
        initial="exact" description="position"><Real unit="m" start="0"/></ScalarVariable>
    <ScalarVariable name="v" valueReference="3" causality="output" variability="continuous"
        initial="exact" description="speed"><Real unit="m/s" start="0"/></ScalarVariable>
    <ScalarVariable name="der(x)" valueReference="4" causality="local"
        variability="continuous"><Real derivative="3"/></ScalarVariable>
    <ScalarVariable name="der(v)" valueReference="5" causality="local"
        variability="continuous"><Real derivative="4"/></ScalarVariable>
    <ScalarVariable name="F" valueReference="6" causality="input" variability="continuous"
        description="external force"><Real unit="N" start="0"/></ScalarVariable>
    <ScalarVariable name="x_other" valueReference="7" causality="input"
        variability="continuous" description="position of the neighbour">
        <Real unit="m" start="0"/></ScalarVariable>
    <ScalarVariable name="F_other" valueReference="8" causality="output"
        variability="continuous" description="spring force on the neighbour">
        <Real unit="N"/></ScalarVariable>
    <ScalarVariable name="position" valueReference="2" causality="local"
        variability="continuous" initial="calculated" description="alias of x">
        <Real unit="m"/></ScalarVariable>
"""

SPRING_MASS_STRUCTURE = """
    <Outputs>
      <Unknown index="3" dependencies=""/>
      <Unknown index="4" dependencies=""/>
      <Unknown index="9" dependencies="3 8"/>
    </Outputs>
    <Derivatives>
      <Unknown index="5" dependencies="4"/>
      <Unknown index="6" dependencies="3 7 8"/>
    </Derivatives>
    <InitialUnknowns>
      <Unknown index="5" dependencies="4"/>
      <Unknown index="6" dependencies="1 2 3 7 8"/>
      <Unknown index="9" dependencies="2 3 8"/>
    </InitialUnknowns>
"""


def _archive(path: Path, model_description: str, binary: Path, identifier: str) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("modelDescription.xml", model_description)
        archive.write(binary, f"binaries/{platform}/{identifier}.so")
    return path


def spring_mass_fmu(
    folder: Path, interfaces: tuple[str, ...] = ("ModelExchange", "CoSimulation")
) -> Path:
    """Compile the spring-mass FMU into ``folder``; ``interfaces`` chooses what it declares."""
    identifier = "SpringMass"
    binary = folder / f"{identifier}.so"
    if not binary.exists():
        subprocess.run(
            ["gcc", "-shared", "-fPIC", "-O2", f"-I{HEADERS}", str(DATA / "spring_mass.c")]
            + ["-o", str(binary), "-lm"],
            check=True,
        )
    roll_back = 'canGetAndSetFMUstate="true"'
    declared = "".join(
        f'  <{kind} modelIdentifier="{identifier}" {roll_back}/>\n' for kind in interfaces
    )
    text = f"""<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="SpringMass"
    guid="{{8c4e810f-3df3-4a00-8276-176fa3c9f000}}" numberOfEventIndicators="0"
    generationTool="hand-written C">
{declared}  <UnitDefinitions>
    <Unit name="kg"><BaseUnit kg="1"/></Unit>
    <Unit name="m"><BaseUnit m="1"/></Unit>
    <Unit name="m/s"><BaseUnit m="1" s="-1"/></Unit>
    <Unit name="N"><BaseUnit kg="1" m="1" s="-2"/></Unit>
    <Unit name="N/m"><BaseUnit kg="1" s="-2"/></Unit>
  </UnitDefinitions>
  <ModelVariables>{SPRING_MASS_VARIABLES}  </ModelVariables>
  <ModelStructure>{SPRING_MASS_STRUCTURE}  </ModelStructure>
</fmiModelDescription>
"""
    suffix = "_".join({"ModelExchange": "me", "CoSimulation": "cs"}[k] for k in interfaces)
    return _archive(folder / f"SpringMass_{suffix}.fmu", text, binary, identifier)


def python_fmu(folder: Path, name: str, source: str, roll_back: bool = False) -> Path:
    """Build an FMI 2.0 Co-Simulation FMU with pythonfmu from the text of module ``name``
    (one module name per FMU: the FMUs of one process share Python's module cache)."""
    from pythonfmu import FmuBuilder

    script = folder / f"{name}.py"
    script.write_text(source)
    return Path(FmuBuilder.build_FMU(script, dest=folder, canGetAndSetFMUstate=roll_back))
