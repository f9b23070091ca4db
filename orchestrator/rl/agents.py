"""``VehicleAgentsEnv``: a PettingZoo parallel environment with one agent per vehicle."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from orchestrator.errors import ScenarioError
from orchestrator.rl.draws import Draw
from orchestrator.rl.episodes import Bounds, Episodes, Signals, signal_bounds
from orchestrator.scenario.model import Scenario

AgentReward = Callable[[str, np.ndarray, np.ndarray, dict], float]


class VehicleAgentsEnv(ParallelEnv):
    """A scenario as a PettingZoo ``ParallelEnv``: each agent (a vehicle) observes and acts on
    signals of its own, all at one sample time, in one run.

    ``agents`` maps each agent's name to ``{"observation": ..., "action": ...}``, declared as
    for :class:`~orchestrator.rl.env.ScenarioEnv` (agents may observe the same signal with the
    same bounds; no two act on one). Their actions are held by one command named ``name``, so
    signals of its own are ``"<name>.<signal>"``: ``"agents.leader_tau[1]"`` read by the
    leader's thrust allocation (``command = "agents.leader_tau"``). ``reward(agent,
    observation, action, info) -> float`` per agent (0 when not given). Every agent terminates
    together (an event of ``terminate_on`` such as ``"dock"``, an FMU's ``terminated``, a
    bounded signal of any agent or of ``limits`` out of its bounds) and is truncated together
    at ``max_time`` (s). ``reset(seed=...)`` draws ``start`` and ``parameters`` as
    ``ScenarioEnv`` does; one seed gives one episode.
    """

    metadata = {"name": "murcosim_vehicles", "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        scenario: Scenario | str | Path,
        agents: Mapping[str, Mapping[str, Signals]],
        *,
        reward: AgentReward | None = None,
        terminate_on: Sequence[str] = (),
        limits: Bounds | None = None,
        max_time: float | None = None,
        sample_time: float | None = None,
        start: Mapping[str, Draw] | None = None,
        parameters: Mapping[str, Draw] | None = None,
        fmu_dir: str | Path | None = None,
        source: str | Path | None = None,
        name: str = "agents",
        dtype: type = np.float32,
    ) -> None:
        if not agents:
            raise ScenarioError("agents: expected at least one agent")
        observed: dict[str, tuple[float, float]] = {}
        acted: dict[str, tuple[float, float]] = {}
        owner: dict[str, str] = {}
        declared = {}
        for agent, spec in agents.items():
            unknown = set(spec) - {"observation", "action"}
            if unknown or len(spec) != 2:
                raise ScenarioError(
                    f"agents.{agent}: expected the keys observation and action, got {list(spec)}"
                )
            obs = signal_bounds(spec["observation"], f"agents.{agent}.observation")
            act = signal_bounds(spec["action"], f"agents.{agent}.action", finite=True)
            for signal, bounds in obs.items():
                if observed.setdefault(signal, bounds) != bounds:
                    raise ScenarioError(
                        f"agents.{agent}.observation: '{signal}': other bounds than another "
                        f"agent's {observed[signal]}"
                    )
            for signal, bounds in act.items():
                if signal in owner:
                    raise ScenarioError(
                        f"agents.{agent}.action: '{signal}' is already an action of "
                        f"'{owner[signal]}'"
                    )
                owner[signal] = agent
                acted[signal] = bounds
            declared[agent] = (obs, act)
        self.episodes = Episodes(
            scenario,
            observed,
            acted,
            limits=limits,
            terminate_on=terminate_on,
            sample_time=sample_time,
            max_time=max_time,
            start=start,
            parameters=parameters,
            fmu_dir=fmu_dir,
            source=source,
            name=name,
        )
        observed_at = {s: k for k, s in enumerate(observed)}
        acted_at = {s: k for k, s in enumerate(acted)}
        self.possible_agents = list(agents)
        self.agents: list[str] = []
        self._obs_positions, self._act_positions = {}, {}
        self._observation_spaces, self._action_spaces = {}, {}
        for agent, (obs, act) in declared.items():
            self._obs_positions[agent] = np.array([observed_at[s] for s in obs], dtype=int)
            self._act_positions[agent] = np.array([acted_at[s] for s in act], dtype=int)
            self._observation_spaces[agent] = _box(obs.values(), dtype)
            self._action_spaces[agent] = _box(act.values(), dtype)
        self._reward = reward
        self._dtype = dtype
        self._rng = np.random.default_rng()
        self._action = np.zeros(len(acted))
        self.render_mode = None

    def observation_space(self, agent: str) -> spaces.Box:
        """The agent's observation space (the same object every call)."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Box:
        """The agent's action space (the same object every call)."""
        return self._action_spaces[agent]

    def _observations(self, signals: np.ndarray) -> dict[str, np.ndarray]:
        result = {}
        for agent in self.possible_agents:
            space = self._observation_spaces[agent]
            values = signals[self._obs_positions[agent]]
            result[agent] = np.clip(values, space.low, space.high).astype(self._dtype)
        return result

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, dict]]:
        """Start an episode (values drawn with ``seed``'s generator): observations and infos
        by agent."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        signals, info = self.episodes.begin(self._rng)
        self.agents = list(self.possible_agents)
        return self._observations(signals), {agent: dict(info) for agent in self.agents}

    def step(self, actions: Mapping[str, np.ndarray]) -> tuple[dict, dict, dict, dict, dict]:
        """Hold every agent's action (an agent left out keeps its last) for one sample:
        observations, rewards, terminations, truncations and infos by agent."""
        for agent, action in actions.items():
            self._action[self._act_positions[agent]] = np.asarray(action, dtype=float)
        signals, terminated, truncated, info = self.episodes.advance(self._action)
        observations = self._observations(signals)
        held = self.episodes.held
        rewards = {}
        for agent in self.agents:
            action = held[self._act_positions[agent]]
            rewards[agent] = (
                0.0
                if self._reward is None
                else float(self._reward(agent, observations[agent], action, info))
            )
        agents = self.agents
        terminations = dict.fromkeys(agents, terminated)
        truncations = dict.fromkeys(agents, truncated)
        infos = {agent: dict(info) for agent in agents}
        if terminated or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> None:
        """Nothing to draw (``murcosim replay`` shows recorded runs)."""

    def close(self) -> None:
        """Free the FMUs."""
        self.episodes.close()


def _box(bounds: object, dtype: type) -> spaces.Box:
    pairs = list(bounds)
    low = np.array([b[0] for b in pairs], dtype=dtype)
    high = np.array([b[1] for b in pairs], dtype=dtype)
    return spaces.Box(low, high, dtype=dtype)
