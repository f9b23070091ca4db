"""A flattened Modelica model as CasADi scalar symbols and residual equations.

The Modelica compiler rumoca parses, resolves and flattens a model: inheritance, modifiers,
redeclarations, records and their constructors, ``inner``/``outer``, component arrays,
connectors with ``flow`` variables, conditional components, imports and package constants are
all resolved there, and the result is a flat list of variables and residual equations
(``Model.to_dict("flat")``). This module reads that flat form and builds

- one CasADi ``SX`` symbol per scalar element (``nu[4]``, ``data.I_g[1,2]``), with its
  variability, causality, binding, start, unit, description and bounds;
- one symbol ``der(x)`` per scalar whose derivative appears, which makes ``x`` a state;
- scalar residuals ``0 = f(time, x, der(x), z, u, p)`` from the equations and the binding
  equations of non-parameter variables.

Arrays are NumPy object arrays of scalars while an expression is translated; Modelica's
operators on them (matrix products, element-wise operators, reductions, ``fill``, ``cat``,
``transpose``, ...) act element by element. Functions are inlined: their algorithm is run on
symbolic values, ``for`` loops over ranges known when the model is translated are unrolled
and ``if`` statements on symbolic conditions become ``if_else`` of each assigned variable.
A model's algorithm section runs the same way; its when-statements become when-branches of
the model's events (:mod:`orchestrator.compiler.events`), as when-equations do.

What is not translated (``while`` loops whose condition is not known at translation, external
functions other than ``external "builtin"`` and ``external "C"`` ones, ...) is refused with
:class:`UnsupportedConstructError`, which carries the construct and the source span.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from orchestrator.compiler.events import EventRecord, WarningMessage, WhenBranch
from orchestrator.compiler.external_c import (
    ExternalError,
    ExternalFunctions,
    jacobian,
    translate_call,
)
from orchestrator.compiler.external_objects import construct, is_constructor, object_variables
from orchestrator.compiler.pre_values import unheld_pre
from orchestrator.compiler.records import Record, combine, of_type, scalars
from orchestrator.compiler.structural_parameters import references
from orchestrator.compiler.value_types import ValueType

STATE_SELECT = {"Never": 0, "Avoid": 1, "Default": 2, "Prefer": 3, "Always": 4}
# MLS 3.6, Sec. 12.3: impure functions are called in when-clauses, initial sections and the
# bindings of parameters only (in an equation a call of constant arguments was made once,
# while the model was translated)
IMPURE_IN_EQUATION = (
    "call of an impure function in an equation or the binding of a variable that is no "
    "parameter (Modelica Language Specification 3.6, Sec. 12.3: in when-clauses, initial "
    "sections and parameters' bindings only)"
)


class UnsupportedConstructError(Exception):
    """A construct of the flat model that the translation does not handle."""

    def __init__(self, construct: str, span: dict | None) -> None:
        super().__init__(construct)
        self.construct = construct
        self.span = span


@dataclass
class FlatVariable:
    """One scalar element of a flattened Modelica variable.

    ``variability`` is ``constant``, ``parameter``, ``discrete`` or ``continuous``;
    ``causality`` is ``input``, ``output`` or ``local`` (top-level connectors only carry
    ``input``/``output``); ``binding`` holds a parameter's value expression (in other
    parameters); ``start`` the start expression; ``state_select`` Modelica's stateSelect as
    0 (never) to 4 (always); ``bounds`` its ``min`` and ``max`` (in its unit) where the
    declaration or its type gives them as numbers, infinite where it gives none or bounds
    that depend on parameters; ``display_unit`` the unit its values are shown in (Modelica's
    ``displayUnit``, empty where none is given).
    """

    name: str
    declared: str
    symbol: ca.SX
    variability: str
    causality: str
    type_name: str
    binding: ca.SX | None
    start: ca.SX | None
    fixed: bool | None
    unit: str
    description: str
    protected: bool
    state_select: int
    span: dict | None
    bounds: tuple[float, float] = (-math.inf, math.inf)
    display_unit: str = ""


@dataclass
class FlatModel:
    """Scalar variables and residual equations of one flattened model."""

    name: str
    time: ca.SX
    variables: list[FlatVariable]
    derivatives: dict[str, ca.SX]  # scalar state name -> its der(...) symbol
    residuals: list[ca.SX]
    class_type: str
    initial_residuals: list[ca.SX] = field(default_factory=list)
    events: EventRecord = field(default_factory=EventRecord)
    homotopy: ca.SX | None = None  # the symbol lambda of homotopy(), where the model uses it
    residual_spans: list[dict | None] = field(default_factory=list)  # source of each residual
    residual_places: list[str] = field(default_factory=list)  # file:line:column of each one
    external_c: ExternalFunctions | None = None  # the external C functions it calls
    value_types: dict[str, ValueType] = field(default_factory=dict)  # non-Real, by declared name

    def variable(self, name: str) -> FlatVariable:
        """The scalar variable called ``name``."""
        return {v.name: v for v in self.variables}[name]


def _element_names(name: str, dims: list[int]) -> list[str]:
    """Scalar names of an array in row-major order: ``M[1,1]``, ``M[1,2]``, ..."""
    if not dims:
        return [name]
    return [f"{name}[{','.join(str(i + 1) for i in index)}]" for index in np.ndindex(*dims)]


def _as_float(value: object) -> object:
    return float(value) if isinstance(value, bool | int) else value


def _numeric(value: object) -> float | None:
    """The number a translated value stands for, or ``None`` when it is symbolic."""
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, ca.SX) and value.is_constant():
        return float(ca.evalf(value))
    return None


def _kind(node: dict) -> tuple[str, object]:
    ((key, value),) = node.items()
    return key, value


def _taken(guard: ca.SX, untaken: list[object], taken: list[object]) -> ca.SX:
    """``guard`` where the conditions ``untaken`` are false and ``taken`` true (a branch of
    an if-expression); ``guard`` itself where there are none."""
    for test in untaken:
        guard = ca.logic_and(guard, ca.logic_not(test))
    for test in taken:
        guard = ca.logic_and(guard, test)
    return guard


def _string(node: dict) -> str | None:
    """The text of a String literal expression, None for any other expression."""
    key, body = _kind(node)
    kind, value = _kind(body["value"]) if key == "Literal" else ("", None)
    return value if kind == "String" else None


class Translator:
    """Turns rumoca's flat expression trees into CasADi values.

    ``lookup(name)`` gives the value of a flat variable (scalar symbol or object array);
    ``derivative(symbol)`` the ``der`` symbol of a scalar, created on first use. With
    ``events``, relations on values that vary in time (any symbol but those named in
    ``steady``) are recorded there and stand for their memory; inside ``noEvent``,
    ``smooth`` and functions they are evaluated as they are.
    """

    def __init__(
        self,
        lookup: Callable[[str], object],
        derivative: Callable[[ca.SX, dict | None], ca.SX],
        functions: dict[str, dict],
        time: ca.SX,
        events: EventRecord | None = None,
        steady: frozenset[str] = frozenset(),
    ) -> None:
        self.lookup = lookup
        self.derivative = derivative
        self.functions = functions
        self.time = time
        self.events = events
        self.steady = steady
        self.no_event = 0  # depth of noEvent, smooth and function bodies
        self.in_condition = False  # translating a when-condition
        self.in_when_body = False  # translating what a when-equation assigns
        # there, the symbol standing for 'the branch fires', which guards its external calls
        self.when_guard: ca.SX | None = None
        # the initial branch's 'fires' symbol: it guards the external calls of the initial
        # sections and the impure calls outside a when-clause (a parameter's binding,
        # computed at initialization), which were made once while the model was translated
        self.initial_guard = ca.SX.sym("when_fires[initial]")
        # pre(v) in a when-equation's body: a placeholder per variable, with the variable
        self.pre_marks: dict[str, tuple[ca.SX, ca.SX]] = {}
        # the model variables an algorithm section's statements hold values of: pre(v) reads v
        self.section: frozenset[str] = frozenset()
        # discrete variables no when-equation assigns: pre(v) reads a memory of v's value
        self.unheld: frozenset[str] = frozenset()
        # the discrete-time variables (Integer, Boolean, discrete): they change at events only
        self.discrete: frozenset[str] = frozenset()
        self.inlining: list[str] = []  # the functions being inlined, outermost first
        self.homotopy = ca.SX.sym("homotopy_lambda")  # 1 except while the FMU initializes
        self.homotopy_used = False
        self.external_c: ExternalFunctions | None = None  # where external C calls are kept
        self.call_targets: dict[str, set[int]] = {}  # function name -> classes its calls name
        self.strings: dict[str, dict] = {}  # String parameters' bindings, by name

    # -- expressions -------------------------------------------------------------------------
    def expr(self, node: dict, local: dict[str, object] | None = None) -> object:
        """The value of expression ``node``: a float, an ``SX`` scalar or an object array."""
        key, body = _kind(node)
        method = getattr(self, f"_{key}", None)
        if method is None:
            raise UnsupportedConstructError(f"expression {key}", body.get("span"))
        return method(body, local or {})

    def _Literal(self, body: dict, local: dict) -> object:
        kind, value = _kind(body["value"])
        if kind in ("Integer", "Real", "Boolean"):
            return float(value)
        raise UnsupportedConstructError(f"{kind} literal", body.get("span"))

    def _VarRef(self, body: dict, local: dict) -> object:
        name = body["name"]["name"]
        if name in local:
            value = local[name]
        elif name == "time":
            value = self.time
        else:
            value = self.lookup(name)
        if value is None:
            raise UnsupportedConstructError(f"reference to '{name}'", body.get("span"))
        return self._subscript(value, body["subscripts"], local, body.get("span"))

    def _subscript(self, value: object, subscripts: list, local: dict, span: dict | None) -> object:
        if not subscripts:
            return value
        array = np.asarray(value, dtype=object)
        index: list[object] = []
        for sub in subscripts:
            if sub == "Colon" or (isinstance(sub, dict) and "Colon" in sub):
                index.append(slice(None))
                continue
            kind, body = _kind(sub)
            if kind == "Index":
                index.append(int(body["value"]) - 1)
            elif kind == "Expr":
                position = self.expr(body["expr"], local)
                # a variable's value: a search's position in a function, an Integer variable
                # in an equation (a vector of them refused at _position)
                varies = _numeric(position) is None and not isinstance(position, np.ndarray)
                index.append(position if varies else self._position(position, span))
            else:
                raise UnsupportedConstructError(f"subscript {kind}", span)
        varying = [axis for axis, i in enumerate(index) if isinstance(i, ca.SX)]
        if varying:
            return self._selected(array, index, varying, span)
        result = array[tuple(index)]
        return result if isinstance(result, np.ndarray) else result

    def _selected(
        self, array: np.ndarray, index: list[object], varying: list[int], span: dict | None
    ) -> object:
        """``array[index]`` where the subscripts at the axes ``varying`` are variables (a
        search in a function's loop, ``x[i]``, ``M[i, j]``; an Integer variable in an
        equation, MSL's ``expr[firstActiveIndex]``): the element whose place they equal,
        chosen by if-expressions over each such axis in turn; NaN where they equal none (an
        index out of range, an error in the source, gives no number rather than a wrong one)."""
        axis, position = varying[0], index[varying[0]]
        if len(index) != array.ndim or any(isinstance(i, slice) for i in index):
            raise UnsupportedConstructError("a variable subscript beside a slice", span)
        result: object = math.nan
        for k in reversed(range(array.shape[axis])):
            chosen = [k if a == axis else i for a, i in enumerate(index)]
            element = (
                self._selected(array, chosen, varying[1:], span)
                if varying[1:]
                else array[tuple(chosen)]
            )
            result = ca.if_else(position == k + 1, element, result)
        return result

    def _position(self, value: object, span: dict | None) -> object:
        if isinstance(value, np.ndarray):
            numbers = [_numeric(v) for v in value.ravel()]
            if any(n is None for n in numbers):
                raise UnsupportedConstructError("subscript not known at translation", span)
            return [int(n) - 1 for n in numbers]  # type: ignore[arg-type]
        number = _numeric(value)
        if number is None:
            raise UnsupportedConstructError(
                "subscript that depends on a variable (not known at translation)", span
            )
        return int(number) - 1

    def _FieldAccess(self, body: dict, local: dict) -> object:
        """``thr[i].y``: a field of one element of a component array, by its flat name."""
        if _kind(body["base"])[0] == "FunctionCall":  # a field of a record a function returns
            return self._field(self.expr(body["base"], local), body["field"], body.get("span"))
        base = self._path(body["base"], local)
        value = self.lookup(f"{base}.{body['field']}")
        if value is None:
            raise UnsupportedConstructError(
                f"reference to '{base}.{body['field']}'", body.get("span")
            )
        return value

    @staticmethod
    def _field(value: object, name: str, span: dict | None) -> object:
        if not isinstance(value, Record) or name not in value.fields:
            raise UnsupportedConstructError(f"field '{name}' of a value without it", span)
        return value.field(name)

    def _path(self, node: dict, local: dict) -> str:
        """The flat name a component reference stands for, subscripts evaluated."""
        kind, body = _kind(node)
        if kind == "VarRef" and not body["subscripts"]:
            return body["name"]["name"]
        if kind == "VarRef" or kind == "Index":
            base = body["name"]["name"] if kind == "VarRef" else self._path(body["base"], local)
            positions = []
            for sub in body["subscripts"]:
                sub_kind, sub_body = _kind(sub)
                if sub_kind == "Index":
                    positions.append(int(sub_body["value"]))
                else:
                    value = self.expr(sub_body["expr"], local)
                    positions.append(int(self._position(value, body.get("span"))) + 1)
            return f"{base}[{','.join(map(str, positions))}]"
        if kind == "FieldAccess":
            return f"{self._path(body['base'], local)}.{body['field']}"
        raise UnsupportedConstructError(f"component reference through {kind}", body.get("span"))

    def _Index(self, body: dict, local: dict) -> object:
        base = self.expr(body["base"], local)
        return self._subscript(base, body["subscripts"], local, body.get("span"))

    def _held_pre(self, value: object) -> object:
        """``value`` with each discrete variable no when-equation assigns replaced by the
        memory of its value at the last pass of the event iteration (pre_values.py)."""
        if _numeric(value) is not None:
            return value
        symbols = [s for s in ca.symvar(ca.SX(value)) if s.name().split("[")[0] in self.unheld]
        if not symbols:
            return value
        memories = [self.events.held(symbol) for symbol in symbols]
        return ca.substitute(ca.SX(value), ca.vertcat(*symbols), ca.vertcat(*memories))

    def _pre_mark(self, value: object) -> object:
        """``value`` with each variable replaced by its pre(...) placeholder."""
        if _numeric(value) is not None:
            return value
        symbols = ca.symvar(ca.SX(value))
        for symbol in symbols:
            mark = ca.SX.sym(f"pre({symbol.name()})")
            self.pre_marks.setdefault(symbol.name(), (mark, symbol))
        marks = [self.pre_marks[s.name()][0] for s in symbols]
        return ca.substitute(ca.SX(value), ca.vertcat(*symbols), ca.vertcat(*marks))

    def _Unary(self, body: dict, local: dict) -> object:
        operand = self.expr(body["rhs"], local)
        op = body["op"]
        if op in ("Minus", "MinusElem"):
            return -np.asarray(operand, dtype=object) if _is_array(operand) else -operand
        if op in ("Plus", "PlusElem", "Empty"):
            return operand
        if op == "Not":
            return _elementwise(_not, operand)
        raise UnsupportedConstructError(f"unary operator {op}", body.get("span"))

    def _Binary(self, body: dict, local: dict) -> object:
        op = body["op"]
        if op == "Sub" and _kind(body["lhs"])[0] == "Tuple":
            return self._tuple_equation(body["lhs"]["Tuple"], body["rhs"], local, body.get("span"))
        lhs, rhs = self.expr(body["lhs"], local), self.expr(body["rhs"], local)
        if op in ("Lt", "Le", "Gt", "Ge") and self._event_relation(lhs, rhs):
            if _is_array(lhs) or _is_array(rhs):
                raise UnsupportedConstructError("relation between arrays", body.get("span"))
            return self.events.relation(op, ca.SX(lhs), ca.SX(rhs))
        operation = BINARY.get(op)
        if operation is None:
            raise UnsupportedConstructError(f"binary operator {op}", body.get("span"))
        if isinstance(lhs, Record) or isinstance(rhs, Record):
            if op not in ("Add", "Sub"):
                raise UnsupportedConstructError(f"operator {op} on records", body.get("span"))
            try:
                return combine(operation, lhs, rhs)
            except TypeError:
                raise UnsupportedConstructError(
                    f"'{op}' between records of different fields", body.get("span")
                ) from None
        return operation(lhs, rhs)

    def _event_relation(self, lhs: object, rhs: object) -> bool:
        """Whether a relation between ``lhs`` and ``rhs`` generates events: not in a
        when-equation's body, which is evaluated at events only (and reads the values its
        branch assigns, :func:`_simultaneous`), nor between discrete-time values alone
        (Modelica Language Specification 3.6, Sec. 3.8.3), which change at events only and
        are decided in the pass that computes them: held in a memory, MSL's
        ``MathInteger.MultiSwitch`` (``if firstActiveIndex > 0 then expr[firstActiveIndex]
        else pre(y)``) read ``expr[0]`` in the pass where the index fell to 0."""
        if self.events is None or self.no_event or self.in_when_body:
            return False
        varying = {
            s.name()
            for side in (lhs, rhs)
            for value in np.asarray(side, dtype=object).ravel()
            if _numeric(value) is None
            for s in ca.symvar(ca.SX(value))
        } - self.steady
        return bool(varying - self.discrete)

    def _If(self, body: dict, local: dict) -> object:
        """An if-expression: the value of each branch that may be taken, selected by the
        conditions. Where a when-clause or the initial branch guards external calls
        (``when_guard``), a branch's calls are guarded by its being taken too: CasADi computes
        every branch, and an impure call in one not taken (MSL's GlobalSeed: ``seed = if
        useAutomaticSeed then automaticGlobalSeed() else fixedSeed``) was made anyway."""
        guard = self.when_guard
        untaken: list[object] = []  # the conditions of the branches before, not taken
        chosen: list[tuple[object, object]] = []  # (condition or None where always, value)
        try:
            for condition, value in body["branches"]:
                test = self.expr(condition, local)
                number = _numeric(test)
                if number is not None and not number:
                    continue
                if guard is not None:
                    self.when_guard = _taken(guard, untaken, [] if number else [test])
                chosen.append((None if number is not None else test, self.expr(value, local)))
                if number is not None:
                    break  # always taken where reached: no later branch
                untaken.append(test)
            else:
                if guard is not None:
                    self.when_guard = _taken(guard, untaken, [])
                chosen.append((None, self.expr(body["else_branch"], local)))
        finally:
            self.when_guard = guard
        result = chosen[-1][1]
        for test, value in reversed(chosen[:-1]):
            result = _elementwise2(lambda a, b, c=test: ca.if_else(c, a, b), value, result)
        return result

    def _Array(self, body: dict, local: dict) -> object:
        elements = [self.expr(e, local) for e in body["elements"]]
        kind = body.get("kind", "Array")
        if kind == "Horizontal":  # one row of a block matrix [A, B]
            return _concatenate([_as_matrix(e) for e in elements], axis=1)
        if kind == "Vertical":  # rows of a block matrix [A; B]
            return _concatenate([_as_matrix(e) for e in elements], axis=0)
        return _stack(elements)

    def _Range(self, body: dict, local: dict) -> object:
        start = _numeric(self.expr(body["start"], local))
        stop = _numeric(self.expr(body["end"], local))
        step = _numeric(self.expr(body["step"], local)) if body.get("step") else 1.0
        if start is None or stop is None or step is None:
            raise UnsupportedConstructError("range not known at translation", body.get("span"))
        count = int(math.floor((stop - start) / step + 1e-9)) + 1
        return np.array([start + k * step for k in range(max(count, 0))], dtype=object)

    def _Tuple(self, body: dict, local: dict) -> object:
        raise UnsupportedConstructError("tuple expression", body.get("span"))

    def _ArrayComprehension(self, body: dict, local: dict) -> object:
        indices = body.get("indices", [])
        if len(indices) != 1:
            raise UnsupportedConstructError("comprehension over several indices", body.get("span"))
        if body.get("filter") is not None:
            raise UnsupportedConstructError("comprehension with a filter", body.get("span"))
        name = indices[0].get("ident", indices[0].get("name"))
        values = self.expr(indices[0]["range"], local)
        elements = []
        for value in np.asarray(values, dtype=object).ravel():
            elements.append(self.expr(body["expr"], {**local, name: value}))
        return _stack(elements)

    def _FunctionCall(self, body: dict, local: dict) -> object:
        name = body["name"]["name"]
        definition = self.functions.get(name)
        if is_constructor(definition):  # an external object's (String arguments)
            try:
                return construct(self, definition, body["args"], local, body.get("span"))
            except ExternalError as exc:
                raise UnsupportedConstructError(str(exc), exc.span or body.get("span")) from None
        # a String literal is passed as it is, to a function's String input (MSL's
        # automaticLocalSeed(getInstanceName()), whose name rumoca gives as a literal)
        args = [_string(a) or self.expr(a, local) for a in body["args"]]
        if body.get("is_constructor") or (definition or {}).get("is_constructor"):
            return self._construct(name, definition, args, body.get("span"))
        if definition is None:
            builtin = BUILTINS.get(name.split(".")[-1].capitalize())
            if builtin is not None:
                return builtin(self, args, body.get("span"))
            raise UnsupportedConstructError(f"call of unknown function '{name}'", body.get("span"))
        return self.call(self.called(body["name"], body.get("span")), args, body.get("span"))

    def called(self, name: dict, span: dict | None) -> dict:
        """The definition of the function a call names (``name``, the call's name).
        rumoca 0.10 keeps one definition per name: two classes' own functions of one short
        name (``A.position`` and ``B.position``, each called as ``position``) leave one of
        them for the calls of both, which the classes the calls resolved to
        (:data:`call_targets`) tell apart; such a call is refused rather than computed by
        the other function."""
        definition = self.functions[name["name"]]
        if len(self.call_targets.get(name["name"], ())) > 1:
            raise UnsupportedConstructError(
                f"call of '{name['name']}', one of two functions of that name in different "
                "classes, which rumoca 0.10 merges into one; give them different names",
                span,
            )
        return definition

    def _tuple_equation(
        self, targets: dict, value: dict, local: dict, span: dict | None
    ) -> np.ndarray:
        """The residuals of ``(a, b, c) = f(...)``: each target minus the function's output
        in its place, flattened into one vector; empty places are skipped."""
        kind, call = _kind(value)
        definition = self.functions.get(call["name"]["name"]) if kind == "FunctionCall" else None
        if definition is None or definition.get("external") is not None:
            raise UnsupportedConstructError("tuple equation of anything but a function", span)
        definition = self.called(call["name"], call.get("span"))
        args = [self.expr(a, local) for a in call["args"]]
        outputs = self.call(definition, args, call.get("span"), every=True)
        if len(targets["elements"]) > len(outputs):
            raise UnsupportedConstructError("tuple equation with more places than outputs", span)
        residuals: list[object] = []
        for target, output in zip(targets["elements"], outputs, strict=False):
            if _kind(target)[0] == "Empty":
                continue
            difference = _elementwise2(lambda a, b: a - b, self.expr(target, local), output)
            residuals += list(np.asarray(difference, dtype=object).ravel())
        return _stack(residuals)

    def _BuiltinCall(self, body: dict, local: dict) -> object:
        function = body["function"]
        span = body.get("span")
        if function == "Der":
            return self._der(body["args"][0], local, span)
        if function in EVENT_OPERATORS:
            return self._event_operator(function, body["args"], local, span)
        builtin = BUILTINS.get(function)
        if builtin is None:
            raise UnsupportedConstructError(f"'{function.lower()}(...)'", span)
        args = [self.expr(a, local) for a in body["args"]]
        return builtin(self, args, span)

    def _event_operator(
        self, function: str, args: list[dict], local: dict, span: dict | None
    ) -> object:
        """``noEvent``, ``smooth``, ``pre``, ``edge``, ``change``, ``initial``, ``terminal``
        and ``sample``."""
        if function in ("NoEvent", "Smooth"):
            self.no_event += 1
            try:
                return self.expr(args[-1], local)
            finally:
                self.no_event -= 1
        if self.events is None:
            raise UnsupportedConstructError(f"'{function.lower()}(...)' (events)", span)
        if function == "Pre":
            return self._pre(args[0], local)
        if function in ("Edge", "Change") and not self.in_condition:
            # Modelica Language Specification 3.6, Sec. 3.7.5: edge(b) is b and not pre(b),
            # change(v) is v <> pre(v); both of discrete values, so no event indicator
            now, before = self.expr(args[0], local), self._pre(args[0], local)
            if function == "Edge":
                return BINARY["And"](now, _elementwise(_not, before))
            return BINARY["Neq"](now, before)
        if function == "Initial":
            return self.events.initial
        if function == "Sample" and not self.in_condition:
            start, interval = self._sample_times(args, local, span)
            return self.events.sampled(start, interval)
        if not self.in_condition:
            raise UnsupportedConstructError(
                f"'{function.lower()}(...)' outside a when-condition", span
            )
        if function == "Edge":  # a when-condition fires on its rising edge anyway
            return self.expr(args[0], local)
        if function == "Terminal":
            return self.events.terminal
        if function == "Change":
            value = self.expr(args[0], local)
            if _is_array(value):
                raise UnsupportedConstructError("'change(...)' of an array", span)
            return self.events.change(value)
        return self.events.sample(*self._sample_times(args, local, span))

    def _pre(self, argument: dict, local: dict) -> object:
        """``pre(argument)``: the value when the event update starts, the argument itself (the
        variable, not a value an algorithm section's statements assigned it), a discrete
        variable no when-equation assigns read from its memory (pre_values.py)."""
        value = self.expr(argument, {k: v for k, v in local.items() if k not in self.section})
        if self.unheld:
            value = _elementwise(self._held_pre, value)
        # in a when-equation's body marked, so that its branch's new values leave it be
        return _elementwise(self._pre_mark, value) if self.in_when_body else value

    def _sample_times(self, args: list[dict], local: dict, span: dict | None) -> tuple:
        """The start and the interval of ``sample(start, interval)``."""
        start, interval = (self.expr(a, local) for a in args)
        if _numeric(interval) is not None and _numeric(interval) <= 0:
            raise UnsupportedConstructError("sample(...) with an interval <= 0", span)
        return start, interval

    def _der(self, argument: dict, local: dict, span: dict | None) -> object:
        value = self.expr(argument, local)
        if _is_array(value):
            return _elementwise(lambda v: self._time_derivative(v, span), value)
        return self._time_derivative(value, span)

    def _time_derivative(self, value: object, span: dict | None) -> object:
        """d/dt of a scalar: a variable's der symbol, or the chain rule over an expression."""
        if _numeric(value) is not None:
            return 0.0
        if value.is_symbolic():
            if ca.is_equal(value, self.time):
                return 1.0
            return self.derivative(value, span)
        total: object = 0.0
        for symbol in ca.symvar(value):
            if ca.is_equal(symbol, self.time):
                rate: object = 1.0
            else:
                rate = self.derivative(symbol, span)
            if _numeric(rate) == 0.0:
                continue
            total = total + ca.jacobian(value, symbol) * rate
        return total

    def _construct(
        self, name: str, definition: dict | None, args: list[object], span: dict | None
    ) -> Record:
        """A record constructor's value: its fields from the arguments, in order, then from
        the fields' defaults."""
        if definition is None:
            raise UnsupportedConstructError(f"record constructor '{name}' in an equation", span)
        return Record(name, self._arguments(definition, args, span))

    # -- functions ---------------------------------------------------------------------------
    def call(
        self, definition: dict, args: list[object], span: dict | None, every: bool = False
    ) -> object:
        """Inline a Modelica function: run its algorithm on ``args``, return its output (the
        list of all its outputs where ``every``)."""
        external = definition.get("external")
        if external is not None:
            return self._external(definition, external, args, span, every)
        if definition["name"] in self.inlining:  # an if-expression evaluates both branches
            raise UnsupportedConstructError(
                f"recursive function '{definition['name']}' (functions are inlined when the "
                "model is translated)",
                span,
            )
        self.inlining.append(definition["name"])
        self.no_event += 1  # relations in functions, defaults included, generate no events
        try:
            env = self._arguments(definition, args, span)
            for declared in definition["outputs"] + definition["locals"]:
                dims = self._dimensions(declared, env, span)
                default = declared.get("default")
                if default is not None:
                    env[declared["name"]] = self.expr(default, env)
                elif declared.get("type_class") == "Record":
                    env[declared["name"]] = None  # a record is assigned whole
                elif dims:
                    env[declared["name"]] = np.full(dims, 0.0, dtype=object)
                else:
                    env[declared["name"]] = 0.0
            Algorithm(self, env).run(definition["body"])
        finally:
            self.no_event -= 1
            self.inlining.pop()
        outputs = [env[o["name"]] for o in definition["outputs"]]
        if every:
            return outputs
        if not outputs:
            raise UnsupportedConstructError(
                f"function '{definition['name']}' without outputs in an expression", span
            )
        # in an expression a call gives its first output (Modelica Language Specification
        # 3.6, Sec. 12.4.3; MSL's Vectors.interpolate in Clutch's mu0)
        return outputs[0]

    def _dimensions(self, declared: dict, env: dict, span: dict | None) -> list[int]:
        """The dimensions of a function's output or local: from its declared shape in the
        inputs' values (``Real c[integer(order/2), 2]``), where it has one."""
        shape = declared.get("shape_expr") or []
        if not shape:
            return declared["effective_type"]["dimensions"]
        dims = []
        for entry in shape:
            if isinstance(entry, dict) and "Index" in entry:
                dims.append(int(entry["Index"]["value"]))
                continue
            if not (isinstance(entry, dict) and "Expr" in entry):
                return declared["effective_type"]["dimensions"]
            size = _numeric(self.expr(entry["Expr"]["expr"], env))
            if size is None:
                raise UnsupportedConstructError(
                    f"size of '{declared['name']}' that depends on a variable", span
                )
            dims.append(int(size))
        return dims

    def _arguments(self, definition: dict, args: list[object], span: dict | None) -> dict:
        """The inputs of a function (or the fields of a record constructor) by name: the
        arguments in order, then the defaults of those left out."""
        env: dict[str, object] = {}
        inputs = definition["inputs"]
        if len(args) > len(inputs):
            raise UnsupportedConstructError(f"too many arguments to '{definition['name']}'", span)
        for position, declared in enumerate(inputs):
            if position < len(args):
                env[declared["name"]] = args[position]
            elif declared.get("default") is not None:
                env[declared["name"]] = self.expr(declared["default"], env)
            else:
                raise UnsupportedConstructError(
                    f"call of '{definition['name']}' without argument '{declared['name']}'", span
                )
        return env

    def _external(
        self,
        definition: dict,
        external: dict,
        args: list[object],
        span: dict | None,
        every: bool = False,
    ) -> object:
        """An external function: those declared ``external "builtin"`` (MSL's
        ``Modelica.Math.sin`` and its kin) are the built-in of that name applied to the
        arguments the declaration passes, those in C a call of their compiled code
        (:mod:`orchestrator.compiler.external_c`; the list of all its outputs where
        ``every``); any other is refused."""
        if external.get("language") == "C":
            try:
                outputs = translate_call(self, definition, args, span)
            except ExternalError as exc:
                raise UnsupportedConstructError(str(exc), exc.span or span) from None
            if every:
                return outputs
            if not outputs:
                raise UnsupportedConstructError(
                    f"function '{definition['name']}' without outputs in an expression", span
                )
            # its first output, as a call of a function with an algorithm gives (MLS 3.6,
            # Sec. 12.4.3; MSL's PartialNoise: r_raw = generator.random(pre(state)))
            return outputs[0]
        builtin = BUILTINS.get(str(external.get("function_name", "")).capitalize())
        if external.get("language") != "builtin" or builtin is None:
            language = external.get("language")
            raise UnsupportedConstructError(
                f"external function '{definition['name']}' (external \"{language}\")", span
            )
        names = [declared["name"] for declared in definition["inputs"]]
        env = dict(zip(names, args, strict=False))  # inputs left out keep no value
        return builtin(self, [self.expr(a, env) for a in external.get("args", [])], span)


# where a function's environment keeps the condition under which it has returned: 0.0 until a
# ``return`` runs, 1.0 after one that runs whatever the inputs, an expression after one in a
# branch that depends on them
RETURNED = "return"


class Algorithm:
    """Symbolic execution of a function's or a model's statements over an environment of
    values (``where`` names the kind in messages: in a model, assignments name flat
    variables, ``pid.y``).

    A ``return`` in a function ends it (Modelica Language Specification 3.6, Sec. 11.2.9):
    one that runs whatever the inputs stops the statements; one in a branch that depends on
    them leaves its condition in the environment, and every later assignment keeps the
    value the variable had where that condition holds."""

    def __init__(
        self,
        translator: Translator,
        env: dict[str, object],
        where: str = "a function",
        guard: object = True,
    ) -> None:
        self.translator = translator
        self.env = env
        self.where = where
        self.guard = guard  # the condition under which these statements run

    def run(self, statements: list) -> None:
        for statement in statements:
            if self._returned():
                return
            if statement == "Break":
                raise UnsupportedConstructError("'break' statement", None)
            if statement == "Return":
                statement = {"Return": {}}
            kind, body = _kind(statement)
            handler = getattr(self, f"_{kind}", None)
            if handler is None:
                span = body.get("span") if isinstance(body, dict) else None
                raise UnsupportedConstructError(f"{kind} statement in {self.where}", span)
            handler(body)

    def _Assignment(self, body: dict) -> None:
        value = self.translator.expr(body["value"], self.env)
        self._store(body["comp"], value)

    def _FunctionCall(self, body: dict) -> None:
        """``(a, b) := f(...)``: each output of ``f`` into its place, empty places skipped.
        ``f(...)`` alone (a function that only checks its inputs, MSL's
        ``BooleanTable.isValidTable``) is inlined for its asserts, which hold where these
        statements do not run; an external function's is refused: an FMU makes no call for
        its effect alone; one that gives outputs to places is called (MSL's noise blocks:
        ``(r_raw, state) := generator.random(pre(state))``, a C function)."""
        name = body["comp"]["name"]
        definition = self.translator.functions.get(name)
        placed = any(target.get("parts") for target in body["outputs"])
        if definition is None or (definition.get("external") is not None and not placed):
            kind = "external function" if definition else "function"
            raise UnsupportedConstructError(
                f"call statement of {kind} '{name}' in {self.where}", body.get("span")
            )
        definition = self.translator.called(body["comp"], body.get("span"))
        args = [self.translator.expr(a, self.env) for a in body["args"]]
        events = self.translator.events
        checks = len(events.asserts) if events is not None else 0
        outputs = self.translator.call(definition, args, body.get("span"), every=True)
        if events is not None and _numeric(self.guard) is None:
            events.asserts[checks:] = [
                (ca.logic_or(ca.logic_not(ca.SX(self.guard)), held), text)
                for held, text in events.asserts[checks:]
            ]
        for target, value in zip(body["outputs"], outputs, strict=False):
            if target.get("parts"):
                self._store(target, value)

    def _returned(self) -> bool:
        """Whether a ``return`` has run whatever the inputs."""
        return bool(_numeric(self.env.get(RETURNED, 0.0)))

    def _Return(self, body: dict) -> None:
        if self.where != "a function":
            raise UnsupportedConstructError(f"'return' statement in {self.where}", body.get("span"))
        self.env[RETURNED] = 1.0

    def _store(self, comp: dict, value: object) -> None:
        """``value`` into the variable (or the element of it) that ``comp`` names; where a
        ``return`` in a branch has run, the variable keeps its value."""
        name, subs = _assigned(comp, self.where)
        old = self.env.get(name)
        if subs:
            array = np.array(old, dtype=object)
            index = tuple(
                self.translator._position(self.translator.expr(s["Expr"]["expr"], self.env), None)
                if isinstance(s, dict) and "Expr" in s
                else (int(s["Index"]["value"]) - 1 if isinstance(s, dict) else slice(None))
                for s in subs
            )
            array[index] = value
            value = array
        returned = self.env.get(RETURNED, 0.0)
        if _numeric(returned) is None and old is not None:
            value = _elementwise2(lambda new, kept: ca.if_else(returned, kept, new), value, old)
        self.env[name] = value

    def _Assert(self, body: dict) -> None:
        """An assert in a function: one that holds when the model is translated is dropped,
        an error that never holds refused, any other checked by the FMU where the statements
        run (an error with its message; at ``AssertionLevel.warning`` the message logged)."""
        condition = self.translator.expr(body["condition"], self.env)
        text = _assert_message(body)
        number = _numeric(condition)
        if number is not None and _numeric(self.guard) is not None:
            if number or not _numeric(self.guard):
                return
            if not isinstance(text, WarningMessage):
                raise UnsupportedConstructError(
                    f"assert that never holds: {text}", body.get("span")
                )
        if self.translator.events is not None:
            held = ca.logic_or(ca.logic_not(ca.SX(self.guard)), ca.SX(condition))
            held = ca.logic_or(held, ca.SX(self.env.get(RETURNED, 0.0)))
            self.translator.events.asserts.append((held, text))

    def _When(self, body: dict) -> None:
        """A when-statement of a model's algorithm section (Modelica Language Specification
        3.6, Sec. 11.2.7): a chain of when-branches of the model's events, one per branch
        and element of a vector condition. A branch's new values are what its statements
        leave, run from the values the section holds where the when-statement stands, each
        variable it assigns first holding its value before the event (``pre``), relations
        decided as they are (the statements run at the event only). Past it, those variables
        hold their discrete values, as before it."""
        if self.where != "an algorithm section":
            raise UnsupportedConstructError(f"when-statement in {self.where}", body.get("span"))
        events = self.translator.events
        chain = events.new_chain()
        for block in body["blocks"]:
            self.translator.in_condition = True
            try:
                condition = self.translator.expr(block["cond"], self.env)
            finally:
                self.translator.in_condition = False
            branch = Algorithm(self.translator, dict(self.env), "a when-statement")
            checks = len(events.asserts)
            self.translator.no_event += 1
            # external calls made only where the branch fires, as in a when-equation (an
            # impure one ran at every evaluation, or once while the model was translated)
            outer, guard = self.translator.when_guard, ca.SX.sym(f"when_fires[{chain}]")
            self.translator.when_guard = guard
            try:
                branch.run(block["stmts"])
            finally:
                self.translator.no_event -= 1
                self.translator.when_guard = outer
            flags = _asserted_at_event(events, checks)
            assignments = flags + [
                (symbol, ca.SX(value))
                for name in dict.fromkeys(
                    _assigned(comp, self.where)[0] for comp in assignment_targets(block["stmts"])
                )
                for symbol, value in zip(
                    np.asarray(self.env[name], dtype=object).ravel(),
                    _broadcast(branch.env[name], list(np.shape(self.env[name]))),
                    strict=True,
                )
            ]
            elements = np.asarray(condition, dtype=object).ravel()
            if not any(ca.depends_on(value, guard) for _, value in assignments):
                guard = None
            events.branches += [
                WhenBranch(chain, ca.SX(c), assignments, [], guard) for c in elements
            ]

    def _For(self, body: dict) -> None:
        (index,) = body["indices"]
        values = self.translator.expr(index["range"], self.env)
        for value in np.asarray(values, dtype=object).ravel():
            if self._returned():
                break
            self.env[index["ident"]] = value
            self.run(body["equations"])
        self.env.pop(index["ident"], None)

    def _While(self, body: dict) -> None:
        body = body.get("block", body)  # rumoca 0.10: {"block": {"cond", "stmts"}, "span"}
        for _ in range(100_000):
            if self._returned():
                return
            test = _numeric(self.translator.expr(body["cond"], self.env))
            if test is None:
                inlining = self.translator.inlining
                raise UnsupportedConstructError(
                    "while loop whose condition depends on a variable (not known at translation)"
                    + (f" in function '{inlining[-1]}'" if inlining else ""),
                    None,
                )
            if not test:
                return
            self.run(body["stmts"])
        raise UnsupportedConstructError("while loop that does not end within 100000 passes", None)

    def _If(self, body: dict) -> None:
        branches = [*body["cond_blocks"]]
        otherwise = body.get("else_block") or []
        self._branch(branches, otherwise)

    def _branch(self, branches: list, otherwise: list) -> None:
        if not branches:
            self.run(otherwise)
            return
        first, *rest = branches
        test = self.translator.expr(first["cond"], self.env)
        number = _numeric(test)
        if number is not None:
            if number:
                self.run(first["stmts"])
            else:
                self._branch(rest, otherwise)
            return
        guard = _numeric(self.guard) is None
        taken_guard = ca.logic_and(self.guard, test) if guard else test
        other_guard = ca.logic_and(self.guard, ca.logic_not(test)) if guard else ca.logic_not(test)
        taken = Algorithm(self.translator, dict(self.env), self.where, taken_guard)
        taken.run(first["stmts"])
        other = Algorithm(self.translator, dict(self.env), self.where, other_guard)
        other._branch(rest, otherwise)
        for name in set(taken.env) | set(other.env):
            kept = 0.0 if name == RETURNED else None  # a branch without a return has none
            a, b = taken.env.get(name, kept), other.env.get(name, kept)
            if a is b:
                self.env[name] = a
            else:
                self.env[name] = _elementwise2(lambda x, y: ca.if_else(test, x, y), a, b)


def call_targets(node: object, found: dict[str, set[int]] | None = None) -> dict[str, set[int]]:
    """The classes (rumoca's ``def_id``) that the calls of each function name in ``node``
    (a flat model, or any part of it) resolved to."""
    found = {} if found is None else found
    if isinstance(node, dict):
        call = node.get("FunctionCall")
        name = call.get("name") if isinstance(call, dict) else None
        if isinstance(name, dict) and "component_ref" in name:
            parts = (name["component_ref"] or {}).get("parts") or [{}]
            if parts[-1].get("def_id") is not None:
                found.setdefault(name["name"], set()).add(parts[-1]["def_id"])
        for value in node.values():
            call_targets(value, found)
    elif isinstance(node, list):
        for value in node:
            call_targets(value, found)
    return found


def _assigned(comp: dict, where: str) -> tuple[str, list]:
    """The name an assignment writes (a flat variable ``pid.y`` in a model, a local in a
    function) and the subscripts of its last part."""
    parts = comp["parts"]
    if where == "a function" and len(parts) != 1:
        raise UnsupportedConstructError("assignment to a record field", comp.get("span"))
    if any(part["subs"] for part in parts[:-1]):
        raise UnsupportedConstructError(
            "assignment to an element of a component array", comp.get("span")
        )
    return ".".join(part["ident"] for part in parts), parts[-1]["subs"]


def assignment_targets(statements: list) -> list[dict]:
    """Every assignment's component reference in ``statements``, nested ones included."""
    found = []
    for statement in statements:
        if not isinstance(statement, dict):
            continue
        kind, body = _kind(statement)
        if kind == "Assignment":
            found.append(body["comp"])
        elif kind == "FunctionCall":
            found += [target for target in body["outputs"] if target.get("parts")]
        elif kind == "For":
            found += assignment_targets(body["equations"])
        elif kind == "While":
            found += assignment_targets(body["stmts"])
        elif kind == "If":
            for block in body["cond_blocks"]:
                found += assignment_targets(block["stmts"])
            found += assignment_targets(body.get("else_block") or [])
        elif kind == "When":
            for block in body["blocks"]:
                found += assignment_targets(block["stmts"])
    return found


def _when_targets(statements: list) -> set[str]:
    """The variables that the when-statements among ``statements`` assign."""
    return {
        _assigned(comp, "a model")[0]
        for statement in statements
        if isinstance(statement, dict) and _kind(statement)[0] == "When"
        for block in statement["When"]["blocks"]
        for comp in assignment_targets(block["stmts"])
    }


def _run_algorithm(
    translator: Translator,
    algorithm: dict,
    symbols_of: dict[str, object],
    starts: dict[str, object],
) -> dict[str, object]:
    """The values an algorithm section leaves in the variables it assigns: its statements
    run in order, each assigned variable first holding its start value (0 without one), or,
    where a when-statement assigns it (a discrete variable), its value before the event, as
    the language defines an algorithm's entry (Modelica Language Specification 3.6, Sec.
    11.1.2). Its when-statements become when-branches of the model's events."""
    statements = algorithm["statements"]
    names = dict.fromkeys(_assigned(comp, "a model")[0] for comp in assignment_targets(statements))
    held = _when_targets(statements)
    outside = [
        s for s in statements if not (isinstance(s, dict) and _kind(s)[0] == "When")
    ]  # fmt: skip
    both = held & {_assigned(comp, "a model")[0] for comp in assignment_targets(outside)}
    if both:
        raise UnsupportedConstructError(
            f"'{sorted(both)[0]}' assigned both in a when-statement and outside one",
            algorithm.get("span"),
        )
    env: dict[str, object] = {}
    for name in names:
        symbols = symbols_of.get(name)
        if symbols is None:
            raise UnsupportedConstructError(f"assignment to '{name}'", None)
        env[name] = symbols if name in held else _elementwise(
            lambda s: starts.get(s.name()) if starts.get(s.name()) is not None else 0.0, symbols
        )  # fmt: skip
    translator.section = frozenset(names)
    try:
        Algorithm(translator, env, "an algorithm section").run(statements)
    finally:
        translator.section = frozenset()
    return env


def _algorithm_residuals(
    translator: Translator,
    algorithm: dict,
    symbols_of: dict[str, object],
    starts: dict[str, object],
) -> list[object]:
    """A model's algorithm section as equations: each variable it assigns outside
    when-statements equals what the section left in it. Relations in it give events, as in
    equations."""
    env = _run_algorithm(translator, algorithm, symbols_of, starts)
    held = _when_targets(algorithm["statements"])
    return [
        _elementwise2(lambda a, b: a - b, symbols_of[name], value)
        for name, value in env.items()
        if name not in held
    ]


def _initial_sections(
    translator: Translator,
    flat: dict,
    model: FlatModel,
    symbols_of: dict[str, object],
    starts: dict[str, object],
    discrete: set[str],
) -> None:
    """``initial equation`` and ``initial algorithm`` sections of ``flat`` into ``model``.

    Conditions on continuous variables become initial residuals (the initial system). Those
    on discrete variables (assigned by when-equations, or declared ``discrete``, Integer or
    Boolean, or parameters with ``fixed = false``, and assigned by an initial algorithm) set
    them when the FMU leaves initialization mode, as a when-branch on ``initial()`` does: an
    initial algorithm's value of each one it assigns, and an initial equation in one discrete
    variable and no continuous one, linear in it (``pre(count) = 0``), solved for it. Parameters
    with ``fixed = false`` and no value that initial equations name (MSL's ``Blocks.Math.Mean``:
    ``t0 = time``) are such discrete variables; an equation in several is solved for the last
    one once the others are (``w[i] = i + t0``, ``for`` equations included); the parameters
    left stay unknowns of the initial system, solved with the states (``der(w) = 0``).
    Initial algorithms run in order, their relations decided as they are (no events).

    External calls in these sections are guarded as a when-branch's are: the initial branch
    calls them only where it fires, the initial system as if it always did. CasADi's SX
    evaluates both sides of the branch's if_else at every event, so an impure call seeding a
    hidden state (MSL's GlobalSeed: id_impure = initializeImpureRandom(seed)) ran again at
    each event and every draw of that generator repeated the first."""
    assigned: list[tuple[ca.SX, ca.SX]] = []
    guard = translator.when_guard = translator.initial_guard
    targets = {t.name() for b in model.events.branches for t, _ in b.assignments}
    continuous = {v.name for v in model.variables if v.variability == "continuous"}
    continuous |= {f"der({name})" for name in continuous}
    for algorithm in flat.get("initial_algorithms", []):
        translator.no_event += 1
        try:
            env = _run_algorithm(translator, algorithm, symbols_of, starts)
        finally:
            translator.no_event -= 1
        by_name = {v.name: v for v in model.variables}
        for name, value in env.items():
            symbols = np.asarray(symbols_of[name], dtype=object).ravel()
            for symbol, element in zip(symbols, _broadcast(value, [len(symbols)]), strict=True):
                variable = by_name[symbol.name()]
                if variable.variability == "parameter" and variable.fixed is False:
                    variable.variability = "discrete"  # computed once, at initialization
                    discrete.add(symbol.name())
                if symbol.name() in discrete or symbol.name() in targets:
                    assigned.append((symbol, ca.SX(element)))
                    targets.add(symbol.name())
                else:
                    model.initial_residuals.append(ca.SX(symbol - element))
    pending = [
        (ca.SX(element), span)
        for residual, local, span in _equation_points(flat, initial=True)
        for element in np.asarray(translator.expr(residual, local), dtype=object).ravel()
    ]
    translator.when_guard = None
    # parameters with fixed = false and no value that initial equations determine: computed
    # once, at initialization, as discrete variables
    free = {
        v.name: v
        for v in model.variables
        if v.variability == "parameter" and v.fixed is False and v.binding is None
    }
    pending = _held_starts(model.events, pending, continuous | targets)
    computed = {s.name() for residual, _ in pending for s in ca.symvar(residual)} & set(free)
    for name in computed:
        free[name].variability = "discrete"
    discrete |= computed
    targets |= computed
    solved = {t.name(): v for t, v in assigned}
    progress = True
    while progress:  # an equation is solved once its other discrete variables are
        progress = False
        for k, (residual, span) in enumerate(pending):
            symbols = ca.symvar(residual)
            which = [s for s in symbols if s.name() in targets and s.name() not in solved]
            if len(which) != 1 or any(s.name() in continuous for s in symbols):
                continue
            # without the derivatives of the calls that do not read it: differentiated, an
            # impure call is made again (MSL's initializeImpureRandom stored the state of the
            # seed's start value after the seed's: its derivative called it at that value)
            slope = jacobian(residual, which[0])
            if ca.depends_on(slope, which[0]) or not _nonzero(slope):
                if which[0].name() in computed:  # a parameter: Newton's, in the initial system
                    continue
                raise UnsupportedConstructError(
                    f"initial equation of discrete '{which[0].name()}' that is not linear in it",
                    span,
                )
            offset = ca.substitute(residual, which[0], ca.SX(0))
            known = [s for s in symbols if s.name() in solved]
            if known:  # in the values of those solved before it
                values = ca.vertcat(*(solved[s.name()] for s in known))
                offset = ca.substitute(offset, ca.vertcat(*known), values)
            solved[which[0].name()] = -offset / slope
            assigned.append((which[0], solved[which[0].name()]))
            del pending[k]
            progress = True
            break
    # the others, with the parameters they leave, are solved with the states
    model.initial_residuals.extend(residual for residual, _ in pending)
    model.initial_residuals = [ca.substitute(r, guard, 1) for r in model.initial_residuals]
    bound = _bound_after_initial(model, assigned, discrete, guard)
    held = model.events.held_starts
    if bound:  # the branch's values and pre(v) = start read them as the branch sets them
        moved = ca.vertcat(*(target for target, _ in bound))
        values = ca.vertcat(*(value for _, value in bound))
        for _ in bound:  # a value reading another one moved (a seed an impure call's): in its
            values = ca.substitute(values, moved, values)
        bound = list(zip(ca.vertsplit(moved), ca.vertsplit(values), strict=True))
        assigned = [(t, ca.substitute(v, moved, values)) for t, v in assigned] + bound
        held.update({name: ca.substitute(v, moved, values) for name, v in held.items()})
    held.update({name: ca.substitute(start, guard, 1) for name, start in held.items()})
    if assigned:
        chain = model.events.new_chain()
        guarded = guard if any(ca.depends_on(v, guard) for _, v in assigned) else None
        branch = WhenBranch(chain, model.events.initial, assigned, [], guarded)
        model.events.branches.append(branch)


def _bound_after_initial(
    model: FlatModel, assigned: list[tuple[ca.SX, ca.SX]], discrete: set[str], guard: ca.SX
) -> list[tuple[ca.SX, ca.SX]]:
    """The parameters whose bindings read a variable the initial branch assigns or call an
    impure function (the branch's ``guard`` in their calls), directly or through another
    such parameter, with their values in the branch's: computed there too, as discrete
    variables. A noise block binds its global seed to an inner's ``fixed = false`` parameter
    (MSL's PartialNoise: ``actualGlobalSeed = globalSeed.seed``); computed before
    initialization with the other parameters, the binding read that parameter's start (0),
    and the block drew from the wrong seed (NoiseLib.UniformNoise). A seed bound to an
    impure function of constant arguments (``parameter Integer seed = automaticSeed()``) was
    drawn once while the model was translated and frozen into the FMU (NoiseLib.BoundSeed)."""
    values = {target.name(): value for target, value in assigned}
    found: list[tuple[ca.SX, ca.SX]] = []
    progress = True
    while progress:  # a binding is taken once the moved parameters it reads are
        progress = False
        for variable in model.variables:
            if variable.variability != "parameter" or variable.binding is None:
                continue
            binding = ca.SX(variable.binding)
            read = [s for s in ca.symvar(binding) if s.name() in values]
            if not read and not ca.depends_on(binding, guard):
                continue
            known = ca.vertcat(*(values[s.name()] for s in read))
            value = ca.substitute(binding, ca.vertcat(*read), known)
            variable.variability, variable.binding = "discrete", None
            variable.start = ca.SX(0)  # before the branch sets it, as a fixed = false one
            discrete.add(variable.name)
            values[variable.name] = value
            found.append((variable.symbol, value))
            progress = True
    return found


def _held_starts(
    events: EventRecord, pending: list[tuple[ca.SX, dict | None]], variables: set[str]
) -> list[tuple[ca.SX, dict | None]]:
    """``pending`` initial equations without those that give ``pre(v)`` of a variable read
    through a memory (``pre(y) = pre_y_start``), whose values go to ``events.held_starts``:
    linear in the memory alone, in parameters otherwise; any other one that names such a
    memory is refused at its place."""
    memories = {m.name() for m, _ in events.changes}
    kept = []
    for residual, span in pending:
        symbols = ca.symvar(residual)
        held = [s for s in symbols if s.name() in memories]
        if not held:
            kept.append((residual, span))
            continue
        slope = ca.jacobian(residual, held[0])
        if (
            len(held) > 1
            or any(s.name() in variables for s in symbols)
            or ca.depends_on(slope, held[0])
            or not _nonzero(slope)
        ):
            raise UnsupportedConstructError(
                "initial equation with pre(v) of a variable no when-equation assigns, other "
                "than pre(v) = an expression in parameters",
                span,
            )
        events.held_starts[held[0].name()] = -ca.substitute(residual, held[0], 0) / slope
    return kept


def _nonzero(value: ca.SX) -> bool:
    """Whether ``value`` is not the constant 0."""
    return not (value.is_constant() and float(ca.evalf(value)) == 0.0)


# -- array helpers ---------------------------------------------------------------------------
def _is_array(value: object) -> bool:
    return isinstance(value, np.ndarray)


def _stack(elements: list[object]) -> np.ndarray:
    out = np.empty(len(elements), dtype=object) if not any(map(_is_array, elements)) else None
    if out is not None:
        for i, e in enumerate(elements):
            out[i] = e
        return out
    return np.array([np.asarray(e, dtype=object) for e in elements], dtype=object)


def _as_matrix(value: object) -> np.ndarray:
    array = np.asarray(value, dtype=object)
    if array.ndim == 0:
        return array.reshape(1, 1)
    if array.ndim == 1:
        return array.reshape(-1, 1)
    return array


def _concatenate(parts: list[np.ndarray], axis: int) -> np.ndarray:
    return np.concatenate(parts, axis=axis)


def _elementwise(function: Callable[[object], object], value: object) -> object:
    if _is_array(value):
        out = np.empty(value.shape, dtype=object)
        for index, element in np.ndenumerate(value):
            out[index] = function(element)
        return out
    return function(value)


def _elementwise2(function: Callable[[object, object], object], a: object, b: object) -> object:
    if isinstance(a, Record) or isinstance(b, Record):  # a choice between records: by field
        try:
            return combine(lambda x, y: _elementwise2(function, x, y), a, b)
        except TypeError:
            raise UnsupportedConstructError(
                "a record beside a value of another type", None
            ) from None
    if _is_array(a) or _is_array(b):
        a_arr, b_arr = np.broadcast_arrays(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
        out = np.empty(a_arr.shape, dtype=object)
        for index in np.ndindex(*a_arr.shape):
            out[index] = function(a_arr[index], b_arr[index])
        return out
    return function(a, b)


def _not(value: object) -> object:
    number = _numeric(value)
    return float(not number) if number is not None else ca.logic_not(value)


def _multiply(a: object, b: object) -> object:
    """Modelica's ``*``: scalar products, dot product of vectors, matrix products."""
    if _is_array(a) and _is_array(b):
        if a.ndim == 1 and b.ndim == 1:
            return _sum(a * b)
        return np.dot(a, b)
    if _is_array(a) or _is_array(b):
        return np.asarray(a, dtype=object) * np.asarray(b, dtype=object)
    return a * b


def _power(a: object, b: object) -> object:
    if _is_array(a):
        exponent = int(_numeric(b) or 0)
        result = np.eye(a.shape[0], dtype=object) * 1.0
        for _ in range(exponent):
            result = np.dot(result, a)
        return result
    number = _numeric(b)
    if number is not None and _numeric(a) is None:
        return a**number
    return a**b


def _relation(compare: Callable[[object, object], object]) -> Callable[[object, object], object]:
    def apply(a: object, b: object) -> object:
        def one(x: object, y: object) -> object:
            nx, ny = _numeric(x), _numeric(y)
            if nx is not None and ny is not None:
                return float(bool(compare(nx, ny)))
            return compare(ca.SX(x), ca.SX(y))

        return _elementwise2(one, a, b)

    return apply


def _logic(function: Callable[[object, object], object], python: Callable) -> Callable:
    def apply(a: object, b: object) -> object:
        def one(x: object, y: object) -> object:
            nx, ny = _numeric(x), _numeric(y)
            if nx is not None and ny is not None:
                return float(python(bool(nx), bool(ny)))
            return function(ca.SX(x), ca.SX(y))

        return _elementwise2(one, a, b)

    return apply


def _sum(values: object) -> object:
    total: object = 0.0
    for value in np.asarray(values, dtype=object).ravel():
        total = total + value
    return total


def _elementwise_op(function: Callable[[object, object], object]) -> Callable:
    return lambda a, b: _elementwise2(function, a, b)


def _divide(a: object, b: object) -> object:
    if _is_array(a) and not _is_array(b):
        return _elementwise(lambda x: x / b, a)
    return a / b


BINARY: dict[str, Callable[[object, object], object]] = {
    "Add": _elementwise_op(lambda x, y: x + y),
    "Sub": _elementwise_op(lambda x, y: x - y),
    "AddElem": _elementwise_op(lambda x, y: x + y),
    "SubElem": _elementwise_op(lambda x, y: x - y),
    "Mul": _multiply,
    "MulElem": _elementwise_op(lambda x, y: x * y),
    "Div": _divide,
    "DivElem": _elementwise_op(lambda x, y: x / y),
    "Exp": _power,
    "ExpElem": _elementwise_op(lambda x, y: x**y),
    "Lt": _relation(lambda x, y: x < y),
    "Le": _relation(lambda x, y: x <= y),
    "Gt": _relation(lambda x, y: x > y),
    "Ge": _relation(lambda x, y: x >= y),
    "Eq": _relation(lambda x, y: x == y),
    "Neq": _relation(lambda x, y: x != y),
    "And": _logic(ca.logic_and, lambda x, y: x and y),
    "Or": _logic(ca.logic_or, lambda x, y: x or y),
}


def _semi_linear(translator: Translator, args: list[object], span: dict | None) -> object:
    """``semiLinear(x, k_positive, k_negative)``: ``x*k_positive`` where ``x >= 0``, else
    ``x*k_negative``, elementwise; continuous in ``x``, so no event (Modelica Language
    Specification 3.6, Sec. 3.7.4: ``smooth(0, ...)``)."""

    def one(x: object, positive: object, negative: object) -> ca.SX:
        x = ca.SX(x)
        return ca.if_else(x >= 0, x * ca.SX(positive), x * ca.SX(negative))

    if any(_is_array(a) for a in args):
        return np.vectorize(one, otypes=[object])(*args)
    return one(*args)


def _unary(function: Callable[[object], object]) -> Callable:
    def apply(translator: Translator, args: list[object], span: dict | None) -> object:
        return _elementwise(
            lambda v: (
                function(ca.SX(v)) if _numeric(v) is None else float(ca.evalf(function(ca.SX(v))))
            ),
            args[0],
        )

    return apply


def _reduce(function: Callable[[object, object], object]) -> Callable:
    def apply(translator: Translator, args: list[object], span: dict | None) -> object:
        if len(args) == 2:
            return _elementwise2(function, args[0], args[1])
        values = list(np.asarray(args[0], dtype=object).ravel())
        result = values[0]
        for value in values[1:]:
            result = function(result, value)
        return result

    return apply


def _minimum(a: object, b: object) -> object:
    na, nb = _numeric(a), _numeric(b)
    return min(na, nb) if na is not None and nb is not None else ca.fmin(a, b)


def _maximum(a: object, b: object) -> object:
    na, nb = _numeric(a), _numeric(b)
    return max(na, nb) if na is not None and nb is not None else ca.fmax(a, b)


def _fill(translator: Translator, args: list[object], span: dict | None) -> object:
    sizes = [_numeric(d) for d in args[1:]]
    if any(size is None for size in sizes):
        raise UnsupportedConstructError(
            "an array size not known when the model is translated", span
        )
    dims = [int(size) for size in sizes]  # type: ignore[arg-type]
    out = np.empty(dims, dtype=object)
    for index in np.ndindex(*dims):
        out[index] = args[0]
    return out


def _zeros_like(value: float) -> Callable:
    def apply(translator: Translator, args: list[object], span: dict | None) -> object:
        return _fill(translator, [value, *args], span)

    return apply


def _identity(translator: Translator, args: list[object], span: dict | None) -> object:
    n = int(_numeric(args[0]))  # type: ignore[arg-type]
    return np.eye(n, dtype=object) * 1.0


def _transpose(translator: Translator, args: list[object], span: dict | None) -> object:
    return np.asarray(args[0], dtype=object).T


def _cross(translator: Translator, args: list[object], span: dict | None) -> object:
    a, b = (np.asarray(v, dtype=object) for v in args)
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]],
        dtype=object,
    )


def _skew(translator: Translator, args: list[object], span: dict | None) -> object:
    x = np.asarray(args[0], dtype=object)
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]], dtype=object)


def _size(translator: Translator, args: list[object], span: dict | None) -> object:
    shape = np.asarray(args[0], dtype=object).shape
    if len(args) == 2:
        return float(shape[int(_numeric(args[1])) - 1])  # type: ignore[arg-type]
    return np.array([float(s) for s in shape], dtype=object)


def _homotopy(translator: Translator, args: list[object], span: dict | None) -> object:
    """``homotopy(actual, simplified)`` as ``lambda actual + (1 - lambda) simplified``
    (Modelica 3.6, Sec. 3.7.4.4): lambda goes from 0 to 1 while the FMU initializes and is 1
    afterwards, where the expression is ``actual`` exactly."""
    lam = translator.homotopy
    translator.homotopy_used = True
    return _elementwise2(lambda actual, simple: lam * actual + (1 - lam) * simple, *args[:2])


def _sum_builtin(translator: Translator, args: list[object], span: dict | None) -> object:
    return _sum(args[0])


def _product(translator: Translator, args: list[object], span: dict | None) -> object:
    result: object = 1.0
    for value in np.asarray(args[0], dtype=object).ravel():
        result = result * value
    return result


def _vector(translator: Translator, args: list[object], span: dict | None) -> object:
    return np.asarray(args[0], dtype=object).ravel()


def _scalar(translator: Translator, args: list[object], span: dict | None) -> object:
    return np.asarray(args[0], dtype=object).ravel()[0]


def _cat(translator: Translator, args: list[object], span: dict | None) -> object:
    axis = int(_numeric(args[0])) - 1  # type: ignore[arg-type]
    return np.concatenate([np.asarray(a, dtype=object) for a in args[1:]], axis=axis)


def _diagonal(translator: Translator, args: list[object], span: dict | None) -> object:
    values = np.asarray(args[0], dtype=object).ravel()
    out = np.full((len(values), len(values)), 0.0, dtype=object)
    for i, value in enumerate(values):
        out[i, i] = value
    return out


def _outer(translator: Translator, args: list[object], span: dict | None) -> object:
    a, b = (np.asarray(v, dtype=object).ravel() for v in args)
    return np.outer(a, b)


def _linspace(translator: Translator, args: list[object], span: dict | None) -> object:
    x1, x2, n = (_numeric(a) for a in args)
    if x1 is None or x2 is None or n is None:
        raise UnsupportedConstructError("linspace with bounds not known at translation", span)
    return np.array(list(np.linspace(x1, x2, int(n))), dtype=object)


def _held(translator: Translator, quotient: object, value: object) -> object:
    """``value``, an integer function of ``quotient`` (``floor``, ``ceil``, ``integer``,
    ``div``), as Modelica 3.6, Sec. 3.7.1.1 has it outside ``noEvent``: it changes only at
    events, which come where ``quotient`` crosses an integer. ``value`` is held in a memory
    taken at each pass of the event iteration (as ``change``'s), and two relations on the
    memory of ``floor(quotient)``, ``quotient >= f + 1`` and ``quotient < f``, give the event
    indicators. In functions, under ``noEvent``, in what a when-equation assigns and of
    parameters, ``value`` itself."""
    if translator.in_when_body or not translator._event_relation(quotient, 0.0):
        return value
    below = translator.events.held(ca.floor(quotient))
    translator.events.relation("Ge", ca.SX(quotient), below + 1)
    translator.events.relation("Lt", ca.SX(quotient), below)
    return translator.events.held(ca.SX(value))


def _integer_part(function: Callable[[float], float], casadi: Callable) -> Callable:
    def apply(translator: Translator, args: list[object], span: dict | None) -> object:
        def one(v: object) -> object:
            number = _numeric(v)
            if number is not None:
                return float(function(number))
            return _held(translator, v, casadi(v))

        return _elementwise(one, args[0])

    return apply


def _modulo(translator: Translator, args: list[object], span: dict | None) -> object:
    x, y = args
    if _numeric(x) is not None and _numeric(y) is not None:
        return x - math.floor(x / y) * y
    return x - _held(translator, x / y, ca.floor(x / y)) * y


def _remainder(translator: Translator, args: list[object], span: dict | None) -> object:
    x, y = args
    return x - _division(translator, args, span) * y


def _trunc(value: object) -> object:
    number = _numeric(value)
    if number is not None:
        return float(math.trunc(number))
    return ca.sign(value) * ca.floor(ca.fabs(value))


def _division(translator: Translator, args: list[object], span: dict | None) -> object:
    quotient = args[0] / args[1]
    if _numeric(quotient) is not None:
        return _trunc(quotient)
    return _held(translator, quotient, _trunc(quotient))


def _delay(translator: Translator, args: list[object], span: dict | None) -> object:
    """``delay(expr, delayTime)`` and ``delay(expr, delayTime, delayMax)`` (Modelica Language
    Specification 3.6, Sec. 3.7.4.1), element by element of ``expr``: a symbol the FMU sets
    from the history of ``expr`` it keeps. rumoca has checked the arguments: the delay time a
    scalar, ``delayMax`` (``delayTime`` without it) a parameter expression, which bounds the
    delay time and so the history's length."""
    expression, delay_time = args[0], args[1]
    bound = args[2] if len(args) > 2 else delay_time
    return _elementwise(
        lambda e: e if _numeric(e) is not None else translator.events.delay(e, delay_time, bound),
        expression,
    )


def _unsupported(construct: str) -> Callable:
    def apply(translator: Translator, args: list[object], span: dict | None) -> object:
        raise UnsupportedConstructError(construct, span)

    return apply


EVENT_OPERATORS = ("NoEvent", "Smooth", "Pre", "Edge", "Change", "Initial", "Terminal", "Sample")
BUILTINS: dict[str, Callable[[Translator, list[object], dict | None], object]] = {
    "Sin": _unary(ca.sin),
    "Cos": _unary(ca.cos),
    "Tan": _unary(ca.tan),
    "Asin": _unary(ca.asin),
    "Acos": _unary(ca.acos),
    "Atan": _unary(ca.atan),
    "Sinh": _unary(ca.sinh),
    "Cosh": _unary(ca.cosh),
    "Tanh": _unary(ca.tanh),
    "Exp": _unary(ca.exp),
    "Log": _unary(ca.log),
    "Log10": _unary(ca.log10),
    "Sqrt": _unary(ca.sqrt),
    "Abs": _unary(ca.fabs),
    "Sign": _unary(ca.sign),
    "Atan2": lambda t, a, s: _elementwise2(
        lambda y, x: (
            ca.atan2(ca.SX(y), ca.SX(x))
            if _numeric(y) is None or _numeric(x) is None
            else math.atan2(_numeric(y), _numeric(x))
        ),
        a[0],
        a[1],
    ),
    "Min": _reduce(_minimum),
    "Max": _reduce(_maximum),
    "Sum": _sum_builtin,
    "Product": _product,
    "Fill": _fill,
    "Zeros": _zeros_like(0.0),
    "Ones": _zeros_like(1.0),
    "Identity": _identity,
    "Transpose": _transpose,
    "Cross": _cross,
    "Skew": _skew,
    "Size": _size,
    "Homotopy": _homotopy,
    "SemiLinear": _semi_linear,
    "Vector": _vector,
    "Scalar": _scalar,
    "Cat": _cat,
    "Diagonal": _diagonal,
    "OuterProduct": _outer,
    "Linspace": _linspace,
    "Floor": _integer_part(math.floor, ca.floor),
    "Ceil": _integer_part(math.ceil, ca.ceil),
    "Integer": _integer_part(math.floor, ca.floor),
    "Mod": _modulo,
    "Rem": _remainder,
    "Div": _division,
    "Reinit": _unsupported("'reinit(...)' outside a when-equation"),
    "Delay": _delay,
    "Cardinality": _unsupported("'cardinality(...)' (deprecated)"),
}


# -- the flat model --------------------------------------------------------------------------
def _variability(variable: dict) -> str:
    declared = variable["variability"]
    kind = next(iter(declared)) if isinstance(declared, dict) else declared
    if kind == "Constant":
        return "constant"
    if kind == "Parameter":
        return "parameter"
    if kind == "Discrete" or variable.get("is_discrete_type"):
        return "discrete"
    return "continuous"


def _elements(variables: dict[str, dict], variabilities: tuple[str, ...]) -> frozenset[str]:
    """The scalar names of rumoca's flat ``variables`` of the given variabilities."""
    return frozenset(
        element
        for declared, variable in variables.items()
        if _variability(variable) in variabilities
        for element in _element_names(declared, [int(d) for d in variable["dims"]])
    )


def _causality(variable: dict, connectors: set[str]) -> str:
    """``input``/``output`` for the model's own interface variables, else ``local``.

    A sub-component's connector (``gain.u``) is an ordinary variable once flattened; a
    variable of a top-level connector (``flange.f`` of a connector ``flange``) keeps the
    causality it is declared with.
    """
    declared = variable["causality"]
    kind = next(iter(declared)) if isinstance(declared, dict) else declared
    if kind not in ("Input", "Output") or variable.get("is_protected"):
        return "local"  # a protected input or output is no part of the interface
    name = variable["name"]
    if "." in name and name.split(".")[0].split("[")[0] not in connectors:
        return "local"
    return kind.lower()


def read_flat(
    flat: dict,
    name: str,
    external_c: ExternalFunctions | None = None,
    structural: set[str] | None = None,
) -> FlatModel:
    """Build the scalar :class:`FlatModel` of rumoca's flat dictionary of model ``name``
    (``external_c`` compiles the external C functions it calls). Of the Integer, Boolean and
    enumeration parameters, those in ``structural`` are evaluated, the others stay parameters
    of the FMU; all are evaluated where ``structural`` is None."""
    time = ca.SX.sym("time")
    connectors = {n.split("[")[0] for n in flat.get("top_level_connectors", [])}
    values: dict[str, object] = {}
    symbols_of: dict[str, object] = {}
    variables: list[FlatVariable] = []
    names = flat.get("variable_type_names", {})  # String variables: labels, no equations
    objects = object_variables(flat)  # external objects: their constructors' calls
    raw = {
        n: v for n, v in flat["variables"].items() if names.get(n) != "String" and n not in objects
    }
    for declared, variable in raw.items():
        dims = [int(d) for d in variable["dims"]]
        names = _element_names(declared, dims)
        symbols = [ca.SX.sym(n) for n in names]
        if dims:
            array = np.empty(len(symbols), dtype=object)
            for i, symbol in enumerate(symbols):
                array[i] = symbol
            values[declared] = array.reshape(dims)
        else:
            values[declared] = symbols[0]
        symbols_of[declared] = values[declared]
    derivatives: dict[str, ca.SX] = {}

    def derivative(symbol: ca.SX, span: dict | None) -> ca.SX:
        scalar = symbol.name()
        if scalar not in derivatives:
            derivatives[scalar] = ca.SX.sym(f"der({scalar})")
        return derivatives[scalar]

    events = EventRecord()
    steady = _elements(raw, ("constant", "parameter"))
    # enumeration literals (``Modelica.Blocks.Types.Init.NoInit``) stand for their ordinals
    ordinals = {k: float(v) for k, v in flat.get("enum_literal_ordinals", {}).items()}

    records, record_types = flat.get("record_instances", {}), flat.get("record_types", {})

    def lookup(name: str) -> object:
        """A variable's value, a whole record's (from its fields) or an enumeration
        literal's."""
        if name in values:
            return values[name]
        record = records.get(name)
        entry = record_types.get(str(record["type_def_id"])) if record else None
        if entry is not None and not record["dims"]:
            fields = {f["name"]: lookup(f"{name}.{f['name']}") for f in entry["fields"]}
            if all(value is not None for value in fields.values()):
                return of_type(entry, fields)
        return ordinals.get(name)

    translator = Translator(lookup, derivative, flat.get("functions", {}), time, events, steady)
    translator.external_c = external_c
    translator.unheld = unheld_pre(flat)
    translator.discrete = _elements(raw, ("discrete",))
    translator.call_targets = call_targets(flat)
    types = dict(flat.get("variable_type_names", {}))
    translator.strings = {
        n: v.get("binding") or v.get("start")
        for n, v in flat["variables"].items()
        if types.get(n) == "String" and (v.get("binding") or v.get("start")) is not None
    }
    enumerations = set(flat.get("enumeration_types", []))
    types.update({n: "Integer" for n, v in raw.items() if v.get("type_id") in enumerations})
    final = {name for name, flag in flat.get("variable_final_flags", {}).items() if flag}
    copies = _record_copies(raw)
    evaluated = _evaluate_structural(raw, values, translator, types, final, copies, structural)
    for declared, constructor in objects.items():
        values[declared] = translator.expr(constructor)
    residuals: list[ca.SX] = []
    spans: list[dict | None] = []

    def add(residual: object, span: dict | None) -> None:
        for element in scalars(residual):
            if ca.depends_on(ca.SX(element), translator.initial_guard):
                raise UnsupportedConstructError(IMPURE_IN_EQUATION, span)
            if _numeric(element) is not None:
                if _numeric(element) != 0.0:
                    raise UnsupportedConstructError("an equation that can never hold", span)
                continue
            residuals.append(ca.SX(element))
            spans.append(span)

    for residual, local, span in _equation_points(flat):
        try:
            add(translator.expr(residual, local), span)
        except UnsupportedConstructError as exc:
            raise UnsupportedConstructError(exc.construct, exc.span or span) from None
    used = {s.name() for residual in residuals for s in ca.symvar(residual)}
    for declared, variable in raw.items():
        if _absent(variable, symbols_of[declared], used):
            continue
        # an evaluated parameter is a constant of the FMU: not declared, as no value set at
        # run time could change the equations it was substituted in
        variability = "constant" if declared in evaluated else _variability(variable)
        span = variable.get("source_span")
        binding = variable.get("binding")
        start = variable.get("start")
        bound = translator.expr(binding) if binding is not None else None
        if declared in copies:
            bound = symbols_of[copies[declared]]
        started = translator.expr(start) if start is not None else None
        if started is None and variable.get("type_id") in enumerations:
            started = ca.SX(1)  # its first literal (Modelica 3.6, Sec. 4.9.5.1)
        dims = [int(d) for d in variable["dims"]]
        if bound is not None and variability in ("continuous", "discrete"):
            add(_elementwise2(lambda a, b: a - b, symbols_of[declared], bound), span)
        elements = np.asarray(symbols_of[declared], dtype=object).ravel()
        bound_elements = _broadcast(bound, dims)
        start_elements = _broadcast(started, dims)
        lowest = _bound_elements(translator, variable.get("min"), dims, -math.inf)
        highest = _bound_elements(translator, variable.get("max"), dims, math.inf)
        fixed = variable.get("fixed")
        for k, symbol in enumerate(elements):
            variables.append(
                FlatVariable(
                    name=symbol.name(),
                    declared=declared,
                    symbol=symbol,
                    variability=variability,
                    causality=_causality(variable, connectors),
                    type_name=flat.get("variable_type_names", {}).get(declared, "Real"),
                    binding=bound_elements[k] if variability in ("constant", "parameter") else None,
                    start=start_elements[k],
                    fixed=bool(fixed[min(k, len(fixed) - 1)]) if fixed else None,
                    unit=variable.get("unit") or "",
                    description=variable.get("description") or "",
                    protected=bool(variable.get("is_protected")),
                    state_select=STATE_SELECT.get(variable.get("state_select", "Default"), 2),
                    span=span,
                    bounds=(lowest[k], highest[k]),
                    display_unit=variable.get("display_unit") or "",
                )
            )
    starts = {v.name: v.start for v in variables}
    for algorithm in flat.get("algorithms", []):
        for residual in _algorithm_residuals(translator, algorithm, symbols_of, starts):
            add(residual, None)
    scalar = {v.name: v.symbol for v in variables}
    first, branch_spans = len(events.branches), []
    for when in flat.get("when_chains", []):
        chain = events.new_chain()
        for branch in [when["first"], *when.get("else_when", [])]:
            found = _when_branches(translator, chain, branch, symbols_of, scalar)
            events.branches += found
            branch_spans += [branch.get("span")] * len(found)
    events.branches[first:] = _read_across_branches(translator, events, first, branch_spans)
    for check in flat.get("assert_equations", []):
        translator.no_event += 1
        try:
            condition = translator.expr(check["condition"])
        finally:
            translator.no_event -= 1
        text = _assert_message(check)
        events.asserts.append((ca.SX(condition), text))
    if evaluated:
        residuals, spans = _constant_variables(residuals, spans, variables, derivatives)
        # a derivative whose terms an evaluated parameter cancelled: no state
        appearing = {s.name() for residual in residuals for s in ca.symvar(residual)}
        derivatives = {k: d for k, d in derivatives.items() if d.name() in appearing}
    model = FlatModel(
        name,
        time,
        variables,
        derivatives,
        residuals,
        flat.get("class_type", "Model"),
        events=events,
        residual_spans=spans,
        external_c=external_c if external_c is not None and external_c.wrappers else None,
    )
    discrete = {v.name for v in variables if v.variability == "discrete"}
    _initial_sections(translator, flat, model, symbols_of, starts, discrete)
    if translator.homotopy_used:
        model.homotopy = translator.homotopy
    return model


def _constant_variables(
    residuals: list[ca.SX],
    spans: list[dict | None],
    variables: list[FlatVariable],
    derivatives: dict[str, ca.SX],
) -> tuple[list[ca.SX], list[dict | None]]:
    """Residuals and their spans without the equations that make a continuous variable a
    number (``Capcjc = Cje*powlin(...)`` once Cje = 0 is evaluated), that number substituted
    in the others until none is left; such a variable becomes a constant of the FMU. Where a
    product with it (``Capcjc*der(vbe)``) cancels, so does the state it held. The
    derivative of such a variable is 0 (a MultiBody body whose frame a joint holds at the
    world's origin: ``v_0 = der(r_0)`` makes its velocity a constant too)."""
    by_name = {v.name: v for v in variables}
    while True:
        found: dict[int, tuple[FlatVariable, float]] = {}
        for k, residual in enumerate(residuals):
            symbols = ca.symvar(residual)
            var = by_name.get(symbols[0].name()) if len(symbols) == 1 else None
            if var is None or var.variability != "continuous":
                continue
            slope = ca.jacobian(residual, var.symbol)
            if not slope.is_constant() or float(ca.evalf(slope)) == 0.0:
                continue
            offset = ca.substitute(residual, var.symbol, ca.SX(0))
            if not offset.is_constant():
                continue
            if all(var is not other for other, _ in found.values()):
                found[k] = (var, -float(ca.evalf(offset)) / float(ca.evalf(slope)))
        if not found:
            return residuals, spans
        symbols = [var.symbol for var, _ in found.values()]
        values = [ca.SX(value) for _, value in found.values()]
        rates = [derivatives[v.name] for v, _ in found.values() if v.name in derivatives]
        symbols += rates
        values += [ca.SX(0)] * len(rates)
        for var, value in found.values():
            var.variability, var.binding = "constant", ca.SX(value)
        kept = [k for k in range(len(residuals)) if k not in found]
        substituted = _substitute_all([residuals[k] for k in kept], symbols, values)
        pairs = [(r, spans[k]) for r, k in zip(substituted, kept, strict=True) if not r.is_zero()]
        residuals, spans = [r for r, _ in pairs], [span for _, span in pairs]


def _substitute_all(expressions: list[ca.SX], symbols: list, values: list) -> list[ca.SX]:
    """``expressions`` with ``values`` for ``symbols``, simplified (terms of 0 dropped)."""
    if not expressions:
        return []
    joined = ca.substitute(ca.vertcat(*expressions), ca.vertcat(*symbols), ca.vertcat(*values))
    return list(ca.vertsplit(ca.simplify(joined)))


def _broadcast(value: object, dims: list[int]) -> list[object]:
    count = int(np.prod(dims)) if dims else 1
    if value is None:
        return [None] * count
    if _is_array(value):
        flat = list(np.asarray(value, dtype=object).ravel())
        if len(flat) == count:
            return flat
        if len(flat) == 1:
            return flat * count
        raise UnsupportedConstructError(f"value of {len(flat)} elements for {count} elements", None)
    return [value] * count


def _bound_elements(
    translator: Translator, bound: dict | None, dims: list[int], unbounded: float
) -> list[float]:
    """One ``min`` or ``max`` per element of a variable of shape ``dims``: the numbers of a
    bound known when the model is translated (literals, constants, structural parameters),
    ``unbounded`` for elements whose bound is absent or depends on tunable parameters (an
    FMU declares numbers only, which a change of the parameter would leave wrong)."""
    count = int(np.prod(dims)) if dims else 1
    if bound is None:
        return [unbounded] * count
    translator.no_event += 1  # a bound is no relation of the model's equations
    try:
        elements = _broadcast(translator.expr(bound), dims)
    except UnsupportedConstructError:
        return [unbounded] * count
    finally:
        translator.no_event -= 1
    numbers = [_numeric(element) for element in elements]
    return [unbounded if n is None else n for n in numbers]


def _evaluate_structural(
    raw: dict,
    values: dict[str, object],
    translator: Translator,
    types: dict[str, str],
    final: set[str],
    copies: dict[str, str],
    structural: set[str] | None,
) -> set[str]:
    """Replace Integer, Boolean and enumeration constants and ``structural`` parameters (all
    where it is None) by their values, and the Real parameters that ``annotation(Evaluate =
    true)`` marks; returns the names of those Real parameters.

    Structural Integer, Boolean and enumeration parameters size arrays, bound loops and
    choose branches, which must be known when the model is translated
    (:mod:`orchestrator.compiler.structural_parameters`); in the FMU they are not listed. A
    Real parameter with ``Evaluate = true`` (Modelica Language
    Specification 3.6, Sec. 18.3) is known as well, and so is one a ``final`` modification
    binds (MSL's ``C(final C = CapVal)``, whose binding rumoca gives as CapVal's value): terms
    their values cancel drop before the equations are sorted (a zero capacitance leaves no
    state). rumoca marks both ``evaluate``, and also a ``final parameter`` declared with its
    own value, which stays tunable as before. A ``final`` modification that copies a
    parameter set further up (``ramp(final k = k)`` where the outer ``k`` is modified by a
    literal, which rumoca gives as that literal: ``copies``) is evaluated only where that
    parameter is: otherwise the outer one stays a tunable parameter of the FMU whose set the
    equations would ignore. The Real parameters that the structural ones' bindings read are
    evaluated with them (``_read_by_bindings``). Bindings may refer to one another, so passes
    repeat while one more becomes known.
    """
    steady = [
        (name, variable)
        for name, variable in raw.items()
        if _variability(variable) in ("constant", "parameter")
        and variable.get("binding") is not None
    ]
    evaluated = [
        name
        for name, variable in steady
        if types.get(name, "Real") == "Real"
        and _variability(variable) == "parameter"
        and variable.get("evaluate")
        and (name not in final or variable.get("binding_from_modification"))
        and (name not in copies or raw[copies[name]].get("evaluate"))
    ]
    deciding = [
        name
        for name, variable in steady
        if types.get(name) in ("Integer", "Boolean")
        and (structural is None or name in structural or _variability(variable) == "constant")
    ]
    read = _read_by_bindings(deciding, raw)
    evaluated += sorted(n for n in read - set(evaluated) if types.get(n, "Real") == "Real")
    pending = [
        (name, variable) for name, variable in steady if name in deciding or name in evaluated
    ]
    while pending:
        left = []
        for name, variable in pending:
            try:
                value = translator.expr(variable["binding"])
            except UnsupportedConstructError:
                left.append((name, variable))
                continue
            numbers = [_numeric(v) for v in np.asarray(value, dtype=object).ravel()]
            if any(n is None for n in numbers):
                left.append((name, variable))
                continue
            dims = [int(d) for d in variable["dims"]]
            values[name] = np.array(numbers, dtype=object).reshape(dims) if dims else numbers[0]
        if len(left) == len(pending):
            break
        pending = left
    return {name for name in evaluated if name not in dict(pending)}


def _read_by_bindings(names: list[str], raw: dict) -> set[str]:
    """The parameters with bindings that the bindings of ``names`` read, and those their
    bindings read in turn (a structural ``Boolean ideal = isEqual(lossTable, ...)`` reads the
    Real matrix ``lossTable``). Once ``ideal`` is a number in the equations, a value set for
    ``lossTable`` at run time could no longer change it, so ``lossTable`` must be evaluated
    too: the FMU does not list it as a parameter whose set it would ignore."""
    found: set[str] = set()
    frontier = list(names)
    while frontier:
        for name in references(raw.get(frontier.pop(), {}).get("binding")):
            variable = raw.get(name)
            if (
                name in found
                or variable is None
                or _variability(variable) != "parameter"
                or variable.get("binding") is None
            ):
                continue
            found.add(name)
            frontier.append(name)
    return found


def _absent(variable: dict, symbols: object, used: set[str]) -> bool:
    """Whether ``variable`` is a component an expandable connector declares that is not
    present: neither connected nor used in an equation (Modelica 3.6, Sec. 9.1.3: such
    declared components are only potentially present)."""
    if not variable.get("from_expandable_connector") or variable.get("connected"):
        return False
    names = {s.name() for s in np.asarray(symbols, dtype=object).ravel()}
    return variable.get("binding") is None and not names & used


def _equation_points(flat: dict, initial: bool = False) -> list[tuple[dict, dict, dict | None]]:
    """Every equation (of the ``initial equation`` sections where ``initial``) as (residual,
    loop indices, span), array equations whole.

    rumoca lists ``for`` equations twice: as entries of ``equations`` and as a template over
    the loop's index domain in ``structured_equations`` (whose ``first_equation_index``
    counts entries). Where it has not filled in the entries of a loop
    (``interiors_materialized`` false) they are placeholders (rumoca 0.10.2 gives
    ``der(p[3]) = 0`` for the last point of ``for i in 1:3``), so every loop's entries are
    replaced by its template's points, indices in row-major order (first index outermost), as
    rumoca numbers them. ``__array`` indices of a domain number an array equation's elements,
    not entries: its template is the whole array equation (``a = {time, 2*time}`` keeps its
    entry; ``a[i, :] = ...`` in a loop is one entry per loop point).
    """
    prefix = "initial_" if initial else ""
    points = [(e["residual"], {}, e.get("span")) for e in flat.get(f"{prefix}equations", [])]
    for structured in flat.get(f"{prefix}structured_equations", []):
        binders = structured["domain"]["binders"]
        loops = [b for b in binders if not b["display_name"].startswith("__array")]
        if not loops:
            continue
        body = structured["template"]["body"]
        position = int(structured["first_equation_index"])
        span = structured.get("span")
        for values in itertools.product(*map(_binder_range, loops)):
            local = {b["display_name"]: float(v) for b, v in zip(loops, values, strict=True)}
            for k in range(int(structured["equations_per_point"])):
                if position >= len(points):
                    raise UnsupportedConstructError("for-equation numbered past the end", span)
                points[position] = (body[k], local, span)  # an array body stays whole
                position += 1
    return points


def _record_copies(raw: dict[str, dict]) -> dict[str, str]:
    """Parameters that a record binding copies from another parameter, by name: the one they
    copy. rumoca 0.10 gives the fields of ``Sub sub(data = body)`` that ``body(m = 3)`` sets
    to an Integer literal that literal (``sub.data.m = 3``, the others ``sub.data.d =
    body.d``), so that ``sub.data.m`` would be a parameter of its own, settable to no effect
    and not following ``body.m``. Scalar parameters whose literal binding is the same source
    text are such copies of the one of them nearest the top of the model, where there is one
    alone (the elements of ``s[2](each data(m = 3))`` are not copies of one another)."""
    sharing: dict[tuple, list[str]] = {}
    for name, variable in raw.items():
        binding = variable.get("binding")
        if (
            _variability(variable) == "parameter"
            and not variable["dims"]
            and isinstance(binding, dict)
            and "Literal" in binding
            and binding["Literal"].get("span")
        ):
            span = binding["Literal"]["span"]
            sharing.setdefault((span["source"], span["start"], span["end"]), []).append(name)
    copies = {}
    for names in sharing.values():
        depth = sorted(names, key=lambda n: _depth(n))
        if len(depth) > 1 and _depth(depth[0]) < _depth(depth[1]):
            copies.update({copy: depth[0] for copy in depth[1:]})
    return copies


def _depth(name: str) -> int:
    """How many components deep a flat variable's name is (``sub.data.m``: 3)."""
    return name.count(".") + 1


def _binder_range(binder: dict) -> list[float]:
    """The values of one index of a structured equation's domain."""
    step = int(binder["step"])
    stop = int(binder["upper"]) + (1 if step > 0 else -1)
    return [float(v) for v in range(int(binder["lower"]), stop, step)]


def _when_branches(
    translator: Translator,
    chain: int,
    branch: dict,
    symbols_of: dict[str, object],
    scalar: dict[str, ca.SX],
) -> list[WhenBranch]:
    """One branch of a when-equation: condition, assignments to discrete variables, reinits.

    A vector condition, ``when {c1, c2}``, fires when any of its elements becomes true
    (Modelica Language Specification 3.6, Sec. 8.3.5.1), also while another one stays true:
    it gives one branch per element, in the same chain, each with the edge of its own
    element, so that the first of them that fires takes the branch once."""
    translator.in_condition = True
    try:
        condition = translator.expr(branch["condition"])
    finally:
        translator.in_condition = False
    translator.in_when_body = True
    translator.when_guard = ca.SX.sym(f"when_fires[{chain}]")
    try:
        return _when_assignments(translator, chain, condition, branch, symbols_of, scalar)
    finally:
        translator.in_when_body = False
        translator.when_guard = None


def _when_assignments(
    translator: Translator,
    chain: int,
    condition: object,
    branch: dict,
    symbols_of: dict[str, object],
    scalar: dict[str, ca.SX],
) -> list[WhenBranch]:
    """The branches of :func:`_when_branches` with what ``branch`` assigns and reinits."""
    span = branch.get("span")
    assignments: list[tuple[ca.SX, ca.SX]] = []
    reinits: list[tuple[ca.SX, ca.SX]] = []
    for equation in branch["equations"]:
        kind, body = _kind(equation)
        if kind == "Assign":
            target = symbols_of.get(body["target"], scalar.get(body["target"]))
            value = translator.expr(body["value"])
            if target is None:
                raise UnsupportedConstructError(f"when-assignment to '{body['target']}'", span)
            for symbol, element in zip(
                np.asarray(target, dtype=object).ravel(),
                _broadcast(value, list(np.asarray(target, dtype=object).shape)),
                strict=True,
            ):
                assignments.append((symbol, ca.SX(element)))
        elif kind == "Assert":
            checks = len(translator.events.asserts)
            translator.no_event += 1  # decided as it is at the event
            try:
                Algorithm(translator, {}, "a when-equation")._Assert(body)
            finally:
                translator.no_event -= 1
            assignments += _asserted_at_event(translator.events, checks)
        elif kind == "Reinit":
            state = scalar.get(body["state"])
            if state is None:
                raise UnsupportedConstructError(f"reinit of '{body['state']}'", span)
            reinits.append((state, ca.SX(translator.expr(body["value"]))))
        else:
            raise UnsupportedConstructError(f"{kind} in a when-equation", span)
    assignments, reinits = _simultaneous(translator, assignments, reinits, span)
    elements = np.asarray(condition, dtype=object).ravel() if _is_array(condition) else [condition]
    guard = translator.when_guard  # kept where the branch's values call external functions
    if not any(ca.depends_on(v, guard) for _, v in assignments + reinits):
        guard = None
    return [WhenBranch(chain, ca.SX(c), assignments, reinits, guard) for c in elements]


def _assert_message(check: dict) -> str:
    """The message of an assert (an equation or a statement of rumoca's flat form): a
    :class:`WarningMessage` at ``AssertionLevel.warning``, which the FMU logs where the
    condition starts to fail and the run goes on."""
    message = check.get("message")
    text = "" if message is None else _message_text(message)
    if not text.replace("...", "").strip():  # nothing of it known before the model runs
        text = "assert failed"
    level = check.get("level")
    if level is None:  # rumoca 0.10 leaves AssertionLevel.error out, as the default
        return text
    # AssertionLevel = enumeration(warning, error): rumoca 0.10 gives warning as its index 1
    if level.get("Literal", {}).get("value") == {"Integer": 1}:
        return WarningMessage(text)
    if level.get("Literal", {}).get("value") == {"Integer": 2}:
        return text
    raise UnsupportedConstructError(
        "assertion level other than AssertionLevel.warning or AssertionLevel.error",
        check.get("span"),
    )


def _message_text(message: object) -> str:
    """An assert's message as its text says it: string literals and numbers converted by
    ``String(...)`` as written, joined where ``+`` joins them; ``...`` for any value known
    only when the model runs (MSL's ``"Time (=" + String(time) + ") must be ..."``)."""
    if not isinstance(message, dict) or len(message) != 1:
        return "..."
    kind, node = next(iter(message.items()))
    if kind == "Literal":
        return str(next(iter(node["value"].values())))
    if kind == "Binary" and node.get("op") == "Add":
        return _message_text(node["lhs"]) + _message_text(node["rhs"])
    if kind == "StringConversion" and "Literal" in node.get("value", {}):
        return _message_text(node["value"])
    return "..."


def _asserted_at_event(events: EventRecord, first: int) -> list[tuple[ca.SX, ca.SX]]:
    """The asserts of a when-branch (``events.asserts[first:]``) checked at its event: each
    holds while the branch is active (Modelica Language Specification 3.6, Sec. 8.3.7), so
    the branch sets a flag of the event memories to 1 where it fails, and the FMU's check
    of the flag gives the error with the assert's message at that event. The flags'
    assignments, for the branch."""
    flags = []
    for k, (held, text) in enumerate(events.asserts[first:], start=first):
        flag = events.flag()
        flags.append((flag, ca.logic_not(held)))
        events.asserts[k] = (ca.logic_not(flag), text)
    return flags


def _read_across_branches(
    translator: Translator, events: EventRecord, first: int, spans: list[dict | None]
) -> list[WhenBranch]:
    """The when-equations' branches (``events.branches[first:]``, at ``spans``) with what
    they read of variables other branches assign (when-equations or when-statements) marked
    as those variables' new values at the event: the equations of all branches active at an
    event hold together with the rest (Modelica Language Specification 3.6, Sec. 8.6), so
    ``b = a`` beside ``a = pre(a) + 1`` gives b the new a, in either order of the source.
    ``pre(v)`` reads the value when the event update started. Branches on ``initial()``
    alone read the values at the start. A cycle of such reads (``b = a`` beside ``a = b``)
    is an algebraic loop at the event, refused at its first branch."""
    assigned = {t.name(): t for b in events.branches for t, _ in b.assignments}
    pairs = list(translator.pre_marks.values())
    marks = ca.vertcat(*[mark for mark, _ in pairs])
    originals = ca.vertcat(*[original for _, original in pairs])
    reads_of: dict[str, set[str]] = {}
    result = []
    for branch, span in zip(events.branches[first:], spans, strict=True):
        count = len(branch.assignments)
        values = ca.vertcat(*[v for _, v in branch.assignments + branch.reinits])
        own = {t.name() for t, _ in branch.assignments}
        read = [
            symbol
            for name, symbol in assigned.items()
            if name not in own and values.numel() and ca.depends_on(values, symbol)
        ]
        if ca.is_equal(branch.condition, events.initial):
            read = []
        placeholders = [ca.SX.sym(f"new({symbol.name()})") for symbol in read]
        if read:
            values = ca.substitute(values, ca.vertcat(*read), ca.vertcat(*placeholders))
        if pairs and values.numel():
            values = ca.substitute(values, marks, originals)
        new = ca.vertsplit(values) if values.numel() else []
        for name in own:
            reads_of.setdefault(name, set()).update(s.name() for s in read)
        result.append(
            WhenBranch(
                branch.chain,
                branch.condition,
                [(t, new[k]) for k, (t, _) in enumerate(branch.assignments)],
                [(x, new[count + k]) for k, (x, _) in enumerate(branch.reinits)],
                branch.guard,
                tuple(zip(placeholders, read, strict=True)),
            )
        )
        loop = _read_loop(reads_of)
        if loop:
            raise UnsupportedConstructError(
                "when-equations whose variables read one another's new values at one event "
                f"(an algebraic loop at the event: {', '.join(loop)})",
                span,
            )
    return result


def _read_loop(reads_of: dict[str, set[str]]) -> list[str]:
    """A cycle of ``reads_of`` (each variable's reads of others' new values), as the
    variables along it, or an empty list."""
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str]:
        if name in path:
            return path[path.index(name) :]
        if name in done:
            return []
        for other in sorted(reads_of.get(name, ())):
            loop = visit(other, [*path, name])
            if loop:
                return loop
        done.add(name)
        return []

    for name in sorted(reads_of):
        loop = visit(name, [])
        if loop:
            return loop
    return []


def _simultaneous(
    translator: Translator,
    assignments: list[tuple[ca.SX, ca.SX]],
    reinits: list[tuple[ca.SX, ca.SX]],
    span: dict | None,
) -> tuple[list[tuple[ca.SX, ca.SX]], list[tuple[ca.SX, ca.SX]]]:
    """The equations of one when-branch hold together (Modelica Language Specification 3.6,
    Sec. 8.3.5): a value that reads a variable the branch assigns reads its new value
    (``a = time + 1; b = 2*a``); ``pre(a)`` stays marked (:func:`_read_across_branches`)."""
    count = len(assignments)
    values = ca.vertcat(*[v for _, v in assignments + reinits])
    if count:
        targets = ca.vertcat(*[s for s, _ in assignments])
        for _ in range(count + 1):
            if not ca.depends_on(values, targets):
                break
            values = ca.substitute(values, targets, values[:count])
        else:
            raise UnsupportedConstructError(
                "when-equation whose equations give their variables from one another in a loop",
                span,
            )
    new = ca.vertsplit(values) if values.numel() else []
    return (
        [(s, new[k]) for k, (s, _) in enumerate(assignments)],
        [(s, new[count + k]) for k, (s, _) in enumerate(reinits)],
    )
