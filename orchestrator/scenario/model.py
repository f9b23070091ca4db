"""The scenario model: the pydantic classes of a scenario file, one per table.

A scenario names the FMU components and their parameters, the connections between them, the
controllers and the environment, and how to integrate and record. See ``scenarios/`` for
examples and ``README.md`` for the reference of every key.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    field_validator,
)

from orchestrator.scenario.navigation import NavigationFilterConfig
from orchestrator.scenario.sensors import (
    SENSOR_TYPES,
    AhrsConfig,
    DvlConfig,
    FiducialCameraConfig,
    ImuConfig,
    PressureDepthConfig,
    UsblConfig,
)

SOLVERS = ("RK4", "RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA", "CVODE_BDF", "CVODE_Adams")


# Times beyond this (s) leave too few digits of a double for millisecond steps (1e9 s: 1e-7 s).
LONGEST_TIME = 1e9


class _Strict(BaseModel):
    # Numbers must be finite unless a field says otherwise (inf as "no limit").
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Simulation(_Strict):
    """How long and how accurately to integrate, and how often to record."""

    stop_time: float = Field(gt=0, le=LONGEST_TIME, description="End of the run (s)")
    start_time: float = Field(
        0.0, ge=-LONGEST_TIME, le=LONGEST_TIME, description="Start of the run (s)"
    )
    output_interval: float = Field(0.1, gt=0, description="Recording interval (s)")
    solver: Literal[SOLVERS] = Field(  # type: ignore[valid-type]
        "RK45",
        description="RK4 (fixed step), RK45 (compiled), a SciPy solve_ivp method (RK23, "
        "DOP853, Radau, BDF, LSODA) or SUNDIALS CVODE_BDF / CVODE_Adams",
    )
    rtol: float = Field(1e-6, ge=1e-12, le=0.1, description="Relative tolerance (adaptive methods)")
    atol: float = Field(1e-8, gt=0, le=1.0, description="Absolute tolerance (adaptive methods)")
    step: float = Field(
        0.01,
        gt=0,
        description="Step of RK4, largest step of the others, and longest communication step "
        "of Co-Simulation FMUs under strong coupling (s)",
    )
    wall_time_limit: float | None = Field(
        None, gt=0, description="Stop the run with an error after this much wall time (s)"
    )
    step_limit: int | None = Field(
        None, gt=0, description="Stop the run with an error after this many integrator steps"
    )


class Environment(_Strict):
    """Ocean environment applied to every body with a current input ``v_c`` and a parameter
    ``seabed_depth``, and to every DVL."""

    current: tuple[float, float, float] = Field(
        (0.0, 0.0, 0.0),
        description="Current velocity, NED (m/s), on every input v_c[1..3] that no connection "
        "drives and no component start value sets",
    )
    seabed_depth: float = Field(
        float("inf"),
        allow_inf_nan=True,
        gt=0,
        description="NED z of a flat seabed (m; inf: none): the parameter seabed_depth of every "
        "body that has it and does not set it, and the seabed of every DVL that names none",
    )

    @field_validator("seabed_depth")
    @classmethod
    def _not_nan(cls, depth: float) -> float:
        if math.isnan(depth):
            raise ValueError("expected a depth in m, or inf for no seabed")
        return depth


class Component(_Strict):
    """One FMU instance."""

    fmu: str = Field(description="FMU name in the FMU folder, or a path to an .fmu file")
    parameters: dict[str, float | bool | str] = Field(
        default_factory=dict,
        description="Parameter values by FMU variable name: numbers, or true/false and text "
        "for Boolean and String variables (checked by the FMU)",
    )
    start: dict[str, float | bool | str] = Field(
        default_factory=dict,
        description="Start values of states or inputs by variable name (types as parameters)",
    )
    mount: str | None = Field(None, description="Vehicle this thruster is mounted on")
    slot: int | None = Field(None, ge=1, description="Thruster mount number on that vehicle")
    interface: Literal["model_exchange", "co_simulation"] | None = Field(
        None,
        description="FMI interface to run when the FMU offers both: model_exchange (the master "
        "integrates it) or co_simulation (it steps itself); by default model_exchange under "
        "strong coupling and co_simulation under weak coupling ([cosimulation])",
    )

    @field_validator("slot")
    @classmethod
    def _slot_needs_mount(cls, slot: int | None, info: Any) -> int | None:  # noqa: ANN401
        if slot is not None and info.data.get("mount") is None:
            raise ValueError("'slot' needs 'mount' (the vehicle the thruster sits on)")
        return slot


class Connection(_Strict):
    """Output (or state) of one component to input of another, element-wise for vectors."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    source: str = Field(
        alias="from", pattern=r"^[A-Za-z_]\w*\.[^.].*$", description="'<instance>.<output>'"
    )
    target: str = Field(
        alias="to", pattern=r"^[A-Za-z_]\w*\.[^.].*$", description="'<instance>.<input>'"
    )
    factor: float = Field(1.0, description="to = factor * from + offset (unit conversion)")
    offset: float = Field(0.0, description="in the unit of the input")


def _flown_state() -> Any:  # noqa: ANN401 - a pydantic field
    """The ``state`` key of a vehicle controller: truth or a filter's estimate."""
    return Field(
        None,
        description="A navigation_filter controller (before this one) whose estimate is flown "
        "on instead of the vehicle's true state (default: the true state)",
    )


class PID(_Strict):
    """Gains of one PID loop."""

    kp: float = 0.0
    ki: float = 0.0
    kd: float = 0.0
    integral_limit: float = Field(
        float("inf"), gt=0, allow_inf_nan=True, description="Anti-windup bound of the integral term"
    )


class AutopilotGains(_Strict):
    depth: PID = PID(kp=60.0, ki=6.0, kd=50.0, integral_limit=20.0)
    heading: PID = PID(kp=4.0, kd=2.0)
    surge: PID = PID(kp=60.0, ki=15.0, integral_limit=30.0)
    roll: PID = PID(kp=6.0, kd=1.5)
    pitch: PID = PID(kp=6.0, kd=1.5)
    sway: PID = PID(kd=20.0)


class SetPointChange(_Strict):
    """From ``time`` on, new set points (the ones not given are kept)."""

    time: float = Field(ge=0)
    depth: float | None = None
    heading: float | None = None
    surge_speed: float | None = None


class AutopilotConfig(_Strict):
    """Depth, heading and surge-speed autopilot giving a body-frame force command ``tau``."""

    type: Literal["depth_heading_speed"]
    sample_time: float = Field(gt=0)
    vehicle: str
    depth: float = Field(description="Depth set point, NED z (m)")
    heading: float = Field(description="Heading set point (deg, from north, clockwise)")
    surge_speed: float = Field(description="Surge speed set point (m/s)")
    changes: list[SetPointChange] = Field(default_factory=list)
    gains: AutopilotGains = AutopilotGains()
    state: str | None = _flown_state()


class AllocationConfig(_Strict):
    """Thrust allocation: body-frame force command to the vehicle's mounted thrusters."""

    type: Literal["thrust_allocation"]
    sample_time: float = Field(gt=0)
    vehicle: str
    command: str | list[str] = Field(
        description="Signal(s) holding 6-vector commands, e.g. 'autopilot.tau'; several are added"
    )
    method: Literal["qp", "pseudo_inverse"] = Field(
        "qp", description="Constrained QP (default) or pseudo-inverse with uniform scaling"
    )
    bias: float = Field(
        0.0,
        ge=0,
        description="Thrust bias (N) along balanced null-space groups, 0: off "
        "(pseudo_inverse only)",
    )
    priorities: tuple[float, float, float, float, float, float] = Field(
        (1e2, 1e2, 1e4, 1e4, 1e4, 1e4),
        description="Weights of the force errors [X Y Z K M N] when saturated (qp; W per N "
        "or N.m): the larger, the earlier met; by default heave and attitude before surge and "
        "sway",
    )
    max_thrust_rate: float = Field(400.0, gt=0, description="Largest change of thrust (N/s, qp)")
    failed: dict[str, float] = Field(
        default_factory=dict,
        description="Thruster instance -> time (s) it fails: no thrust from then on",
    )
    slots: Annotated[list[int], Field(min_length=1)] | None = Field(
        None,
        description="Use only these thruster mounts of the vehicle (default: all, and "
        "those of every body welded to it)",
    )

    @field_validator("command")
    @classmethod
    def _some_command(cls, command: str | list[str]) -> str | list[str]:
        if not command:
            raise ValueError("expected a signal name or a list of one or more")
        return command

    @field_validator("bias")
    @classmethod
    def _bias_needs_pseudo_inverse(cls, bias: float, info: Any) -> float:  # noqa: ANN401
        if bias > 0 and info.data.get("method") == "qp":
            raise ValueError("bias applies to method = 'pseudo_inverse' only")
        return bias

    @field_validator("priorities")
    @classmethod
    def _positive(cls, weights: tuple[float, ...]) -> tuple[float, ...]:
        if min(weights) <= 0:
            raise ValueError(f"expected 6 positive weights, got {list(weights)}")
        return weights


class ScheduleStep(_Strict):
    """From ``time`` on, hold these values on these signals."""

    time: float = Field(ge=0)
    values: dict[str, float]


class ScheduleConfig(_Strict):
    """Open-loop commands: piecewise-constant values on FMU inputs (e.g. thruster PWM)."""

    type: Literal["schedule"]
    sample_time: float = Field(gt=0)
    steps: list[ScheduleStep] = Field(min_length=1)


class CameraConfig(_Strict):
    """A camera: mounting yaw from the vehicle's heading and half opening angle (deg)."""

    mount: float
    half_angle: float = Field(gt=0, lt=90)


class ObserveConfig(_Strict):
    """A fixed object the vehicle must keep close and in view (Nielsen 2018, eq. 8.27)."""

    position: tuple[float, float] = Field(description="North, east (m)")
    max_distance: float = Field(gt=0)
    camera: int = Field(ge=1)


class RendezvousVehicle(_Strict):
    """One vehicle of the rendezvous: its cameras and which neighbour each must see."""

    name: str
    cameras: list[CameraConfig] = Field(min_length=1)
    sees: dict[str, int] = Field(default_factory=dict, description="neighbour -> camera number")
    port: tuple[float, float] = Field((0.0, 0.0), description="Rendezvous point, body frame (m)")
    port_heading: float = Field(
        0.0, description="Added to the heading in the rendezvous pose (deg)"
    )
    observe: ObserveConfig | None = None
    state: str | None = _flown_state()
    fiducial: str | None = Field(
        None,
        description="A fiducial_camera controller on this vehicle (before this one) whose "
        "marker is on a partner of the rendezvous: the vehicle's pose relative to that partner "
        "is taken from its detections (default: from the states)",
    )
    P: tuple[float, float, float] = (15.0, 15.0, 15.0)
    W: tuple[float, float, float] = (10.0, 10.0, 10.0)
    R: tuple[float, float, float] = (10.0, 10.0, 10.0)


class PredictionModelConfig(_Strict):
    """Planar prediction model (Nielsen 2018, Table 8.1 defaults)."""

    mass: tuple[float, float, float] = (10.0, 10.0, 1.0)
    damping: tuple[float, float, float] = (30.0, 30.0, 1.0)
    max_input: tuple[float, float, float] = (5.0, 5.0, 1.5)


class SupervisorConfig(_Strict):
    """Docking supervisor around the distributed MPC (two vehicles: the first is the target,
    whose port stays put in the final approach, the second the chaser): search and
    re-acquisition, a slow aligned final approach, abort and retry. The capture envelope must
    be the vehicles' (their FMU parameters capture_distance, capture_speed, capture_angle)."""

    lost: float = Field(
        10.0, gt=0, lt=90, description="deg beyond a camera's cone that starts a search"
    )
    acquired: float = Field(
        0.5, gt=0, le=1, description="Fraction of the half-angle that ends a search"
    )
    capture_distance: float = Field(0.05, gt=0, description="m between the ports that capture")
    capture_speed: float = Field(0.3, gt=0, description="Largest closing speed (m/s) that captures")
    capture_angle: float = Field(
        10.0, gt=0, lt=90, description="Largest port misalignment (deg) that captures"
    )
    final_distance: float = Field(
        0.5, gt=0, description="Port gap (m) within which the final approach may start"
    )
    final_angle: float = Field(
        5.0,
        gt=0,
        lt=90,
        description="deg: the final approach starts when both the misalignment and the chaser "
        "port's angle off the target port's axis are within it",
    )
    closing_speed: float = Field(
        0.1, gt=0, description="m/s of the final approach, below capture_speed"
    )
    final_time: float = Field(
        15.0, gt=0, description="s: no capture by then in the final approach is a miss"
    )
    abort_angle: float = Field(
        10.0, gt=0, lt=90, description="Misalignment (deg) in the final approach that is a miss"
    )
    abort_lateral: float = Field(
        0.1, gt=0, description="Lateral port offset (m) in the final approach that is a miss"
    )
    standoff: float = Field(
        1.0, gt=0, description="Port distance (m) along the axis the back-off reaches"
    )
    backoff_speed: float = Field(0.15, gt=0, description="m/s of the back-off")
    lateral_integral: float = Field(
        0.0,
        ge=0,
        description="1/s^2: integral action on the lateral port offset in the final approach, "
        "which a steady cross current otherwise holds off the axis (0: none)",
    )
    retries: int = Field(
        3, ge=0, description="Approaches after the first one; then station keeping"
    )

    # field: (the field it must exceed (+1) or stay below (-1), which)
    _ORDER: ClassVar[dict[str, tuple[str, int]]] = {
        "final_distance": ("capture_distance", +1),
        "closing_speed": ("capture_speed", -1),
        "abort_angle": ("final_angle", +1),
        "standoff": ("final_distance", +1),
    }

    @field_validator(*_ORDER)
    @classmethod
    def _ordered(cls, value: float, info: Any) -> float:  # noqa: ANN401
        other, sign = cls._ORDER[info.field_name]
        bound = info.data.get(other)
        if bound is not None and (value - bound) * sign <= 0:
            raise ValueError(f"expected {'more' if sign > 0 else 'less'} than {other}")
        return value


def _switch_as_table(value: object) -> object:
    """``supervisor = true`` is the table of defaults, ``false`` none."""
    if isinstance(value, bool):
        return {} if value else None
    return value


class RendezvousConfig(_Strict):
    """Camera-constrained rendezvous MPC, distributed (dual decomposition) or centralized."""

    type: Literal["rendezvous_mpc"]
    sample_time: float = Field(gt=0)
    method: Literal["distributed", "centralized"] = "distributed"
    solver: Literal["sqp", "ipopt"] = Field("sqp", description="NLP solver of each problem")
    horizon: int = Field(30, ge=1, le=1000, description="Prediction steps")
    iterations: int = Field(15, ge=1, le=1000, description="Dual-decomposition iterations")
    kappa: float = Field(30.0, gt=0)
    gamma: float = Field(2.0, gt=0)
    model: PredictionModelConfig = PredictionModelConfig()
    vehicles: list[RendezvousVehicle] = Field(min_length=2)
    supervisor: Annotated[SupervisorConfig | None, BeforeValidator(_switch_as_table)] = Field(
        None, description="Docking supervisor (a table, or true for its defaults)"
    )
    budget: float = Field(
        float("inf"),
        gt=0,
        allow_inf_nan=True,  # the default: no budget
        description="s per sample: no dual iteration starts after it",
    )
    compile_nlp: StrictBool = Field(
        False,
        description="Compile the local problems' NLP functions to machine code with the "
        "system's cc, cached by their source (the same solutions; a first run builds them: "
        "seconds of CPU per vehicle)",
    )

    @field_validator("compile_nlp")
    @classmethod
    def _distributed_only(cls, compile_nlp: bool, info: Any) -> bool:  # noqa: ANN401
        if compile_nlp and info.data.get("method") != "distributed":
            raise ValueError("compiled NLP functions are made for the distributed MPC only")
        return compile_nlp

    @field_validator("supervisor")
    @classmethod
    def _docking_pair(
        cls,
        supervisor: SupervisorConfig | None,
        info: Any,  # noqa: ANN401
    ) -> SupervisorConfig | None:
        vehicles = info.data.get("vehicles")
        if supervisor is None or vehicles is None:
            return supervisor
        if info.data.get("method") != "distributed":
            raise ValueError("the supervisor runs around the distributed MPC only")
        if len(vehicles) != 2 or vehicles[0].port == (0.0, 0.0):
            raise ValueError("expected two vehicles, the first with a port off its origin")
        return supervisor


class ReferenceTerm(_Strict):
    """offset + slope t + amplitude sin(2 pi t / period + phase) for start < t <= stop, else 0
    (t in s; units of the signal the term is part of)."""

    offset: float = 0.0
    slope: float = Field(0.0, description="Per second")
    amplitude: float = 0.0
    period: float = Field(float("inf"), gt=0, allow_inf_nan=True, description="s")
    phase: float = Field(0.0, description="rad")
    start: float = Field(float("-inf"), allow_inf_nan=True, description="s, exclusive")
    stop: float = Field(float("inf"), allow_inf_nan=True, description="s, inclusive")


def _constant_as_term(value: object) -> object:
    """A constant reference is the single term ``{ offset = value }``."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return [{"offset": value}] if is_number else value


# A constant, or the sum of the terms (none: zero).
Reference = Annotated[list[ReferenceTerm], BeforeValidator(_constant_as_term)]


class JointLoopConfig(_Strict):
    """PID loop of one motor-driven joint: reference angle (rad), feedforward torque (N.m)."""

    gains: PID = PID()
    reference: Reference = Field(default_factory=list)
    feedforward: Reference = Field(default_factory=list)


class EndEffectorTarget(_Strict):
    """End-effector point of an anthropomorphic arm (base yaw, shoulder and elbow pitch), m,
    relative to the arm's attachment point in the vehicle frame; joint references by inverse
    kinematics."""

    joints: tuple[str, str, str]
    upper_arm: float = Field(gt=0, description="Shoulder to elbow (m)")
    forearm: float = Field(gt=0, description="Elbow to end effector (m)")
    elbow: Literal["down", "up"] = "down"
    x: Reference = Field(default_factory=list)
    y: Reference = Field(default_factory=list)
    z: Reference = Field(default_factory=list)


class JointPIDConfig(_Strict):
    """PID control of joint motors: each loop reads ``<joint>.angle``, ``<joint>.rate`` and
    writes ``<joint>.torque``."""

    type: Literal["joint_pid"]
    sample_time: float = Field(gt=0)
    loops: dict[str, JointLoopConfig] = Field(min_length=1, description="By joint name")
    targets: dict[str, EndEffectorTarget] = Field(
        default_factory=dict, description="By arm name: references of three loops from a path"
    )


class PoseReference(_Strict):
    """Vehicle pose references: NED position (m) and zyx Euler angles (rad)."""

    x: Reference = Field(default_factory=list)
    y: Reference = Field(default_factory=list)
    z: Reference = Field(default_factory=list)
    roll: Reference = Field(default_factory=list)
    pitch: Reference = Field(default_factory=list)
    yaw: Reference = Field(default_factory=list)


Vector6 = tuple[float, float, float, float, float, float]


class VehiclePDConfig(_Strict):
    """PD control of a vehicle's NED position and Euler angles, giving a body-frame ``tau``."""

    type: Literal["vehicle_pd"]
    sample_time: float = Field(gt=0)
    vehicle: str
    kp: Vector6 = Field(description="x, y, z (N/m), roll, pitch, yaw (N.m/rad)")
    kd: Vector6 = Field(description="x, y, z (N.s/m), roll, pitch, yaw (N.m.s/rad)")
    reference: PoseReference = PoseReference()
    state: str | None = _flown_state()


class PointingChange(_Strict):
    """From ``time`` on, a new aim (the angles not given are kept)."""

    time: float = Field(ge=0)
    vertical: float | None = Field(None, ge=0, lt=90, description="deg from the zenith")
    azimuth: float | None = Field(None, description="deg from north towards east")


class SlidingModeGains(_Strict):
    """Sliding mode + feed-forward law of Cortesi (2012) (eq. 4.38), per joint axis."""

    C: float = Field(1.2, ge=0, description="Slope of the sliding surface s = w + C e (1/s)")
    alpha: float = Field(0.5, ge=0, description="Gain on |[w, e]| (s; w in rad/s, e in rad)")
    delta: float = Field(5.0, ge=0, description="Smallest switching amplitude (deg)")
    h: float = Field(
        0.5, gt=0, description="Boundary layer of sat(s, h) (rad/s; README: why not 0.02)"
    )
    ki: float = Field(0.0, ge=0, description="Integral gain (1/s)")


class PointingPID(_Strict):
    """PID + feed-forward law of Cortesi (2012) (eq. 4.44), per joint axis; joint angle in rad."""

    kp: float = Field(1.0, ge=0, description="rad per rad of payload angle error")
    kd: float = Field(0.3, ge=0, description="rad per rad/s of payload rate (s)")
    ki: float = Field(0.0, ge=0, description="Integral gain (1/s)")


class PointingConfig(_Strict):
    """Pointing of a joint-actuated buoy's payload by its joint servo (Cortesi 2012, Ch. 4)."""

    type: Literal["buoy_pointing"]
    sample_time: float = Field(gt=0)
    latency: float = Field(0.0, ge=0, description="Commands reach the servo this much later (s)")
    payload: str = Field(description="Payload body (its axis, -z, is the pointing direction)")
    actuator: str = Field(description="Joint servo whose theta_cmd[1..2] are commanded")
    law: Literal["sliding_mode", "pid"] = "sliding_mode"
    vertical: float = Field(ge=0, lt=90, description="Aim: deg from the zenith")
    azimuth: float = Field(0.0, description="Aim: deg from north towards east")
    changes: list[PointingChange] = Field(default_factory=list)
    K_ff: float = Field(1.60, description="Feed-forward gain (Cortesi 2012, Table 4.2, prototype)")
    limit: float = Field(45.0, gt=0, le=90, description="Soft limit of each joint command (deg)")
    sliding_mode: SlidingModeGains = SlidingModeGains()
    pid: PointingPID = PointingPID()


class UserControllerConfig(_Strict):
    """A controller of your own: a Python class named by its import path, subclass of
    ``murcosim.Controller``, made as ``Class(name, sample_time, settings)`` (``settings``
    validated by the class's ``Settings`` pydantic model when it has one). A table with
    ``class`` and no ``type`` is this kind."""

    type: Literal["python"]
    class_: str = Field(
        alias="class",
        pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$",
        description="Import path 'package.module:ClassName' (the module found on sys.path, "
        "after module_folder)",
    )
    module_folder: str | None = Field(
        None,
        description="Folder searched first for the class's module, relative to this file "
        "(default: the folder of this file)",
    )
    sample_time: float = Field(gt=0, description="Sample time (s)")
    latency: float = Field(0.0, ge=0, description="Outputs reach the FMUs this much later (s)")
    settings: dict[str, Any] = Field(
        default_factory=dict, description="The class's own settings (checked by its Settings)"
    )


ControllerConfig = Annotated[
    UserControllerConfig
    | AutopilotConfig
    | AllocationConfig
    | ScheduleConfig
    | RendezvousConfig
    | JointPIDConfig
    | VehiclePDConfig
    | PointingConfig
    | ImuConfig
    | DvlConfig
    | PressureDepthConfig
    | AhrsConfig
    | UsblConfig
    | FiducialCameraConfig
    | NavigationFilterConfig,
    Field(discriminator="type"),
]

Vector3 = tuple[float, float, float]
# A joint point's coordinate in its body's frame: 10 km from a body's origin is no joint of
# an underwater robot but a slip (and its lever arm would swamp the constraint solve).
LONGEST_LEVER = 1e4
Lever = Annotated[float, Field(ge=-LONGEST_LEVER, le=LONGEST_LEVER)]
Point3 = tuple[Lever, Lever, Lever]


class MotorConfig(_Strict):
    """A motor on a revolute joint: torque command ``<joint>.torque`` from a controller."""

    max_torque: float = Field(
        float("inf"), gt=0, allow_inf_nan=True, description="Torque limit (N.m)"
    )


class JointConfig(_Strict):
    """A joint made at the start of the run, with the bodies' initial relative pose (or with
    body b placed on it, when ``at_b`` is given)."""

    name: str = Field(pattern=r"^[A-Za-z_]\w*$")
    type: Literal["weld", "revolute", "universal", "spherical", "fixed", "driven_universal"]
    a: str
    b: str | None = None
    at: Point3 = Field((0.0, 0.0, 0.0), description="Joint point in body a's frame (m)")
    axis: Vector3 | None = Field(None, description="Hinge axis (unit) in a's frame")
    axis_b: Vector3 | None = Field(None, description="Universal joint: second axis in b's frame")
    at_b: Point3 | None = Field(
        None, description="Joint point in b's frame (m); given, b is placed on the joint"
    )
    rotation_b: tuple[Vector3, Vector3, Vector3] | None = Field(
        None, description="Placed b: rotation b -> a at joint angle 0 (rows; default identity)"
    )
    angle: float | None = Field(None, description="Placed revolute joint: initial angle (rad)")
    rate: float | None = Field(None, description="Placed revolute joint: initial rate (rad/s)")
    motor: MotorConfig | None = Field(None, description="Revolute joint: a torque motor")
    actuator: str | None = Field(
        None, description="driven_universal: component whose theta[1..2] are the joint angles"
    )


class CouplingConfig(_Strict):
    """How constraints are solved and kept on their manifold."""

    solver: Literal["auto", "svd", "cholesky"] = "auto"
    projection: bool = Field(True, description="Project positions and velocities between steps")
    baumgarte: tuple[float, float] = Field(
        (0.0, 0.0), description="(alpha 1/s, beta 1/s^2): b - alpha c_dot - beta c"
    )


class DockingConfig(_Strict):
    """A pair of docking ports watched for capture between macro steps."""

    name: str | None = Field(None, pattern=r"^[A-Za-z_]\w*$")
    a: str
    port_a: int = Field(ge=1)
    b: str
    port_b: int = Field(ge=1)


class EventConfig(_Strict):
    """A scheduled topology change."""

    time: float = Field(ge=0)
    action: Literal["undock"]
    joint: str


class CoSimulationConfig(_Strict):
    """Weak coupling: each component advances alone between macro steps (``master/weak.py``)."""

    macro_step: float = Field(gt=0, description="Communication step (s)")
    order: Literal["jacobi", "gauss_seidel"] = "jacobi"
    inputs: Literal["hold", "linear"] = Field(
        "hold", description="Inputs over a step: held, or extrapolated linearly"
    )
    iterations: int = Field(
        20,
        ge=1,
        le=1000,
        description="Most fixed-point sweeps of a macro step on an algebraic loop",
    )
    tolerance: float = Field(1e-10, gt=0, description="Fixed-point convergence of loop inputs")


class Scenario(_Strict):
    """A whole scenario file."""

    description: str = Field("", description="Free text")
    fmu_dir: str | None = Field(
        None,
        description="Folder of the FMUs named by components, relative to this file "
        "(default: 'fmus' here or in the nearest folder above)",
    )
    simulation: Simulation = Field(description="Time span, integrator, recording")
    environment: Environment = Field(Environment(), description="Ocean current and seabed")
    components: dict[str, Component] = Field(min_length=1, description="FMU instances by name")
    connections: list[Connection] = Field(
        default_factory=list, description="Signals between instances"
    )
    controllers: dict[str, ControllerConfig] = Field(
        default_factory=dict, description="By name, run in file order at their sample times"
    )
    coupling: CouplingConfig = Field(CouplingConfig(), description="Constraint solver")
    joints: list[JointConfig] = Field(default_factory=list, description="Joints made at the start")
    docking: list[DockingConfig] = Field(
        default_factory=list, description="Port pairs watched for capture"
    )
    events: list[EventConfig] = Field(
        default_factory=list, description="Scheduled topology changes"
    )
    cosimulation: CoSimulationConfig | None = Field(
        None, description="Weak coupling of Co-Simulation FMUs instead of one state vector"
    )
    record: list[str] | None = Field(
        None,
        description="Patterns of '<instance>.<variable>' names to record (states, inputs, "
        "time-varying outputs, controller outputs, joint columns): * any text, ? one "
        "character, brackets literal ('rov.p[*]'); each must match one",
    )


CONTROLLER_TYPES = (
    "python",
    "depth_heading_speed",
    "thrust_allocation",
    "schedule",
    "rendezvous_mpc",
    "joint_pid",
    "vehicle_pd",
    "buoy_pointing",
    *SENSOR_TYPES,
    "navigation_filter",
)
