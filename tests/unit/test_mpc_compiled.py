"""The rendezvous MPC's NLP functions compiled to machine code, and its solver evaluated in
place: the same numbers bit for bit as CasADi's interpreted evaluation, a cache that is
reused, and the interpreted functions when the compiler is missing or fails."""

from __future__ import annotations

import logging

import casadi as ca
import numpy as np
import pytest
from conftest import ROOT

from orchestrator.controllers.mpc import compiled
from orchestrator.controllers.mpc.camera import Camera
from orchestrator.controllers.mpc.in_place import InPlaceCall
from orchestrator.controllers.mpc.model import PlanarModel
from orchestrator.controllers.mpc.problem import LocalProblem, ObservedObject, VehicleSpec
from orchestrator.controllers.mpc.supervisor import DockingSupervisor
from orchestrator.controllers.rendezvous import RendezvousController
from orchestrator.scenario.reading import load_scenario

DOCKING = ROOT / "scenarios" / "docking_mpc.toml"
HORIZON = 4  # small: the test compiles its own library (about a second)


def _spec() -> VehicleSpec:
    """A vehicle with a port off its origin and an observed object (all cost and constraint
    terms of a local problem: rotation, slacks, distance and camera half-planes)."""
    return VehicleSpec(
        "chaser",
        PlanarModel(max_input=(15.0, 15.0, 3.0)),
        [Camera(0.0, np.radians(25.0))],
        port=np.array([0.25, 0.1]),
        observe=ObservedObject(np.array([3.0, 1.0]), 5.0, 0),
    )


def _random_inputs(function: ca.Function, rng: np.random.Generator) -> list[ca.DM]:
    return [ca.DM(rng.normal(size=function.nnz_in(i))) for i in range(function.n_in())]


def test_compiled_nlp_functions_equal_the_interpreted_ones(tmp_path):
    """Every NLP function of the solver (f and g, their Jacobian, the Lagrangian's gradient
    and Hessian), compiled, gives the same outputs bit for bit on random inputs as CasADi's
    virtual machine, with the same sparsity."""
    problem = LocalProblem(_spec(), HORIZON)
    functions = compiled.compiled_functions(problem.solver, tmp_path)
    assert functions is not None
    assert sorted(functions) == sorted(problem.solver.get_function())
    rng = np.random.default_rng(1)
    for name, external in functions.items():
        interpreted = problem.solver.get_function(name)
        assert external.class_name() == "External"
        for _ in range(20):
            inputs = _random_inputs(interpreted, rng)
            for ours, theirs in zip(external.call(inputs), interpreted.call(inputs), strict=True):
                assert ours.sparsity() == theirs.sparsity(), name
                assert np.array_equal(np.asarray(ours.nonzeros()), theirs.nonzeros()), name


def test_compiled_problem_solves_identically(tmp_path):
    """A sequence of warm-started solves (as the distributed MPC makes them) with the
    compiled functions returns the interpreted problem's trajectories and multipliers bit
    for bit, and the solver really calls the compiled functions."""
    spec = _spec()
    interpreted = LocalProblem(spec, HORIZON)
    fast = LocalProblem(spec, HORIZON, compiled=tmp_path)
    assert fast.solver.get_function("nlp_jac_fg").class_name() == "External"
    assert interpreted.solver.get_function("nlp_jac_fg").class_name() == "SXFunction"
    rng = np.random.default_rng(2)
    x0 = np.array([0.0, 0.0, 0.1, 0.0, 0.0, 0.0])
    guesses = {id(p): p.initial_guess(x0) for p in (interpreted, fast)}
    for _ in range(6):
        price_p, price_t = rng.normal(size=(HORIZON + 1, 2)), rng.normal(size=(HORIZON + 1, 3))
        solutions = []
        for problem in (interpreted, fast):
            solution = problem.solve(x0, price_p, price_t, guesses[id(problem)])
            guesses[id(problem)] = problem.pack(solution.X, solution.U, solution.theta)
            solutions.append((solution, problem._warm))
        (a, warm_a), (b, warm_b) = solutions
        assert a.success and b.success and a.status == b.status
        for ours, theirs in [
            (a.X, b.X),
            (a.U, b.U),
            (a.theta, b.theta),
            *zip(warm_a, warm_b, strict=True),
        ]:
            assert np.array_equal(ours, theirs)
        x0 = a.X[1]


def test_the_library_is_built_once_and_reused(tmp_path, monkeypatch):
    """The second problem with the same functions loads the cached library: no compiler is
    run (one that would fail is in place), and exactly one library is in the folder."""
    first = compiled.compiled_functions(LocalProblem(_spec(), HORIZON).solver, tmp_path)
    libraries = list(tmp_path.glob("*.so"))
    assert first is not None and len(libraries) == 1

    def no_compiler(source, library):
        raise AssertionError("compiled again")

    monkeypatch.setattr(compiled, "_build", no_compiler)
    again = compiled.compiled_functions(LocalProblem(_spec(), HORIZON).solver, tmp_path)
    assert again is not None and list(tmp_path.glob("*.so")) == libraries
    other = VehicleSpec("chaser", PlanarModel(), [Camera(0.0, 0.4)])  # other functions
    with pytest.raises(AssertionError, match="compiled again"):
        compiled.compiled_functions(LocalProblem(other, HORIZON).solver, tmp_path)


@pytest.mark.parametrize(
    ("setting", "value", "reason"),
    [
        ("COMPILER", "no-such-cc", "C compiler 'no-such-cc' not found on PATH"),
        ("FLAGS", ("-fno-such-flag", "-shared"), "failed:"),
    ],
)
def test_a_missing_or_failing_compiler_leaves_the_functions_interpreted(
    tmp_path, monkeypatch, caplog, setting, value, reason
):
    """No library, one warning line naming the solver and the reason, and a problem that
    still solves, with CasADi's interpreted functions and the same solution."""
    monkeypatch.setattr(compiled, setting, value)
    spec = _spec()
    with caplog.at_level(logging.WARNING, logger=compiled.__name__):
        problem = LocalProblem(spec, HORIZON, compiled=tmp_path)
    assert list(tmp_path.glob("*.so")) == []
    [record] = caplog.records
    message = record.getMessage()
    assert "local_chaser: NLP functions left to CasADi's virtual machine" in message
    assert reason in message and "\n" not in message
    assert problem.solver.get_function("nlp_jac_fg").class_name() == "SXFunction"
    x0 = np.zeros(6)
    prices = np.ones((HORIZON + 1, 2)), np.ones((HORIZON + 1, 3))
    reference = LocalProblem(spec, HORIZON)
    got = problem.solve(x0, *prices, problem.initial_guess(x0))
    expected = reference.solve(x0, *prices, reference.initial_guess(x0))
    assert got.success and np.array_equal(got.U, expected.U)


def _local_problems(controller: RendezvousController) -> list[LocalProblem]:
    mpc = controller.mpc
    return list((mpc.mpc if isinstance(mpc, DockingSupervisor) else mpc).problems.values())


def test_the_docking_demo_compiles_nothing(tmp_path, monkeypatch):
    """docking_mpc.toml (``make demo``) leaves compile_nlp at its default: its local problems
    keep CasADi's interpreted functions, no compiler runs and the cache folder stays empty."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def no_compiler(source, library):
        raise AssertionError("compiled")

    monkeypatch.setattr(compiled, "_build", no_compiler)
    config = load_scenario(DOCKING).controllers["rendezvous"]
    assert config.compile_nlp is False
    problems = _local_problems(RendezvousController("rendezvous", config))
    assert [p.spec.name for p in problems] == ["leader", "follower"]
    for problem in problems:
        assert problem.solver.get_function("nlp_jac_fg").class_name() == "SXFunction"
    assert list(tmp_path.iterdir()) == []


def test_compile_nlp_builds_each_vehicles_library_in_the_cache_folder(tmp_path, monkeypatch):
    """compile_nlp = true: each vehicle's solver calls its compiled functions, from one
    library per vehicle in ``$XDG_CACHE_HOME/murcosim/nlp``."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    config = load_scenario(DOCKING).controllers["rendezvous"]
    config = config.model_copy(update={"compile_nlp": True, "horizon": HORIZON})
    problems = _local_problems(RendezvousController("rendezvous", config))
    for problem in problems:
        assert problem.solver.get_function("nlp_jac_fg").class_name() == "External"
    libraries = sorted(p.name for p in (tmp_path / "murcosim" / "nlp").glob("*.so"))
    assert [name.split("_")[1] for name in libraries] == ["follower", "leader"]


def test_in_place_call_equals_an_ordinary_call():
    """Inputs written into the bound arrays, outputs read from them: the numbers of a call
    of the function; calls reuse the same arrays."""
    x, p = ca.SX.sym("x", 3), ca.SX.sym("p", 2)
    function = ca.Function(
        "f", [x, p], [ca.sin(x) * p[0] + p[1], ca.sumsqr(x)], ["x", "p"], ["y", "s"]
    )
    call = InPlaceCall(function)
    rng = np.random.default_rng(3)
    for _ in range(5):
        xs, ps = rng.normal(size=3), rng.normal(size=2)
        call.inputs["x"][:], call.inputs["p"][:] = xs, ps
        call()
        y, s = function(xs, ps)
        assert np.array_equal(call.outputs["y"], np.asarray(y).ravel())
        assert call.outputs["s"][0] == float(s)


def test_in_place_call_rejects_sparse_arguments():
    x = ca.SX.sym("x", 3)
    function = ca.Function("diagonal", [x], [ca.diag(x)])
    with pytest.raises(ValueError, match="diagonal: output 0 is sparse, expected dense"):
        InPlaceCall(function)
