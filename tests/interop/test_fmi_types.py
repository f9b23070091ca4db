"""Every FMI variable type, FMI 3.0 arrays, type and unit checks of connections, and the FMI
call order of parameters, start values and experiment set-up, on FMUs built in the tests:
``data/typed_io_fmi3.c`` (FMI 3.0, every type), ``data/phases_fmi2.c`` (FMI 2.0, strict about
the phase of every value set) and pythonfmu (FMI 2.0)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import cli_error
from foreign import TYPED_IO_TYPES, phases_fmu, python_fmu, spring_mass_fmu, typed_io_fmu

from orchestrator.errors import FMUError, ScenarioError
from orchestrator.fmi.fmu import FMU
from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System

NUMBERS = [k for k, _ in TYPED_IO_TYPES if k not in ("String", "Binary")]


@pytest.fixture(scope="module")
def typed_io(tmp_path_factory) -> Path:
    return typed_io_fmu(tmp_path_factory.mktemp("typed_io"))


def chain(fmu: Path, extra: str = "") -> str:
    """Instance a drives every numeric input of b (and b's arrays) through a's outputs, in
    weak coupling (strong coupling's compiled right-hand side connects Float64 scalars)."""
    links = "".join(
        f'[[connections]]\nfrom = "a.y_{k}"\nto = "b.u_{k}"\n' for k in [*NUMBERS, "arr"]
    )
    return f"""
[simulation]
stop_time = 0.2
output_interval = 0.1
[cosimulation]
macro_step = 0.1
[components.b]
fmu = "{fmu}"
{extra}
[components.a]
fmu = "{fmu}"
parameters = {{ "gain[2]" = 7.0, "R[1,2]" = 2.0 }}
[components.a.start]
u_Int8 = -3
u_UInt64 = 9
u_Boolean = false
u_Enumeration = 2
u_String = "hi"
"u_arr[1]" = 1.0
"u_arr[2]" = 2.0
"u_arr[3]" = 3.0
{links}"""


def test_every_type_is_set_connected_and_recorded(run, typed_io):
    cols, _ = run(chain(typed_io))
    # the C model: numbers y = u + 1, Boolean y = not u, enumeration y = 3 - u
    inputs = {k: float(v) for k, v in TYPED_IO_TYPES if k in NUMBERS and k != "Boolean"}
    inputs.update({"Int8": -3.0, "UInt64": 9.0, "Boolean": 0.0, "Enumeration": 2.0})
    for kind in NUMBERS:
        u = inputs[kind]
        if kind == "Boolean":
            a, b = 1.0 - u, u
        elif kind == "Enumeration":
            a, b = 3.0 - u, u
        else:
            a, b = u + 1.0, u + 2.0
        np.testing.assert_array_equal(cols[f"a.y_{kind}"], a, err_msg=kind)
        np.testing.assert_array_equal(cols[f"b.u_{kind}"], a, err_msg=kind)
        np.testing.assert_array_equal(cols[f"b.y_{kind}"], b, err_msg=kind)
    # arrays: y_arr = gain .* u_arr, element-wise over the structural size n = 3
    gain_a, gain_b, u = np.array([1.0, 7.0, 3.0]), np.array([1.0, 2.0, 3.0]), np.arange(1, 4)
    for i in range(3):
        assert cols[f"a.y_arr[{i + 1}]"][-1] == gain_a[i] * u[i]
        assert cols[f"b.y_arr[{i + 1}]"][-1] == gain_b[i] * gain_a[i] * u[i]
    # a 3 x 3 parameter from a start "1 0 0 0 1 0 0 0 1", row-major, one element changed
    R = np.eye(3)
    R[0, 1] = 2.0
    np.testing.assert_array_equal([cols[f"a.r_u[{i}]"][-1] for i in (1, 2, 3)], R @ u)
    assert not any("String" in c or "Binary" in c for c in cols)  # texts are not recorded


def test_texts_and_bytes_are_read_and_set(typed_io):
    fmu = FMU(typed_io)
    instance = fmu.instantiate("t")
    try:
        instance.setup_experiment(0.0, 1.0)
        instance.set_start_values({"u_String": "sonar", "u_Binary": "0102"})
        instance.initialize(0.0)
        port = instance.port(["y_String", "y_Binary", "y_Int16", "u_arr[2]"])
        values = instance.read(port)
        assert list(values) == ["sonar!", b"\x01\x02\xff", -15.0, 0.0]
        port.values[:] = ["ping", b"", 3, 4.5]
        with pytest.raises(Exception, match="y_String"):  # outputs are not settable
            instance.write(port)
        inputs = instance.port(["u_String", "u_Binary", "u_arr[2]"])
        inputs.values[:] = ["ping", b"\x00", 4.5]
        instance.write(inputs)
        assert list(instance.read(port)) == ["ping!", b"\x00\xff", -15.0, 4.5]
        assert list(instance.read(instance.port(["u_arr[1]", "u_arr[3]"]))) == [0.0, 0.0]
    finally:
        instance.terminate()
        fmu.close()


def system_error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as caught:
        System(load_scenario(path), str(path), tmp_path).close()
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("y_Int8", "u_Int16", "a.y_Int8 -> b.u_Int16: types differ (Int8 -> Int16)"),
        ("y_Enumeration", "u_Int64", "types differ (Enumeration 'Side' -> Int64)"),
        ("y_Float32", "u_Float64", "a.y_Float32 -> b.u_Float64: types differ"),
        ("y_Float64", "u_arr[1]", "a.y_Float64 -> b.u_arr[1]: units differ ('m' -> 'mm')"),
        ("y_String", "u_String", "a.y_String -> b.u_String: String variables cannot be"),
        ("y_Int8", "u_Int8", "a.y_Int8 -> b.u_Int8: strong coupling connects Float64 scalars"),
        ("y_arr", "u_arr", "a.y_arr[1] -> b.u_arr[1]: strong coupling connects Float64 scalars"),
    ],
)
def test_mismatched_connection_is_one_line_naming_both_ends(
    tmp_path, typed_io, source, target, expected
):
    text = chain(typed_io).split("[[connections]]")[0]
    if "strong coupling" in expected:
        text = text.replace("[cosimulation]\nmacro_step = 0.1\n", "")
    message = system_error(
        tmp_path, text + f'[[connections]]\nfrom = "a.{source}"\nto = "b.{target}"\n'
    )
    assert message.startswith(f"{tmp_path / 'bad.toml'}: connections[0]: ")
    assert expected in message


def test_units_with_equal_definitions_connect(tmp_path, typed_io):
    text = chain(typed_io).split("[[connections]]")[0]
    path = tmp_path / "ok.toml"
    path.write_text(text + '[[connections]]\nfrom = "a.r_u[1]"\nto = "b.u_Float64"\n')
    System(load_scenario(path), str(path), tmp_path).close()  # 'metre' and 'm': same unit


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ("u_Int8 = 2.5", "'u_Int8' is a(n) Int8 variable; expected an integer, got 2.5"),
        ('u_Boolean = "yes"', "'u_Boolean' is a(n) Boolean variable; expected true or false"),
        ("u_String = 1.0", "'u_String' is a(n) String variable; expected a string, got 1.0"),
        ("n = 2", "structural parameter 'n' sizes arrays; expected its start value 3"),
    ],
)
def test_badly_typed_start_value_is_one_line(tmp_path, typed_io, values, expected):
    group = "parameters" if values.startswith("n ") else "start"
    text = chain(typed_io, f"{group} = {{ {values} }}").split("[[connections]]")[0]
    message = system_error(tmp_path, text)
    variable = values.split(" ")[0]
    assert message.startswith(f"{tmp_path / 'bad.toml'}: components.b.{group}.{variable}: ")
    assert expected in message


def test_fmi3_experiment_and_structural_parameter_reach_the_fmu(run, typed_io):
    """The C model refuses n outside Configuration Mode and parameters after initialization;
    it reports the start and stop times it was given."""
    cols, _ = run(
        'record = ["b.y_arr*"]\n'
        + chain(typed_io, 'parameters = { n = 3, "gain[1]" = 5.0 }').split("[[connections]]")[0]
        + "[[connections]]\nfrom = 'a.y_arr'\nto = 'b.u_arr'\n"
    )
    np.testing.assert_array_equal(cols["b.y_arr[1]"], 5.0)
    fmu = FMU(typed_io)
    instance = fmu.instantiate("t")
    try:
        instance.setup_experiment(1.5, 4.25)
        instance.initialize(1.5)
        assert list(instance.get_values(["t_start", "t_stop"])) == [1.5, 4.25]
    finally:
        instance.terminate()
        fmu.close()


RESETTING = """
from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Boolean, Integer, Real, String


class Resetting(Fmi2Slave):
    \"\"\"Resets its parameter k in fmi2SetupExperiment, as some exporters do; passes an Integer,
    a Boolean and a String through (y = u + 1, not u, u + '!').\"\"\"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.k = 1.0
        self.y = 0.0
        self.t_stop = 0.0
        self.count = 0
        self.n = 0
        self.flag = False
        self.flag_out = True
        self.text = "a"
        self.text_out = ""
        self.register_variable(Real("k", causality=Fmi2Causality.parameter,
                                    variability=Fmi2Variability.tunable))
        self.register_variable(Real("y", causality=Fmi2Causality.output))
        self.register_variable(Real("t_stop", causality=Fmi2Causality.output))
        self.register_variable(Integer("n", causality=Fmi2Causality.input))
        self.register_variable(Integer("count", causality=Fmi2Causality.output))
        self.register_variable(Boolean("flag", causality=Fmi2Causality.input))
        self.register_variable(Boolean("flag_out", causality=Fmi2Causality.output))
        self.register_variable(String("text", causality=Fmi2Causality.input))
        self.register_variable(String("text_out", causality=Fmi2Causality.output))

    def setup_experiment(self, start_time, stop_time, tolerance):
        self.k = 1.0
        self.t_stop = stop_time

    def do_step(self, current_time, step_size):
        self.y = self.k
        self.count = self.n + 1
        self.flag_out = not self.flag
        self.text_out = self.text + "!"
        return True
"""


def test_fmi2_parameters_survive_setup_experiment_and_every_type_passes(run, tmp_path):
    fmu = python_fmu(tmp_path, "resetting", RESETTING)
    cols, _ = run(
        f"""
[simulation]
stop_time = 0.3
output_interval = 0.1
[cosimulation]
macro_step = 0.1
[components.a]
fmu = "{fmu}"
parameters = {{ k = 5.0 }}
start = {{ n = 41, flag = true, text = "ping" }}
[components.b]
fmu = "{fmu}"
[[connections]]
from = "a.count"
to = "b.n"
[[connections]]
from = "a.flag_out"
to = "b.flag"
"""
    )
    np.testing.assert_array_equal(cols["a.y"][1:], 5.0)  # k set after fmi2SetupExperiment
    np.testing.assert_array_equal(cols["b.y"][1:], 1.0)
    np.testing.assert_array_equal(cols["a.t_stop"][1:], 0.3)
    np.testing.assert_array_equal(cols["a.count"][1:], 42.0)
    np.testing.assert_array_equal(cols["b.count"][2:], 43.0)  # one macro step behind
    np.testing.assert_array_equal(cols["a.flag_out"][1:], 0.0)
    np.testing.assert_array_equal(cols["b.flag_out"][2:], 1.0)


@pytest.mark.parametrize("version", ["2.0", "3.0"])
def test_parameter_outside_the_declared_range_is_one_line(tmp_path, capsys, version):
    """A parameter below the min its model description declares (the spring's stiffness,
    min = 0) is refused naming the key and the range; the FMU itself would take it."""
    spring = spring_mass_fmu(tmp_path, ("ModelExchange",), version)
    path = tmp_path / "spring.toml"
    text = '[simulation]\nstop_time = 0.1\n[components.mass]\nfmu = "{fmu}"\n'
    path.write_text(text.format(fmu=spring.as_posix()) + "parameters = { k = -4.0 }\n")
    error = cli_error(path, tmp_path, capsys)
    assert "components.mass.parameters.k:" in error
    assert "'k' = -4 is outside the FMU's declared range [0, inf]" in error


def test_weak_coupling_ends_at_stop_time_and_evaluates_stateless_model_exchange(
    run, tmp_path, typed_io
):
    """A Model Exchange spring-mass with states (integrated inside each macro step) drives a
    stateless Model Exchange FMU (evaluated at the communication points), once through a unit
    conversion: x = cos(2 t)."""
    spring = spring_mass_fmu(tmp_path, ("ModelExchange",), "3.0")
    cols, events = run(
        f"""
record = ["mass.x", "shift.y_Float64", "shift.y_arr*"]
[simulation]
stop_time = 1.05
output_interval = 0.1
step = 0.01
[cosimulation]
macro_step = 0.1
[components.mass]
fmu = "{spring}"
parameters = {{ m = 1.0, k = 4.0 }}
start = {{ x = 1.0 }}
[components.shift]
fmu = "{typed_io}"
[[connections]]
from = "mass.x"
to = "shift.u_Float64"
[[connections]]
from = "mass.x"
to = "shift.u_arr[2]"
factor = 1000.0
offset = 5.0
"""
    )
    t = cols["time"]
    np.testing.assert_allclose(t, [*np.arange(11) / 10, 1.05], rtol=0, atol=1e-12)
    assert t[-1] == 1.05
    # RK4 with h = 0.01 on omega = 2 rad/s: global error of order (omega h)^4 ~ 1e-7 or below
    np.testing.assert_allclose(cols["mass.x"], np.cos(2 * t), atol=1e-8)
    np.testing.assert_allclose(cols["shift.y_Float64"], cols["mass.x"] + 1, atol=1e-15)
    # m -> mm on the connection, then y_arr[2] = gain[2] u_arr[2] with gain[2] = 2
    np.testing.assert_allclose(cols["shift.y_arr[2]"], 2 * (1000 * cols["mass.x"] + 5), rtol=1e-14)


def test_failed_initialization_names_the_file(run, typed_io):
    """The C model refuses to leave initialization with a negative gain[1]."""
    with pytest.raises(FMUError) as caught:
        run(chain(typed_io, 'parameters = { "gain[1]" = -1.0 }').split("[[connections]]")[0])
    message = str(caught.value)
    assert "\n" not in message
    assert "TypedIO.fmu (b): initialization failed" in message


@pytest.mark.parametrize("version", ["2.0", "3.0"])
def test_factor_and_offset_under_strong_coupling(tmp_path, version):
    """The compiled kernel applies a connection's factor and offset: mass a on a spring
    (k = 4 N/m, m = 1 kg) to x_other = 2 x_b + 0.5 with b resting at 1 m oscillates about
    2.5 m, x_a = 2.5 (1 - cos 2t) (RK45 at rtol 1e-10: within 1e-7 m)."""
    spring = spring_mass_fmu(tmp_path, ("ModelExchange",), version)
    path = tmp_path / "converted.toml"
    path.write_text(
        f"""[simulation]
stop_time = 3.0
output_interval = 0.1
rtol = 1e-10
atol = 1e-12
[components.a]
fmu = "{spring.as_posix()}"
parameters = {{ m = 1.0, k = 4.0 }}
[components.b]
fmu = "{spring.as_posix()}"
start = {{ x = 1.0 }}
[[connections]]
from = "b.x"
to = "a.x_other"
factor = 2.0
offset = 0.5
"""
    )
    run_scenario(path, tmp_path / "out", tmp_path, plots=False)
    cols = read_timeseries(tmp_path / "out" / "timeseries.csv")
    np.testing.assert_allclose(cols["b.x"], 1.0, atol=1e-12)
    np.testing.assert_allclose(cols["a.x"], 2.5 * (1 - np.cos(2 * cols["time"])), atol=1e-7)


def run_phases(tmp_path: Path, values: str) -> np.ndarray:
    """Run the FMI 2.0 FMU of ``data/phases_fmi2.c`` (y = k u + n) with the component table
    lines ``values`` for 0.2 s under weak coupling; its output y (1) at every row."""
    fmu = phases_fmu(tmp_path)
    path = tmp_path / "phases.toml"
    path.write_text(
        f"""[simulation]
stop_time = 0.2
output_interval = 0.1
[cosimulation]
macro_step = 0.1
[components.b]
fmu = "{fmu.as_posix()}"
{values}
"""
    )
    run_scenario(path, tmp_path / "out", tmp_path, plots=False)
    return read_timeseries(tmp_path / "out" / "timeseries.csv")["b.y"]


def test_fmi2_inputs_get_their_start_values_in_initialization_mode(tmp_path):
    """FMI 2.0.4 allows an input to be set only from Initialization Mode on (in Instantiated,
    only variables with initial exact or approx: the parameter k); the C model refuses any
    other order, and sees k = 2, u = 1.5, n = 3 from its initialization on."""
    y = run_phases(tmp_path, "parameters = { k = 2.0 }\nstart = { u = 1.5, n = 3 }")
    np.testing.assert_array_equal(y, 6.0)


@pytest.mark.parametrize(
    ("start", "call"),
    [
        ("u = -1.0, n = 2", "fmi2SetReal of u (Real)"),
        ("u = 1.5, n = -2", "fmi2SetInteger of n (Integer)"),
    ],
)
def test_refused_start_value_names_instance_phase_and_typed_variables(tmp_path, start, call):
    """The C model refuses values below the minimum 0 of u (Real) and n (Integer): one line
    naming the file, the instance, the phase, the FMI call and only the variables of that call,
    each with its FMI 2.0 type."""
    with pytest.raises(FMUError) as refused:
        run_phases(tmp_path, f"start = {{ {start} }}")
    assert str(refused.value) == (
        f"Phases.fmu (b): start values in Initialization Mode: {call} returned 'error'"
    )
