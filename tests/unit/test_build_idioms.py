"""Idioms of Modelica libraries not written here before, each model against its known solution.

``tests/data/idioms`` holds four small libraries written the way library authors write them:

- ``StreamLib``: stream connectors (``stream``, ``inStream``, ``actualStream``) in a
  thermal-fluid circuit whose flow reverses, a medium package with constants and functions
  (``replaceable package Medium``, ``Medium.cp``, ``Medium.specificEnthalpy``) redeclared
  in components and in ``extends``, a connection of three ports (ideal mixing);
- ``MediumLib``: media as packages of constants and functions, extended with modifications,
  declared as a short class with a modification, redeclared in components; a constant
  modified again where a package that modifies it is extended or redeclared, and a package
  redeclared in ``extends`` whose functions the base calls (refused: rumoca 0.10 keeps the
  base's values);
- ``RigidLib``: ``der`` of a vector and of a matrix, matrix equations ``J*der(w) = b``,
  ``cross``, ``skew``, ``transpose``, ``identity``, ``diagonal``, a function of its own
  with a default and named arguments, ``initial equation der(x) = zeros(2)``;
- ``SignalLib``: Boolean and Integer outputs of blocks, an enumeration input, ``String``
  parameters, ``semiLinear``, hysteresis with ``when``/``elsewhen``, and the MSL's
  hysteresis written with ``pre(y)`` outside a when-equation (refused);
- ``PhasorLib``: an operator record ``Complex`` (refused by rumoca 0.10).

Each model that builds is checked in all four variants (FMI 3.0 and 2.0, Model Exchange and
Co-Simulation) against an analytic solution or SciPy (DOP853 at 1e-12) to 1e-6, at points off
the events; event times of the Model Exchange runs to 1e-8 s.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, built_fmus
from fmpy import read_model_description, simulate_fmu
from modelica_support import IDIOMS
from scipy.integrate import solve_ivp
from scipy.linalg import expm

from orchestrator.compiler import build_library
from orchestrator.errors import BuildError

DATA = Path(__file__).parents[1] / "data" / "idioms"
STOP = 2.0
TIMES = np.arange(0.02, STOP, 0.1)  # off every event of the libraries


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    built = {}
    for library in ("StreamLib", "MediumLib", "RigidLib", "SignalLib"):
        built |= built_fmus(DATA / library, tmp_path_factory.mktemp(library))
    return built


def check(fmus, model, reference, times=TIMES, events=None, rtol=1e-10):
    """Each variant of ``model`` against ``reference`` (name -> values at ``times``) to 1e-6;
    with ``events``, the event times of the Model Exchange runs to 1e-8 s."""
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmus[(variant, model)]),
            fmi_type=interface,
            stop_time=times[-1] + 0.08,
            output_interval=0.01,
            relative_tolerance=rtol,
            output=list(reference),
        )
        for name, expected in reference.items():
            got = np.interp(times, result["time"], result[name])
            error = np.max(np.abs(got - expected))
            assert error < 1e-6, f"{model} {variant} {interface} {name}: error {error:.2e}"
        if events is not None and interface == "ModelExchange":
            t = result["time"]
            found = np.unique(t[1:][np.diff(t) == 0])
            assert len(found) == len(events), f"{model} {variant}: events at {found}"
            assert np.max(np.abs(found - events)) < 1e-8, f"{model} {variant}: {found}"


def piecewise(rhs, y0, edges, times):
    """SciPy's solution of y' = rhs(t, y) at ``times``, restarted at each of ``edges`` (where
    the right-hand side has a kink or a jump)."""
    out = np.zeros((len(y0), len(times)))
    y = np.asarray(y0, dtype=float)
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        sol = solve_ivp(rhs, (a, b), y, rtol=1e-12, atol=1e-12, method="DOP853", dense_output=True)
        inside = (times >= a) & (times <= b)
        out[:, inside] = sol.sol(times[inside])
        y = sol.y[:, -1]
    return out


# -- StreamLib ---------------------------------------------------------------------------------
STREAM_TIMES = np.arange(0.0, 4.0 + 1e-9, 0.02)


@pytest.mark.parametrize(("model", "cp"), [("ReversingFlow", 4184.0), ("ReversingOil", 1900.0)])
def test_stream_connectors_with_flow_reversal(fmus, model, cp):
    """A source pushes 0.2 cos(pi t) kg/s at 80 degC through volume 1 (0.5 kg, heated with
    2 kW), a pipe (2e-5 kg/(s Pa)) and volume 2 (0.3 kg) into a 10 degC boundary. With m > 0
    the volumes take the fluid from upstream, with m < 0 from downstream:
    m1 cp T1' = |m| (T_up - T1) + Q, m2 T2' = |m| (T_up2 - T2). ``Medium.cp`` reaches the
    model only through the heat input: water against oil (redeclared in ``extends``) tells
    whether the redeclared package's constant is the one used. The flow reverses at
    t = 0.5 + k s without events (``actualStream`` is multiplied by its flow, continuous):
    CVode is run at 1e-12 here, as at 1e-10 its error after the kinks reaches 2e-6 K."""
    m1, m2, heat, amplitude, t_source, t_sink = 0.5, 0.3, 2000.0, 0.2, 353.15, 283.15

    def rhs(t, y):
        t1, t2 = y
        m = amplitude * math.cos(math.pi * t)
        if m > 0:
            return [(m * (t_source - t1) + heat / cp) / m1, m * (t1 - t2) / m2]
        return [(-m * (t2 - t1) + heat / cp) / m1, -m * (t_sink - t2) / m2]

    times = STREAM_TIMES[:-4]
    ref = piecewise(rhs, [303.15, 293.15], [0, 0.5, 1.5, 2.5, 3.5, 4.0], times)
    dp = amplitude * np.cos(np.pi * times) / 2e-5
    check(fmus, model, {"T1": ref[0], "T2": ref[1], "dp": dp}, times, rtol=1e-12)


def test_in_stream_of_three_ports_mixes_the_inflows(fmus):
    """Hot (0.3 kg/s, 90 degC) and cold (0.1 kg/s, 10 degC) water meet a volume (2 kg, 20
    degC) and a sensor (no flow) at one node. Ideal mixing gives 70 degC at the node
    (Modelica 3.6, Sec. 15.2); rumoca 0.10 writes ``inStream`` with the specification's
    "trivial implementation" ``positiveMax(-m_flow) = max(-m_flow, 1e-7 kg/s)``, so each
    port that takes fluid in also weighs 1e-7 kg/s: the reference is that formula (1.2e-5 K
    from ideal mixing here), and the volume follows T' = 0.4/2 (T_node - T)."""
    eps, cp, t_ref = 1e-7, 4184.0, 293.15
    h_hot, h_cold = cp * (363.15 - t_ref), cp * (283.15 - t_ref)

    def rhs(t, y):  # the volume's inflow: hot, cold and the sensor's h_outflow = 0
        h_in = (0.3 * h_hot + 0.1 * h_cold + eps * 0.0) / (0.4 + eps)
        return [0.4 * (t_ref + h_in / cp - y[0]) / 2]

    temperature = piecewise(rhs, [293.15], [0, STOP], TIMES)[0]
    h_volume = cp * (temperature - t_ref)
    node = t_ref + (0.3 * h_hot + 0.1 * h_cold + eps * h_volume) / (0.4 + eps) / cp
    assert abs(node[0] - 343.15) < 2e-5  # ideal mixing, to the regularization
    check(fmus, "ThreeWayMixing", {"T": temperature, "T_mix": node})


# -- MediumLib ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "cp", "t_ref"),
    [
        ("WaterHeater", 4184.0, 293.15),
        ("SharedWaterHeater", 4184.0, 293.15),
        ("ColdWaterHeater", 4200.0, 273.15),
    ],
)
def test_media_redeclared_into_a_component(fmus, model, cp, t_ref):
    """2 kg heated with 1 kW: T = 293.15 K + 1000 t/(2 cp), and the medium's function gives
    h = cp (T - T_ref), cp and T_ref those of the medium redeclared (Water extends the partial
    medium with cp = 4184; ColdWater is a short class giving cp = 4200, T_ref = 273.15).
    SharedWaterHeater is WaterHeater with its heat flow summed from shares: it builds although
    the library holds refused modifications in classes it does not use."""
    temperature = 293.15 + 1000 * TIMES / (2 * cp)
    check(fmus, model, {"T": temperature, "h": cp * (temperature - t_ref)})


# -- RigidLib ----------------------------------------------------------------------------------
def skew(a):
    return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def test_euler_equations_with_cross_skew_and_transpose(fmus):
    """J w' = -w x (J w), R' = -skew(w) R (R from the world to the body frame): SciPy's
    solution, and what is conserved: the angular momentum in the world frame R' J w = J w0
    and the energy w' J w / 2 (also from the function called with named arguments)."""
    inertia = np.array([[2, 0.1, 0], [0.1, 3, 0.2], [0, 0.2, 4.0]])
    w0 = np.array([1, 0.5, -0.8])

    def rhs(t, y):
        w, rotation = y[:3], y[3:].reshape(3, 3)
        dw = np.linalg.solve(inertia, -np.cross(w, inertia @ w))
        return np.concatenate([dw, (-skew(w) @ rotation).ravel()])

    y = piecewise(rhs, np.concatenate([w0, np.eye(3).ravel()]), [0, STOP], TIMES)
    momentum, energy = inertia @ w0, 0.5 * w0 @ inertia @ w0
    reference = {f"w_out[{i + 1}]": y[i] for i in range(3)}
    reference |= {f"L[{i + 1}]": np.full_like(TIMES, momentum[i]) for i in range(3)}
    reference |= {"R13": y[5], "E": np.full_like(TIMES, energy)}
    reference["E_named"] = reference["E"]
    reference["orthogonality"] = np.zeros_like(TIMES)
    check(fmus, "FreeRotation", reference)


def test_matrix_equation_with_a_torque_switched_on(fmus):
    """A symmetric top, diag(1, 1, 2) w' + skewMatrix(w) diag(1, 1, 2) w = tau, with
    tau = (0, 0, 0.5) N m from t = 0.5 s (a time event): SciPy's solution in two pieces."""
    inertia = np.array([1, 1, 2.0])

    def rhs(t, w):
        torque = np.array([0, 0, 0.5]) if t >= 0.5 else np.zeros(3)
        return (torque - np.cross(w, inertia * w)) / inertia

    w = piecewise(rhs, [0.3, 0, 2], [0, 0.5, STOP], TIMES)
    check(fmus, "SpinningTop", {"w1": w[0], "w2": w[1], "w3": w[2]}, events=[0.5])


def test_steady_start_of_a_matrix_system(fmus):
    """M x' = A x + B u with ``der(x) = zeros(2)`` at the start: x(0) = -A^-1 B u0, held
    until u steps from 1 to -2 at t = 1 s; then x = x_inf + exp(M^-1 A (t - 1)) (x0 - x_inf)."""
    a, b, m = np.array([[-1, 2], [-3, -4.0]]), np.array([1, 0.5]), np.array([[2, 1], [1, 3.0]])
    x0, x_inf = -np.linalg.solve(a, b * 1), -np.linalg.solve(a, b * -2)
    x = np.array(
        [
            x0 if t < 1 else x_inf + expm(np.linalg.solve(m, a) * (t - 1)) @ (x0 - x_inf)
            for t in TIMES
        ]
    ).T
    check(fmus, "SteadyLinearSystem", {"x1": x[0], "x2": x[1]}, events=[1.0])


# -- SignalLib ---------------------------------------------------------------------------------
def test_boolean_and_integer_outputs_and_semi_linear(fmus):
    """sin(2 pi t) through a hysteresis (on above 0.6, off below -0.3) counting its switchings
    on, a gear chosen by time (Drive, Neutral from 0.4 s, Reverse from 1.2 s) with an Integer
    direction and a Boolean 'moving', and semiLinear(m, 1000*300, 1000*350) of m = sin(2 pi t):
    the Boolean and Integer outputs exact, the events where sin crosses 0.6 and -0.3 and at the
    gear changes."""
    on_at, off_at = math.asin(0.6) / (2 * math.pi), 0.5 + math.asin(0.3) / (2 * math.pi)
    phase = TIMES % 1
    m = np.sin(2 * np.pi * TIMES)
    gear = np.where(TIMES < 0.4, 1, np.where(TIMES < 1.2, 0, -1))
    reference = {
        "on": ((phase > on_at) & (phase < off_at)).astype(float),
        "count": np.where(1 + on_at < TIMES, 2.0, np.where(on_at < TIMES, 1.0, 0.0)),
        "direction": gear.astype(float),
        "moving": (gear != 0).astype(float),
        "w": np.select([gear == 1, gear == 0], [20.0, 0.0], -5.0),
        "Q_flow": np.where(m >= 0, m * 1000 * 300, m * 1000 * 350),
    }
    # the hysteresis' relations switch where sin crosses 0.6 and -0.3 on either slope
    up, down = math.asin(0.6) / (2 * math.pi), math.asin(0.3) / (2 * math.pi)
    crossings = [k + s for k in (0, 1) for s in (up, 0.5 - up, 0.5 + down, 1 - down)]
    check(fmus, "SwitchingRun", reference, events=sorted([*crossings, 0.4, 1.2]))


@pytest.mark.parametrize(("variant", "interface"), VARIANTS)
def test_enumeration_input_is_discrete_and_starts_at_its_first_literal(fmus, variant, interface):
    """The gear (an enumeration input) is declared discrete, so importers hold it between
    its points instead of interpolating (FMPy interpolates continuous inputs: at 0.5 s,
    between Drive = 3 at 0 s and Reverse = 1 at 1 s, the FMU was given 2, Neutral), and it
    starts at its first literal, Reverse = 1 (Modelica 3.6, Sec. 4.9.5.1), not at 0."""
    path = fmus[(variant, "GearBox")]
    gear = {v.name: v for v in read_model_description(str(path)).modelVariables}["gear"]
    assert (gear.causality, gear.variability, float(gear.start)) == ("input", "discrete", 1.0)
    signals = np.array(
        [(0.0, 3.0, 10.0), (1.0, 1.0, 10.0), (2.0, 1.0, 10.0)],
        dtype=[("time", float), ("gear", float), ("w_in", float)],
    )
    result = simulate_fmu(
        str(path),
        fmi_type=interface,
        stop_time=2.0,
        output_interval=0.1,
        input=signals,
        output=["w_out", "direction", "moving"],
    )
    at = {t: i for i, t in enumerate(np.round(result["time"], 9))}
    assert (result["w_out"][at[0.5]], result["direction"][at[0.5]]) == (20.0, 1.0)
    assert (result["w_out"][at[1.5]], result["direction"][at[1.5]]) == (-5.0, -1.0)
    assert result["moving"][at[0.5]] == result["moving"][at[1.5]] == 1.0


# -- refused -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("library", "model", "words"),
    [
        (
            "MediumLib",
            "BrineHeater",
            "MediumLib/package.mo:24:5: MediumLib.BrineHeater: unsupported Modelica construct "
            "modification of package constant 'cp' that 'Water' already modifies",
        ),
        (
            "MediumLib",
            "SaltyHeater",
            "MediumLib/package.mo:63:29: MediumLib.SaltyHeater: unsupported Modelica construct "
            "modification of package constant 'cp' that 'Water' already modifies",
        ),
        (
            "MediumLib",
            "ExtendedHeater",
            "MediumLib/package.mo:69:5: MediumLib.ExtendedHeater: unsupported Modelica construct "
            "redeclaration of package 'Medium' in an extends clause of a class that calls its",
        ),
        ("PhasorLib", "SeriesRLC", "PhasorLib/package.mo: PhasorLib.SeriesRLC: rumoca 0.10: "),
        ("PhasorLib", "PhasorSum", "PhasorLib/package.mo: PhasorLib.PhasorSum: rumoca 0.10: "),
    ],
)
def test_refused_idioms_fail_in_one_line(tmp_path, library, model, words):
    """The media built before with the base's values: BrineHeater's
    temperature with Water's cp (T(1 s) = 293.2695 K instead of 293.2782 K), SaltyHeater's
    enthalpy (536.4 J/kg instead of 500 J/kg at 1 s), ExtendedHeater's enthalpy with the
    partial medium's T_ref (500 J/kg instead of 84500 J/kg); now refused at the
    modification. Operator records (``Complex``) rumoca 0.10 refuses itself."""
    with pytest.raises(BuildError) as error:
        build_library(
            DATA / library, tmp_path, backend="rumoca", report=lambda _: None, models=[model]
        )
    message = str(error.value)
    assert "\n" not in message and message.startswith(words), message


def test_construct_table_names_these_tests():
    assert {test for _, test in IDIOMS} <= {n for n in globals() if n.startswith("test_")}
