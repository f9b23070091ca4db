"""Station keeping of the BlueROV2 Heavy as a learning task, and the autopilot as its baseline.

The scenario is ``bluerov2_heavy_single`` (eight thruster FMUs, thrust allocation at 20 Hz)
with the agent's body-frame force ``agent.tau[1..6]`` (N, N m; bounds :data:`TAU_LIMIT`) as
the allocation's command. The vehicle starts within 0.5 m of the station (0, 0, 2) m (NED)
heading north, and should hold it: the reward per sample is the negative squared distance
(m^2) plus a heading term (rad^2), so 0 is perfect. The baseline is the same episode flown by
the scenario's depth-heading-speed autopilot (depth 2 m, heading 0, surge speed 0) with the
agent's command left at zero.
"""

from __future__ import annotations

import math
from pathlib import Path

import gymnasium
import numpy as np
from gymnasium import spaces

from orchestrator.kinematics import euler_angles, rotation_matrix, wrap_angle
from orchestrator.rl.draws import Uniform
from orchestrator.rl.env import ScenarioEnv
from orchestrator.scenario.model import AutopilotConfig, Scenario
from orchestrator.scenario.reading import load_scenario

STATION = (0.0, 0.0, 2.0)  # m, NED
TAU_LIMIT = (40.0, 40.0, 40.0, 10.0, 10.0, 10.0)  # N and N m, body frame
OBSERVATION = {
    **{f"rov.p[{i}]": (-20.0, 20.0) for i in (1, 2, 3)},  # m, NED
    **{f"rov.q[{i}]": (-1.0, 1.0) for i in (1, 2, 3, 4)},  # NED to body, scalar first
    **{f"rov.nu[{i}]": (-10.0, 10.0) for i in range(1, 7)},  # m/s and rad/s, body frame
}
START = {"rov.p[1]": Uniform(-0.5, 0.5), "rov.p[2]": Uniform(-0.5, 0.5)}
START["rov.p[3]"] = Uniform(1.5, 2.5)
_STATION = np.asarray(STATION)


def station_reward(observation: np.ndarray, action: np.ndarray, info: dict) -> float:
    """Negative squared distance to the station (m^2) and heading error (rad^2) at the
    sample; ``observation`` as :data:`OBSERVATION` orders it."""
    offset = observation[:3] - _STATION
    w, x, y, z = observation[3:7].tolist()
    heading = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return -float(offset @ offset) - heading * heading


def station_scenario(scenarios: Path, autopilot: bool) -> Scenario:
    """``bluerov2_heavy_single`` from the folder ``scenarios`` with the agent's command
    ``agent.tau`` into the allocation; with ``autopilot`` also the autopilot's command, the
    autopilot set to hold the station's depth and a north heading."""
    scenario = load_scenario(scenarios / "bluerov2_heavy_single.toml")
    controllers = dict(scenario.controllers)
    allocation = controllers.pop("allocation")
    pilot = controllers.pop("autopilot")
    if autopilot:
        assert isinstance(pilot, AutopilotConfig)
        hold = {"depth": STATION[2], "heading": 0.0, "surge_speed": 0.0}
        controllers["autopilot"] = pilot.model_copy(update=hold)
    command = ["autopilot.tau", "agent.tau"] if autopilot else "agent.tau"
    controllers["allocation"] = allocation.model_copy(update={"command": command})
    return scenario.model_copy(update={"controllers": controllers})


def station_keeping_env(
    scenarios: Path, autopilot: bool = False, max_time: float = 20.0, **options: object
) -> ScenarioEnv:
    """The station-keeping environment (``autopilot``: the baseline's, see the module);
    ``options`` go to :class:`ScenarioEnv` (``fmu_dir``, ``dtype``, ...)."""
    return ScenarioEnv(
        station_scenario(scenarios, autopilot),
        OBSERVATION,
        {f"agent.tau[{i}]": (-limit, limit) for i, limit in enumerate(TAU_LIMIT, start=1)},
        reward=station_reward,
        max_time=max_time,
        start=START,
        source=scenarios / "bluerov2_heavy_single.toml",
        **options,
    )


# Scales of the learner's features: the start spread of the position, a tilt and turn rate of
# a vehicle holding station, and the speeds of the autopilot's station keeping.
POSITION_SCALE = 0.5  # m
ANGLE_SCALE = 0.2  # rad
SPEED_SCALE = 0.5  # m/s
TURN_SCALE = 0.5  # rad/s


class StationFeatures(gymnasium.ObservationWrapper):
    """The station-keeping observation (:data:`OBSERVATION`, in SI units and NED) as
    dimensionless features of order one, as learners want them: the offset to the station in
    the body frame (R' (p_station - p), over :data:`POSITION_SCALE`), the roll, pitch and
    heading errors to level north (zyx Euler angles, rad, wrapped, over
    :data:`ANGLE_SCALE`), the body-frame linear and angular velocities (over
    :data:`SPEED_SCALE` and :data:`TURN_SCALE`); 12 values clipped to [-10, 10]."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.observation_space = spaces.Box(-10.0, 10.0, (12,), np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        """The features of one observation ordered as :data:`OBSERVATION`."""
        values = np.asarray(observation, dtype=float)
        p, q, nu = values[:3], values[3:7], values[7:13]
        offset = rotation_matrix(q).T @ (np.asarray(STATION) - p)
        angles = wrap_angle(euler_angles(q))
        features = np.concatenate(
            [
                offset / POSITION_SCALE,
                angles / ANGLE_SCALE,
                nu[:3] / SPEED_SCALE,
                nu[3:] / TURN_SCALE,
            ]
        )
        return np.clip(features, -10.0, 10.0).astype(np.float32)
