"""Dock, move, undock: two BlueROV2 Heavy, one coasting into the other's stern port.

Loads ``scenarios/dock_move_undock.toml``, moves the scheduled undocking to a chosen time
(an edited scenario object, run in memory), and reads the events and the weld's constraint
violation from the results.

    python examples/dock_and_undock.py           # 45 s run, undocking at 30 s
"""

from __future__ import annotations

import sys
from pathlib import Path

import murcosim

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "dock_move_undock.toml"


def main(stop_time: float = 45.0, undock_at: float = 30.0) -> murcosim.Results:
    """Run with the undocking at ``undock_at`` (s); print the topology events and the largest
    position error of the weld while docked."""
    scenario = murcosim.load_scenario(SCENARIO)
    edited = murcosim.edit(
        scenario,
        {
            "simulation": {"stop_time": stop_time},
            "events": [{"time": undock_at, "action": "undock", "joint": "dock"}],
        },
    )
    results = murcosim.run(edited, source=SCENARIO)
    events = results.events
    print(events[events.event.isin(["dock", "undock"])].to_string(index=False))
    error = results.timeseries["dock.position_error"].dropna()
    print(f"weld position error while docked: at most {error.abs().max():.2e} m")
    print(results.summary)
    return results


if __name__ == "__main__":
    main(*(float(a) for a in sys.argv[1:3]))
