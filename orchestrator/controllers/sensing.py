"""Sensors as sampled blocks: each reads its body's true state at its own sample times and
outputs measurements and validity flags (``orchestrator.sensors`` holds the models).

Inputs are the body's ``p``, ``q``, ``nu`` (and the IMU's ``der(nu)``, with the joints'
forces on a body in the constraint coupling, and its ``nu_jump`` there; the camera's target
pose); outputs are ``<sensor>.<signal>``, recorded as columns and readable by other
controllers. The noise stream is seeded by the scenario's ``seed`` and the sensor's name, and
each sample draws a fixed count of numbers, so a run is reproducible and its noise does not
depend on the integrator or its step. A sensor with a latency delivers every output that much
after its sample (the master's delay line); its ``time_of_validity`` output is the sample.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from orchestrator.controllers.base import Controller, body_state_signals
from orchestrator.kinematics import cross, rotation_matrix
from orchestrator.scenario.sensors import (
    AhrsConfig,
    DvlConfig,
    FiducialCameraConfig,
    ImuConfig,
    PressureDepthConfig,
    UsblConfig,
)
from orchestrator.sensors.ahrs import Ahrs, AhrsSettings
from orchestrator.sensors.dvl import Dvl, DvlSettings
from orchestrator.sensors.fiducial import CameraSettings, FiducialCamera
from orchestrator.sensors.imu import Imu, InertialNoise
from orchestrator.sensors.mount import Mount, point_state, specific_force
from orchestrator.sensors.pressure import STILL_WATER, PressureDepth, PressureSettings, RegularWave
from orchestrator.sensors.usbl import Usbl, UsblSettings

SensorConfig = (
    ImuConfig | DvlConfig | PressureDepthConfig | AhrsConfig | UsblConfig | FiducialCameraConfig
)


def noise_stream(seed: int, name: str) -> np.random.Generator:
    """The random stream of sensor ``name``: from the seed and the name (CRC-32), so two
    sensors with one seed draw independent streams."""
    return np.random.default_rng([seed, zlib.crc32(name.encode())])


def vector(signal: str, n: int) -> list[str]:
    """``<signal>[1..n]``."""
    return [f"{signal}[{i}]" for i in range(1, n + 1)]


class Sensor(Controller):
    """A sensor fixed on a body: reads the body's state first among its inputs; ``outputs``
    are signal names without the sensor's name."""

    def __init__(
        self,
        name: str,
        config: SensorConfig,
        outputs: list[str],
        extra_inputs: tuple[str, ...] = (),
    ) -> None:
        inputs = body_state_signals(config.vehicle) + list(extra_inputs)
        qualified = [f"{name}.{signal}" for signal in outputs]
        super().__init__(name, config.sample_time, inputs, qualified)
        self.mount = Mount.from_euler(config.position, tuple(np.radians(config.orientation)))
        self.rng = noise_stream(config.seed, name)

    @staticmethod
    def body(inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The body's ``p`` (NED, m), ``q`` and ``nu`` among the inputs."""
        return inputs[0:3], inputs[3:7], inputs[7:13]


class ImuSensor(Sensor):
    """IMU (:mod:`orchestrator.sensors.imu`) on the body's true rate and specific force. On a
    body of the constraint coupling (``coupled``) a sample also feels the jumps of the body's
    velocity at docking impacts since the previous sample (``nu_jump``), spread over the
    sample interval: an impulse, as an accelerometer averaging over its interval feels it."""

    def __init__(self, name: str, config: ImuConfig, coupled: bool = False) -> None:
        derivatives = tuple(f"{config.vehicle}.der(nu[{i}])" for i in range(1, 7))
        if coupled:
            derivatives += tuple(f"{config.vehicle}.nu_jump[{i}]" for i in range(1, 7))
        outputs = vector("gyro", 3) + vector("accel", 3)
        super().__init__(name, config, outputs, derivatives)
        gyro, accel = (InertialNoise(**c.model_dump()) for c in (config.gyro, config.accel))
        self.imu = Imu(config.sample_time, self.rng, gyro, accel)
        self.g = config.g
        self.jumps = np.zeros(6) if coupled else None  # nu_jump at the previous sample

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        _, q, nu = self.body(inputs)
        rate = self.mount.rotation.T @ nu[3:]
        force = specific_force(self.mount, q, nu, inputs[13:19], self.g)
        if self.jumps is not None and (inputs[19:25] != self.jumps).any():
            jump, self.jumps = inputs[19:25] - self.jumps, inputs[19:25].copy()
            point = jump[:3] + cross(jump[3:], self.mount.position)  # m/s, body frame
            force = force + self.mount.rotation.T @ point / self.sample_time
        return np.array(self.imu.measure(rate.tolist(), force.tolist()))


class DvlSensor(Sensor):
    """DVL (:mod:`orchestrator.sensors.dvl`) over a flat seabed."""

    def __init__(self, name: str, config: DvlConfig) -> None:
        covariance = [f"covariance[{i},{j}]" for i in (1, 2, 3) for j in (1, 2, 3)]
        outputs = vector("velocity", 3) + covariance + ["fom", "altitude"]
        outputs += vector("beam_valid", 4)
        outputs += ["velocity_valid", "time_of_validity", "time_of_transmission"]
        super().__init__(name, config, outputs)
        settings = DvlSettings(
            tilt=math.radians(config.tilt),
            beam_noise=config.beam_noise,
            range_noise=config.range_noise,
            min_altitude=config.min_altitude,
            max_altitude=config.max_altitude,
            max_speed=config.max_speed,
            beam_dropout=config.beam_dropout,
        )
        self.dvl = Dvl(settings, self.rng)
        self.latency = config.latency
        self.seabed = config.seabed_depth

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        state = point_state(self.mount, *self.body(inputs))
        r = self.dvl.ping(state.velocity, state.attitude, self.seabed - state.position[2])
        return np.concatenate(
            [
                r.velocity,
                r.covariance.ravel(),
                [r.fom, r.altitude],
                r.beam_valid.astype(float),
                [float(r.velocity_valid), time, time + self.latency],
            ]
        )


class PressureDepthSensor(Sensor):
    """Pressure depth (:mod:`orchestrator.sensors.pressure`) at the mount point."""

    def __init__(self, name: str, config: PressureDepthConfig, wave: RegularWave) -> None:
        super().__init__(name, config, ["depth", "pressure"])
        settings = PressureSettings(config.rho, config.rho_set, config.g, config.noise)
        self.sensor = PressureDepth(settings, wave, self.rng)

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        p, q, _ = self.body(inputs)
        position = p + rotation_matrix(q) @ self.mount.position
        pressure, depth = self.sensor.measure(time, position)
        return np.array([depth, pressure])


class AhrsSensor(Sensor):
    """Attitude and heading (:mod:`orchestrator.sensors.ahrs`) of the sensor's axes."""

    def __init__(self, name: str, config: AhrsConfig) -> None:
        super().__init__(name, config, ["roll", "pitch", "heading"])
        settings = AhrsSettings(
            tilt_noise=math.radians(config.tilt_noise),
            heading_noise=math.radians(config.heading_noise),
            heading_drift=math.radians(config.heading_drift),
            drift_time_constant=config.drift_time_constant,
            heading_offset=math.radians(config.heading_offset),
        )
        self.ahrs = Ahrs(settings, config.sample_time, self.rng)

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        _, q, _ = self.body(inputs)
        return self.ahrs.measure(rotation_matrix(q) @ self.mount.rotation)


class UsblSensor(Sensor):
    """Acoustic positioning (:mod:`orchestrator.sensors.usbl`) of the mount point: pings every
    ``interval``, outputs each fix on the first sample after its reply arrives."""

    def __init__(self, name: str, config: UsblConfig) -> None:
        outputs = vector("position", 3) + ["range", "fresh", "valid", "time_of_validity"]
        super().__init__(name, config, outputs)
        settings = UsblSettings(
            transceiver=config.transceiver,
            sound_speed=config.sound_speed,
            turnaround=config.turnaround,
            noise_floor=config.noise_floor,
            noise_fraction=config.noise_fraction,
            outlier_probability=config.outlier_probability,
            outlier_std=config.outlier_std,
            max_range=config.max_range,
        )
        self.usbl = Usbl(settings, self.rng)
        self.interval = config.interval
        self.pings = 0  # pings so far: the next is due at start + pings * interval
        self.start: float | None = None
        self.held = np.zeros(len(outputs))

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        if self.start is None:
            self.start = time
        # a tolerance of a microsecond against the rounding of sample times
        if time >= self.start + self.pings * self.interval - 1e-6:
            p, q, _ = self.body(inputs)
            self.usbl.ping(time, p + rotation_matrix(q) @ self.mount.position)
            self.pings += 1
        fixes = self.usbl.arrived(time)
        self.held[4] = 0.0
        if fixes:
            fix = fixes[-1]
            self.held[:] = [*fix.position, fix.range, 1.0, 1.0, fix.time_of_validity]
        return self.held.copy()


class FiducialCameraSensor(Sensor):
    """Fiducial camera (:mod:`orchestrator.sensors.fiducial`) watching a marker fixed in NED
    or on a target body."""

    def __init__(self, name: str, config: FiducialCameraConfig) -> None:
        target = ()
        if config.target is not None:
            target = tuple(body_state_signals(config.target)[:7])
        outputs = ["detected", *vector("position", 3), "azimuth", "elevation"]
        outputs += ["relative_yaw", "pixels", "time_of_validity"]
        super().__init__(name, config, outputs, target)
        settings = CameraSettings(
            focal_length=config.focal_length,
            width=config.width,
            height=config.height,
            marker_size=config.marker_size,
            min_pixels=config.min_pixels,
            max_view_angle=math.radians(config.max_view_angle),
            pixel_noise=config.pixel_noise,
            dropout=config.dropout,
        )
        self.camera = FiducialCamera(settings, self.rng)
        self.latency = config.latency
        self.on_target = config.target is not None
        self.marker = Mount.from_euler(
            config.marker_position, tuple(np.radians(config.marker_orientation))
        )

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        p, q, _ = self.body(inputs)
        R = rotation_matrix(q)
        position, rotation = self.marker.position, self.marker.rotation
        if self.on_target:
            p_t, R_t = inputs[13:16], rotation_matrix(inputs[16:20])
            position, rotation = p_t + R_t @ position, R_t @ rotation
        seen = self.camera.observe(
            p + R @ self.mount.position, R @ self.mount.rotation, position, rotation
        )
        return np.concatenate(
            [
                [float(seen.detected)],
                seen.position,
                [seen.azimuth, seen.elevation, seen.relative_yaw, seen.pixels, time],
            ]
        )


def wave_of(values: np.ndarray) -> RegularWave:
    """A regular wave from a RegularWave component's amplitude, period, direction, phase[1]
    and g (m, s, rad, rad, m/s^2)."""
    amplitude, period, direction, phase, g = (float(v) for v in values)
    return RegularWave(amplitude, period, direction, phase, g)


WAVE_PARAMETERS = ["amplitude", "period", "direction", "phase[1]", "g"]


def make_sensor(
    name: str, config: SensorConfig, wave_values: np.ndarray | None = None, coupled: bool = False
) -> Sensor:
    """The sensor of a scenario entry; ``wave_values`` are the wave component's
    :data:`WAVE_PARAMETERS` for a pressure sensor in a wave; ``coupled``: its body is in the
    constraint coupling."""
    if isinstance(config, ImuConfig):
        return ImuSensor(name, config, coupled)
    if isinstance(config, DvlConfig):
        return DvlSensor(name, config)
    if isinstance(config, PressureDepthConfig):
        wave = STILL_WATER if wave_values is None else wave_of(wave_values)
        return PressureDepthSensor(name, config, wave)
    if isinstance(config, AhrsConfig):
        return AhrsSensor(name, config)
    if isinstance(config, UsblConfig):
        return UsblSensor(name, config)
    return FiducialCameraSensor(name, config)
