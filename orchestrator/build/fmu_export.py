"""Export a causalized model as an FMI 3.0 Model Exchange FMU through CasADi's DaeBuilder.

CasADi writes C sources and a ``modelDescription.xml``; gcc compiles them into the binary.
Before packing, the model description is completed (description, units) and CasADi's internal
helper variables get legal structured names, so that the FMU passes ``fmpy validate``.
"""

from __future__ import annotations

import math
import re
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from contextlib import chdir
from dataclasses import dataclass
from pathlib import Path

import casadi as ca
import fmpy
from pymoca.backends.casadi.model import Model, Variable

from orchestrator.build.causalize import causalize, scalarize
from orchestrator.build.modelica import VariableInfo
from orchestrator.build.units import unit_definitions
from orchestrator.errors import BuildError

FMI_HEADERS = Path(fmpy.__file__).parent / "c-code"


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
    dae = ca.DaeBuilder(identifier)
    dae.add("time", "independent", "continuous", model.time, dict(unit="s"))
    for par in free_parameters:
        name = par.symbol.name()
        value = _number(par.value, f"parameter {name}", model_name)
        dae.add(name, "parameter", "tunable", par.symbol, dict(start=value, **meta(name)))
    for inp in model.inputs:
        name = inp.symbol.name()
        start = _fixed_start(inp, model_name) if not _is_nan(inp.start) else 0.0
        dae.add(name, "input", "continuous", inp.symbol, dict(start=start, **meta(name)))
    for state in model.states:
        name = state.symbol.name()
        causality = "output" if _declared(name) in outputs or name in outputs else "local"
        opts = dict(start=_fixed_start(state, model_name), initial="exact", **meta(name))
        dae.add(name, causality, "continuous", state.symbol, opts)
    for var in list(model.alg_states) + dependent_parameters:
        name = var.symbol.name()
        causality = "output" if _declared(name) in outputs or name in outputs else "local"
        dae.add(name, causality, "continuous", var.symbol, meta(name))

    mx_of = {s.name(): s for s in symbols}
    state_of = {
        d.symbol.name(): s.symbol for d, s in zip(model.der_states, model.states, strict=True)
    }
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
    """Wrap a scalar SX expression as a call on the model's MX symbols.

    A constant becomes a call with the time as a dummy argument: CasADi folds plain constants
    into structural zeros of the output vector, which its FMU wrapper then copies shifted.
    """
    arguments = ca.symvar(expr)
    if not arguments:
        dummy = ca.SX.sym("time")
        function = ca.Function(name, [dummy], [ca.SX(float(ca.evalf(expr)))])
        return function(mx_of["time"])
    function = ca.Function(name, arguments, [expr])
    return function(*[mx_of[a.name()] for a in arguments])


def _is_nan(value: object) -> bool:
    value = getattr(value, "value", value)
    return isinstance(value, float) and math.isnan(value)


def _complete_description(xml_path: Path, description: str) -> None:
    """Add the model description and unit definitions; give helper variables legal names."""
    tree = ET.parse(xml_path)
    root = tree.getroot()
    if description:
        root.set("description", description)
    root.set("generationTool", "murcosim (pymoca + CasADi)")
    variables = root.find("ModelVariables")
    for var in list(variables):
        if var.get("name", "").startswith("__assign__"):
            # CasADi's internal assignment helpers (``__assign__h[1]__``): not model variables,
            # and their names are illegal under the structured naming convention.
            variables.remove(var)
    exact = {
        v.get("valueReference") for v in root.find("ModelVariables") if v.get("initial") == "exact"
    }
    structure = root.find("ModelStructure")
    for unknown in structure.findall("InitialUnknown"):
        # FMI 3: states with an exact start value are not initial unknowns.
        if unknown.get("valueReference") in exact:
            structure.remove(unknown)
    units = sorted({v.get("unit") for v in root.find("ModelVariables") if v.get("unit")})
    if units:
        position = list(root).index(root.find("ModelVariables"))
        root.insert(position, unit_definitions(units))
    ET.indent(tree)
    tree.write(xml_path, xml_declaration=True, encoding="UTF-8")


SET_TIME = "  m->t = time;\n"


def _outputs_follow_time(wrapper: Path) -> None:
    """Make ``fmi3SetTime`` mark the outputs as stale, as setting a variable does.

    CasADi's FMU wrapper re-evaluates the model only after a variable was set, so an FMU whose
    outputs depend on time (an ocean wave field without states) would keep returning the values
    of the previous time.
    """
    source = wrapper.read_text()
    if source.count(SET_TIME) != 1:
        raise BuildError(f"{wrapper.name}: unexpected CasADi fmi3SetTime, cannot patch it")
    wrapper.write_text(source.replace(SET_TIME, SET_TIME + "  m->up_to_date = 0;\n"))


def export_fmu(
    model_name: str,
    model: Model,
    info: dict[str, VariableInfo],
    description: str,
    target: Path,
) -> Path:
    """Causalize, export, compile and pack ``model_name`` into ``target`` (an ``.fmu`` path)."""
    dae = build_dae(model_name, model, info)
    target = target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="murcosim-build-") as tmp, chdir(tmp):
        try:
            files = dae.export_fmu(dict(no_warning=True, with_serialization=False))
            _outputs_follow_time(Path(tmp) / f"{dae.name()}_wrap.c")
            files = dae.compile_fmu(
                files,
                dict(
                    include_dirs=[str(FMI_HEADERS)],
                    compiler_options=dict(flags=["-O2", "-w", "-lm"]),
                ),
            )
        except RuntimeError as exc:
            raise BuildError(f"{model_name}: CasADi could not export the FMU: {exc}") from exc
        _complete_description(Path(tmp) / "modelDescription.xml", description)
        partial = target.with_suffix(".fmu.part")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for local, inside in sorted(files.items()):
                archive.write(Path(tmp) / local, inside.removeprefix("./"))
        partial.replace(target)
    return target
