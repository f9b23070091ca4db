"""Causalize a model of the pymoca front end into CasADi's DaeBuilder, the explicit model.

The DaeBuilder holds the explicit model; CasADi generates its C code (``model_code``) and the
project's FMI layer turns it into FMUs with Model Exchange and Co-Simulation (``fmu_package``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import casadi as ca
from pymoca.backends.casadi.model import Model, Variable

from orchestrator.compiler.causalize import Assignment, causalize, scalarize
from orchestrator.compiler.modelica import VariableInfo
from orchestrator.errors import BuildError


def _declared(name: str) -> str:
    """Declared Modelica name of a scalar variable: ``nu[3]`` -> ``nu``."""
    return re.sub(r"\[[^\]]*\]$", "", name)


def _number(value: object, what: str, model: str) -> float:
    if isinstance(value, ca.MX):
        if not value.is_constant():
            raise BuildError(f"{model}: {what} must be a number, got expression {value}")
        value = float(value)
    number = float(value)  # type: ignore[arg-type]
    if math.isnan(number):
        raise BuildError(f"{model}: {what} has no value")
    return number


def _fixed_start(var: Variable, model: str) -> float:
    start = getattr(var.start, "value", var.start)
    return _number(start, f"start value of {var.symbol.name()}", model)


def build_dae(model_name: str, model: Model, info: dict[str, VariableInfo]) -> ca.DaeBuilder:
    """Turn pymoca's implicit model into a DaeBuilder holding explicit scalar assignments."""
    identifier = model_name.split(".")[-1]
    if model.initial_equations:
        raise BuildError(
            f"{model_name}: initial equations are not supported; give states start values "
            "with fixed=true instead"
        )
    residuals = scalarize(list(model.equations))
    used_names = {s.name() for s in ca.symvar(ca.vertcat(*residuals))} if residuals else set()
    free_parameters: list = []
    dependent_parameters: list = []
    fixed_symbols: list[ca.MX] = []
    fixed_values: list[float] = []
    for par in model.parameters:
        item = info.get(_declared(par.symbol.name()))
        if item and item.protected and not isinstance(par.value, ca.MX):
            # Protected parameters with a literal value cannot be modified: inline them.
            fixed_symbols.append(par.symbol)
            fixed_values.append(_number(par.value, f"parameter {par.symbol.name()}", model_name))
        elif isinstance(par.value, ca.MX) and not par.value.is_constant():
            dependent_parameters.append(par)
            residuals.append(par.symbol - par.value)
        elif par.python_type is float:
            free_parameters.append(par)
        elif par.symbol.name() in used_names:
            # Integer and Boolean parameters that reach the equations become Float64.
            free_parameters.append(par)
        # Unused non-Real parameters only sized arrays: they are structural, not exported.
    if fixed_symbols:
        residuals = ca.substitute(residuals, fixed_symbols, [ca.MX(v) for v in fixed_values])
    unknowns = (
        [v.symbol for v in model.der_states]
        + [v.symbol for v in model.alg_states]
        + [p.symbol for p in dependent_parameters]
    )
    symbols = _all_symbols(model, fixed_symbols)
    scalar = _expand(residuals, symbols)
    sx_of = {s.name(): sx for s, sx in zip(symbols, scalar.symbols, strict=True)}
    assignments = causalize(scalar.residuals, [sx_of[u.name()] for u in unknowns], model_name)

    def meta(name: str) -> dict:
        item = info.get(_declared(name))
        opts: dict = {}
        if item and item.unit(name):
            opts["unit"] = item.unit(name)
        if item and item.description:
            opts["description"] = item.description
        return opts

    outputs = set(model.outputs)
    declared: list[DeclaredVariable] = [
        DeclaredVariable("time", "independent", "continuous", model.time, dict(unit="s"))
    ]
    for par in free_parameters:
        name = par.symbol.name()
        value = _number(par.value, f"parameter {name}", model_name)
        opts = dict(start=value, **meta(name), **_bounds(par))
        declared.append(DeclaredVariable(name, "parameter", "tunable", par.symbol, opts))
    for inp in model.inputs:
        name = inp.symbol.name()
        start = _fixed_start(inp, model_name) if not _is_nan(inp.start) else 0.0
        opts = dict(start=start, **meta(name), **_bounds(inp))
        declared.append(DeclaredVariable(name, "input", "continuous", inp.symbol, opts))
    for state in model.states:
        name = state.symbol.name()
        causality = "output" if _declared(name) in outputs or name in outputs else "local"
        opts = dict(start=_fixed_start(state, model_name), initial="exact", **meta(name))
        opts.update(_bounds(state))
        declared.append(DeclaredVariable(name, causality, "continuous", state.symbol, opts))
    for var in list(model.alg_states) + dependent_parameters:
        name = var.symbol.name()
        causality = "output" if _declared(name) in outputs or name in outputs else "local"
        opts = meta(name) | _bounds(var)
        declared.append(DeclaredVariable(name, causality, "continuous", var.symbol, opts))
    state_of = {
        d.symbol.name(): s.symbol for d, s in zip(model.der_states, model.states, strict=True)
    }
    return explicit_dae(identifier, declared, assignments, state_of)


@dataclass(frozen=True)
class DeclaredVariable:
    """A variable of the explicit model: name, FMI causality and variability, its MX symbol
    and the DaeBuilder options (start, unit, description, initial)."""

    name: str
    causality: str
    variability: str
    symbol: ca.MX
    options: dict


def explicit_dae(
    identifier: str,
    declared: list[DeclaredVariable],
    assignments: list[Assignment],
    state_of: dict[str, ca.MX],
) -> ca.DaeBuilder:
    """A DaeBuilder of ``declared`` variables defined by the causalized ``assignments``.

    ``state_of`` maps the name of each derivative unknown to its state's MX symbol; a
    derivative used by a later assignment is replaced by its own expression, so that every
    definition is in states, inputs, parameters and dependent variables only.
    """
    dae = ca.DaeBuilder(identifier)
    for var in declared:
        dae.add(var.name, var.causality, var.variability, var.symbol, var.options)
    mx_of = {var.name: var.symbol for var in declared}
    der_symbols: list[ca.SX] = []
    der_values: list[ca.SX] = []
    for k, item in enumerate(assignments):
        expr = item.expression
        if der_symbols:
            expr = ca.substitute([expr], der_symbols, der_values)[0]
        name = item.unknown.name()
        if name in state_of:
            der_symbols.append(item.unknown)
            der_values.append(expr)
            dae.eq(dae.der(state_of[name]), _as_mx(expr, mx_of, f"rhs_{k}"))
        else:
            dae.eq(mx_of[name], _as_mx(expr, mx_of, f"def_{k}"))
    return dae


@dataclass
class _ScalarResiduals:
    symbols: list[ca.SX]
    residuals: list[ca.SX]


def _all_symbols(model: Model, exclude: list[ca.MX]) -> list[ca.MX]:
    groups = [model.states, model.der_states, model.alg_states, model.inputs, model.parameters]
    skip = {s.name() for s in exclude}
    symbols = [v.symbol for group in groups for v in group if v.symbol.name() not in skip]
    return [model.time] + symbols


def _expand(residuals: list[ca.MX], symbols: list[ca.MX]) -> _ScalarResiduals:
    """Expand MX residuals into scalar SX expressions over same-named SX symbols.

    pymoca writes ``for`` loops as CasADi ``map`` nodes; their Jacobians depend on every
    argument of the map, which would hide linearity. Expanded SX expressions are exact.
    """
    function = ca.Function("residuals", symbols, [ca.vertcat(*residuals)]).expand()
    sx_symbols = [ca.SX.sym(s.name()) for s in symbols]
    expanded = function(*sx_symbols)
    return _ScalarResiduals(sx_symbols, ca.vertsplit(expanded))


def _as_mx(expr: ca.SX, mx_of: dict[str, ca.MX], name: str) -> ca.MX:
    """Wrap a scalar SX expression as a call on the model's MX symbols (a constant as is)."""
    arguments = ca.symvar(expr)
    if not arguments:
        return ca.MX(float(ca.evalf(expr)))
    function = ca.Function(name, arguments, [expr])
    return function(*[mx_of[a.name()] for a in arguments])


def _bounds(var: Variable) -> dict[str, float]:
    """The DaeBuilder options ``min`` and ``max`` of a pymoca variable where they are finite
    numbers; a bound in parameters (``min = k``) is left out, as the rumoca front end does."""
    pairs = (("min", var.min), ("max", var.max))
    return {
        k: float(v)
        for k, v in pairs
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
    }


def _is_nan(value: object) -> bool:
    value = getattr(value, "value", value)
    return isinstance(value, float) and math.isnan(value)
