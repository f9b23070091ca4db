"""Station keeping learned with SAC (stable-baselines3, CPU) against the built-in autopilot.

A BlueROV2 Heavy with eight thrusters starts within 0.5 m of the station (0, 0, 2) m (NED),
at rest, heading north, and should hold it for 20 s (``murcosim.gym.station_keeping_env``).
The policy commands the thrust allocation's body-frame force at 20 Hz: its action in
[-1, 1]^6 is mapped to the force limits (40 N, 10 N m), and it observes 12 dimensionless
features (``murcosim.gym.StationFeatures``: the offset to the station in the body frame,
roll, pitch and heading errors, body velocities, each over a scale of its own). It learns from
scratch, with no controller underneath; the vehicle is buoyant, so it must learn to push
down as well. Soft Actor-Critic (Haarnoja, Zhou, Abbeel and Levine, "Soft Actor-Critic:
Off-Policy Maximum Entropy Deep Reinforcement Learning with a Stochastic Actor", ICML 2018)
with stable-baselines3's defaults except a smaller network (two layers of 128), a discount
of 0.98 (a horizon of ~2.5 s at 20 Hz) and 2,000 random steps before learning.

The score of an episode is its return: the sum over its 400 samples of minus the squared
distance to the station (m^2) and minus the squared heading error (rad^2), so 0 is perfect.
After training, the learned policy (deterministic), the scenario's depth-heading-speed
autopilot (holding 2 m depth, heading north, zero surge speed, through the same allocation)
and a random policy (uniform actions) fly the same 10 evaluation episodes (seeds 1000 to
1009, not seen in training); the mean and standard deviation of their scores are printed.
The autopilot holds depth and heading but not the horizontal position (it has no position
loop): its score is almost all the start's horizontal offset, kept for the 400 samples.

Measured with ``python examples/station_keeping_rl.py`` (60,000 training steps, seed 0;
10 min of CPU time on one core, 38 min of wall time on a shared two-core machine):

    policy         -32.0 +- 10.2
    autopilot      -79.2 +- 51.2
    random       -2223.4 +- 642.6

    python examples/station_keeping_rl.py                 # 60,000 steps (minutes)
    python examples/station_keeping_rl.py --steps 20000
    python examples/station_keeping_rl.py --smoke         # a few hundred steps (seconds)

Needs the ``rl`` extra (``pip install -e '.[rl]'``: stable-baselines3 and torch).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import gymnasium
import numpy as np
from gymnasium.wrappers import RescaleAction

from murcosim.gym import StationFeatures, station_keeping_env

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
EVALUATION_SEEDS = range(1000, 1010)


def station_task(autopilot: bool = False, max_time: float = 20.0) -> gymnasium.Env:
    """The learner's view of the task: actions in [-1, 1] mapped to the force limits,
    dimensionless features; ``autopilot``: the autopilot's command added underneath."""
    env = station_keeping_env(SCENARIOS, autopilot=autopilot, max_time=max_time)
    unit = np.ones(6, dtype=np.float32)
    return StationFeatures(RescaleAction(env, -unit, unit))


def scores(env: gymnasium.Env, act: Callable[[np.ndarray], np.ndarray], seeds: range) -> np.ndarray:
    """The return of one episode per seed, actions from ``act(observation)``."""
    returns = []
    for seed in seeds:
        observation, _ = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(act(observation))
            total += reward
            done = terminated or truncated
        returns.append(total)
    env.close()
    return np.array(returns)


def main(
    steps: int = 60_000,
    seeds: range = EVALUATION_SEEDS,
    max_time: float = 20.0,
    learning_starts: int = 2_000,
) -> dict[str, np.ndarray]:
    """Train ``steps`` environment steps, then score the policy, the autopilot and a random
    policy over one episode per evaluation seed; prints and returns the scores by name."""
    import torch
    from stable_baselines3 import SAC

    torch.set_num_threads(1)  # small networks: one thread is the fastest
    model = SAC(
        "MlpPolicy",
        station_task(max_time=max_time),
        learning_starts=learning_starts,
        gamma=0.98,
        policy_kwargs={"net_arch": [128, 128]},
        seed=0,
    )
    model.learn(total_timesteps=steps)
    model.get_env().close()
    rng = np.random.default_rng(0)
    results = {
        "policy": scores(
            station_task(max_time=max_time),
            lambda o: model.predict(o, deterministic=True)[0],
            seeds,
        ),
        "autopilot": scores(
            station_task(autopilot=True, max_time=max_time),
            lambda o: np.zeros(6, dtype=np.float32),
            seeds,
        ),
        "random": scores(
            station_task(max_time=max_time),
            lambda o: rng.uniform(-1.0, 1.0, 6).astype(np.float32),
            seeds,
        ),
    }
    print(f"trained {steps} steps; score over {len(seeds)} episodes of {max_time:g} s (0 is best):")
    for name, values in results.items():
        print(f"  {name:<10} {values.mean():9.1f} +- {values.std():.1f}")
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60_000, help="training steps")
    parser.add_argument("--smoke", action="store_true", help="a short run (CI)")
    args = parser.parse_args()
    if args.smoke:
        main(steps=300, seeds=range(1000, 1002), max_time=2.0, learning_starts=100)
    else:
        main(steps=args.steps)
