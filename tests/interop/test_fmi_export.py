"""The build's FMI 2.0 and 3.0 FMUs through Model Exchange and Co-Simulation, in FMPy, in a C
host and in a second importer (the ecos engine)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from conftest import LIBRARY, skip_claim
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi2 import FMU2Model, FMU2Slave
from fmpy.fmi3 import FMU3Model, FMU3Slave
from fmpy.validation import validate_fmu

from orchestrator.compiler import fmu_name, fmu_path
from orchestrator.compiler.fmu_package import FMI_HEADERS
from orchestrator.compiler.modelica import load_library

MODELS = [fmu_name(m) for m in load_library(LIBRARY).models()]
VERSIONS = ["2.0", "3.0"]
VARIANT = {"2.0": "fmi2", "3.0": "fmi3"}  # the build's files with Model Exchange and Co-Simulation
TAU = [15.0, 4.0, -2.0, 0.1, 0.2, -0.5]  # N, N, N, N m, N m, N m: the forced vehicle run


class Instance:
    """One FMPy instance of an FMU in either FMI version, with version-neutral calls."""

    def __init__(self, path, interface: str) -> None:
        md = read_model_description(str(path))
        self.fmi2 = md.fmiVersion == "2.0"
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        cs = interface == "CoSimulation"
        cls = {(True, True): FMU2Slave, (True, False): FMU2Model}.get((self.fmi2, cs))
        cls = cls or (FMU3Slave if cs else FMU3Model)
        self.fmu = cls(
            guid=md.guid if self.fmi2 else md.instantiationToken,
            unzipDirectory=extract(str(path)),
            modelIdentifier=md.modelExchange.modelIdentifier,
            instanceName="probe",
        )
        self.fmu.instantiate()
        if self.fmi2:
            self.fmu.setupExperiment(startTime=0.0)
        self.fmu.enterInitializationMode()

    def start(self, values: dict[str, float]) -> Instance:
        self.set(values)
        self.fmu.exitInitializationMode()
        if isinstance(self.fmu, FMU2Model | FMU3Model):
            self.fmu.enterContinuousTimeMode()
        return self

    def set(self, values: dict[str, float]) -> None:
        if values:
            refs = [self.vr[n] for n in values]
            (self.fmu.setReal if self.fmi2 else self.fmu.setFloat64)(refs, list(values.values()))

    def get(self, names: list[str]) -> np.ndarray:
        refs = [self.vr[n] for n in names]
        return np.array((self.fmu.getReal if self.fmi2 else self.fmu.getFloat64)(refs))

    def step(self, t: float, h: float) -> None:
        self.fmu.doStep(t, h)

    def save(self) -> bytes:
        if self.fmi2:
            state = self.fmu.getFMUstate()
            data = self.fmu.serializeFMUstate(state)
            self.fmu.freeFMUstate(state)
        else:
            state = self.fmu.getFMUState()
            data = self.fmu.serializeFMUState(state)
            self.fmu.freeFMUState(state)
        return bytes(data)

    def restore(self, data: bytes) -> None:
        if self.fmi2:
            state = self.fmu.deSerializeFMUstate(data)
            self.fmu.setFMUstate(state)
            self.fmu.freeFMUstate(state)
        else:
            state = self.fmu.deserializeFMUState(data)
            self.fmu.setFMUState(state)
            self.fmu.freeFMUState(state)

    def close(self) -> None:
        self.fmu.terminate()
        self.fmu.freeInstance()


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", MODELS)
def test_every_fmu_validates_and_runs_through_both_interfaces(fmu_dir, name, version):
    """Model Exchange (integrated by FMPy's CVode) and Co-Simulation (the FMU's own
    Dormand-Prince) are two independent integrations of the same equations: they agree to the
    integrators' tolerances (1e-10 and 1e-9, relative)."""
    path = fmu_path(fmu_dir, name, VARIANT[version])
    assert validate_fmu(str(path)) == []
    md = read_model_description(str(path))
    assert md.coSimulation.canHandleVariableCommunicationStepSize
    assert md.coSimulation.canGetAndSetFMUstate and md.coSimulation.canSerializeFMUstate
    common = dict(stop_time=0.2, output_interval=0.02)
    me = simulate_fmu(str(path), fmi_type="ModelExchange", relative_tolerance=1e-10, **common)
    cs = simulate_fmu(str(path), fmi_type="CoSimulation", **common)
    for column in me.dtype.names:
        np.testing.assert_allclose(cs[column], me[column], rtol=1e-6, atol=1e-7, err_msg=column)


@pytest.mark.parametrize("version", VERSIONS)
def test_co_simulation_agrees_with_the_strong_master_on_the_forced_vehicle_run(
    run, fmu_dir, version
):
    """5 s of BlueROV2Heavy under a constant generalized force from rest: the strong master
    (RK45 at rtol 1e-11) against the Co-Simulation FMU stepped at 0.01 s by FMPy."""
    inputs = "".join(f'"tau_ext[{i + 1}]" = {TAU[i]}\n' for i in range(6))
    cols, _ = run(
        f"""
[simulation]
stop_time = 5.0
output_interval = 0.5
solver = "RK45"
rtol = 1e-11
atol = 1e-13
step = 0.01

[components.body]
fmu = "BlueROV2Heavy"
[components.body.start]
{inputs}
"""
    )
    names = ["p[1]", "p[2]", "p[3]", "q[1]", "q[2]", "q[3]", "q[4]"]
    names += [f"nu[{i}]" for i in range(1, 7)]
    inst = Instance(fmu_path(fmu_dir, "BlueROV2Heavy", VARIANT[version]), "CoSimulation")
    inst.start({f"tau_ext[{i + 1}]": TAU[i] for i in range(6)})
    got = [inst.get(names)]
    for k in range(500):
        inst.step(k * 0.01, 0.01)
        if (k + 1) % 50 == 0:
            got.append(inst.get(names))
    inst.close()
    master = np.column_stack([cols[f"body.{n}"] for n in names])
    np.testing.assert_allclose(cols["time"], np.arange(11) * 0.5, atol=1e-12)
    np.testing.assert_allclose(np.array(got), master, atol=1e-6)


@pytest.mark.parametrize("version", VERSIONS)
def test_serialized_fmu_state_replays_a_step_exactly(fmu_dir, version):
    """Save after 0.3 s, run to 0.6 s, restore the bytes, run again: the same result bit for
    bit; and the restored run differs from a run without the restore (the state mattered)."""
    inst = Instance(fmu_path(fmu_dir, "LaggedThruster", VARIANT[version]), "CoSimulation")
    inst.start({"pwm": 1700.0})
    for k in range(30):
        inst.step(k * 0.01, 0.01)
    saved = inst.save()
    inst.step(0.3, 0.3)
    first = inst.get(["w", "thrust"])
    inst.step(0.6, 0.3)
    later = inst.get(["w", "thrust"])
    inst.restore(saved)
    inst.step(0.3, 0.3)
    again = inst.get(["w", "thrust"])
    inst.close()
    assert np.array_equal(first, again)
    assert not np.allclose(later, first)


def test_co_simulation_accuracy_follows_the_tolerance_parameter(tmp_path, fmu_dir):
    """First-order motor lag w' = (w_cmd - w) / T after a step command: w(t) = w_cmd (1 -
    exp(-t/T)). Errors at a loose and at the default tolerance, one large communication step
    and uneven ones."""
    path = fmu_path(fmu_dir, "LaggedThruster", VARIANT["3.0"])
    T, w_cmd = 0.1, 1700.0 - 1500.0  # s; us: offset from neutral, outside the dead zone
    errors = {}
    for tolerance in (1e-4, 1e-10):
        inst = Instance(path, "CoSimulation")
        inst.start({"pwm": 1700.0, "solver.tolerance": tolerance, "solver.max_step": 1.0})
        t = 0.0
        for h in (0.5, 0.013, 0.1, 0.287):
            inst.step(t, h)
            t += h
        errors[tolerance] = abs(inst.get(["w"])[0] - w_cmd * (1 - np.exp(-t / T)))
        inst.close()
    assert errors[1e-10] < 1e-7
    assert errors[1e-4] > 10 * errors[1e-10]


@pytest.mark.parametrize("version", VERSIONS)
def test_directional_derivatives_match_finite_differences(fmu_dir, version):
    """d(der(nu), M[1,1], nu_r[1])/d(nu, tau_ext) of the vehicle by the FMU against central
    differences (step 1e-6: truncation and rounding near 1e-8); M is constant, so its row is
    zero."""
    inst = Instance(fmu_path(fmu_dir, "BlueROV2Heavy", VARIANT[version]), "ModelExchange")
    nu = [f"nu[{i}]" for i in range(1, 7)]
    dnu = [f"der({n})" for n in nu] + ["M[1,1]", "nu_r[1]"]
    knowns = nu + ["tau_ext[1]", "tau_ext[5]"]
    # all velocities away from 0, where the quadratic damping v|v| has no second derivative
    speeds = [0.7, -0.2, 0.1, 0.3, -0.1, 0.2]  # m/s, rad/s
    state = dict(zip(nu, speeds, strict=True))
    inst.start({**state, "tau_ext[1]": 10.0, "tau_ext[5]": 0.5})
    values = inst.get(knowns)
    unknown_refs = [inst.vr[n] for n in dnu]
    known_refs = [inst.vr[n] for n in knowns]
    for j in range(len(knowns)):
        seed = np.zeros(len(knowns))
        seed[j] = 1.0
        column = inst.fmu.getDirectionalDerivative(unknown_refs, known_refs, list(seed))
        h = 1e-6 * max(1.0, abs(values[j]))
        inst.set({knowns[j]: values[j] + h})
        plus = inst.get(dnu)
        inst.set({knowns[j]: values[j] - h})
        minus = inst.get(dnu)
        inst.set({knowns[j]: values[j]})
        np.testing.assert_allclose(column, (plus - minus) / (2 * h), rtol=1e-6, atol=1e-7)
    inst.close()


# Parameters whose derived values the FMU keeps between evaluations (model_parametric): the
# sea's component amplitudes depend on H_s, the vehicle's inverse mass matrix on its mass.
# Each: the changed parameter, the start values of states, the inputs, the results read.
HOISTED = {
    "IrregularSea": (
        {"H_s": 3.5},  # m
        {},
        {"r[1]": 3.0, "r[2]": -2.0, "r[3]": 1.5},  # m, NED
        ["zeta", "v[1]", "v[3]", "a[3]"],
    ),
    "BlueROV2Heavy": (
        {"data.m": 14.0},  # kg
        {"nu[1]": 0.7, "nu[6]": 0.2},  # m/s, rad/s
        {"tau_ext[1]": 10.0, "tau_ext[3]": 5.0},  # N
        [f"der(nu[{i}])" for i in range(1, 7)],
    ),
}


@pytest.mark.parametrize("interface", ["ModelExchange", "CoSimulation"])
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(HOISTED))
def test_a_parameter_changed_after_instantiation_reaches_the_results(
    fmu_dir, name, version, interface
):
    """The parts of the equations that depend on parameters only are computed again when a
    parameter may have changed, not at every evaluation. After a set of the parameter, after
    restoring (deserializing) FMU states saved with either value and after a reset, the results
    equal, bit for bit, those of an instance instantiated with the value it then holds (the
    same operations on the same operands): a stale derived value would give the other one's.
    After a restore the inputs are set again, so that the results are evaluated anew rather
    than read from the state."""
    changed, states, inputs, outputs = HOISTED[name]
    path = fmu_path(fmu_dir, name, VARIANT[version])
    fresh = Instance(path, interface).start({**states, **inputs, **changed})
    expected, saved_changed = fresh.get(outputs), fresh.save()
    fresh.close()
    inst = Instance(path, interface).start({**states, **inputs})
    default, saved_default = inst.get(outputs), inst.save()
    assert not np.allclose(default, expected)  # the parameter moves the results
    model_exchange = interface == "ModelExchange"
    if model_exchange:
        inst.fmu.enterEventMode()  # where FMI lets a tunable parameter change
    inst.set(changed)
    if model_exchange:
        inst.fmu.enterContinuousTimeMode()
    assert np.array_equal(inst.get(outputs), expected)
    inst.restore(saved_default)
    inst.set(inputs)
    assert np.array_equal(inst.get(outputs), default)
    inst.restore(saved_changed)
    inst.set(inputs)
    assert np.array_equal(inst.get(outputs), expected)
    inst.fmu.reset()
    if inst.fmi2:
        inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    assert np.array_equal(inst.start({**states, **inputs}).get(outputs), default)
    inst.close()


HOST = r"""
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char** argv) {
    void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    int missing = 0;
    if (!lib) { printf("%s\n", dlerror()); return 1; }
    for (int i = 2; i < argc; i++)
        if (!dlsym(lib, argv[i])) { printf("missing %s\n", argv[i]); missing++; }
    dlclose(lib);
    return missing ? 2 : 0;
}
"""


def _api(version: str) -> list[str]:
    """The FMI functions a binary must export, read from the standard's header."""
    major = version[0]
    header = (FMI_HEADERS / f"fmi{major}Functions.h").read_text()
    return re.findall(rf"FMI{major}_Export\s+fmi{major}\w+TYPE\s+(fmi{major}\w+)\s*;", header)


def test_c_host_without_libm_loads_every_fmu(fmu_dir, tmp_path):
    """A host compiled without -lm: dlopen with every symbol resolved, and every FMI function
    of the version present."""
    source = tmp_path / "host.c"
    source.write_text(HOST)
    host = tmp_path / "host"
    compiler = shutil.which("cc") or shutil.which("gcc")
    subprocess.run([compiler, str(source), "-o", str(host), "-ldl"], check=True)
    for variant, version in (("me", "3.0"), ("fmi3", "3.0"), ("fmi2", "2.0")):
        api = _api(version)
        assert len(api) > 40
        for name in MODELS:
            with zipfile.ZipFile(fmu_path(fmu_dir, name, variant)) as archive:
                (inside,) = [n for n in archive.namelist() if n.endswith(".so")]
                binary = archive.extract(inside, tmp_path / variant / name)
            done = subprocess.run([str(host), binary, *api], capture_output=True, text=True)
            assert done.returncode == 0, f"{name} ({variant}): {done.stdout}"


@pytest.mark.parametrize("name", MODELS)
def test_the_orchestrators_file_stays_fmi3_model_exchange(fmu_dir, name):
    """``fmus/<Name>.fmu`` offers FMI 3.0 Model Exchange only, as the orchestrator expects
    (weak coupling would otherwise step it through Co-Simulation), and declares the elements
    of every array in index order (connections expand ``nu_r`` into its elements in
    declaration order)."""
    path = fmu_path(fmu_dir, name, "me")
    assert validate_fmu(str(path)) == []
    md = read_model_description(str(path))
    assert md.fmiVersion == "3.0" and md.modelExchange is not None and md.coSimulation is None
    arrays: dict[str, list[tuple[int, ...]]] = {}
    for variable in md.modelVariables:
        match = re.fullmatch(r"(.*?)\[([\d,]+)\]", variable.name)
        if match:
            index = tuple(int(i) for i in match.group(2).split(","))
            arrays.setdefault(match.group(1), []).append(index)
    for array, indices in arrays.items():
        assert indices == sorted(indices), array


ECOS_RUN = """
import ctypes, json, sys
from importlib import metadata
try:
    libtbb = [f for f in metadata.files("tbb") or [] if f.name == "libtbb.so.12"]
    if libtbb:
        ctypes.CDLL(str(libtbb[0].locate()), mode=ctypes.RTLD_GLOBAL)
    import ecospy
except Exception as exc:
    print(json.dumps({"skip": f"{type(exc).__name__}: {exc}"}))
    sys.exit(0)
path, inputs, outputs = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
structure = ecospy.EcosSimulationStructure()
structure.add_model("m", path)
structure.add_parameter_set("start", {f"m::{k}": v for k, v in inputs.items()})
sim = ecospy.EcosSimulation(structure=structure, step_size=0.01)
sim.init(parameter_set="start")
sim.step(100)
values = [sim.get_real(f"m::{n}") for n in outputs]
print(json.dumps({"time": sim.get_time(), "values": values}))
sim.terminate()
sim.free()
"""


@pytest.mark.parametrize(
    ("name", "inputs", "outputs"),
    [
        ("BlueROV2Heavy", {f"tau_ext[{i + 1}]": TAU[i] for i in range(6)}, ["p[1]", "nu[1]"]),
        ("LaggedThruster", {"pwm": 1700.0, "nu_r[1]": 0.4}, ["w", "thrust", "tau[6]"]),
    ],
)
def test_ecos_engine_runs_fmi2_co_simulation_like_fmpy(fmu_dir, name, inputs, outputs):
    """FMI 2.0 Co-Simulation in a second importer: 1 s at 0.01 s steps, as in FMPy. ecos runs
    in a process of its own (it makes the FMI symbols of the binaries it loads global); its
    TBB library comes from the ``tbb`` wheel. Skipped with the reason if ecos cannot load (a
    failure under CI)."""
    path = fmu_path(fmu_dir, name, VARIANT["2.0"])
    arguments = [str(path), json.dumps(inputs), json.dumps(outputs)]
    done = subprocess.run(
        [sys.executable, "-c", ECOS_RUN, *arguments], capture_output=True, text=True, check=True
    )
    ecos = json.loads(done.stdout.strip().splitlines()[-1])
    if "skip" in ecos:
        skip_claim(f"ecospy cannot be loaded here: {ecos['skip']}")
    result = simulate_fmu(
        str(path),
        fmi_type="CoSimulation",
        stop_time=1.0,
        output_interval=0.01,
        start_values=inputs,
        output=outputs,
    )
    assert ecos["time"] == pytest.approx(1.0, abs=1e-12)
    expected = [result[n][-1] for n in outputs]
    np.testing.assert_allclose(ecos["values"], expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    ("model", "moved"),
    [("LaggedThruster", "thrust"), ("BlueROV2Heavy", "nu_r[1]")],
)
def test_crosscheck_export_follows_the_cross_check_layout(
    fmu_dir, tmp_path, monkeypatch, model, moved
):
    """``murcosim crosscheck``: FMPy's vendor-repository validation finds no problem, and FMPy
    importing each FMU with its ``_in.csv`` read back reproduces ``_ref.csv`` within 1e-6: the
    reference was computed from exactly those inputs (the vehicle's current v_c included: a
    component's start value wins over the environment's current), which move the model
    (``moved`` changes)."""
    from fmpy.cross_check.validate_vendor_repo import read_csv, validate_test_fmu
    from fmpy.util import read_ref_opt_file

    from orchestrator.cli import main

    out = tmp_path / "crosscheck"
    monkeypatch.chdir(fmu_dir.parent)  # the FMU folder given relative to the working directory
    args = ["crosscheck", str(out), "--fmu-dir", fmu_dir.name, "--model", model]
    assert main(args) == 0
    folders = sorted(p.parent for p in out.rglob(f"{model}.fmu"))
    kinds = {tuple(f.relative_to(out / "fmus").parts[:3]) for f in folders}
    assert kinds == {(v, t, "linux64") for v in VERSIONS for t in ("me", "cs")}
    for folder in folders:
        assert validate_test_fmu(str(folder)) == []
        assert (folder / "ReadMe.md").read_text().startswith(f"# {model}")
        options = read_ref_opt_file(str(folder / f"{model}_ref.opt"))
        reference = read_csv(str(folder / f"{model}_ref.csv"))
        result = simulate_fmu(
            str(folder / f"{model}.fmu"),
            fmi_type="ModelExchange" if folder.parts[-5] == "me" else "CoSimulation",
            stop_time=options["StopTime"],
            output_interval=options["StepSize"],
            relative_tolerance=1e-10,
            input=read_csv(str(folder / f"{model}_in.csv")),
            output=[n for n in reference.dtype.names[1:]],
        )
        assert len(reference) == len(result) == 201
        assert np.ptp(reference[moved]) > 1e-3  # the held inputs move the model
        for name in reference.dtype.names[1:]:
            np.testing.assert_allclose(result[name], reference[name], atol=1e-6, err_msg=name)
