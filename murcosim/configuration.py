"""The building blocks of a scenario, as pydantic models: one class per table of a scenario file.

``Scenario`` holds a run's ``Simulation`` (time span, integrator, recording), its
``Environment`` (ocean current), ``Component`` FMU instances, ``Connection`` signals, the
controllers (``AutopilotConfig``, ``AllocationConfig``, ``ScheduleConfig``,
``RendezvousConfig``, ``JointPIDConfig``, ``VehiclePDConfig``, ``PointingConfig``), joints and
motors (``JointConfig``, ``MotorConfig``), docking pairs (``DockingConfig``), scheduled events
(``EventConfig``), the constraint solver (``CouplingConfig``) and weak coupling
(``CoSimulationConfig``), and the sensors (``ImuConfig``, ``DvlConfig``,
``PressureDepthConfig``, ``AhrsConfig``, ``UsblConfig``, ``FiducialCameraConfig``). Every key,
its unit and its default are in ``docs/scenario-reference.md``; the same classes are
importable from ``murcosim`` itself (``murcosim.Scenario``). Values are validated when a model
is built; ``murcosim.edit`` changes a scenario with the same checks.

    from murcosim.configuration import Component, Scenario, Simulation
    scenario = Scenario(
        simulation=Simulation(stop_time=10.0),
        components={"rov": Component(fmu="BlueROV2Heavy")},
    )
"""

from orchestrator.scenario.model import (
    AllocationConfig,
    AutopilotConfig,
    Component,
    Connection,
    CoSimulationConfig,
    CouplingConfig,
    DockingConfig,
    Environment,
    EventConfig,
    JointConfig,
    JointPIDConfig,
    MotorConfig,
    PointingConfig,
    RendezvousConfig,
    Scenario,
    ScheduleConfig,
    ScheduleStep,
    Simulation,
    VehiclePDConfig,
)
from orchestrator.scenario.sensors import (
    AhrsConfig,
    DvlConfig,
    FiducialCameraConfig,
    ImuConfig,
    PressureDepthConfig,
    UsblConfig,
)

__all__ = [
    "AhrsConfig",
    "DvlConfig",
    "FiducialCameraConfig",
    "ImuConfig",
    "PressureDepthConfig",
    "UsblConfig",
    "AllocationConfig",
    "AutopilotConfig",
    "CoSimulationConfig",
    "Component",
    "Connection",
    "CouplingConfig",
    "DockingConfig",
    "Environment",
    "EventConfig",
    "JointConfig",
    "JointPIDConfig",
    "MotorConfig",
    "PointingConfig",
    "RendezvousConfig",
    "Scenario",
    "ScheduleConfig",
    "ScheduleStep",
    "Simulation",
    "VehiclePDConfig",
]
