"""SSP 1.0 and 2.0 export and import: archives valid against the standard's schemas, every
shipped scenario back from its archive alone, and a hand-written archive with a nested
system, a parameter set file and transformations on connections."""

from __future__ import annotations

import re
import tomllib
import zipfile
from pathlib import Path

import fmpy
import numpy as np
import pytest
import tomli_w
from conftest import ROOT
from foreign import spring_mass_fmu, typed_io_fmu
from lxml import etree

from orchestrator.errors import ScenarioError
from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario
from orchestrator.scenario.reading import load_scenario
from orchestrator.system.ssp import SCENARIO_ANNOTATION, export_ssp, import_ssp
from orchestrator.system.system import System

SCHEMAS = {  # SSP 1.0 as FMPy ships it; SSP 2.0 from the standard (BSD licence in the folder)
    "1.0": Path(fmpy.__path__[0]) / "ssp" / "schema",
    "2.0": Path(__file__).parents[1] / "data" / "ssp-2.0",
}
SHIPPED = sorted((ROOT / "scenarios").glob("*.toml"))
SHIPPED_SINGLE = ROOT / "scenarios" / "bluerov2_heavy_single.toml"
NS = {
    "ssd": "http://ssp-standard.org/SSP1/SystemStructureDescription",
    "ssc": "http://ssp-standard.org/SSP1/SystemStructureCommon",
    "ssv": "http://ssp-standard.org/SSP1/SystemStructureParameterValues",
}


def validate(archive: Path, version: str) -> etree._Element:
    """Check the SSD and every .ssv of ``archive`` against the SSP ``version`` schemas."""
    folder = SCHEMAS[version]
    with zipfile.ZipFile(archive) as zipped:
        ssd = etree.fromstring(zipped.read("SystemStructure.ssd"))
        schema = etree.XMLSchema(file=str(folder / "SystemStructureDescription.xsd"))
        schema.assertValid(ssd)
        values = etree.XMLSchema(file=str(folder / "SystemStructureParameterValues.xsd"))
        for name in zipped.namelist():
            if name.endswith(".ssv"):
                values.assertValid(etree.fromstring(zipped.read(name)))
    return ssd


def shortened(path: Path, folder: Path, stop_time: float = 0.05) -> Path:
    """A copy of a scenario file that stops at ``stop_time`` (s)."""
    text = re.sub(r"(?m)^stop_time = .*$", f"stop_time = {stop_time}", path.read_text())
    copy = folder / path.name
    copy.write_text(text)
    return copy


def scalar_links(path: Path, fmu_dir: Path) -> list[tuple[str, str, float, float]]:
    """Every element-wise link of a scenario's system (mounts included), sorted."""
    system = System(load_scenario(path), str(path), fmu_dir)
    try:
        return sorted(
            (f"{c.source.name}.{a}", f"{c.target.name}.{b}", c.factor, c.offset)
            for c in system.connections
            for a, b in zip(c.source_names, c.target_names, strict=True)
        )
    finally:
        system.close()


def run(path: Path, fmu_dir: Path) -> dict[str, np.ndarray]:
    out = path.parent / f"{path.stem}_results"
    run_scenario(path, out, fmu_dir, plots=False)
    return read_timeseries(out / "timeseries.csv")


# set-up (many FMU instances, controllers' solvers) makes these take 3-7 s each
HEAVY = {"bluerov_pair_straight", "bluerov_pair_turning", "buoy_irregular_sea", "docking_mpc"}
HEAVY |= {"monitoring_rendezvous", "uvms_arm_motion", "uvms_spiral", "uvms_vehicle_motion"}


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.slow) if p.stem in HEAVY else p for p in SHIPPED],
    ids=[p.stem for p in SHIPPED],
)
def test_shipped_scenario_round_trips_without_template(fmu_dir, tmp_path, path):
    """Export (SSP 1.0 and 2.0 alternately), validate, import from the archive alone, run:
    the same scenario and the same trajectories to the last digit (same FMUs and arithmetic)."""
    version = "2.0" if SHIPPED.index(path) % 2 else "1.0"
    original = shortened(path, tmp_path)
    archive = export_ssp(original, fmu_dir, tmp_path / "system.ssp", version)
    ssd = validate(archive, version)
    scenario = load_scenario(original)
    links = scalar_links(original, fmu_dir)
    assert len(ssd.findall(".//ssd:Connection", NS)) == len(links)  # mounts included
    imported = import_ssp(archive, tmp_path / "imported" / f"{path.stem}.toml")
    back = load_scenario(imported)
    system_parts = {"components", "connections"}
    assert back.model_dump(exclude=system_parts) == scenario.model_dump(exclude=system_parts)
    assert scalar_links(imported, fmu_dir) == links  # vectors come back element-wise
    for name, component in scenario.components.items():
        assert back.components[name].model_dump(exclude={"fmu"}) == component.model_dump(
            exclude={"fmu"}
        )
    before, after = run(original, fmu_dir), run(imported, fmu_dir)
    assert before.keys() == after.keys()
    for name in before:
        if not name.endswith("solve_time"):  # wall-clock time of a controller's solve
            np.testing.assert_array_equal(after[name], before[name], err_msg=name)


def test_archive_alone_tells_other_tools_the_system(fmu_dir, tmp_path):
    """Standard prefixes, the mounts as explicit connections, parameter sets as .ssv files,
    and the murcosim-only parts in one namespaced annotation."""
    original = shortened(ROOT / "scenarios" / "bluerov2_heavy_single.toml", tmp_path)
    archive = export_ssp(original, fmu_dir, tmp_path / "single.ssp", "2.0")
    with zipfile.ZipFile(archive) as zipped:
        text = zipped.read("SystemStructure.ssd").decode()
        names = zipped.namelist()
    assert "<ssd:SystemStructureDescription" in text and "ns0:" not in text
    ssd = etree.fromstring(text.encode())
    links = {
        (c.get("startElement"), c.get("startConnector"), c.get("endElement"), c.get("endConnector"))
        for c in ssd.findall(".//ssd:Connection", NS)
    }
    for k in range(1, 9):
        assert ("rov", "nu_r[1]", f"t{k}", "nu_r[1]") in links
        assert (f"t{k}", "tau[6]", "rov", "tau_ext[6]") in links
        assert f"resources/t{k}_mount.ssv" in names
    (annotation,) = ssd.findall(f".//ssc:Annotation[@type='{SCENARIO_ANNOTATION}']", NS)
    assert "[controllers.autopilot]" in "".join(annotation.itertext())


SPRING_UNITS = """<ssd:Units>
    <ssc:Unit name="m"><ssc:BaseUnit m="1"/></ssc:Unit>
    <ssc:Unit name="mm"><ssc:BaseUnit m="1" factor="0.001"/></ssc:Unit>
  </ssd:Units>"""


def hand_written(tmp_path: Path) -> Path:
    """An SSP 1.0 archive as another tool writes it: a nested system 'plant' with the
    spring-mass (parameters from an .ssv bound at the system), its position exposed on a system
    connector, and two FMUs of every type behind transformations."""
    spring = spring_mass_fmu(tmp_path, ("ModelExchange",))
    typed = typed_io_fmu(tmp_path)
    ssd = f"""<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssd="{NS["ssd"]}" xmlns:ssc="{NS["ssc"]}"
    xmlns:ssv="{NS["ssv"]}" version="1.0" name="hand">
  <ssd:System name="top">
    <ssd:Elements>
      <ssd:System name="plant">
        <ssd:Connectors>
          <ssd:Connector name="position" kind="output"><ssc:Real unit="m"/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding source="resources/plant.ssv"/>
        </ssd:ParameterBindings>
        <ssd:Elements>
          <ssd:Component name="mass" source="resources/{spring.name}">
            <ssd:Connectors>
              <ssd:Connector name="x" kind="output"><ssc:Real unit="m"/></ssd:Connector>
            </ssd:Connectors>
          </ssd:Component>
        </ssd:Elements>
        <ssd:Connections>
          <ssd:Connection startElement="mass" startConnector="x" endConnector="position"/>
        </ssd:Connections>
      </ssd:System>
      <ssd:Component name="probe" source="resources/{typed.name}">
        <ssd:Connectors>
          <ssd:Connector name="u_Float64" kind="input"><ssc:Real unit="m"/></ssd:Connector>
          <ssd:Connector name="u_arr[1]" kind="input"><ssc:Real unit="mm"/></ssd:Connector>
          <ssd:Connector name="y_Boolean" kind="output"><ssc:Boolean/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding>
            <ssd:ParameterValues>
              <ssv:ParameterSet version="1.0" name="probe">
                <ssv:Parameters>
                  <ssv:Parameter name="u_Boolean"><ssv:Boolean value="false"/></ssv:Parameter>
                </ssv:Parameters>
              </ssv:ParameterSet>
            </ssd:ParameterValues>
          </ssd:ParameterBinding>
        </ssd:ParameterBindings>
      </ssd:Component>
      <ssd:Component name="flip" source="resources/{typed.name}">
        <ssd:Connectors>
          <ssd:Connector name="u_Boolean" kind="input"><ssc:Boolean/></ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="plant" startConnector="position" endElement="probe"
          endConnector="u_Float64">
        <ssc:LinearTransformation factor="2.0" offset="0.5"/>
      </ssd:Connection>
      <ssd:Connection startElement="plant" startConnector="position" endElement="probe"
          endConnector="u_arr[1]"/>
      <ssd:Connection startElement="probe" startConnector="y_Boolean" endElement="flip"
          endConnector="u_Boolean">
        <ssc:BooleanMappingTransformation>
          <ssc:MapEntry source="true" target="false"/>
          <ssc:MapEntry source="false" target="true"/>
        </ssc:BooleanMappingTransformation>
      </ssd:Connection>
    </ssd:Connections>
  </ssd:System>
  {SPRING_UNITS}
  <ssd:DefaultExperiment startTime="0.0" stopTime="1.0"/>
</ssd:SystemStructureDescription>
"""
    ssv = f"""<?xml version="1.0" encoding="UTF-8"?>
<ssv:ParameterSet xmlns:ssv="{NS["ssv"]}" version="1.0" name="plant">
  <ssv:Parameters>
    <ssv:Parameter name="mass.m"><ssv:Real value="1.0" unit="kg"/></ssv:Parameter>
    <ssv:Parameter name="mass.k"><ssv:Real value="4.0"/></ssv:Parameter>
    <ssv:Parameter name="mass.x"><ssv:Real value="1.0"/></ssv:Parameter>
  </ssv:Parameters>
</ssv:ParameterSet>
"""
    archive = tmp_path / "hand.ssp"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("SystemStructure.ssd", ssd)
        zipped.writestr("resources/plant.ssv", ssv)
        zipped.write(spring, f"resources/{spring.name}")
        zipped.write(typed, f"resources/{typed.name}")
    return archive


def test_hand_written_archive_with_nested_system_and_transformations_runs(fmu_dir, tmp_path):
    archive = hand_written(tmp_path)
    validate(archive, "1.0")
    scenario = import_ssp(archive, tmp_path / "hand.toml")
    text = scenario.read_text()
    assert "[components.plant_mass]" in text and "k = 4.0" in text
    with pytest.raises(
        ScenarioError, match=r"connections\[1\]: plant_mass.x -> probe.u_arr\[1\]: .*Float64 array"
    ):
        run(scenario, fmu_dir)  # arrays and Booleans connect in weak coupling only
    scenario.write_text(text + "\n[cosimulation]\nmacro_step = 0.01\n")
    cols = run(scenario, fmu_dir)
    t = cols["time"]
    assert t[-1] == 1.0
    # spring-mass x = cos(2 t) (m = 1 kg, k = 4 N/m, x0 = 1 m): RK4 with 10 ms steps inside
    # each macro step, error of order (2 h)^4 t / 120 ~ 1e-10
    x = np.cos(2 * t)
    np.testing.assert_allclose(cols["plant_mass.x"], x, atol=1e-8)
    np.testing.assert_allclose(cols["probe.u_Float64"], 2 * cols["plant_mass.x"] + 0.5, atol=1e-12)
    np.testing.assert_allclose(cols["probe.u_arr[1]"], 1000 * cols["plant_mass.x"], rtol=1e-12)
    np.testing.assert_array_equal(cols["probe.y_Boolean"], 1.0)  # not false
    np.testing.assert_array_equal(cols["flip.u_Boolean"], 0.0)  # mapped true -> false


def test_import_errors_are_one_line(tmp_path):
    path = tmp_path / "bad.ssp"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("SystemStructure.ssd", "<ssd:SystemStructureDescription/>")
    with pytest.raises(ScenarioError, match=r"bad.ssp: not a valid SSP archive"):
        import_ssp(path, tmp_path / "s.toml")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(
            "SystemStructure.ssd",
            f'<ssd:SystemStructureDescription xmlns:ssd="{NS["ssd"]}" version="1.0" name="x">'
            '<ssd:System name="s"/></ssd:SystemStructureDescription>',
        )
    with pytest.raises(ScenarioError) as caught:
        import_ssp(path, tmp_path / "s.toml")
    assert str(caught.value) == (
        f"{path}: DefaultExperiment.stopTime: missing, and no template gives simulation.stop_time"
    )


def test_interface_choice_travels_with_the_archive(fmu_dir, tmp_path):
    """A vehicle whose eight thrusters run through their FMI 3.0 Co-Simulation interface under
    strong coupling (``interface = "co_simulation"``): the choice comes back from the archive
    and so do the trajectories, to the last digit."""
    document = tomllib.loads(shortened(SHIPPED_SINGLE, tmp_path, 0.5).read_text())
    for k in range(1, 9):
        document["components"][f"t{k}"].update(fmu="fmi3/LaggedThruster", interface="co_simulation")
    original = tmp_path / "cs_thrusters.toml"
    original.write_text(tomli_w.dumps(document))
    archive = export_ssp(original, fmu_dir, tmp_path / "system.ssp", "1.0")
    validate(archive, "1.0")
    imported = import_ssp(archive, tmp_path / "imported" / "cs_thrusters.toml")
    back = load_scenario(imported)
    assert {back.components[f"t{k}"].interface for k in range(1, 9)} == {"co_simulation"}
    before, after = run(original, fmu_dir), run(imported, fmu_dir)
    for name in before:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)
