"""SSP export and import: a valid SystemStructure.ssd that FMPy reads, and the same runs."""

from __future__ import annotations

import zipfile

import fmpy
import numpy as np
import pytest
from conftest import ROOT
from fmpy.ssp.ssd import read_ssd
from foreign import spring_mass_fmu
from lxml import etree
from test_cosim import two_masses

from orchestrator.errors import ScenarioError
from orchestrator.results import read_timeseries
from orchestrator.run import run_scenario
from orchestrator.ssp import export_ssp, import_ssp

SCHEMA = etree.XMLSchema(file=str(fmpy.__path__[0] + "/ssp/schema/SystemStructureDescription.xsd"))


def round_trip(scenario, fmu_dir, tmp_path):
    """Export, validate, read with FMPy, import with the scenario as template, run both."""
    archive = export_ssp(scenario, fmu_dir, tmp_path / "system.ssp")
    with zipfile.ZipFile(archive) as zipped:
        ssd = etree.fromstring(zipped.read("SystemStructure.ssd"))
    SCHEMA.assertValid(ssd)
    read = read_ssd(str(archive))
    imported = import_ssp(archive, tmp_path / "imported" / "scenario.toml", template=scenario)
    runs = []
    for path in (scenario, imported):
        out = tmp_path / f"{path.parent.name}_results"
        run_scenario(path, out, fmu_dir, plots=False)
        runs.append(read_timeseries(out / "timeseries.csv"))
    return read, runs


def test_demo_round_trip_keeps_mounts_and_controllers(fmu_dir, tmp_path):
    """BlueROV2 Heavy with 8 mounted thrusters and two controllers, 5 s: the imported
    scenario gives the same trajectories to the last digit (same FMUs, same arithmetic)."""
    text = (ROOT / "scenarios" / "bluerov2_heavy_single.toml").read_text()
    original = tmp_path / "demo" / "scenario.toml"
    original.parent.mkdir()
    original.write_text(text.replace("stop_time = 60.0", "stop_time = 5.0"))
    read, (before, after) = round_trip(original, fmu_dir, tmp_path)
    assert sorted(e.name for e in read.system.elements) == ["rov"] + [f"t{k}" for k in range(1, 9)]
    assert before.keys() == after.keys() and len(before["time"]) == 51
    for name in before:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)
    assert np.max(np.abs(before["rov.p[3]"])) > 0.05  # it moved (the autopilot dives)


def test_connections_and_parameters_round_trip(fmu_dir, tmp_path):
    """The weakly coupled two-mass spring: connections, parameters and start values travel
    through the archive; the runs are identical."""
    fmu = spring_mass_fmu(tmp_path, ("CoSimulation",))
    original = tmp_path / "springs" / "scenario.toml"
    original.parent.mkdir()
    original.write_text(two_masses(fmu, 0.01, "gauss_seidel"))
    read, (before, after) = round_trip(original, fmu_dir, tmp_path)
    links = {
        (c.startElement, c.startConnector, c.endElement, c.endConnector)
        for c in read.system.connections
    }
    assert links == {("one", "x", "two", "x_other"), ("two", "F_other", "one", "F")}
    imported = (tmp_path / "imported" / "scenario.toml").read_text()
    assert "k = 6.0" in imported and "x = 1.0" in imported
    for name in before:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)


def test_summed_inputs_cannot_be_exported(fmu_dir, tmp_path):
    scenario = tmp_path / "sum.toml"
    scenario.write_text(
        """[simulation]
stop_time = 1.0
[components.a]
fmu = "Thruster"
[components.b]
fmu = "Thruster"
[components.rov]
fmu = "GenericVehicle"
[[connections]]
from = "a.tau"
to = "rov.tau_ext"
[[connections]]
from = "b.tau"
to = "rov.tau_ext"
"""
    )
    with pytest.raises(
        ScenarioError, match=r"sum.toml: connections\[1\].to: rov.tau_ext\[1\] is driven twice"
    ):
        export_ssp(scenario, fmu_dir, tmp_path / "sum.ssp")


def test_invalid_archive_is_reported(tmp_path):
    path = tmp_path / "bad.ssp"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("SystemStructure.ssd", "<ssd:SystemStructureDescription/>")
    with pytest.raises(ScenarioError, match=r"bad.ssp: not a valid SSP archive"):
        import_ssp(path, tmp_path / "s.toml")
