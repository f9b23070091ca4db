"""Constraint coupling of a running system: FMU bodies, joints, docking and undocking.

Binds an :class:`Assembly` to the body instances of a :class:`System`: where each body's
``p``, ``q`` and ``nu`` sit in the state vector, its generalized mass (the FMU output
``M[6,6]``), its docking ports. In every right-hand side it replaces the bodies' ``der(nu)``
(the FMUs' accelerations without constraint forces) by the Udwadia-Kalaba accelerations.
Between macro steps it projects positions and velocities onto the constraint manifold and
makes topology changes: docking (plastic impact, then a weld at the captured relative pose)
and undocking. Motors on revolute joints add their torque pairs to the unconstrained
accelerations before the solve (``motors.py``); joints with ``at_b`` place their body b at
the start (``placement.py``). The integrators' post-process is the kernel's compiled coupling
(``compiled.py``), told of every topology change and motor command; it calls :meth:`apply`
under the dense "svd" solver, which it does not compile. Driven joints take their angles,
rates and accelerations from their actuator's states and state derivatives (``driven.py``),
in the kernel as in :meth:`apply`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from orchestrator.coupling.assembly import Assembly
from orchestrator.coupling.compiled import CompiledCoupling
from orchestrator.coupling.driven import Drive, DrivenUniversal, actuator_indices
from orchestrator.coupling.joints import JOINT_TYPES, WORLD, Frames, Joint, Pose, Revolute
from orchestrator.coupling.motors import JointMotors, Motor
from orchestrator.coupling.placement import check_rotation, placed_pose, quaternion
from orchestrator.errors import ScenarioError
from orchestrator.kinematics import cross, rotation_rows
from orchestrator.native.kernel import PostProcess
from orchestrator.scenario.model import CouplingConfig, DockingConfig, JointConfig
from orchestrator.system.system import System, expand

BODY_STATES = ("p", "q", "nu")
VIOLATION_COLUMNS = ("position_error", "angle_error")


def is_body(system: System, name: str) -> bool:
    """Whether an instance follows the rigid-body contract (states p, q, nu; output M)."""
    fmu = system.instances[name].fmu
    states = set(fmu.states)
    needed = {f"p[{i}]" for i in (1, 2, 3)} | {f"q[{i}]" for i in (1, 2, 3, 4)}
    needed |= {f"nu[{i}]" for i in range(1, 7)}
    return needed <= states and "M[6,6]" in fmu.variables


# relative distance from a capture threshold beyond which the ports' distance in plain floats
# decides the docking watch (its rounding differs from the exact check's by far less)
CLEAR = 1e-6


@dataclass(frozen=True)
class Port:
    """A docking port: mating point and outward normal in the body frame, capture envelope."""

    body: str
    number: int
    position: np.ndarray
    normal: np.ndarray
    distance: float  # m
    speed: float  # m/s, largest closing speed that still captures
    angle: float  # rad, largest angle between the normal and the partner's reversed normal


@dataclass
class DockingPair:
    """Two ports watched for capture; ``armed`` is false while they are docked or too close."""

    name: str
    a: Port
    b: Port
    armed: bool = True


class ConstraintCoupling:
    """The assembly of a system's bodies, applied to its state vector."""

    def __init__(
        self,
        system: System,
        joints: list[JointConfig],
        docking: list[DockingConfig],
        config: CouplingConfig,
        x0: np.ndarray,
    ) -> None:
        self.system = system
        self.config = config
        self.bodies = [n for n in system.instances if is_body(system, n)]
        index = system.state_index()
        self._p = np.array(
            [[index[f"{b}.p[{i}]"] for i in (1, 2, 3)] for b in self.bodies], dtype=int
        )
        self._q = np.array(
            [[index[f"{b}.q[{i}]"] for i in (1, 2, 3, 4)] for b in self.bodies], dtype=int
        )
        self._nu = np.array(
            [[index[f"{b}.nu[{i}]"] for i in range(1, 7)] for b in self.bodies], dtype=int
        )
        self._nu = self._nu.reshape(len(self.bodies), 6)
        masses = [self._mass(b) for b in self.bodies]
        self.assembly = Assembly(self.bodies, masses, config.solver) if self.bodies else None
        self.pairs = [self._pair(k, d) for k, d in enumerate(docking)]
        self.drives: list[Drive] = []
        # bus positions of the compiled joint signals and of the motor commands, kept per set
        # of names (a topology change makes new ones)
        self._motion_slots: tuple[tuple[str, ...] | None, np.ndarray] = (None, np.zeros(0))
        self._command_slots: tuple[tuple[str, ...] | None, np.ndarray] = (None, np.zeros(0))
        poses = self.poses(x0)
        self._placed: dict[str, int] = {}  # body -> index of the joint that placed it
        self._parents: dict[str, int] = {}  # body -> first joint that placed a child from it
        motors = []
        for k, spec in enumerate(joints):
            joint = self._add_from_config(k, spec, poses, x0)
            if isinstance(joint, DrivenUniversal) or spec.actuator is not None:
                self.drives.append(self._drive(k, spec, joint))
            if spec.motor is not None:
                if not isinstance(joint, Revolute):
                    raise self._error(f"joints[{k}].motor", "only revolute joints have motors")
                motors.append(Motor(joint, spec.motor.max_torque))
        self.motors = JointMotors(self.assembly, motors) if self.assembly else None
        self.forces: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        # the running sum of the jumps of every body's nu at docking impacts (see jump_names)
        self.velocity_jumps = np.zeros(6 * len(self.bodies))
        self.compiled = None
        if self.assembly is not None:
            index = np.concatenate([self._p, self._q, self._nu], axis=1)
            drives = {d.joint.name: np.concatenate([d.angles, d.rates]) for d in self.drives}
            self.compiled = CompiledCoupling(
                self.assembly, index, self.apply, tuple(config.baumgarte), drives
            )

    # -- set-up -----------------------------------------------------------------------------

    def _mass(self, body: str) -> np.ndarray:
        names = [f"M[{i},{j}]" for i in range(1, 7) for j in range(1, 7)]
        M = self.system.instances[body].get_values(names).reshape(6, 6)
        return 0.5 * (M + M.T)

    def _error(self, key: str, message: str) -> ScenarioError:
        return ScenarioError(f"{self.system.source}: {key}: {message}")

    def _body(self, name: str | None, key: str) -> str:
        self.system.instance(name, key)
        if name not in self.bodies:
            raise self._error(
                key, f"'{name}' is not a rigid body (needs states p, q, nu and output M)"
            )
        return name

    def _add_from_config(
        self, k: int, spec: JointConfig, poses: list[Pose], x0: np.ndarray
    ) -> Joint:
        """Make joint ``k``; a body it places gets its pose in ``poses`` and ``x0`` (in place)."""
        key = f"joints[{k}]"
        a = self._body(spec.a, key + ".a")
        if spec.type == "fixed":
            if spec.b is not None:
                raise self._error(key + ".b", "a fixed joint ties body a to the world; leave b out")
            b = None
        else:
            if spec.b is None:
                raise self._error(key + ".b", f"missing: a {spec.type} joint needs a second body")
            b = self._body(spec.b, key + ".b")
        extra = {}
        if spec.axis is not None:
            extra["axis"] = np.array(spec.axis, dtype=float)
        if spec.axis_b is not None:
            extra["axis_b"] = np.array(spec.axis_b, dtype=float)
        pose_a = poses[self.assembly.index[a]]
        pose_b = WORLD if b is None else poses[self.assembly.index[b]]
        try:
            if spec.at_b is None:
                for name in ("rotation_b", "angle", "rate"):
                    if getattr(spec, name) is not None:
                        raise self._error(f"{key}.{name}", "only with at_b (a placed body b)")
                joint = JOINT_TYPES[spec.type].at_current_pose(
                    spec.name, a, pose_a, b, pose_b, np.array(spec.at, dtype=float), **extra
                )
            else:
                joint = self._place(k, spec, poses, x0, extra)
            self.assembly.add(joint, poses)
        except (ValueError, TypeError) as exc:
            raise self._error(key, str(exc)) from None
        return joint

    def _place(
        self,
        k: int,
        spec: JointConfig,
        poses: list[Pose],
        x0: np.ndarray,
        extra: dict[str, np.ndarray],
    ) -> Joint:
        """Joint ``k`` with its body b placed on it from a's pose (see ``placement.py``)."""
        key = f"joints[{k}]"
        if spec.b is None:
            raise self._error(key + ".at_b", "a fixed joint places no body; leave at_b out")
        revolute = spec.type == "revolute"
        for name in ("angle", "rate"):
            if getattr(spec, name) is not None and not revolute:
                raise self._error(f"{key}.{name}", "only for a revolute joint")
        b = spec.b
        if b in self._placed:
            raise self._error(key + ".b", f"'{b}' is already placed by joints[{self._placed[b]}]")
        if b in self._parents:
            raise self._error(
                key + ".b",
                f"'{b}' is placed here, after joints[{self._parents[b]}] placed a body from "
                "its pose; list the joints from the root outwards",
            )
        start = self.system.scenario.components[b].start
        given = [n for n in start if n.partition("[")[0] in BODY_STATES]
        if given:
            raise self._error(
                key + ".at_b", f"'{b}' is placed by this joint; remove its start values {given}"
            )
        self._placed[b] = k
        self._parents.setdefault(spec.a, k)
        rotation = check_rotation(spec.rotation_b or np.eye(3), "rotation_b")
        axis = extra.get("axis", np.array([0.0, 0.0, 1.0])) if revolute else None
        at_a, at_b = np.array(spec.at, dtype=float), np.array(spec.at_b, dtype=float)
        ia, ib = self.assembly.index[spec.a], self.assembly.index[b]
        pose = placed_pose(
            poses[ia], at_a, at_b, rotation, axis, spec.angle or 0.0, spec.rate or 0.0
        )
        poses[ib] = pose
        x0[self._p[ib]], x0[self._q[ib]], x0[self._nu[ib]] = pose.p, quaternion(pose.R), pose.nu
        return JOINT_TYPES[spec.type](spec.name, spec.a, b, at_a, at_b, rotation, **extra)

    def _drive(self, k: int, spec: JointConfig, joint: Joint) -> Drive:
        """Bind driven joint ``k`` to the states of its actuator component."""
        key = f"joints[{k}].actuator"
        if not isinstance(joint, DrivenUniversal):
            raise self._error(
                key, f"only a driven_universal joint has an actuator, not {spec.type}"
            )
        if spec.actuator is None:
            raise self._error(key, "missing: the component whose theta[1..2] drive the joint")
        self.system.instance(spec.actuator, key)
        found = actuator_indices(self.system.state_index(), spec.actuator)
        if found is None:
            raise self._error(
                key, f"'{spec.actuator}' has no states theta[1..2] and omega[1..2] (a JointServo)"
            )
        return Drive(joint, *found)

    def _port(self, body: str, number: int, key: str) -> Port:
        instance = self.system.instances[body]
        names = [f"data.port_position[{number},{i}]" for i in (1, 2, 3)]
        names += [f"data.port_normal[{number},{i}]" for i in (1, 2, 3)]
        if names[0] not in instance.fmu.variables:
            count = len(expand(instance.fmu, "data.port_position")) // 3
            raise self._error(key, f"{body} has {count} docking port(s), not {number}")
        values = instance.get_values([*names, "capture_distance", "capture_speed", "capture_angle"])
        normal = values[3:6] / np.linalg.norm(values[3:6])
        return Port(body, number, values[:3], normal, *values[6:])

    def _pair(self, k: int, spec: DockingConfig) -> DockingPair:
        key = f"docking[{k}]"
        a = self._body(spec.a, key + ".a")
        b = self._body(spec.b, key + ".b")
        if a == b:
            raise self._error(key, f"a docking pair needs two bodies, got '{a}' twice")
        name = spec.name or f"dock_{a}_{b}"
        return DockingPair(
            name,
            self._port(a, spec.port_a, key + ".port_a"),
            self._port(b, spec.port_b, key + ".port_b"),
        )

    # -- state access -----------------------------------------------------------------------

    def poses(self, x: np.ndarray, dx: np.ndarray | None = None) -> Frames:
        """Poses of all bodies in the state vector ``x``; driven joints take their motion from
        their actuators' states in ``x`` (and accelerations in ``dx``, when given)."""
        for drive in self.drives:
            drive.follow(x, dx)
        return self.assembly.poses(x[self._p], x[self._q], x[self._nu])

    def joint_names(self) -> list[str]:
        """Joints whose violation and forces are recorded: present and future (docking) ones."""
        present = [j.name for j in self.assembly.joints]
        return present + [p.name for p in self.pairs if p.name not in present]

    def column_names(self) -> list[str]:
        """Recorded columns of every joint: errors and generalized forces on a and b; angle,
        rate and motor torque of revolute joints; the two torques of driven joints."""
        names = [name for joint in self.joint_names() for name in _joint_columns(joint)]
        names += [f"{d.joint.name}.torque[{i}]" for d in self.drives for i in (1, 2)]
        return names + self.signal_names()

    def column_values(self, x: np.ndarray, dx: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
        """Names and values of the recorded joint columns at ``x`` (``dx`` without constraint
        forces), the values in one array. The errors and forces of compiled joints come from
        the kernel in one call."""
        if self.compiled is not None and self.compiled.compiled:
            names = _columns_of(tuple(self.compiled.names))
            columns = self.compiled.columns(x, dx)
            parts = [columns.ravel()]
            if self.drives:
                names += tuple(f"{d.joint.name}.torque[{i}]" for d in self.drives for i in (1, 2))
                parts.append(self._drive_torques(x, columns))
        else:
            values: dict[str, float] = {}
            self._python_columns(x, dx, values)
            names, parts = tuple(values), [np.array(list(values.values()), dtype=float)]
        signals, motion = self.joint_signals(x)
        names, parts = names + signals, [*parts, motion]
        if self.motors is not None:
            names, parts = names + self.motors.command_names(), [*parts, self.motors.applied()]
        return names, np.concatenate(parts)

    def _drive_torques(self, x: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """The driven joints' two torques (N.m) from the kernel's columns (force on b)."""
        poses = self.poses(x)
        position = {name: i for i, name in enumerate(self.compiled.names)}
        torques = []
        for drive in self.drives:
            j = drive.joint
            on_b = columns[position[j.name], 8:14]
            a, b = poses[self.assembly.index[j.a]], poses[self.assembly.index[j.b]]
            torques.append(j.torques(a, b, on_b))
        return np.concatenate(torques)

    def _python_columns(self, x: np.ndarray, dx: np.ndarray, values: dict[str, float]) -> None:
        """The joints' errors and forces and the driven joints' torques into ``values``."""
        for joint, (position, angle) in self.violations(x).items():
            values[f"{joint}.position_error"] = position
            values[f"{joint}.angle_error"] = angle
        forces = self.constraint_forces(x, dx)
        for joint, sides in forces.items():
            for side, force in zip("ab", sides, strict=True):
                values.update({f"{joint}.force_{side}[{i + 1}]": f for i, f in enumerate(force)})
        poses = self.poses(x, dx)
        for drive in self.drives:
            j = drive.joint
            torques = j.torques(
                poses[self.assembly.index[j.a]], poses[self.assembly.index[j.b]], forces[j.name][1]
            )
            values.update({f"{j.name}.torque[{i + 1}]": t for i, t in enumerate(torques)})

    # -- joint signals ------------------------------------------------------------------------

    def signal_names(self) -> list[str]:
        """Joint signals for controllers: ``<joint>.angle``, ``.rate``, motor ``.torque``."""
        return self.motors.signal_names() if self.motors is not None else []

    def joint_signals(self, x: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
        """The signal names ``<joint>.angle``, ``<joint>.rate`` of every revolute joint and
        their values (rad, rad/s) at state ``x``, in one array."""
        if self.motors is None:
            return (), np.zeros(0)
        if self.compiled is not None and self.compiled.compiled and not self.drives:
            return self.compiled.signals, self.compiled.motion_values(x)  # computed in C
        if not self.motors.revolute_joints():
            return (), np.zeros(0)
        values = self.motors.measure(self.poses(x))
        return tuple(values), np.array(list(values.values()))

    def put_joint_signals(self, x: np.ndarray, bus: np.ndarray, index: dict[str, int]) -> bool:
        """Put the values of :meth:`joint_signals` at state ``x`` on ``bus`` (positions by
        name in ``index``) by one compiled call; False where the joints are not all compiled
        (then nothing is put)."""
        compiled = self.compiled
        if self.motors is None or compiled is None or not compiled.compiled or self.drives:
            return False
        slots = self._motion_slots[1]
        if self._motion_slots[0] is not compiled.signals or len(slots) != 2 * len(compiled.names):
            # (the empty tuple is one object: a weld added to no revolute joint keeps it)
            self._motion_slots = (compiled.signals, compiled.motion_slots(index))
        compiled.kernel.motion_to(np.ascontiguousarray(x, dtype=float), bus, self._motion_slots[1])
        return True

    def command_from(self, bus: np.ndarray, index: dict[str, int]) -> None:
        """:meth:`command` of the motor torque commands on ``bus`` (positions by name in
        ``index``), in one compiled call."""
        if self.motors is None:
            return
        names = self.motors.command_names()
        if self._command_slots[0] is not names:
            self._command_slots = (names, np.array([index[n] for n in names], dtype=np.int64))
        self.motors.command_from(bus, self._command_slots[1], self.compiled.kernel)

    def command_names(self) -> tuple[str, ...]:
        """The motor torque commands (N.m) a controller may write."""
        return self.motors.command_names() if self.motors is not None else ()

    def command(self, torques: np.ndarray) -> None:
        """Hold new motor torque commands (N.m), in the order of :meth:`command_names`."""
        if self.motors is not None:
            self.motors.set_command_values(torques)
            self.compiled.set_motor(self.motors.accelerations())

    def rigid_group(self, body: str) -> list[str]:
        """The bodies welded (directly or through others) to ``body``, itself first."""
        for group in self.assembly.groups(kinds=("weld",)):
            if body in group:
                return [body] + [b for b in group if b != body]
        return [body]

    # -- right-hand side ----------------------------------------------------------------------

    def post_process(self) -> PostProcess:
        """What the compiled integrators run after every evaluation: the kernel's compiled
        coupling (which calls :meth:`apply` for joints it does not compile)."""
        return self.apply if self.compiled is None else self.compiled.kernel

    def apply(self, x: np.ndarray, dx: np.ndarray) -> None:
        """Replace the bodies' der(nu) in ``dx`` by the constrained accelerations."""
        if not self.assembly.joints:
            return
        poses = self.poses(x, dx)
        a_c, _, _ = self.assembly.constrained(
            poses, self._unconstrained(dx), tuple(self.config.baumgarte)
        )
        dx[self._nu] = a_c.reshape(-1, 6)

    def acceleration_names(self) -> list[str]:
        """``<body>.der(nu[i])`` of every body, in the order of :meth:`accelerations`."""
        return [f"{body}.der(nu[{i}])" for body in self.bodies for i in range(1, 7)]

    def accelerations(self, x: np.ndarray, dx: np.ndarray) -> np.ndarray:
        """The bodies' accelerations that the integrator integrates (6 per body, body frame:
        m/s^2, rad/s^2) at state ``x`` with the FMUs' rates ``dx`` (left unchanged): their
        der(nu) plus the motors' M^-1 tau plus M^-1 times the constraint forces, by the
        integrators' post-process (compiled or not). What an accelerometer on a jointed or
        docked body feels; the FMUs' own der(nu) leave the joints' forces out."""
        rates = np.array(dx, dtype=float)
        self.post_process()(x, rates)
        return rates[self._nu].ravel()

    def jump_names(self) -> list[str]:
        """``<body>.nu_jump[i]``: the running sum of the jumps of the body's ``nu`` at docking
        impacts (m/s, rad/s, body frame at each impact), in the order of
        :attr:`velocity_jumps`. An impact's impulse is a Dirac in the acceleration that no
        sample of der(nu) sees; an accelerometer that averages over its sample interval feels
        the jump of its point's velocity spread over that interval."""
        return [f"{body}.nu_jump[{i}]" for body in self.bodies for i in range(1, 7)]

    def _unconstrained(self, dx: np.ndarray) -> np.ndarray:
        """The bodies' accelerations without constraint forces: the FMUs' der(nu) plus the
        motors' M^-1 times their generalized forces."""
        a_u = dx[self._nu].ravel()
        if self.motors is not None and self.motors.motors:
            a_u = a_u + self.motors.accelerations()
        return a_u

    def constraint_forces(
        self, x: np.ndarray, dx: np.ndarray
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each joint's generalized force on its bodies, given unconstrained ``dx``."""
        if not self.assembly.joints:
            return {}
        poses = self.poses(x, dx)
        _, lam, stacked = self.assembly.accelerations(
            poses, self._unconstrained(dx), tuple(self.config.baumgarte)
        )
        return self.assembly.joint_forces(stacked, lam)

    # -- between macro steps -----------------------------------------------------------------

    def project(self, x: np.ndarray) -> np.ndarray:
        """Positions, attitudes and velocities moved onto the constraint manifold (by the
        kernel while it compiles the joints)."""
        if not self.config.projection or not self.assembly.joints:
            return x
        if self.compiled.compiled:
            return self.compiled.project(x)
        x = x.copy()
        self.poses(x)  # driven joints follow the actuators' angles of x
        P, Q = self.assembly.project_positions(x[self._p], x[self._q])
        x[self._p], x[self._q] = P, Q
        x[self._nu] = self.assembly.project_velocities(self.poses(x))
        return x

    def violations(self, x: np.ndarray) -> dict[str, tuple[float, float]]:
        """Position and angle error of every present joint."""
        return self.assembly.violations(self.poses(x))

    def dock(self, time: float, x: np.ndarray) -> tuple[np.ndarray, list[tuple[str, str]]]:
        """Capture every armed port pair inside its envelope; returns new x and event rows."""
        events = []
        for pair in self.pairs:
            limit = min(pair.a.distance, pair.b.distance)
            # the watch runs at every communication point: where the ports' distance in plain
            # floats is clearly off the threshold that matters, it decides; near it (and inside
            # the capture distance) the check below does
            threshold = limit if pair.armed else 2 * limit
            rough = math.dist(self._port_point(pair.a, x), self._port_point(pair.b, x))
            if abs(rough - threshold) > CLEAR * threshold and (not pair.armed or rough > limit):
                if rough > threshold and not pair.armed:
                    pair.armed = pair.name not in [j.name for j in self.assembly.joints]
                continue
            poses = self.poses(x)
            a, b = poses[self.assembly.index[pair.a.body]], poses[self.assembly.index[pair.b.body]]
            gap, distance = _gap(pair, a, b)
            if not pair.armed:
                pair.armed = distance > 2 * limit and pair.name not in [
                    j.name for j in self.assembly.joints
                ]
                continue
            # closing speed and misalignment only inside the capture distance: the watch runs
            # at every communication point
            if distance > limit:
                continue
            closing, angle = _closing_and_angle(pair, a, b, gap, distance)
            if angle > min(pair.a.angle, pair.b.angle):
                continue
            if closing > min(pair.a.speed, pair.b.speed):
                events.append(
                    (
                        "dock_rejected",
                        f"{pair.name}: closing at {closing:.3g} m/s, faster than capture",
                    )
                )
                pair.armed = False
                continue
            before = self._kinetic_energy(x)
            weld = JOINT_TYPES["weld"].at_current_pose(
                pair.name, pair.a.body, a, pair.b.body, b, pair.a.position
            )
            self.assembly.add(weld, poses)
            self.compiled.describe()
            x = x.copy()
            velocities = x[self._nu].ravel()
            x[self._nu] = self.assembly.impact(self.poses(x))
            self.velocity_jumps += x[self._nu].ravel() - velocities
            pair.armed = False
            after = self._kinetic_energy(x)
            events.append(
                (
                    "dock",
                    f"{pair.name}: {pair.a.body} port {pair.a.number} + "
                    f"{pair.b.body} port {pair.b.number}; gap {distance:.3g} m, "
                    f"closing {closing:.3g} m/s, angle {np.degrees(angle):.3g} deg; "
                    f"impact dissipated {before - after:.3g} J",
                )
            )
        return x, events

    def _port_point(self, port: Port, x: np.ndarray) -> list[float]:
        """The port's mating point (NED, m) at state ``x``, in plain floats."""
        body = self.assembly.index[port.body]
        p, r = x[self._p[body]].tolist(), port.position.tolist()
        R = rotation_rows(x[self._q[body]].tolist())
        return [p[k] + (R[k][0] * r[0] + R[k][1] * r[1] + R[k][2] * r[2]) for k in range(3)]

    def undock(self, name: str, x: np.ndarray, reason: str) -> tuple[str, str]:
        """Remove joint ``name``; returns the event row."""
        try:
            joint = self.assembly.remove(name, self.poses(x))
        except ValueError as exc:
            raise ScenarioError(f"{self.system.source}: events: {exc}") from None
        self.motors.release(name)
        self.compiled.describe()
        self.compiled.set_motor(self.motors.accelerations())
        return "undock", f"{name}: {joint.a} - {joint.b or 'world'} released ({reason})"

    def _kinetic_energy(self, x: np.ndarray) -> float:
        nu = x[self._nu].ravel()
        return float(0.5 * nu @ self.assembly.M @ nu)


@cache
def _columns_of(joints: tuple[str, ...]) -> tuple[str, ...]:
    """Recorded columns of some joints, in order (named once per set of joints: the master
    records them at every output)."""
    return tuple(name for joint in joints for name in _joint_columns(joint))


def _joint_columns(joint: str) -> tuple[str, ...]:
    """Recorded columns of one joint: position and angle error, force on a and on b."""
    names = [f"{joint}.{c}" for c in VIOLATION_COLUMNS]
    return (*names, *(f"{joint}.force_{side}[{i}]" for side in "ab" for i in range(1, 7)))


def _gap(pair: DockingPair, a: Pose, b: Pose) -> tuple[np.ndarray, float]:
    """Vector from port a's mating point to port b's (NED, m) and its length (m)."""
    gap = (b.p + b.R @ pair.b.position) - (a.p + a.R @ pair.a.position)
    return gap, float(np.linalg.norm(gap))


def _closing_and_angle(
    pair: DockingPair, a: Pose, b: Pose, gap: np.ndarray, distance: float
) -> tuple[float, float]:
    """Closing speed of the ports along their ``gap`` of length ``distance`` (m/s) and the
    misalignment of their normals (rad)."""
    va = a.R @ (a.v + cross(a.w, pair.a.position))
    vb = b.R @ (b.v + cross(b.w, pair.b.position))
    closing = float(-(vb - va) @ gap / distance) if distance > 0 else 0.0
    cosine = float(np.clip(-(a.R @ pair.a.normal) @ (b.R @ pair.b.normal), -1, 1))
    return closing, float(np.arccos(cosine))
