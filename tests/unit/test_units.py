"""Modelica unit strings -> FMI unit definitions: the grammar, the values, the XML."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import fmpy
import pytest
from lxml import etree

from orchestrator.compiler.model_code import FmuVariable, ModelCode
from orchestrator.compiler.model_description import fmi2_description, fmi3_description
from orchestrator.compiler.units import parse_unit, unit_definitions
from orchestrator.errors import BuildError

# Every unit and display unit string of the Modelica Standard Library 4.x package
# Modelica.Units (the types of SI and NonSI, and the display units), 4.0 to 4.1.
# fmt: off
MSL_UNITS = [
    "1", "1/(A.s)", "1/K", "1/K2", "1/Pa", "1/S", "1/V", "1/cm2", "1/s", "A", "A.h", "A.m2",
    "A.m2/(J.s)", "A/(m2.K2)", "A/V2", "A/m", "A/m2", "A/s", "Bq", "Bq/kg", "C", "C.m", "C.m2/V",
    "C/(kg.s)", "C/kg", "C/m2", "C/m3", "C/mol", "F", "F/m", "F/m2", "Gy", "Gy/s", "H", "H-1",
    "H/m", "Hz", "J", "J-1/m-3", "J.m.s2/kg", "J.m.s2/kg2", "J.m2", "J.m2/kg", "J.m3/kg", "J/(K.s)",
    "J/(kg.K)", "J/(mol.K)", "J/K", "J/kg", "J/m", "J/m2", "J/m3", "J/m4", "J/mol", "K", "K/W",
    "K/s", "N", "N.m", "N.m.s", "N.m.s/rad", "N.m/A", "N.m/rad", "N.s", "N.s/m", "N/A", "N/m",
    "Ohm", "Ohm.m", "Ohm/K", "Ohm/K2", "Ohm/m", "Pa", "Pa.m3/kg", "Pa.s", "Pa.s/m", "Pa.s/m3",
    "Pa/K", "Pa/s", "S", "S.m2/mol", "S/m", "Sv", "T", "V", "V.A", "V.s", "V.s/(A.m)", "V/K", "V/m",
    "V/s", "V2/K2", "W", "W.h", "W/(m.K)", "W/(m2.K)", "W/(sr.m2)", "W/K", "W/m2", "W/sr", "Wb",
    "Wb.m", "Wb/m", "bar", "bar/s", "cd", "cd/m2", "cm2", "cm2/(V.s)", "d", "dB", "deg", "degC",
    "degF", "degRk", "eV", "g/cm3", "g/s", "h", "kW.h", "kg", "kg.m/s", "kg.m2", "kg.m2/s",
    "kg.s2/m5", "kg/(m3.K)", "kg/m", "kg/m2", "kg/m3", "kg/mol", "kg/s", "km/h", "l", "lm", "lm.s",
    "lm/W", "lm/m2", "lx", "lx.s", "m", "m-1", "m-2", "m-2.s-1", "m-3", "m/s", "m/s2", "m/s3", "m2",
    "m2.K/W", "m2/(V.s)", "m2/(sr.J)", "m2/J", "m2/kg", "m2/mol", "m2/s", "m2/sr", "m3", "m3/C",
    "m3/kg", "m3/mol", "m3/s", "m4", "min", "mol", "mol/kg", "mol/m3", "mol/s", "phon", "rad",
    "rad/m", "rad/s", "rad/s2", "rad/s3", "rev/min", "s", "s-1", "s-1.m-2", "s-1.m-3", "s-1.m2",
    "s/m3", "s2/m2", "sone", "sr", "var",
]
# fmt: on

NO_SI_FORM = {"dB", "phon", "sone"}  # levels and perceptual scales


def dims(kg=0, m=0, s=0, A=0, K=0, mol=0, cd=0, rad=0):
    """Base-unit exponents as parse_unit gives them (nonzero only)."""
    given = dict(kg=kg, m=m, s=s, A=A, K=K, mol=mol, cd=cd, rad=rad)
    return {k: v for k, v in given.items() if v}


@pytest.mark.parametrize("unit", MSL_UNITS)
def test_every_msl_unit_parses(unit):
    scale = parse_unit(unit)
    assert scale.factor > 0
    assert (scale.dims is None) == (unit in NO_SI_FORM)


JOULE = dims(kg=1, m=2, s=-2)
PASCAL = dims(kg=1, m=-1, s=-2)


@pytest.mark.parametrize(
    ("unit", "factor", "offset", "expected"),
    [
        ("1", 1.0, 0.0, {}),
        ("kg", 1.0, 0.0, dims(kg=1)),
        ("g/cm3", 1e3, 0.0, dims(kg=1, m=-3)),
        ("bar", 1e5, 0.0, PASCAL),
        ("bar/s", 1e5, 0.0, dims(kg=1, m=-1, s=-3)),
        ("Pa.s", 1.0, 0.0, dims(kg=1, m=-1, s=-1)),
        ("kW.h", 3.6e6, 0.0, JOULE),
        ("W.h", 3600.0, 0.0, JOULE),
        ("eV", 1.602176634e-19, 0.0, JOULE),
        ("A.h", 3600.0, 0.0, dims(A=1, s=1)),
        ("rev/min", 2 * math.pi / 60, 0.0, dims(rad=1, s=-1)),
        ("deg", math.pi / 180, 0.0, dims(rad=1)),
        ("km/h", 1 / 3.6, 0.0, dims(m=1, s=-1)),
        ("min", 60.0, 0.0, dims(s=1)),
        ("h", 3600.0, 0.0, dims(s=1)),
        ("d", 86400.0, 0.0, dims(s=1)),
        ("l", 1e-3, 0.0, dims(m=3)),
        ("ha", 1e4, 0.0, dims(m=2)),
        ("mm2/s", 1e-6, 0.0, dims(m=2, s=-1)),
        ("cm2/(V.s)", 1e-4, 0.0, dims(kg=-1, s=2, A=1)),
        ("lbf", 4.4482216152605, 0.0, dims(kg=1, m=1, s=-2)),
        ("degC", 1.0, 273.15, dims(K=1)),
        ("degF", 5 / 9, 459.67 * 5 / 9, dims(K=1)),
        ("degRk", 5 / 9, 0.0, dims(K=1)),
        ("J/(kg.degC)", 1.0, 0.0, dims(m=2, s=-2, K=-1)),  # a temperature difference
        ("Ohm", 1.0, 0.0, dims(kg=1, m=2, s=-3, A=-2)),
        ("S", 1.0, 0.0, dims(kg=-1, m=-2, s=3, A=2)),
        ("F", 1.0, 0.0, dims(kg=-1, m=-2, s=4, A=2)),
        ("H", 1.0, 0.0, dims(kg=1, m=2, s=-2, A=-2)),
        ("C", 1.0, 0.0, dims(A=1, s=1)),
        ("V", 1.0, 0.0, dims(kg=1, m=2, s=-3, A=-1)),
        ("Wb", 1.0, 0.0, dims(kg=1, m=2, s=-2, A=-1)),
        ("T", 1.0, 0.0, dims(kg=1, s=-2, A=-1)),
        ("Gy", 1.0, 0.0, dims(m=2, s=-2)),
        ("Sv", 1.0, 0.0, dims(m=2, s=-2)),
        ("Bq", 1.0, 0.0, dims(s=-1)),
        ("kat", 1.0, 0.0, dims(mol=1, s=-1)),
        ("lm", 1.0, 0.0, dims(cd=1, rad=2)),  # cd.sr, the steradian as rad2
        ("lx", 1.0, 0.0, dims(cd=1, rad=2, m=-2)),
        ("var", 1.0, 0.0, dims(kg=1, m=2, s=-3)),
        ("N.m/rad", 1.0, 0.0, dims(kg=1, m=2, s=-2, rad=-1)),
        ("m3/s", 1.0, 0.0, dims(m=3, s=-1)),
        ("kg/m3", 1.0, 0.0, dims(kg=1, m=-3)),
        ("1/K", 1.0, 0.0, dims(K=-1)),
        ("W/(m2.K)", 1.0, 0.0, dims(kg=1, s=-3, K=-1)),
        ("J/(kg.K)", 1.0, 0.0, dims(m=2, s=-2, K=-1)),
        ("mol/m3", 1.0, 0.0, dims(mol=1, m=-3)),
        ("V/m", 1.0, 0.0, dims(kg=1, m=1, s=-3, A=-1)),
        ("m-2.s-1", 1.0, 0.0, dims(m=-2, s=-1)),
        ("J-1/m-3", 1.0, 0.0, dims(kg=-1, m=1, s=2)),
        ("N.s/(us.m)", 1e6, 0.0, dims(kg=1, s=-2)),
        ("(kg.m)/(s2)", 1.0, 0.0, dims(kg=1, m=1, s=-2)),
        ("1/(1/s)", 1.0, 0.0, dims(s=1)),
        ("(J/(kg.K))/s", 1.0, 0.0, dims(m=2, s=-3, K=-1)),
        ("m+2", 1.0, 0.0, dims(m=2)),
    ],
)
def test_factors_offsets_and_exponents(unit, factor, offset, expected):
    scale = parse_unit(unit)
    assert scale.factor == pytest.approx(factor, rel=1e-15)
    assert scale.offset == pytest.approx(offset, rel=1e-15)
    assert scale.dims == expected


@pytest.mark.parametrize(
    ("unit", "factor", "expected"),
    [
        ("min", 60.0, dims(s=1)),  # minute, not milli-inch
        ("Pa", 1.0, PASCAL),  # pascal, not peta-annum
        ("cd", 1.0, dims(cd=1)),  # candela, not centi-day
        ("T", 1.0, dims(kg=1, s=-2, A=-1)),  # tesla, not the prefix tera alone
        ("h", 3600.0, dims(s=1)),  # hour, not the prefix hecto alone
        ("dam", 10.0, dims(m=1)),  # deca + metre
        ("ms", 1e-3, dims(s=1)),
        ("mm2", 1e-6, dims(m=2)),  # the exponent includes the prefix
        ("dm3", 1e-3, dims(m=3)),
        ("hPa", 100.0, PASCAL),
        ("kOhm", 1e3, dims(kg=1, m=2, s=-3, A=-2)),
        ("nm", 1e-9, dims(m=1)),
        ("keV", 1.602176634e-16, JOULE),
    ],
)
def test_whole_symbol_before_prefix(unit, factor, expected):
    scale = parse_unit(unit)
    assert scale.factor == pytest.approx(factor, rel=1e-15)
    assert scale.dims == expected


def test_prefix_arithmetic_is_exact():
    assert parse_unit("kg").factor == 1.0
    assert parse_unit("dm3").factor == 1e-3
    assert parse_unit("cm2").factor == 1e-4


SCHEMAS = Path(fmpy.__file__).parent / "schema"


def described_units(units):
    """A model whose parameters carry ``units``, as FMI 2 and FMI 3 describe it."""
    variables = [
        FmuVariable(f"p{i}", i, "parameter", "tunable", "exact", 1.0, unit=unit)
        for i, unit in enumerate(units)
    ]
    code = ModelCode("Units", "every unit", variables, blocks={}, sizes={})
    return {
        "2.0": fmi2_description(code, co_simulation=True),
        "3.0": fmi3_description(code, co_simulation=True),
    }


@pytest.mark.parametrize(
    ("version", "schema"),
    [("2.0", "fmi2/fmi2ModelDescription.xsd"), ("3.0", "fmi3/fmi3ModelDescription.xsd")],
)
def test_unit_definitions_are_valid_fmi(version, schema):
    description = described_units(MSL_UNITS)[version]
    document = etree.fromstring(ET.tostring(description.getroot()))
    validator = etree.XMLSchema(etree.parse(str(SCHEMAS / schema)))
    assert validator.validate(document), validator.error_log
    names = [unit.get("name") for unit in document.iter("Unit")]
    assert names == sorted(MSL_UNITS)


def base_unit(units, name):
    """Attributes of the BaseUnit of unit ``name`` in ``units`` (None if it has none)."""
    (unit,) = [u for u in units if u.get("name") == name]
    base = unit.find("BaseUnit")
    return None if base is None else dict(base.attrib)


def test_base_unit_attributes():
    units = unit_definitions(["1", "m", "us", "degC", "degF", "bar", "dB", "W/(m2.K)"])
    assert base_unit(units, "1") == {}
    assert base_unit(units, "m") == {"m": "1"}
    assert base_unit(units, "us") == {"s": "1", "factor": "1e-06"}
    assert base_unit(units, "degC") == {"K": "1", "offset": "273.15"}
    degF = base_unit(units, "degF")
    assert list(degF) == ["K", "factor", "offset"]
    assert float(degF["factor"]) == pytest.approx(5 / 9, rel=1e-15)
    assert float(degF["offset"]) == pytest.approx(255.37222222222223, rel=1e-15)
    assert base_unit(units, "bar") == {"kg": "1", "m": "-1", "s": "-2", "factor": "100000.0"}
    assert base_unit(units, "dB") is None  # a level: no SI form
    assert base_unit(units, "W/(m2.K)") == {"kg": "1", "s": "-3", "K": "-1"}


@pytest.mark.parametrize(
    ("unit", "token"),
    [
        ("", "the end"),
        ("furlong/s", "unknown unit symbol 'furlong'"),
        ("Nm", "unknown unit symbol 'Nm'"),  # a product needs its dot: N.m
        ("da", "unknown unit symbol 'da'"),  # a prefix alone
        ("mkg", "unknown unit symbol 'mkg'"),  # two prefixes
        ("m^2", "'^2'"),
        ("N m", "' m'"),
        ("J/kg.K", "'.K'"),  # the divisor needs parentheses: J/(kg.K)
        ("m/s/s", "'/s'"),
        ("(m", "expected ')'"),
        ("m)", "')'"),
        ("m/(s", "expected ')'"),
        ("kg/", "expected a unit symbol"),
        ("m-", "'-'"),
        ("2", "'2'"),
        ("1.m", "'.m'"),
        ("dB/s", "'dB' has no SI form"),
        ("degC2x", "'x'"),
    ],
)
def test_bad_unit_is_a_one_line_build_error(unit, token):
    with pytest.raises(BuildError) as error:
        parse_unit(unit)
    message = str(error.value)
    assert message.startswith(f"unit '{unit}': ")
    assert token in message
    assert "\n" not in message


def test_bad_unit_in_unit_definitions():
    with pytest.raises(BuildError, match="unit 'furlong': unknown unit symbol 'furlong'"):
        unit_definitions(["m", "furlong"])
