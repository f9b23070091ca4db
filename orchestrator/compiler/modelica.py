"""Modelica front end: parse the component library with pymoca and describe its models.

Everything Modelica-specific stays here: which classes are models to export, the flattened
metadata (units, descriptions) that the CasADi model loses, and the translation of pymoca's
failures into errors that name the model, the construct and where it stands in the sources.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass
from pathlib import Path

from pymoca import ast, parser, tree
from pymoca.backends.casadi import generator
from pymoca.backends.casadi._options import _merge_default_options
from pymoca.backends.casadi.model import Model

from orchestrator.compiler.loops import unroll_nested_loops
from orchestrator.errors import BuildError

# pymoca logs every parsed file and every alias it finds at INFO level.
logging.getLogger("pymoca").setLevel(logging.WARNING)

# pymoca 0.12 hands the division operator and Modelica's elementary functions asin, acos, atan
# and atan2 to CasADi under names CasADi's MX does not have (the Python 2 name __div__, the
# Modelica names); map them to CasADi's.
generator.OP_MAP.update(
    {
        "/": "__truediv__",
        "asin": "arcsin",
        "acos": "arccos",
        "atan": "arctan",
        "atan2": "__arctan2__",
    }
)

PYMOCA_OPTIONS = {
    "expand_vectors": True,  # one scalar variable per array element, as FMI needs
    "replace_constant_values": True,
    "check_balanced": False,  # balance is checked by causalization, with a better message
}


# pymoca's message for a construct it cannot translate -> (construct, pattern of its source)
UNSUPPORTED = (
    ("Tried to look up expression before it was reached", "when-equation", r"^\s*when\b"),
    (
        "Statements are currently supported inside functions only",
        "algorithm section in a model",
        r"^\s*algorithm\b",
    ),
)
PASS_THROUGH = ("noEvent", "smooth")  # no events are generated: both return their argument
EXPORTED = ("model", "block")  # class kinds that become FMUs
# Modelica's experiment annotation -> the attribute of FMI's DefaultExperiment
EXPERIMENT = {
    "StartTime": "startTime",
    "StopTime": "stopTime",
    "Tolerance": "tolerance",
    "Interval": "stepSize",
}


class _Generator(generator.Generator):
    """pymoca's CasADi generator, extended by what library authors write.

    ``noEvent(e)`` and ``smooth(order, e)`` pass ``e`` through; array literals may hold
    parameters and expressions of them (pymoca looked their elements up before resolving
    component references).
    """

    def exitArray(self, tree: ast.Array) -> None:  # noqa: N802 (pymoca's listener names)
        self.src[tree] = [self.get_mx(e) for e in tree.values]

    def exitExpression(self, tree: ast.Expression) -> None:  # noqa: N802
        name = getattr(tree.operator, "name", tree.operator)  # calls name a ComponentRef
        if name in PASS_THROUGH:
            self.src[tree] = self.get_mx(tree.operands[-1])
        else:
            super().exitExpression(tree)


@dataclass(frozen=True)
class VariableInfo:
    """Metadata of one declared Modelica variable.

    ``units`` holds one unit for all elements, or one per element of a vector declared as
    ``Real nu[6](unit={"m/s", ..., "rad/s"})``.
    """

    units: tuple[str, ...]
    description: str
    protected: bool = False

    def unit(self, scalar_name: str) -> str:
        """Unit of one scalar element, e.g. ``nu[4]`` -> ``"rad/s"``."""
        if len(self.units) == 1:
            return self.units[0]
        index = re.search(r"\[(\d+)\]$", scalar_name)
        return self.units[int(index.group(1)) - 1] if index else ""


@dataclass
class ModelicaLibrary:
    """The parsed sources of one Modelica library folder."""

    folder: Path
    files: list[Path]
    root: ast.Tree

    def models(self) -> list[str]:
        """Full names of all non-partial models and blocks, the classes the build may turn
        into FMUs (a block's inputs and outputs come from its connectors)."""
        found: list[str] = []

        def walk(cls: ast.Class, prefix: str) -> None:
            for name, child in cls.classes.items():
                full = f"{prefix}{name}"
                if child.type in EXPORTED and not child.partial:
                    found.append(full)
                walk(child, full + ".")

        walk(self.root, "")
        return sorted(found)

    def description(self, model: str) -> str:
        """The description string of a class, e.g. ``"BlueROV2 Heavy ..."``."""
        cls: ast.Class = self.root
        for part in model.split("."):
            cls = cls.classes[part]
        return cls.comment or ""

    def experiment(self, model: str) -> dict[str, float] | None:
        """The class's ``annotation(experiment(...))`` as attributes of FMI's
        ``DefaultExperiment`` (``{"stopTime": 4.0}``), or None when it has none.

        pymoca keeps a class's annotation as a class modification; vendor entries
        (``__Dymola_Algorithm``) are ignored, a value that is not a number is an error.
        """
        cls = self._class(model)
        annotation = getattr(cls.annotation, "arguments", []) if cls is not None else []
        entries = [
            a.value
            for a in annotation
            if isinstance(a.value, ast.ElementModification)
            and a.value.component.name == "experiment"
        ]
        if not entries:
            return None
        values: dict[str, float] = {}
        for entry in entries:
            for modification in entry.modifications:
                for argument in getattr(modification, "arguments", []):
                    name = argument.value.component.name
                    if name not in EXPERIMENT:
                        continue
                    given = argument.value.modifications
                    value = _constant(given[-1]) if given else None
                    if value is None:
                        raise BuildError(
                            f"{model}: annotation experiment({name} = ...): expected a number"
                        )
                    values[EXPERIMENT[name]] = value
        if values.get("stopTime", math.inf) <= values.get("startTime", 0.0):
            raise BuildError(f"{model}: annotation experiment: expected StopTime > StartTime")
        for name in ("Tolerance", "Interval"):
            if values.get(EXPERIMENT[name], 1.0) <= 0:
                raise BuildError(f"{model}: annotation experiment: expected {name} > 0")
        return values

    def unreliable_redeclares(self, model: str, backend: str) -> list[str]:
        """Redeclarations in ``model``'s inheritance that ``backend`` would flatten with the
        wrong parameter values, one line each (empty when there are none).

        - rumoca 0.10: ``extends B(redeclare R c)`` where ``B`` inherits ``c`` from a base
          instead of declaring it (``extends Thruster(redeclare Worn data)`` over
          ``Thruster extends ThrusterBase``, or a second redeclaration along the chain): it
          keeps the values of the type declared further up.
        - pymoca 0.12: any redeclaration of a component whose declared record type extends a
          base with modifiers (``replaceable T200 data`` with ``T200 extends
          ThrusterData(K_L = ...)``): the declared type's modifiers win over the new type's.
        """
        found: list[str] = []
        for scope, cls in self._ancestry(model):
            # (class whose element is redeclared, in an extends clause?, the modification)
            clauses = [(str(c.component), True, c.class_modification) for c in cls.extends]
            clauses += [
                (str(symbol.type), False, symbol.class_modification)
                for symbol in cls.symbols.values()
            ]
            for owner, extending, modification in clauses:
                for argument in getattr(modification, "arguments", []):
                    if not getattr(argument, "redeclare", False):
                        continue
                    for symbol in getattr(argument.value, "symbol_list", []):
                        problem = self._redeclare_problem(
                            scope, owner, extending, symbol.name, backend
                        )
                        if problem:
                            found.append(f"{symbol.name} in {scope}: {problem}")
        return found

    def pymoca_misreads(self, model: str) -> list[str]:
        """Components of ``model``, of the classes it extends and of its components' classes
        that pymoca 0.12 would misread, one line each: a short connector class as type
        (``connector RealInput = input Real``: it drops the ``input`` or ``output``) and an
        array of a derived type (``Position r[3]``: it drops the dimensions). MurCoSim has
        both, as the Modelica Standard Library has."""
        found: list[str] = []
        pending, seen = [model], set()
        while pending:
            for scope, cls in self._ancestry(pending.pop()):
                if scope in seen:
                    continue
                seen.add(scope)
                for name, symbol in cls.symbols.items():
                    kind = self._resolve(str(symbol.type), scope)
                    used = self._class(kind) if kind else None
                    if kind is None or used is None:
                        continue
                    scalar = [[getattr(d, "value", 0) for d in row] for row in symbol.dimensions]
                    if used.is_short_class_definition and used.type == "connector":
                        problem = (
                            f"its type {kind} is a short connector class, whose input or output"
                        )
                    elif used.is_short_class_definition and scalar != [[None]]:
                        problem = f"an array of the derived type {kind}, whose dimensions"
                    else:
                        problem = ""
                    if problem:
                        found.append(
                            f"{name} in {scope}: {problem} pymoca 0.12 drops: "
                            "build with --backend rumoca"
                        )
                    pending.append(kind)
        return found

    def _redeclare_problem(
        self, scope: str, owner: str, extending: bool, name: str, backend: str
    ) -> str:
        base = self._resolve(owner, scope)
        if base is None:
            return ""
        declared = self._declaring(base, name)
        if backend == "rumoca" and extending and declared is not None and declared[0] != base:
            return (
                f"redeclared in 'extends {owner}(...)' though {owner} inherits it from "
                f"{declared[0]}; rumoca 0.10 would keep the values of the type declared "
                f"there: extend {declared[0]} itself, or redeclare on a component"
            )
        if backend == "pymoca" and declared is not None:
            kind = self._resolve(str(declared[1].type), declared[0])
            record = self._class(kind) if kind else None
            if record is not None and any(
                getattr(e.class_modification, "arguments", []) for e in record.extends
            ):
                return (
                    f"its declared type {kind} extends a base with modifiers, which pymoca "
                    "would let win over the redeclared type's: build with --backend rumoca"
                )
        return ""

    def _ancestry(self, model: str) -> list[tuple[str, ast.Class]]:
        """``model`` and every class it extends, directly or not, with their full names."""
        found: list[tuple[str, ast.Class]] = []
        pending = [model]
        while pending:
            name = pending.pop()
            cls = self._class(name)
            if cls is None or any(name == known for known, _ in found):
                continue
            found.append((name, cls))
            for clause in cls.extends:
                base = self._resolve(str(clause.component), name)
                if base is not None:
                    pending.append(base)
        return found

    def _declaring(self, name: str, component: str) -> tuple[str, ast.Symbol] | None:
        """The class of ``name``'s inheritance that declares ``component``, and the
        declaration."""
        for scope, cls in self._ancestry(name):
            if component in cls.symbols:
                return scope, cls.symbols[component]
        return None

    def _class(self, full: str) -> ast.Class | None:
        cls: ast.Class = self.root
        for part in full.split("."):
            if part not in cls.classes:
                return None
            cls = cls.classes[part]
        return cls

    def _resolve(self, reference: str, scope: str) -> str | None:
        """The full name of class ``reference`` as seen from inside class ``scope``."""
        parts = scope.split(".")
        for depth in range(len(parts), -1, -1):
            candidate = ".".join([*parts[:depth], reference])
            if self._class(candidate) is not None:
                return candidate
        return None

    def translate(self, model: str) -> tuple[Model, dict[str, VariableInfo]]:
        """Flatten ``model`` and return its CasADi form and its variables' metadata.

        The CasADi form holds the symbols and implicit residual equations; the metadata maps
        each declared variable name (``nu``, ``data.m``) to its unit and description.
        """
        options = _merge_default_options(PYMOCA_OPTIONS)
        try:
            flat_tree = tree.flatten(self.root, ast.ComponentRef.from_string(model))
            _name_functions(flat_tree)
            unroll_nested_loops(flat_tree.classes[model], model)
            gen = _Generator(flat_tree, model, options)
            generator.GeneratorWalker().walk(gen, flat_tree)
            casadi_model = gen.model
            casadi_model.simplify(options)
        except Exception as exc:  # pymoca raises bare Exceptions for unsupported constructs
            raise BuildError(self._explain(model, exc)) from exc
        info: dict[str, VariableInfo] = {}
        for name, symbol in flat_tree.classes[model].symbols.items():
            protected = symbol.visibility == ast.Visibility.PROTECTED
            info[name] = VariableInfo(_units(symbol.unit), symbol.comment or "", protected)
        return casadi_model, info

    def _explain(self, model: str, exc: Exception) -> str:
        message = str(exc) or type(exc).__name__
        for known, construct, pattern in UNSUPPORTED:
            if known in message:
                return self._unsupported(model, construct, pattern)
        match = re.search(r"Unknown function (\S+)", message)
        if match:
            name = match.group(1)
            return self._unsupported(model, f"'{name}(...)'", rf"\b{re.escape(name)}\s*\(")
        first = message.splitlines()[0] if message else message
        return f"{model}: the Modelica front end (pymoca) failed: {first}"

    def _unsupported(self, model: str, construct: str, pattern: str) -> str:
        places = self._find(pattern, model.split(".")[-1])
        where = f" at {', '.join(places)}" if places else ""
        return (
            f"{model}: unsupported Modelica construct {construct}{where}; "
            "the pymoca backend does not translate it (rewrite it with supported operators)"
        )

    def _find(self, pattern: str, model: str) -> list[str]:
        """``file:line`` places matching ``pattern``: in the model's own class when it has
        them, else anywhere in the library (e.g. in a base class)."""
        regex = re.compile(pattern)
        inside, anywhere = [], []
        for path in self.files:
            within = False
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.match(rf"\s*(?:\w+\s+)*(?:{'|'.join(EXPORTED)})\s+{model}\b", line):
                    within = True
                if regex.search(line):
                    place = f"{path.relative_to(self.folder.parent)}:{number}"
                    (inside if within else anywhere).append(place)
                if re.match(rf"\s*end\s+{model}\s*;", line):
                    within = False
        return (inside or anywhere)[:5]


def _name_functions(flat_tree: ast.Tree) -> None:
    """Give functions declared in packages (``Lib.Math.sq``) names CasADi accepts.

    pymoca names the CasADi function after the flattened class, dots included, which CasADi
    refuses; calls still find the class under its Modelica name.
    """
    for cls in flat_tree.classes.values():
        if cls.type == "function":
            cls.name = re.sub(r"\W", "_", cls.name)


def _constant(expression: object) -> float | None:
    """The value of a number literal, signed or not (``4``, ``-1``, ``1e-6``), else None."""
    if isinstance(expression, ast.Expression) and len(expression.operands) == 1:
        value = _constant(expression.operands[0])
        if value is None or expression.operator not in ("-", "+"):
            return None
        return -value if expression.operator == "-" else value
    value = getattr(expression, "value", None)
    if isinstance(expression, ast.Primary) and type(value) in (int, float):
        return float(value)
    return None


def _units(unit: ast.Primary | ast.Array) -> tuple[str, ...]:
    if isinstance(unit, ast.Array):
        return tuple(str(getattr(element, "value", "") or "") for element in unit.values)
    return (str(getattr(unit, "value", None) or ""),)


def load_library(folder: Path) -> ModelicaLibrary:
    """Parse every ``.mo`` file below ``folder`` into one class tree."""
    files = sorted(folder.rglob("*.mo"))
    if not files:
        raise BuildError(f"{folder}: no Modelica (.mo) files found")
    root: ast.Tree | None = None
    for path in files:
        try:
            parsed = parser.parse(path.read_text(encoding="utf-8"))
        except Exception as exc:
            raise BuildError(f"{path}: Modelica syntax not understood: {exc}") from exc
        if parsed is None:
            raise BuildError(f"{path}: Modelica syntax not understood")
        if root is None:
            root = parsed
        else:
            root.extend(parsed)
    assert root is not None
    return ModelicaLibrary(folder=folder, files=files, root=root)
