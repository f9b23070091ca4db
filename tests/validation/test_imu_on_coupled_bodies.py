"""The IMU of a body in the constraint coupling feels the joints' forces: its specific force is
that of the accelerations the integrator integrates (the FMU's der(nu) plus the motors' and the
constraints' generalized forces through M^-1), checked against rigid-body mechanics solved by
hand, in the kernel's compiled coupling and in the Python one ("svd")."""

from __future__ import annotations

import numpy as np
import pytest

G = 9.81  # m/s^2, the IMU's and the vehicle FMUs' gravity
MASS, SURGE_ADDED = 20.0, 2.5  # kg: GenericVehicle's mass and surge added mass (Table 3.3)
YAW_INERTIA, YAW_ADDED = 0.001, 0.0005  # kg m^2: its I_zz and yaw added inertia
MOUNT = np.array([0.2, 0.05, -0.05])  # m, the IMU on body B (body frame)
NO_NOISE = (
    "{ noise_density = 0.0, bias_driving = 0.0, bias_time_constant = 1.0, turn_on_std = 0.0 }"
)


def vehicle(name: str, damping: str, start: str) -> str:
    """A GenericVehicle in unbounded water (neutral buoyancy, centre of buoyancy above the
    origin), without the linear damping named in ``damping``."""
    return f"""
[components.{name}]
fmu = "GenericVehicle"
[components.{name}.parameters]
hull_height = 0.0
{damping} = 0.0
[components.{name}.start]
{start}
"""


def scenario(solver: str, bodies: str, joints: str, controllers: str = "") -> str:
    """Two seconds at rtol 1e-10 with a noiseless IMU on body B, sampled at 100 Hz."""
    return f"""
[simulation]
stop_time = 2.0
output_interval = 0.05
rtol = 1e-10
atol = 1e-12

[coupling]
solver = "{solver}"
{bodies}{joints}
[controllers.imu]
type = "imu"
vehicle = "B"
seed = 1
position = [{MOUNT[0]}, {MOUNT[1]}, {MOUNT[2]}]
gyro = {NO_NOISE}
accel = {NO_NOISE}
{controllers}"""


def readings(cols: dict[str, np.ndarray], sensor: str) -> np.ndarray:
    return np.column_stack([cols[f"imu.{sensor}[{i}]"] for i in (1, 2, 3)])


@pytest.mark.parametrize("solver", ["auto", "svd"])
def test_welded_body_feels_the_common_rigid_acceleration(run, solver):
    """Two GenericVehicles welded in line along x (B 1 m ahead of A), a constant surge force
    F = 9 N on A only, no surge damping: the pair translates with a = F / (2 m + 2 X_udot)
    = 9 / 45 = 0.2 m/s^2 (the force's line passes through the pair's centre of mass, no Munk
    moment without sway or heave), so B's accelerometer reads (0.2, 0, -g) and its gyro zero.
    The expectation holds exactly whatever the step (uniform acceleration from rest, neutral
    buoyancy), so the bound is the roundoff of the constraint solve, 1e-9 m/s^2; B's own FMU
    der(nu[1]) is 0 (no force acts on B itself), what the IMU read before."""
    force = 9.0
    bodies = vehicle("A", '"data.D_L[1]"', f'"tau_ext[1]" = {force}')
    bodies += vehicle("B", '"data.D_L[1]"', '"p[1]" = 1.0')
    weld = '\n[[joints]]\nname = "weld"\ntype = "weld"\na = "A"\nb = "B"\nat = [0.5, 0.0, 0.0]\n'
    cols, _ = run(scenario(solver, bodies, weld), f"weld_{solver}")
    rigid = force / (2 * MASS + 2 * SURGE_ADDED)
    accel = readings(cols, "accel")
    print(
        f"welded pair ({solver}): accelerometer off by {np.max(np.abs(accel - [rigid, 0, -G])):.1e}"
    )
    np.testing.assert_allclose(accel - [rigid, 0.0, -G], 0.0, rtol=0, atol=1e-9)
    np.testing.assert_allclose(readings(cols, "gyro"), 0.0, rtol=0, atol=1e-9)
    np.testing.assert_allclose(cols["B.nu[1]"], rigid * cols["time"], rtol=0, atol=1e-8)
    assert cols["B.p[1]"][-1] - 1.0 == pytest.approx(0.5 * rigid * 2.0**2, abs=1e-8)


@pytest.mark.parametrize("solver", ["auto", "svd"])
def test_body_turned_by_a_joint_motor_feels_its_torque(run, solver):
    """Body A fixed to the world, body B on a revolute joint about z through B's origin (its
    centre of mass), a motor torque tau = 3e-4 N.m from a joint PID's constant feedforward, no
    yaw damping: B spins up with alpha = tau / (I_zz + N_rdot) = 0.2 rad/s^2 (no gyroscopic
    or Munk moment about a principal axis without translation), its origin at rest. The IMU at
    r = (0.2, 0.05, -0.05) m reads the rate (0, 0, alpha t) and the specific force
    alpha e_z x r + w x (w x r) - g = (-alpha r_y - w^2 r_x, alpha r_x - w^2 r_y, -g). The
    motor's first command acts from the first sample on, after the IMU's sample at t = 0 (the
    state's acceleration up to then), so the rows from the second on are compared, to 1e-10:
    w = alpha t is linear in time, which RK45 integrates exactly, so only the roundoff of the
    solve and of w remains (measured below 1e-15)."""
    torque = 3e-4
    bodies = vehicle("A", '"data.D_L[6]"', "")
    bodies += vehicle("B", '"data.D_L[6]"', '"p[1]" = 1.0')
    joints = (
        '\n[[joints]]\nname = "base"\ntype = "fixed"\na = "A"\nat = [0.0, 0.0, 0.0]\n'
        '\n[[joints]]\nname = "hinge"\ntype = "revolute"\na = "A"\nb = "B"\n'
        "at = [1.0, 0.0, 0.0]\naxis = [0.0, 0.0, 1.0]\nmotor = { max_torque = 1.0 }\n"
    )
    drive = (
        '\n[controllers.drive]\ntype = "joint_pid"\nsample_time = 0.01\n'
        f"[controllers.drive.loops.hinge]\nfeedforward = {torque}\n"
    )
    cols, _ = run(scenario(solver, bodies, joints, drive), f"hinge_{solver}")
    t = cols["time"][1:]
    alpha = torque / (YAW_INERTIA + YAW_ADDED)
    w = alpha * t
    rx, ry = MOUNT[0], MOUNT[1]
    expected = np.column_stack(
        [-alpha * ry - w**2 * rx, alpha * rx - w**2 * ry, np.full_like(t, -G)]
    )
    accel = readings(cols, "accel")[1:]
    print(
        f"motor-driven body ({solver}): accelerometer off by {np.max(np.abs(accel - expected)):.1e}"
    )
    np.testing.assert_allclose(accel, expected, rtol=0, atol=1e-10)
    np.testing.assert_allclose(readings(cols, "gyro")[1:, 2], w, rtol=0, atol=1e-10)
    assert np.max(np.abs(cols["B.nu[1]"])) < 1e-9  # the origin stays on the axis


@pytest.mark.parametrize("solver", ["auto", "svd"])
def test_docking_impact_reaches_the_accelerometer(run, solver):
    """Two BlueROV2 Heavies, B closing on A at V = 0.1 m/s along their common x axis (centres
    of gravity on the ports' line, neutral buoyancy, no surge damping), dock plastically: by
    conservation of momentum both move at V/2 afterwards (equal masses with added mass), so
    A's velocity jumps by V/2 at the dock. The impulse is a Dirac in the acceleration that no
    sampled der(nu) holds; the accelerometer on A must feel it as the jump spread over the
    sample it falls in: its surge readings (100 Hz, every one recorded) sum to V/2 times the
    sample rate, to roundoff (1e-12 m/s; nothing else accelerates A), and the one sample that
    holds it reads V/2 / 0.01 s = 5 m/s^2."""
    speed, sample = 0.1, 0.01
    still = '"data.D_L[1]" = 0.0\n"data.D_Q[1]" = 0.0\n"data.r_g[3]" = 0.0\n'
    still += '"data.volume" = 0.0115\nhull_height = 0.0\n'
    text = f"""
[simulation]
stop_time = 1.0
output_interval = {sample}
rtol = 1e-10
atol = 1e-12

[coupling]
solver = "{solver}"

[components.A]
fmu = "BlueROV2Heavy"
[components.A.parameters]
{still}
[components.B]
fmu = "BlueROV2Heavy"
[components.B.parameters]
{still}[components.B.start]
"p[1]" = -0.53
"nu[1]" = {speed}

[[docking]]
a = "A"
port_a = 2
b = "B"
port_b = 1

[controllers.imu]
type = "imu"
vehicle = "A"
seed = 1
sample_time = {sample}
position = [0.1, 0.05, -0.05]
gyro = {NO_NOISE}
accel = {NO_NOISE}
"""
    cols, events = run(text, f"impact_{solver}")
    assert [e["event"] for e in events].count("dock") == 1
    surge = cols["imu.accel[1]"]
    print(f"impact ({solver}): surge readings sum to {surge.sum() * sample:.15f} m/s")
    assert surge.sum() * sample == pytest.approx(speed / 2, abs=1e-12)
    assert np.count_nonzero(np.abs(surge) > 1e-9) == 1
    assert cols["A.nu[1]"][-1] == pytest.approx(speed / 2, abs=1e-12)
    np.testing.assert_allclose(readings(cols, "gyro"), 0.0, rtol=0, atol=1e-12)
