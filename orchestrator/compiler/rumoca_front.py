"""Modelica front end on the rumoca compiler: a library folder, its library path, flat models.

rumoca (a Modelica compiler written in Rust, on PyPI) parses the library and the libraries on
its path (``--library-path`` and ``MODELICAPATH``, e.g. a Modelica Standard Library
installation), resolves names, imports, inheritance, modifiers, redeclarations, ``inner`` /
``outer``, connections and component arrays, and flattens a model. Its flat form is read by
:mod:`orchestrator.compiler.flat_model`; everything after (index reduction, causalization,
CasADi code, the FMI layer) is the project's own.

Failures become one line: ``file:line:column: model: what`` where rumoca or the translation
gives a place, the model and rumoca's message otherwise.

rumoca 0.10 drops per-element units (``Real nu[6](unit = {"m/s", ..., "rad/s"})`` comes out
without a unit; ``unit = "m"`` and ``each unit = "m"`` survive); they are read from the
declaration's modification in the source instead (:func:`declared_units`).
"""

from __future__ import annotations

import logging
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import rumoca

from orchestrator.compiler.algorithm_sections import entry_dependent_discrete, unwrap, wrapped
from orchestrator.compiler.call_equations import dropped_call_equations
from orchestrator.compiler.call_places import call_of, tuple_in_when
from orchestrator.compiler.call_statements import call_statements
from orchestrator.compiler.class_rewrites import hoisted, renamed, user_names
from orchestrator.compiler.connection_chains import (
    ConnectionEquations,
    tied_connection,
    unconnected,
)
from orchestrator.compiler.external_c import ExternalFunctions
from orchestrator.compiler.first_outputs import first_outputs
from orchestrator.compiler.flat_model import (
    FlatModel,
    FlatVariable,
    UnsupportedConstructError,
    call_targets,
    read_flat,
)
from orchestrator.compiler.function_loops import function_loops, unbounded_while
from orchestrator.compiler.function_slices import function_slices, variable_slice
from orchestrator.compiler.impure_statements import impure_statements
from orchestrator.compiler.negated_edges import negated_edges
from orchestrator.compiler.outer_modifications import dropped_outer_modification
from orchestrator.compiler.package_constants import dropped_package_modification
from orchestrator.compiler.redeclarations import dropped_modification
from orchestrator.compiler.source_rewrites import LibraryRewriter, Rewritten, SourceRewriter
from orchestrator.compiler.statement_places import (
    loop_beyond_elements,
    reference_in_initial_section,
    refused_statement,
    sample_in_initial_section,
)
from orchestrator.compiler.structural_parameters import structural_parameters
from orchestrator.compiler.tokens import tokens as _tokens
from orchestrator.compiler.value_types import value_types
from orchestrator.compiler.when_tuples import when_tuples
from orchestrator.errors import BuildError

LOG = logging.getLogger(__name__)
OPENING, CLOSING = {"(": ")", "[": "]", "{": "}"}, {")", "]", "}"}
Sources = dict[int, tuple[str, str]]  # rumoca's source id -> (path, text)


def _group(tokens: Iterator[tuple[int, str]], opening: str) -> list[list[str]] | None:
    """The comma-separated top-level entries, as token lists, of the bracketed group whose
    ``opening`` bracket was just read from ``tokens``; None when it is not closed properly."""
    entries: list[list[str]] = [[]]
    expected = [OPENING[opening]]
    for _, token in tokens:
        if token in OPENING:
            expected.append(OPENING[token])
        elif token in CLOSING:
            if token != expected.pop():
                return None
            if not expected:
                return entries
        elif token == "," and len(expected) == 1:
            entries.append([])
            continue
        entries[-1].append(token)
    return None


def _modification(text: str, end: int) -> tuple[int, list[list[str]]] | None:
    """The class modification that follows a component's name ending at ``end`` in ``text``
    (array dimensions between them skipped): the position of its ``(`` and its top-level
    arguments as token lists; ``(each start = 0, unit = {"m", "s"})`` gives
    ``[["each", "start", "=", "0"], ["unit", "=", "{", '"m"', ",", '"s"', "}"]]``. None when
    no modification follows."""
    tokens = _tokens(text, end)
    position, token = next(tokens, (end, ""))
    if token == "[" and _group(tokens, "[") is not None:
        position, token = next(tokens, (end, ""))
    if token != "(":
        return None
    arguments = _group(tokens, "(")
    return None if arguments is None else (position, arguments)


def _unit_value(arguments: list[list[str]]) -> list[str] | None:
    """The value tokens of a modification's ``unit = ...`` (or ``final unit = ...``) entry."""
    for argument in arguments:
        entry = argument[1:] if argument[:1] == ["final"] else argument
        if entry[:2] == ["unit", "="]:
            return entry[2:]
    return None


def _unit_array(value: list[str], count: int) -> list[str] | None:
    """The strings of an array literal of ``count`` strings, ``{"m/s", ..., "rad/s"}``."""
    strings, commas = value[1:-1:2], value[2:-1:2]
    literal = (
        len(value) == 2 * count + 1
        and (value[0], value[-1]) == ("{", "}")
        and all(s.startswith('"') for s in strings)
        and set(commas) <= {","}
    )
    return [s[1:-1] for s in strings] if literal else None


def declared_units(variables: list[FlatVariable], sources: Sources) -> dict[str, str]:
    """Units of the elements (``nu[4]``: ``"rad/s"``) of one-dimensional array variables that
    have none, from the ``unit = {"m/s", ..., "rad/s"}`` of their declaration's modification
    (a variable's span ends at its name there), when that is an array literal of as many
    strings as the variable has elements.

    A unit array given elsewhere to a component of the same name (``extends R(w(unit =
    {...}))``, ``R r(w(unit = {...}))``) may override the declaration's, which the sources
    alone do not tell: such variables keep no unit rather than a wrong one.
    """
    arrays: dict[str, list[FlatVariable]] = {}
    for var in variables:
        arrays.setdefault(var.declared, []).append(var)
    found: dict[str, tuple[str, tuple[int, int], list[str]]] = {}  # name, place of "(", units
    for declared, elements in arrays.items():
        span = elements[0].span
        names = [f"{declared}[{k}]" for k in range(1, len(elements) + 1)]
        if not span or any(v.unit for v in elements) or [v.name for v in elements] != names:
            continue
        source = int(span["source"])
        text = sources.get(source, ("", ""))[1]
        name = declared.rsplit(".", 1)[-1].split("[")[0]
        end = int(span["end"])
        start = end - len(name)
        if start < 0 or text[start:end] != name or re.match(r"[\w']", text[start - 1 : start]):
            continue  # the span does not end at the declared name
        given = _modification(text, end)
        value = _unit_value(given[1]) if given else None
        units = _unit_array(value, len(elements)) if value else None
        if given and units:
            found[declared] = (name, (source, given[0]), units)
    if not found:
        return {}
    alternatives = "|".join(sorted({re.escape(name) for name, _, _ in found.values()}))
    pattern = re.compile(rf"(?<![\w'])({alternatives})\s*\(")
    own = {place for _, place, _ in found.values()}
    overridden = set()
    for source, (_, text) in sources.items():
        for match in pattern.finditer(text):
            if (source, match.end() - 1) in own:
                continue
            arguments = _group(_tokens(text, match.end()), "(")
            value = _unit_value(arguments) if arguments else None
            if value and value[0] == "{":
                overridden.add(match.group(1))
    return {
        f"{declared}[{k}]": unit
        for declared, (name, _, units) in found.items()
        if name not in overridden
        for k, unit in enumerate(units, 1)
    }


def library_path(extra: list[Path] | None = None) -> list[Path]:
    """Folders searched for libraries the user's library uses: ``extra`` (the command line's
    ``--library-path``) first, then the entries of ``MODELICAPATH`` (``os.pathsep``-separated,
    as Modelica tools read it)."""
    entries = list(extra or [])
    entries += [Path(p) for p in os.environ.get("MODELICAPATH", "").split(os.pathsep) if p]
    for entry in entries:
        if not entry.is_dir():
            raise BuildError(f"library path {entry}: folder not found")
    return entries


# rumoca's refusals of algorithm sections that it translates inside a when-statement
ALGORITHM_REFUSALS = (
    r"algorithm section that (assigns several variables|reads '[\w.\[\]]+' after assigning)"
    r"|unsupported model algorithm in canonical DAE"
)

# rumoca's refusals that name a construct in its own terms: (pattern of its message, the
# construct in ours, the text whose first use in the sources places it, or DECLARED where the
# declaration of the component it names does, None where nothing places it). %s stands for
# the pattern's group (a function's or a component's name) in the last two.
DECLARED = "declaration"
# or the first statement of an algorithm section that rumoca 0.10 refuses (statement_places)
CALL_STATEMENT, NESTED_WHEN = "call statement", "nested when-statement"
# or the connect statement that links two connector arrays' elements (connection_chains)
TIED_CONNECTION = "tied connection"
TIED_REFUSAL = "links an element of one connector array to an element of another"
# or the first while loop of the function named whose passes its text does not bound
UNBOUNDED_WHILE = "unbounded while loop"
# or the first for-statement of a model's algorithm that does more than assign elements
ELEMENT_LOOP = "for-statement beyond element assignments"
# or the first call of the function named, or the first tuple equation in a when-equation, in
# the library or on its path (call_places)
CALLED, WHEN_TUPLE = "call", "tuple equation in a when-equation"
# or the first use of the reference named in an initial section (statement_places)
INITIAL_REFERENCE = "reference in an initial section"
# or the first slice of bounds that are no numbers in a function's algorithm (function_slices)
FUNCTION_SLICE = "slice in a function"
RUMOCA_LIMITS: tuple[tuple[str, str, str | None], ...] = (
    (
        r"impure function `(?:[\w.]+\.)?(\w+)` is called from a pure function body",
        "call of impure function '%s' in a function not declared impure (Modelica Language "
        "Specification 3.6, Sec. 12.3 asks for an impure caller, and rumoca 0.10 refuses an "
        "impure function with an algorithm): the build gives rumoca only call statements of "
        "impure external functions without outputs, as MSL 4.0.0's initializeImpureRandom "
        "calls setInternalState, in a function of a scalar Integer or Real output and no "
        "return",
        CALLED,
    ),
    (
        r"calls `(?:[\w.]+\.)?(\w+)` as a statement without reading a result",
        "call statement of function '%s' in a function (rumoca 0.10 translates none; the "
        "build gives it one of an impure external function without outputs, taken as impure, "
        "in a function of a scalar Integer or Real output and no return)",
        CALLED,
    ),
    (
        r"`function shape proof`: (dependent extent is not an exact Integer expression|extent "
        r"depends on the value of scalar)",
        "slice of an array in a function whose bounds rumoca 0.10 cannot size (a[i-2:i-1] "
        "in a for loop): the build gives it element by element where its bounds differ by a "
        "number and it is read on the right of an assignment or assigned a variable",
        FUNCTION_SLICE,
    ),
    (
        r"unresolved Flat reference `([\w.\[\]]+)`",
        "reference to '%s' that rumoca 0.10 does not resolve, as an outer component's "
        "fixed = false parameter read in an initial equation (pre(s) = {world.seed, 1}): bind "
        "a parameter to it, parameter Integer seed = world.seed, and read that",
        INITIAL_REFERENCE,
    ),
    (
        r"(\w+)\(\) requires Modelica state-machine lowering",
        "call of '%s', which rumoca 0.10 takes for the state-machine operator of that name "
        "(Modelica Language Specification 3.6, Sec. 17.1), whether a state machine's or a "
        "function's of that name: state machines are not translated; rename the function",
        CALLED,
    ),
    (
        r"`([\w.]+)` declares an impure Modelica body",
        "impure function '%s' with an algorithm (rumoca 0.10 translates impure functions only "
        "as external functions)",
        "%s",
    ),
    (
        r"MLS §11.2.1.1 evaluates `(?:[\w.]+\.)?(\w+)` once, but canonical DAE result "
        "projections may be evaluated independently",
        "call of impure function '%s' with several outputs in a when-equation or "
        "when-statement (rumoca 0.10: its outputs may be evaluated apart, each a call)",
        WHEN_TUPLE,
    ),
    (
        r"multi-output event (calls) require a checked function-action owner",
        "call of a function with several outputs in a when-equation, '(a, b) = f(u)', that "
        "rumoca 0.10 refuses and the build cannot give it as a when-statement (one with "
        "elsewhen, with other equations than 'v = e' and '(a, b) = f(u)', or whose equations "
        "read what it assigns other than through pre)",
        WHEN_TUPLE,
    ),
    (
        r"`([\w.]+)` contains a statement without a checked DAE owner",
        "in function '%s': a while loop whose passes its text does not bound (the build "
        "gives rumoca 0.10 one whose counter moves by one each pass and subscripts an array in "
        "an operand of the condition's 'and' in a for loop over that array's size), or an "
        "assignment to an array element, which rumoca 0.10 does not translate",
        UNBOUNDED_WHILE,
    ),
    (
        r"`([\w.]+)` requires a compact dependent-domain transition",
        "in function '%s': a for-loop whose range depends on an input not known when the "
        "model is translated",
        "%s",
    ),
    (
        r"sequential read of `([\w.]+)`, whose value where it is read differs",
        "algorithm section that reads '%s' after assigning it where rumoca 0.10 cannot "
        "order the read (an assert, a condition deciding a discrete variable): write the "
        "assert in an equation section, decide the discrete variable from the section's "
        "inputs",
        "%s :=",
    ),
    (
        r"a multi-output (algorithm) requires",
        "algorithm section that assigns several variables and uses pre, edge, change, "
        "sample, initial, terminal, reinit or a when-statement (rumoca 0.10); give the "
        "when-statement a section of its own, compute the others in one without them",
        None,
    ),
    (
        r"(event tensor loop must cover every target axis exactly once|an event tensor loop "
        r"requires only total element assignments|range and subscript must cover one declared "
        r"array axis exactly)",
        "for-loop in an algorithm section that does more than assign each element of arrays "
        "indexed by the loop over their whole range, 'w[i] := ...' (rumoca 0.10): write sums "
        "and running values as array expressions (sum(w)), branches as if-expressions",
        ELEMENT_LOOP,
    ),
    (
        r"`(\w+)` omits its external entry point name",
        "external function '%s' without its call (`external \"C\";`, whose entry point "
        'rumoca 0.10 does not keep); write the call, `external "C" y = %s(u)`',
        "%s",
    ),
    (
        r"function value type`: `([\w.]+)` has unsupported type",
        "function output '%s' of a class type, as an external object's constructor returns "
        "(rumoca 0.10 flattens only those calling ModelicaStandardTables_CombiTable1D_init2 or "
        "ModelicaStandardTables_CombiTimeTable_init2 with inputs table and columns)",
        None,
    ),
    (
        r"function-call assignment (must) retain at least one output",
        "call statement in a model's algorithm section: reinit, terminate or a function "
        "without outputs (rumoca 0.10 translates such calls in initial algorithms only); "
        "write reinit and terminate in a when-equation",
        CALL_STATEMENT,
    ),
    (
        r"the call statement to `(?:[\w.]+\.)?(\w+)` has no checked initialization owner",
        "call statement of external function '%s' without outputs (rumoca 0.10; an FMU "
        "makes no call for its effect alone)",
        "%s(",
    ),
    (
        r"unresolved function call: '(?:[\w.]+\.)?(\w+)__called'",
        "call statement of external function '%s' without outputs in a model's algorithm "
        "section (an FMU makes no call for its effect alone)",
        "%s(",
    ),
    (
        r"(when)-statements cannot appear inside while/for/if in algorithms",
        "when-statement inside an if-, for- or while-statement (Modelica Language "
        "Specification 3.6, Sec. 11.2.7.1): put the if-statement inside the when-statement",
        NESTED_WHEN,
    ),
    (
        r"algorithm assignment target `(?:[\w.\[\]]+\.)?(\w+)` is not a whole writable coordinate",
        "algorithm section in an element of a component array, assigning '%s' (rumoca 0.10): "
        "write it as equations (a when-statement as a when-equation)",
        "%s :=",
    ),
    (
        r"(der)\(\.\.\.\) must have exactly one resolved variable-reference operand",
        "'der(...)' of an expression (rumoca 0.10 takes the derivative of a variable): give "
        "the expression a variable of its own, y = x*x and der(y)",
        None,
    ),
    (
        r"duplicate (reinit)ialization owner definition",
        "reinit of one state in two when-equations (rumoca 0.10): reinitialize it in one, "
        "with a vector condition, when {c1, c2}",
        None,
    ),
    (
        r"variable identity \d+ is not owned by (clock) identity \d+",
        "when-equation on sample(...) reading, without pre, a discrete variable another "
        "when-equation assigns (rumoca 0.10 gives each sampled when-equation a %s of its own "
        "and refuses the read): assign both in one when-equation",
        "sample(",
    ),
    (
        r"unsupported Flat semantic owner `(pre) expression`",
        "'pre(...)' of a continuous-time variable outside a when-equation",
        "%s(",
    ),
    (
        r"`parameter binding`: `([\w.]+)` cannot be evaluated: type mismatch: expected \w+, "
        "got Array",
        "binding of parameter '%s' that rumoca 0.10 cannot evaluate: a call of a function "
        "with several outputs used as a value gives it an array (MSL's LossyGear, "
        "Vectors.interpolate)",
        DECLARED,
    ),
    (
        r"`function shape proof`: `(\w+)`: axis \d+ requires extent \d+ but the call site "
        "proves",
        "call whose argument does not have the shape of function input '%s': rumoca 0.10 "
        "keeps one function per name, so two classes' own functions of one short name (MSL's "
        "Move_w.position beside Move.position) become one; give them different names",
        DECLARED,
    ),
    (
        r"`function (return)`: a non-guarded nested return",
        "'return' inside a loop or a nested branch of one of the model's functions (rumoca "
        "0.10 translates a return only in a branch at a function's top level; MSL's "
        "BooleanVectors.firstTrueIndex)",
        None,
    ),
    (
        r"missing function (value) definition for identity",
        "function whose output rumoca 0.10 finds undefined on a path of its algorithm: a "
        "while loop in an if-branch (MSL's Vectors.interpolate on a one-row table)",
        None,
    ),
    (
        r"unevaluable array dimensions for '([\w.]+)'",
        "array '%s' whose size rumoca 0.10 cannot evaluate from its parameters (a function "
        "with nested while loops, as MSL's FastFourierTransform.realFFTsamplePoints)",
        None,
    ),
    (
        r"invalid Appendix B discrete solved form: (element assignments) must cover",
        "connection of Boolean or Integer signals that links an element of one connector "
        "array to an element of another, each fed at another element too (rumoca 0.10 "
        "chains a connection set's members in the order the connect statements name them and "
        "gives such a link no direction; the build gives it such a set as equations where "
        "every subscript is a number and its source is known): write this connection as an "
        "equation, the input's element = the output ('b.u[2] = p.y')",
        TIED_CONNECTION,
    ),
    (
        r"reference to non-constant variable '(\w+)' from a lexically nested class",
        "class declared inside the class that extends it (MSL's "
        "MassWithStopAndFriction.PartialFrictionWithStop): rumoca 0.10 takes '%s', the "
        "nested class's own, for a variable of the enclosing class",
        None,
    ),
)


# the build's refusal of a while loop rumoca translated, which function_loops may bound
WHILE_AT_RUN_TIME = "while loop whose condition depends on a variable"

# rumoca's refusals (a pattern of the build's line) that a copy of the sources with the edits of
# a source rewriter avoids (:mod:`orchestrator.compiler.source_rewrites`); a refusal of the copy
# that calls for another rewriter adds it
SOURCE_REWRITES: tuple[tuple[str, SourceRewriter | LibraryRewriter], ...] = (
    (ALGORITHM_REFUSALS, wrapped),
    (
        r"in function '[\w.]+': a while loop whose passes|'return' inside a loop|function "
        r"whose output rumoca 0.10 finds undefined|nested conditionals in every checked branch",
        function_loops,
    ),
    (r"class declared inside the class that extends it", hoisted),
    (
        r"function whose output rumoca 0.10 finds undefined|slice of an array in a function",
        function_slices,
    ),
    (r"call of impure function '\w+' in a function not declared impure", impure_statements),
    (r"edge\(\.\.\.\) must have exactly one resolved variable-reference operand", negated_edges),
    (r"call statement in a model's algorithm section", call_statements),
    (r"a call of a function with several outputs used as a value", first_outputs),
    (r"call of a function with several outputs in a when-equation", when_tuples),
    (
        r"keeps one function per name|invalid call of function|one of two functions of that "
        "name",
        renamed,
    ),
)


def _wanted(
    refusal: str, rewriters: tuple[SourceRewriter | LibraryRewriter, ...]
) -> tuple[SourceRewriter | LibraryRewriter, ...]:
    """The source rewriters not among ``rewriters`` whose text avoids rumoca's ``refusal``
    (:data:`SOURCE_REWRITES`)."""
    return tuple(
        rewriter
        for pattern, rewriter in SOURCE_REWRITES
        if rewriter not in rewriters and re.search(pattern, refusal)
    )


def _warn_impure_caller(refusal: str) -> None:
    """The warning Modelica tools give where a function not declared impure calls an impure
    one (rumoca's ``refusal``, in the build's line): the build takes it for impure, as they do
    (:mod:`orchestrator.compiler.impure_statements`)."""
    found = re.match(
        r"(.*?): unsupported Modelica construct (call of impure function '\w+')", refusal
    )
    if found:
        LOG.warning(
            "%s in a function not declared impure: the function is taken as impure (Modelica "
            "Language Specification 3.6, Sec. 12.3 asks that it be declared so)",
            ": ".join(found.groups()),
        )


@contextmanager
def _rust_stderr() -> Iterator[list[str]]:
    """The process' standard error (file descriptor 2) led into a temporary file while
    rumoca runs: its Rust code writes a panic's text there directly ("thread ... panicked
    at ...", a note on RUST_BACKTRACE), above the one line the build gives. The descriptor is
    restored however the call ends; the text written is the list's one element after it.
    Only rumoca's calls are inside: the project's own log lines reach the user as before."""
    written: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield written
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            written.append(capture.read().decode("utf-8", errors="replace"))


def _panic_detail(message: str, written: str) -> str:
    """The first line of a rumoca panic's message, or of what its Rust code wrote after
    "panicked at ...:" when the exception has none."""
    if message.strip():
        return message.strip().splitlines()[0]
    lines = [ln.strip() for ln in written.splitlines() if ln.strip()]
    after = [lines[i + 1] for i, ln in enumerate(lines[:-1]) if " panicked at " in ln]
    return after[0] if after else "no message"


@dataclass
class RumocaLibrary:
    """A Modelica library folder (a package with ``package.mo``) and its library path."""

    folder: Path
    path: list[Path] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.folder = self.folder.resolve()  # one name per file: rumoca keys sources by path
        self.path = [entry.resolve() for entry in self.path]
        if not self.entry.is_file():
            raise BuildError(
                f"{self.folder}: no package.mo; the rumoca backend builds a Modelica package "
                "(a folder with package.mo; other libraries go on --library-path)"
            )
        # A library found on its own path is not a root of its own: rumoca 0.10 resolves
        # nothing of that path entry's other packages when it is.
        self._roots = [] if self.folder.parent in self.path else [self.folder]
        self._session = rumoca.Session(roots=[*map(str, self._roots), *map(str, self.path)])
        # by their rewriters
        self._copies: dict[tuple[SourceRewriter | LibraryRewriter, ...], Rewritten] = {}
        self._rewritten: Rewritten | None = None  # the copy the last model was read from
        self._rewriters: tuple[SourceRewriter | LibraryRewriter, ...] = ()  # and its rewriters

    @property
    def entry(self) -> Path:
        """The file rumoca starts from: the package's ``package.mo``."""
        return self.folder / "package.mo"

    def _load(self, model: str, rewritten: Rewritten | None) -> tuple[rumoca.Model, dict]:
        """rumoca's compiled model and flat form of ``model``, from the library or from its
        ``rewritten`` copy."""
        session, entry = self._session, self.entry
        if rewritten is not None:
            session = rumoca.Session(roots=list(map(str, rewritten.roots)))
            entry = rewritten.copy_of(self.entry)
        try:
            with _rust_stderr() as written:
                compiled = session.load(str(entry), model=model)
                return compiled, compiled.to_dict("flat")
        except rumoca.RumocaError as exc:
            raise BuildError(self._explain(model, str(exc), rewritten)) from None
        except BaseException as exc:  # a panic in rumoca's Rust code (pyo3's PanicException)
            if type(exc).__name__ != "PanicException":
                raise
            detail = _panic_detail(str(exc), written[0])
            raise BuildError(
                f"{self._relative(self.entry)}: {model}: rumoca 0.10 failed with an internal "
                f"error ({detail}); known to happen for fields of an array of records indexed by "
                "a for-loop variable (bodies[i].m): write them as array expressions (bodies.m)"
            ) from None

    def flatten(self, model: str) -> FlatModel:
        """The flat scalar model of ``model`` (its full Modelica name); a refusal of a model
        read from a copy names the classes and functions the copy renames by the user's
        names (:mod:`orchestrator.compiler.class_rewrites`)."""
        try:
            return self._flatten(model)
        except BuildError as exc:
            texts = [
                r.original for r in (self._rewritten.rewrites if self._rewritten else {}).values()
            ]
            names = user_names(texts)
            if not names:
                raise
            pattern = r"\b({})\b".format("|".join(map(re.escape, names)))
            message = re.sub(pattern, lambda found: names[found.group(1)], str(exc))
            raise BuildError(message) from None

    def _flatten(
        self, model: str, rewriters: tuple[SourceRewriter | LibraryRewriter, ...] = ()
    ) -> FlatModel:
        """The flat scalar model of ``model`` (its full Modelica name), read with at least the
        source ``rewriters`` given.

        Where rumoca 0.10 refuses a construct that an equivalent text avoids, the model is read
        from a copy of the library and its path with that text (:data:`SOURCE_REWRITES`): an
        algorithm section that rumoca 0.10 does not translate (several variables assigned, a
        variable read after it is assigned) is given to rumoca inside a when-statement, taken
        off again in the flat form (:mod:`orchestrator.compiler.algorithm_sections`). A while
        loop that rumoca translates but whose condition the build cannot decide when it
        translates the model is read again in the form :mod:`function_loops` gives it, where
        that form exists (MSL's TimeTable searching its rows)."""
        compiled, flat = self._load_rewritten(model, rewriters)
        if self._rewritten is not None:
            path_of = {k: path for k, (path, _) in self._sources(compiled).items()}
            for algorithm in unwrap(self._rewritten, flat, path_of):
                kept = entry_dependent_discrete(algorithm, flat)
                if kept:
                    place = self._place(kept[1], compiled)
                    raise BuildError(
                        f"{place}{model}: unsupported Modelica construct algorithm section "
                        f"that reads discrete variable '{kept[0]}' before assigning it, or "
                        f"leaves it unassigned on a path (its value there is pre({kept[0]}), "
                        "kept only in when-statements): assign it first, on every path"
                    ) from None
        sources = self._sources(compiled)
        dropped = dropped_modification(model, flat, sources)
        if dropped:
            place = self._place(
                {"source": dropped.source, "start": dropped.start}, compiled, sources
            )
            raise BuildError(
                f"{place}{model}: unsupported Modelica construct modification of a redeclared "
                f"short class ('= {dropped.redeclared}(...)'), which rumoca 0.10 drops: declare "
                f"a class with it (model My{dropped.redeclared} = {dropped.redeclared}(...)) and "
                "redeclare that"
            )
        outer = dropped_outer_modification(model, flat, sources)
        if outer:
            place = self._place({"source": outer.source, "start": outer.start}, compiled, sources)
            element = ".".join(outer.path)
            raise BuildError(
                f"{place}{model}: unsupported Modelica construct modification of attributes "
                f"and value of '{element}' in an extends clause or nested modification "
                f"('{outer.path[-1]}(...) = ...'), which rumoca 0.10 drops: give the value "
                f"alone ('{outer.path[-1]} = ...') or modify the component where it is "
                "declared"
            )
        package = dropped_package_modification(model, flat, sources)
        if package:
            place = self._place(
                {"source": package.source, "start": package.start}, compiled, sources
            )
            raise BuildError(f"{place}{model}: unsupported Modelica construct {package.what}")
        for called in dropped_call_equations(model, flat, sources):
            place = self._place({"source": called.source, "start": called.start}, compiled, sources)
            what = (
                f"call equation of function '{called.function}' without outputs, which rumoca "
                "0.10 drops (its asserts are never checked, its effects never made)"
            )
            if not called.conditional:
                raise BuildError(
                    f"{place}{model}: unsupported Modelica construct {what}: write the asserts "
                    "as equations of the model"
                )
            LOG.warning("%s%s: %s, in a branch of an if- or when-equation", place, model, what)
        try:
            roots = [self.folder.parent, *self.path]
            external = ExternalFunctions(roots, self._locator(compiled))
            texts = [text for _, text in sources.values()] if sources else None
            structural = structural_parameters(flat, texts)
            try:
                flat_model = read_flat(flat, model, external, structural)
            except UnsupportedConstructError:
                # a parameter used where a number must be known when the model is translated
                # (an index, a function's array size): every one evaluated, none listed
                flat_model = read_flat(flat, model, external)
        except UnsupportedConstructError as exc:
            used = self._rewriters
            if exc.construct.startswith(WHILE_AT_RUN_TIME) and function_loops not in used:
                return self._flatten(model, (*used, function_loops))
            place = self._place(exc.span, compiled)
            raise BuildError(
                f"{place}{model}: unsupported Modelica construct {exc.construct}"
            ) from None
        flat_model.value_types = value_types(flat, model)
        units = declared_units(flat_model.variables, sources)
        flat_model.residual_places = [
            self._place(span, compiled, sources).rstrip(": ") for span in flat_model.residual_spans
        ]
        for var in flat_model.variables:
            var.unit = units.get(var.name, var.unit)
        return flat_model

    def _load_rewritten(
        self, model: str, rewriters: tuple[SourceRewriter | LibraryRewriter, ...] = ()
    ) -> tuple[rumoca.Model, dict]:
        """rumoca's compiled model and flat form of ``model``, read from the user's sources or,
        where rumoca refuses what a source rewriter avoids or ``rewriters`` are given, from a
        copy with their edits (one copy for each set of rewriters, kept for the library's next
        models); the rewriters used are kept in ``_rewriters``."""
        while True:
            if rewriters and rewriters not in self._copies:
                self._copies[rewriters] = Rewritten([*self._roots, *self.path], rewriters)
            self._rewritten = self._copies.get(rewriters)
            try:
                compiled, flat = self._load(model, self._rewritten)
            except BuildError as exc:
                wanted = _wanted(str(exc), rewriters)
                if impure_statements in wanted:
                    _warn_impure_caller(str(exc))
                if not wanted and TIED_REFUSAL in str(exc):
                    wanted = self._connection_equations(model, rewriters)
                if not wanted:
                    raise
                rewriters += wanted
                continue
            # calls of one name that reach functions of two classes: rumoca kept one of them
            merged = any(len(classes) > 1 for classes in call_targets(flat).values())
            if not merged or renamed in rewriters:
                self._rewriters = rewriters
                return compiled, flat
            rewriters += (renamed,)

    def _connection_equations(
        self, model: str, rewriters: tuple[SourceRewriter | LibraryRewriter, ...]
    ) -> tuple[ConnectionEquations, ...]:
        """The rewriter of rumoca 0.10's tied connection sets into equations, from a first
        reading of ``model`` without them (:mod:`connection_chains`); none where that reading
        fails or the rewriter is among ``rewriters`` already."""
        if any(isinstance(rewriter, ConnectionEquations) for rewriter in rewriters):
            return ()
        reading = (*rewriters, unconnected(model))
        while True:
            try:
                _, flat = self._load(model, Rewritten([*self._roots, *self.path], reading))
                return (ConnectionEquations(flat["variables"]),)
            except BuildError as exc:
                wanted = _wanted(str(exc), reading)
                if not wanted:
                    return ()
                reading += wanted

    def _explain(self, model: str, message: str, rewritten: Rewritten | None = None) -> str:
        """One line of a rumoca failure, with the place of the first diagnostic if it has
        one (in the user's file where rumoca read the ``rewritten`` copy)."""
        entry = rewritten.copy_of(self.entry) if rewritten else self.entry

        def placed(found: re.Match) -> str:
            path, line, column = Path(found.group(1)), int(found.group(2)), int(found.group(3))
            if rewritten:
                line, column = rewritten.user_line_column(path, line, column)
                path = rewritten.user_path(path)
            return f"{self._relative(path)}:{line}:{column}"

        with _rust_stderr():
            diagnostics = rumoca.validate(str(entry), model=model)
        for diagnostic in diagnostics:
            if diagnostic.level != "error":
                continue
            text = diagnostic.message
            where = re.search(r"\[([^\]\s]+\.mo):(\d+):(\d+)\]", text)
            first = next((ln.strip(" ×") for ln in text.splitlines() if ln.strip(" ×")), "")
            if where:
                return f"{placed(where)}: {model}: {first}"
        detail = message.split("could not be compiled: ", 1)[-1].splitlines()[0]
        # "todae failed: <model> failed in ToDae: ..." (or in Typecheck, ...): the line names
        # the model already
        detail = re.sub(r"^\w+ failed: \S+ failed in \w+: ", "rumoca 0.10: ", detail)
        # a place rumoca gives in its message (the declaration of an array it cannot size)
        given = re.search(r"\[([^\]\s]+\.mo):(\d+):(\d+)\]", detail)
        if given:
            place = placed(given)
            detail = re.sub(r"\s*\[[^\]\s]+\.mo:\d+:\d+\]", "", detail.split("; ", 1)[0])
        else:
            place = self._relative(self.entry)
        if "outside the checked DAE lowering grammar" in detail:
            sampled = self._sample_in_initial_section()
            if sampled:
                return (
                    f"{sampled[0]}: {model}: unsupported Modelica construct sample(...) in an "
                    "initial equation or algorithm (rumoca 0.10); no sample fires at "
                    "initialization in these FMUs: write initial() where the start is meant"
                )
        for pattern, construct, token in RUMOCA_LIMITS:
            found = re.search(pattern, detail)
            if found:
                name = found.group(1)
                if token == DECLARED:
                    places = self._declaration(name)
                elif token in (CALL_STATEMENT, NESTED_WHEN):
                    places = self._statement(token == NESTED_WHEN)
                elif token == TIED_CONNECTION:
                    used = [r for rs, c in self._copies.items() if c is rewritten for r in rs]
                    equations = [r for r in used if isinstance(r, ConnectionEquations)] or [None]
                    places = self._first_place(partial(tied_connection, equations=equations[0]))
                elif token == ELEMENT_LOOP:
                    places = self._first_place(loop_beyond_elements)
                elif token == UNBOUNDED_WHILE:  # else where the function is, as "%s"
                    places = self._while_statement(name) or self._find(name)
                elif token == CALLED:
                    places = self._first_place(partial(call_of, name=name), on_path=True)
                elif token == WHEN_TUPLE:
                    places = self._first_place(tuple_in_when, on_path=True)
                elif token == FUNCTION_SLICE:
                    places = self._first_place(variable_slice, on_path=True)
                elif token == INITIAL_REFERENCE:
                    finder = partial(reference_in_initial_section, reference=name)
                    places = self._first_place(finder)
                else:
                    places = self._find(token.replace("%s", name)) if token else []
                if not places and token in ("%s", UNBOUNDED_WHILE) and "." in name:
                    places = self._definition(name)
                where = places[0] if places else place
                construct = construct.replace("%s", found.group(1))
                return f"{where}: {model}: unsupported Modelica construct {construct}"
        reference = re.search(r"unresolved [a-z ]+: '([^']+)'", detail)
        if reference:
            places = self._find(reference.group(1)) or self._find(reference.group(1).split(".")[-1])
            if places:
                return f"{places[0]}: {model}: {self._unqualified_import(detail)}"
        return f"{place}: {model}: {detail}"

    def _unqualified_import(self, message: str) -> str:
        """rumoca's 'unresolved import' of an unqualified import of a package that exists,
        which rumoca 0.10 resolves only where the model uses one of its classes, in our
        words; any other message as it is."""
        found = re.fullmatch(r"unresolved import: '([\w.]+)\.\*'", message)
        if not found:
            return message
        last = found.group(1).split(".")[-1]
        declared = re.compile(rf"\bpackage\s+{re.escape(last)}\b")
        for root in (self.folder.parent, *self.path):
            for path in root.rglob("*.mo"):
                if declared.search(path.read_text(encoding="utf-8", errors="replace")):
                    return (
                        f"unsupported Modelica construct unqualified import '{found.group(1)}.*' "
                        "where the model uses none of its classes (rumoca 0.10 then cannot "
                        "resolve it); import the classes by name"
                    )
        return message

    @staticmethod
    def _sources(compiled: rumoca.Model) -> Sources:
        """The source texts rumoca read, with their paths, by rumoca's source id; none when
        rumoca cannot give them."""
        try:
            files = compiled.to_dict("dae")["source_map"]["files"]
        except rumoca.RumocaError:
            return {}
        return {int(ident): (path, text) for ident, path, text in files}

    def _locator(self, compiled: rumoca.Model) -> Callable[[dict | None], Path | None]:
        """The file of a source span of ``compiled`` (its sources read at the first call)."""
        sources: Sources = {}

        def locate(span: dict | None) -> Path | None:
            if not span or "source" not in span:
                return None
            if not sources:
                sources.update(self._sources(compiled))
            path = sources.get(int(span["source"]), ("", ""))[0]
            if path and self._rewritten:
                path = str(self._rewritten.user_path(Path(path)))
            return Path(path).resolve() if path else None

        return locate

    def _place(
        self, span: dict | None, compiled: rumoca.Model, sources: Sources | None = None
    ) -> str:
        """``file:line:column: `` of a rumoca source span, or nothing when unknown."""
        if not span or "source" not in span:
            return ""
        if sources is None:
            sources = self._sources(compiled)
        path, text = sources.get(int(span["source"]), ("", ""))
        if not path:
            return ""
        start = int(span.get("start", 0))
        if self._rewritten and self._rewritten.user_path(Path(path)) != Path(path):
            start = self._rewritten.user_offset(Path(path), start)
            path = str(self._rewritten.user_path(Path(path)))
            text = Path(path).read_text(encoding="utf-8")
        start = min(start, len(text))
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        return f"{self._relative(Path(path))}:{line}:{column}: "

    def _relative(self, path: Path) -> str:
        try:
            return str(path.resolve().relative_to(self.folder.resolve().parent))
        except ValueError:
            return str(path)

    def _definition(self, name: str) -> list[str]:
        """``file:line:column`` of the definition of the function or class ``name`` (a full
        name, ``Modelica.Math.Vectors.interpolate``) in the library or on its path: the file
        of its innermost enclosing package stored in a file of its own, where
        ``class-kind last-name`` is declared."""
        parts = name.split(".")
        declared = re.compile(rf"\b(?:function|model|block|class|record)\s+{parts[-1]}\b")
        for root in (self.folder.parent, *self.path):
            for k in range(len(parts), 0, -1):
                folder = root.joinpath(*parts[: k - 1])
                for path in (folder / f"{parts[k - 1]}.mo", folder / parts[k - 1] / "package.mo"):
                    if not path.is_file():
                        continue
                    text = path.read_text(encoding="utf-8", errors="replace")
                    for number, line in enumerate(text.splitlines(), 1):
                        column = declared.search(line.split("//")[0])
                        if column:
                            place = f"{self._relative(path)}:{number}:{column.start() + 1}"
                            return [place]
        return []

    def _first_place(self, finder: Callable[[str], int | None], on_path: bool = False) -> list[str]:
        """``file:line:column`` of the first position ``finder`` gives in the library's
        sources (``on_path``: and then in those on its path)."""
        roots = (self.folder, *self.path) if on_path else (self.folder,)
        for path in (p for root in roots for p in sorted(root.rglob("*.mo"))):
            text = path.read_text(encoding="utf-8", errors="replace")
            position = finder(text)
            if position is not None:
                line = text.count("\n", 0, position) + 1
                column = position - (text.rfind("\n", 0, position) + 1) + 1
                return [f"{self._relative(path)}:{line}:{column}"]
        return []

    def _statement(self, nested_when: bool) -> list[str]:
        """``file:line:column`` of the first statement in the library's sources that
        :func:`refused_statement` finds (with ``nested_when``: a nested when-statement)."""
        return self._first_place(lambda text: refused_statement(text, nested_when))

    def _sample_in_initial_section(self) -> list[str]:
        """``file:line:column`` of the first ``sample(`` in an initial equation or algorithm
        section of the library's sources (:func:`sample_in_initial_section`)."""
        return self._first_place(
            lambda text: sample_in_initial_section(text) if "sample" in text else None
        )

    def _while_statement(self, function: str) -> list[str]:
        """``file:line:column`` of the first while loop of function ``function`` whose passes its
        text does not bound (:func:`unbounded_while`), in the library or on its path."""
        last = function.split(".")[-1]
        for root in (self.folder, *self.path):
            for path in sorted(root.rglob("*.mo")):
                text = path.read_text(encoding="utf-8", errors="replace")
                position = unbounded_while(text, last) if "while" in text else None
                if position is not None:
                    line = text.count("\n", 0, position) + 1
                    column = position - (text.rfind("\n", 0, position) + 1) + 1
                    return [f"{self._relative(path)}:{line}:{column}"]
        return []

    def _declaration(self, name: str) -> list[str]:
        """``file:line:column`` of the declaration of a component named as the last part of
        ``name`` (``gear.tau_bf_a_0``: ``parameter SI.Torque tau_bf_a_0 = ...``; ``q_qd``:
        ``input Real q_qd[2]``), the first in the library, else on its path."""
        last = name.split(".")[-1]
        declared = re.compile(
            rf"\b(?:parameter|constant|input|output|Real|Integer|Boolean)\b[^;\"=]*?"
            rf"\b({re.escape(last)})\s*[\[=(]"
        )
        for root in (self.folder, *self.path):
            for path in sorted(root.rglob("*.mo")):
                text = path.read_text(encoding="utf-8", errors="replace")
                if last not in text:
                    continue
                for number, line in enumerate(text.splitlines(), 1):
                    found = declared.search(line.split("//")[0])
                    if found:
                        return [f"{self._relative(path)}:{number}:{found.start(1) + 1}"]
        return []

    def _find(self, identifier: str) -> list[str]:
        """``file:line:column`` of each use of ``identifier`` (a name, or a name followed by
        its opening parenthesis or by ``:=``) in the library's sources."""
        ends_in_name = identifier[-1].isalnum() or identifier[-1] == "_"
        pattern = re.compile(rf"\b{re.escape(identifier)}" + (r"\b" if ends_in_name else ""))
        places = []
        for path in sorted(self.folder.rglob("*.mo")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                column = pattern.search(line.split("//")[0])
                if column:
                    places.append(f"{self._relative(path)}:{number}:{column.start() + 1}")
        return places
