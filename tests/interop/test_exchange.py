"""The FMU layer on FMUs murcosim did not build, and bad FMUs: one clear line each."""

from __future__ import annotations

import shutil
import zipfile

import numpy as np
import pytest
from fmpy.validation import validate_fmu
from foreign import spring_mass_fmu

from orchestrator.cli import main
from orchestrator.errors import FMUError
from orchestrator.fmi.fmu import CO_SIMULATION, FMU, MODEL_EXCHANGE, FMUInstance


@pytest.fixture(scope="module")
def foreign(tmp_path_factory):
    """The spring-mass FMUs: "me", "cs", "both" of FMI 2.0 and "me3", "cs3", "both3" of 3.0."""
    folder = tmp_path_factory.mktemp("foreign")
    kinds = {"me": ("ModelExchange",), "cs": ("CoSimulation",)}
    kinds["both"] = kinds["me"] + kinds["cs"]
    return {
        f"{kind}{suffix}": spring_mass_fmu(folder, interfaces, version)
        for kind, interfaces in kinds.items()
        for suffix, version in (("", "2.0"), ("3", "3.0"))
    }


@pytest.mark.parametrize("version", ["", "3"], ids=["FMI2", "FMI3"])
def test_model_description_is_read_with_aliases_units_and_starts(foreign, version):
    for kind in ("me", "cs", "both"):
        assert validate_fmu(str(foreign[kind + version])) == [], kind  # well-formed test FMUs
    me, cs, both = (FMU(foreign[k + version]) for k in ("me", "cs", "both"))
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


@pytest.mark.parametrize("version", ["", "3"], ids=["FMI2", "FMI3"])
def test_foreign_model_exchange_fmu_in_the_strong_master(run, foreign, version):
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
fmu = "{foreign["me" + version]}"
parameters = {{ k = 4.0 }}
start = {{ x = 1.0 }}
"""
    )
    np.testing.assert_allclose(cols["osc.x"], np.cos(2 * cols["time"]), atol=1e-6)
    np.testing.assert_allclose(cols["osc.F_other"], 4 * np.cos(2 * cols["time"]), atol=4e-6)


@pytest.mark.parametrize("version", ["", "3"], ids=["FMI2", "FMI3"])
def test_co_simulation_step_and_roll_back(foreign, version):
    """A Co-Simulation instance steps (1 ms RK4 inside: x = cos(2 t) within 1e-9 m after
    0.5 s), and a state saved before a step and restored gives the same step again."""
    fmu = FMU(foreign["cs" + version])
    instance = FMUInstance(fmu, "osc")
    try:
        instance.set_start_values({"k": 4.0, "x": 1.0})
        instance.initialize(0.0)
        position = instance.port(["x"])
        for n in range(5):
            instance.do_step(0.1 * n, 0.1)
        assert instance.read(position)[0] == pytest.approx(np.cos(1.0), abs=1e-9)
        saved = instance.get_state()
        instance.do_step(0.5, 0.1)
        after = instance.read(position)[0]
        instance.set_state(saved)
        assert instance.read(position)[0] == pytest.approx(np.cos(1.0), abs=1e-9)
        instance.do_step(0.5, 0.1)
        assert instance.read(position)[0] == after == pytest.approx(np.cos(1.2), abs=1e-9)
        instance.free_state(saved)
    finally:
        instance.terminate()
        fmu.close()


def test_co_simulation_fmu_runs_under_strong_coupling(run, foreign):
    """Without a [cosimulation] section a Co-Simulation FMU steps itself between the master's
    communication points (every simulation.step): x = cos(2 t) within 1e-9 m (1 ms RK4)."""
    cols, events = run(
        f"""[simulation]
stop_time = 1.0
step = 0.05
[components.osc]
fmu = "{foreign["cs"]}"
parameters = {{ k = 4.0 }}
start = {{ x = 1.0 }}
"""
    )
    assert events[0]["detail"] == (
        "solver RK45, 0 states, 1 Co-Simulation unit(s) stepped at least every 0.05 s"
    )
    np.testing.assert_allclose(cols["osc.x"], np.cos(2 * cols["time"]), atol=1e-9)


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


def test_clocks_of_a_co_simulation_only_fmu_are_refused(tmp_path):
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
    with pytest.raises(
        FMUError, match=r"Ticker.fmu: clock 'tick': clocks are run for Model Exchange only"
    ):
        FMU(path)


def with_event_indicators(source, path):
    """A copy of ``source`` that declares two event indicators."""
    with zipfile.ZipFile(source) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    text = files["modelDescription.xml"].decode()
    files["modelDescription.xml"] = text.replace(
        'numberOfEventIndicators="0"', 'numberOfEventIndicators="2"'
    )
    return bad_archive(path, files)


def test_fmus_with_event_indicators_run_as_model_exchange(tmp_path, foreign):
    """The strong master handles state events, so an FMU with event indicators is integrated
    as Model Exchange, also where it offers Co-Simulation."""
    for source, name in ((foreign["me"], "Bouncing.fmu"), (foreign["both"], "BouncingToo.fmu")):
        fmu = FMU(with_event_indicators(source, tmp_path / name))
        try:
            assert fmu.kind == MODEL_EXCHANGE
            assert fmu.n_event_indicators == 2
        finally:
            fmu.close()


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
    assert err.endswith(
        "bad.toml: connections[0].from: 'position_x' is not a variable of Mass.fmu; did you mean "
        "'position'?"
    )
