"""Reinforcement-learning environments over scenarios (Gymnasium and PettingZoo).

:class:`ScenarioEnv` is a ``gymnasium.Env`` over any scenario: declared observation and
action signals with bounds, one step per control sample, a reward of your own,
terminated on events and limits, truncated at a time limit, and ``reset(seed=...)`` drawing
start values and parameters from distributions (:class:`Uniform`, :class:`Normal`,
:class:`Choice`). :func:`vector_env` runs several in worker processes, each stepping a batch
of them per message (:class:`BatchedVectorEnv`), the environments of a process sharing their
loaded FMUs (:class:`SharedFMUs`);
:class:`VehicleAgentsEnv` is a PettingZoo parallel environment with one agent per vehicle.

    from murcosim.gym import ScenarioEnv, Uniform
    env = ScenarioEnv(
        "scenarios/bluerov2_heavy_station.toml",
        observation={"rov.p[1]": (-5, 5), "rov.p[2]": (-5, 5), "rov.p[3]": (-1, 6)},
        action={f"agent.tau[{i}]": (-40, 40) for i in range(1, 7)},
        reward=lambda obs, action, info: -float(abs(obs).sum()),
        start={"rov.p[1]": Uniform(-1, 1)},
        max_time=20.0,
    )
    observation, info = env.reset(seed=1)

The run underneath is the master of ``murcosim.run`` paused at each of the agent's samples
(:meth:`orchestrator.master.master.Master.steps`): the same arithmetic, the controllers and sensors
of the scenario run as in a plain run, nothing is recorded.
"""

from orchestrator.rl.agents import VehicleAgentsEnv
from orchestrator.rl.batched import BatchedVectorEnv
from orchestrator.rl.draws import Choice, Normal, Uniform
from orchestrator.rl.env import ScenarioEnv, vector_env
from orchestrator.rl.shared_fmus import SharedFMUs
from orchestrator.rl.station import StationFeatures, station_keeping_env

__all__ = [
    "BatchedVectorEnv",
    "Choice",
    "Normal",
    "ScenarioEnv",
    "SharedFMUs",
    "StationFeatures",
    "Uniform",
    "VehicleAgentsEnv",
    "station_keeping_env",
    "vector_env",
]
