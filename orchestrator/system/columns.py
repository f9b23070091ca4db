"""Units of the recorded columns, for result tables and logs.

FMU variables carry the unit their model declares (``rov.p[1]``: ``m``). Joint columns have
fixed units: ``position_error`` m, ``angle_error`` rad, ``force_a[1..6]`` / ``force_b[1..6]``
N for 1-3 and N.m for 4-6 (generalized constraint force in the body's frame, at its origin),
revolute ``angle`` rad, ``rate`` rad/s, motor and driven-joint ``torque`` N.m. Controller
outputs declare no unit (``""``); their units are in the controllers' documentation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from orchestrator.system.system import System

JOINT_UNITS = {
    "position_error": "m",
    "angle_error": "rad",
    "angle": "rad",
    "rate": "rad/s",
    "torque": "N.m",
}
_FORCE = re.compile(r"force_[ab]\[(\d)\]$")


def joint_unit(signal: str) -> str:
    """Unit of a joint column's signal part (``position_error``, ``force_a[4]``, ...)."""
    force = _FORCE.match(signal)
    if force:
        return "N" if int(force.group(1)) <= 3 else "N.m"
    return JOINT_UNITS.get(signal.partition("[")[0], "")


def column_units(system: System, joints: Iterable[str], columns: list[str]) -> dict[str, str]:
    """Unit of every column (``""`` when none is declared); ``joints`` are the joint names."""
    joint_names = set(joints)
    units: dict[str, str] = {}
    for column in columns:
        owner, _, signal = column.partition(".")
        if owner in system.instances:
            variable = system.instances[owner].fmu.variables.get(signal)
            units[column] = variable.unit if variable is not None else ""
        elif owner in joint_names:
            units[column] = joint_unit(signal)
        else:
            units[column] = ""
    return units
