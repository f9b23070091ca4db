"""Scenario entry of the navigation filter (controller ``type = "navigation_filter"``): which
sensors it fuses, how it starts, and where its model departs from theirs.

The filter is in ``orchestrator.navigation``; ``orchestrator.controllers.navigation`` runs it.
By default the filter assumes each sensor's configured noise (a filter matched to its sensors);
a key here overrides one where the sensor's error is larger than its white noise. A slowly
varying error (a wave's dynamic pressure swinging the depth reading) is not white noise, and no
noise level makes the filter consistent with it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class NavigationFilterConfig(BaseModel):
    """Error-state Kalman filter (Sola 2017) with IMU mechanisation at the IMU's rate, fusing
    DVL velocity, pressure depth, AHRS attitude and heading, and acoustic position fixes, late
    ones at their time of validity. Outputs the estimate in the true state's layout ``p[1..3]``
    (NED, m), ``q[1..4]``, ``nu[1..6]`` (body frame, m/s, rad/s), so a controller with
    ``state = "<this name>"`` flies on it, and ``variance[1..16]`` (the error state's
    covariance diagonal: position NED m^2, velocity body frame (m/s)^2, attitude about body axes
    rad^2, accelerometer bias (m/s^2)^2, gyroscope bias (rad/s)^2, compass heading error
    rad^2), ``sigma_nu[1..3]`` (std of the body velocity, m/s), ``accel_bias[1..3]``,
    ``gyro_bias[1..3]`` (body frame), ``heading_error`` (rad), ``stale`` and ``rejected``
    (measurements dropped as too late or gated out so far). Runs at the IMU's sample time,
    after the sensors it reads (file order)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    type: Literal["navigation_filter"]
    sample_time: float = Field(
        0.01, gt=0, description="s: the IMU's sample time (each IMU sample propagates the filter)"
    )
    vehicle: str = Field(description="Body whose state is estimated (read once, to start)")
    imu: str = Field(description="The IMU controller (type imu) that drives the propagation")
    dvl: str | None = Field(None, description="A DVL controller whose velocity is fused")
    depth: str | None = Field(None, description="A pressure_depth controller whose depth is fused")
    ahrs: str | None = Field(None, description="An AHRS controller whose attitude is fused")
    usbl: str | None = Field(None, description="A USBL controller whose fixes are fused")
    seed: int = Field(
        0,
        ge=0,
        description="Seed of the start error: the filter starts at the true state plus a draw "
        "from its initial covariance (stream from the seed and the filter's name)",
    )
    position_std: float = Field(0.5, gt=0, description="Initial position std per axis (m)")
    velocity_std: float = Field(0.1, gt=0, description="Initial velocity std per axis (m/s)")
    tilt_std: float = Field(1.0, gt=0, description="Initial roll and pitch std (deg)")
    heading_std: float = Field(5.0, gt=0, description="Initial heading std (deg)")
    depth_noise: float | None = Field(
        None,
        gt=0,
        description="Depth std the filter assumes (m; default: the sensor's noise), for "
        "errors the sensor's white noise leaves out",
    )
    gate: float = Field(
        0.9999,
        gt=0,
        lt=1,
        description="Chi-square probability of the innovation gate: a measurement beyond it is "
        "rejected (USBL outliers)",
    )
    horizon: float = Field(
        1.0,
        gt=0,
        description="History kept to fuse late measurements at their time of validity (s); "
        "older ones are dropped as stale",
    )
