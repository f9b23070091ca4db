"""Port batches: the Float64 ports of several instances read and written by one compiled call
give what the instances' own calls give, in FMI 2 and FMI 3; other types go one by one."""

from __future__ import annotations

import numpy as np
import pytest
from faulty import faulty_fmu
from foreign import spring_mass_fmu, typed_io_fmu

from orchestrator.errors import FMUError
from orchestrator.fmi.fmu import FMU
from orchestrator.native.transfer import PortBatch


@pytest.fixture(scope="module", params=["2.0", "3.0"])
def springs(request, tmp_path_factory):
    """Three initialized spring-mass instances (Model Exchange) of one FMI version."""
    folder = tmp_path_factory.mktemp(f"springs{request.param}")
    fmu = FMU(spring_mass_fmu(folder, ("ModelExchange",), request.param))
    instances = [fmu.instantiate(f"s{k}") for k in range(3)]
    for k, instance in enumerate(instances):
        instance.setup_experiment(0.0, 1.0)
        instance.set_start_values({"x": 1.0 + k, "v": -2.0 * k, "k": 10.0})
        instance.initialize(0.0)
    yield instances
    for instance in instances:
        instance.terminate()
    fmu.close()


def test_a_batch_writes_and_reads_what_the_instances_hold(springs):
    inputs = PortBatch([(s, s.port(["F", "x_other"])) for s in springs], write=True)
    inputs.values[:] = [1.5, -0.5, 2.5, 0.25, -3.0, 7.0]
    inputs.run()
    for k, s in enumerate(springs):  # read back by the instance's own call
        np.testing.assert_array_equal(s.read(s.port(["F", "x_other"])), inputs.values[2 * k :][:2])
    outputs = PortBatch([(s, s.port(["v", "x", "F_other"])) for s in springs], write=False)
    outputs.run()
    expected = np.concatenate([s.read(s.port(["v", "x", "F_other"])) for s in springs])
    np.testing.assert_array_equal(outputs.values, expected)
    np.testing.assert_array_equal(outputs.values[[1, 4, 7]], [1.0, 2.0, 3.0])  # x
    np.testing.assert_array_equal(outputs.values[[0, 3, 6]], [0.0, -2.0, -4.0])  # v
    # the ports share the batch's memory: a port's own read shows in the batch
    instance, port = outputs.ports[2]
    outputs.values[6:] = np.nan
    instance.read(port)
    np.testing.assert_array_equal(outputs.values[6:], expected[6:])


@pytest.mark.parametrize("function", ["fmi2GetReal", "fmi3GetFloat64"])
def test_a_failing_call_in_a_batch_names_the_instance_and_the_variables(tmp_path, function):
    """The second instance's GetReal returns an error: the batch stops there with the
    instance's name and the port's variables (as the instance's own read says it)."""
    (tmp_path / "ok").mkdir()
    healthy = FMU(spring_mass_fmu(tmp_path / "ok", ("ModelExchange",), function[3] + ".0"))
    faulty = FMU(faulty_fmu(tmp_path / "bad", function, "ERROR", 0))
    instances = [healthy.instantiate("good"), faulty.instantiate("bad")]
    try:
        for instance in instances:
            instance.setup_experiment(0.0, 1.0)
            instance.initialize(0.0)
        batch = PortBatch([(i, i.port(["x", "v"])) for i in instances], write=False)
        with pytest.raises(FMUError, match=r"^bad: get \['x', 'v'\] returned 'error'$"):
            batch.run()
    finally:
        for instance in instances:
            instance.terminate()
        healthy.close()
        faulty.close()


def test_ports_of_other_types_are_moved_one_by_one(tmp_path):
    fmu = FMU(typed_io_fmu(tmp_path))
    instance = fmu.instantiate("t")
    try:
        instance.setup_experiment(0.0, 1.0)
        instance.initialize(0.0)
        batch = PortBatch([(instance, instance.port(["u_Int16", "u_Float64"]))], write=True)
        batch.values[:] = [-7.0, 0.125]
        batch.run()
        read = PortBatch([(instance, instance.port(["u_Int16", "u_Float64"]))], write=False)
        read.run()
        np.testing.assert_array_equal(read.values, [-7.0, 0.125])
    finally:
        instance.terminate()
        fmu.close()
