"""Record values while a flat model is translated: whole records in equations and functions.

rumoca's flat model keeps a record's fields as variables of their own (``frame_a.R.T``,
``frame_a.R.w``) and splits record arguments of function calls into their fields, but an
equation may still equate whole records (``frame_b.R = absoluteRotation(frame_a.R, R_rel)``
in MSL's MultiBody), a function may return a record (built by its record constructor,
``Orientation(T = ..., w = ...)``) and an expression may take a field of a call's result
(``nullRotation().T``). A :class:`Record` stands for such a value: its fields by name, each a
float, a CasADi scalar, an object array or a record. An equation between records is the
equations between their fields (Modelica Language Specification 3.6, Sec. 10.6.12 and 12.6).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Record:
    """The value of a record of type ``type_name``: its fields by name, in declaration order."""

    type_name: str
    fields: dict[str, object]

    def field(self, name: str) -> object:
        """The value of the field ``name``; KeyError when the record has no such field."""
        return self.fields[name]


def combine(operation: Callable[[object, object], object], a: object, b: object) -> Record:
    """``operation`` applied field by field to two records of the same fields (an equation's
    two sides, subtracted into its residual)."""
    if not isinstance(a, Record) or not isinstance(b, Record) or a.fields.keys() != b.fields.keys():
        raise TypeError("an operation between a record and a value of another type")
    return Record(
        a.type_name,
        {
            name: combine(operation, value, b.fields[name])
            if isinstance(value, Record)
            else operation(value, b.fields[name])
            for name, value in a.fields.items()
        },
    )


def scalars(value: object) -> list[object]:
    """The scalar elements of a value, a record's fields in declaration order, each array in
    row-major order."""
    if isinstance(value, Record):
        return [element for field in value.fields.values() for element in scalars(field)]
    return list(np.asarray(value, dtype=object).ravel())


def of_type(entry: dict, values: dict[str, object]) -> Record:
    """A record of the type ``entry`` (rumoca's record type: its name and fields) from the
    values of its fields by name."""
    return Record(entry["name"], {f["name"]: values[f["name"]] for f in entry["fields"]})
