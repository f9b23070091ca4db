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

import itertools
import math
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import fmpy
import numpy as np
import pytest
from build_variants import VARIANTS, shared_fmus
from conftest import cli_error
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi2 import FMU2Model
from fmpy.fmi3 import FMU3Model
from fmpy.validation import validate_fmu
from modelica_support import SUPPORTED, UNSUPPORTED, current_readme_table, table
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from orchestrator.compiler import build_library
from orchestrator.errors import BuildError
from orchestrator.fmi.log import FMULog

DATA = Path(__file__).parents[1] / "data"
LIBRARY = DATA / "user_library" / "UserLib"
MODELICA_PATH = DATA / "modelica_path"
G_N = 9.80665
TIMES = np.linspace(0.0, 2.0, 9)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return shared_fmus(tmp_path_factory, LIBRARY, [MODELICA_PATH])


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


def _failed_run(path: Path, interface: str, output: str = "x") -> str:
    """What FMPy's run of the FMU at ``path`` (recording ``output``) logged; the run must
    fail. Each run is a process
    of its own: after the FMU's error inside FMPy's CVODE right-hand side (a ctypes callback
    that raises), FMPy's Model Exchange run may end in a crash instead of an exception, which
    must not take the test session with it."""
    code = (
        "import sys, fmpy\n"
        "try:\n"
        f"    fmpy.simulate_fmu({str(path)!r}, fmi_type={interface!r},"
        f" stop_time={TIMES[-1]}, output=[{output!r}])\n"
        "except Exception:\n"
        "    sys.exit(3)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode != 0, f"{path} {interface}: the run did not fail"
    return run.stdout + run.stderr


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


def test_expandable_connector_keeps_only_its_present_signals(fmus):
    # MSL 4's BusUsage: a sine (2 sin(pi t)) connected through bus.speed to a lag (T = 0.5 s,
    # y(0) = 1); bus.thrust, declared but neither connected nor used, is not present
    # (Modelica 3.6, Sec. 9.1.3), so the model is balanced without an equation for it
    sol = solve_ivp(
        lambda t, y: [(2.0 * math.sin(math.pi * t) - y[0]) / 0.5],
        (0, TIMES[-1]),
        [1.0],
        t_eval=TIMES,
        rtol=1e-12,
        atol=1e-12,
    )
    check(fmus, "BusLag", {"lag.y": sol.y[0], "bus.speed": 2.0 * np.sin(np.pi * TIMES)})
    names = {v.name for v in read_model_description(fmus[("me", "BusLag")]).modelVariables}
    assert "bus.thrust" not in names


def test_block_exports_with_its_connectors(fmus):
    variables = read_model_description(fmus[("fmi2", "Scaler")]).modelVariables
    causality = {v.name: v.causality for v in variables}
    assert causality["u"] == "input" and causality["y"] == "output"
    check(fmus, "Scaler", {"y": np.full_like(TIMES, 6.0)}, inputs={"u": 2.0})


def test_enumerations_choose_the_initialization(fmus):
    # FirstOrder k = 3, T = 0.5, u = 2: steady state y = 6 throughout; from y_start = 1,
    # y = 6 - 5 exp(-t/T)
    check(fmus, "Lags", {"y1": np.full_like(TIMES, 6.0), "y2": 6.0 - 5.0 * np.exp(-TIMES / 0.5)})


def test_external_builtin_functions_are_the_builtins(fmus):
    # Modelica.Math.sin and atan2 declared external "builtin", as MSL 4 declares them
    y = 2.0 * np.sin(np.pi * TIMES)
    check(fmus, "Swing", {"y": y, "angle": np.arcsin(np.clip(0.5 * y, -1, 1))})


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


def test_evaluate_true_parameter_of_zero_removes_a_capacitors_state(fmus):
    """CapVal = 0 with annotation(Evaluate = true) binds a junction capacitance fed from
    the source through a resistor beside an RC (final C = CapVal, as in MSL's heating NOR
    gates; i = effective der(v), effective = C (1 + v^2)): substituted before the equations
    are sorted, effective is 0, its term drops, the junction's voltage is the source's, and
    the RC's one state and charging curve remain (kept as a parameter, CapVal would leave
    the junction's voltage a second state with a singular equation). Neither
    CapVal nor the capacitances it makes zero are declared: no value set at run time could
    bring the dropped term back."""
    check(
        fmus,
        "ParasiticCapacitance",
        {"v": 5.0 * (1 - np.exp(-TIMES / 0.2)), "parasitic.v": np.full(TIMES.size, 5.0)},
    )
    for variant in ("me", "fmi3", "fmi2"):
        description = read_model_description(fmus[(variant, "ParasiticCapacitance")])
        names = {v.name for v in description.modelVariables}
        assert [d.variable.name for d in description.derivatives] == ["der(capacitor.v)"]
        assert not {"CapVal", "parasitic.C", "parasitic.effective"} & names, names
        assert {"resistor.R", "capacitor.C"} <= names


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


def test_array_equation_beside_scalar_equations_and_a_loop(fmus):
    # a = {t, 2 t}; x = t^2; b = {1, t + x, 2 t + x}; rows[i, :] = {i t, -i x}
    x = TIMES**2
    reference = {"a[1]": TIMES, "a[2]": 2 * TIMES, "b[1]": np.ones_like(TIMES)}
    reference.update({"b[2]": TIMES + x, "b[3]": 2 * TIMES + x})
    reference.update({"rows[3,1]": 3 * TIMES, "rows[2,2]": -2 * x})
    check(fmus, "ArrayEquation", reference)


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
        "package Bad\n  model M\n    Real x(start = 1, fixed = true);\n    Boolean b;\n"
        "  equation\n    der(x) = -x;\n    b = terminal();\n  end M;\nend Bad;\n",
    )
    message = _build_error(folder)
    assert re.match(r"Bad/package\.mo:7:\d+: Bad\.M: unsupported .*terminal", message), message


def test_function_rumoca_refuses_is_placed_at_its_while_loop_on_the_library_path(tmp_path):
    # a search counting down in a while loop whose passes its text does not bound (its
    # condition subscripts no array by the counter; one that does is given to rumoca as a for
    # loop, test_build_function_loops.py): rumoca 0.10 refuses it, and the line names the while
    # loop of the function in the library on the path (the user's sources call it by a
    # shorter name)
    tables = tmp_path / "path" / "Tables"
    tables.mkdir(parents=True)
    (tables / "package.mo").write_text(
        "package Tables\n  package Vectors\n    function below\n      input Real x[:];\n"
        "      input Real xi;\n      output Integer i = size(x, 1);\n    algorithm\n"
        "      while i > 1 and xi < i*x[1] loop\n        i := i - 1;\n      end while;\n"
        "    end below;\n  end Vectors;\nend Tables;\n"
    )
    folder = _library(
        tmp_path,
        "package Bad\n  model M\n    import Tables.Vectors;\n    parameter Real t[3] = {0, 1, 2};\n"
        "    Integer k;\n  equation\n    k = Vectors.below(t, time);\n  end M;\nend Bad;\n",
    )
    message = _build_error(folder, library_path=[tables.parent])
    expected = r"path/Tables/package\.mo:8:7: Bad\.M: unsupported Modelica construct in function "
    assert re.match(expected + r"'Tables\.Vectors\.below'", message), message


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


MURCOSIM = Path(__file__).parents[2] / "modelica" / "MurCoSim"


def test_per_element_units_come_from_the_declaration():
    """rumoca 0.10 drops ``unit = {"m/s", ..., "rad/s"}``; the front end reads it from the
    declaration: MurCoSim's vehicle has the units its sources give, on connectors
    (``RealOutput nu[6](unit = {...})``), record arrays and arrays of SI types."""
    from orchestrator.compiler.rumoca_front import RumocaLibrary

    flat = RumocaLibrary(MURCOSIM).flatten("MurCoSim.Vehicles.BlueROV2Heavy")
    units = {v.name: v.unit for v in flat.variables}

    def elements(name: str) -> list[str]:
        return [units[f"{name}[{k}]"] for k in range(1, 7)]

    assert elements("nu") == elements("nu_r") == 3 * ["m/s"] + 3 * ["rad/s"]
    assert elements("tau_ext") == 3 * ["N"] + 3 * ["N.m"]
    assert elements("data.added_mass") == 3 * ["kg"] + 3 * ["kg.m2"]
    assert elements("data.D_L") == 3 * ["N.s/m"] + 3 * ["N.m.s/rad"]
    assert elements("data.D_Q") == 3 * ["N.s2/m2"] + 3 * ["N.m.s2/rad2"]
    assert units["data.r_g[3]"] == units["r_sample[2]"] == units["p[1]"] == "m"
    assert units["data.I_g[2,3]"] == "kg.m2" and units["q[1]"] == ""


def test_per_element_units_are_read_from_the_modification(tmp_path):
    # dimensions before the name, strings and comments with brackets, a description, two
    # components in one declaration, `final`; no unit where the literal does not fit the
    # array, and none where another modification (R2's extends) may override the declaration
    from orchestrator.compiler.rumoca_front import RumocaLibrary

    folder = _library(
        tmp_path,
        """package Bad
  record R
    parameter Real w[2](unit = {"kg", "m"}) = {1, 2};
  end R;
  record R2
    extends R(w(unit = {"s", "s"}));
  end R2;
  model M
    Real[2] a(unit = {"m", "s"}) = {1, 2};
    Real b[2](start = {1, 2}, unit = {"V", /* ) */ "A"}) = {3, 4} "b, (",
      c[3](final unit = {"x", "y", "z"}) = {5, 6, 7};
    Real d[2](unit = {"m"}) = {8, 9};
    Real f[2, 2](unit = {{"a", "b"}, {"c", "d"}}) = {{1, 2}, {3, 4}};
    parameter R2 r;
  end M;
end Bad;
""",
    )
    flat = RumocaLibrary(folder).flatten("Bad.M")
    units = {v.name: v.unit for v in flat.variables}
    assert [units[f"a[{k}]"] for k in (1, 2)] == ["m", "s"]
    assert [units[f"b[{k}]"] for k in (1, 2)] == ["V", "A"]
    assert [units[f"c[{k}]"] for k in (1, 2, 3)] == ["x", "y", "z"]
    assert not any(units[n] for n in units if n.startswith(("d[", "f[", "r.w[")))


def test_library_beside_the_libraries_it_uses(tmp_path):
    # --library lib/User --library-path lib, as a user's package next to a copy of MurCoSim
    (tmp_path / "Dep").mkdir()
    (tmp_path / "Dep" / "package.mo").write_text(
        "package Dep\n  record R\n    parameter Real k = 2;\n  end R;\nend Dep;\n"
    )
    folder = _library(
        tmp_path,
        "package Bad\n  model M\n    parameter Dep.R r;\n    output Real y;\n  equation\n"
        "    y = r.k;\n  end M;\nend Bad;\n",
    )
    (built,) = build_library(
        folder,
        tmp_path / "fmus",
        backend="rumoca",
        variants=("me",),
        report=lambda _: None,
        library_path=[tmp_path],
    )
    starts = {v.name: v.start for v in read_model_description(built).modelVariables}
    assert float(starts["r.k"]) == 2
    (folder / "package.mo").rename(folder / "M.mo")
    message = _build_error(folder)
    assert message.endswith(
        "no package.mo; the rumoca backend builds a Modelica package "
        "(a folder with package.mo; other libraries go on --library-path)"
    )


def test_murcosim_buoys_have_their_records_values():
    # each buoy redeclares the record class that CylinderBody redeclared over Vehicle's
    from orchestrator.compiler.rumoca_front import RumocaLibrary

    library = RumocaLibrary(MURCOSIM)
    expected = {
        "PrototypeHousing": {"data.m": 1.553, "data.length": 0.215, "data.n_fins": 4},
        "PrototypePayload": {"data.m": 0.993, "data.length": 0.418, "data.pivot[3]": 0.094},
        "LargeTestCylinder": {"data.m": 18.0, "data.radius": 0.081, "data.C_Df_z": 255},
    }
    for model, values in expected.items():
        flat = library.flatten(f"MurCoSim.Buoys.{model}")
        for name, value in values.items():
            assert float(flat.variable(name).binding) == value, f"{model} {name}"
        assert float(flat.variable("data.volume").binding) == 0  # CylinderData's modifier


def test_start_bound_to_a_parameter_follows_it(fmus):
    omega = math.sqrt(G_N / 1.2)
    check(fmus, "Pendulum", {"angle": 0.2 * np.cos(omega * TIMES)}, start={"phi0": 0.2})
    states = {v.name: v for v in read_model_description(fmus[("fmi2", "Pendulum")]).modelVariables}
    assert states["phi"].initial == "calculated" and states["w"].initial == "exact"


def test_algorithm_section_in_a_model(fmus):
    # rate = min(x, 1): x = 2 - t until x = 1 at t = 1 (an event), then x = exp(1 - t)
    x = np.where(TIMES <= 1.0, 2.0 - TIMES, np.exp(1.0 - TIMES))
    rate = np.minimum(x, 1.0)
    expected = {"x": x, "rate": rate, "scaled[1]": rate, "scaled[2]": 2 * rate}
    check(fmus, "LimitedDecay", expected)


def test_nonlinear_algebraic_loop_solved_by_newton(fmus):
    # C v' = -i with v = R i + v_d and i = Ids (exp(v_d / Vt) - 1): the loop in i and v_d is
    # solved by Newton's method in the FMU at every evaluation (from the diode's start value)
    c, r, ids, vt = 0.01, 100.0, 1e-6, 0.05

    def diode_voltage(v):
        return brentq(lambda vd: ids * (np.exp(vd / vt) - 1) - (v - vd) / r, -1.0, v, xtol=1e-15)

    def discharge(t, v):
        return [-(v[0] - diode_voltage(v[0])) / (r * c)]

    sol = solve_ivp(discharge, (0, TIMES[-1]), [5.0], t_eval=TIMES, rtol=1e-12, atol=1e-12)
    check(
        fmus,
        "DiodeDischarge",
        {"v": sol.y[0], "v_diode": np.array([diode_voltage(v) for v in sol.y[0]])},
    )


def test_nonlinear_loop_over_parameters_bound_to_parameters(fmus):
    # A thyristor-like switch (MSL's Thyristor: Ron = (VTM - 0.7)/ITM, Roff = VDRM^2/VTM/IH,
    # protected parameters bound to parameters) in a Newton loop with a resistor, discharging
    # C = 1 mF. The FMU computes such parameter expressions once (model_parametric), some of
    # them over others (Roff inside sqrt(Ron Roff)); reference: SciPy, the loop by brentq
    ron, roff = (1.7 - 0.7) / 25.0, 100.0**2 / 1.7 / 6e-3

    def current(v_s):
        ohmic = 1.7 / roff + (v_s - 1.7) / ron if v_s > 1.7 else v_s / roff
        return 1e-3 * (math.exp(v_s) - 1.0) + ohmic

    def switch_voltage(v):
        return brentq(lambda v_s: v - v_s - current(v_s), 0.0, v, xtol=1e-15)

    sol = solve_ivp(
        lambda t, v: [-current(switch_voltage(v[0])) / 1e-3],
        (0, TIMES[-1]),
        [5.0],
        t_eval=TIMES,
        rtol=1e-12,
        atol=1e-12,
        method="LSODA",
    )
    check(
        fmus,
        "SwitchDischarge",
        {
            "v": sol.y[0],
            "v_switch": np.array([switch_voltage(v) for v in sol.y[0]]),
            "switch.R_mean": np.full_like(TIMES, math.sqrt(ron * roff)),
        },
    )


def test_nonlinear_loop_torn_where_its_unknowns_start_at_zero(fmus):
    # MSL's Examples.Resistor in small: R_actual = R (1 + alpha (T - T_ref)), v = R_actual i,
    # T = T_amb + v i / G. Its current and resistance have no start value (0), where the
    # whole loop's Jacobian has a zero row (v - R_actual i); torn, Newton iterates on i and
    # the temperature, and R_actual follows from the temperature. Exact solution: R_actual solves
    # R_actual^2 - b R_actual - R alpha v^2 / G = 0 with b = R (1 + alpha (T_amb - T_ref))
    r, alpha, t_ref, g, t_amb = 100.0, 1e-3, 293.15, 5.0, 303.15
    v = 220.0 * np.sin(2.0 * np.pi * TIMES)
    b = r * (1.0 + alpha * (t_amb - t_ref))
    r_actual = (b + np.sqrt(b * b + 4.0 * r * alpha * v * v / g)) / 2.0
    check(fmus, "SelfHeating", {"T": t_amb + v * v / (r_actual * g), "i": v / r_actual})


def test_homotopy_initializes_from_the_simplified_problem(fmus):
    # A Schmitt trigger (gain 15000, supplies +-15 V, feedback divider 0.8) charging C = 1 mF
    # through R = 2 kOhm: at t = 0 the loop v_out = lim(15000 (0.8 v_out - v_c)) has the roots
    # 0 V and +-15 V. homotopy(actual, simplified = +15 V) starts on +15 V, and the loop stays
    # there (v_c = 15 (1 - exp(-t/2)) stays below the threshold 0.8*15 V - 1 mV until 3.2 s):
    # with events (relations in the limiter) and as a Newton loop (limits in noEvent), each
    # Newton warm-started from the previous solution.
    v_c = 15.0 * (1.0 - np.exp(-TIMES / 2.0))
    for model in ("Relaxation", "RelaxationStrict"):
        check(fmus, model, {"v_out": np.full_like(TIMES, 15.0), "v_c": v_c})
    # Without homotopy Newton starts from the start values (0 V) and finds the trivial root.
    check(fmus, "RelaxationActual", {"v_out": np.zeros_like(TIMES), "v_c": np.zeros_like(TIMES)})


def test_homotopy_that_cannot_reach_the_actual_problem(fmus):
    """0 = homotopy(y^2 + 1, y - 1): the continuation from y = 1 follows the real root of
    lambda y^2 + (1 - lambda) y + 2 lambda - 1 = 0, which vanishes where the discriminant
    1 + 2 lambda - 7 lambda^2 does, at lambda = (1 + 2 sqrt 2) / 7; the FMU stops there with one
    line naming lambda and the loop's equation (file:line:column), in every variant."""
    end = (1.0 + 2.0 * math.sqrt(2.0)) / 7.0
    for variant, interface in VARIANTS:
        logged = _failed_run(fmus[(variant, "Unreachable")], interface)
        found = re.search(
            r"initialization by homotopy failed at lambda = ([\d.]+): nonlinear algebraic loop "
            r"did not converge: 1 equation\(s\) at UserLib/Homotopy\.mo:\d+:\d+: ",
            logged,
        )
        assert found, logged
        # the last step that failed ends within the smallest step (1e-4) past the root's end
        assert end < float(found.group(1)) <= end + 2e-4, (found.group(1), end)


def test_a_loop_that_does_not_converge_is_named_before_asserts_on_its_unknowns(fmus):
    # 0 = y^2 + x with x = 1 has no real root: Newton leaves y NaN, which also fails the
    # model's assert(y > -100); the error names the loop (its cause), not the assert
    for variant, interface in VARIANTS:
        logged = _failed_run(fmus[(variant, "NoRealRoot")], interface)
        assert re.search(
            r"assert failed at t = 0 s: nonlinear algebraic loop did not converge: "
            r"1 equation\(s\) at UserLib/Homotopy\.mo:\d+:\d+: ",
            logged,
        ), logged
        assert "y below -100" not in logged, logged


def test_initial_algorithm_sets_discrete_variables(fmus):
    # MSL 4's Pulse: count := integer((time - startTime)/period) and T_start in an initial
    # algorithm (startTime = -0.52 s, period 0.3 s, width 50 %): y = 0.5 + 2 while
    # (t - startTime) mod period < 0.15 s. From count's start value 0 instead it would give 2.5
    # at t = 0, not 0.5.
    y = 0.5 + 2.0 * (np.mod(TIMES + 0.52, 0.3) < 0.15)
    check(fmus, "Pulse", {"y": y})


def test_initial_algorithm_of_a_parameter_and_initial_equation_of_a_discrete_variable(fmus):
    # x0 := 2 a; x0 := x0 + 1 (a = 1.5, x0 a parameter with fixed = false) and x = x0 at the
    # start: x = 4 exp(-t); pre(n) = 3, and n = 4 once x < 1 (t > ln 4)
    n = np.where(math.log(4.0) < TIMES, 4.0, 3.0)
    check(fmus, "Decay", {"x": 4.0 * np.exp(-TIMES), "n": n})


def test_fixed_false_parameters_from_initial_equations(fmus):
    # MSL 4's Blocks.Math.Mean: t0 (fixed = false, start 5) = time from an initial equation,
    # then weights w[i] = i + t0 from an initial for-equation; y = w[3] * (mean of u = 1 + 2 t
    # over the last period T = 0.45 s) at the samples t0 + k T. With t0 at its start value
    # the first sample would come at 5.45 s and y stay 0.
    k = np.floor(TIMES / 0.45)
    y = np.where(k >= 1, 3.0 * (1.0 + 2.0 * (0.45 * k - 0.225)), 0.0)
    check(fmus, "PeriodMean", {"y": y})


def test_tuple_equations_and_calls_of_functions_with_several_outputs(fmus):
    # MSL 4's Filter: (k, alpha) = rates(n, w) in an initial equation gives fixed = false
    # parameters; rates calls (alpha, g) := normalization(n), whose output g has n elements.
    # k = w / alpha with alpha = sqrt(2^(1/2) - 1) and w = 2 pi f_cut a dependent parameter.
    # InitialOutput: der(x[1]) = 0 holds with u = 1 at x[1] = 1, y = x[2] = 0.2 at the start:
    # y = 1 - 0.8 exp(-k t).
    k = 2.0 * math.pi * 0.5 / math.sqrt(math.sqrt(2.0) - 1.0)
    check(fmus, "CriticalDamping", {"y": 1.0 - 0.8 * np.exp(-k * TIMES)}, inputs={"u": 1.0})


def test_initial_equation_steady_state(fmus):
    # initial equation der(y) = 0 with u = 2: y starts at 2 and stays there
    check(fmus, "SteadyLag", {"y": np.full_like(TIMES, 2.0)}, inputs={"u": 2.0})


def test_nonlinear_initial_equation(fmus):
    # x^3 + x = c at the start (Newton): x(0) = 2 for c = 10, 1 for c = 2; then x' = -x
    check(fmus, "Cubic", {"x": 2.0 * np.exp(-TIMES)})
    check(fmus, "Cubic", {"x": np.exp(-TIMES)}, start={"c": 2.0})


def test_newton_guess_bound_to_a_dependent_parameter(fmus):
    # q = a sqrt(h) in steady state: h = (q/a)^2 = 4, and 9 for q = 1.5; the guess 0.8 (q/a)^2
    # is a parameter bound to others (as MSL's LimPID gives its integrator's y_start)
    check(fmus, "SteadyTank", {"h": np.full_like(TIMES, 4.0)})
    check(fmus, "SteadyTank", {"h": np.full_like(TIMES, 9.0)}, start={"q": 1.5})


def test_fixed_start_values_of_a_demoted_state(fmus):
    # s(0) = 0.5, v(0) = -0.4 of the mass, whichever variables index reduction keeps
    alpha, a = 0.25, 0.5
    omega = math.sqrt(5.0 - alpha**2)
    b = (-0.4 + alpha * a) / omega
    s = np.exp(-alpha * TIMES) * (a * np.cos(omega * TIMES) + b * np.sin(omega * TIMES))
    check(fmus, "StartFromVelocity", {"s": s})


# BoundedDecay's min and max as its declarations give them (None: not declared): on a
# parameter, through a type (whose max is 2*50), per element of an array, on a state; c's
# min = k depends on a parameter and is left out.
DECLARED_BOUNDS = {
    "k": ("0.5", "4.0"),
    "r": ("0.0", "100.0"),
    "x": ("0.0", "1.0"),
    "v[1]": ("-2.0", "5.0"),
    "v[2]": ("-3.0", "5.0"),
}


def test_bounds_of_parameters_states_and_types_reach_the_model_description(fmus):
    decay = np.exp(-2.0 * TIMES)  # x' = -k x, v' = -r v with k = 2, r = 1
    check(fmus, "BoundedDecay", {"x": decay, "v[2]": 2.0 * np.exp(-TIMES), "y": 3.0 * decay})
    for variant in ("me", "fmi3", "fmi2"):
        variables = read_model_description(fmus[(variant, "BoundedDecay")]).modelVariables
        declared = {v.name: (v.min, v.max) for v in variables}  # FMPy's reading of the XML
        assert {n: b for n, b in declared.items() if b != (None, None)} == DECLARED_BOUNDS, variant
        assert "c" in declared and "y" in declared  # there, without bounds


@pytest.mark.parametrize("variant", ["me", "fmi2"])
def test_parameter_outside_its_modelica_bounds_is_refused_in_one_line(
    fmus, tmp_path, capsys, variant
):
    path = tmp_path / "decay.toml"
    fmu = fmus[(variant, "BoundedDecay")].as_posix()
    path.write_text(
        f'[simulation]\nstop_time = 0.1\n[components.decay]\nfmu = "{fmu}"\n'
        "parameters = { k = 5.0 }\n"
    )
    error = cli_error(path, tmp_path, capsys)
    assert "components.decay.parameters.k:" in error, error
    assert "'k' = 5 is outside the FMU's declared range [0.5, 4]" in error, error


def test_start_outside_its_bounds_is_one_line(tmp_path):
    """FMI requires min <= start <= max: such a model is refused, naming the variable."""
    folder = _library(
        tmp_path,
        "package Bad\n  model M\n    parameter Real k(max = 1) = 2;\n"
        "    Real x(start = 1, fixed = true);\n  equation\n    der(x) = -k*x;\n  end M;\n"
        "end Bad;\n",
    )
    message = _build_error(folder)
    assert "M: 'k' starts at 2, outside its declared range [-inf, 1]" in message, message


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


def test_change_fires_a_when_equation(fmus):
    # sample(0.1, 0.5) raises level at 0.1, 0.6, 1.1, 1.6 s; each change of level adds 10 to
    # changes and records its time in the same event; late = 1 after 1.3 s (a relation's
    # memory beside change's)
    fired = np.array([0.1 + 0.5 * k for k in range(4)])
    level = np.array([np.sum(fired <= t) for t in TIMES], dtype=float)
    last = np.array([fired[fired <= t].max() if (fired <= t).any() else -1.0 for t in TIMES])
    late = (TIMES > 1.3).astype(float)
    check(
        fmus,
        "ChangeCounter",
        {"level": level, "changes": 10.0 * level, "lastChange": last, "late": late},
    )


def test_terminal_fires_when_the_fmu_is_terminated(fmus):
    """atEnd = x when terminal(): 0 throughout the run, exp(-2) once FMPy terminates the
    instance at t = 2 s (read from the instance after the run, in every variant)."""
    from fmpy import extract, instantiate_fmu

    for variant, interface in VARIANTS:
        path = fmus[(variant, "FinalValue")]
        description = read_model_description(path)
        instance = instantiate_fmu(extract(path), description, fmi_type=interface)
        result = simulate_fmu(
            str(path),
            fmi_type=interface,
            stop_time=TIMES[-1],
            output_interval=0.25,
            relative_tolerance=1e-10,
            output=["atEnd"],
            fmu_instance=instance,
        )
        assert np.all(result["atEnd"] == 0.0), (variant, interface)
        (reference,) = [v.valueReference for v in description.modelVariables if v.name == "atEnd"]
        read = instance.getReal if description.fmiVersion == "2.0" else instance.getFloat64
        (at_end,) = read([reference])
        instance.freeInstance()
        assert abs(at_end - math.exp(-TIMES[-1])) < 1e-6, (variant, interface, at_end)


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


def test_assert_ends_the_run_with_its_message(fmus):
    """FMPy's run of each variant fails at the assert with the FMU's message."""
    for variant, interface in VARIANTS:
        logged = _failed_run(fmus[(variant, "Guarded")], interface)
        assert re.search(r"assert failed at t = 0\.5\d* s: x passed its limit", logged), logged


def test_non_finite_derivative_output_or_indicator_ends_the_run_with_its_name(fmus):
    """A NaN or infinity the model computes is an error naming the variable and the time, in
    every variant, not a value handed on: der(x) = sqrt(p - 1) with p = 0.5 from the start;
    y = log(1 - x) with x = t, -inf at 1 s and NaN after (checked where it is read: recorded
    at each communication point); the indicator of sqrt(1 - x) > 2, NaN after 1 s (first
    read at a communication point or an integrator step past it)."""
    cases = {
        ("OutOfDomain", "x"): r"der\(x\) = -?nan at t = 0 s: not a finite number",
        ("OutputOutOfDomain", "y"): r"y = (-inf|-?nan) at t = (1|1\.\d+) s: not a finite",
        ("IndicatorOutOfDomain", "x"): r"eventIndicator\[1\] = -?nan at t = 1\.\d+ s: not a",
    }
    for ((model, output), pattern), (variant, interface) in itertools.product(
        cases.items(), VARIANTS
    ):
        logged = _failed_run(fmus[(variant, model)], interface, output)
        assert re.search(pattern, logged), (model, variant, interface, logged)


# The delays' histories take a point at each completed step: with FMPy's Model Exchange run a
# point per communication step, with the FMUs' own integrator (steps no longer than the
# communication step) at least as many. Linear interpolation between points h = 1 ms apart
# is off by at most h^2/8 max|e''|: 5e-7 for sin(2 t), 1.25e-7 a step for the DDE's |x''| <= 1
# (4e-7 accumulated over 3 s); a history read as a staircase would be off by 2e-3.
DELAY_TIMES = np.linspace(0.0, 3.0, 61)
DELAY_STEP = 1e-3  # s, communication step
DELAY_TOLERANCE = 1e-6


def check_delay(fmus, model, reference):
    """Every variant of ``model`` against ``reference`` (name -> values at DELAY_TIMES)."""
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmus[(variant, model)]),
            fmi_type=interface,
            stop_time=DELAY_TIMES[-1],
            output_interval=DELAY_STEP,
            relative_tolerance=1e-10,
            output=list(reference),
        )
        for name, expected in reference.items():
            got = np.interp(DELAY_TIMES, result["time"], result[name])
            error = np.max(np.abs(got - expected))
            assert error < DELAY_TOLERANCE, f"{model} {variant} {interface} {name}: {error:.2e}"


def test_delay_of_a_sine_by_a_parameter_time(fmus):
    # y = delay(sin(2 t), 0.3705): sin(2 (t - 0.3705)), and sin(0) = 0 (the value at the
    # start) before 0.3705 s; t - 0.3705 halfway between two points of the history
    t = DELAY_TIMES
    check_delay(fmus, "DelayedSine", {"y": np.where(t >= 0.3705, np.sin(2 * (t - 0.3705)), 0)})


def test_delay_history_spans_its_bound_at_small_steps(fmus):
    """At a communication step of 0.1 ms a history of 1024 points, one per step, would reach
    back 0.1 s, less than the delay of 0.3705 s: a point closer than 0.3705/1022 s to the one
    before gives way to the next, so the history spans the delay with points 0.36 to 0.46 ms
    apart, off by at most (0.46 ms)^2/8 * 4 = 1.1e-7 for sin(2 t)."""
    t = np.linspace(0.0, 1.0, 21)
    expected = np.where(t >= 0.3705, np.sin(2 * (t - 0.3705)), 0.0)
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmus[(variant, "DelayedSine")]),
            fmi_type=interface,
            stop_time=t[-1],
            output_interval=1e-4,
            relative_tolerance=1e-10,
            output=["y"],
        )
        error = np.max(np.abs(np.interp(t, result["time"], result["y"]) - expected))
        assert error < 2e-7, f"{variant} {interface}: {error:.2e}"


def _method_of_steps(times: np.ndarray) -> np.ndarray:
    """x' = -x(t - 1), x = 1 for t <= 0, solved exactly: on [k, k + 1] x is the polynomial
    p_k(t) = p_{k-1}(k) - integral from k to t of p_{k-1}(s - 1) ds (p_0 = 1 - t)."""
    from numpy.polynomial import Polynomial

    pieces = [Polynomial([1.0])]  # on [-1, 0]
    for k in range(int(np.ceil(times[-1])) + 1):
        shifted = pieces[-1](Polynomial([-1.0, 1.0]))  # p(s - 1)
        integral = shifted.integ()
        pieces.append(pieces[-1](float(k)) - (integral - integral(float(k))))
    return np.array([pieces[min(int(t), len(pieces) - 2) + 1](t) for t in times])


def test_delay_differential_equation_by_the_method_of_steps(fmus):
    expected = _method_of_steps(DELAY_TIMES)
    assert abs(expected[20] - 0.0) < 1e-15  # x(1) = 1 - 1
    assert abs(expected[40] - (-2 * 2 + 2**2 / 2 + 1.5)) < 1e-15  # 1.5 - 2 t + t^2/2 at t = 2
    check_delay(fmus, "DelayDifferential", {"x": expected})


def test_variable_delay_bounded_by_delay_max(fmus):
    # y = delay(sin(2 t), tau, 1) with tau = 0.5 + 0.25 sin(3 t)
    t = DELAY_TIMES
    late = t - (0.5 + 0.25 * np.sin(3 * t))
    check_delay(fmus, "VariableDelay", {"y": np.where(late >= 0, np.sin(2 * late), 0.0)})


def test_delayed_step_keeps_both_sides_of_its_event(fmus):
    """y = delay(s, 0.3004) of a step s at 0.25 s (an event): the history holds s just before
    the event and just after it, so y is 0 to the last communication point before 0.5504 s
    and 1 from the first after it, exactly; with the value after the event alone, the step
    would be a ramp from the point before it (0.6 at 0.551 s)."""
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmus[(variant, "DelayedStep")]),
            fmi_type=interface,
            stop_time=1.0,
            output_interval=DELAY_STEP,
            relative_tolerance=1e-10,
            output=["y"],
        )
        expected = (result["time"] - 0.3004 > 0.25).astype(float)
        assert np.array_equal(result["y"], expected), f"{variant} {interface}"


def test_delay_time_past_delay_max_ends_the_run(fmus):
    # der(x) = delay(time, time, 0.5): the delay time passes its bound delayMax at 0.5 s
    for variant, interface in VARIANTS:
        logged = _failed_run(fmus[(variant, "DelayPastItsBound")], interface)
        pattern = r"delay 1: delay time 0\.5\d* s at t = 0\.5\d* s is outside \[0, 0\.5 s\]"
        assert re.search(pattern, logged), logged


def _initialized(fmu, variant):
    """``fmu`` (a Co-Simulation instance) initialized at 0 s."""
    if variant == "fmi2":
        fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    return fmu


def _steps(fmu, variant, vr, start, count):
    """``x`` (value reference ``vr``) after each of ``count`` steps of 0.01 s from ``start``."""
    read = fmu.getReal if variant == "fmi2" else fmu.getFloat64
    values = []
    for k in range(count):
        fmu.doStep(start + 0.01 * k, 0.01)
        values.append(read([vr])[0])
    return values


def test_fmu_state_carries_the_delay_history(fmus):
    """A Co-Simulation instance's state serialized at 1.5 s and restored into a new instance
    (started at 0 s, its history holding only that start) continues bit for bit as the first
    does: the state carries the history the delay reads back to 0.5 s. After a reset the
    first instance runs from 0 s again as it did the first time, bit for bit."""
    from fmpy import extract, instantiate_fmu

    for variant in ("fmi3", "fmi2"):
        path = fmus[(variant, "DelayDifferential")]
        description = read_model_description(path)
        (x,) = [v.valueReference for v in description.modelVariables if v.name == "x"]
        unzipped = extract(path)
        first, second = (
            _initialized(instantiate_fmu(unzipped, description, fmi_type="CoSimulation"), variant)
            for _ in range(2)
        )
        early = _steps(first, variant, x, 0.0, 150)
        if variant == "fmi2":
            saved = first.serializeFMUstate(first.getFMUstate())
            second.setFMUstate(second.deSerializeFMUstate(saved))
        else:
            saved = first.serializeFMUState(first.getFMUState())
            second.setFMUState(second.deserializeFMUState(saved))
        late = _steps(first, variant, x, 1.5, 150)
        assert _steps(second, variant, x, 1.5, 150) == late, variant
        first.reset()
        _initialized(first, variant)
        again = _steps(first, variant, x, 0.0, 150) + _steps(first, variant, x, 1.5, 150)
        assert again == early + late, variant
        for fmu in (first, second):
            fmu.terminate()
            fmu.freeInstance()


@pytest.mark.parametrize(
    "construct, body, words, placed", UNSUPPORTED, ids=[u[0] for u in UNSUPPORTED]
)
def test_unsupported_construct_is_one_line(tmp_path, construct, body, words, placed):
    message = _build_error(_library(tmp_path, f"package Bad\n{body}end Bad;\n"))
    assert words in message, message
    if placed:
        assert re.match(r"Bad/package\.mo:\d+:\d+: Bad\.M: unsupported Modelica construct", message)
    else:  # the model named, and the file where rumoca's message gives no line
        assert re.match(r"(Bad/package\.mo: )?Bad\.M: ", message), message


def test_supported_constructs_name_their_tests():
    tests = {
        name
        for path in Path(__file__).parent.glob("test_build_*.py")
        for name in re.findall(r"^def (test_\w+)", path.read_text(), flags=re.MULTILINE)
    }
    assert {test for _, test in SUPPORTED} <= tests


def test_readme_table_of_constructs_is_current():
    """Rewrite it with `python tests/modelica_support.py`."""
    assert current_readme_table() == table()


# Each replaceable record of MurCoSim, redeclared by a user record that changes its values, in
# a user library that finds MurCoSim on the library path: (user package body, model,
# {variable: value the FMU must start from}).
USER_RECORDS = {
    "Vehicle.Data": (
        """  record Heavy "A 15 kg vehicle"
    extends MurCoSim.Data.BlueROV2Heavy(m = 15, volume = 0.015);
  end Heavy;
  model Robot
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = Mine.Heavy);
  end Robot;
""",
        "Mine.Robot",
        {"data.m": 15.0, "data.volume": 0.015, "data.D_Q[1]": 18.18},
    ),
    "CylinderBody.Data": (
        """  record Spar "A longer cylinder"
    extends MurCoSim.Buoys.PrototypeHousingData(length = 0.5, m = 2.5);
  end Spar;
  model SparBuoy
    extends MurCoSim.Buoys.CylinderBody(redeclare record Data = Mine.Spar);
  end SparBuoy;
""",
        "Mine.SparBuoy",
        {"data.length": 0.5, "data.m": 2.5, "data.radius": 0.0395},
    ),
    "ThrusterBase.data": (
        """  record Worn "A worn T200"
    extends MurCoSim.Data.T200(K_L = 0.025, K_Q = 2.0e-4);
  end Worn;
  model WornThruster
    extends MurCoSim.Thrusters.ThrusterBase(redeclare Mine.Worn data);
  equation
    w = w_cmd;
  end WornThruster;
""",
        "Mine.WornThruster",
        {"data.K_L": 0.025, "data.K_Q": 2.0e-4, "data.dead_zone": 25.0},
    ),
    "Thruster component": (
        """  record Worn "A worn T200"
    extends MurCoSim.Data.T200(K_L = 0.025);
  end Worn;
  model Pod "One thruster with a worn propeller, driven by a command"
    MurCoSim.Thrusters.Thruster thruster(redeclare Mine.Worn data);
    input Real pwm(start = 1500) "Command";
  equation
    thruster.pwm = pwm;
    thruster.nu_r = zeros(6);
    thruster.immersion = 1;
  end Pod;
""",
        "Mine.Pod",
        {"thruster.data.K_L": 0.025, "thruster.data.K_Q": 2.52e-4},
    ),
}


@pytest.mark.parametrize("record", USER_RECORDS)
def test_user_record_reaches_the_fmu(tmp_path, record):
    body, model, expected = USER_RECORDS[record]
    folder = tmp_path / "Mine"
    folder.mkdir()
    (folder / "package.mo").write_text(f'package Mine "user library"\n{body}end Mine;\n')
    (path,) = build_library(
        folder,
        tmp_path / "fmus",
        variants=("me",),
        models=[model],
        report=lambda _: None,
        library_path=[MURCOSIM.parent],
    )
    starts = {v.name: v.start for v in read_model_description(path).modelVariables}
    for name, value in expected.items():
        assert float(starts[name]) == value, (record, name, starts[name])
    assert not any(name.startswith("MurCoSim") for name in starts)


# -- MultiBody: frames whose orientation record is overdetermined (Modelica 3.6, Sec. 9.4) ---
# The stand-in's World, Body, FixedTranslation, Revolute and Prismatic are written in MSL's
# style: Connections.root, potentialRoot, branch, isRoot and rooted, and whole-record
# equations of orientations. Gravity 9.81 m/s2 along -y.
def _physical_pendulum():
    # a body of 2 kg, its centre of mass 0.75 m from the hinge (z axis), 0.03 kg.m2 about
    # it: (I_zz + m d^2) phi'' = -m g d cos(phi), phi from the x axis
    m, d, inertia = 2.0, 0.75, 0.03
    sol = solve_ivp(
        lambda t, z: [z[1], -m * 9.81 * d * math.cos(z[0]) / (inertia + m * d * d)],
        (0, TIMES[-1]),
        [0.3, 0.0],
        t_eval=TIMES,
        rtol=1e-12,
        atol=1e-12,
    )
    return sol.y


def test_multibody_pendulum_of_a_revolute_a_rod_and_a_body(fmus):
    phi, w = _physical_pendulum()
    reference = {"rev.phi": phi, "rev.w": w}
    # the rod's end (frame_a of the body) turns with the hinge, resolved in the world frame
    reference |= {
        "body.frame_a.r_0[1]": 0.5 * np.cos(phi),
        "body.frame_a.r_0[2]": 0.5 * np.sin(phi),
    }
    check(fmus, "SwingingArm", reference)
    # the hinge turned round: rooted(frame_a.R) is false, frame_a's orientation follows
    # frame_b's, and the angle from frame a to frame b is the opposite one
    check(fmus, "SwingingArmReversed", {"rev.phi": -phi, "rev.w": -w})


def test_multibody_slider_on_an_incline(fmus):
    # 3 kg slide from rest along (1, -1, 0)/sqrt(2): s = g t^2/(2 sqrt(2)); the incline
    # pushes on the body with m g/sqrt(2) along (1, 1, 0)/sqrt(2), which the body's frame
    # (not rotated) carries as the cut force m (a - g) = (m g/2, m g/2, 0)
    s = 9.81 / (2 * math.sqrt(2)) * TIMES**2
    force = np.full_like(TIMES, 3 * 9.81 / 2)
    check(
        fmus,
        "Slider",
        {
            "incline.s": s,
            "body.frame_a.r_0[2]": 1 - s / math.sqrt(2),
            "body.frame_a.f[1]": force,
            "body.frame_a.f[2]": force,
        },
    )


def test_multibody_free_body_with_cardan_angle_states(fmus):
    # an unconnected body is its own root (isRoot), its states Cardan angles; against Euler's
    # equations I w' = -w x I w and the transformation matrix's dT/dt = -skew(w) T,
    # integrated by SciPy, and the throw r = v0 t + g t^2/2
    inertia = np.diag([1.0, 2.0, 3.0])

    def motion(t, z):
        w, matrix = z[:3], z[3:].reshape(3, 3)
        skew = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        return np.concatenate([np.linalg.solve(inertia, -np.cross(w, inertia @ w)),
                               (-skew @ matrix).ravel()])  # fmt: skip

    start = np.concatenate([[0.3, 0.2, 1.0], np.eye(3).ravel()])
    sol = solve_ivp(motion, (0, TIMES[-1]), start, t_eval=TIMES, rtol=1e-12, atol=1e-12)
    reference = {f"body.w_a[{i + 1}]": sol.y[i] for i in range(3)}
    for k, (i, j) in enumerate(itertools.product((1, 2, 3), repeat=2)):
        reference[f"body.frame_a.R.T[{i},{j}]"] = sol.y[3 + k]
    reference |= {"body.r_0[1]": TIMES, "body.r_0[2]": 2 * TIMES - 9.81 / 2 * TIMES**2}
    check(fmus, "TumblingBody", reference)


def test_newton_guess_from_a_start_bound_to_dependent_parameters(fmus):
    # q1^2 + q4^2 = 1 solved for q4 by Newton from q4's start, sqrt(1 - 0.6^2) through a
    # parameter bound to another (as MultiBody's quaternions start from Q_start =
    # from_T(R_start.T)); from 0, where the equation's derivative 2 q4 vanishes, it fails
    check(fmus, "QuaternionComponent", {"q4": np.sqrt(1 - (0.6 * np.cos(TIMES)) ** 2)})


# External functions in C: tests/data/external_library/ExternalLib, its C sources in its
# Resources (found through modelica:// URIs and the default Resources/Include)
EXTERNAL_LIBRARY = DATA / "external_library" / "ExternalLib"


@pytest.fixture(scope="module")
def external_fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("externallib")
    built = build_library(EXTERNAL_LIBRARY, out, backend="rumoca", report=lambda _: None)
    return {(p.parent.name if p.parent != out else "me", p.stem): p for p in built}


def test_external_c_functions_are_called_from_the_fmu(external_fmus):
    # m v' = -k v|v| (quadratic_drag in C) from v(0) = 1: v = 1/(1 + k t/m); x' = -c x^3
    # (integer_power(x, 3), an Integer passed as C int, pow from Library "m") from x(0) = 1:
    # x = 1/sqrt(1 + 2 c t); the drag force f = k v^2
    v = 1.0 / (1.0 + 0.5 * TIMES / 2.0)
    reference = {"v": v, "x": 1.0 / np.sqrt(1.0 + 2.0 * 0.8 * TIMES), "f": 0.5 * v**2}
    check(external_fmus, "Decay", reference)


def test_external_c_arrays_with_size_arguments(external_fmus):
    # x' = -scale(x, k) (an output array written by C, its length a size argument):
    # x = x0 exp(-k t); z' = A z with A = [0, 1; -1, 0] passed row-major (its transpose would
    # turn z the other way): z = (cos t, -sin t); e = dot(x, x) = 14 exp(-2 k t); s, x
    # weighted by the Integer array {1, 2, 3} (C ints), also 14 exp(-k t)
    decay = np.exp(-0.7 * TIMES)
    reference = {f"x[{i}]": i * decay for i in (1, 2, 3)}
    reference |= {"z[1]": np.cos(TIMES), "z[2]": -np.sin(TIMES), "e": 14.0 * decay**2}
    reference["s"] = 14.0 * decay
    check(external_fmus, "Vectors", reference)


def test_external_c_sources_rebuild_the_fmu_binary(external_fmus, tmp_path):
    # every FMU with external functions validates; the FMU's sources/ (wrappers, the user's
    # included files, the FMI layer) compile into a binary that runs the model bit for bit
    # as the shipped one does
    assert {str(p): validate_fmu(str(p)) for p in external_fmus.values()} == {
        str(p): [] for p in external_fmus.values()
    }
    path = external_fmus[("me", "Decay")]
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path / "unpacked")
    assert {"sources/model_external.c", "sources/laws.c", "sources/powers.h"} <= set(names)
    sources = tmp_path / "unpacked" / "sources"
    binary = tmp_path / "unpacked" / "binaries" / "x86_64-linux" / "Decay.so"
    shipped = simulate_fmu(str(path), stop_time=2.0, output=["v", "x"], output_interval=0.25)
    units = ["model.c", "model_core.c", "model_external.c", "external_runtime.c", "fmi3_layer.c"]
    command = ["cc", "-O2", "-fPIC", "-shared", "-std=c99", "-w", "-I", str(sources)]
    command += ["-I", str(Path(fmpy.__file__).parent / "c-code")]
    command += [str(sources / unit) for unit in units] + ["-o", str(binary), "-lm"]
    subprocess.run(command, check=True)
    rebuilt_fmu = tmp_path / "Decay.fmu"
    shutil.make_archive(str(rebuilt_fmu.with_suffix("")), "zip", tmp_path / "unpacked")
    rebuilt_fmu.with_suffix(".zip").rename(rebuilt_fmu)
    rebuilt = simulate_fmu(str(rebuilt_fmu), stop_time=2.0, output=["v", "x"], output_interval=0.25)
    assert np.array_equal(shipped["v"], rebuilt["v"]) and np.array_equal(shipped["x"], rebuilt["x"])


def _rates_at_start(path: Path, knowns: list[str], callbacks: object = None) -> dict[str, object]:
    """The FMU's directional derivatives of (der(x), der(y)) for a unit seed in each of
    ``knowns`` at the start, FMI 2.0 or 3.0 Model Exchange; the error text where it fails.
    ``callbacks``: FMI 2.0 callback functions (FMPy's default ones when None)."""
    md = read_model_description(str(path))
    refs = {v.name: v.valueReference for v in md.modelVariables}
    fmi2 = md.fmiVersion == "2.0"
    fmu = (FMU2Model if fmi2 else FMU3Model)(
        guid=md.guid if fmi2 else md.instantiationToken,
        unzipDirectory=extract(str(path)),
        modelIdentifier=md.modelExchange.modelIdentifier,
        instanceName="rates",
    )
    fmu.instantiate(**({"callbacks": callbacks} if callbacks is not None else {}))
    if fmi2:
        fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    fmu.enterContinuousTimeMode()
    rates: dict[str, object] = {}
    for known in knowns:
        try:
            unknowns = [refs["der(x)"], refs["der(y)"]]
            rates[known] = fmu.getDirectionalDerivative(unknowns, [refs[known]], [1.0])
        except Exception as error:  # FMPy raises on the FMU's error status
            rates[known] = str(error)
    fmu.terminate()
    fmu.freeInstance()
    return rates


def test_external_c_derivative_annotation_gives_the_directional_derivative(external_fmus):
    # x' = -cubic(x, k), cubic's derivative annotation a C function too (zeroDerivative = k),
    # beside y' = -k integerPower(y, 3), which has none: both x = y = 1/sqrt(1/1.5^2 + 2 k t)
    # in four variants; d(x')/dx at 1.5 is -3 k 1.5^2 = -5.4 from the derivative function
    # (to rounding), d(y')/dy the same through central differences (to 1e-6); a seed in k,
    # whose derivative the annotation declares zero, is an error
    solution = 1.0 / np.sqrt(1.0 / 1.5**2 + 2.0 * 0.8 * TIMES)
    check(external_fmus, "Rates", {"x": solution, "y": solution})
    for variant in ("me", "fmi2"):
        rates = _rates_at_start(external_fmus[(variant, "Rates")], ["x", "y", "k"])
        assert rates["x"][0] == pytest.approx(-5.4, rel=1e-14, abs=0) and rates["x"][1] == 0
        assert rates["y"][1] == pytest.approx(-5.4, rel=1e-6) and rates["y"][1] != -5.4
        assert "failed with status 3" in rates["k"], rates["k"]


def test_fmi2_messages_reach_their_own_log_and_outlive_it(external_fmus):
    # FMPy formats FMI 2.0 messages in C and hands them to one Python logger for the whole
    # process. Two instances with logs of their own: the error of a seed in k is in the log of
    # the instance that failed only. Then, in a fresh process, a log is collected before an
    # instance on FMPy's default callbacks fails: its message is printed and the process ends
    # normally (the proxy called the collected log's freed logger: a segmentation fault)
    path = external_fmus[("fmi2", "Rates")]
    first, second = FMULog(), FMULog()
    callbacks = first.fmi2_callbacks()
    second.fmi2_callbacks()
    assert "failed with status 3" in _rates_at_start(path, ["k"], callbacks)["k"]
    assert [text for _, text in first.messages] == [
        "evaluation of the directional derivative failed"
    ]
    assert not second.messages
    code = f"""
import gc, sys
sys.path[:0] = {[str(Path(__file__).parent), str(Path(__file__).parents[1])]!r}
from orchestrator.fmi.log import FMULog
from test_build_rumoca import _rates_at_start
FMULog().fmi2_callbacks()
gc.collect()
print(_rates_at_start({str(path)!r}, ["x", "k"]))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "[ERROR] evaluation of the directional derivative failed" in done.stdout
    assert "'x': [-5.4, " in done.stdout and "failed with status 3" in done.stdout
    # FMPy's simulate_fmu with a logger, after a first log, points the proxy at a logger that
    # dies with the call: a log made after it still gets its instance's messages
    code = f"""
import gc, sys, fmpy
sys.path[:0] = {[str(Path(__file__).parent), str(Path(__file__).parents[1])]!r}
from orchestrator.fmi.log import FMULog
from test_build_rumoca import _rates_at_start
kept = FMULog(), FMULog()
kept[0].fmi2_callbacks()
fmpy.simulate_fmu({str(path)!r}, stop_time=0.1, logger=lambda *message: None)
gc.collect()
_rates_at_start({str(path)!r}, ["k"], kept[1].fmi2_callbacks())
print(list(kept[1].messages))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "evaluation of the directional derivative failed" in done.stdout
