"""The order of a right-hand side's reads and writes: a swarm's go vehicle by vehicle."""

from __future__ import annotations

import tomli_w

from orchestrator.scenario.reading import load_scenario
from orchestrator.system.system import System
from studies.bench_swarm import swarm_document


def test_a_swarms_reads_and_writes_go_vehicle_by_vehicle(fmu_dir, tmp_path):
    """Three vehicles, each with eight thrusters: each vehicle's reads and writes (its own and
    its thrusters') are contiguous, in the order of the vehicles, and within a vehicle every
    write follows the reads of the instances it takes values from."""
    path = tmp_path / "swarm.toml"
    path.write_text(tomli_w.dumps(swarm_document(3, 1.0)), encoding="utf-8")
    system = System(load_scenario(path), str(path), fmu_dir)
    try:
        order = system._order_connections()
        owners = [instance.name.partition("_")[0] for _, instance, _ in order]
        assert owners == sorted(owners, key=["rov0", "rov1", "rov2"].index)
        assert len(order) == 3 * 18  # per vehicle: its read and write, its thrusters' 16
        read = set()
        for kind, _, flow in order:
            if kind == "read":
                read.add(id(flow))
            else:
                assert all(id(term[0]) in read for term in flow.terms)
    finally:
        system.close()
