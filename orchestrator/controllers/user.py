"""Controllers of a user's own: a class named in a scenario, or an object given in Python.

A scenario names the class by import path (``class = "my_package.module:MyController"``); it is
imported (the scenario file's folder first on the import path, so a module beside the
scenario is found), its ``Settings`` pydantic model (if it has one) checks the table's
``settings``, and ``Class(name, sample_time, settings)`` makes the controller, which declares
its ``inputs`` and ``outputs`` as the built-in controllers do (see
:class:`orchestrator.controllers.base.Controller`). Every failure is one line naming the
scenario key: a module or class that cannot be imported, a class that is no Controller,
settings its model refuses or does not declare, a constructor that raises, declared signals
that are not lists of names, declared event kinds that are not a tuple of names.
"""

from __future__ import annotations

import difflib
import importlib
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from orchestrator.controllers.base import Controller
from orchestrator.errors import ScenarioError
from orchestrator.scenario.model import UserControllerConfig


def user_controller(
    name: str, config: UserControllerConfig, source: str, folder: Path
) -> Controller:
    """The controller ``name`` of the scenario ``source`` (its file's ``folder`` searched
    first for the class's module)."""
    key = f"{source}: controllers.{name}"
    cls = _imported(config.class_, f"{key}.class", folder)
    settings = _settings(cls, config, key)
    try:
        controller = cls(name, config.sample_time, settings)
    except Exception as exc:  # noqa: BLE001 - a user's constructor may raise anything
        raise ScenarioError(f"{key}: {config.class_}: {type(exc).__name__}: {exc}") from None
    controller.latency = config.latency
    checked(controller, key)
    return controller


def check_user_settings(name: str, config: UserControllerConfig, source: str, folder: Path) -> None:
    """The checks of :func:`user_controller` short of making the controller: the class
    imports and its ``Settings`` model takes the settings (a sweep checks every case so
    before any starts)."""
    key = f"{source}: controllers.{name}"
    _settings(_imported(config.class_, f"{key}.class", folder), config, key)


def declared_event_kinds(
    name: str, config: UserControllerConfig, source: str, folder: Path
) -> tuple[str, ...]:
    """The kinds of event the class of controller ``name`` declares (its ``event_kinds``)."""
    key = f"{source}: controllers.{name}"
    return _event_kinds(_imported(config.class_, f"{key}.class", folder), key)


def _event_kinds(controller: object, key: str) -> tuple[str, ...]:
    """``controller``'s ``event_kinds``, or a ScenarioError at ``key`` if they are not a tuple
    of names."""
    kinds = getattr(controller, "event_kinds", ())
    if not isinstance(kinds, tuple) or not all(isinstance(k, str) and k for k in kinds):
        raise ScenarioError(f"{key}: event_kinds: expected a tuple of event names, got {kinds!r}")
    return kinds


def _settings(cls: type, config: UserControllerConfig, key: str) -> Any:  # noqa: ANN401
    """``config.settings`` validated by the class's ``Settings`` model; as given (a table)
    when the class has none."""
    model = getattr(cls, "Settings", None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return config.settings
    _no_unknown_settings(model, config.settings, f"{key}.settings")
    try:
        return model.model_validate(config.settings)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise ScenarioError(f"{key}.settings.{where}: {error['msg']}") from None


def _no_unknown_settings(model: type[BaseModel], settings: dict[str, Any], key: str) -> None:
    """A setting that ``model`` does not declare is refused (pydantic's default would drop
    it, so a misspelt gain would leave the default in force); a model that sets ``extra``
    itself decides."""
    if model.model_config.get("extra") is not None:
        return
    known = [field.alias or name for name, field in model.model_fields.items()]
    for name in settings:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"expected one of {', '.join(known)}"
            raise ScenarioError(f"{key}.{name}: unknown setting of {model.__qualname__} ({hint})")


def checked(controller: object, key: str) -> Controller:
    """``controller`` if it is a Controller with a name, a positive sample time and lists of
    signal names as inputs and outputs (outputs not empty); else a ScenarioError at ``key``."""
    if not isinstance(controller, Controller):
        raise ScenarioError(f"{key}: {type(controller).__name__} is not a murcosim.Controller")
    for what in ("inputs", "outputs"):
        names = getattr(controller, what, None)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ScenarioError(f"{key}: {what}: expected a list of signal names")
    if not controller.outputs:
        raise ScenarioError(f"{key}: outputs: the controller declares no output")
    _event_kinds(controller, key)
    if not (isinstance(controller.sample_time, float | int) and controller.sample_time > 0):
        raise ScenarioError(f"{key}: sample_time: expected a positive number of seconds")
    return controller


# Top-level module name -> the folder a scenario imported it from (its file inside it).
_FOLDERS: dict[str, Path] = {}


def _imported(path: str, key: str, folder: Path) -> type:
    module_name, _, class_name = path.partition(":")
    folder = folder.resolve()
    top = module_name.partition(".")[0]
    if _FOLDERS.get(top, folder) != folder:
        # a module of that name beside another scenario, imported earlier in this process,
        # would be found in sys.modules and used instead of this scenario's
        for name in [n for n in sys.modules if n == top or n.startswith(f"{top}.")]:
            del sys.modules[name]
        del _FOLDERS[top]
        importlib.invalidate_caches()
    added = str(folder)
    sys.path.insert(0, added)
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - an import runs the user's module
        raise ScenarioError(
            f"{key}: cannot import '{module_name}' ({type(exc).__name__}: {exc})"
        ) from None
    finally:
        sys.path.remove(added)
    file = getattr(sys.modules.get(top), "__file__", None)
    if file is not None and Path(file).resolve().is_relative_to(folder):
        _FOLDERS[top] = folder
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise ScenarioError(f"{key}: module '{module_name}' has no class '{class_name}'")
    return cls
