"""A user's own controller in the loop: named by import path in a scenario, or given as an object
in Python; the probe reads controller outputs and sets FMU inputs.

The oracle of the plumbing is the controller's own law applied to the recorded signals: at
every sample the recorded command must be that law of the recorded state at the sample time
(zero-order hold in between), which fails if inputs are read at the wrong time, outputs are
lost, delayed or not held.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import murcosim
from orchestrator.scenario.reading import validate_scenario

CONTROLLER = '''
from pydantic import BaseModel, Field

import murcosim


class DepthPD(murcosim.Controller):
    """Heave force on a vehicle from its depth error: tau_z = kp (depth - z) - kd w."""

    class Settings(BaseModel):
        vehicle: str
        depth: float = Field(description="m, NED z")
        kp: float = Field(gt=0)
        kd: float = Field(ge=0)

    def __init__(self, name, sample_time, settings):
        v = settings.vehicle
        super().__init__(
            name, sample_time, [f"{v}.p[3]", f"{v}.nu[3]"], [f"{v}.tau_ext[3]", f"{name}.error"]
        )
        self.settings = settings
        self.samples = 0

    def step(self, time, inputs):
        self.samples += 1
        z, w = inputs
        error = self.settings.depth - z
        return [self.settings.kp * error - self.settings.kd * w, error]

    def reset(self):
        self.samples = 0


class NotAController:
    def __init__(self, name, sample_time, settings):
        pass


class DrivesState(murcosim.Controller):
    def __init__(self, name, sample_time, settings):
        super().__init__(name, sample_time, [], ["rov.p[3]"])

    def step(self, time, inputs):
        return [0.0]


class Refuses(murcosim.Controller):
    def __init__(self, name, sample_time, settings):
        raise ValueError("no vehicle to control")

    def step(self, time, inputs):
        return []
'''

SCENARIO = """
[simulation]
stop_time = 4.0
output_interval = 0.1
step = 0.05

[components.rov]
fmu = "{fmu}"
[components.rov.start]
"p[3]" = 0.5

[controllers.pd]
class = "depth_control:DepthPD"
sample_time = 0.1
settings = {{ vehicle = "rov", depth = 2.0, kp = 80.0, kd = 40.0 }}
"""

KP, KD, DEPTH = 80.0, 40.0, 2.0


def _files(folder: Path, fmu_dir: Path, **replace: str) -> Path:
    (folder / "depth_control.py").write_text(CONTROLLER)
    text = SCENARIO.format(fmu=(fmu_dir / "BlueROV2Heavy.fmu").as_posix())
    for old, new in replace.items():
        text = text.replace(old, new)
    path = folder / "pd.toml"
    path.write_text(textwrap.dedent(text))
    return path


def _law_holds(table) -> None:
    """The recorded command is the PD law of the recorded state at every 0.1 s sample."""
    z, w = table["rov.p[3]"].to_numpy(), table["rov.nu[3]"].to_numpy()
    expected = KP * (DEPTH - z) - KD * w
    np.testing.assert_allclose(table["rov.tau_ext[3]"].to_numpy(), expected, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(table["pd.error"].to_numpy(), DEPTH - z, rtol=0, atol=1e-12)


def test_scenario_names_a_user_controller_by_import_path(fmu_dir, tmp_path):
    results = murcosim.run(_files(tmp_path, fmu_dir), progress=False)
    table = results.timeseries
    _law_holds(table)
    depth = table["rov.p[3]"].to_numpy()
    assert depth[0] == pytest.approx(0.5) and abs(depth[-1] - DEPTH) < abs(depth[0] - DEPTH) / 3


def test_module_folder_is_searched_first_relative_to_the_scenario(fmu_dir, tmp_path):
    """``module_folder`` names where the module is, relative to the scenario file."""
    path = _files(
        tmp_path, fmu_dir, **{"sample_time = 0.1": 'sample_time = 0.1\nmodule_folder = "lib"'}
    )
    (tmp_path / "lib").mkdir()
    (tmp_path / "depth_control.py").rename(tmp_path / "lib" / "depth_control.py")
    _law_holds(murcosim.run(path, progress=False).timeseries)


def test_two_scenarios_with_a_module_of_one_name_each_use_their_own(fmu_dir, tmp_path):
    """Run one after the other in one process, each scenario's controller comes from the
    module beside it, not from the one of that name imported for the other."""
    law = (
        "import murcosim\n\nclass Push(murcosim.Controller):\n"
        "    def __init__(self, name, sample_time, settings):\n"
        "        super().__init__(name, sample_time, [], [f'{name}.force'])\n"
        "    def step(self, time, inputs):\n        return [FORCE]\n"
    )
    forces = {}
    for force in (10.0, 20.0):
        folder = tmp_path / f"scenario_{force:g}"
        folder.mkdir()
        (folder / "push_law.py").write_text(law.replace("FORCE", str(force)))
        path = folder / "push.toml"
        path.write_text(
            "[simulation]\nstop_time = 0.2\n[components.rov]\n"
            f'fmu = "{(fmu_dir / "BlueROV2Heavy.fmu").as_posix()}"\n'
            '[controllers.push]\nclass = "push_law:Push"\nsample_time = 0.1\n'
        )
        forces[force] = murcosim.run(path, progress=False).timeseries["push.force"].iloc[-1]
    assert forces == {10.0: 10.0, 20.0: 20.0}


@pytest.mark.parametrize(
    ("vary", "expected"),
    [
        ("kpp=uniform(1,2)", "controllers.pd.settings.kpp: unknown setting of DepthPD.Settings"),
        ("kp=uniform(-2,1)", "controllers.pd.settings.kp: Input should be greater than 0"),
    ],
)
def test_a_sweep_of_a_user_controllers_setting_is_checked_before_any_case(
    fmu_dir, tmp_path, capsys, vary, expected
):
    """A varied setting is checked by the class's own Settings model for every case before
    any starts (a module beside the scenario, in its module_folder), as the run would."""
    from orchestrator.cli import main

    path = _files(
        tmp_path, fmu_dir, **{"sample_time = 0.1": 'sample_time = 0.1\nmodule_folder = "lib"'}
    )
    (tmp_path / "lib").mkdir()
    (tmp_path / "depth_control.py").rename(tmp_path / "lib" / "depth_control.py")
    out = tmp_path / "sweep"
    args = ["sweep", str(path), "--runs", "8", "--seed", "1", "--out", str(out), "--quiet"]
    status = main([*args, "--vary", f"controllers.pd.settings.{vary}"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert expected in err, err
    assert not out.exists()  # no case was started


def test_a_controller_object_runs_like_the_named_class(fmu_dir, tmp_path, monkeypatch):
    """The same class given as an object (twice: it is reset before each run) gives the same
    trajectory bit for bit as the scenario entry."""
    named = murcosim.run(_files(tmp_path, fmu_dir), progress=False).timeseries
    monkeypatch.syspath_prepend(str(tmp_path))
    from depth_control import DepthPD

    settings = DepthPD.Settings(vehicle="rov", depth=DEPTH, kp=KP, kd=KD)
    controller = DepthPD("pd", 0.1, settings)
    scenario = murcosim.load_scenario(_files(tmp_path, fmu_dir))
    bare = murcosim.edit(scenario, {}).model_copy(update={"controllers": {}})
    for _ in range(2):
        given = murcosim.run(bare, controllers=[controller], progress=False).timeseries
        assert controller.samples == 41  # 0, 0.1, ..., 4.0 s: reset before the run
        for column in named.columns:
            np.testing.assert_array_equal(given[column].to_numpy(), named[column].to_numpy())


@pytest.mark.parametrize(
    ("replace", "message"),
    [
        ({"depth_control:DepthPD": "no_such_module:DepthPD"}, "cannot import 'no_such_module'"),
        ({"depth_control:DepthPD": "depth_control:Missing"}, "has no class 'Missing'"),
        ({"depth_control:DepthPD": "depth_control:NotAController"}, "is not a murcosim.Contr"),
        ({"depth_control:DepthPD": "depth_control:Refuses"}, "ValueError: no vehicle to control"),
        ({"kp = 80.0": "kp = -1.0"}, "controllers.pd.settings.kp: Input should be greater than 0"),
        ({"kp = 80.0, ": ""}, "controllers.pd.settings.kp: Field required"),
        ({"depth_control:DepthPD": "depth control"}, "controllers.pd.class: String should match"),
        ({"depth_control:DepthPD": "depth_control:DrivesState"}, "pd: rov.p[3] is not an input"),
        (  # pydantic's default would drop the misspelt key and only miss kd
            {"kd = 40.0": "kdd = 4.0"},
            "controllers.pd.settings.kdd: unknown setting of DepthPD.Settings (did you mean 'kd'",
        ),
    ],
)
def test_a_bad_user_controller_is_one_line(fmu_dir, tmp_path, replace, message):
    path = _files(tmp_path, fmu_dir, **replace)
    with pytest.raises(murcosim.ScenarioError) as error:
        murcosim.run(path, progress=False)
    text = str(error.value)
    assert text.startswith(str(path)) and message in text and "\n" not in text


def test_probe_reads_controller_outputs_and_sets_inputs(fmu_dir, tmp_path):
    """The callback reads the controller's own output as recorded, and a surge force it sets
    from t = 1 s on acts from then on only (the vehicle is at rest in surge before)."""
    seen: dict[float, float] = {}

    def callback(time: float, probe) -> None:
        seen[round(time, 9)] = probe["pd.error"]
        if time >= 1.0 - 1e-9:
            probe["rov.tau_ext[1]"] = 20.0

    table = murcosim.run(_files(tmp_path, fmu_dir), callback=callback, progress=False).timeseries
    for time, error in seen.items():
        assert error == pytest.approx(table["pd.error"].loc[time], abs=1e-12)
    surge = table["rov.nu[1]"]
    assert np.all(np.abs(surge.loc[:1.0].to_numpy()) < 1e-12)
    assert surge.loc[1.1] > 1e-3 and surge.iloc[-1] > surge.loc[2.0] > surge.loc[1.1]
    assert table["rov.tau_ext[1]"].loc[1.1] == 20.0


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("rov.tau_ext[3]", "callback: rov.tau_ext[3] is driven by a controller"),
        ("rov.p[1]", "callback: rov.p[1] is a(n) output, not an input"),
    ],
)
def test_probe_refuses_what_it_cannot_set(fmu_dir, tmp_path, name, message):
    def callback(time: float, probe) -> None:
        probe[name] = 1.0

    with pytest.raises(murcosim.ScenarioError) as error:
        murcosim.run(_files(tmp_path, fmu_dir), callback=callback, progress=False)
    assert str(error.value).endswith(message)


AUTOPILOT = '''
import math

import numpy as np

import murcosim
from orchestrator.kinematics import euler_from_rows, rotation_rows, wrap_angle


class Loop:
    """PID with its integral clamped to +-limit / ki (N or N.m), derivative on a measured rate."""

    def __init__(self, kp, ki, kd, limit, dt):
        self.kp, self.ki, self.kd, self.dt = kp, ki, kd, dt
        self.bound = limit / ki if ki else 0.0
        self.integral = 0.0

    def __call__(self, error, rate):
        if self.ki:
            value = self.integral + error * self.dt
            self.integral = max(-self.bound, min(self.bound, value))
        return self.kp * error + self.ki * self.integral + self.kd * rate


class MyAutopilot(murcosim.Controller):
    """Depth, heading and surge-speed PID, written from the autopilot's law and default gains."""

    def __init__(self, name, sample_time, settings):
        v = settings["vehicle"]
        signals = [f"{v}.p[{i}]" for i in (1, 2, 3)] + [f"{v}.q[{i}]" for i in (1, 2, 3, 4)]
        signals += [f"{v}.nu[{i}]" for i in range(1, 7)]
        super().__init__(name, sample_time, signals, [f"{name}.tau[{i}]" for i in range(1, 7)])
        self.set_points = settings["depth"], settings["heading"], settings["speed"]
        dt = sample_time
        self.depth = Loop(60.0, 6.0, 50.0, 20.0, dt)
        self.heading = Loop(4.0, 0.0, 2.0, math.inf, dt)
        self.surge = Loop(60.0, 15.0, 0.0, 30.0, dt)
        self.roll = Loop(6.0, 0.0, 1.5, math.inf, dt)
        self.pitch = Loop(6.0, 0.0, 1.5, math.inf, dt)
        self.sway = Loop(0.0, 0.0, 20.0, math.inf, dt)

    def step(self, time, inputs):
        s = inputs.tolist()
        rows = rotation_rows(s[3:7])
        roll, pitch, yaw = euler_from_rows(rows)
        down = rows[2]
        u, v, w, p, q, r = s[7:13]
        depth, heading, speed = self.set_points
        force = self.depth(depth - s[2], -(down[0] * u + down[1] * v + down[2] * w))
        return np.array([
            down[0] * force + self.surge(speed - u, 0.0),
            down[1] * force + self.sway(0.0, -v),
            down[2] * force,
            self.roll(-roll, -p),
            self.pitch(-pitch, -q),
            self.heading(wrap_angle(math.radians(heading) - yaw), -r),
        ])


class Flaky(murcosim.Controller):
    """A constant heave force that fails from 0.5 s on."""

    def __init__(self, name, sample_time, settings):
        super().__init__(name, sample_time, [], ["rov.tau_ext[3]"])

    def step(self, time, inputs):
        if time >= 0.5:
            raise RuntimeError("sensor lost")
        return [30.0 + time]
'''


def test_the_autopilot_written_by_a_user_flies_bit_for_bit_like_the_built_in(fmu_dir, tmp_path):
    """The built-in depth/heading/speed autopilot and the same law and gains written here as a
    user controller (same name, so the allocation reads it) give the same vehicle states."""
    (tmp_path / "my_autopilot.py").write_text(AUTOPILOT)
    shipped = Path(__file__).parents[2] / "scenarios" / "bluerov2_heavy_single.toml"
    scenario = murcosim.load_scenario(shipped)
    short = murcosim.edit(scenario, {"simulation": {"stop_time": 10.0}})
    built_in = murcosim.run(short, source=str(shipped), progress=False).timeseries
    data = short.model_dump(by_alias=True)
    settings = {"vehicle": "rov", "depth": 2.0, "heading": 45.0, "speed": 0.5}
    data["controllers"]["autopilot"] = {
        "class": "my_autopilot:MyAutopilot",
        "sample_time": 0.05,
        "settings": settings,
    }
    source = str(tmp_path / "mine.toml")  # its folder holds the module
    written = validate_scenario(data, source)  # the table replaced, not merged as edit does
    assert type(written.controllers["autopilot"]).__name__ == "UserControllerConfig"
    users = murcosim.run(written, source=source, fmu_dir=fmu_dir, progress=False).timeseries
    states = [c for c in built_in.columns if c.startswith("rov.") or c.startswith("autopilot.tau")]
    assert len(states) > 40 and np.ptp(built_in["rov.p[3]"]) > 1.0
    for column in states:
        np.testing.assert_array_equal(users[column].to_numpy(), built_in[column].to_numpy())
    assert built_in["autopilot.depth_set"].iloc[-1] == 2.0  # the set points are recorded


def test_a_user_controller_that_raises_is_a_controller_fault(fmu_dir, tmp_path):
    (tmp_path / "flaky.py").write_text(AUTOPILOT)
    path = _files(tmp_path, fmu_dir, **{"depth_control:DepthPD": "flaky:Flaky"})
    results = murcosim.run(path, progress=False)
    faults = results.events[results.events["event"] == "controller_fault"]
    assert len(faults) == 36  # samples at 0.5, 0.6, ..., 3.9, 4.0 s
    assert faults["detail"].iloc[0] == "pd: RuntimeError: sensor lost; previous outputs held"
    held = results.timeseries["rov.tau_ext[3]"].loc[0.5:]
    assert set(held) == {30.4}  # the last good command (at 0.4 s) is held
    assert results.statistics.controller_faults == 36
