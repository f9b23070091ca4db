"""Run one FMU alone in libcosim, the Open Simulation Platform's engine (``libcosimpy``).

Meant to be run as a script in a process of its own, so that a crash of the engine cannot end
the test run and the engine's console log belongs to this FMU alone::

    python libcosim_run.py FMU STOP STEP INPUTS_JSON NAMES_JSON

It holds the inputs at the values given (set as their initial values), steps the fixed-step
master to STOP (s) every STEP (s), and prints one line on standard output: ``RESULT`` and
JSON, ``time`` (s) and ``values``, one row per communication point (the initial point
included) of the named variables. An FMU libcosim refuses gives
``{"refused": "<libcosim's error message>"}``. The other lines of standard output are
libcosim's log, FMI Library's messages among them (in whatever order the engine's stream and
Python's are flushed).
"""

from __future__ import annotations

import json
import sys

NANOSECONDS = 1_000_000_000  # libcosim counts time in integer nanoseconds
RESULT = "libcosim_run result: "  # the start of the line with the answer


def run(path: str, stop: float, step: float, inputs: dict[str, float], names: list[str]) -> dict:
    """The run of the module docstring, as the dictionary printed."""
    from libcosimpy._internal import get_last_error_message
    from libcosimpy.CosimEnums import CosimVariableType
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave

    log_output_level(CosimLogLevel.WARNING)  # FMI Library's errors and warnings, on stdout
    execution = CosimExecution.from_step_size(round(step * NANOSECONDS))
    slave = CosimLocalSlave(fmu_path=path, instance_name="model")
    if not slave.ptr():  # libcosimpy would pass the null slave on, and the engine would crash
        return {"refused": get_last_error_message()}
    index = execution.add_local_slave(slave)
    reference = {v.name.decode(): v.reference for v in execution.slave_variables(index)}
    for name, value in inputs.items():
        assert execution.real_initial_value(index, reference[name], value), name
    observer = CosimObserver.create_time_series()  # samples the initial point as step 0
    assert execution.add_observer(observer)
    for name in names:
        assert observer.start_time_series(index, reference[name], CosimVariableType.REAL), name
    steps = round(stop / step)
    assert execution.step(steps), get_last_error_message()
    times: list[float] = []
    columns = []
    for name in names:
        # libcosimpy drops one sample for each step number 0 it reads back (it takes 0 for an
        # empty slot): the initial point is read alone, from a buffer of two
        start = observer.time_series_real_samples(index, reference[name], 0, 2)
        rest = observer.time_series_real_samples(index, reference[name], 1, steps)
        times = [t / NANOSECONDS for t in start[0] + rest[0]]
        columns.append(start[2] + rest[2])
        assert len(times) == steps + 1, (name, len(times))
    return {"time": times, "values": [list(row) for row in zip(*columns, strict=True)]}


if __name__ == "__main__":
    fmu, stop_time, step_size, held, variables = sys.argv[1:]
    result = run(fmu, float(stop_time), float(step_size), json.loads(held), json.loads(variables))
    print(RESULT + json.dumps(result), flush=True)
