"""FMI ``UnitDefinitions`` from Modelica unit strings such as ``"N.s2/m2"``, ``"W/(m2.K)"`` or
``"degC"``.

FMI requires every ``unit`` attribute to name a ``<Unit>`` element; each gets the exponents of
FMI's base units (``<BaseUnit kg="1" m="1" s="-2"/>`` for ``N``) and the ``factor`` and
``offset`` that take a value to them, ``value_SI = factor*value + offset`` (``factor="1e-06"``
for ``us``, ``offset="273.15"`` for ``degC``). A variable's ``displayUnit`` becomes a
``<DisplayUnit>`` of its unit with the ``factor`` and ``offset`` that take a value in the unit to
the display unit, ``display = factor*value + offset`` (``offset="-273.15"`` for ``degC`` of
``K``).

Unit strings follow the grammar of the Modelica Language Specification (section "Unit
Expressions")::

    unit-expression  = unit-numerator [ "/" unit-denominator ]
    unit-numerator   = "1" | unit-factors | "(" unit-expression ")"
    unit-denominator = unit-factor | "(" unit-expression ")"
    unit-factors     = unit-factor [ "." unit-factors ]
    unit-factor      = unit-operand [ [ "+" | "-" ] digits ]
    unit-operand     = unit-symbol | unit-prefix unit-symbol

An operand is first read as a whole symbol and only then as a prefixed one: ``"min"`` is the
minute, ``"Pa"`` the pascal, ``"cd"`` the candela, ``"T"`` the tesla; ``"mm2"`` is (1e-3 m)^2.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from operator import add
from typing import NoReturn

from orchestrator.errors import BuildError

BASE = ("kg", "m", "s", "A", "K", "mol", "cd", "rad")  # FMI's base units, in BaseUnit order


@dataclass(frozen=True)
class UnitScale:
    """How a value in a unit becomes a value in base units: ``value_SI = factor*value + offset``.

    ``dims`` maps the base units of :data:`BASE` to their nonzero exponents (``{}`` for ``"1"``);
    it is ``None`` for a unit with no SI form: a level (``"dB"``, ``"phon"``) or a perceptual
    scale (``"sone"``). ``offset`` is nonzero only for a temperature scale written alone
    (``"degC"``, ``"degF"``); inside an expression such as ``"J/(kg.degC)"`` a temperature
    unit is a temperature difference, scaled without offset.
    """

    factor: float
    dims: dict[str, int] | None = field(hash=False)
    offset: float = 0.0

    def __iter__(self) -> Iterator[float | dict[str, int] | None]:
        """Unpack as ``factor, dims``: the scale of a difference, without the offset."""
        return iter((self.factor, self.dims))


@dataclass(frozen=True)
class _Quantity:
    """A unit while it is parsed: ``ratio * pi**pi_power`` base units to the exponents ``dims``.

    Prefixes and conversion factors are rational and pi is kept apart, so that ``"kg"`` (kilo
    times 1e-3 kg) is exactly 1 and ``"dm3"`` exactly 1e-3.
    """

    ratio: Fraction
    pi_power: int = 0
    dims: tuple[int, ...] = (0,) * len(BASE)  # exponents in the order of BASE

    def __mul__(self, other: _Quantity | int | Fraction) -> _Quantity:
        other = _quantity(other)
        return _Quantity(
            self.ratio * other.ratio,
            self.pi_power + other.pi_power,
            tuple(map(add, self.dims, other.dims)),
        )

    __rmul__ = __mul__

    def __truediv__(self, other: _Quantity | int | Fraction) -> _Quantity:
        return self * _quantity(other) ** -1

    def __pow__(self, exponent: int) -> _Quantity:
        return _Quantity(
            self.ratio**exponent, self.pi_power * exponent, tuple(e * exponent for e in self.dims)
        )


def _quantity(value: _Quantity | int | Fraction) -> _Quantity:
    """``value`` as a dimensionless quantity, unless it is one already."""
    return value if isinstance(value, _Quantity) else _Quantity(Fraction(value))


def _base(name: str) -> _Quantity:
    """One of FMI's base units."""
    return _Quantity(Fraction(1), 0, tuple(int(b == name) for b in BASE))


_PI = _Quantity(Fraction(1), 1)

# Power of ten of each SI prefix; "da" before "d" so that "dam" is the decametre.
PREFIXES = {
    "Y": 24, "Z": 21, "E": 18, "P": 15, "T": 12, "G": 9, "M": 6, "k": 3, "h": 2, "da": 1,
    "d": -1, "c": -2, "m": -3, "u": -6, "n": -9, "p": -12, "f": -15, "a": -18, "z": -21, "y": -24,
}  # fmt: skip

# Unit symbol -> value in base units. "kg" is read as kilo + "g".
SYMBOLS: dict[str, _Quantity] = {
    "g": _base("kg") / 1000,
    **{name: _base(name) for name in BASE if name != "kg"},
}

# Further unit symbols as (factor, definition): each definition uses only symbols above it.
_DEFINITIONS: dict[str, tuple[_Quantity | int | Fraction, str]] = {
    # SI derived units with special names
    "sr": (1, "rad2"),  # no base unit of its own in FMI: the square of a plane angle
    "Hz": (1, "s-1"),
    "N": (1, "kg.m/s2"),
    "Pa": (1, "N/m2"),
    "J": (1, "N.m"),
    "W": (1, "J/s"),
    "C": (1, "A.s"),
    "V": (1, "W/A"),
    "F": (1, "C/V"),
    "Ohm": (1, "V/A"),
    "S": (1, "A/V"),
    "Wb": (1, "V.s"),
    "T": (1, "Wb/m2"),
    "H": (1, "Wb/A"),
    "lm": (1, "cd.sr"),
    "lx": (1, "lm/m2"),
    "Bq": (1, "s-1"),
    "Gy": (1, "J/kg"),
    "Sv": (1, "J/kg"),
    "kat": (1, "mol/s"),
    "var": (1, "V.A"),  # reactive power
    # temperature scales (offsets in OFFSETS)
    "degC": (1, "K"),
    "degF": (Fraction(5, 9), "K"),
    "degRk": (Fraction(5, 9), "K"),
    # units outside the SI that the specification and Modelica.Units.NonSI use
    "min": (60, "s"),
    "h": (60, "min"),
    "d": (24, "h"),
    "l": (1, "dm3"),
    "L": (1, "dm3"),
    "ha": (1, "hm2"),
    "bar": (100_000, "Pa"),
    "eV": (Fraction("1.602176634e-19"), "J"),
    "deg": (_PI / 180, "rad"),
    "rev": (2 * _PI, "rad"),
    # pound-force: standard pound (0.45359237 kg) times standard gravity
    "lbf": (Fraction("0.45359237") * Fraction("9.80665"), "kg.m/s2"),
}

# Temperature scales with a zero of their own: value_SI = factor*value + offset (in K).
OFFSETS = {"degC": Fraction("273.15"), "degF": Fraction("459.67") * Fraction(5, 9)}

# Units with no SI form, allowed only as the whole unit string: levels and perceptual scales.
WITHOUT_SI_FORM = frozenset({"dB", "phon", "sone"})

_FACTOR = re.compile(r"([A-Za-z_]+)([+-]?[0-9]+)?")  # unit-operand, unit-exponent


class _Parser:
    """Recursive descent over one unit string, one method per rule of the grammar."""

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self.pos = 0

    def parse(self) -> _Quantity:
        """The whole string as one unit-expression."""
        quantity = self.expression()
        if self.pos < len(self.unit):
            rest = self.unit[self.pos :]
            hint = ""
            if rest[0] in "./" and "/" in self.unit[: self.pos]:
                hint = " ('/' takes one factor or a parenthesized expression)"
            self.fail(f"cannot read '{rest}'{hint}")
        return quantity

    def fail(self, message: str) -> NoReturn:
        """Raise the one-line error naming the unit string."""
        raise BuildError(f"unit '{self.unit}': {message}")

    def at(self, text: str) -> bool:
        """Whether ``text`` comes next; if so, step over it."""
        if self.unit.startswith(text, self.pos):
            self.pos += len(text)
            return True
        return False

    def expression(self) -> _Quantity:
        """unit-expression: a numerator, then '/' and a denominator or nothing."""
        quantity = self.numerator()
        if self.at("/"):
            quantity /= self.denominator()
        return quantity

    def numerator(self) -> _Quantity:
        """unit-numerator: '1', a product of factors or a parenthesized expression."""
        if self.at("1"):
            return _Quantity(Fraction(1))
        if self.unit.startswith("(", self.pos):
            return self.group()
        quantity = self.factor()
        while self.at("."):
            quantity *= self.factor()
        return quantity

    def denominator(self) -> _Quantity:
        """unit-denominator: one factor or a parenthesized expression."""
        return self.group() if self.unit.startswith("(", self.pos) else self.factor()

    def group(self) -> _Quantity:
        """A unit-expression in parentheses."""
        self.at("(")
        quantity = self.expression()
        if not self.at(")"):
            self.fail(f"expected ')' at {self.here()}")
        return quantity

    def factor(self) -> _Quantity:
        """unit-factor: an operand and an optional signed integer exponent."""
        match = _FACTOR.match(self.unit, self.pos)
        if not match:
            self.fail(f"expected a unit symbol at {self.here()}")
        self.pos = match.end()
        return self.operand(match.group(1)) ** int(match.group(2) or 1)

    def operand(self, symbol: str) -> _Quantity:
        """A whole unit symbol, else a prefix and a unit symbol."""
        if symbol in WITHOUT_SI_FORM:
            self.fail(f"'{symbol}' has no SI form and must stand alone")
        if symbol in SYMBOLS:
            return SYMBOLS[symbol]
        for prefix, power in PREFIXES.items():
            rest = symbol.removeprefix(prefix)
            if rest != symbol and rest in SYMBOLS:
                return SYMBOLS[rest] * Fraction(10) ** power
        self.fail(f"unknown unit symbol '{symbol}'")

    def here(self) -> str:
        """The rest of the string, for an error message."""
        return f"'{self.unit[self.pos :]}'" if self.pos < len(self.unit) else "the end"


def _define(definitions: dict[str, tuple[_Quantity | int | Fraction, str]]) -> None:
    """Add each definition to SYMBOLS in turn: each is read with the symbols before it."""
    for symbol, (factor, definition) in definitions.items():
        SYMBOLS[symbol] = _quantity(factor) * _Parser(definition).parse()


_define(_DEFINITIONS)


def parse_unit(unit: str) -> UnitScale:
    """Factor, offset and base-unit exponents of a Modelica unit string, e.g. ``"km/h"``.

    Raises :class:`BuildError` naming the unit and the part of it that could not be read.
    """
    if unit in WITHOUT_SI_FORM:
        return UnitScale(1.0, None)
    quantity = _Parser(unit).parse()
    return UnitScale(
        factor=float(quantity.ratio) * math.pi**quantity.pi_power,
        dims={name: e for name, e in zip(BASE, quantity.dims, strict=True) if e},
        offset=float(OFFSETS.get(unit, 0)),
    )


def display_scale(unit: str, display: str) -> tuple[float, float] | str:
    """``(factor, offset)`` with ``display = factor*value + offset`` for a value in ``unit``
    shown in ``display`` (FMI 2.0 Sec. 2.2.2, FMI 3.0 Sec. 2.4.3): ``("rad/s", "rev/min")``
    gives ``(30/pi, 0)``, ``("K", "degC")`` gives ``(1, -273.15)``.

    The factor is exact up to one rounding (rational factors and powers of pi are kept apart
    until the end). Where no such conversion exists, the reason is returned instead: a display
    unit that cannot be read, of another dimension (a reciprocal such as ``"Hz"`` of ``"s"`` is
    not affine), or of a unit with no SI form.
    """
    if parse_unit(unit).dims is None or display in WITHOUT_SI_FORM:
        return "a unit with no SI form converts to no other unit"
    try:
        shown = _Parser(display).parse()
    except BuildError as exc:
        return str(exc)
    value = _Parser(unit).parse()
    if shown.dims != value.dims:
        return "it is of another dimension than the unit"
    ratio = value / shown  # display = ratio*value + (offset_unit - offset_display)/shown
    offset = (OFFSETS.get(unit, 0) - OFFSETS.get(display, 0)) / shown.ratio
    return (
        float(ratio.ratio) * math.pi**ratio.pi_power,
        float(offset) * math.pi**-shown.pi_power,
    )


def unit_definitions(units: list[str], display: dict[str, set[str]] | None = None) -> ET.Element:
    """A ``<UnitDefinitions>`` element declaring each of ``units`` (FMI 2 and FMI 3 alike).

    Each ``<Unit>`` has a ``<BaseUnit>`` with the nonzero exponents and, where they differ from
    their defaults, ``factor`` (1) and ``offset`` (0); a unit with no SI form has none. Then
    a ``<DisplayUnit>`` for each display unit that ``display`` lists for it, with its
    ``factor`` and ``offset`` (:func:`display_scale`; display units without one must have been
    left out before).
    """
    root = ET.Element("UnitDefinitions")
    for unit in units:
        scale = parse_unit(unit)
        element = ET.SubElement(root, "Unit", name=unit)
        if scale.dims is None:
            continue
        attributes = {k: str(scale.dims[k]) for k in BASE if k in scale.dims}
        if scale.factor != 1.0:
            attributes["factor"] = repr(scale.factor)
        if scale.offset != 0.0:
            attributes["offset"] = repr(scale.offset)
        ET.SubElement(element, "BaseUnit", attributes)
        for name in sorted((display or {}).get(unit, ())):
            factor, offset = display_scale(unit, name)
            shown = {"name": name}
            if factor != 1.0:
                shown["factor"] = repr(factor)
            if offset != 0.0:
                shown["offset"] = repr(offset)
            ET.SubElement(element, "DisplayUnit", shown)
    return root
