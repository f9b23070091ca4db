"""A Co-Simulation FMU built in the tests, packed in our SSP archive, run by another
co-simulation engine: ecos (``ecospy``). Skipped, with the reason, where ecos cannot load (it
needs the TBB runtime, Debian ``libtbb12``, which ``make test`` installs); a failure under CI.

ecos runs in a process of its own: it loads FMU binaries so that their FMI symbols become
visible to the FMUs loaded after them in the same process.
"""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest
from conftest import claim_loads
from foreign import spring_mass_fmu
from validation.test_cosim import analytic_positions, two_masses

from orchestrator.system.ssp import export_ssp

claim_loads("ecospy", "import ecospy", "'make test' installs libtbb12 as root")


def ecos_run(archive: str, name: str, step: float) -> tuple[list[float], np.ndarray]:
    """Parameters read back and (t, x1, x2) rows of a 2 s ecos run of the two-mass archive."""
    from ecospy import EcosLib, EcosSimulation

    EcosLib.set_log_level("warn")
    with EcosSimulation(step_size=step, ssp_path=archive) as sim:
        sim.init(parameter_set=name)  # every parameter set of our archives has its name
        parameters = [sim.get_real(v) for v in ("one::m", "two::m", "two::k")]
        rows = [(sim.get_time(), sim.get_real("one::x"), sim.get_real("two::x"))]
        while rows[-1][0] < 2.0 - step / 2:
            sim.step()
            rows.append((sim.get_time(), sim.get_real("one::x"), sim.get_real("two::x")))
    return parameters, np.array(rows)


def ecos_errors(archive, name: str, steps: tuple[float, ...]) -> list[float]:
    """Largest position error against the analytic solution over 2 s, run by ecos at each
    of ``steps`` (s)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        runs = [pool.apply(ecos_run, (str(archive), name, step)) for step in steps]
    errors = []
    for parameters, rows in runs:
        assert parameters == [1.0, 2.0, 6.0]
        t, x1, x2 = rows.T
        assert t[-1] == pytest.approx(2.0)
        one, two = analytic_positions(t)
        errors.append(max(np.max(np.abs(x1 - one)), np.max(np.abs(x2 - two))))
    return errors


@pytest.mark.parametrize("fmi_version", ["2.0", "3.0"])
def test_our_archive_runs_in_ecos(tmp_path, fmu_dir, fmi_version):
    """The two-mass spring of test_cosim (connections and parameters from the archive only):
    ecos's fixed-step master converges to the analytic solution at first order in its step,
    as a weak coupling with held inputs does (error ratio 2 +- 0.3 when the step halves)."""
    fmu = spring_mass_fmu(tmp_path, ("CoSimulation",), fmi_version)
    scenario = tmp_path / "springs.toml"
    scenario.write_text(two_masses(fmu, 0.01, "jacobi"))
    archive = export_ssp(scenario, fmu_dir, tmp_path / "springs.ssp", "1.0")
    errors = ecos_errors(archive, "springs", (0.01, 0.005))
    print(f"ecos, FMI {fmi_version}: errors {errors}, ratio {errors[0] / errors[1]}")
    assert errors[0] < 0.1
    assert 1.7 < errors[0] / errors[1] < 2.3
