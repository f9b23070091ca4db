"""A loop solver's fallback, computed only where the attempts before it failed.

The nonlinear loops of a model are solved by a chain of attempts (``causalize.py``): Newton
from the last solution, Newton on the whole loop, Newton from the start values, Katzenelson's
method, Newton with a line search. Each fallback is a branch of the generated C code, taken
only where it is wanted, so that a loop the first attempt solves costs that attempt alone. An
attempt fails where its residual stays above the loop's tolerance or where it ends outside an
unknown's declared ``min`` or ``max`` (``root_bounds.py``).

A ``casadi.Function.if_else`` called with the model's SX expressions is expanded into them:
both branches are computed and one is selected, so every fallback ran at every evaluation
(the line search's 500 iterations too), and MSL's ``HeatingMOSInverter`` took 85 ms per
evaluation of its derivatives. Wrapped in an MX function that is never inlined, the switch
stays a call whose generated code branches (``if (wanted) ... else ...``).
"""

from __future__ import annotations

import casadi as ca


def only_where(name: str, function: ca.Function, wanted: ca.SX, *args: ca.SX) -> ca.SX:
    """``function(*args)`` (one output) where ``wanted`` is nonzero, NaN elsewhere, as the
    branch ``name`` of the generated code."""
    inputs = function.mx_in()
    skipped = ca.Function(f"{name}_skipped", inputs, [ca.MX.nan(*function.size_out(0))])
    switch = ca.Function.if_else(f"{name}_switch", function, skipped)
    flag = ca.MX.sym("wanted")
    branch = ca.Function(name, [flag, *inputs], [switch(flag, *inputs)], {"never_inline": True})
    return branch(wanted, *args)
