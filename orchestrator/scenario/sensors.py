"""Scenario entries of the sensors (controllers of ``type`` imu, dvl, pressure_depth, ahrs,
usbl, fiducial_camera): their rates, mounts, seeds and noise, with BlueROV2-class defaults.

The models are in ``orchestrator.sensors``; ``orchestrator.controllers.sensing`` runs them.
Defaults name their sources; "assumed" marks a value no public source gives for this class of
vehicle.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Vector3 = tuple[float, float, float]


def _unused(setting: str, sensor: str) -> Any:  # noqa: ANN401 - a pydantic validator
    """A validator refusing a non-zero ``setting`` (a mount position or orientation) that the
    ``sensor``'s reading does not depend on: changing it would change nothing."""

    def refuse(cls: type, value: Vector3) -> Vector3:
        if any(value):
            raise ValueError(f"{sensor} does not depend on its {setting}: leave it out")
        return value

    return field_validator(setting)(classmethod(refuse))


class _SensorTable(BaseModel):
    # as the scenario's tables: no unknown keys, finite numbers unless a field allows inf
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class _Sensor(_SensorTable):
    """What every sensor has: its body, rate, mount and seed."""

    vehicle: str = Field(description="Body the sensor is fixed on (its p, q, nu are read)")
    seed: int = Field(
        0,
        ge=0,
        description="Seed of the noise; the stream is drawn from the seed and the sensor's "
        "name, so sensors sharing a seed are independent",
    )
    position: Vector3 = Field((0.0, 0.0, 0.0), description="Mount point, body frame (m)")
    orientation: Vector3 = Field(
        (0.0, 0.0, 0.0),
        description="Sensor axes relative to the body's: roll, pitch, yaw (deg, zyx)",
    )


class InertialNoiseConfig(_SensorTable):
    """Noise of a three-axis gyroscope (rad/s) or accelerometer (m/s^2), in continuous time."""

    noise_density: float = Field(ge=0, description="White noise density (unit/sqrt(Hz))")
    bias_driving: float = Field(
        ge=0, description="Density of the white noise driving the bias (unit/s/sqrt(Hz))"
    )
    bias_time_constant: float = Field(
        gt=0,
        allow_inf_nan=True,
        description="Gauss-Markov time constant of the bias (s; inf: walk)",
    )
    turn_on_std: float = Field(ge=0, description="Std of the bias drawn once at the start (unit)")


class ImuConfig(_Sensor):
    """IMU: angular rate and specific force with white noise, Gauss-Markov and turn-on biases
    discretised exactly (Maybeck 1979; the RotorS IMU, Furrer et al. 2016). Outputs
    ``gyro[1..3]`` (rad/s) and ``accel[1..3]`` (m/s^2), sensor frame. Defaults: the ADIS16448
    of the RotorS and UUV Simulator IMUs (Furrer et al. 2016; Manhães et al. 2016)."""

    type: Literal["imu"]
    sample_time: float = Field(0.01, gt=0, description="s (100 Hz)")
    gyro: InertialNoiseConfig = Field(
        InertialNoiseConfig(
            noise_density=3.394e-4,
            bias_driving=3.8785e-5,
            bias_time_constant=1000.0,
            turn_on_std=0.0087,
        ),
        description="Gyroscope noise (rad/s): density 3.394e-4 rad/s/sqrt(Hz), bias driver "
        "3.8785e-5 rad/s^2/sqrt(Hz), 1000 s, turn-on 0.0087 rad/s (ADIS16448)",
    )
    accel: InertialNoiseConfig = Field(
        InertialNoiseConfig(
            noise_density=4.0e-3, bias_driving=6.0e-3, bias_time_constant=300.0, turn_on_std=0.196
        ),
        description="Accelerometer noise (m/s^2): density 4e-3 m/s^2/sqrt(Hz), bias driver "
        "6e-3 m/s^3/sqrt(Hz), 300 s, turn-on 0.196 m/s^2 (ADIS16448)",
    )
    g: float = Field(9.81, gt=0, description="Gravity (m/s^2), as the vehicle FMUs'")


class DvlConfig(_Sensor):
    """Doppler velocity log, four Janus beams, bottom tracking over a flat seabed. Outputs
    ``velocity[1..3]`` (m/s, sensor frame), ``covariance[i,j]`` ((m/s)^2), ``fom`` (m/s),
    ``altitude`` (m), ``beam_valid[1..4]``, ``velocity_valid`` (1/0), ``time_of_validity``
    (the ping) and ``time_of_transmission`` (s), delivered ``latency`` after the ping; zeros
    when not valid. Defaults: a Water Linked DVL A50 (Water Linked, DVL A50 documentation and
    JSON protocol)."""

    type: Literal["dvl"]
    sample_time: float = Field(0.1, gt=0, description="Ping interval (s); the A50 pings at 4-26 Hz")
    tilt: float = Field(
        22.5,
        gt=0,
        lt=90,
        description="Beam angle from the sensor's z axis (deg; HoloOcean's default, Potokar "
        "et al. 2022)",
    )
    beam_noise: float = Field(
        0.005,
        ge=0,
        description="Std of each beam's velocity (m/s; the Nortek DVL500 of the WHOI ds_sim "
        "models, bottom track)",
    )
    range_noise: float = Field(0.01, ge=0, description="Std of each beam's range (m, assumed)")
    min_altitude: float = Field(0.05, ge=0, description="Lowest altitude with bottom lock (m, A50)")
    max_altitude: float = Field(
        50.0, gt=0, validate_default=True, description="Highest altitude with bottom lock (m, A50)"
    )
    max_speed: float = Field(2.0, gt=0, description="Fastest valid velocity (m/s, A50)")
    beam_dropout: float = Field(
        0.0, ge=0, le=1, description="Probability of losing a beam per ping"
    )
    latency: float = Field(
        0.19,
        ge=0,
        description="Ping to output (s): time_of_transmission - time_of_validity, 189 ms in the "
        "A50 protocol's example",
    )
    seabed_depth: float = Field(
        float("inf"),
        gt=0,
        allow_inf_nan=True,
        description="NED z of a flat seabed, below the surface (m; inf: none)",
    )

    @field_validator("max_altitude")
    @classmethod
    def _above_min_altitude(cls, highest: float, info: Any) -> float:  # noqa: ANN401
        lowest = info.data.get("min_altitude")
        if lowest is not None and highest <= lowest:
            raise ValueError(f"expected more than min_altitude ({lowest:g} m): no bottom lock")
        return highest


class PressureDepthConfig(_Sensor):
    """Pressure depth sensor, with the dynamic pressure of a regular wave. Outputs ``depth``
    (m) and ``pressure`` (gauge, Pa, noise-free). Defaults: a Blue Robotics Bar30
    (TE Connectivity MS5837-30BA datasheet: 0.2 mbar resolution, about 2 mm of water)."""

    type: Literal["pressure_depth"]
    sample_time: float = Field(0.05, gt=0, description="s (20 Hz)")
    noise: float = Field(0.002, ge=0, description="Std of the depth (m)")
    rho: float = Field(1000.0, gt=0, description="Water density (kg/m^3), as the vehicle FMUs'")
    rho_set: float = Field(
        1000.0,
        gt=0,
        description="Density the sensor converts pressure to depth with (kg/m^3); a wrong one "
        "scales the depth (997 fresh vs 1025 sea water: 2.8 %)",
    )
    g: float = Field(9.81, gt=0, description="Gravity (m/s^2), as the vehicle FMUs'")
    wave: str | None = Field(
        None,
        description="A RegularWave component whose amplitude, period, direction, phase and g "
        "give the wave's dynamic pressure (default: still water)",
    )

    _no_axes = _unused("orientation", "a pressure reading")


class AhrsConfig(_Sensor):
    """Attitude and heading reference (compass): roll, pitch, heading with noise, a slowly
    wandering heading error and an offset. Outputs ``roll``, ``pitch``, ``heading`` (rad,
    heading in [-pi, pi)). Defaults assumed: a MEMS AHRS with a magnetometer near thrusters."""

    type: Literal["ahrs"]
    sample_time: float = Field(0.02, gt=0, description="s (50 Hz)")
    tilt_noise: float = Field(0.2, ge=0, description="Std of roll and pitch (deg, assumed)")
    heading_noise: float = Field(0.5, ge=0, description="Std of the heading (deg, assumed)")
    heading_drift: float = Field(
        0.17,
        ge=0,
        description="Density driving the heading error (deg/s/sqrt(Hz)); with 600 s, a "
        "stationary std of 0.17 sqrt(300) = 2.9 deg (assumed)",
    )
    drift_time_constant: float = Field(
        600.0, gt=0, allow_inf_nan=True, description="Time constant of the heading error (s)"
    )
    heading_offset: float = Field(0.0, description="Fixed heading error (deg), e.g. declination")

    _no_position = _unused("position", "an attitude reading")


class UsblConfig(_Sensor):
    """Acoustic positioning of a transponder at the mount point from a fixed transceiver;
    range-dependent latency (two-way travel), update interval, outliers. Outputs
    ``position[1..3]`` (NED, m, the latest fix), ``range`` (m), ``fresh`` (1 on the sample a
    fix arrives), ``valid`` (1 once a fix has arrived) and ``time_of_validity`` (its ping, s).
    Defaults: a Water Linked Underwater GPS class system (range to 300 m; accuracy about 1 %
    of slant range, assumed)."""

    type: Literal["usbl"]
    sample_time: float = Field(
        0.01, gt=0, description="How often arrivals are looked for (s): the latency's resolution"
    )
    interval: float = Field(1.0, gt=0, validate_default=True, description="Ping interval (s)")
    transceiver: Vector3 = Field((0.0, 0.0, 0.0), description="Transceiver position, NED (m)")
    sound_speed: float = Field(1500.0, gt=0, description="m/s")
    turnaround: float = Field(0.05, ge=0, description="Processing delay (s, assumed)")
    noise_floor: float = Field(0.1, ge=0, description="Std per axis at zero range (m, assumed)")
    noise_fraction: float = Field(0.01, ge=0, description="Std per axis per m of slant range")
    outlier_probability: float = Field(0.02, ge=0, le=1, description="Per fix (assumed)")
    outlier_std: float = Field(5.0, ge=0, description="Std per axis of an outlier (m, assumed)")
    max_range: float = Field(300.0, gt=0, description="No reply beyond (m)")

    _no_axes = _unused("orientation", "an acoustic fix of the mount point")

    @field_validator("interval")
    @classmethod
    def _not_below_sample_time(cls, interval: float, info: Any) -> float:  # noqa: ANN401
        # pings are sent at samples: a shorter interval would silently become the sample time
        sample_time = info.data.get("sample_time")
        if sample_time is not None and interval < sample_time:
            raise ValueError(f"expected at least sample_time ({sample_time:g} s)")
        return interval


class FiducialCameraConfig(_Sensor):
    """Camera detecting a fiducial marker (docking): relative position, bearing and yaw within
    the field of view, above a smallest marker size in pixels, with dropouts, delivered
    ``latency`` after the frame. Outputs ``detected`` (1/0), ``position[1..3]`` (camera frame:
    x along the optical axis, m), ``azimuth``, ``elevation``, ``relative_yaw`` (rad),
    ``pixels`` and ``time_of_validity`` (s). The camera looks along the sensor x axis.
    Defaults: the BlueROV2 Heavy's 1080p camera (fx 1078 px, from the calibration of the
    Robotic Decision Making Lab's blue project) and the 25 px limit and 10 Hz of the ArUco
    detector of the bluerov2_dock project (Oregon State University)."""

    type: Literal["fiducial_camera"]
    sample_time: float = Field(0.1, gt=0, description="Frame interval (s)")
    latency: float = Field(0.15, ge=0, description="Frame to output (s, assumed: 0.1-0.25 s)")
    target: str | None = Field(
        None, description="Body carrying the marker (default: the marker is fixed in NED)"
    )
    marker_position: Vector3 = Field(
        (0.0, 0.0, 0.0), description="Marker centre, in the target's frame or NED (m)"
    )
    marker_orientation: Vector3 = Field(
        (0.0, 0.0, 0.0),
        description="Marker axes (x: outward normal) from the target's or NED: roll, pitch, "
        "yaw (deg, zyx)",
    )
    marker_size: float = Field(0.2, gt=0, description="Side of the square marker (m)")
    focal_length: float = Field(1078.0, gt=0, description="px")
    width: int = Field(1920, gt=0, description="Image width (px)")
    height: int = Field(1080, gt=0, description="Image height (px)")
    min_pixels: float = Field(25.0, ge=0, description="Smallest detected marker side (px)")
    max_view_angle: float = Field(
        60.0,
        gt=0,
        le=90,
        description="Largest angle of the marker's normal off the line of sight (deg, assumed)",
    )
    pixel_noise: float = Field(0.5, ge=0, description="Std of the marker centre (px, assumed)")
    dropout: float = Field(0.05, ge=0, le=1, description="Probability of a missed frame (assumed)")

    @field_validator("target")
    @classmethod
    def _another_body(cls, target: str | None, info: Any) -> str | None:  # noqa: ANN401
        if target is not None and target == info.data.get("vehicle"):
            raise ValueError(
                f"expected another body than the camera's vehicle '{target}' (a marker fixed "
                "on the camera's own body never moves in its image)"
            )
        return target


SENSOR_CONFIGS = (
    ImuConfig,
    DvlConfig,
    PressureDepthConfig,
    AhrsConfig,
    UsblConfig,
    FiducialCameraConfig,
)
SENSOR_TYPES = ("imu", "dvl", "pressure_depth", "ahrs", "usbl", "fiducial_camera")
