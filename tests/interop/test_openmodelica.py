"""The OpenModelica backend exports the same library with results that agree with the default
backend's. Needs ``omc`` (OpenModelica) and OMPython: skipped, with the reason, without them."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from conftest import LIBRARY
from fmpy import simulate_fmu

from orchestrator.compiler import build_library

pytestmark = pytest.mark.skipif(
    shutil.which("omc") is None,
    reason="OpenModelica's omc is not on PATH: the OpenModelica backend is not compared here",
)


@pytest.mark.slow
def test_openmodelica_and_default_backend_agree(fmu_dir, tmp_path):
    """BlueROV2 Heavy rising under its net buoyancy and GenericVehicle at rest, 10 s, in FMPy
    with both backends' FMUs: positions and speeds within 1e-5 (CVode, rtol 1e-8)."""
    pytest.importorskip("OMPython", reason="OMPython is not installed")
    built = build_library(LIBRARY, tmp_path, backend="openmodelica", report=lambda _: None)
    assert {p.name for p in built} == {p.name for p in fmu_dir.glob("*.fmu")}
    for name in ("BlueROV2Heavy", "GenericVehicle"):
        results = [
            simulate_fmu(
                str(folder / f"{name}.fmu"),
                stop_time=10.0,
                output_interval=0.5,
                relative_tolerance=1e-8,
                output=["p[3]", "nu[3]"],
            )
            for folder in (fmu_dir, tmp_path)
        ]
        for variable in ("p[3]", "nu[3]"):
            np.testing.assert_allclose(results[1][variable], results[0][variable], atol=1e-5)
