"""A reset starts the next episode on the same FMU instances, reset in place (fmi3Reset), and
that episode equals, bit for bit, the one a new environment gives with the same seed."""

from __future__ import annotations

import numpy as np
import pytest
from foreign import spring_mass_fmu
from test_gym import COASTING_IN, SCENARIOS, docking_agents, episode, station

from murcosim.gym import Normal, ScenarioEnv, Uniform
from orchestrator.rl.station import station_scenario

PUSH = np.array([10.0, -5.0, 20.0, 0.0, 0.0, 1.0])  # N and N m, body frame
THRUSTER_DRAWS = {  # parameters of thrusters, which carry nothing mounted
    "t1.data.T_motor": Uniform(0.05, 0.2),  # s
    "t5.data.K_L": Normal(0.03123, 0.002),
}


def until_done(env, seed: int) -> np.ndarray:
    """Observations of the episode of ``seed`` with no thrust, to its end."""
    observation, _ = env.reset(seed=seed)
    rows = [observation]
    for _ in range(600):
        observation, _, terminated, truncated, _ = env.step(np.zeros(6))
        rows.append(observation)
        if terminated or truncated:
            break
    return np.array(rows)


def instances(env) -> list[object]:
    return list(env.episodes._run.system.instances.values())


def test_single_vehicle_episode_after_resets_equals_a_new_environments(fmu_dir):
    """Station keeping with start values and thruster parameters drawn: after a whole
    episode and one left after 10 steps, the episode of seed 3 runs on the instances of the
    first and equals a new environment's first episode of seed 3; the draws make seed 4's
    differ."""
    options = {"fmu_dir": fmu_dir, "max_time": 2.0, "parameters": THRUSTER_DRAWS}
    env = station(**options)
    assert env.episodes.restarts
    episode(env, 4, 40, PUSH)
    used = instances(env)
    episode(env, 5, 10, -PUSH)
    again = episode(env, 3, 40, PUSH)
    assert all(a is b for a, b in zip(instances(env), used, strict=True))
    env.close()
    fresh = station(**options)
    first = episode(fresh, 3, 40, PUSH)
    other = episode(fresh, 4, 40, PUSH)
    fresh.close()
    assert np.array_equal(first, again)
    assert not np.array_equal(first[1:], other[1:])


def test_episode_after_a_bounds_termination_equals_a_new_environments(fmu_dir):
    """Left alone at 0.3 m the buoyant vehicle rises out of the depth bounds [0.2, 10] m:
    the episode terminates early; the next one (start depth drawn) equals a new
    environment's."""

    def make() -> ScenarioEnv:
        return ScenarioEnv(
            station_scenario(SCENARIOS, autopilot=False),
            {"rov.p[3]": (0.2, 10.0), "rov.nu[3]": (-5.0, 5.0)},
            {f"agent.tau[{i}]": (-1.0, 1.0) for i in range(1, 7)},
            start={"rov.p[3]": Uniform(0.25, 0.35)},
            source=SCENARIOS / "bluerov2_heavy_single.toml",
            fmu_dir=fmu_dir,
            max_time=30.0,
        )

    env = make()
    ended = until_done(env, 1)
    assert ended[-1][0] == 0.2 and len(ended) < 600  # clipped at its bound: terminated
    used = instances(env)
    after = until_done(env, 2)
    assert all(a is b for a, b in zip(instances(env), used, strict=True))
    env.close()
    fresh = make()
    first = until_done(fresh, 2)
    fresh.close()
    assert np.array_equal(first, after)


def test_docking_episode_after_a_dock_equals_a_new_environments(fmu_dir):
    """PettingZoo docking pair: an episode that ends on the dock event (the weld added to the
    coupling), then one with the follower's start drawn: it equals a new environment's
    first episode of that seed, for both agents."""
    start = COASTING_IN | {"follower.p[2]": Uniform(-0.05, 0.05)}
    push = {"leader": np.zeros(6, np.float32), "follower": np.array([4, 0, 0, 0, 0, 0], np.float32)}

    def run(env, seed: int) -> tuple[dict, list[str]]:
        observations, _ = env.reset(seed=seed)
        rows = {agent: [observations[agent]] for agent in observations}
        kinds = []
        for _ in range(40):
            observations, _, _, _, infos = env.step(push)
            for agent, observation in observations.items():
                rows[agent].append(observation)
            kinds += [event[1] for info in infos.values() for event in info["events"]]
            if not env.agents:
                break
        return {agent: np.array(r) for agent, r in rows.items()}, kinds

    env = docking_agents(fmu_dir, max_time=2.0, start=start)
    _, kinds = run(env, 0)
    assert "dock" in kinds
    used = instances(env)
    after, _ = run(env, 1)
    assert all(a is b for a, b in zip(instances(env), used, strict=True))
    env.close()
    fresh = docking_agents(fmu_dir, max_time=2.0, start=start)
    first, _ = run(fresh, 1)
    fresh.close()
    assert first.keys() == after.keys() == {"leader", "follower"}
    for agent in first:
        assert np.array_equal(first[agent], after[agent])


def test_a_drawn_parameter_of_a_vehicle_with_mounts_builds_the_system_anew(fmu_dir):
    """The vehicle's mass drawn: its thrusters' mounts were read from its parameters when the
    system was assembled, so each episode gets new instances; the episodes still equal a new
    environment's."""
    options = {"fmu_dir": fmu_dir, "max_time": 1.0, "parameters": {"rov.data.m": Uniform(12, 14)}}
    env = station(**options)
    episode(env, 4, 20, PUSH)
    used = instances(env)
    again = episode(env, 3, 20, PUSH)
    assert not any(a is b for a, b in zip(instances(env), used, strict=True))
    env.close()
    fresh = station(**options)
    first = episode(fresh, 3, 20, PUSH)
    fresh.close()
    assert np.array_equal(first, again)


@pytest.mark.parametrize("version", ["2.0", "3.0"])
def test_an_fmu_whose_reset_fails_gets_new_instances(tmp_path, version):
    """The foreign spring-mass FMU answers fmi2Reset/fmi3Reset with an error: the environment
    finds so when it is made and builds every episode anew; with the start position and the
    stiffness drawn, the episode after others equals a new environment's."""
    fmu = spring_mass_fmu(tmp_path, ("ModelExchange",), version)
    scenario = tmp_path / "spring.toml"
    scenario.write_text(
        f'[simulation]\nstop_time = 1.0\noutput_interval = 0.1\n[components.mass]\nfmu = "{fmu}"\n'
    )

    def make() -> ScenarioEnv:
        return ScenarioEnv(
            scenario,
            ["mass.x", "mass.v"],
            {"mass.F": (-1.0, 1.0)},
            sample_time=0.1,
            start={"mass.x": Uniform(-1.0, 1.0)},
            parameters={"mass.k": Uniform(1.0, 2.0)},
            dtype=np.float64,
        )

    env = make()
    assert not env.episodes.restarts
    episode(env, 4, 10, np.array([0.5]))
    used = instances(env)
    again = episode(env, 3, 10, np.array([0.5]))
    assert not any(a is b for a, b in zip(instances(env), used, strict=True))
    env.close()
    fresh = make()
    first = episode(fresh, 3, 10, np.array([0.5]))
    fresh.close()
    assert np.array_equal(first, again)
    assert np.ptp(first[:, 0]) > 0.01  # the spring moves the mass
