"""Initial conditions of friction elements whose modes relations decide inside logic on
``pre(mode)`` (the method of M. Otter, H. Elmqvist and S. E. Mattsson, "Hybrid modeling in
Modelica based on the synchronous data flow principle", CACSD'99, 1999, as the Modelica
Standard Library's friction components use it), ``tests/data/relation_init/FrictionLib``.

- ``StickSlipBlock``: a block at rest on a rough floor (``s`` starting at a parameter, so
  the FMU computes it), pushed by ``F sin(omega t)``: stuck, sliding forward, stuck, sliding
  backward... Its ``Integer mode(start = Unknown, fixed = true)`` means ``pre(mode) =
  Unknown`` (Modelica Language Specification 3.6, Sec. 8.6), not ``mode = Unknown``: the
  build took it for the latter and refused the model ("too many initial conditions,
  contradicting the others: mode = 3.0 (fixed)"; MSL's ``Rotational.Examples.Friction``
  failed at ``brake.mode`` so).
- ``EngagingClutch``: a driven inertia whose drive torque a ``fixed = false`` parameter
  gives from ``der(w1) = 0`` at the start, a free inertia, a clutch between them closing at
  ``t_on`` (``fn`` a step in time, ``free = fn <= 0``): it slides, then sticks. The initial
  condition reads the clutch torque, thus ``free``, a relation on ``fn``, whose value is
  itself a relation on ``time``: held values that name variables the equations compute,
  whose values name memories again, which escaped the substitution (CasADi's "variables
  [relation[7]] are free").

Both against their solutions by hand (SciPy's ``brentq`` for the instants of sticking and
sliding): the block's sliding phases ``m v' = F sin(omega t) -+ f_slide`` integrated in closed
form, the clutch's sliding ``J1 w1' = tau_drive - d w1 - mu fn``, ``J2 w2' = mu fn`` and stuck
phase ``(J1 + J2) w' = tau_drive - d w`` likewise; to 1e-6 in all four variants (FMI 3.0 and
2.0, Model Exchange and Co-Simulation; :func:`build_variants.assert_agrees_in_four_variants`)
at grid points more than 2 ms away from the switching instants (the grid's interpolation
across a kink). A relation whose sides depend on its own value at the start (``y = if x + y
> 0 then 1 else -1`` read by ``der(x) = 0``: a mixed system of the initial conditions) is
refused in one line with its place.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, assert_agrees_in_four_variants, built_fmus, one_line_refusal
from fmpy import simulate_fmu
from scipy.optimize import brentq

LIBRARY = Path(__file__).parents[1] / "data" / "relation_init" / "FrictionLib"
AWAY = 2e-3  # s: grid points this close to a switching instant are left out
# the models' parameters (FrictionLib)
BLOCK = dict(m=1.0, F=2.0, omega=2.0, f_slide=1.0, f_stick=1.5, s_start=0.2)
CLUTCH = dict(J1=1.0, J2=0.5, d=0.5, w_start=10.0, t_on=0.5, fn_max=20.0, mu=0.1, mu0=0.15)
SLIDING = dict(m=0.1, F0=1.0, r=2.0, f_slide=1.0, f_stick=1.5, v_start=-2.0)
SPINNING = dict(J1=1.0, J2=0.1, d=0.5, fn=20.0, mu=0.1, mu0=0.15, w1=10.0)
INSTANT = 1e-8  # s: a switching instant of the Model Exchange runs against the solution


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("friction"))


def _crossing(function, start: float, stop: float, points: int = 20001) -> float:
    """The first instant after ``start`` where ``function`` turns positive (brentq in the
    first interval of a fine grid where it does)."""
    grid = np.linspace(start, stop, points)
    values = function(grid)
    k = np.nonzero((values[:-1] <= 0) & (values[1:] > 0))[0][0]
    return brentq(function, grid[k], grid[k + 1], xtol=1e-15)


def stick_slip(times: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """The block's position and velocity at ``times`` and its switching instants, by hand:
    stuck while ``|F sin(omega t)| <= f_stick``; from there sliding in the push's direction,
    ``m v' = F sin(omega t) - sign f_slide`` in closed form, until ``v = 0``, where the push
    is within ``f_stick`` again (asserted) and it sticks."""
    m, push, omega, f_slide, f_stick = (BLOCK[k] for k in ("m", "F", "omega", "f_slide", "f_stick"))
    s, v = np.full_like(times, BLOCK["s_start"]), np.zeros_like(times)
    t, s0, end, switches = 0.0, BLOCK["s_start"], times[-1], []

    def stuck(u):
        return (push * np.sin(omega * u)) ** 2 - f_stick**2

    while t < end:
        if np.all(stuck(np.linspace(t, end, 20001)) <= 0):
            s[times >= t] = s0
            break
        start = _crossing(stuck, t, end)
        sign = np.sign(np.sin(omega * start))
        a, c = push / (m * omega), np.cos(omega * start)

        def velocity(u, start=start, sign=sign, a=a, c=c):
            return a * (c - np.cos(omega * u)) - sign * f_slide * (u - start) / m

        def position(u, start=start, sign=sign, a=a, c=c, s0=s0):
            rise = a * (c * (u - start) - (np.sin(omega * u) - np.sin(omega * start)) / omega)
            return s0 + rise - sign * f_slide * (u - start) ** 2 / (2 * m)

        stop = _crossing(lambda u, sign=sign: -sign * velocity(u), start + 1e-9, start + 10)
        assert abs(push * np.sin(omega * stop)) < f_stick, "the block would slide on"
        held = (times >= t) & (times < start)
        s[held] = s0
        sliding = (times >= start) & (times < stop)
        s[sliding], v[sliding] = position(times[sliding]), velocity(times[sliding])
        switches += [start, stop]
        t, s0 = stop, position(stop)
    return s, v, switches


def engaging_clutch(times: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The inertias' speeds at ``times`` and the instant the clutch sticks, by hand: steady
    at ``w_start`` (``tau_drive = d w_start``) until ``t_on``; sliding with the torque ``mu
    fn_max`` until the speeds meet; then one inertia ``J1 + J2`` relaxing to ``w_start``,
    with the clutch's torque ``J2 w'`` below ``mu0 fn_max`` (asserted)."""
    j1, j2, d, w0, t_on = (CLUTCH[k] for k in ("J1", "J2", "d", "w_start", "t_on"))
    torque = CLUTCH["mu"] * CLUTCH["fn_max"]

    def driven(u):
        return w0 - (torque / d) * (1 - np.exp(-d * u / j1))

    def free(u):
        return torque * u / j2

    slid = brentq(lambda u: driven(u) - free(u), 1e-6, 10.0, xtol=1e-15)
    meet, locked = free(slid), t_on + slid
    assert j2 * d * (w0 - meet) / (j1 + j2) < CLUTCH["mu0"] * CLUTCH["fn_max"]
    together = w0 - (w0 - meet) * np.exp(-d * (times - locked) / (j1 + j2))
    w1 = np.where(times < t_on, w0, np.where(times < locked, driven(times - t_on), together))
    w2 = np.where(times < t_on, 0.0, np.where(times < locked, free(times - t_on), together))
    return w1, w2, locked


def test_block_sticks_and_slides_as_by_hand_in_four_variants(fmus):
    times = np.linspace(0.0, 6.0, 601)
    s, v, switches = stick_slip(times)
    # four slides, forward and backward in turn, the last ending after 6 s
    assert len(switches) == 8
    away = np.min(np.abs(times[:, None] - np.array(switches)[None, :]), axis=1) > AWAY
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "StickSlipBlock")],
        {"s": s[away], "v": v[away]},
        times[away],
        "stick-slip",
    )


def test_clutch_slides_then_sticks_as_by_hand_in_four_variants(fmus):
    times = np.linspace(0.0, 5.0, 501)
    w1, w2, locked = engaging_clutch(times)
    away = (np.abs(times - locked) > AWAY) & (np.abs(times - CLUTCH["t_on"]) > AWAY)
    reference = {"w1": w1[away], "w2": w2[away]}
    reference["tau_drive"] = np.full(away.sum(), CLUTCH["d"] * CLUTCH["w_start"])
    assert_agrees_in_four_variants(
        lambda variant: fmus[(variant, "EngagingClutch")], reference, times[away], "clutch"
    )


def test_relation_reading_itself_at_the_start_is_refused_in_one_line(tmp_path):
    message = one_line_refusal(
        tmp_path,
        "package Bad\n  model M\n    Real x(start = 0.5);\n    Real y;\n  equation\n"
        "    y = if x + y > 0 then 1 else -1;\n    der(x) = y - x;\n"
        "  initial equation\n    der(x) = 0;\n  end M;\nend Bad;\n",
    )
    assert message.startswith("Bad/package.mo:6:5: Bad.M: "), message
    assert "depends on itself at the start" in message and "relation[1]" in message, message


def test_initial_in_continuous_equations_of_fixed_states_builds_in_four_variants(fmus):
    """EasedSpring: initial() in an if-equation giving a continuous force only, every state
    from its start value: after the start it reads false, x = cos(2 t) for c = 4 N/m, m = 1 kg
    (to 1e-6). The same read where it decides a discrete value is refused
    (test_unsupported_construct_is_one_line)."""
    times = np.linspace(0.0, 1.0, 11)
    # f at t = 0 is the force the FMU computes after its initialization, c x
    reference = {"x": np.cos(2.0 * times), "f": 4.0 * np.cos(2.0 * times)}
    spring = lambda v: fmus[(v, "EasedSpring")]  # noqa: E731
    assert_agrees_in_four_variants(spring, reference, times, "EasedSpring")


def sliding_block(times: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """SlidingBlock by hand: sliding backward from ``v_start`` under the push ``F0 + r t``
    and the friction ``+f_slide``, ``m v' = F0 + r t + f_slide``, until ``v = 0`` at ``t1``
    (the root of ``r t^2 / 2 + (F0 + f_slide) t + m v_start``); stuck while the push is
    below ``f_stick`` (asserted at ``t1``), up to ``t2 = (f_stick - F0) / r``; then sliding
    forward, ``m v' = F0 + r t - f_slide``, from rest."""
    m, push, rate, f_slide, f_stick, v0 = (SLIDING[k] for k in SLIDING)
    t1 = (-(push + f_slide) + np.sqrt((push + f_slide) ** 2 - 2 * rate * m * v0)) / rate
    t2 = (f_stick - push) / rate
    assert push + rate * t1 < f_stick and t1 < t2

    def backward(u):
        v = v0 + ((push + f_slide) * u + rate * u**2 / 2) / m
        return v0 * u + ((push + f_slide) * u**2 / 2 + rate * u**3 / 6) / m, v

    s1 = backward(t1)[0]
    late = np.maximum(times - t2, 0.0)
    v3 = ((push - f_slide) * late + rate * (np.maximum(times, t2) ** 2 - t2**2) / 2) / m
    s3 = s1 + ((push - f_slide) * late**2 / 2 + rate * late**2 * (late / 3 + t2) / 2) / m
    s, v = backward(times)
    s = np.where(times < t1, s, np.where(times < t2, s1, s3))
    v = np.where(times < t1, v, np.where(times < t2, 0.0, v3))
    return s, v, [t1, t2]


def sliding_clutch(times: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """SlidingClutch by hand: sliding from the start with the torque ``mu fn``, ``J1 w1' =
    -d w1 - mu fn``, ``J2 w2' = mu fn``, until the speeds meet at ``t1`` (brentq); then one
    inertia ``J1 + J2`` decaying by ``d``, the clutch's torque ``J2 w'`` within ``mu0 fn``
    (asserted)."""
    j1, j2, d, fn, mu, mu0, w0 = (SPINNING[k] for k in SPINNING)
    torque = mu * fn

    def spinning(u):
        return (w0 + torque / d) * np.exp(-d * u / j1) - torque / d

    def resting(u):
        return torque * u / j2

    t1 = brentq(lambda u: spinning(u) - resting(u), 1e-6, 10.0, xtol=1e-15)
    meet = resting(t1)
    assert j2 * d * meet / (j1 + j2) < mu0 * fn
    together = meet * np.exp(-d * (times - t1) / (j1 + j2))
    w1 = np.where(times < t1, spinning(times), together)
    w2 = np.where(times < t1, resting(times), together)
    return w1, w2, t1


def _agrees_with_modes(fmu_of, reference, times, modes, switches, label):
    """Each variant against ``reference`` to 1e-6 at the grid points more than AWAY from
    ``switches``, ``mode`` against ``modes`` (its value at ``times``) there too, and in Model
    Exchange the instants where ``mode`` changes (FMPy's rows at events) to INSTANT."""
    away = np.min(np.abs(times[:, None] - np.array(switches)[None, :]), axis=1) > AWAY
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmu_of(variant)),
            fmi_type=interface,
            stop_time=times[-1],
            output_interval=times[1] - times[0],
            relative_tolerance=1e-10,
            output=[*reference, "mode"],
        )
        where = f"{label} {variant} {interface}"
        for name, expected in reference.items():
            got = np.interp(times[away], result["time"], result[name])
            error = np.max(np.abs(got - expected[away]))
            assert error < 1e-6, f"{where} {name}: error {error:.2e}"
        rows = np.searchsorted(result["time"], times[away], side="right") - 1
        assert np.array_equal(result["mode"][rows], modes[away]), f"{where}: mode"
        if interface == "ModelExchange":
            changed = np.nonzero(np.diff(result["mode"]) != 0)[0] + 1
            found = result["time"][changed]
            assert len(found) == len(switches), f"{where}: mode changes at {found}"
            error = np.max(np.abs(found - switches))
            assert error < INSTANT, f"{where}: switching instants off by {error:.1e} s"


def test_block_sliding_at_the_start_sticks_and_slides_again_in_four_variants(fmus):
    """SlidingBlock starts sliding backward (mode -1), which only ``initial() and v_rel <
    0`` decides: read as false while initializing, the block started stuck and kept its
    velocity of -2 m/s. Where it sticks, the relation ``sa > f0_max`` held its value from
    the backward slide (sa = a_rel - f0_max = 20.4 > 1.5) and started a forward slide, which
    was as consistent as sticking (F = 1.19 N > f_slide); the pass that sets ``pre(mode)``
    to Stuck decides the relations with ``startForward`` at its value before, so the block
    sticks, then slides forward where the push passes f_stick."""
    times = np.linspace(0.0, 0.5, 501)
    s, v, switches = sliding_block(times)
    modes = np.where(times < switches[0], -1, np.where(times <= switches[1], 0, 1))
    _agrees_with_modes(
        lambda variant: fmus[(variant, "SlidingBlock")],
        {"s": s, "v": v},
        times,
        modes,
        switches,
        "SlidingBlock",
    )


def test_clutch_sliding_at_the_start_sticks_in_four_variants(fmus):
    """SlidingClutch starts sliding forward (``initial() and v_rel > 0``) and sticks where
    the speeds meet; with the relation ``sa < -f0_max`` held from the forward slide, the
    event iteration went from a backward slide to a forward one and back until its limit of
    passes ("did not settle in 100 passes")."""
    times = np.linspace(0.0, 2.0, 401)
    w1, w2, locked = sliding_clutch(times)
    _agrees_with_modes(
        lambda variant: fmus[(variant, "SlidingClutch")],
        {"w1": w1, "w2": w2},
        times,
        np.where(times < locked, 1, 0),
        [locked],
        "SlidingClutch",
    )


@pytest.mark.parametrize("model", ["SlidingBlock", "StickSlipBlock", "SlidingClutch"])
def test_event_update_builds_each_subexpression_once(model):
    """A pass of the event iteration decides a friction element's relations again at the new
    ``pre`` values, from its unknowns built a second time: only the relations that read a
    memory of ``pre`` are, and the parts the two builds share are merged, so that merging
    the update's repeated subexpressions once more finds none (they were left in twice:
    MSL's ``Translational.Examples.Friction``'s update of 125,630 operations compiled for
    over 50 minutes; merged, 42,473). The FMUs' runs are the tests above."""
    import casadi as ca

    from orchestrator.compiler.flat_dae import flat_dae
    from orchestrator.compiler.rumoca_front import RumocaLibrary

    _, _, events = flat_dae(RumocaLibrary(LIBRARY).flatten(f"FrictionLib.{model}"))
    update = next(f for f in events.functions if f.name() == "model_event")
    symbols = [ca.SX.sym(f"a{i}", update.sparsity_in(i)) for i in range(update.n_in())]
    merged = ca.Function("merged", symbols, ca.cse(update.call(symbols)))
    assert update.n_instructions() == merged.n_instructions()
