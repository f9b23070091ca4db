"""The compiled Dormand-Prince integrator steps groups of instances that share no signal one
after the other (all stages of one vehicle and its thrusters, then the next vehicle): the
states, step sizes and counts are those of stepping the whole system stage by stage, bit for
bit."""

from __future__ import annotations

import numpy as np
import pytest
import tomli_w

from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System
from studies.bench_swarm import swarm_document

VEHICLES = 3
TOLERANCES = (1e-6, 1e-6, 0.05)  # rtol, atol, largest step (s)


@pytest.fixture
def swarm(fmu_dir, tmp_path):
    """Three vehicles with their thrusters, each moving (random body velocities) and each
    thruster spinning down from a random speed (its lag state)."""
    path = tmp_path / "swarm.toml"
    path.write_text(tomli_w.dumps(swarm_document(VEHICLES, 1.0)), encoding="utf-8")
    system = System(load_scenario(path), str(path), fmu_dir)
    x0 = system.initialize(0.0, (0.0, 0.0, 0.0))
    rng = np.random.default_rng(7)
    for instance, part in system._slices:
        if "_t" in instance.name:  # a thruster: its lagged speed
            x0[part] = rng.normal(size=part.stop - part.start)
        else:  # a vehicle: p, q, nu
            x0[part.start + 7 : part.stop] = 0.3 * rng.normal(size=6)
    yield system, x0
    system.close()


def _integrate(system: System, x0: np.ndarray, post) -> tuple[list[np.ndarray], tuple]:
    """States at 0.1, 0.2, ... 1 s (dense output); right-hand sides, accepted and rejected
    steps taken for them; the time reached and the next trial step."""
    compiled = system.compiled
    before = np.array([compiled.evaluations, *compiled.steps])
    compiled.dopri_reset(0.0, x0.copy(), 1e-3)
    states = []
    for target in np.linspace(0.1, 1.0, 10):
        out = np.zeros_like(x0)
        compiled.dopri_advance(float(target), 1.0, out, TOLERANCES, post)
        states.append(out)
    counts = np.array([compiled.evaluations, *compiled.steps]) - before
    return states, (*counts.tolist(), compiled.dopri_state())


def test_groups_stepped_one_after_the_other_equal_the_whole_system(swarm):
    """Without a post-process the vehicles are stepped group by group; a post-process that
    changes nothing makes the kernel step the whole system stage by stage. Every state at
    every output time, the step count, the rejections and the next step size agree bit for
    bit, and the vehicles moved (the comparison is not of states at rest)."""
    system, x0 = swarm
    grouped, grouped_counts = _integrate(system, x0, None)
    whole, whole_counts = _integrate(system, x0, lambda x, dx: None)
    for a, b in zip(grouped, whole, strict=True):
        assert np.array_equal(a, b)
    assert grouped_counts == whole_counts
    assert grouped_counts[0] > 6 * 10
    thrusters = [part for instance, part in system._slices if "_t" in instance.name]
    for states in (slice(None), *thrusters):  # everything moved, every thruster too
        assert np.abs(grouped[-1][states] - x0[states]).max() > 1e-3
