"""What an FMU offers, as murcosim reads it: its interfaces, sizes and every variable.

``murcosim info FMU`` prints this: one line about the FMU (FMI version, model, interfaces,
continuous states, event indicators), one about what murcosim can do with it (a rigid body
that joints, docking and controllers can drive, or a unit connected by its inputs and
outputs), then a table of the variables with causality, variability, type, unit, start
value and description.
"""

from __future__ import annotations

from pathlib import Path

from fmpy import read_model_description

from orchestrator.errors import FMUError

# The rigid-body contract: states p[3], q[4], nu[6], input tau_ext[6], mass matrix M[6,6].
RIGID_BODY = (
    [f"p[{i}]" for i in range(1, 4)]
    + [f"q[{i}]" for i in range(1, 5)]
    + [f"nu[{i}]" for i in range(1, 7)]
    + [f"tau_ext[{i}]" for i in range(1, 7)]
    + [f"M[{i},{j}]" for i in range(1, 7) for j in range(1, 7)]
)
COLUMNS = ("name", "causality", "variability", "type", "unit", "start", "description")


def describe(path: Path) -> str:
    """The FMU at ``path`` in a few lines and a table; one-line FMUError if it cannot be
    read."""
    if not path.is_file():
        raise FMUError(f"{path}: FMU file not found")
    try:
        description = read_model_description(str(path), validate=False)
    except Exception as exc:  # fmpy raises what its XML and zip readers raise
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FMUError(f"{path}: not a readable FMU: {first}") from None
    interfaces = [
        label
        for label, part in (
            ("Model Exchange", description.modelExchange),
            ("Co-Simulation", description.coSimulation),
        )
        if part is not None
    ]
    names = {v.name for v in description.modelVariables}
    states = len(description.derivatives)
    indicators = getattr(description, "numberOfEventIndicators", 0) or len(
        getattr(description, "eventIndicators", []) or []
    )
    lines = [
        f"{path.name}: FMI {description.fmiVersion}, model {description.modelName}; "
        f"{', '.join(interfaces) or 'no interface'}; {states} continuous states, "
        f"{indicators} event indicators",
    ]
    if set(RIGID_BODY) <= names:
        lines.append(
            "murcosim: a rigid body (p, q, nu, tau_ext, M): joints, docking, thrusters and "
            "controllers can act on it"
        )
    else:
        inputs = sum(v.causality == "input" for v in description.modelVariables)
        outputs = sum(v.causality == "output" for v in description.modelVariables)
        lines.append(
            f"murcosim: a unit connected by its {inputs} inputs and {outputs} outputs (not a "
            "rigid body: it lacks " + ", ".join(sorted(set(RIGID_BODY) - names)[:3]) + ")"
        )
    rows = [
        (
            v.name,
            v.causality or "",
            v.variability or "",
            v.type,
            v.unit or (v.declaredType.unit if v.declaredType is not None else "") or "",
            "" if v.start is None else str(v.start),
            v.description or "",
        )
        for v in description.modelVariables
    ]
    lines.append("| " + " | ".join(COLUMNS) + " |")
    lines.append("| " + " | ".join("---" for _ in COLUMNS) + " |")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
