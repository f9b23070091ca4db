"""A parameter study: the depth loop's proportional gain against overshoot and settling.

Each run is the single-vehicle scenario with another ``gains.depth.kp`` of the autopilot,
run in memory; the results are collected into one pandas table.

    python examples/parameter_study.py          # kp 30, 60, 120 N/m over 40 s
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

import murcosim

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "bluerov2_heavy_single.toml"


def settling_time(depth: pd.Series, target: float, band: float) -> float:
    """First time (s) after which ``depth`` stays within ``band`` (m) of ``target``; NaN if
    it never does."""
    outside = (depth - target).abs() > band
    if not outside.any():
        return float(depth.index[0])
    last = outside[outside].index[-1]
    after = depth.index[depth.index > last]
    return float(after[0]) if len(after) else float("nan")


def main(stop_time: float = 40.0, gains: tuple[float, ...] = (30.0, 60.0, 120.0)) -> pd.DataFrame:
    """One run per depth gain ``kp`` (N/m); a table of overshoot (m) and 5 cm settling (s)."""
    base = murcosim.load_scenario(SCENARIO)
    target = base.controllers["autopilot"].depth
    rows = []
    for kp in gains:
        scenario = murcosim.edit(
            base,
            {
                "simulation": {"stop_time": stop_time},
                "controllers": {"autopilot": {"gains": {"depth": {"kp": kp}}}},
            },
        )
        depth = murcosim.run(scenario, source=SCENARIO, progress=False).timeseries["rov.p[3]"]
        rows.append(
            {
                "kp": kp,
                "overshoot_m": max(depth.max() - target, 0.0),
                "settling_s": settling_time(depth, target, 0.05),
                "final_depth_m": depth.iloc[-1],
            }
        )
    table = pd.DataFrame(rows).set_index("kp")
    print(table.to_string(float_format="{:.3f}".format))
    return table


if __name__ == "__main__":
    main(*(float(a) for a in sys.argv[1:2]))
