"""The FMU layer on FMUs murcosim did not build, and bad FMUs: one clear line each."""

from __future__ import annotations

import shutil
import zipfile

import numpy as np
import pytest
from foreign import spring_mass_fmu

from orchestrator.cli import main
from orchestrator.errors import FMUError, ScenarioError
from orchestrator.fmu import CO_SIMULATION, FMU, MODEL_EXCHANGE


@pytest.fixture(scope="module")
def foreign(tmp_path_factory):
    folder = tmp_path_factory.mktemp("foreign")
    return {
        "me": spring_mass_fmu(folder, ("ModelExchange",)),
        "cs": spring_mass_fmu(folder, ("CoSimulation",)),
        "both": spring_mass_fmu(folder, ("ModelExchange", "CoSimulation")),
    }


def test_model_description_is_read_with_aliases_units_and_starts(foreign):
    me, cs, both = (FMU(foreign[k]) for k in ("me", "cs", "both"))
    try:
        assert (me.kind, cs.kind, both.kind) == (MODEL_EXCHANGE, CO_SIMULATION, MODEL_EXCHANGE)
        assert me.states == ["x", "v"] and cs.states == []
        assert cs.can_roll_back
        alias = me.variable("position")
        assert alias.value_reference == me.variable("x").value_reference
        assert alias.unit == "m" and alias.start == 0.0  # the start of the variable it aliases
        assert me.variable("k").unit == "N/m" and me.variable("m").start == 1.0
        assert me.output_depends_on("F_other", ["x_other"])
        assert not me.output_depends_on("x", ["F", "x_other"])
    finally:
        for fmu in (me, cs, both):
            fmu.close()


def test_foreign_model_exchange_fmu_in_the_strong_master(run, foreign):
    """m = 1 kg, k = 4 N/m, x(0) = 1 m, the neighbour held at 0: x = cos(2 t).
    Tolerance 1e-6 m: solve_ivp RK45 with rtol 1e-10."""
    cols, _ = run(
        f"""
[simulation]
stop_time = 3.0
output_interval = 0.1
rtol = 1e-10
atol = 1e-12
[components.osc]
fmu = "{foreign["me"]}"
parameters = {{ k = 4.0 }}
start = {{ x = 1.0 }}
"""
    )
    np.testing.assert_allclose(cols["osc.x"], np.cos(2 * cols["time"]), atol=1e-6)
    np.testing.assert_allclose(cols["osc.F_other"], 4 * np.cos(2 * cols["time"]), atol=4e-6)


def test_co_simulation_fmu_needs_a_cosimulation_section(run, foreign):
    text = f'[simulation]\nstop_time = 1.0\n[components.a]\nfmu = "{foreign["cs"]}"\n'
    with pytest.raises(ScenarioError, match=r"components.a.fmu: SpringMass_cs.fmu is a Co-Sim"):
        run(text)


def bad_archive(path, files):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def test_corrupt_zip(tmp_path, foreign):
    path = tmp_path / "Broken.fmu"
    path.write_bytes(foreign["me"].read_bytes()[:2000])
    with pytest.raises(FMUError, match=r"Broken.fmu: not an FMU \(not a zip archive\)$"):
        FMU(path)


def test_missing_binary_for_this_platform(tmp_path, foreign):
    with zipfile.ZipFile(foreign["me"]) as archive:
        description = archive.read("modelDescription.xml")
    path = bad_archive(
        tmp_path / "NoBinary.fmu",
        {"modelDescription.xml": description, "binaries/win64/SpringMass.dll": b""},
    )
    with pytest.raises(
        FMUError,
        match=r"NoBinary.fmu: no binary for this platform \(binaries/linux64/SpringMass.so is",
    ):
        FMU(path)


def test_wrong_fmi_version(tmp_path, foreign):
    with zipfile.ZipFile(foreign["me"]) as archive:
        description = archive.read("modelDescription.xml").decode()
    text = description.replace('fmiVersion="2.0"', 'fmiVersion="1.0"')
    path = bad_archive(tmp_path / "Old.fmu", {"modelDescription.xml": text})
    with pytest.raises(FMUError, match=r"Old.fmu: FMI 1.0 is not supported \(FMI 2.0, 3.0\)$"):
        FMU(path)


def test_clocks_are_refused(tmp_path):
    text = """<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="Ticker" instantiationToken="{0}">
  <CoSimulation modelIdentifier="Ticker"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Clock name="tick" valueReference="1" causality="input" variability="discrete"
        intervalVariability="triggered"/>
  </ModelVariables>
  <ModelStructure/>
</fmiModelDescription>"""
    path = bad_archive(tmp_path / "Ticker.fmu", {"modelDescription.xml": text})
    with pytest.raises(FMUError, match=r"Ticker.fmu: clocks are not supported .*'tick'"):
        FMU(path)


def test_missing_variable_in_a_connection_via_the_command_line(tmp_path, foreign, fmu_dir, capsys):
    """The command line prints one line naming the scenario, the key, the variable and FMU."""
    shutil.copy(foreign["cs"], tmp_path / "Mass.fmu")
    scenario = tmp_path / "bad.toml"
    scenario.write_text(
        """[simulation]
stop_time = 1.0
[cosimulation]
macro_step = 0.1
[components.a]
fmu = "Mass.fmu"
[components.b]
fmu = "Mass.fmu"
[[connections]]
from = "a.position_x"
to = "b.x_other"
"""
    )
    status = main(["run", str(scenario), "--quiet", "--no-plots", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert status == 2 and "\n" not in err
    assert err.endswith("bad.toml: connections[0].from: 'position_x' is not a variable of Mass.fmu")
