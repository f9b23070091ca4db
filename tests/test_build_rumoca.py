"""The rumoca front end on a user's library written the way MSL authors write it.

``tests/data/user_library/UserLib`` (several files, imports and a package constant in its
``package.mo``) builds on ``tests/data/modelica_path/Modelica``, a small stand-in for the
Modelica Standard Library written in its style, found through the library path. Each model
is checked in all four variants (FMI 3.0 and 2.0, Model Exchange and Co-Simulation) against
an analytic solution or a SciPy integration of the same equations written by hand, to 1e-6
(CVode at 1e-10 in FMPy for Model Exchange; the FMUs' Dormand-Prince at 1e-9 for
Co-Simulation).
"""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu
from modelica_support import SUPPORTED, UNSUPPORTED, current_readme_table, table
from scipy.integrate import solve_ivp

from orchestrator.build import build_library
from orchestrator.errors import BuildError

DATA = Path(__file__).parent / "data"
LIBRARY = DATA / "user_library" / "UserLib"
MODELICA_PATH = DATA / "modelica_path"
G_N = 9.80665
TIMES = np.linspace(0.0, 2.0, 9)
# (FMU file variant, FMI interface) of the four variants
VARIANTS = [
    ("me", "ModelExchange"),
    ("fmi3", "CoSimulation"),
    ("fmi2", "ModelExchange"),
    ("fmi2", "CoSimulation"),
]


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("userlib")
    built = build_library(
        LIBRARY, out, backend="rumoca", report=lambda _: None, library_path=[MODELICA_PATH]
    )
    return {(p.parent.name if p.parent != out else "me", p.stem): p for p in built}


def simulate(fmus, model, variant, interface, outputs, inputs=None, start=None):
    path = fmus[(variant, model)]
    signals = None
    if inputs:
        names = list(inputs)
        signals = np.array(
            [(t, *[inputs[n] for n in names]) for t in (0.0, TIMES[-1])],
            dtype=[("time", float)] + [(n, float) for n in names],
        )
    result = simulate_fmu(
        str(path),
        fmi_type=interface,
        stop_time=TIMES[-1],
        output_interval=TIMES[1] - TIMES[0],
        relative_tolerance=1e-10,
        output=outputs,
        input=signals,
        start_values=start or {},
    )
    return {name: np.interp(TIMES, result["time"], result[name]) for name in outputs}


def check(fmus, model, reference, inputs=None, start=None):
    """Every variant of ``model`` against ``reference`` (name -> values at TIMES)."""
    for variant, interface in VARIANTS:
        got = simulate(fmus, model, variant, interface, list(reference), inputs, start)
        for name, expected in reference.items():
            error = np.max(np.abs(got[name] - expected))
            assert error < 1e-6, f"{model} {variant} {interface} {name}: error {error:.2e}"


def test_block_diagram_with_short_connector_classes(fmus):
    # Constant -> Feedback -> PI -> first order plant (conditional input disabled) -> feedback
    def loop(t, z):
        x, y = z
        e = 2.0 - y
        u = 1.5 * (x + e)
        return [e / 0.4, (u - y) / 0.8]

    sol = solve_ivp(loop, (0, TIMES[-1]), [0.0, 0.0], t_eval=TIMES, rtol=1e-12, atol=1e-12)
    check(fmus, "SpeedLoop", {"y": sol.y[1]})
    names = {v.name for v in read_model_description(fmus[("me", "SpeedLoop")]).modelVariables}
    assert "plant.d" not in names  # the disabled conditional connector is gone


def test_block_exports_with_its_connectors(fmus):
    variables = read_model_description(fmus[("fmi2", "Scaler")]).modelVariables
    causality = {v.name: v.causality for v in variables}
    assert causality["u"] == "input" and causality["y"] == "output"
    check(fmus, "Scaler", {"y": np.full_like(TIMES, 6.0)}, inputs={"u": 2.0})


def test_flow_connectors_spring_and_mass(fmus):
    # m s'' = -c s with m = 2, c = 8: s = 0.5 cos(2 t)
    check(fmus, "Oscillator", {"s": 0.5 * np.cos(2.0 * TIMES)})


def test_relative_states_need_index_reduction(fmus):
    # m s'' + d s' + c s = f with m = 2, d = 1, c = 10, s(0) = 0.5, v(0) = 0, f = 0
    alpha = 0.25
    omega = math.sqrt(5.0 - alpha**2)
    s = np.exp(-alpha * TIMES) * (
        0.5 * np.cos(omega * TIMES) + 0.5 * alpha / omega * np.sin(omega * TIMES)
    )
    v = -np.exp(-alpha * TIMES) * 0.5 * (alpha**2 + omega**2) / omega * np.sin(omega * TIMES)
    check(fmus, "DampedOscillator", {"s": s, "v": v}, inputs={"f": 0.0})


def test_emf_drives_an_inertia_through_a_gear(fmus):
    # 12 V through 2 Ohm into an EMF (k = 0.5), gear ratio 4, load inertia 0.3 kg.m2:
    # w = V/(k r) (1 - exp(-t/tau)), tau = R J/(k r)^2 = 0.15 s; i = V/R exp(-t/tau)
    tau = 2 * 0.3 / (0.5 * 4) ** 2
    check(
        fmus,
        "GearedMotor",
        {"w": 6.0 * (1 - np.exp(-TIMES / tau)), "i": 6.0 * np.exp(-TIMES / tau)},
    )


def test_pins_with_flow_currents(fmus):
    check(fmus, "RC", {"v": 5.0 * (1 - np.exp(-TIMES / 0.2))})
    units = {u.name for u in read_model_description(fmus[("fmi3", "RC")]).unitDefinitions}
    assert {"Ohm", "F", "V", "A"} <= units


def test_redeclared_record_that_extends_the_declared_one(fmus):
    # T200Worn extends T200(K_L = 0.025): its values, not T200's, reach the FMU
    n = 2.0
    check(fmus, "WornThruster", {"thrust": np.full_like(TIMES, 0.025 * n * n)}, inputs={"n": n})
    check(fmus, "NewThruster", {"thrust": np.full_like(TIMES, 0.03 * n * n)}, inputs={"n": n})
    check(
        fmus,
        "TwoThrusters",
        {"difference": np.full_like(TIMES, (0.03 - 0.025) * n * n)},
        inputs={"n": n},
    )
    starts = {
        v.name: v.start for v in read_model_description(fmus[("me", "WornThruster")]).modelVariables
    }
    assert float(starts["data.K_L"]) == 0.025 and float(starts["data.K_Q"]) == 2e-4


def test_record_constructor_and_package_constant(fmus):
    # hull = HullData(m = 3, V = 0.002): (1000 * 0.002 - 3) g_n with the library's g = g_n
    check(fmus, "Hull", {"net": np.full_like(TIMES, (2.0 - 3.0) * G_N)})


def test_inner_outer_is_one_environment(fmus):
    # inner environment(g = 3): a (1000*0.002 - 1) 3 + b (1000*0.001 - 1.5) 3
    check(fmus, "Pool", {"total": np.full_like(TIMES, 3.0 - 1.5)})
    names = {v.name for v in read_model_description(fmus[("me", "Pool")]).modelVariables}
    assert "environment.g" in names
    assert not any(name.startswith(("a.environment", "b.environment")) for name in names)


def test_component_arrays_functions_and_array_expressions(fmus):
    lag = 1 - np.exp(-TIMES / 0.5)
    angle = 0.3 * TIMES
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    product = np.einsum("ijt,jkt->ikt", rotation, rotation)
    reference = {
        "total": 10.0 * lag,  # sum(thr.y) with gains 1..4 and command 1
        "weighted": 2.0 * (1 + 4 + 9 + 16) * lag,  # weightedSum(..., k = 2)
        "dot": np.full_like(TIMES, 1 + 16 + 81 + 256),  # squares*squares
        "squares[3]": np.full_like(TIMES, 9.0),
        "R[2,1]": np.sin(angle),
        "B[1,4]": 2 * rotation[0, 1],
        "B[3,1]": -rotation[0, 0],
        "B[4,4]": product[1, 1],
    }
    check(fmus, "ThrusterBank", reference, inputs={"command": 1.0})


def test_imports_of_package_mo_seen_in_other_files(fmus):
    omega = math.sqrt(G_N / 1.2)
    check(
        fmus,
        "Pendulum",
        {"angle": 0.1 * np.cos(omega * TIMES), "cycles": TIMES * omega / (2 * math.pi)},
    )


def _library(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "Bad"
    folder.mkdir()
    (folder / "package.mo").write_text(text)
    return folder


def _build_error(folder: Path, library_path: list[Path] | None = None) -> str:
    with pytest.raises(BuildError) as caught:
        build_library(
            folder,
            folder.parent / "fmus",
            backend="rumoca",
            variants=("me",),
            report=lambda _: None,
            library_path=library_path,
        )
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_missing_library_is_one_line_with_the_place(tmp_path):
    folder = _library(
        tmp_path,
        "package Bad\n  model M\n    Modelica.Units.SI.Length x(start = 1, fixed = true);\n"
        "  equation\n    der(x) = -x;\n  end M;\nend Bad;\n",
    )
    message = _build_error(folder)
    assert message.startswith("Bad/package.mo:3:") and "Bad.M" in message, message


def test_unsupported_construct_names_file_line_column(tmp_path):
    folder = _library(
        tmp_path,
        "package Bad\n  model M\n    Real x(start = 1, fixed = true);\n    Real y;\n"
        "  equation\n    der(x) = -x;\n    y = delay(x, 0.1);\n  end M;\nend Bad;\n",
    )
    message = _build_error(folder)
    assert re.match(r"Bad/package\.mo:7:\d+: Bad\.M: unsupported .*delay", message), message


REDECLARES = """package Bad
  record Base
    parameter Real k = 1;
  end Base;
  record T200
    extends Base(k = 2);
  end T200;
  record Worn
    extends T200(k = 5);
  end Worn;
  partial model ThrBase
    replaceable parameter T200 data;
    output Real f = data.k;
  end ThrBase;
  model Thr
    extends ThrBase;
  end Thr;
  model M
    extends Thr(redeclare Worn data);
  end M;
end Bad;
"""


@pytest.mark.parametrize("backend", ["rumoca", "pymoca"])
def test_redeclares_a_front_end_gets_wrong_are_refused(tmp_path, backend):
    # rumoca 0.10 keeps T200's k = 2 here (Thr inherits data), pymoca 0.12 too (T200's
    # modifiers win): both would export k = 2 where the model says 5
    folder = _library(tmp_path, REDECLARES)
    with pytest.raises(BuildError) as caught:
        build_library(
            folder,
            tmp_path / "fmus",
            backend=backend,
            variants=("me",),
            report=lambda _: None,
            models=["Bad.M"],
        )
    message = str(caught.value)
    assert message.startswith("Bad.M: component data in Bad.M: "), message
    assert ("inherits it from Bad.ThrBase" if backend == "rumoca" else "modifiers") in message


MURCOSIM = Path(__file__).parents[1] / "modelica" / "MurCoSim"


@pytest.mark.slow
def test_murcosim_models_equal_the_pymoca_build(tmp_path):
    """Both front ends give the same FMU values for MurCoSim's vehicles, thruster and waves:
    every variable after initialization at a random state and input, bit for bit."""
    from orchestrator.fmu import FMU

    names = ("BlueROV2Heavy", "LaggedThruster", "RegularWave")
    library = tmp_path / "MurCoSim"
    shutil.copytree(MURCOSIM, library)
    keep = re.compile(rf"^(\s*)model ({'|'.join(names)})\b")
    for path in library.rglob("*.mo"):  # only the models compared stay non-partial
        lines = path.read_text().splitlines(keepends=True)
        path.write_text(
            "".join(
                line if keep.match(line) else re.sub(r"^(\s*)model ", r"\1partial model ", line)
                for line in lines
            )
        )
    built = {}
    for backend in ("pymoca", "rumoca"):
        out = tmp_path / backend
        paths = build_library(
            library, out, backend=backend, variants=("me",), report=lambda _: None
        )
        built[backend] = {p.stem: p for p in paths}
    rng = np.random.default_rng(5)
    for name in names:
        values = {}
        for backend in ("pymoca", "rumoca"):
            fmu = FMU(built[backend][name])
            instance = fmu.instantiate("x")
            if backend == "pymoca":
                settable = [
                    v.name
                    for v in fmu.model_description.modelVariables
                    if v.causality == "input"
                    or (v.initial == "exact" and v.causality != "parameter")
                ]
                draws = {n: float(rng.normal(0, 0.3)) for n in settable}
            instance.set_start_values(draws)
            instance.initialize(0.0)
            instance.set_time(0.7)
            names_all = [
                v.name
                for v in fmu.model_description.modelVariables
                if v.type in ("Float64", "Real") and not v.name.startswith("solver.")
            ]
            values[backend] = dict(zip(names_all, instance.get_values(names_all), strict=True))
            instance.terminate()
            fmu.close()
        assert values["pymoca"].keys() == values["rumoca"].keys()
        for key, number in values["pymoca"].items():
            assert number == values["rumoca"][key], f"{name} {key}"


def test_start_bound_to_a_parameter_follows_it(fmus):
    omega = math.sqrt(G_N / 1.2)
    check(fmus, "Pendulum", {"angle": 0.2 * np.cos(omega * TIMES)}, start={"phi0": 0.2})
    states = {v.name: v for v in read_model_description(fmus[("fmi2", "Pendulum")]).modelVariables}
    assert states["phi"].initial == "calculated" and states["w"].initial == "exact"


def test_initial_equation_steady_state(fmus):
    # initial equation der(y) = 0 with u = 2: y starts at 2 and stays there
    check(fmus, "SteadyLag", {"y": np.full_like(TIMES, 2.0)}, inputs={"u": 2.0})


def test_nonlinear_initial_equation(fmus):
    # x^3 + x = c at the start (Newton): x(0) = 2 for c = 10, 1 for c = 2; then x' = -x
    check(fmus, "Cubic", {"x": 2.0 * np.exp(-TIMES)})
    check(fmus, "Cubic", {"x": np.exp(-TIMES)}, start={"c": 2.0})


def test_fixed_start_values_of_a_demoted_state(fmus):
    # s(0) = 0.5, v(0) = -0.4 of the mass, whichever variables index reduction keeps
    alpha, a = 0.25, 0.5
    omega = math.sqrt(5.0 - alpha**2)
    b = (-0.4 + alpha * a) / omega
    s = np.exp(-alpha * TIMES) * (a * np.cos(omega * TIMES) + b * np.sin(omega * TIMES))
    check(fmus, "StartFromVelocity", {"s": s})


def test_too_many_initial_conditions_is_one_line(tmp_path):
    folder = _library(
        tmp_path,
        "package Bad\n  model M\n    Real x(start = 1, fixed = true);\n  initial equation\n"
        "    x = 2;\n  equation\n    der(x) = -x;\n  end M;\nend Bad;\n",
    )
    message = _build_error(folder)
    assert "Bad.M" in message and "too many" in message, message


def test_every_fmu_validates(fmus):
    from fmpy.validation import validate_fmu

    for key, path in fmus.items():
        assert validate_fmu(str(path)) == [], key


def _bouncing_ball(times, e=0.8, g=9.81):
    """Height and bounces of a ball dropped from 1 m, impact by impact."""
    heights, counts = [], []
    for t in times:
        start, h0, v0, n = 0.0, 1.0, 0.0, 0
        while True:
            impact = start + (v0 + math.sqrt(v0 * v0 + 2 * g * h0)) / g
            if impact > t:
                break
            v0 = e * g * (impact - start) - e * v0
            start, h0, n = impact, 0.0, n + 1
        heights.append(h0 + v0 * (t - start) - 0.5 * g * (t - start) ** 2)
        counts.append(n)
    return np.array(heights), np.array(counts, dtype=float)


def test_state_events_with_reinit_and_pre(fmus):
    heights, counts = _bouncing_ball(TIMES)
    assert counts[-1] == 3  # impacts at 0.45, 1.17 and 1.75 s
    check(fmus, "BouncingBall", {"h": heights, "bounces": counts})
    description = read_model_description(fmus[("fmi2", "BouncingBall")])
    assert description.numberOfEventIndicators == 1


def test_time_events_initial_and_elsewhen(fmus):
    # sample(0.1, 0.25); late = time > 0.3; marks = 7 at initial(), + 1 once count > 2
    count = np.array([sum(0.1 + 0.25 * k <= t + 1e-12 for k in range(10)) for t in TIMES])
    signal = np.where(TIMES > 0.3, count, -count)
    marks = np.where(count > 2, 8.0, 7.0)
    check(
        fmus,
        "SampledCounter",
        {"count": count.astype(float), "signal": signal.astype(float), "marks": marks},
    )


def test_relations_switch_a_heater(fmus):
    # T' = 4 h - 0.5 (T - 15): on until 21, off until 19, on again
    t1 = 2 * math.log(1.5)  # 20 -> 21 with the heater on
    t2 = t1 + 2 * math.log(1.5)  # 21 -> 19 with it off
    t3 = t2 + 2 * math.log(2.0)  # 19 -> 21 on

    def temperature(t):
        if t < t1:
            return 23 - 3 * math.exp(-0.5 * t)
        if t < t2:
            return 15 + 6 * math.exp(-0.5 * (t - t1))
        if t < t3:
            return 23 - 4 * math.exp(-0.5 * (t - t2))
        return 15 + 6 * math.exp(-0.5 * (t - t3))

    check(fmus, "Thermostat", {"T": np.array([temperature(t) for t in TIMES])})


def test_assert_ends_the_run_with_its_message(fmus, capfd):
    from fmpy.fmi1 import FMICallException

    for variant, interface in VARIANTS:
        with pytest.raises((FMICallException, RuntimeError)):
            simulate(fmus, "Guarded", variant, interface, ["x"])
        logged = capfd.readouterr().out
        assert re.search(r"assert failed at t = 0\.5\d* s: x passed its limit", logged), logged


@pytest.mark.parametrize(
    "construct, body, words, placed", UNSUPPORTED, ids=[u[0] for u in UNSUPPORTED]
)
def test_unsupported_construct_is_one_line(tmp_path, construct, body, words, placed):
    message = _build_error(_library(tmp_path, f"package Bad\n{body}end Bad;\n"))
    assert words in message, message
    if placed:
        assert re.match(r"Bad/package\.mo:\d+:\d+: Bad\.M: unsupported Modelica construct", message)
    else:
        assert message.startswith("Bad.M: "), message


def test_supported_constructs_name_their_tests():
    tests = {name for name in globals() if name.startswith("test_")}
    assert {test for _, test in SUPPORTED} <= tests


def test_readme_table_of_constructs_is_current():
    """Rewrite it with `python tests/modelica_support.py`."""
    assert current_readme_table() == table()
