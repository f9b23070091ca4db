"""FMI ``UnitDefinitions`` from Modelica unit strings such as ``"N.s2/m2"`` or ``"kg.m2"``.

FMI requires every ``unit`` attribute to name a ``<Unit>`` element; each gets its SI base-unit
exponents (``<BaseUnit kg="1" m="1" s="-2"/>`` for ``N``) and a factor for prefixes (``us``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter

from orchestrator.errors import BuildError

BASE = ("kg", "m", "s", "A", "K", "mol", "cd", "rad")

# Unit symbol -> (factor, base-unit exponents).
SYMBOLS: dict[str, tuple[float, dict[str, int]]] = {
    "1": (1.0, {}),
    "kg": (1.0, {"kg": 1}),
    "g": (1e-3, {"kg": 1}),
    "m": (1.0, {"m": 1}),
    "s": (1.0, {"s": 1}),
    "A": (1.0, {"A": 1}),
    "K": (1.0, {"K": 1}),
    "mol": (1.0, {"mol": 1}),
    "cd": (1.0, {"cd": 1}),
    "rad": (1.0, {"rad": 1}),
    "deg": (3.141592653589793 / 180.0, {"rad": 1}),
    "N": (1.0, {"kg": 1, "m": 1, "s": -2}),
    "J": (1.0, {"kg": 1, "m": 2, "s": -2}),
    "W": (1.0, {"kg": 1, "m": 2, "s": -3}),
    "Pa": (1.0, {"kg": 1, "m": -1, "s": -2}),
    "Hz": (1.0, {"s": -1}),
    "V": (1.0, {"kg": 1, "m": 2, "s": -3, "A": -1}),
}
PREFIXES = {"u": 1e-6, "m": 1e-3, "c": 1e-2, "k": 1e3, "M": 1e6}


def _factor(token: str, unit: str) -> tuple[float, Counter]:
    match = re.fullmatch(r"([A-Za-z]+|1)(-?\d+)?", token)
    if not match:
        raise BuildError(f"unit '{unit}': cannot read factor '{token}'")
    symbol, exponent = match.group(1), int(match.group(2) or 1)
    if symbol in SYMBOLS:
        scale, dims = SYMBOLS[symbol]
    elif symbol[0] in PREFIXES and symbol[1:] in SYMBOLS:
        scale, dims = SYMBOLS[symbol[1:]]
        scale *= PREFIXES[symbol[0]]
    else:
        raise BuildError(f"unit '{unit}': unknown unit symbol '{symbol}'")
    return scale**exponent, Counter({k: v * exponent for k, v in dims.items()})


def parse_unit(unit: str) -> tuple[float, dict[str, int]]:
    """Return (factor, base exponents) of a Modelica unit string, e.g. ``"km/h"``."""
    numerator, _, denominator = unit.partition("/")
    factor, dims = 1.0, Counter()
    for sign, part in ((1, numerator), (-1, denominator)):
        for token in filter(None, part.strip("()").split(".")):
            scale, more = _factor(token, unit)
            factor *= scale**sign
            for key, value in more.items():
                dims[key] += sign * value
    return factor, {k: v for k, v in dims.items() if v}


def unit_definitions(units: list[str]) -> ET.Element:
    """An FMI 3 ``<UnitDefinitions>`` element declaring each of ``units``."""
    root = ET.Element("UnitDefinitions")
    for unit in units:
        factor, dims = parse_unit(unit)
        element = ET.SubElement(root, "Unit", name=unit)
        attributes = {k: str(dims[k]) for k in BASE if k in dims}
        if factor != 1.0:
            attributes["factor"] = repr(factor)
        ET.SubElement(element, "BaseUnit", attributes)
    return root
