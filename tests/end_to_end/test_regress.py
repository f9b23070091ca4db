"""``murcosim regress``: references written, a changed component flagged signal by signal, the
report and JUnit XML read back, the pytest plugin, and the FMU variants' agreement.

The signals a changed run must flag are computed here independently of pyfunnel: with no time
tolerance and the same recording grid, a signal leaves its tube exactly where
``|y - y_ref| > atol + rtol |y_ref|`` at some recording time.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest

from orchestrator.analysis.regression import FAILED, PASSED, UPDATED, regress
from orchestrator.analysis.regression.compare import compare_events
from orchestrator.analysis.regression.references import read_reference
from orchestrator.analysis.regression.variants import check_variants
from orchestrator.cli import main
from orchestrator.errors import ScenarioError
from orchestrator.recording.patterns import matches

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
ATOL, RTOL = 1e-6, 1e-6
INPUTS = "time,pwm,nu_r[1]\n0,1500,0\n0.2,1700,0\n0.5,1700,0.2\n1.0,1300,0.2\n"


def _suite(folder: Path, fmu_dir: Path, thruster: str = "") -> Path:
    """A suite of a thruster FMU alone with step inputs (``thruster``: more keys of its case)
    and a 3 s vehicle scenario."""
    (folder / "pwm.csv").write_text(INPUTS)
    path = folder / "regress_user.toml"
    path.write_text(
        f"""[tolerance]
atol = {ATOL}
rtol = {RTOL}

[cases.thruster]
fmu = "{(fmu_dir / "fmi2" / "LaggedThruster.fmu").as_posix()}"
inputs = "pwm.csv"
stop_time = 2.0
output_interval = 0.01
{thruster}
[cases.vehicle]
scenario = "{(ROOT / "scenarios" / "bluerov2_heavy_single.toml").as_posix()}"
stop_time = 3.0
signals = ["rov.p[*]", "rov.nu[*]", "t1.*"]
"""
    )
    return path


def _outside(reference, run) -> set[str]:
    """Signals of ``run`` (a CaseRun) outside the tube around ``reference``, computed directly."""
    return {
        name
        for name, ref in reference.columns.items()
        if np.any(np.abs(run.columns[name] - ref) > ATOL + RTOL * np.abs(ref))
    }


def test_round_trip_flags_exactly_the_signals_that_left_their_tubes(fmu_dir, tmp_path):
    """References stored by --update; the same runs pass; a changed motor time constant fails
    the thruster case on exactly the signals outside their tubes (and not the vehicle's);
    the JUnit XML and the HTML report say so; the change reverted, the suite passes again."""
    suite = _suite(tmp_path, fmu_dir)
    stored = regress(suite, update=True, report=lambda _: None)
    assert [c.status for c in stored.cases] == [UPDATED, UPDATED]
    reference = read_reference(tmp_path / "references", "thruster")
    assert reference is not None and set(reference.run.columns) >= {"thrust", "w", "pwm"}
    assert np.ptp(reference.run.columns["thrust"]) > 1.0  # the inputs move the thruster

    again = regress(suite, report=lambda _: None)
    assert again.passed and [c.status for c in again.cases] == [PASSED, PASSED]
    assert all(s.passed for c in again.cases for s in c.signals)

    changed = _suite(tmp_path, fmu_dir, thruster='parameters = { "data.T_motor" = 0.12 }\n')
    result = regress(changed, report=lambda _: None)
    thruster, vehicle = result.cases
    assert not result.passed and thruster.status == FAILED and vehicle.status == PASSED
    from orchestrator.analysis.regression.cases import run_case
    from orchestrator.analysis.regression.suite import load_suite

    run = run_case(load_suite(changed).cases["thruster"], tmp_path, "thruster")
    expected = _outside(reference.run, run)
    assert {s.name for s in thruster.failed_signals} == expected
    assert {"w", "thrust"} <= expected and "pwm" not in expected  # inputs stay, thrust moves

    junit = tmp_path / "junit.xml"
    html = tmp_path / "report.html"
    assert main(["regress", str(changed), "--junit", str(junit), "--report", str(tmp_path)]) == 1
    suite_element = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite_element.get("tests") == "2" and suite_element.get("failures") == "1"
    cases = {c.get("name"): c for c in suite_element.iter("testcase")}
    failure = cases["thruster"].find("failure")
    assert cases["vehicle"].find("failure") is None and failure is not None
    assert {line.split(":")[0] for line in failure.text.splitlines()} == expected
    html = tmp_path / f"{changed.stem}.html"
    page = html.read_text()
    assert page.count("<img") == len(expected) and "data:image/png;base64," in page

    assert main(["regress", str(_suite(tmp_path, fmu_dir))]) == 0


def test_update_says_what_changed_and_then_passes(fmu_dir, tmp_path, capsys):
    suite = _suite(tmp_path, fmu_dir)
    regress(suite, update=True, report=lambda _: None)
    changed = _suite(tmp_path, fmu_dir, thruster='parameters = { "data.K_L" = 0.025 }\n')
    assert main(["regress", str(changed), "--case", "thruster", "--update"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("updated thruster") and "thrust" in out and "left their tubes" in out
    assert regress(changed, report=lambda _: None).passed
    assert not regress(_suite(tmp_path, fmu_dir), report=lambda _: None).passed


def test_events_compared_by_kind_and_time():
    reference = [(0.0, "start"), (1.5, "dock"), (3.0, "stop")]
    assert compare_events(reference, reference, 1e-9) == []
    late = compare_events(reference, [(0.0, "start"), (1.6, "dock"), (3.0, "stop")], 1e-3)
    assert late == ["event 2 'dock': at 1.6 s, the reference at 1.5 s (tolerance 0.001 s)"]
    other = compare_events(reference, [(0.0, "start"), (1.5, "undock"), (3.0, "stop")], 1.0)
    assert len(other) == 1 and "'undock'" in other[0] and "'dock'" in other[0]
    missing = compare_events(reference, reference[:2], 1.0)
    assert missing == ["event 'stop' at 3 s of the reference is missing"]


def test_a_missing_reference_fails_and_a_dropped_signal_is_named(fmu_dir, tmp_path):
    suite = _suite(tmp_path, fmu_dir)
    result = regress(suite, report=lambda _: None)
    assert [c.status for c in result.cases] == [FAILED, FAILED]
    assert "no reference (store one with --update)" in result.cases[0].messages[0]
    regress(suite, update=True, report=lambda _: None)
    narrowed = suite.read_text().replace('"t1.*"]', '"t1.thrust"]')
    suite.write_text(narrowed)
    assert regress(suite, report=lambda _: None).passed  # fewer signals asked: still passes
    table = tmp_path / "references" / "vehicle.csv"
    header, *rows = table.read_text().splitlines()
    table.write_text("\n".join([header + ",rov.nu[7]", *(r + ",1" for r in rows)]) + "\n")
    case = regress(suite, ["vehicle"], report=lambda _: None).cases[0]
    assert case.status == FAILED and case.messages == ["rov.nu[7]: not in the results (dropped?)"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[cases.a]\nfmu = "x.fmu"\nscenario = "s.toml"\n', "cases.a: expected exactly one of"),
        ("[cases.a]\nfmu = 3\n", "cases.a.fmu: Input should be a valid string"),
        ('[cases.a]\nscenario = "s.toml"\ninputs = "i.csv"\n', "cases.a: 'inputs' applies to"),
        ('[tolerance]\natol = -1\n[cases.a]\nfmu = "x.fmu"\n', "tolerance.atol: Input should"),
        ('[cases.a]\nfmu = "x.fmu"\nspeed = 2\n', "cases.a.speed: Extra inputs"),
        ("cases = 1\n", "cases: Input should be a valid dictionary"),
        ("[cases\n", "not valid TOML"),
    ],
)
def test_bad_suite_files_are_one_line(tmp_path, capsys, text, message):
    suite = tmp_path / "regress.toml"
    suite.write_text(text)
    assert main(["regress", str(suite)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"murcosim: error: {suite}: ") and message in err
    assert len(err.strip().splitlines()) == 1


def test_bad_cases_are_errors_naming_the_key(fmu_dir, tmp_path):
    suite = _suite(tmp_path, fmu_dir)
    suite.write_text(suite.read_text().replace('"t1.*"]', '"rov.pos[*]"]'))
    case = regress(suite, ["vehicle"], report=lambda _: None).cases[0]
    assert case.status == "error"
    assert "cases.vehicle.signals: 'rov.pos[*]' matches no recorded column" in case.messages[0]
    (tmp_path / "pwm.csv").write_text("time,pwm\n0,1500\n0.015,1600\n")
    case = regress(suite, ["thruster"], report=lambda _: None).cases[0]
    assert (
        case.status == "error"
        and "pwm.csv:3: time 0.015 s is not on the recording" in (case.messages[0])
    )
    with pytest.raises(ScenarioError, match="no case 'vehicel'; did you mean vehicle"):
        regress(suite, ["vehicel"], report=lambda _: None)


def test_patterns_take_brackets_literally():
    assert matches("rov.p[3]", "rov.p[3]") and matches("rov.p[3]", "rov.p[*]")
    assert not matches("rov.p3", "rov.p[3]") and not matches("rov.p[3]", "rov.p[12]")
    assert matches("t1.thrust", "t?.thrust") and not matches("t12.thrust", "t?.thrust")


def test_pytest_collects_suites_and_updates_with_the_option(fmu_dir, pytester):
    """A user's suite file in a test folder: a test per case; --murcosim-update stores the
    references; the next run passes; a bad suite is one collection error line."""
    _suite(pytester.path, fmu_dir)
    first = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    first.assert_outcomes(failed=2)
    first.stdout.fnmatch_lines(["*case thruster:*", "*no reference (store one with --update)*"])
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "--murcosim-update").assert_outcomes(
        passed=2
    )
    report = pytester.path / "report"
    again = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--murcosim-report", report)
    again.assert_outcomes(passed=2)
    assert (report / "regress_user.html").is_file()
    (pytester.path / "regress_bad.toml").write_text("[cases.a]\nfmu = 1\n")
    bad = pytester.runpytest_subprocess("-p", "no:cacheprovider", "regress_bad.toml")
    bad.assert_outcomes(errors=1)
    bad.stdout.fnmatch_lines(["*regress_bad.toml: cases.a.fmu: Input should be a valid string*"])


def test_fixture_runs_a_suite_from_a_test(fmu_dir, pytester):
    suite = _suite(pytester.path, fmu_dir)
    suite.rename(pytester.path / "user_suite.toml")  # not collected by name
    pytester.makepyfile(
        test_user="""
def test_components(murcosim_regress):
    murcosim_regress("user_suite.toml", ["thruster"])
"""
    )
    failed = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(["*case thruster: no reference*"])
    passed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--murcosim-update")
    passed.assert_outcomes(passed=1)


def test_variants_agree_and_a_wrong_variant_is_caught(fmu_dir, tmp_path):
    """Every model's four variants and FMPy agree with the master's run of the FMU alone (the
    irregular sea with its own wave draws, as another importer runs it); a build folder whose
    FMI 2.0 variant of the lagged thruster holds the thruster without lag fails its three
    cases."""
    result = check_variants(fmu_dir, report=lambda _: None)
    assert len(result.cases) == 6 * len(list(fmu_dir.glob("*.fmu"))) >= 6 * 18
    assert result.passed, [m for c in result.cases for m in c.messages][:5]
    assert all(c.signals for c in result.cases)

    copy = tmp_path / "fmus"
    for variant in ("", "fmi2", "fmi3"):
        (copy / variant).mkdir(parents=True, exist_ok=True)
        shutil.copy(fmu_dir / variant / "LaggedThruster.fmu", copy / variant)
    shutil.copy(fmu_dir / "fmi2" / "Thruster.fmu", copy / "fmi2" / "LaggedThruster.fmu")
    wrong = check_variants(copy, ["LaggedThruster"], report=lambda _: None)
    status = {c.name.split("/")[1]: c.status for c in wrong.cases}
    assert status == {
        "FMI 2.0 ME": FAILED,
        "FMI 2.0 CS": FAILED,
        "FMI 2.0 CS in FMPy": FAILED,
        "FMI 3.0 ME": PASSED,
        "FMI 3.0 CS": PASSED,
        "FMI 3.0 CS in FMPy": PASSED,
    }
    me = next(c for c in wrong.cases if c.name.endswith("2.0 ME"))
    assert "w: not in the results (dropped?)" in me.messages
    assert any(m.startswith("thrust: left its tube") for m in me.messages)


@pytest.mark.slow
def test_crosscheck_of_every_model_replays_in_fmpy(fmu_dir, tmp_path):
    """``murcosim crosscheck`` of all models: every exported FMU replays its ``_ref.csv`` from
    its own ``_in.csv`` within 1e-6: Co-Simulation in FMPy, Model Exchange through FMPy's FMI
    calls integrated by SciPy (``replay_me``: FMPy's CVODE at rtol 1e-10 stops short on the
    links, 1.5e-5 off where it finishes), the irregular sea included (its reference keeps the
    FMU's own wave draws, which another importer runs, not those a system draws from its seed).
    A Co-Simulation run carries its embedded integrator's error at the default tolerance
    (up to 5.7e-6 (1 + |y|) on the links and the bracket), within its own 1e-5 (1 + |y|)."""
    from fmpy import simulate_fmu
    from fmpy.cross_check.validate_vendor_repo import read_csv
    from replay_me import replay_me

    from orchestrator.analysis.crosscheck import export_crosscheck

    folders = export_crosscheck(fmu_dir, tmp_path, report=lambda _: None)
    assert len(folders) == 4 * len(list(fmu_dir.glob("*.fmu"))) >= 4 * 18
    for folder in folders:
        model = folder.name
        reference = read_csv(str(folder / f"{model}_ref.csv"))
        names = list(reference.dtype.names[1:])
        held = folder / f"{model}_in.csv"
        table = read_csv(str(held)) if held.exists() else None
        if folder.parts[-5] == "me":
            inputs = {n: float(table[n][0]) for n in table.dtype.names[1:]} if held.exists() else {}
            result = replay_me(str(folder / f"{model}.fmu"), inputs, names, reference["time"])
            tolerance = 1e-6
        else:
            result = simulate_fmu(
                str(folder / f"{model}.fmu"),
                fmi_type="CoSimulation",
                stop_time=2.0,
                output_interval=0.01,
                input=table,
                output=names,
            )
            assert len(result) == len(reference) == 201, folder
            tolerance = 1e-5
        for name in names:
            np.testing.assert_allclose(
                result[name],
                reference[name],
                atol=tolerance,
                rtol=tolerance,
                err_msg=f"{folder}: {name}",
            )
