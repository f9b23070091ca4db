"""What a run records: the ``record`` patterns select among every state, input, time-varying
output, controller output and joint column, and a pattern that selects nothing is one line
naming it and the closest names; an output the FMU declares continuous is time-varying
whatever its dependencies (``dependencies=""`` names no state or input, not no time)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from event_fmus import counter_fmu

from orchestrator.errors import ScenarioError
from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario


def run_counter(tmp_path: Path, record: str) -> dict[str, np.ndarray]:
    """Run the counter FMU (count, and clock = time with ``dependencies=""``) to 2 s with the
    top-level line ``record``; its columns."""
    path = tmp_path / "counter.toml"
    path.write_text(
        f"""{record}
[simulation]
stop_time = 2.0
output_interval = 0.5
[components.it]
fmu = "{counter_fmu(tmp_path, "3.0").as_posix()}"
"""
    )
    run_scenario(path, tmp_path / "out", tmp_path, plots=False)
    return read_timeseries(tmp_path / "out" / "timeseries.csv")


@pytest.mark.parametrize("record", ["", 'record = ["it.clock"]'], ids=["default", "pattern"])
def test_continuous_output_without_dependencies_is_recorded(tmp_path, record):
    """clock is a continuous output that depends on no state or input: recorded by default and
    when a pattern asks for it, and it follows the time."""
    data = run_counter(tmp_path, record)
    np.testing.assert_array_equal(data["it.clock"], data["time"])


def test_record_pattern_selecting_nothing_names_it_and_the_closest_names(tmp_path):
    """A misspelt pattern is one line naming the file, the key, the pattern and the recordable
    names closest to it, instead of a run without that column."""
    with pytest.raises(ScenarioError) as refused:
        run_counter(tmp_path, 'record = ["it.count", "it.clok*"]')
    message = str(refused.value)
    assert message.startswith(f"{tmp_path / 'counter.toml'}: record: 'it.clok*' matches no ")
    assert message.endswith("; closest: it.clock, it.count")
    assert "\n" not in message
