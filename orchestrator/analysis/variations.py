"""What a sweep varies: any scenario value, drawn from a distribution, checked before any case.

A variation is ``KEY=DISTRIBUTION``. KEY is a scenario key as error messages name it:
``components.rov.parameters.data.m``, ``components.rov.start.p[3]``,
``controllers.autopilot.gains.depth.kp``, ``environment.current[1]`` (array items counted
from 0; FMU variables named as the FMU names them, ``p[3]``), or ``COMPONENT.VARIABLE``, short
for ``components.COMPONENT.start.VARIABLE``. A start value ``yaw`` (deg) sets the quaternion
``q[1..4]`` of a body heading that way, level. DISTRIBUTION is ``uniform(LOW,HIGH)`` (or
``LOW:HIGH``), ``normal(MEAN,SIGMA)``, ``choice(A,B,...)`` (numbers, true/false or text) or
``grid(LOW,HIGH,N)`` (N values, both ends included).

The cases are every combination of the grids' values (one combination without grids), each
with ``runs`` draws of the other variations: NumPy's default generator seeded with ``seed``
draws one number in [0, 1) per case and random variation, case after case (so
``uniform(LOW,HIGH)`` is ``Generator.uniform`` to the bit), mapped to the value by the
variation (its quantile function). With the design ``lhs`` the uniform and normal variations
take their numbers from a Latin hypercube over all cases instead (``scipy.stats.qmc``, seeded
by the same generator): each variation's range is cut into as many equally likely strata as
there are cases, one case in each.

Every variation is checked before any case starts (:func:`check`): the key exists, an FMU
variable exists and may be set there with each drawn value, and every case's scenario
validates; a bad one is one line naming the ``--vary`` and what was expected.
"""

from __future__ import annotations

import copy
import difflib
import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import numpy as np
from pydantic import BaseModel
from scipy.special import ndtri
from scipy.stats import qmc

from orchestrator.errors import FMUError, ScenarioError
from orchestrator.kinematics import quaternion_from_euler
from orchestrator.scenario.model import Scenario, UserControllerConfig
from orchestrator.scenario.reading import _inner, validate_scenario

KINDS = ("uniform", "normal", "choice", "grid")
DESIGNS = ("random", "lhs")
Value = float | int | bool | str
Step = str | int  # a key of a table, or an index of an array
# A sweep with no grid runs this many cases unless told otherwise.
DEFAULT_RUNS = 30
FMU_TABLES = ("parameters", "start")
HEADING = "yaw"  # deg: a start value that sets the quaternion q[1..4], level
EXPECTED = (
    "expected KEY=uniform(LOW,HIGH), normal(MEAN,SIGMA), choice(A,B,...), grid(LOW,HIGH,N) "
    "or COMPONENT.VARIABLE=LOW:HIGH"
)


@dataclass(frozen=True)
class Variation:
    """One varied scenario value: its key (as steps into the scenario's tables), the kind of
    distribution and its arguments (numbers, or the choices), and the column of the table."""

    text: str  # as given, for messages
    name: str  # the table's column: COMPONENT.VARIABLE for the short form, else the key
    path: tuple[Step, ...]
    kind: str
    args: tuple[Value, ...]

    @classmethod
    def parse(cls, text: str) -> Variation:
        """``KEY=DISTRIBUTION`` (module docstring); a bad one is one line naming ``text``."""
        key, equals, spec = text.strip().partition("=")
        key, spec = key.strip(), spec.strip()
        if not equals or not key or not spec:
            raise ScenarioError(f"--vary '{text}': {EXPECTED}")
        first = re.split(r"[.\[]", key, maxsplit=1)[0]
        short = first not in Scenario.model_fields and re.fullmatch(r"[A-Za-z_]\w*\.[^.].*", key)
        if short:
            component, variable = key.split(".", 1)
            path: tuple[Step, ...] = ("components", component, "start", variable)
        else:
            path = _steps(key, text)
        kind, args = _distribution(spec, text)
        return cls(text, key if short else _key(path), path, kind, args)

    @property
    def is_fmu_variable(self) -> bool:
        """Whether the key is a parameter or start value of a component's FMU."""
        return len(self.path) == 4 and self.path[0] == "components" and self.path[2] in FMU_TABLES

    def canonical(self) -> str:
        """The variation as a manifest records it (a resumed sweep must have the same)."""
        if self.kind == "uniform" and self.name != _key(self.path):
            return f"{self.name}={self.args[0]!r}:{self.args[1]!r}"
        return f"{self.name}={self.kind}({', '.join(repr(a) for a in self.args)})"

    def grid(self) -> list[Value]:
        """The values of a grid, low to high."""
        low, high, count = self.args
        return [float(v) for v in np.linspace(low, high, int(count))]

    def value(self, u: float) -> Value:
        """The value at probability ``u`` in [0, 1) (its quantile)."""
        if self.kind == "uniform":
            low, high = self.args
            return float(low + (high - low) * u)
        if self.kind == "normal":
            mean, sigma = self.args
            return float(mean + sigma * ndtri(u))
        return self.args[min(int(u * len(self.args)), len(self.args) - 1)]


def _key(path: tuple[Step, ...]) -> str:
    """The key of ``path`` as error messages write it (``environment.current[1]``)."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else f".{step}" if text else step
    return text


def _steps(key: str, text: str) -> tuple[Step, ...]:
    """The steps of a full key; after ``parameters`` or ``start`` of a component, the rest
    is one FMU variable name."""
    steps: list[Step] = []
    rest = key
    while rest:
        if len(steps) == 3 and steps[0] == "components" and steps[2] in FMU_TABLES:
            steps.append(rest)
            break
        match = re.match(r"([^.\[\]]+)((?:\[\d+\])*)(?:\.(?=.)|$)", rest)
        if not match:
            raise ScenarioError(f"--vary '{text}': '{key}' is not a scenario key; {EXPECTED}")
        steps += [match[1], *(int(i) for i in re.findall(r"\d+", match[2]))]
        rest = rest[match.end() :]
    return tuple(steps)


def _number(item: str, text: str) -> float:
    try:
        value = float(item)
    except ValueError:
        raise ScenarioError(f"--vary '{text}': '{item}' is not a number") from None
    if not math.isfinite(value):
        raise ScenarioError(f"--vary '{text}': '{item}' is not a finite number")
    return value


def _choice(item: str) -> Value:
    """A choice as written: a number, true/false, or text (quotes optional)."""
    if item in ("true", "false"):
        return item == "true"
    if re.fullmatch(r"[+-]?\d+", item):
        return int(item)
    try:
        value = float(item)
    except ValueError:
        return item[1:-1] if len(item) > 1 and item[0] == item[-1] and item[0] in "'\"" else item
    return value if math.isfinite(value) else item


def _distribution(spec: str, text: str) -> tuple[str, tuple[Value, ...]]:
    """The kind and arguments of DISTRIBUTION, checked."""
    legacy = re.fullmatch(r"([^:()]+):([^:()]+)", spec)
    call = re.fullmatch(r"(\w+)\((.*)\)", spec)
    if legacy:
        kind, items = "uniform", [legacy[1].strip(), legacy[2].strip()]
    elif call and call[1] in KINDS:
        kind, items = call[1], [i.strip() for i in call[2].split(",")]
    else:
        raise ScenarioError(f"--vary '{text}': {EXPECTED}")
    if kind == "choice":
        if not all(items):
            raise ScenarioError(f"--vary '{text}': expected choice(A,B,...) with no empty item")
        return kind, tuple(_choice(i) for i in items)
    needed = {"uniform": "(LOW,HIGH)", "normal": "(MEAN,SIGMA)", "grid": "(LOW,HIGH,N)"}[kind]
    if len(items) != len(needed.split(",")):
        raise ScenarioError(f"--vary '{text}': expected {kind}{needed}")
    numbers = tuple(_number(i, text) for i in items)
    if kind in ("uniform", "grid") and numbers[1] < numbers[0]:
        raise ScenarioError(f"--vary '{text}': LOW must not exceed HIGH")
    if kind == "normal" and numbers[1] < 0:
        raise ScenarioError(f"--vary '{text}': SIGMA must not be negative")
    if kind == "grid" and (numbers[2] < 1 or not numbers[2].is_integer()):
        raise ScenarioError(f"--vary '{text}': N must be a whole number of at least 1")
    return kind, numbers


def default_runs(variations: list[Variation]) -> int:
    """Draws per grid point when not given: one when everything varied is a grid."""
    if variations and all(v.kind == "grid" for v in variations):
        return 1
    return DEFAULT_RUNS


def draw(
    variations: list[Variation], runs: int, seed: int, design: str = "random"
) -> list[dict[str, Value]]:
    """The varied values of every case, by column name (module docstring)."""
    if design not in DESIGNS:
        raise ScenarioError(f"--design '{design}': expected one of {', '.join(DESIGNS)}")
    grids = [v for v in variations if v.kind == "grid"]
    drawn = [v for v in variations if v.kind != "grid"]
    points = list(itertools.product(*(v.grid() for v in grids)))
    count = len(points) * runs
    rng = np.random.default_rng(seed)
    u = rng.random((count, len(drawn)))
    stratified = [k for k, v in enumerate(drawn) if v.kind in ("uniform", "normal")]
    if design == "lhs" and stratified:
        u[:, stratified] = qmc.LatinHypercube(d=len(stratified), rng=rng).random(count)
    cases = []
    for k in range(count):
        values = dict(zip((v.name for v in grids), points[k // runs], strict=True))
        values |= {v.name: v.value(u[k, j]) for j, v in enumerate(drawn)}
        cases.append({v.name: values[v.name] for v in variations})
    return cases


def _without_none(data: Any) -> Any:  # noqa: ANN401 - scenario data of any shape
    """Scenario data as a file holds it: keys whose value is None (at their default) left out."""
    if isinstance(data, dict):
        return {k: _without_none(v) for k, v in data.items() if v is not None}
    if isinstance(data, list | tuple):
        return [_without_none(v) for v in data]
    return data


def apply(data: dict, defaults: dict, variation: Variation, value: Value) -> None:
    """Set ``value`` at the variation's key in the scenario data ``data`` (as read from the
    file), taking tables and arrays it does not hold from ``defaults`` (the validated
    scenario's, as ``model_dump(by_alias=True)`` gives them)."""
    node, default = data, defaults
    *steps, last = variation.path
    for step in steps:
        default = default[step] if default is not None and _holds(default, step) else None
        if not _holds(node, step):
            node[step] = {} if default is None else copy.deepcopy(_without_none(default))
        node = node[step]
    if variation.is_fmu_variable and last == HEADING:
        q = quaternion_from_euler(0.0, 0.0, math.radians(float(value)))
        node |= {f"q[{i + 1}]": float(q[i]) for i in range(4)}
    else:
        node[last] = value


def _holds(node: Any, step: Step) -> bool:  # noqa: ANN401 - scenario data
    if isinstance(step, int):
        return isinstance(node, list | tuple) and step < len(node)
    return isinstance(node, dict) and step in node


def _scalar(annotation: Any) -> bool:  # noqa: ANN401 - typing objects
    """Whether a key of this type holds one value (not a table or an array)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _scalar(get_args(annotation)[0])
    if origin in (Union, UnionType):
        return all(_scalar(a) for a in get_args(annotation))
    return origin is Literal or annotation in (float, int, bool, str, NoneType, Any)


def _member(annotation: Any, data: Any) -> Any:  # noqa: ANN401 - typing objects
    """The type of a controller's table (a union told apart by ``type``), else the type."""
    base = get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation
    if get_origin(base) in (Union, UnionType) and isinstance(data, dict) and "type" in data:
        return _inner(annotation, data["type"]) or annotation
    return annotation


def _free(annotation: Any) -> bool:  # noqa: ANN401 - typing objects
    """Whether a table of this type takes keys of any name (a component's parameters and
    start values, a user controller's settings), not only those it holds."""
    return get_origin(annotation) is dict and _scalar(get_args(annotation)[1])


def _integer(annotation: Any) -> bool:  # noqa: ANN401 - typing objects
    """Whether a key of this type takes whole numbers and no others."""
    members = set(get_args(annotation)) - {NoneType} if get_origin(annotation) else {annotation}
    return members == {int}


def _known(annotation: Any) -> list[str]:  # noqa: ANN401 - typing objects
    while get_origin(annotation) in (Annotated, Union, UnionType):
        members = [a for a in get_args(annotation) if a is not NoneType]
        annotation = members[0]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [f.alias or n for n, f in annotation.model_fields.items()]
    return []


def _check_key(variation: Variation, dump: dict) -> Any:  # noqa: ANN401 - typing objects
    """The key exists in the scenario (its tables, entries, array items) and holds one value;
    its type."""
    annotation: Any = Scenario
    data: Any = dump
    for index, step in enumerate(variation.path):
        where = _key(variation.path[:index]) or "the scenario"
        if isinstance(step, int):
            if not isinstance(data, list | tuple) or step >= len(data):
                size = f"{len(data)} items" if isinstance(data, list | tuple) else "no items"
                raise ScenarioError(
                    f"--vary '{variation.text}': {where} has {size}, no item [{step}] "
                    "(items are counted from 0)"
                )
        elif not isinstance(data, dict) or (step not in data and not _free(annotation)):
            known = _known(annotation) or list(data or {})
            close = difflib.get_close_matches(str(step), known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"expected one of {', '.join(known)}"
            raise ScenarioError(f"--vary '{variation.text}': {where}: no key '{step}' ({hint})")
        inner = _inner(annotation, step)
        data = data[step] if _holds(data, step) else None
        annotation = _member(inner, data)
        if get_origin(annotation) is dict and data is None:
            data = {}
    if not _scalar(annotation):
        raise ScenarioError(
            f"--vary '{variation.text}': {_key(variation.path)} is a table or an array; "
            "expected the key of one value"
        )
    return annotation


def check(
    variations: list[Variation],
    cases: list[dict[str, Value]],
    base: dict,
    folder: Path,
    fmu_dir: Path,
) -> list[dict]:
    """Every case's scenario data (``base`` with its values), checked before any case runs:
    the keys exist and hold one value, FMU variables exist and may be set there with every
    drawn value, and every case validates as a scenario. ``folder``: the scenario's folder;
    ``fmu_dir``: where FMUs named without ``.fmu`` are. Whole numbers drawn for a key of
    integers (``grid(1,10,10)`` for ``simulation.step_limit``) become ints in ``cases``."""
    names = [v.name for v in variations]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise ScenarioError(f"--vary: '{duplicate}' is varied twice")
    dump = validate_scenario(base).model_dump(by_alias=True)
    for variation in variations:
        if _integer(_check_key(variation, dump)):
            for values in cases:
                value = values[variation.name]
                if isinstance(value, float) and value.is_integer():
                    values[variation.name] = int(value)
    for component, group in {v.path[1:3] for v in variations if v.is_fmu_variable}:
        _check_fmu(variations, cases, component, group, base, folder, fmu_dir)
    texts = []
    for k, values in enumerate(cases):
        data = copy.deepcopy(base)
        for variation in variations:
            apply(data, dump, variation, values[variation.name])
        try:
            _check_user_settings(validate_scenario(data, "case"), variations, folder)
        except ScenarioError as exc:
            detail = str(exc).removeprefix("case: ")
            given = [v.text for v in variations if detail.startswith(_key(v.path))]
            named = given or [v.text for v in variations]
            raise ScenarioError(
                f"--vary {', '.join(repr(t) for t in named)}: case {k}: {detail}"
            ) from None
        texts.append(data)
    return texts


def _check_user_settings(scenario: Scenario, variations: list[Variation], folder: Path) -> None:
    """The varied settings of a user's controller taken by its class's ``Settings`` model, as
    the run will check them (``folder``: the scenario's folder)."""
    from orchestrator.controllers.user import check_user_settings

    varied = {v.path[1] for v in variations if v.path[0] == "controllers" and len(v.path) > 2}
    for name in sorted(varied, key=str):
        config = scenario.controllers.get(str(name))
        if isinstance(config, UserControllerConfig):
            module_folder = folder / config.module_folder if config.module_folder else folder
            check_user_settings(str(name), config, "case", module_folder)


def _check_fmu(
    variations: list[Variation],
    cases: list[dict[str, Value]],
    component: Step,
    group: Step,
    base: dict,
    folder: Path,
    fmu_dir: Path,
) -> None:
    """The component's FMU has each varied variable of ``group``, settable there, and takes
    every drawn value (the checks of a run's set-up)."""
    from orchestrator.fmi.fmu import FMU
    from orchestrator.system.system import SETTABLE

    name = str(base["components"][component]["fmu"])
    fmu = FMU(folder / name if name.endswith(".fmu") else fmu_dir / f"{name}.fmu")
    try:
        for variation in variations:
            if variation.path[1:3] != (component, group):
                continue
            variable = str(variation.path[3])
            heading = group == "start" and variable == HEADING
            for settable in [f"q[{i}]" for i in range(1, 5)] if heading else [variable]:
                _check_variable(variation, fmu, settable, str(group), SETTABLE)
            for values in [] if heading else cases:
                try:
                    fmu.checked_value(variable, values[variation.name])
                except FMUError as exc:
                    raise ScenarioError(f"--vary '{variation.text}': {exc}") from None
    finally:
        fmu.close()


def _check_variable(
    variation: Variation,
    fmu: Any,  # noqa: ANN401 - an orchestrator.fmi.fmu.FMU
    variable: str,
    group: str,
    settable: dict[str, tuple[str, ...]],
) -> None:
    if variable not in fmu.variables:
        raise ScenarioError(
            f"--vary '{variation.text}': no variable '{variable}' in {fmu.path.name}"
            f"{fmu.suggest(variable)}"
        )
    causality = fmu.variables[variable].causality
    if causality not in settable[group]:
        other = next(g for g in FMU_TABLES if g != group)
        hint = (
            f" (did you mean components.{variation.path[1]}.{other}.{variable}?)"
            if causality in settable[other]
            else ""
        )
        raise ScenarioError(
            f"--vary '{variation.text}': '{variable}' is a(n) {causality}, not settable in "
            f"{group}{hint}"
        )
