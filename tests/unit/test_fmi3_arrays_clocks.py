"""FMI 3.0 Model Exchange FMUs with array states and outputs, and with clocks, run under strong
and weak coupling against their analytic solutions; every FMI call in the order and state the
standard allows (the test FMUs log each call out of sequence); what murcosim cannot drive is
refused in one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from array_clock_fmus import (
    LOG,
    TRIGGERED_INPUT,
    clocks_fmu,
    clocks_reference,
    near_activation,
    state_space,
    state_space_fmu,
)

from orchestrator.errors import FMUError, ScenarioError
from orchestrator.fmi.fmu import FMU
from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario

WEAK = "[cosimulation]\nmacro_step = 0.1\n"
COUPLINGS = pytest.mark.parametrize("coupling", ["", WEAK], ids=["strong", "weak"])
A = np.array([[-0.5, 1.0, 0.0], [-1.0, -0.5, 0.0], [0.0, 0.0, -2.0]])  # 1/s: a damped rotation
B = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
X0 = np.array([1.0, 0.0, 0.5])
U = np.array([1.0, 2.0, 3.0])  # the input's start values


@pytest.fixture
def calls(tmp_path, monkeypatch) -> Path:
    """The file the test FMUs write every call out of sequence into."""
    path = tmp_path / "calls.log"
    monkeypatch.setenv(LOG, str(path))
    return path


def out_of_sequence(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def run(
    tmp_path: Path,
    fmu: Path,
    text: str,
    stop: float = 2.0,
    component: str = "",
    interval: float = 0.1,
) -> dict[str, np.ndarray]:
    """Run one component ``m`` of ``fmu`` (more lines of its table: ``component``) with the
    scenario lines ``text``; the columns of the results."""
    path = tmp_path / "scenario.toml"
    path.write_text(
        f"""{text}
[simulation]
stop_time = {stop}
output_interval = {interval}
step = 0.01
rtol = 1e-10
atol = 1e-12
[components.m]
fmu = "{fmu.as_posix()}"
{component}
"""
    )
    run_scenario(path, tmp_path / "out", tmp_path, plots=False)
    return read_timeseries(tmp_path / "out" / "timeseries.csv")


def matrix_parameters() -> str:
    """A, B and x0 element by element, as a component's parameters table."""
    values = [f'"A[{i + 1},{j + 1}]" = {float(A[i, j])!r}' for i in range(3) for j in range(3)]
    values += [f'"B[{i + 1},{j + 1}]" = {float(B[i, j])!r}' for i in range(3) for j in range(3)]
    values += [f'"x0[{i + 1}]" = {float(X0[i])!r}' for i in range(3)]
    return "parameters = { " + ", ".join(values) + " }"


@COUPLINGS
@pytest.mark.parametrize(
    "interfaces", [("ModelExchange",), ("ModelExchange", "CoSimulation")], ids=["ME", "ME+CS"]
)
def test_array_states_and_outputs_follow_the_matrix_exponential(
    tmp_path, calls, coupling, interfaces
):
    """der(x) = A x + B u from x0: x, y = x and the 3 x 3 output P = x u^T recorded element by
    element (P[i,j] row-major, indices from 1) match exp(M t) of scipy; strong coupling at rtol
    1e-10, weak coupling with RK4 steps of 0.01 s (Model Exchange) or the FMU's own RK4 steps
    of 1e-3 s (Co-Simulation, which weak coupling prefers)."""
    fmu = state_space_fmu(tmp_path, interfaces)
    cols = run(tmp_path, fmu, f'record = ["m.*"]\n{coupling}', 2.0, matrix_parameters())
    names = [f"m.P[{i},{j}]" for i in (1, 2, 3) for j in (1, 2, 3)]
    assert set(names) <= set(cols)
    t = cols["time"]
    x = state_space(t, A, B, X0, U)
    tolerance = 1e-7 if coupling else 1e-8
    for i in range(3):
        if interfaces == ("ModelExchange",) or not coupling:
            np.testing.assert_allclose(cols[f"m.x[{i + 1}]"], x[:, i], atol=tolerance)
        np.testing.assert_allclose(cols[f"m.y[{i + 1}]"], x[:, i], atol=tolerance)
        for j in range(3):
            np.testing.assert_allclose(
                cols[f"m.P[{i + 1},{j + 1}]"], x[:, i] * U[j], atol=3 * tolerance
            )
    assert out_of_sequence(calls) == []


def test_an_instance_that_failed_is_freed_without_terminate(tmp_path, calls):
    """After a call that returned an error (an output set: the FMU refuses it), FMI 3.0 allows
    only freeing or resetting the instance: murcosim calls no fmi3Terminate."""
    fmu = FMU(state_space_fmu(tmp_path, ("ModelExchange",)))
    instance = fmu.instantiate("m")
    instance.setup_experiment(0.0, 1.0)
    instance.initialize(0.0)
    port = instance.port(["y[1]", "y[2]", "y[3]"])
    with pytest.raises(FMUError, match="fmi3SetFloat64 of y"):
        instance.write(port)
    instance.terminate()
    fmu.close()
    assert out_of_sequence(calls) == [
        "fmi3SetFloat64 in Continuous-Time Mode: not a parameter or an input"
    ]


@COUPLINGS
def test_clocks_are_activated_at_their_times(tmp_path, calls, coupling):
    """A constant clock every 0.25 s (count, sample of x = t, sum of the clocked input u = 2), a
    fixed clock whose interval and shift the FMU tells (0.4 s, 0.1 s), a countdown clock whose
    next interval the FMU tells at each activation, and an output clock at every 4th tick: the
    clocked outputs hold their values between activations and match their definitions; the FMU
    saw every activation on time, none missed, and clocked variables read and set only while
    their clock was active."""
    fmu = clocks_fmu(tmp_path)
    cols = run(tmp_path, fmu, coupling.replace("0.1", "0.05"), stop=3.0, interval=0.07)
    t = cols["time"]
    keep = ~near_activation(t, 3.0)
    assert keep.sum() > 35
    for name, expected in clocks_reference(t, 3.0).items():
        atol = 1e-9 if name in ("x", "sample") else 0.0
        np.testing.assert_allclose(cols[f"m.{name}"][keep], expected[keep], atol=atol, err_msg=name)
    assert cols["m.ticks"][-1] == 13  # t = 3 s: activations at 0, 0.25, ..., 3
    assert out_of_sequence(calls) == []


def test_a_triggered_input_clock_is_refused_in_one_line(tmp_path):
    fmu = clocks_fmu(tmp_path, TRIGGERED_INPUT, name="Triggered")
    with pytest.raises(FMUError) as refused:
        FMU(fmu)
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"{fmu}: clock 'trigger': input clock with intervalVariability ")
    assert "'triggered' has no source in a scenario" in message


def test_clocks_of_a_co_simulation_only_fmu_are_refused_in_one_line(tmp_path):
    fmu = clocks_fmu(tmp_path, interfaces=("CoSimulation",), name="ClocksCS")
    with pytest.raises(FMUError) as refused:
        FMU(fmu)
    assert str(refused.value) == (
        f"{fmu}: clock 'tick': clocks are run for Model Exchange only, and this FMU offers "
        "only Co-Simulation; export it with Model Exchange"
    )


def test_a_clocked_connection_under_strong_coupling_is_refused_in_one_line(tmp_path):
    fmu = clocks_fmu(tmp_path)
    path = tmp_path / "connected.toml"
    path.write_text(
        f"""[simulation]
stop_time = 1.0
output_interval = 0.1
[components.a]
fmu = "{fmu.as_posix()}"
[components.b]
fmu = "{fmu.as_posix()}"
[[connections]]
from = "a.x"
to = "b.u"
"""
    )
    with pytest.raises(ScenarioError) as refused:
        run_scenario(path, tmp_path / "out", tmp_path, plots=False)
    message = str(refused.value)
    assert "\n" not in message
    assert "a.x -> b.u: 'u' is clocked (tick)" in message
    assert message.endswith("run it under weak coupling ([cosimulation])")


def test_a_clocked_input_gets_its_connection_at_each_activation(tmp_path, calls):
    """Under weak coupling (macro steps of 0.05 s) b.u follows a.x = t, held from the last
    exchange: each tick of b at t_k = 0.25 k adds the value a.x had at the exchange before the
    event (t_k - 0.05 s); the tick at t = 0, in the initial event iteration before the first
    exchange, takes the start value u = 2. b.total at t is the sum of those."""
    fmu = clocks_fmu(tmp_path)
    path = tmp_path / "connected.toml"
    path.write_text(
        f"""record = ["b.total", "b.ticks"]
[simulation]
stop_time = 1.0
output_interval = 0.1
step = 0.01
[cosimulation]
macro_step = 0.05
[components.a]
fmu = "{fmu.as_posix()}"
[components.b]
fmu = "{fmu.as_posix()}"
[[connections]]
from = "a.x"
to = "b.u"
"""
    )
    run_scenario(path, tmp_path / "out", tmp_path, plots=False)
    cols = read_timeseries(tmp_path / "out" / "timeseries.csv")
    t = cols["time"]
    ticks = np.floor(t / 0.25 + 1e-9) + 1
    received = [2.0] + [0.25 * k - 0.05 for k in range(1, 5)]
    expected = np.array([sum(received[: int(n)]) for n in ticks])
    np.testing.assert_allclose(cols["b.total"], expected, atol=1e-9)
    assert out_of_sequence(calls) == []
