"""Every built FMU is a valid FMI 3.0 Model Exchange FMU that FMPy simulates on its own."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import FMU_DIR, LIBRARY
from fmpy import read_model_description, simulate_fmu
from fmpy.validation import validate_fmu

from orchestrator.compiler import fmu_name
from orchestrator.compiler.modelica import load_library

MODELS = load_library(LIBRARY).models()


def test_every_model_is_exported(fmu_dir):
    assert len(MODELS) >= 8
    for model in MODELS:
        assert (fmu_dir / f"{fmu_name(model)}.fmu").is_file(), model


@pytest.mark.parametrize("model", MODELS)
def test_fmu_validates_and_simulates_standalone(model, fmu_dir):
    path = str(fmu_dir / f"{fmu_name(model)}.fmu")
    assert validate_fmu(path) == []
    md = read_model_description(path)
    assert md.fmiVersion == "3.0" and md.modelExchange is not None
    result = simulate_fmu(path, stop_time=2.0)
    for name in result.dtype.names:
        assert np.all(np.isfinite(result[name])), name


def test_fmpy_and_our_master_agree(fmu_dir, run):
    """The same BlueROV2 Heavy run (net buoyancy, no input, 5 m deep) in FMPy's simulate_fmu
    and ours."""
    path = str(FMU_DIR / "BlueROV2Heavy.fmu")
    ref = simulate_fmu(
        path,
        stop_time=10.0,
        output_interval=0.5,
        relative_tolerance=1e-8,
        output=["p[3]", "nu[3]"],
        start_values={"p[3]": 5.0},
    )
    cols, _ = run(
        """
[simulation]
stop_time = 10.0
output_interval = 0.5
rtol = 1e-10
atol = 1e-12
[components.rov]
fmu = "BlueROV2Heavy"
start = { "p[3]" = 5.0 }
"""
    )
    np.testing.assert_allclose(cols["rov.p[3]"], ref["p[3]"], atol=1e-5)
    np.testing.assert_allclose(cols["rov.nu[3]"], ref["nu[3]"], atol=1e-5)
    assert cols["rov.p[3]"][-1] < 4.0  # it rose: buoyancy 114.8 N > weight 112.8 N
