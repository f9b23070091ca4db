"""Bad scenario files give one line naming the file, the key and what was expected."""

from __future__ import annotations

import pytest
from conftest import FMU_DIR, cli_error, scenario_error

from orchestrator.cli import main

GOOD = """
[simulation]
stop_time = 1.0

[components.rov]
fmu = "BlueROV2Heavy"

[components.t1]
fmu = "Thruster"
mount = "rov"
slot = 1

[controllers.autopilot]
type = "depth_heading_speed"
sample_time = 0.1
vehicle = "rov"
depth = 1.0
heading = 0.0
surge_speed = 0.2
"""


def with_component(name, fmu, parameters):
    """GOOD with a component ``name`` of ``fmu`` and its ``parameters`` (an inline table)."""
    return GOOD + f'\n[components.{name}]\nfmu = "{fmu}"\nparameters = {{ {parameters} }}\n'


CASES = [
    (
        "missing key",
        GOOD.replace("stop_time = 1.0", ""),
        "simulation.stop_time: missing required key",
    ),
    (
        "wrong type",
        GOOD.replace("stop_time = 1.0", 'stop_time = "long"'),
        "simulation.stop_time: Input should be a valid number",
    ),
    (
        "negative",
        GOOD.replace("stop_time = 1.0", "stop_time = -1.0"),
        "simulation.stop_time: Input should be greater than 0",
    ),
    (
        "unknown key",
        GOOD.replace("stop_time = 1.0", "stop_time = 1.0\nstoptime = 2.0"),
        "simulation.stoptime: unknown key",
    ),
    (
        "missing FMU",
        GOOD.replace('fmu = "BlueROV2Heavy"', 'fmu = "NoSuchVehicle"'),
        "components.rov.fmu: FMU not found",
    ),
    (
        "unknown component",
        GOOD + '\n[[connections]]\nfrom = "ghost.y"\nto = "rov.tau_ext"\n',
        "connections[0].from: unknown component 'ghost'",
    ),
    (
        "unknown variable",
        GOOD + '\n[[connections]]\nfrom = "rov.nope"\nto = "rov.tau_ext"\n',
        "connections[0].from: 'nope' is not a variable of BlueROV2Heavy.fmu",
    ),
    (
        "misspelt variable",
        GOOD + '\n[[connections]]\nfrom = "rov.nu[1]"\nto = "t1.nur[1]"\n',
        "connections[0].to: 'nur[1]' is not a variable of Thruster.fmu; did you mean 'nu_r[1]'",
    ),
    (
        "misspelt parameter",
        GOOD + '\n[components.rov.parameters]\n"data.mm" = 3.0\n',
        "components.rov.parameters.data.mm: no variable 'data.mm' in BlueROV2Heavy.fmu; did you "
        "mean 'data.m'",
    ),
    (
        "input as source",
        GOOD + '\n[[connections]]\nfrom = "rov.tau_ext"\nto = "t1.nu_r"\n',
        "connections[0].from: rov.tau_ext[1] is a(n) input, expected output",
    ),
    (
        "size mismatch",
        GOOD + '\n[[connections]]\nfrom = "rov.nu_r"\nto = "rov.v_c"\n',
        "connections[0]: rov.nu_r has 6 element(s), rov.v_c has 3",
    ),
    (
        "unknown parameter",
        GOOD + '\n[components.rov.parameters]\n"data.mass" = 3.0\n',
        "components.rov.parameters.data.mass: no variable 'data.mass' in BlueROV2Heavy.fmu",
    ),
    (
        "bad slot",
        GOOD.replace("slot = 1", "slot = 9"),
        "components.t1.slot: rov has 8 thruster mount(s), not 9",
    ),
    (
        "unknown vehicle",
        GOOD.replace('vehicle = "rov"', 'vehicle = "auv"'),
        "controllers.autopilot.vehicle: unknown component 'auv'",
    ),
    (
        "controller type",
        GOOD.replace("depth_heading_speed", "magic"),
        "controllers.autopilot: unknown controller type 'magic'",
    ),
    (
        "solver",
        GOOD.replace("stop_time = 1.0", 'stop_time = 1.0\nsolver = "Euler"'),
        "simulation.solver: Input should be 'RK4', 'RK45'",
    ),
    ("toml", GOOD.replace("stop_time = 1.0", "stop_time = = 1.0"), "invalid TOML"),
    (
        "bool as number",
        GOOD.replace("stop_time = 1.0", "stop_time = true"),
        "simulation.stop_time: Input should be a valid number (got True)",
    ),
    (
        "string as number",
        GOOD.replace("depth = 1.0", 'depth = "1e3"'),
        "controllers.autopilot.depth: Input should be a valid number (got '1e3')",
    ),
    (
        "infinite time",
        GOOD.replace("stop_time = 1.0", "stop_time = inf"),
        "simulation.stop_time: Input should be a finite number",
    ),
    (
        "nan gain",
        GOOD.replace("surge_speed = 0.2", "surge_speed = 0.2\ngains.depth.kp = nan"),
        "controllers.autopilot.gains.depth.kp: Input should be a number, not nan",
    ),
    (
        "start after stop",
        GOOD.replace("stop_time = 1.0", "stop_time = 1.0\nstart_time = 2.0"),
        "simulation.start_time: must be before stop_time (got start 2 s, stop 1 s)",
    ),
    (
        "tiny output interval",
        GOOD.replace("stop_time = 1.0", "stop_time = 1.0\noutput_interval = 1e-9"),
        "simulation.output_interval: 1e-09 s gives 1e+09 output rows over 1 s",
    ),
    (
        "misspelt key",
        GOOD.replace("stop_time = 1.0", "stop_time = 1.0\nouput_interval = 0.1"),
        "simulation.ouput_interval: unknown key (did you mean 'output_interval'?)",
    ),
    (
        "two thrusters in one slot",
        GOOD + '\n[components.t2]\nfmu = "Thruster"\nmount = "rov"\nslot = 1\n',
        "components.t2.slot: mount 1 of rov already holds t1",
    ),
    (
        "negative mass",
        GOOD.replace('fmu = "BlueROV2Heavy"', 'fmu = "BlueROV2Heavy"\nparameters."data.m" = -2.0'),
        "components.rov.parameters.data.m: mass must be positive (got -2 kg)",
    ),
    (
        "array for a table",
        GOOD.replace('fmu = "BlueROV2Heavy"', 'fmu = "BlueROV2Heavy"\nparameters = [1.0]'),
        "components.rov.parameters: expected a table (got [1.0])",
    ),
    (
        "DVL seabed above the surface",
        GOOD + '\n[controllers.dvl]\ntype = "dvl"\nvehicle = "rov"\nseabed_depth = -5.0\n',
        "controllers.dvl.seabed_depth: Input should be greater than 0 (got -5.0)",
    ),
    (
        "DVL that never locks",
        GOOD + '\n[controllers.dvl]\ntype = "dvl"\nvehicle = "rov"\nmin_altitude = 60.0\n',
        "controllers.dvl.max_altitude: expected more than min_altitude (60 m): no bottom lock",
    ),
    (
        "USBL pinging faster than it samples",
        GOOD + '\n[controllers.usbl]\ntype = "usbl"\nvehicle = "rov"\ninterval = 0.001\n',
        "controllers.usbl.interval: expected at least sample_time (0.01 s) (got 0.001)",
    ),
    (
        "pressure sensor turned (its reading is the same)",
        GOOD + '\n[controllers.depth]\ntype = "pressure_depth"\nvehicle = "rov"\n'
        "orientation = [0.0, 90.0, 0.0]\n",
        "controllers.depth.orientation: a pressure reading does not depend on its orientation",
    ),
    (
        "AHRS moved (its reading is the same)",
        GOOD + '\n[controllers.ahrs]\ntype = "ahrs"\nvehicle = "rov"\nposition = [1.0, 0.0, 0.0]\n',
        "controllers.ahrs.position: an attitude reading does not depend on its position",
    ),
    (
        "camera watching its own body",
        GOOD + '\n[controllers.camera]\ntype = "fiducial_camera"\nvehicle = "rov"\n'
        'target = "rov"\n',
        "controllers.camera.target: expected another body than the camera's vehicle 'rov'",
    ),
    (
        "sea of negative height (taken as |H_s|)",
        with_component("sea", "IrregularSea", "H_s = -0.5"),
        "components.sea.parameters.H_s: must be positive (got -0.5 m)",
    ),
    (
        "sea band upside down",
        with_component("sea", "IrregularSea", "omega_min = 4.0, omega_max = 0.3"),
        "components.sea.parameters.omega_max: must be more than omega_min (4), got 0.3",
    ),
    (
        "sea of more components than it sums",
        with_component("sea", "IrregularSea", "components = 500.0"),
        "components.sea.parameters.components: expected a whole number from 1 to 128 (got 500)",
    ),
    (
        "current profile not increasing",
        with_component(
            "current", "CurrentField", '"profile_depth[2]" = 1000.0, "profile_depth[4]" = 10.0'
        ),
        "components.current.parameters.profile_depth[4]: must be more than profile_depth[2] "
        "(1000), got 10",
    ),
    (
        "current without correlation time",
        with_component("current", "CurrentField", "speed_tau = 0.0"),
        "components.current.parameters.speed_tau: must be positive (got 0 s)",
    ),
    (
        "regular wave of negative period",
        with_component("wave", "RegularWave", "period = -5.0"),
        "components.wave.parameters.period: must be positive (got -5 s)",
    ),
    (
        "hull of negative height (below the min = 0 the FMU declares)",
        GOOD.replace(
            'fmu = "BlueROV2Heavy"', 'fmu = "BlueROV2Heavy"\nparameters.hull_height = -0.3'
        ),
        "components.rov.parameters.hull_height: BlueROV2Heavy.fmu: 'hull_height' = -0.3 is "
        "outside the FMU's declared range [0, inf]",
    ),
    (
        "current that no body feels (each v_c driven by a current field)",
        with_component("field", "CurrentField", "speed = 0.3")
        + '[[connections]]\nfrom = "field.v"\nto = "rov.v_c"\n'
        + "[environment]\ncurrent = [0.1, 0.0, 0.0]\n",
        "environment.current[0]: 0.1 m/s reaches no component: no input v_c[1] is left free",
    ),
    (
        "connection given twice (it would count twice)",
        GOOD + '[[connections]]\nfrom = "t1.tau"\nto = "rov.tau_ext"\n' * 2,
        "connections[1]: t1.tau -> rov.tau_ext is connections[0] again",
    ),
    (
        "a controller's output misspelt (the controller is no component)",
        GOOD + '\n[controllers.allocation]\ntype = "thrust_allocation"\nsample_time = 0.1\n'
        'vehicle = "rov"\ncommand = "autopilot.taux"\n',
        "controllers.allocation: 'autopilot.taux[1]' is not an output of controller 'autopilot' "
        "(closest: autopilot.tau[1]",
    ),
    (
        "start value of a calculated output (the FMU's refusal named its FMI call)",
        GOOD.replace('fmu = "BlueROV2Heavy"', 'fmu = "BlueROV2Heavy"\nstart = { "nu_r[1]" = 1.0 }'),
        "components.rov.start.nu_r[1]: 'nu_r[1]' is calculated by the FMU (initial = calculated)",
    ),
    (
        "tether end without the body's attitude (it would stay level)",
        with_component("cable", "Tether", "L = 8.0")
        + '[[connections]]\nfrom = "rov.p"\nto = "cable.p_a"\n'
        + '[[connections]]\nfrom = "rov.nu"\nto = "cable.nu_a"\n',
        "components.cable: end a reads p_a, nu_a but not q_a",
    ),
    (
        "deep nesting",
        GOOD.replace("stop_time = 1.0", "stop_time = " + "[" * 5000 + "]" * 5000),
        "invalid TOML: nested too deeply",
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_bad_scenario_gives_one_line_error(label, text, expected, tmp_path, capsys, fmu_dir):
    err = scenario_error(text, tmp_path, capsys)
    assert expected in err, err


def test_missing_scenario_file(tmp_path, capsys):
    status = main(["run", str(tmp_path / "none.toml"), "--quiet"])
    assert status == 2
    assert "none.toml: cannot read scenario file" in capsys.readouterr().err


def test_non_utf8_file_is_one_line(tmp_path, capsys):
    path = tmp_path / "latin1.toml"
    raw = GOOD.replace("heading = 0.0", "heading = 0.0  # cap \xe0 0").encode("latin-1")
    path.write_bytes(raw)
    err = cli_error(path, tmp_path, capsys)
    where = raw.index(b"\xe0")
    assert err.endswith(f"latin1.toml: cannot read scenario file: not UTF-8 text (byte {where})")


def test_directory_as_scenario_is_one_line(tmp_path, capsys):
    err = cli_error(tmp_path, tmp_path, capsys)
    assert err == f"murcosim: error: {tmp_path}: cannot read scenario file: Is a directory", err


def test_good_scenario_runs(tmp_path, capsys, fmu_dir):
    path = tmp_path / "good.toml"
    path.write_text(GOOD)
    assert (
        main(
            [
                "run",
                str(path),
                "--out",
                str(tmp_path / "out"),
                "--fmu-dir",
                str(FMU_DIR),
                "--quiet",
                "--no-plots",
            ]
        )
        == 0
    )
    assert (tmp_path / "out" / "timeseries.csv").is_file()
