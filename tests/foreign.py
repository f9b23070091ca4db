"""FMUs that murcosim did not build, made inside the tests by other generators.

- ``spring_mass_fmu``: an FMI 2.0 or 3.0 FMU compiled with gcc from ``data/spring_mass.c`` or
  ``data/spring_mass_fmi3.c`` against FMPy's copy of the FMI headers, with a hand-written
  modelDescription.xml;
- ``typed_io_fmu``: an FMI 3.0 Model Exchange FMU compiled with gcc from
  ``data/typed_io_fmi3.c``: an input and an output of every variable type of the standard,
  and arrays sized by a structural parameter;
- ``python_fmu``: an FMI 2.0 Co-Simulation FMU made by pythonfmu from a small Python class;
- ``phases_fmu``: an FMI 2.0 Co-Simulation FMU compiled with gcc from ``data/phases_fmi2.c``
  that refuses every value set in a phase the standard does not allow it in.
"""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import fmpy
from fmpy import platform, platform_tuple

DATA = Path(__file__).parent / "data"
HEADERS = Path(fmpy.__file__).parent / "c-code"

SPRING_MASS_VARIABLES = """
    <ScalarVariable name="m" valueReference="0" causality="parameter" variability="fixed"
        description="mass"><Real unit="kg" start="1"/></ScalarVariable>
    <ScalarVariable name="k" valueReference="1" causality="parameter" variability="fixed"
        description="spring stiffness"><Real unit="N/m" start="0" min="0"/></ScalarVariable>
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


SPRING_MASS_UNITS = """
  <UnitDefinitions>
    <Unit name="kg"><BaseUnit kg="1"/></Unit>
    <Unit name="m"><BaseUnit m="1"/></Unit>
    <Unit name="m/s"><BaseUnit m="1" s="-1"/></Unit>
    <Unit name="N"><BaseUnit kg="1" m="1" s="-2"/></Unit>
    <Unit name="N/m"><BaseUnit kg="1" s="-2"/></Unit>
    <Unit name="s"><BaseUnit s="1"/></Unit>
  </UnitDefinitions>
"""

SPRING_MASS_VARIABLES_3 = """
    <Float64 name="time" valueReference="9" causality="independent" variability="continuous"
        unit="s"/>
    <Float64 name="m" valueReference="0" causality="parameter" variability="fixed" unit="kg"
        start="1" description="mass"/>
    <Float64 name="k" valueReference="1" causality="parameter" variability="fixed" unit="N/m"
        start="0" min="0" description="spring stiffness"/>
    <Float64 name="x" valueReference="2" causality="output" variability="continuous"
        initial="exact" unit="m" start="0" description="position">
      <Alias name="position" description="alias of x"/>
    </Float64>
    <Float64 name="v" valueReference="3" causality="output" variability="continuous"
        initial="exact" unit="m/s" start="0" description="speed"/>
    <Float64 name="der(x)" valueReference="4" causality="local" variability="continuous"
        derivative="2"/>
    <Float64 name="der(v)" valueReference="5" causality="local" variability="continuous"
        derivative="3"/>
    <Float64 name="F" valueReference="6" causality="input" variability="continuous" unit="N"
        start="0" description="external force"/>
    <Float64 name="x_other" valueReference="7" causality="input" variability="continuous"
        unit="m" start="0" description="position of the neighbour"/>
    <Float64 name="F_other" valueReference="8" causality="output" variability="continuous"
        unit="N" description="spring force on the neighbour"/>
"""

SPRING_MASS_STRUCTURE_3 = """
    <Output valueReference="2" dependencies=""/>
    <Output valueReference="3" dependencies=""/>
    <Output valueReference="8" dependencies="2 7"/>
    <ContinuousStateDerivative valueReference="4" dependencies="3"/>
    <ContinuousStateDerivative valueReference="5" dependencies="2 6 7"/>
    <InitialUnknown valueReference="8" dependencies="1 2 7"/>
    <InitialUnknown valueReference="4" dependencies="3"/>
    <InitialUnknown valueReference="5" dependencies="0 1 2 6 7"/>
"""


def compile_fmu_binary(
    folder: Path, identifier: str, sources: list[str], flags: list[str] | None = None
) -> Path:
    """gcc the sources of ``data/`` into ``folder/<identifier>.so`` (once per folder), with
    extra compiler ``flags``."""
    binary = folder / f"{identifier}.so"
    if not binary.exists():
        subprocess.run(
            ["gcc", "-shared", "-fPIC", "-O2", f"-I{HEADERS}", *(flags or [])]
            + [str(DATA / source) for source in sources]
            + ["-o", str(binary), "-lm"],
            check=True,
        )
    return binary


def archive_fmu(path: Path, model_description: str, binary: Path, binaries: str) -> Path:
    """Zip a model description and a binary (``binaries/<binaries>/<binary name>``)."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("modelDescription.xml", model_description)
        archive.write(binary, f"binaries/{binaries}/{binary.name}")
    return path


SPRING_MASS = {  # FMI version: identifier, sources, header attributes, description, binaries
    "2.0": (
        "SpringMass",
        ["spring_mass.c"],
        'guid="{8c4e810f-3df3-4a00-8276-176fa3c9f000}" numberOfEventIndicators="0"',
        ("canGetAndSetFMUstate", SPRING_MASS_VARIABLES, SPRING_MASS_STRUCTURE),
        platform,
    ),
    "3.0": (
        "SpringMass3",
        ["spring_mass_fmi3.c", "fmi3_float64_only.c", "fmi3_unsupported.c"],
        'instantiationToken="{0d6f3c57-4a0e-4b8e-9a55-5a4f3c2b9e30}"',
        ("canGetAndSetFMUState", SPRING_MASS_VARIABLES_3, SPRING_MASS_STRUCTURE_3),
        platform_tuple,
    ),
}


def spring_mass_fmu(
    folder: Path,
    interfaces: tuple[str, ...] = ("ModelExchange", "CoSimulation"),
    fmi_version: str = "2.0",
) -> Path:
    """Compile the spring-mass FMU of FMI ``fmi_version`` (2.0 or 3.0) into ``folder``;
    ``interfaces`` chooses what it declares (each with roll back)."""
    identifier, sources, header, (roll_back, variables, structure), binaries = SPRING_MASS[
        fmi_version
    ]
    binary = compile_fmu_binary(folder, identifier, sources)
    declared = "".join(
        f'  <{kind} modelIdentifier="{identifier}" {roll_back}="true"/>\n' for kind in interfaces
    )
    text = f"""<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="{fmi_version}" modelName="{identifier}" {header}
    generationTool="hand-written C">
{declared}{SPRING_MASS_UNITS}  <ModelVariables>{variables}  </ModelVariables>
  <ModelStructure>{structure}  </ModelStructure>
</fmiModelDescription>
"""
    suffix = "_".join({"ModelExchange": "me", "CoSimulation": "cs"}[k] for k in interfaces)
    return archive_fmu(folder / f"{identifier}_{suffix}.fmu", text, binary, binaries)


def python_fmu(folder: Path, name: str, source: str, roll_back: bool = False) -> Path:
    """Build an FMI 2.0 Co-Simulation FMU with pythonfmu from the text of module ``name``
    (one module name per FMU: the FMUs of one process share Python's module cache)."""
    from pythonfmu import FmuBuilder

    script = folder / f"{name}.py"
    script.write_text(source)
    return Path(FmuBuilder.build_FMU(script, dest=folder, canGetAndSetFMUstate=roll_back))


TYPED_IO_TYPES = (  # FMI 3.0 type, start of its input (the output is written from the input)
    ("Float32", "0.5"),
    ("Float64", "0.25"),
    ("Int8", "-8"),
    ("UInt8", "8"),
    ("Int16", "-16"),
    ("UInt16", "16"),
    ("Int32", "-32"),
    ("UInt32", "32"),
    ("Int64", "-64"),
    ("UInt64", "64"),
    ("Boolean", "true"),
    ("String", "abc"),
    ("Binary", "0a0b"),
    ("Enumeration", "1"),
)


def _typed_io_variables() -> str:
    lines = []
    for k, (kind, start) in enumerate(TYPED_IO_TYPES):
        continuous = kind.startswith("Float")
        variability = "continuous" if continuous else "discrete"
        extra = ' declaredType="Side"' if kind == "Enumeration" else ""
        extra += ' unit="m"' if kind == "Float64" else ""
        if kind in ("String", "Binary"):
            lines.append(
                f'<{kind} name="u_{kind}" valueReference="{10 + 2 * k}" causality="input" '
                f'variability="discrete"><Start value="{start}"/></{kind}>'
            )
        else:
            lines.append(
                f'<{kind} name="u_{kind}" valueReference="{10 + 2 * k}" causality="input" '
                f'variability="{variability}" start="{start}"{extra}/>'
            )
        lines.append(
            f'<{kind} name="y_{kind}" valueReference="{11 + 2 * k}" causality="output" '
            f'variability="{variability}"{extra}/>'
        )
    return "\n    ".join(lines)


TYPED_IO = f"""<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="TypedIO"
    instantiationToken="{{5d1c7c1e-2f0e-4c55-9a0e-6f3b1d9e7a41}}" generationTool="hand-written C">
  <ModelExchange modelIdentifier="TypedIO"/>
  <UnitDefinitions>
    <Unit name="m"><BaseUnit m="1"/></Unit>
    <Unit name="metre"><BaseUnit m="1"/></Unit>
    <Unit name="mm"><BaseUnit m="1" factor="0.001"/></Unit>
  </UnitDefinitions>
  <TypeDefinitions>
    <EnumerationType name="Side">
      <Item name="port" value="1"/><Item name="starboard" value="2"/>
    </EnumerationType>
  </TypeDefinitions>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="t_start" valueReference="1" causality="local" variability="fixed"
        initial="calculated" unit="s"/>
    <Float64 name="t_stop" valueReference="2" causality="local" variability="fixed"
        initial="calculated" unit="s"/>
    {_typed_io_variables()}
    <UInt64 name="n" valueReference="100" causality="structuralParameter" variability="fixed"
        start="3"/>
    <Float64 name="gain" valueReference="101" causality="parameter" variability="fixed"
        start="1 2 3"><Dimension valueReference="100"/></Float64>
    <Float64 name="u_arr" valueReference="102" causality="input" variability="continuous"
        unit="mm" start="0"><Dimension valueReference="100"/></Float64>
    <Float64 name="y_arr" valueReference="103" causality="output" variability="continuous"
        unit="mm"><Dimension valueReference="100"/></Float64>
    <Float64 name="R" valueReference="104" causality="parameter" variability="fixed"
        start="1 0 0 0 1 0 0 0 1"><Dimension start="3"/><Dimension start="3"/></Float64>
    <Float64 name="r_u" valueReference="105" causality="output" variability="continuous"
        unit="metre"><Dimension start="3"/></Float64>
  </ModelVariables>
  <ModelStructure>
    {
    "".join(
        f'<Output valueReference="{11 + 2 * k}" dependencies="{10 + 2 * k}"/>'
        for k in range(len(TYPED_IO_TYPES))
    )
}
    <Output valueReference="103" dependencies="102"/>
    <Output valueReference="105" dependencies="102"/>
  </ModelStructure>
</fmiModelDescription>
"""


def typed_io_fmu(folder: Path) -> Path:
    """Compile the FMI 3.0 FMU of every variable type (``data/typed_io_fmi3.c``) into
    ``folder``."""
    binary = compile_fmu_binary(folder, "TypedIO", ["typed_io_fmi3.c", "fmi3_unsupported.c"])
    return archive_fmu(folder / "TypedIO.fmu", TYPED_IO, binary, platform_tuple)


PHASES = """<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="Phases"
    guid="{2c7d9e41-5b3a-4f60-8e1d-7a9b0c3d4e52}" generationTool="hand-written C">
  <CoSimulation modelIdentifier="Phases" canHandleVariableCommunicationStepSize="true"/>
  <ModelVariables>
    <ScalarVariable name="k" valueReference="0" causality="parameter" variability="fixed"
        description="gain"><Real start="1"/></ScalarVariable>
    <ScalarVariable name="u" valueReference="1" causality="input" variability="continuous">
        <Real start="0" min="0"/></ScalarVariable>
    <ScalarVariable name="n" valueReference="0" causality="input" variability="discrete">
        <Integer start="0" min="0"/></ScalarVariable>
    <ScalarVariable name="y" valueReference="2" causality="output" variability="continuous"
        initial="calculated" description="k u + n"><Real/></ScalarVariable>
  </ModelVariables>
  <ModelStructure>
    <Outputs><Unknown index="4" dependencies="2 3"/></Outputs>
    <InitialUnknowns><Unknown index="4" dependencies="1 2 3"/></InitialUnknowns>
  </ModelStructure>
</fmiModelDescription>
"""


def phases_fmu(folder: Path) -> Path:
    """Compile the FMI 2.0 FMU of ``data/phases_fmi2.c`` (parameter k, inputs u and n, output
    y = k u + n) into ``folder``."""
    binary = compile_fmu_binary(folder, "Phases", ["phases_fmi2.c", "fmi2_unsupported.c"])
    return archive_fmu(folder / "Phases.fmu", PHASES, binary, platform)
