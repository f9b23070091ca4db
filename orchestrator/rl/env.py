"""``ScenarioEnv``: a Gymnasium environment over a scenario, one control sample per step."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from orchestrator.errors import ScenarioError
from orchestrator.rl.batched import BatchedVectorEnv
from orchestrator.rl.draws import Draw
from orchestrator.rl.episodes import Bounds, Episodes, Signals
from orchestrator.rl.shared_fmus import SharedFMUs
from orchestrator.scenario.model import Scenario

Reward = Callable[[np.ndarray, np.ndarray, dict], float]


class ScenarioEnv(gymnasium.Env):
    """A scenario as a ``gymnasium.Env``: one step is one sample of the agent's command.

    ``observation``: signals read at every sample, as a list (unbounded) or a mapping to
    (low, high) bounds in the signals' units: FMU variables (``"rov.p[3]"``, m, NED depth;
    states, outputs, inputs), controller and sensor outputs (``"dvl.v[1]"``), joint signals
    (``"hinge.angle"``). Bounds are limits too: the episode terminates when a bounded signal
    leaves them (the observation returned is then clipped into its box).
    ``action``: signals held from one sample to the next, with finite (low, high) bounds
    (actions are clipped into them): free FMU inputs (``"t1.pwm"``, us) or signals of the
    agent's own, ``"<name>.<signal>"`` (``name`` default ``"agent"``), which the scenario's
    controllers read, e.g. a thrust allocation with ``command = "agent.tau"`` and the action
    ``agent.tau[1]`` ... ``agent.tau[6]`` (N, N m, body frame). The agent runs after the
    scenario's controllers at each sample, so it reads their outputs of that sample.

    ``reward(observation, action, info) -> float`` (0 when not given; the action as held,
    clipped), with ``info``
    ``{"time": s, "events": [(time, kind, detail), ...] since the last step}``.
    ``terminate_on``: event kinds that end the episode (``"dock"``), each one a part of the
    scenario logs (:mod:`orchestrator.rl.terminations`); an FMU's ``terminated`` always does;
    ``limits``: further signals (not observed) that end it outside their bounds.
    ``max_time`` (s): the episode's length (default: the scenario's stop time less its start
    time); reaching it truncates the episode. ``sample_time`` (s): the agent's sample time
    (default: the shortest of the scenario's controllers).

    ``reset(seed=...)`` draws the ``start`` values and ``parameters`` (keyed
    ``"<component>.<variable>"``: a number, :class:`Uniform`,
    :class:`Normal`, :class:`Choice` or a callable of a NumPy
    Generator) and each sensor's noise seed from the environment's generator, and starts a new
    run (the FMUs loaded once are kept, their instances reset in place: see
    :mod:`orchestrator.rl.episodes`), so one seed gives one episode. ``dtype``: of
    observations and actions (float32 as most learners expect). While the environment is
    open, NumPy's BLAS runs on one thread, as in a run. ``shared_fmus``: FMUs loaded once
    for several environments of a process (:class:`~orchestrator.rl.shared_fmus.SharedFMUs`,
    as :func:`vector_env` gives its environments; default: loaded for this one alone).
    """

    metadata = {"render_modes": []}  # noqa: RUF012 - Gymnasium's class attribute

    def __init__(
        self,
        scenario: Scenario | str | Path,
        observation: Signals,
        action: Signals,
        *,
        reward: Reward | None = None,
        terminate_on: Sequence[str] = (),
        limits: Bounds | None = None,
        max_time: float | None = None,
        sample_time: float | None = None,
        start: Mapping[str, Draw] | None = None,
        parameters: Mapping[str, Draw] | None = None,
        fmu_dir: str | Path | None = None,
        source: str | Path | None = None,
        name: str = "agent",
        dtype: type = np.float32,
        shared_fmus: SharedFMUs | None = None,
    ) -> None:
        from threadpoolctl import threadpool_limits

        self.episodes = Episodes(
            scenario,
            observation,
            action,
            limits=limits,
            terminate_on=terminate_on,
            sample_time=sample_time,
            max_time=max_time,
            start=start,
            parameters=parameters,
            fmu_dir=fmu_dir,
            source=source,
            name=name,
            shared_fmus=shared_fmus,
        )
        e = self.episodes
        low = np.array([b[0] for b in e.observation.values()])
        high = np.array([b[1] for b in e.observation.values()])
        self.observation_space = spaces.Box(low.astype(dtype), high.astype(dtype), dtype=dtype)
        self.action_space = spaces.Box(
            e.action_low.astype(dtype), e.action_high.astype(dtype), dtype=dtype
        )
        self.observation_names = list(e.observation)
        self.action_names = list(e.action)
        self._observed = len(low)
        if reward is not None and not callable(reward):
            raise ScenarioError(
                "reward: expected a function (observation, action, info) -> float, "
                f"got {type(reward).__name__}"
            )
        self._reward = reward
        self._dtype = dtype
        self.render_mode = None
        self._blas = threadpool_limits(limits=1, user_api="blas")

    def _observation(self) -> np.ndarray:
        """The observed signals of the last sample clipped into their box, a new array of
        ``dtype`` (the episode clips every bounded signal once, to check the bounds)."""
        return self.episodes.clipped[: self._observed].astype(self._dtype)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        """Start an episode (values drawn with ``seed``'s generator): the first observation
        and the info."""
        super().reset(seed=seed)
        _, info = self.episodes.begin(self.np_random)
        return self._observation(), info

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Hold ``action`` for one sample: observation, reward, terminated, truncated, info."""
        _, terminated, truncated, info = self.episodes.advance(action)
        observation = self._observation()
        if self._reward is None:
            return observation, 0.0, terminated, truncated, info
        reward = _number(self._reward(observation, self.episodes.held, info))
        return observation, reward, terminated, truncated, info

    def close(self) -> None:
        """Free the FMUs and give BLAS its threads back."""
        self.episodes.close()
        if self._blas is not None:
            self._blas.restore_original_limits()
            self._blas = None


def _number(reward: object) -> float:
    """The reward function's value as a float; a ValueError for anything but a finite
    number (a NaN reward would spoil the learner's estimates without a word)."""
    try:
        value = float(reward)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"reward: expected a number, got {reward!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"reward: expected a finite number, got {value}")
    return value


def vector_env(
    n: int, *args: object, workers: int | None = None, context: str | None = None, **kwargs: object
) -> BatchedVectorEnv:
    """``n`` :class:`ScenarioEnv` made with ``args`` and ``kwargs``, stepped in batches by
    ``workers`` processes (default: one per core, at most ``n``;
    :class:`~orchestrator.rl.batched.BatchedVectorEnv`), the environments of each process
    sharing its loaded FMUs (:class:`~orchestrator.rl.shared_fmus.SharedFMUs`); ``context``:
    the multiprocessing start method (default the platform's; with ``spawn`` a reward must
    pickle)."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n: expected a positive number of environments, got {n!r}")
    kwargs.setdefault("shared_fmus", SharedFMUs())
    make = partial(ScenarioEnv, *args, **kwargs)
    return BatchedVectorEnv([make] * n, workers=workers, context=context)
