"""A vehicle's true motion in closed form and the sensors and navigation filter run on it,
sampled as the master samples controllers (file order at each tick, outputs of a controller
with a latency applied that many ticks later), for the estimation checks."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from orchestrator.controllers.base import body_state_signals
from orchestrator.controllers.navigation import NavigationFilter
from orchestrator.controllers.sensing import make_sensor
from orchestrator.kinematics import quaternion_from_euler, rotation_matrix
from orchestrator.scenario.navigation import NavigationFilterConfig
from orchestrator.scenario.sensors import (
    AhrsConfig,
    DvlConfig,
    ImuConfig,
    PressureDepthConfig,
    UsblConfig,
)

TICK = 0.01  # s, the IMU's sample time
LAT = 0.19
IMU_AT = (0.0, 0.0, -0.05)


@dataclass(frozen=True)
class Manoeuvre:
    """A smooth three-dimensional manoeuvre: NED position a Lissajous curve (up to about
    1 m/s), roll, pitch and yaw sinusoids (6, 5 and 46 deg)."""

    depth: float = 3.0

    def position(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """p (m), v (m/s), a (m/s^2), NED."""
        p = [
            4 * math.sin(0.25 * t),
            3 * (1 - math.cos(0.2 * t)),
            self.depth + 0.5 * math.sin(0.3 * t),
        ]
        v = [1.0 * math.cos(0.25 * t), 0.6 * math.sin(0.2 * t), 0.15 * math.cos(0.3 * t)]
        a = [-0.25 * math.sin(0.25 * t), 0.12 * math.cos(0.2 * t), -0.045 * math.sin(0.3 * t)]
        return np.array(p), np.array(v), np.array(a)

    def euler(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """Roll, pitch, yaw (rad) and their rates."""
        angles = [
            0.1 * math.sin(0.5 * t),
            0.08 * math.sin(0.4 * t + 1),
            0.5 + 0.8 * math.sin(0.15 * t),
        ]
        rates = [0.05 * math.cos(0.5 * t), 0.032 * math.cos(0.4 * t + 1), 0.12 * math.cos(0.15 * t)]
        return np.array(angles), np.array(rates)

    def rate(self, t: float) -> np.ndarray:
        """Body angular velocity (rad/s) from the Euler rates (Fossen 2011, eq. 2.29)."""
        (phi, theta, _), (dphi, dtheta, dpsi) = self.euler(t)
        return np.array(
            [
                dphi - dpsi * math.sin(theta),
                dtheta * math.cos(phi) + dpsi * math.cos(theta) * math.sin(phi),
                -dtheta * math.sin(phi) + dpsi * math.cos(theta) * math.cos(phi),
            ]
        )

    def state(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """p, q, nu, der(nu) in the FMUs' layout (der(nu): body-frame derivative of nu)."""
        p, v, a = self.position(t)
        angles, _ = self.euler(t)
        q = quaternion_from_euler(*angles)
        R = rotation_matrix(q)
        w = self.rate(t)
        h = 1e-5
        w_dot = (self.rate(t + h) - self.rate(t - h)) / (2 * h)
        v_body = R.T @ v
        v_body_dot = R.T @ a - np.cross(w, v_body)
        return p, q, np.concatenate([v_body, w]), np.concatenate([v_body_dot, w_dot])


def sensor_suite(seed: int, vehicle: str = "rov") -> dict[str, object]:
    """The BlueROV2-class sensors of scenarios/bluerov2_heavy_sensors.toml (mounts, defaults),
    in still water and without USBL outliers (a filter's consistency is checked against the
    noise it models)."""
    common = {"vehicle": vehicle, "seed": seed}
    return {
        "imu": ImuConfig(type="imu", position=IMU_AT, **common),
        "dvl": DvlConfig(
            type="dvl", position=(-0.1, 0.0, 0.1), seabed_depth=10.0, latency=LAT, **common
        ),
        "depth": PressureDepthConfig(type="pressure_depth", position=(-0.2, 0.0, 0.0), **common),
        "ahrs": AhrsConfig(type="ahrs", **common),
        "usbl": UsblConfig(
            type="usbl", transceiver=(0.0, -20.0, 0.0), outlier_probability=0.0, **common
        ),
    }


FUSED = ("imu", "dvl", "depth", "ahrs", "usbl")


def navigation_config(
    seed: int, fused: tuple[str, ...] = FUSED, **keys: object
) -> NavigationFilterConfig:
    """A filter fusing the ``fused`` sensors of :func:`sensor_suite`."""
    names = {k: k for k in fused}
    return NavigationFilterConfig(
        type="navigation_filter", vehicle="rov", seed=seed, **names, **keys
    )


@dataclass
class Record:
    """Per tick: time (s), the true error-state reference (p NED, v body frame, q, biases
    body frame, compass heading error) and the filter's state and covariance."""

    time: list[float]
    truth: list[tuple]
    estimate: list[tuple]


def run(
    seed: int,
    duration: float,
    manoeuvre: Manoeuvre = Manoeuvre(),
    fused: tuple[str, ...] = FUSED,
    **keys: object,
) -> tuple[NavigationFilter, Record]:
    """Sensors and filter on the manoeuvre for ``duration`` (s); the filter and a Record."""
    sensors = sensor_suite(seed)
    made = {name: make_sensor(name, config) for name, config in sensors.items()}
    config = navigation_config(seed, fused, **keys)
    nav = NavigationFilter("nav", config, {k: sensors[k] for k in fused})
    controllers = [*made.values(), nav]
    bus: dict[str, float] = {}
    pending: list[tuple[int, list[str], np.ndarray]] = []
    truth_names = body_state_signals("rov") + [f"rov.der(nu[{i}])" for i in range(1, 7)]
    imu = made["imu"]
    record = Record([], [], [])
    for k in range(round(duration / TICK) + 1):
        t = k * TICK
        p, q, nu, nu_dot = manoeuvre.state(t)
        bus.update(zip(truth_names, np.concatenate([p, q, nu, nu_dot]), strict=True))
        for due in [e for e in pending if e[0] <= k]:
            bus.update(zip(due[1], due[2], strict=True))
            pending.remove(due)
        # the true IMU biases of this sample (the bias steps after it), body frame
        gyro_bias = imu.mount.rotation @ np.add(imu.imu.gyro.turn_on, imu.imu.gyro.bias)
        accel_bias = imu.mount.rotation @ np.add(imu.imu.accel.turn_on, imu.imu.accel.bias)
        heading_error = made["ahrs"].ahrs.drift
        for c in controllers:
            if k % round(c.sample_time / TICK):
                continue
            out = c.step(t, np.array([bus.get(n, 0.0) for n in c.inputs]))
            if c.latency > 0:
                pending.append((k + max(1, round(c.latency / TICK)), c.outputs, out))
            else:
                bus.update(zip(c.outputs, out, strict=True))
        f = nav.fusion.filter
        v = nu[:3]
        record.time.append(t)
        record.truth.append((p, v, q, accel_bias, gyro_bias, heading_error))
        s = f.state
        record.estimate.append(
            (s.p, s.v, s.q, s.accel_bias, s.gyro_bias, s.heading_error, f.covariance)
        )
    return nav, record
