"""Station keeping learned with PPO (stable-baselines3, CPU) against the built-in autopilot.

A BlueROV2 Heavy with eight thrusters starts within 0.5 m of the station (0, 0, 2) m and
should hold it for 20 s; the policy gives the thrust allocation its body-frame force command
at 20 Hz (``murcosim.gym.station_keeping_env``). After training, the policy and the
scenario's depth-heading autopilot fly the same evaluation episodes (same seeds, same start
states) and their mean returns are printed (0 is perfect: the reward is the negative
squared distance in m^2 plus the squared heading error in rad^2, summed over the samples).

    python examples/station_keeping_rl.py                 # 200,000 steps (minutes)
    python examples/station_keeping_rl.py --steps 50000
    python examples/station_keeping_rl.py --smoke         # a few hundred steps (seconds)

Needs the ``rl`` extra (``pip install -e '.[rl]'``: stable-baselines3 and torch).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from gymnasium.wrappers import RescaleAction

from murcosim.gym import station_keeping_env

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
UNIT = np.ones(6, dtype=np.float32)  # the policy's actions, scaled to the force bounds


def mean_return(env: object, act: object, seeds: range) -> float:
    """Mean return over one episode per seed, actions from ``act(observation)``."""
    returns = []
    for seed in seeds:
        observation, _ = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(act(observation))
            total += reward
            done = terminated or truncated
        returns.append(total)
    return float(np.mean(returns))


def main(steps: int = 200_000, episodes: int = 10, max_time: float = 20.0) -> dict[str, float]:
    """Train ``steps`` environment steps, then evaluate policy and autopilot over
    ``episodes`` seeds; returns and prints both mean returns."""
    import torch
    from stable_baselines3 import PPO

    torch.set_num_threads(1)  # small networks: one thread is the fastest
    train = RescaleAction(station_keeping_env(SCENARIOS, max_time=max_time), -UNIT, UNIT)
    model = PPO("MlpPolicy", train, n_steps=min(2048, steps), batch_size=64, seed=0, verbose=0)
    model.learn(total_timesteps=steps)
    train.close()
    seeds = range(1000, 1000 + episodes)  # not the training seeds
    learned = RescaleAction(station_keeping_env(SCENARIOS, max_time=max_time), -UNIT, UNIT)
    policy = mean_return(learned, lambda o: model.predict(o, deterministic=True)[0], seeds)
    learned.close()
    baseline = station_keeping_env(SCENARIOS, autopilot=True, max_time=max_time)
    autopilot = mean_return(baseline, lambda o: np.zeros(6, dtype=np.float32), seeds)
    baseline.close()
    print(f"trained {steps} steps; mean return over {episodes} episodes of {max_time:g} s:")
    print(f"  policy    {policy:10.2f}")
    print(f"  autopilot {autopilot:10.2f}")
    return {"policy": policy, "autopilot": autopilot}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000, help="training steps")
    parser.add_argument("--episodes", type=int, default=10, help="evaluation episodes")
    parser.add_argument("--smoke", action="store_true", help="a short run (CI)")
    args = parser.parse_args()
    if args.smoke:
        main(steps=256, episodes=1, max_time=2.0)
    else:
        main(steps=args.steps, episodes=args.episodes)
