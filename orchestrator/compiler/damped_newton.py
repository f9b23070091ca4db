"""Newton's method with a backtracking line search, for loops whose full Newton steps overshoot.

A junction's exponential law (a diode's or a bipolar transistor's ``i = Is*(exp(v/Vt) - 1)``,
``Vt`` about 26 mV) makes a loop's residual change by orders of magnitude within a fraction
of a volt. Newton's method started where the junction conducts little sees a small slope,
and its full step lands volts beyond the root, where ``exp`` overflows (or, linearized past
a limit as in the MSL's semiconductors, where the residual is larger than where it started);
from there each step brings the junction back by about one ``Vt``, more steps than the
iteration allows. Circuit simulators limit the junction voltage's change per step (SPICE's
``pnjlim``: L. W. Nagel, "SPICE2: A computer program to simulate semiconductor circuits",
Memo UCB/ERL M520, University of California, Berkeley, 1975); general solvers take a fraction
of the Newton step along which the residual decreases enough (a line search: J. E. Dennis
and R. B. Schnabel, "Numerical Methods for Unconstrained Optimization and Nonlinear
Equations", Prentice-Hall, 1983, Sec. 6.3; SUNDIALS' KINSOL with its ``KIN_LINESEARCH``
strategy). The second is general, and is used here: at each iteration the Newton step
``d`` from ``x`` is tried at ``x + a d`` for ``a = 1, 1/2, 1/4, ...`` and the first ``a``
where the residual's Euclidean norm falls below ``(1 - 1e-4 a)`` times its value at ``x``
(Armijo's condition) is taken; a trial whose residual is not finite (an overflow) fails the
condition. Where no trial of the halvings passes, the smallest is taken.

It runs, like Katzenelson's method, only where the loop's other solvers failed (a branch of
the generated C code: ``fallbacks.py``), so loops they solve cost what they did.
"""

from __future__ import annotations

import casadi as ca

from orchestrator.compiler.fallbacks import only_where

HALVINGS = 20  # trials per iteration: a = 1, 1/2, ..., 2**-(HALVINGS - 1)
ARMIJO = 1e-4  # fraction of the decrease the linear model predicts that a step must give


def damped_solution(
    residual: ca.SX,
    unknowns: ca.SX,
    start: ca.SX,
    wanted: ca.SX,
    name: str,
    iterations: int,
) -> ca.SX:
    """The ``unknowns`` (scalar symbols) for which ``residual`` vanishes, by Newton's method
    with a backtracking line search from ``start``, ``iterations`` steps, in the residual's
    other symbols; computed where ``wanted`` is nonzero, NaN elsewhere. Whether it converged
    is judged by the caller."""
    knowns = [s for s in ca.symvar(residual) if not ca.depends_on(s, unknowns)]
    given = ca.vertcat(*knowns) if knowns else ca.SX(0, 1)
    function = ca.Function(f"{name}_residual", [unknowns, given], [residual])
    newton_step = ca.rootfinder(
        f"{name}_step",
        "fast_newton",
        function,
        {"abstol": 0.0, "abstolStep": 0.0, "max_iter": 1, "error_on_fail": False},
    )
    x = ca.MX.sym("x", unknowns.numel())
    p = ca.MX.sym("given", given.numel())
    norm = ca.norm_2(function(x, p))
    step = newton_step(x, p) - x
    taken = x + 2.0 ** -(HALVINGS - 1) * step
    for k in reversed(range(HALVINGS - 1)):
        fraction = 2.0**-k
        trial = x + fraction * step
        decreased = ca.norm_2(function(trial, p)) <= (1 - ARMIJO * fraction) * norm
        taken = ca.if_else(decreased, trial, taken)
    # one iteration as a function, repeated by a loop of the generated code (mapaccum)
    iterate = ca.Function(f"{name}_damped_step", [x, p], [taken]).mapaccum(iterations)
    x0 = ca.MX.sym("start", unknowns.numel())
    iterates = iterate(x0, ca.repmat(p, 1, iterations))
    # a call of its own in the model's expressions, not expanded into them
    passes = ca.Function(f"{name}_damped", [x0, p], [iterates[:, -1]], {"never_inline": True})
    return only_where(f"{name}_line_search", passes, wanted, start, given)
