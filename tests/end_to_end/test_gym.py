"""murcosim.gym: Gymnasium and PettingZoo environments over scenarios."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from conftest import ROOT

import murcosim
from murcosim.gym import (
    Choice,
    Normal,
    ScenarioEnv,
    StationFeatures,
    Uniform,
    VehicleAgentsEnv,
    station_keeping_env,
    vector_env,
)
from orchestrator.rl.station import (
    OBSERVATION,
    START,
    TAU_LIMIT,
    station_reward,
    station_scenario,
)

SCENARIOS = ROOT / "scenarios"
DOCKING = SCENARIOS / "docking_mpc.toml"
TAU = {f"[{i}]": (-40.0, 40.0) for i in range(1, 7)}


def station(fmu_dir, **options):
    return station_keeping_env(SCENARIOS, fmu_dir=fmu_dir, **options)


def docking_scenario() -> murcosim.Scenario:
    """docking_mpc without its rendezvous MPC: each vehicle's allocation adds the agents'
    command ``agents.<vehicle>_tau`` to its depth, roll and pitch hold."""
    scenario = murcosim.load_scenario(DOCKING)
    controllers = {n: c for n, c in scenario.controllers.items() if n != "rendezvous"}
    for vehicle in ("leader", "follower"):
        key = f"{vehicle}_allocation"
        command = [f"{vehicle}_hold.tau", f"agents.{vehicle}_tau"]
        controllers[key] = controllers[key].model_copy(update={"command": command})
    return scenario.model_copy(update={"controllers": controllers})


def agent_spec(vehicle: str) -> dict:
    observation = {f"{v}.p[{i}]": (-20.0, 20.0) for v in ("leader", "follower") for i in (1, 2)}
    observation |= {f"{vehicle}.q[{i}]": (-1.0, 1.0) for i in (1, 4)}
    observation |= {f"{vehicle}.nu[{i}]": (-5.0, 5.0) for i in (1, 2, 6)}
    return {
        "observation": observation,
        "action": {f"agents.{vehicle}_tau{k}": b for k, b in TAU.items()},
    }


COASTING_IN = {  # the follower 0.65 m behind the leader, closing at 0.2 m/s
    "follower.p[1]": -0.65,
    "follower.p[2]": 0.0,
    "follower.q[1]": 1.0,
    "follower.q[4]": 0.0,
    "follower.nu[1]": 0.2,
}


def docking_agents(fmu_dir, **options) -> VehicleAgentsEnv:
    return VehicleAgentsEnv(
        docking_scenario(),
        {v: agent_spec(v) for v in ("leader", "follower")},
        reward=lambda agent, obs, action, info: -float(np.hypot(obs[0] - obs[2], obs[1] - obs[3])),
        terminate_on=["dock"],
        source=DOCKING,
        fmu_dir=fmu_dir,
        **options,
    )


def episode(env, seed: int, steps: int, action=None) -> np.ndarray:
    observation, _ = env.reset(seed=seed)
    rows = [observation]
    for _ in range(steps):
        chosen = np.zeros(env.action_space.shape) if action is None else action
        observation, *_ = env.step(chosen)
        rows.append(observation)
    return np.array(rows)


def test_check_env_single_vehicle_and_docking(fmu_dir):
    """Gymnasium's checker passes (no error; its warnings are about scaling and rendering)
    for the station-keeping BlueROV2 Heavy and for the follower of the docking pair."""
    from gymnasium.utils.env_checker import check_env

    single = station(fmu_dir, max_time=2.0)
    follower = agent_spec("follower")
    docking = ScenarioEnv(
        docking_scenario(),
        follower["observation"],
        {f"agents.follower_tau{k}": b for k, b in TAU.items()}
        | {f"agents.leader_tau{k}": (-1.0, 1.0) for k in TAU},
        reward=lambda obs, action, info: -float(np.hypot(obs[0] - obs[2], obs[1] - obs[3])),
        terminate_on=["dock"],
        max_time=2.0,
        source=DOCKING,
        fmu_dir=fmu_dir,
        name="agents",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for env in (single, docking):
            check_env(env, skip_render_check=True)
            env.close()


def test_same_seed_same_episode_other_seed_another(fmu_dir):
    """The start values are drawn from the seed: the same seed gives the same observations
    bit for bit (also after other episodes), another seed other ones."""
    env = station(fmu_dir, max_time=2.0)
    push = np.array([10.0, -5.0, 20.0, 0.0, 0.0, 1.0])
    first = episode(env, 7, 20, push)
    other = episode(env, 8, 20, push)
    again = episode(env, 7, 20, push)
    env.close()
    assert np.array_equal(first, again)
    assert not np.allclose(first[0], other[0])
    assert np.ptp(first[:, 2]) > 1e-3  # the episode moves: depth changes under the push


def test_truncated_at_the_time_limit(fmu_dir):
    """max_time 1 s at 20 Hz: 20 steps, the last one truncated at t = 1 s, not before."""
    env = station(fmu_dir, max_time=1.0)
    env.reset(seed=0)
    ends = []
    for _ in range(20):
        _, reward, terminated, truncated, info = env.step(np.zeros(6))
        ends.append((terminated, truncated))
        assert reward < 0
    assert ends[-1] == (False, True) and not any(any(e) for e in ends[:-1])
    assert info["time"] == 1.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(6))
    env.close()


def test_terminated_when_a_signal_leaves_its_bounds(fmu_dir):
    """The vehicle is buoyant: left alone at 0.3 m it rises (towards its waterline), and its
    depth leaving the observation's bounds [0.2, 10] m ends the episode before the time limit,
    the observation clipped into its box."""
    env = ScenarioEnv(
        station_scenario(SCENARIOS, autopilot=False),
        {"rov.p[3]": (0.2, 10.0)},
        {f"agent.tau[{i}]": (-1.0, 1.0) for i in range(1, 7)},
        start={"rov.p[3]": 0.3},
        source=SCENARIOS / "bluerov2_heavy_single.toml",
        fmu_dir=fmu_dir,
        max_time=30.0,
    )
    env.reset(seed=0)
    for _ in range(600):
        observation, _, terminated, truncated, info = env.step(np.zeros(6))
        if terminated or truncated:
            break
    env.close()
    assert terminated and not truncated
    assert info["time"] < 30.0
    assert observation[0] == 0.2


def test_terminated_on_the_dock_event(fmu_dir):
    """PettingZoo: the follower, pushed gently (4 N surge) into the leader's stern port from
    0.65 m behind, docks within a second; the dock event ends the episode for both agents."""
    env = docking_agents(fmu_dir, max_time=5.0, start=COASTING_IN)
    env.reset(seed=0)
    push = {"leader": np.zeros(6, np.float32), "follower": np.array([4, 0, 0, 0, 0, 0], np.float32)}
    for _ in range(100):
        _, rewards, terminations, truncations, infos = env.step(push)
        if not env.agents:
            break
    env.close()
    assert terminations == {"leader": True, "follower": True}
    assert truncations == {"leader": False, "follower": False}
    assert "dock" in [event[1] for event in infos["leader"]["events"]]
    assert infos["leader"]["time"] < 1.0


def test_parallel_api_and_seeding_of_the_docking_agents(fmu_dir):
    """PettingZoo's parallel API test passes; one seed gives one episode."""
    from pettingzoo.test import parallel_api_test

    start = {"follower.p[1]": Uniform(-2.5, -1.5), "follower.p[2]": Uniform(-0.5, 0.5)}
    env = docking_agents(fmu_dir, max_time=1.0, start=start)
    parallel_api_test(env, num_cycles=25)
    first, _ = env.reset(seed=3)
    other, _ = env.reset(seed=4)
    again, _ = env.reset(seed=3)
    env.close()
    assert np.array_equal(first["leader"], again["leader"])
    assert first["follower"][2] != other["follower"][2]


def test_vector_env_steps_two_processes(fmu_dir):
    """Two environments in worker processes step together; their seeds give different
    starts."""
    envs = vector_env(
        2,
        station_scenario(SCENARIOS, False),
        OBSERVATION,
        {f"agent.tau[{i}]": (-b, b) for i, b in enumerate(TAU_LIMIT, start=1)},
        reward=station_reward,
        start=START,
        max_time=1.0,
        source=SCENARIOS / "bluerov2_heavy_single.toml",
        fmu_dir=fmu_dir,
    )
    try:
        observations, _ = envs.reset(seed=[1, 2])
        assert observations.shape == (2, len(OBSERVATION))
        assert not np.array_equal(observations[0], observations[1])
        for _ in range(5):
            observations, rewards, terminated, truncated, _ = envs.step(np.zeros((2, 6)))
        assert np.all(rewards < 0) and not terminated.any() and not truncated.any()
    finally:
        envs.close()


def test_bad_declarations_in_one_line(fmu_dir):
    """An unknown signal, a missing bound and a bad draw key are one line naming them."""
    path = SCENARIOS / "bluerov2_heavy_single.toml"
    cases = [
        ({"observation": {"rov.p[9]": (0, 1)}}, "p[9]"),
        ({"action": ["agent.x"]}, "action: 'agent.x': expected finite bounds"),
        ({"start": {"rv.p[1]": 1.0}}, "start: 'rv.p[1]'"),
    ]
    for change, expected in cases:
        arguments = {"observation": ["rov.p[3]"], "action": {"agent.x": (0, 1)}} | change
        with pytest.raises(murcosim.ScenarioError, match=expected.replace("[", r"\[")) as error:
            ScenarioEnv(path, fmu_dir=fmu_dir, **arguments)
        assert "\n" not in str(error.value)


def test_bad_draws_actions_and_rewards_are_refused_in_one_line(fmu_dir):
    """Distributions that cannot be drawn from, an action of the wrong shape or with a NaN
    (which would be held as the previous action), a reward that is no function or no finite
    number: one line each, never numpy's words or a silent NaN."""
    for draw, expected in [
        (lambda: Uniform(2.0, 1.0), "Uniform(low=2.0, high=1.0): expected finite numbers"),
        (lambda: Normal(1.0, -1.0), "Normal(mean=1.0, std=-1.0): expected a finite mean and"),
        (lambda: Choice([]), "Choice(values=[]): expected a list of one or more numbers"),
    ]:
        with pytest.raises(murcosim.ScenarioError, match=re.escape(expected)):
            draw()
    path = SCENARIOS / "bluerov2_heavy_single.toml"
    declared = {"observation": ["rov.p[3]"], "action": {"agent.x": (0.0, 1.0)}}
    with pytest.raises(murcosim.ScenarioError, match="reward: expected a function"):
        ScenarioEnv(path, fmu_dir=fmu_dir, reward=3.0, **declared)
    for action, reward, expected in [
        ([0.5, 0.5], None, "action: expected shape (1,), got (2,)"),
        (0.5, None, "action: expected shape (1,), got ()"),
        ([np.nan], None, "action: expected finite numbers"),
        ([0.5], lambda *_: float("nan"), "reward: expected a finite number, got nan"),
        ([0.5], lambda *_: "high", "reward: expected a number, got 'high'"),
    ]:
        env = ScenarioEnv(path, fmu_dir=fmu_dir, reward=reward, **declared)
        env.reset(seed=1)
        with pytest.raises(ValueError, match=re.escape(expected)):
            env.step(np.array(action, np.float32))
        env.close()


def test_station_features_by_hand(fmu_dir):
    """The learner's features of a vehicle 1 m north of the station (0, 0, 2) m heading east
    (q = [cos 45 deg, 0, 0, sin 45 deg]), surging at 0.25 m/s and turning at 0.1 rad/s: the
    station lies 1 m to its starboard (body y = +1 m, over 0.5 m: 2), the heading error is
    90 deg (pi/2 over 0.2 rad), the speeds over 0.5 m/s and 0.5 rad/s; a heading of 350 deg
    is an error of -10 deg, not 350."""
    env = StationFeatures(station(fmu_dir, max_time=1.0))
    c, s = np.cos(np.pi / 4), np.sin(np.pi / 4)
    east = np.array([1.0, 0.0, 2.0, c, 0.0, 0.0, s, 0.25, 0.0, 0.0, 0.0, 0.0, 0.1])
    expected = [0.0, 2.0, 0.0, 0.0, 0.0, np.pi / 2 / 0.2, 0.5, 0.0, 0.0, 0.0, 0.0, 0.2]
    assert np.allclose(env.observation(east), expected, atol=1e-6)
    half = np.radians(350.0) / 2
    west_of_north = np.array([0.0, 0.0, 2.0, np.cos(half), 0, 0, np.sin(half), 0, 0, 0, 0, 0, 0])
    assert env.observation(west_of_north)[5] == pytest.approx(np.radians(-10.0) / 0.2, abs=1e-5)
    assert env.observation_space.contains(env.observation(east))
    env.close()
