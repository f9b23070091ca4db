"""External functions in C called from a model's generated code.

A Modelica function declared ``external "C"`` (Modelica Language Specification 3.6, Sec. 12.9)
names a C function, the arguments it passes (inputs, outputs, ``size(a, 1)``) and where its
code is: ``Include`` (C text placed before the call, usually ``#include "f.c"``),
``IncludeDirectory`` (default ``modelica://<top package>/Resources/Include``), ``Library`` and
``LibraryDirectory`` (default ``modelica://<top package>/Resources/Library``). ``modelica://``
URIs are resolved on the library path, as the libraries themselves are.

Each call signature (a function and the sizes of its arrays) becomes a C wrapper with
CasADi's external-function interface (``int f(const double** arg, double** res, ...)``):
it maps CasADi's dense inputs to the C arguments of Sec. 12.9.1 (Real, Integer and Boolean
scalars by value, their arrays as ``const double*`` or ``const int*`` in row-major order,
output arrays as ``double*``, sizes as ``int``) and the return value and output arrays back.
The wrapper is compiled with the user's sources into a shared library loaded by
``casadi.external`` while the model is translated, so the call is one node of the CasADi
expressions; CasADi's generated C calls the
wrapper by name, and the FMU compiles all wrappers of the model in one file,
``model_external.c``, which goes into the FMU's ``sources/`` with the files the ``Include``
texts include.

A ``derivative`` annotation that names a function external in C too, of the inputs and the
derivatives of those not declared ``zeroDerivative`` (Sec. 12.7.1), is the call's forward
derivative (``fwd1_<wrapper>``, which CasADi looks for beside the wrapper) in the FMU's
directional derivatives; it reports an error where a ``zeroDerivative`` input's derivative is
not zero. Without one, CasADi's central finite differences stand for it. Where the build
itself differentiates an external call, it refuses the model (:func:`refuse_in_jacobian`):
Newton's method in the generated code (a nonlinear loop, initial equations solved by Newton),
because CasADi 3.8 does not generate the code of a ``fast_newton`` root finder whose equations
call one, and index reduction, whose choice of dummy derivatives differentiates twice.
"""

from __future__ import annotations

import ctypes.util
import hashlib
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import casadi as ca
import numpy as np

from orchestrator.compiler.impure_statements import EFFECT_OUTPUT

FINITE_DIFFERENCES = {"enable_fd": True, "fd_method": "central"}
C_FLAGS = ["-O2", "-fPIC", "-std=c99", "-w"]
PREFIX = "mcx_"  # C symbols of the wrappers
# The POSIX and BSD declarations of the C library (glibc's feature-test macro), which strict
# C99 (-std=c99) hides: external C written for POSIX calls them (the MSL's ModelicaInternal.c
# localtime_r, putenv), and a function called undeclared is taken to return an int, so the
# pointer localtime_r returns was cut to 32 bits and read (a segmentation fault of the build's
# process in MSL's automaticGlobalSeed while the model was translated, and of the FMU's)
POSIX = "-D_DEFAULT_SOURCE"
# What the wrappers call of external_runtime.c in the FMU; while the model is translated, the
# ModelicaUtilities (MLS 3.6, Sec. 12.9.6) of their own wrapper's library: an error jumps back
# to the wrapper, which fails, its text kept for the build's message (mcx_failure). Without
# them a ModelicaError called while translating (a library compiled from its sources calls it)
# ended the build's process: "symbol lookup error: ... undefined symbol: ModelicaError"
RUNTIME = """#include <setjmp.h>
#include <stddef.h>
#ifndef MCX_TRANSLATION
jmp_buf* external_catch(jmp_buf* handler);
void external_strings_release(void);
void* external_slot(int k);
int external_stale(void* slot, const double* arguments, size_t n);
int external_keep(void* slot, void* object, void (*destruct)(void*), const double* arguments,
                  size_t n);
void* external_object(double k);
#else
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static jmp_buf* mcx_catcher = NULL;
char mcx_failure[512];
static jmp_buf* external_catch(jmp_buf* handler) {
    jmp_buf* before = mcx_catcher;
    mcx_catcher = handler;
    return before;
}
static void external_strings_release(void) {}
void ModelicaVFormatMessage(const char* format, va_list args) { (void) format; (void) args; }
void ModelicaFormatMessage(const char* format, ...) { (void) format; }
void ModelicaMessage(const char* text) { (void) text; }
void ModelicaVFormatWarning(const char* format, va_list args) { (void) format; (void) args; }
void ModelicaFormatWarning(const char* format, ...) { (void) format; }
void ModelicaWarning(const char* text) { (void) text; }
void ModelicaVFormatError(const char* format, va_list args) {
    vsnprintf(mcx_failure, sizeof mcx_failure, format, args);
    if (mcx_catcher) longjmp(*mcx_catcher, 1);
    abort();
}
void ModelicaFormatError(const char* format, ...) {
    va_list args;
    va_start(args, format);
    ModelicaVFormatError(format, args);
    va_end(args);
}
void ModelicaError(const char* text) { ModelicaFormatError("%s", text); }
char* ModelicaAllocateStringWithErrorReturn(size_t length) { return calloc(length + 1, 1); }
char* ModelicaAllocateString(size_t length) {
    char* text = ModelicaAllocateStringWithErrorReturn(length);
    if (!text) ModelicaFormatError("ModelicaAllocateString: no memory for %zu characters", length);
    return text;
}
char* ModelicaDuplicateStringWithErrorReturn(const char* text) {
    char* copy = ModelicaAllocateStringWithErrorReturn(strlen(text));
    if (copy) strcpy(copy, text);
    return copy;
}
char* ModelicaDuplicateString(const char* text) {
    return strcpy(ModelicaAllocateString(strlen(text)), text);
}
#endif"""
# the input a guarded call (see ExternalFunctions.call) takes after the function's own
GUARD_INPUT = {"name": "when_fires", "type_name": "Real"}
_MODELICA_NAMES: dict[str, str] = {}  # the Modelica function of each wrapper, by C symbol


class ExternalError(Exception):
    """An external function this build cannot call: one line, and the source span of the
    declaration it is about where it names one."""

    def __init__(self, message: str, span: dict | None = None) -> None:
        super().__init__(message)
        self.span = span


@dataclass
class _Wrapper:
    """One call signature's C wrapper: its Include text, its code and its CasADi function."""

    name: str
    include: str
    code: str
    function: ca.Function


@dataclass
class ExternalFunctions:
    """The external C functions one model calls, for the build and for its FMUs.

    ``roots`` are the folders holding the top-level packages (the user's library's parent
    and the library path), where ``modelica://`` URIs are resolved; ``locate`` gives the file
    of a source span (where a function is declared: its top-level package is the default
    home of its include files)."""

    roots: list[Path]
    locate: Callable[[dict | None], Path | None] = lambda span: None
    wrappers: dict[str, _Wrapper] = field(default_factory=dict)
    include_dirs: list[Path] = field(default_factory=list)
    library_dirs: list[Path] = field(default_factory=list)
    libraries: list[str] = field(default_factory=list)
    included: list[Path] = field(default_factory=list)  # files the Include texts include
    # Library entries without a prebuilt library, compiled from their C sources instead
    compiled: dict[str, list[Path]] = field(default_factory=dict)
    objects: int = 0  # external objects constructed, each in a slot of its own
    shared: dict[str, Path] = field(default_factory=dict)  # each wrapper's library, translating

    def call(
        self,
        definition: dict,
        inputs: list[object],
        outputs: list[list[int]],
        arguments: list[tuple[str, object]],
        derivative: tuple[dict, list[tuple[str, object]], list[str]] | None = None,
        construction: tuple[int, str] | None = None,
        guard: ca.SX | None = None,
    ) -> list[object]:
        """The outputs of the external function ``definition`` applied to the values of its
        ``inputs`` (scalars or object arrays), its outputs of dimensions ``outputs``;
        ``arguments`` are the C call's arguments as ``("input", k)``, ``("output", k)`` or
        ``("literal", number)``, and ``("return", k)`` for the output it returns
        (``("effect", k)``: the C function returns nothing and output ``k`` is 0 after the
        call, :mod:`orchestrator.compiler.impure_statements`).
        ``derivative`` is its ``derivative`` annotation's function (external in C), that
        function's arguments and, per input, rumoca's ``Differentiate`` or
        ``ZeroDerivative``: the call's forward derivative (none: finite differences).
        String inputs (``str`` values) are passed as C string literals. ``construction`` is
        the slot and the destructor's C name where ``definition`` is an external object's
        constructor (:mod:`orchestrator.compiler.external_objects`). With ``guard`` (a
        symbol) the wrapper takes it as one more input and calls the C function only where it
        is not 0, giving 0 for each output otherwise: a when-equation's body calls its
        functions only when the branch fires (an external object may change its own state at
        each call, as the MSL's time tables advance their event interval)."""
        if any(isinstance(v, str) for v in inputs):
            kept = [k for k, v in enumerate(inputs) if not isinstance(v, str)]
            arguments = [
                ("string", inputs[v])
                if kind == "input" and isinstance(inputs[v], str)
                else ((kind, kept.index(v)) if kind == "input" else (kind, v))
                for kind, v in arguments
            ]
            definition = {**definition, "inputs": [definition["inputs"][k] for k in kept]}
            inputs = [inputs[k] for k in kept]
        if guard is not None:
            definition = {**definition, "inputs": [*definition["inputs"], GUARD_INPUT]}
            inputs = [*inputs, guard]
            derivative = None  # a when-equation's values are not differentiated
        shapes = [list(v.shape) if isinstance(v, np.ndarray) else [] for v in inputs]
        rate_signature = derivative and (derivative[0]["name"], *derivative[1:])
        signature = repr(
            (definition["name"], shapes, outputs, arguments, rate_signature, construction)
        )
        digest = hashlib.sha256(signature.encode()).hexdigest()[:8]
        name = PREFIX + re.sub(r"\W", "_", definition["name"]) + "_" + digest
        if name not in self.wrappers:
            include, code = self._code(
                name, definition, shapes, outputs, arguments, construction, guard is not None
            )
            if derivative is not None:
                rate, rate_arguments, flags = derivative
                varying = [s for s, f in zip(shapes, flags, strict=True) if f == "Differentiate"]
                more, rate_code = self._code(
                    f"{name}_der", rate, shapes + varying, outputs, rate_arguments
                )
                include = "\n".join(dict.fromkeys([include, more]))
                code += "\n" + rate_code + "\n" + _forward_code(name, shapes, outputs, flags)
            function = self._load(name, definition["name"], include, code, derivative is None)
            self.wrappers[name] = _Wrapper(name, include, code, function)
            _MODELICA_NAMES[name] = definition["name"]
        function = self.wrappers[name].function
        flat = [ca.vertcat(*np.ravel(np.asarray(v, dtype=object)).tolist()) for v in inputs]
        try:
            results = function(*flat)
        except RuntimeError:  # of constant arguments, it failed while translating
            failure = ctypes.c_char.in_dll(ctypes.CDLL(str(self.shared[name])), "mcx_failure")
            text = ctypes.string_at(ctypes.addressof(failure)).decode(errors="replace")
            raise ExternalError(
                f"external function '{definition['name']}' failed while the model was "
                f"translated: {' '.join(text.split()) or 'no message'}"
            ) from None
        if isinstance(results, dict):  # of no inputs (String arguments alone): by name
            results = [results[n] for n in function.name_out()]
        # a call of constant arguments alone is evaluated here, a DM
        results = [ca.SX(r) for r in ([results] if isinstance(results, ca.SX | ca.DM) else results)]
        values: list[object] = []
        for result, dims in zip(results, outputs, strict=True):
            elements = ca.vertsplit(result)
            if not dims:
                values.append(elements[0])
                continue
            array = np.empty(len(elements), dtype=object)
            for k, element in enumerate(elements):
                array[k] = element
            values.append(array.reshape(dims))
        return values

    def _code(
        self,
        name: str,
        definition: dict,
        shapes: list[list[int]],
        outputs: list[list[int]],
        arguments: list[tuple[str, object]],
        construction: tuple[int, str] | None = None,
        guarded: bool = False,
    ) -> tuple[str, str]:
        """The Include text and the C wrapper ``name`` of one call signature of the external
        function ``definition`` (an external object's constructor with ``construction``, its
        last input a guard with ``guarded``)."""
        external = definition["external"]
        c_name = str(external.get("function_name") or "")
        if not re.fullmatch(r"[A-Za-z_]\w*", c_name):
            raise ExternalError(f"external function '{definition['name']}' without a C name")
        types = [_passed_type(d) for d in definition["inputs"]]
        out_types = [d["type_name"] for d in definition["outputs"]]
        if construction is not None:
            out_types = ["Object"]
        for declared, kind in zip(definition["inputs"], types, strict=True):
            if kind not in ("Real", "Integer", "Boolean", "Object"):
                raise ExternalError(
                    f"external function '{definition['name']}': input '{declared['name']}' "
                    f"of type {kind} (Real, Integer and Boolean scalars and arrays are passed)"
                )
        for declared, dims, kind in zip(definition["outputs"], outputs, out_types, strict=True):
            if kind not in ("Real", "Integer", "Boolean", "Object") or (dims and kind == "Object"):
                raise ExternalError(
                    f"external function '{definition['name']}': output '{declared['name']}' "
                    f"of type {kind} (Real, Integer and Boolean scalars and arrays)"
                )
        include = self._sources(definition["name"], self._package(definition), external)
        code = _wrapper_code(
            name, c_name, shapes, outputs, types, out_types, arguments, construction, guarded
        )
        return include, code

    def _package(self, definition: dict) -> str:
        """The top-level package that declares a function: the first folder (or file) of its
        source below a root; the first part of its name where its source is not known."""
        path = self.locate(definition.get("span"))
        for root in self.roots if path is not None else []:
            if path.is_relative_to(root):
                return path.relative_to(root).parts[0].removesuffix(".mo")
        return definition["name"].split(".")[0]

    def _sources(self, function: str, top: str, external: dict) -> str:
        """The Include text of an external declaration of a function of package ``top``,
        its include and library folders added to the build's; an ``#include "file"`` not
        found in them is refused."""
        notes = _annotations(external)
        include = "\n".join(_strings(notes.get("Include")))
        folders = [
            self._resolve(uri, function)
            for uri in _strings(notes.get("IncludeDirectory"))
            or [f"modelica://{top}/Resources/Include"]
        ]
        for folder in folders:
            if folder is not None and folder not in self.include_dirs:
                self.include_dirs.append(folder)
        for quoted in re.findall(r'#\s*include\s+"([^"]+)"', include):
            found = next(
                (f / quoted for f in folders if f is not None and (f / quoted).is_file()), None
            )
            if found is None:
                where = ", ".join(str(u) for u in _strings(notes.get("IncludeDirectory"))) or (
                    f"modelica://{top}/Resources/Include"
                )
                raise ExternalError(
                    f"external function '{function}': Include '#include \"{quoted}\"' not "
                    f"found in {where}",
                    _span(external, "Include"),
                )
            for path in _included_files(found):
                if path not in self.included:
                    self.included.append(path)
        libraries = _strings(notes.get("Library"))
        uris = _strings(notes.get("LibraryDirectory")) or [f"modelica://{top}/Resources/Library"]
        folders_of_libraries = []
        for uri in uris if libraries else []:
            folder = self._resolve(uri, function)
            for candidate in (folder, folder / "linux64" if folder else None):
                if candidate is not None and candidate.is_dir():
                    folders_of_libraries.append(candidate)
        sources = [
            f
            for f in [*folders, self._resolve(f"modelica://{top}/Resources/C-Sources", function)]
            if f is not None
        ]
        for library in libraries:
            if library in self.libraries or library in self.compiled:
                continue
            if any(_prebuilt(folder, library) for folder in folders_of_libraries):
                self.libraries.append(library)
                self.library_dirs += [f for f in folders_of_libraries if f not in self.library_dirs]
                continue
            files = _library_sources(library, sources)
            if files:  # compiled into the FMU from the library's sources
                self.compiled[library] = files
            elif _system_library(library):
                self.libraries.append(library)
            # else: no library and no sources (zlib beside a MAT-file reader built without
            # it); a symbol the FMU then lacks fails its link, naming the symbol
        return include

    def _resolve(self, uri: str, function: str) -> Path | None:
        """The folder a ``modelica://Package/...`` URI names on the library path (None where
        the package is not found: an Include it should hold is then reported missing)."""
        found = re.fullmatch(r"modelica://([\w.]+)(/.*)?", uri)
        if not found:
            raise ExternalError(f"external function '{function}': '{uri}' is not a modelica:// URI")
        parts = found.group(1).split(".")
        rest = (found.group(2) or "").strip("/")
        for root in self.roots:
            folder = root.joinpath(*parts)
            if folder.is_dir():
                return folder / rest if rest else folder
        return None

    def _load(
        self, name: str, modelica: str, include: str, code: str, differences: bool
    ) -> ca.Function:
        """Compile one wrapper with the user's sources and load it into CasADi.

        The shared library's path is part of the CasADi function (and so of the FMU's
        instantiation token): it is named by the hash of what it is built from, so the same
        model builds into the same FMU. The libraries compiled from their C sources are
        compiled into it too: a call of constant arguments is evaluated while the model is
        translated, and a symbol of theirs left unresolved ended the process there (MSL's
        ``hashString`` of an instance name, ``ModelicaExternalC``)."""
        text = _file_text([include], [code])
        flags = ["-DMCX_TRANSLATION", *self.compile_flags(), *self.link_flags()]
        libraries = [p for p in self.library_sources() if p.suffix == ".c"]
        read = [*self.included, *libraries]
        sources = [text, *flags, *(p.read_text(errors="replace") for p in read)]
        digest = hashlib.sha256("\0".join(sources).encode()).hexdigest()[:16]
        folder = Path(tempfile.gettempdir()) / "murcosim-external" / digest
        library = folder / f"lib{name}.so"
        if not library.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=folder) as scratch:
                source = Path(scratch) / f"{name}.c"
                source.write_text(text)
                built = Path(scratch) / library.name
                command = ["cc", *C_FLAGS, "-DMCX_TRANSLATION", *self.compile_flags()]
                command += ["-shared", str(source), *map(str, libraries)]
                done = subprocess.run(
                    [*command, "-o", str(built), *self.link_flags()], capture_output=True, text=True
                )
                if done.returncode:
                    lines = done.stderr.strip().splitlines() or ["(no message)"]
                    told = [ln for ln in lines if "error:" in ln or "cannot find" in ln]
                    first = next(iter(told), lines[0])
                    first = first.replace(scratch + "/", "")
                    raise ExternalError(
                        f"external function '{modelica}': C compilation failed: {first}"
                    )
                built.replace(library)  # whole, even when another build makes it too
        self.shared[name] = library
        return ca.external(name, str(library), FINITE_DIFFERENCES if differences else {})

    def compile_flags(self) -> list[str]:
        """The include folders of the model's external functions, as C compiler flags, and
        :data:`POSIX`; with libraries compiled from their sources, the MSL's switch for the
        placeholder of a user's ``usertab`` (``ModelicaStandardTablesUsertab.c``), which its
        tables call."""
        flags = [flag for folder in self.include_dirs for flag in ("-I", str(folder))]
        return [*flags, POSIX] + (["-DDUMMY_FUNCTION_USERTAB"] if self.compiled else [])

    def link_flags(self) -> list[str]:
        """Library folders and libraries of the model's external functions, as linker flags
        (those compiled from their sources are not among them)."""
        flags = [flag for folder in self.library_dirs for flag in ("-L", str(folder))]
        return flags + [f"-l{lib}" for lib in self.libraries]

    def library_sources(self) -> list[Path]:
        """The C files of the libraries compiled from their sources, each once."""
        return list(dict.fromkeys(p for files in self.compiled.values() for p in files))

    def write_sources(self, folder: Path) -> list[Path]:
        """``model_external.c`` (every wrapper, each Include text once) and copies of the
        files the Include texts include, in ``folder``; the paths written."""
        wrappers = sorted(self.wrappers.values(), key=lambda w: w.name)
        includes = list(dict.fromkeys(w.include for w in wrappers))
        target = folder / "model_external.c"
        target.write_text(_file_text(includes, [w.code for w in wrappers]))
        copies = []
        for path in dict.fromkeys([*self.included, *self.library_sources()]):
            copy = folder / path.name
            if copy.exists():  # sources/ is flat: a name taken by the FMU's own or another's
                raise ExternalError(
                    f"external function sources: {path} has the name of another file of the "
                    "FMU's sources/ (model.c, model.h, model_config.h, model_core.c, "
                    "model_core.h, model_external.c, or an included file); rename it"
                )
            shutil.copyfile(path, copy)
            copies.append(copy)
        return [target, *copies]


def external_calls(expressions: list[ca.SX]) -> list[str]:
    """The Modelica names of the external functions called in ``expressions``."""
    if not _MODELICA_NAMES:  # no external function translated yet, in this process
        return []
    joined = ca.vertcat(*expressions)
    function = ca.Function("calls", ca.symvar(joined), [joined])
    return sorted({_MODELICA_NAMES[n] for n in function.get_function() if n in _MODELICA_NAMES})


def jacobian(expression: ca.SX, unknowns: ca.SX) -> ca.SX:
    """``casadi.jacobian(expression, unknowns)``, without the derivatives of external calls
    whose arguments do not depend on ``unknowns``: those of ``m*F = drag(v, k)`` for ``F``
    would be zero-seeded finite differences, computed at every evaluation. Expressions that
    call no external function get ``casadi.jacobian``'s own result."""
    if not external_calls([expression]):
        return ca.jacobian(expression, unknowns)
    others = [s for s in ca.symvar(expression) if not ca.depends_on(s, unknowns)]
    if not others:
        return ca.jacobian(expression, unknowns)
    rewritten, symbols, definitions = ca.extract_parametric(expression, ca.vertcat(*others))
    matrix = ca.jacobian(rewritten, unknowns)
    if not symbols:
        return matrix
    symbol, definition = ca.vertcat(*symbols), ca.vertcat(*definitions)
    for _ in symbols:  # a definition may be written over others (nested subexpressions)
        if not ca.depends_on(matrix, symbol):
            break
        matrix = ca.substitute(matrix, symbol, definition)
    return matrix


def refuse_in_jacobian(expressions: list[ca.SX], where: str, newton: bool) -> str | None:
    """The one-line refusal of external functions in ``expressions`` where the build needs
    their Jacobian (``where``: "a nonlinear loop", ...; ``newton``: solved by Newton's method
    in the generated code, else differentiated by index reduction), or None where they call
    none."""
    called = external_calls(expressions)
    if not called:
        return None
    if newton:
        return (
            f"external function '{called[0]}' in {where} solved by Newton's method, whose "
            "code CasADi 3.8 does not generate with external calls"
        )
    return (
        f"external function '{called[0]}' in {where}: the choice of dummy derivatives "
        "differentiates it twice, and an external function has one derivative at most"
    )


def _annotations(external: dict) -> dict[str, object]:
    """The external declaration's annotation entries by name: a string, a list of strings
    (``Library = {"a", "b"}``) or None."""
    notes: dict[str, object] = {}
    for entry in external.get("annotations", []):
        name = ".".join(entry.get("name", []))
        notes[name] = _literal(entry.get("value"))
    return notes


def _span(external: dict, name: str) -> dict | None:
    """The source span of the external declaration's annotation entry ``name``."""
    for entry in external.get("annotations", []):
        if ".".join(entry.get("name", [])) == name:
            return entry.get("span")
    return None


def _literal(value: object) -> object:
    """A string annotation value (``"f.c"``), or a list of them (``{"a", "b"}``); None
    otherwise."""
    if not isinstance(value, dict):
        return None
    if "Literal" in value:
        kind, text = next(iter(value["Literal"]["value"].items()))
        return text if kind == "String" else None
    if "Array" in value:
        return [_literal(item) for item in value["Array"].get("elements", [])]
    return None


def _prebuilt(folder: Path, library: str) -> bool:
    """Whether ``folder`` holds library ``library`` built (``lib<name>.a`` or ``.so``)."""
    return any((folder / f"lib{library}{suffix}").is_file() for suffix in (".a", ".so"))


def _system_library(library: str) -> bool:
    """Whether the linker finds ``library`` among the system's (``m`` for libm)."""
    return ctypes.util.find_library(library) is not None


# The files of the MSL's libraries that are not named after them, as the MSL's
# Resources/C-Sources/readme.txt lists them (Modelica Association, Modelica Standard Library
# 4.0.0, 2020); any other library L is L.c and the files L<more>.c beside it.
LIBRARY_MEMBERS = {
    "ModelicaMatIO": ("snprintf.c",),
    "ModelicaExternalC": (
        "ModelicaFFT.c",
        "ModelicaInternal.c",
        "ModelicaRandom.c",
        "ModelicaStrings.c",
    ),
}


def _library_sources(library: str, folders: list[Path]) -> list[Path]:
    """The C files of ``library`` in the first of ``folders`` that has them, with the files
    they include from there (empty where none has them)."""
    for folder in folders:
        files = [folder / f"{library}.c", *sorted(folder.glob(f"{library}?*.c"))]
        files += [folder / name for name in LIBRARY_MEMBERS.get(library, ())]
        found = [f for f in files if f.is_file()]
        if found:
            return list(dict.fromkeys(p for f in found for p in _included_files(f)))
    return []


def _passed_type(declared: dict) -> str:
    """How an input is passed in C: its type, an external object's as ``Object`` (a
    ``void*``), an enumeration's as ``Integer``."""
    kind = declared["type_name"]
    if declared.get("type_class") == "Class":
        return "Object"
    if declared.get("type_class") == "Type" and kind not in ("Real", "Integer", "Boolean"):
        return "Integer"  # an enumeration: its ordinal as an int (Sec. 12.9.1.1)
    return kind


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _included_files(path: Path) -> list[Path]:
    """``path`` and the files it includes with ``#include "..."`` from its own folder, in
    turn."""
    found, pending = [], [path]
    while pending:
        current = pending.pop()
        if current in found:
            continue
        found.append(current)
        text = current.read_text(encoding="utf-8", errors="replace")
        for quoted in re.findall(r'#\s*include\s+"([^"]+)"', text):
            candidate = current.parent / quoted
            if candidate.is_file():
                pending.append(candidate)
    return found


def _sparsity(count: int) -> str:
    """CasADi's compressed sparsity of a dense column of ``count`` elements."""
    return f"{{{count}, 1, 1}}"


def _c_type(kind: str) -> str:
    return {"Real": "double", "Object": "void*"}.get(kind, "int")


def _c_string(text: str) -> str:
    """``text`` as a C string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _wrapper_code(
    name: str,
    c_name: str,
    shapes: list[list[int]],
    outputs: list[list[int]],
    types: list[str],
    out_types: list[str],
    arguments: list[tuple[str, object]],
    construction: tuple[int, str] | None = None,
    guarded: bool = False,
) -> str:
    """The C wrapper ``name`` of one call signature, with the functions ``casadi.external``
    reads its interface from. With ``guarded`` its last input is a guard: where it is 0 the
    C function is not called and the outputs are 0.

    The call runs under ``external_catch`` (``external_runtime.c`` in the FMU, :data:`RUNTIME`
    while the model is translated): a ``ModelicaError`` in it makes the wrapper report
    failure. An external object's input is the object in the slot its value names; with
    ``construction`` (slot, destructor) the wrapper constructs the object in that slot where
    it is not there with these argument numbers, and gives the slot. While the model is
    translated there are no instances: such wrappers fail if called (``MCX_TRANSLATION``)."""
    sizes_in = [int(np.prod(s)) if s else 1 for s in shapes]
    sizes_out = [int(np.prod(d)) if d else 1 for d in outputs]
    objects = construction is not None or "Object" in types
    lines = [f"/* {name}: {c_name} with the arguments of Sec. 12.9 */"]
    for k, size in enumerate(sizes_in):
        lines.append(f"static const long long int {name}_in{k}[3] = {_sparsity(size)};")
    for k, size in enumerate(sizes_out):
        lines.append(f"static const long long int {name}_out{k}[3] = {_sparsity(size)};")
    lines.append(
        f"int {name}(const double** arg, double** res, long long int* iw, double* w, int mem) {{"
    )
    if objects:
        lines += ["#ifdef MCX_TRANSLATION", "    return 1;", "#else"]
    lines += ["    jmp_buf here;", "    jmp_buf* outer;"]
    # each input in its C type; CasADi passes no pointer for one that is structurally zero
    for k, size in enumerate(sizes_in):
        c_type = "double" if types[k] == "Object" else _c_type(types[k])  # an object: its slot
        lines.append(f"    {c_type} in{k}[{size}];")
        copy = f"in{k}[i] = arg[{k}] ? ({c_type}) arg[{k}][i] : 0;"
        lines.append(f"    for (int i = 0; i < {size}; i++) {copy}")
    if guarded:
        lines.append(f"    if (in{len(shapes) - 1}[0] == 0) {{ /* the when-branch does not fire */")
        for k, size in enumerate(sizes_out):
            lines.append(f"        if (res[{k}]) for (int i = 0; i < {size}; i++) res[{k}][i] = 0;")
        lines += ["        return 0;", "    }"]
    for k, kind in enumerate(types):
        if kind == "Object":
            lines.append(f"    void* object{k} = external_object(in{k}[0]);")
            lines.append(f"    if (!object{k}) return 1;")
    if construction is not None:
        slot, _ = construction
        total = sum(sizes_in)
        lines.append(f"    double key[{max(total, 1)}];")
        offset = 0
        for k, size in enumerate(sizes_in):
            lines.append(
                f"    for (int i = 0; i < {size}; i++) key[{offset} + i] = arg[{k}] ? "
                f"arg[{k}][i] : 0;"
            )
            offset += size
        lines.append(f"    void* slot = external_slot({slot});")
        lines.append("    if (!slot) return 1;")
        lines.append(f"    if (!external_stale(slot, key, {total})) {{")
        lines.append(f"        if (res[0]) res[0][0] = {slot};")
        lines.append("        return 0;")
        lines.append("    }")
    c_args, returned, effect = [], None, None
    for kind, value in arguments:
        if kind == "input":
            k = int(value)
            if types[k] == "Object":
                c_args.append(f"object{k}")
            else:
                c_args.append(f"in{k}" if shapes[k] else f"in{k}[0]")
        elif kind == "output":
            k = int(value)
            # in the C type of Sec. 12.9.1.1 (an Integer state vector written as int*, as
            # MSL's ModelicaRandom_xorshift128plus writes stateOut), copied out as doubles
            lines.append(f"    {_c_type(out_types[k])} out{k}[{sizes_out[k]}];")
            c_args.append(f"out{k}")
        elif kind == "return":
            returned = int(value)
        elif kind == "effect":
            effect = int(value)
        elif kind == "string":
            c_args.append(_c_string(str(value)))
        else:
            c_args.append(str(value))
    lines += [
        "    external_strings_release();",
        "    outer = external_catch(&here);",
        "    if (setjmp(here)) {",
        "        external_catch(outer);",
        "        return 1;",
        "    }",
    ]
    call = f"{c_name}({', '.join(c_args)})"
    if returned is None:
        lines.append(f"    {call};")
    else:
        lines.append(f"    {_c_type(out_types[returned])} r = {call};")
    lines.append("    external_catch(outer);")
    if construction is not None:
        destructor = construction[1]
        lines.append(
            f"    if (external_keep(slot, r, (void (*)(void*)) {destructor}, key, {sum(sizes_in)}))"
            " return 1;"
        )
        lines.append(f"    if (res[0]) res[0][0] = {construction[0]};")
    elif returned is not None:
        lines.append(f"    if (res[{returned}]) res[{returned}][0] = (double) r;")
    elif effect is not None:  # made: what the caller's outputs add to themselves
        lines.append(f"    if (res[{effect}]) res[{effect}][0] = 0;")
    for kind, value in arguments:
        if kind == "output":
            k = int(value)
            lines.append(
                f"    if (res[{k}]) for (int i = 0; i < {sizes_out[k]}; i++) "
                f"res[{k}][i] = out{k}[i];"
            )
    lines += ["    return 0;"]
    if objects:
        lines.append("#endif")
    lines.append("}")
    lines.append(f"long long int {name}_n_in(void) {{ return {len(shapes)}; }}")
    lines.append(f"long long int {name}_n_out(void) {{ return {len(outputs)}; }}")
    for io, count in (("in", len(shapes)), ("out", len(outputs))):
        cases = " ".join(f"case {k}: return {name}_{io}{k};" for k in range(count))
        lines.append(
            f"const long long int* {name}_sparsity_{io}(long long int i) {{ "
            f"switch (i) {{ {cases} default: return 0; }} }}"
        )
    return "\n".join(lines)


def _forward_code(
    name: str, shapes: list[list[int]], outputs: list[list[int]], flags: list[str]
) -> str:
    """``fwd1_<name>``, the forward derivative CasADi looks for beside the wrapper ``name``:
    the wrapper ``<name>_der`` of the derivative function on the inputs and the seeds of
    those differentiated; an error where a ``zeroDerivative`` input has a seed that is not
    zero (the derivative function does not hold there)."""
    n_in, n_out = len(shapes), len(outputs)
    seeds = [n_in + n_out + k for k in range(n_in)]
    passed = [f"arg[{k}]" for k in range(n_in)]
    passed += [f"arg[{s}]" for s, f in zip(seeds, flags, strict=True) if f == "Differentiate"]
    forward = f"fwd1_{name}"
    lines = [
        f"int {forward}(const double** arg, double** res, long long int* iw, double* w, "
        "int mem) {",
        f"    const double* rate_arg[{len(passed)}] = {{{', '.join(passed)}}};",
    ]
    for k, (seed, flag) in enumerate(zip(seeds, flags, strict=True)):
        if flag != "Differentiate":
            size = int(np.prod(shapes[k])) if shapes[k] else 1
            lines.append(
                f"    if (arg[{seed}]) for (int i = 0; i < {size}; i++) "
                f"if (arg[{seed}][i] != 0.0) return 1;"
            )
    lines += [f"    return {name}_der(rate_arg, res, iw, w, mem);", "}"]
    lines.append(f"long long int {forward}_n_in(void) {{ return {2 * n_in + n_out}; }}")
    lines.append(f"long long int {forward}_n_out(void) {{ return {n_out}; }}")
    cases = [f"case {k}: return {name}_in{k};" for k in range(n_in)]
    cases += [f"case {n_in + k}: return {name}_out{k};" for k in range(n_out)]
    cases += [f"case {seed}: return {name}_in{k};" for k, seed in enumerate(seeds)]
    lines.append(
        f"const long long int* {forward}_sparsity_in(long long int i) {{ "
        f"switch (i) {{ {' '.join(cases)} default: return 0; }} }}"
    )
    lines.append(
        f"const long long int* {forward}_sparsity_out(long long int i) {{ "
        f"return {name}_sparsity_out(i); }}"
    )
    return "\n".join(lines)


def _file_text(includes: list[str], wrappers: list[str]) -> str:
    """One C file: the Include texts, then the wrappers."""
    head = ["/* External functions of the model; written by murcosim build. */", RUNTIME]
    return "\n".join([*head, *includes, "", *wrappers]) + "\n"


def translate_call(
    translator: object,
    definition: dict,
    args: list[object],
    span: dict | None,
    construction: tuple[int, str] | None = None,
) -> list[object]:
    """The outputs of a call of the external C function ``definition`` in a model translated
    by ``translator`` (:class:`~orchestrator.compiler.flat_model.Translator`, whose
    ``external_c`` collects the wrappers); ``construction``: see
    :meth:`ExternalFunctions.call`."""
    functions: ExternalFunctions | None = translator.external_c
    if functions is None:
        raise ExternalError(f"external function '{definition['name']}' in C (no compiler given)")
    env = translator._arguments(definition, args, span)
    inputs = [env[d["name"]] for d in definition["inputs"]]
    dims = [translator._dimensions(d, env, span) for d in definition["outputs"]]
    arguments = _c_arguments(translator, definition, env)
    derivative = None
    for entry in definition.get("derivatives", []):
        rate = translator.functions.get(entry["derivative_function"]["name"])
        usable = rate is not None and (rate.get("external") or {}).get("language") == "C"
        if entry.get("order", 1) == 1 and usable:
            # only Real inputs have derivatives (Sec. 12.7.1): an Integer column index or an
            # external object passes none, whatever rumoca's flag for it
            flags = [
                f if _passed_type(d) == "Real" else "NoDerivative"
                for f, d in zip(entry["inputs"], definition["inputs"], strict=True)
            ]
            varying = [v for v, f in zip(inputs, flags, strict=True) if f == "Differentiate"]
            rate_env = translator._arguments(rate, inputs + varying, span)
            derivative = (rate, _c_arguments(translator, rate, rate_env), flags)
            break
    guard = translator.when_guard if construction is None else None  # constructors: no state
    impure = definition.get("pure") is False or any(kind == "effect" for kind, _ in arguments)
    if guard is None and construction is None and impure:
        # outside a when-clause (MLS 3.6, Sec. 12.3: a parameter's binding) an impure call is
        # made once, at initialization; of constant arguments, it was made while translating
        guard = translator.initial_guard
    return functions.call(definition, inputs, dims, arguments, derivative, construction, guard)


def _c_arguments(translator: object, definition: dict, env: dict) -> list[tuple[str, object]]:
    """The arguments of the C call of external function ``definition`` (see
    :meth:`ExternalFunctions.call`), numbers such as ``size(a, 1)`` evaluated in ``env``,
    the values of its inputs."""
    inputs = [d["name"] for d in definition["inputs"]]
    outputs = [d["name"] for d in definition["outputs"]]
    external = definition["external"]
    arguments: list[tuple[str, object]] = []
    if external.get("output_name") == EFFECT_OUTPUT:  # a C function that returns nothing
        arguments.append(("effect", outputs.index(EFFECT_OUTPUT)))
    elif external.get("output_name"):
        if external["output_name"] not in outputs:
            raise ExternalError(
                f"external function '{definition['name']}' returns '{external['output_name']}', "
                "not one of its outputs"
            )
        arguments.append(("return", outputs.index(external["output_name"])))
    for node in external.get("args", []):
        name = node.get("VarRef", {}).get("name", {}).get("name")
        if name in inputs and not node["VarRef"].get("subscripts"):
            arguments.append(("input", inputs.index(name)))
        elif name in outputs and not node["VarRef"].get("subscripts"):
            arguments.append(("output", outputs.index(name)))
        else:
            value = translator.expr(node, env)
            if not isinstance(value, int | float) or float(value) != int(value):
                raise ExternalError(
                    f"external function '{definition['name']}': an argument that is neither "
                    "an input, an output nor an integer known when the model is translated "
                    "(such as size(a, 1))"
                )
            arguments.append(("literal", int(value)))
    return arguments
