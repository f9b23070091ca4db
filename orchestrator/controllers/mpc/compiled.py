"""The NLP functions of an MPC problem compiled to machine code, cached by their source.

CasADi's NLP solvers evaluate a problem's functions (objective and constraints, their
Jacobian, the Lagrangian's Hessian) in CasADi's virtual machine for SX expressions. Here
those functions are written out as C (``casadi.CodeGenerator``), compiled with the system's
C compiler into a shared library and handed back to a solver built with them (the solver's
``cache`` option), which then calls the compiled code through ``casadi.external``.

A scenario asks for this with ``compile_nlp = true`` in its ``rendezvous_mpc`` table; by
default the functions stay interpreted. The library lives in a cache folder
(:func:`cache_folder`), named by a hash of its source, the compiler's flags and CasADi's
version: it is built once (about 9 s of CPU time per vehicle for a horizon of 30, against
about 0.1 ms saved per local solve: ``python -m studies.mpc_cost``) and reused by every later
problem with the same functions. The C code performs
the virtual machine's floating-point operations in the same order (no contraction into fused
multiply-adds, no reassociation: ``-ffp-contract=off`` and no ``-ffast-math``), so a solver
with the compiled functions returns the same numbers bit for bit. When the compiler is
missing or fails, one line is logged and the caller keeps the interpreted functions.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import casadi as ca

COMPILER = "cc"
FLAGS = ("-O1", "-fPIC", "-shared", "-ffp-contract=off")
LOG = logging.getLogger(__name__)


class CompileError(RuntimeError):
    """The C compiler is missing or rejected the generated code."""


def cache_folder() -> Path:
    """Where compiled NLP functions are kept: ``$XDG_CACHE_HOME/murcosim/nlp`` (by default
    ``~/.cache/murcosim/nlp``)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "murcosim" / "nlp"


def compiled_functions(solver: ca.Function, folder: Path) -> dict[str, ca.Function] | None:
    """The NLP functions of ``solver`` (by the names ``solver.get_function()`` gives), loaded
    from a library in ``folder`` that is compiled first if it is not there; None, with one
    logged line, when that fails."""
    names = solver.get_function()
    generator = ca.CodeGenerator(f"{solver.name()}_nlp")
    for name in names:
        generator.add(solver.get_function(name))
    source = generator.dump()
    key = hashlib.sha256("\n".join([source, *FLAGS, ca.__version__]).encode()).hexdigest()
    library = folder / f"{solver.name()}_{key[:24]}.so"
    try:
        if not library.exists():
            _build(source, library)
        return {name: ca.external(name, str(library)) for name in names}
    except (CompileError, OSError, RuntimeError) as error:
        lines = str(error).strip().splitlines()
        reason = lines[0] if lines else type(error).__name__
        LOG.warning(
            "%s: NLP functions left to CasADi's virtual machine (not compiled: %s)",
            solver.name(),
            reason,
        )
        return None


def _build(source: str, library: Path) -> None:
    """Compile ``source`` into ``library``; written under a temporary name and renamed, so
    that runs building the same library at once never load a half-written file."""
    compiler = shutil.which(COMPILER)
    if compiler is None:
        raise CompileError(f"C compiler '{COMPILER}' not found on PATH")
    library.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=library.parent, prefix=".build-") as folder:
        code, built = Path(folder) / "nlp.c", Path(folder) / "nlp.so"
        code.write_text(source, encoding="utf-8")
        done = subprocess.run(
            [compiler, *FLAGS, str(code), "-o", str(built), "-lm"],
            capture_output=True,
            text=True,
        )
        if done.returncode:
            first = (done.stderr.strip().splitlines() or ["(no message)"])[0]
            raise CompileError(f"{COMPILER} failed: {first}")
        os.replace(built, library)
