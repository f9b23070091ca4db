"""A single BlueROV2 Heavy built in code, without a scenario file.

The vehicle and its eight T-200 thrusters are FMU instances; a depth, heading and surge-speed
autopilot gives a body-frame force command that the thrust allocation turns into ESC pulse
widths. A callback watches the depth at the communication points while the run goes.

    python examples/single_vehicle.py          # 60 s, prints the final depth, heading, speed
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import murcosim

FMUS = Path(__file__).resolve().parents[1] / "fmus"  # built by `murcosim build`


def bluerov2_heavy(stop_time: float) -> murcosim.Scenario:
    """Vehicle ``rov`` with thrusters ``t1``..``t8``: 2 m depth, heading 45 deg, 0.5 m/s."""
    components = {"rov": murcosim.Component(fmu="BlueROV2Heavy", start={"p[3]": 0.5})}
    for slot in range(1, 9):
        components[f"t{slot}"] = murcosim.Component(fmu="LaggedThruster", mount="rov", slot=slot)
    return murcosim.Scenario(
        description="BlueROV2 Heavy, autopilot and thrust allocation, built in Python",
        simulation=murcosim.Simulation(stop_time=stop_time, output_interval=0.1, step=0.05),
        components=components,
        controllers={
            "autopilot": murcosim.AutopilotConfig(
                type="depth_heading_speed",
                sample_time=0.05,
                vehicle="rov",
                depth=2.0,
                heading=45.0,
                surge_speed=0.5,
            ),
            "allocation": murcosim.AllocationConfig(
                type="thrust_allocation", sample_time=0.05, vehicle="rov", command="autopilot.tau"
            ),
        },
    )


def main(stop_time: float = 60.0) -> murcosim.Results:
    """Run the vehicle; print the deepest point seen by the callback and the final state."""
    deepest = [0.0]

    def watch(time: float, probe: murcosim.Probe) -> None:
        deepest[0] = max(deepest[0], probe["rov.p[3]"])

    results = murcosim.run(bluerov2_heavy(stop_time), fmu_dir=FMUS, callback=watch)
    final = results.timeseries.iloc[-1]
    w, x, y, z = (final[f"rov.q[{i}]"] for i in range(1, 5))
    heading = np.degrees(np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))
    print(f"deepest {deepest[0]:.3f} m")
    print(
        f"at {results.timeseries.index[-1]:g} s: depth {final['rov.p[3]']:.3f} m, "
        f"heading {heading:.2f} deg, surge {final['rov.nu[1]']:.3f} m/s"
    )
    return results


if __name__ == "__main__":
    main(*(float(a) for a in sys.argv[1:2]))
