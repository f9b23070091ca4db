"""The navigation filter as a controller: reads the IMU and the aiding sensors' outputs at the
IMU's rate, runs the error-state Kalman filter (``orchestrator.navigation``) and outputs the
estimate in the true state's layout, so other controllers can fly on it.

A sample of the IMU propagates the filter over the interval before it (the previous sample
held). A DVL ping or an acoustic fix is fused when it arrives (its ``time_of_validity`` newer
than the last fused one and its validity flag set), at its time of validity: the filter runs
again from there (:class:`~orchestrator.navigation.history.LaggedFusion`). Depth and AHRS
readings, published at their samples, are fused at the samples' times. The filter starts at
the body's true state plus a seeded draw from its initial covariance; the biases start at zero.
"""

from __future__ import annotations

import math

import numpy as np

from orchestrator.controllers.base import Controller, body_state_signals
from orchestrator.controllers.sensing import SensorConfig, noise_stream, vector
from orchestrator.kinematics import cross_floats
from orchestrator.navigation import measurements
from orchestrator.navigation.eskf import (
    ACCEL_BIAS,
    ATTITUDE,
    GYRO_BIAS,
    HEADING_ERROR,
    POSITION,
    SIZE,
    VELOCITY,
    ErrorStateFilter,
    NavigationState,
    ProcessNoise,
)
from orchestrator.navigation.history import (
    SAME_TIME,
    LaggedFusion,
    Step,
    measurement_step,
    propagation_step,
)
from orchestrator.scenario.navigation import NavigationFilterConfig
from orchestrator.scenario.sensors import (
    AhrsConfig,
    DvlConfig,
    ImuConfig,
    InertialNoiseConfig,
    PressureDepthConfig,
    UsblConfig,
)
from orchestrator.sensors.mount import Mount

# the sensor types the filter's keys name
FUSED = {"imu": ImuConfig, "dvl": DvlConfig, "depth": PressureDepthConfig}
FUSED |= {"ahrs": AhrsConfig, "usbl": UsblConfig}
TYPE_NAMES = {"imu": "imu", "dvl": "dvl", "depth": "pressure_depth", "ahrs": "ahrs"}
TYPE_NAMES |= {"usbl": "usbl"}
ESTIMATE = np.r_[0:3, 6:10, 3:6]  # p, q, v of the nominal state, in the true state's order


def fused_sensors(
    name: str, config: NavigationFilterConfig, controllers: dict[str, object]
) -> dict[str, SensorConfig]:
    """The sensor configurations the filter ``name`` fuses, by key (imu, dvl, ...), from the
    scenario's ``controllers`` (in file order). ValueError '<key>: <what was expected>' if a
    key names no controller, one of another type or on another body, or one after the
    filter."""
    order = list(controllers)
    found: dict[str, SensorConfig] = {}
    for key, kind in FUSED.items():
        sensor = getattr(config, key)
        if sensor is None:
            continue
        entry = controllers.get(sensor)
        if not isinstance(entry, kind):
            raise ValueError(
                f"{key}: '{sensor}' is not a controller of type {TYPE_NAMES[key]} in this scenario"
            )
        if entry.vehicle != config.vehicle:
            raise ValueError(f"{key}: '{sensor}' is on '{entry.vehicle}', not '{config.vehicle}'")
        if name in order and order.index(sensor) > order.index(name):
            raise ValueError(f"{key}: '{sensor}' must come before the filter (file order)")
        found[key] = entry
    if abs(found["imu"].sample_time - config.sample_time) > 1e-12:
        raise ValueError(
            f"sample_time: expected the IMU's, {found['imu'].sample_time} s "
            f"(got {config.sample_time} s)"
        )
    return found


def _bias_variance(noise: InertialNoiseConfig) -> float:
    """Variance of an IMU bias at the start (unit^2): turn-on plus the Gauss-Markov part's
    stationary variance (none for a walk, which starts at zero)."""
    stationary = noise.bias_driving**2 * noise.bias_time_constant / 2
    return noise.turn_on_std**2 + (stationary if math.isfinite(stationary) else 0.0)


def _mount(config: SensorConfig) -> Mount:
    return Mount.from_euler(config.position, tuple(np.radians(config.orientation)))


class NavigationFilter(Controller):
    """Error-state Kalman filter of ``config.vehicle`` fusing the ``sensors`` (configurations
    by key, :func:`fused_sensors`); outputs as listed by
    :class:`~orchestrator.scenario.navigation.NavigationFilterConfig`."""

    def __init__(
        self, name: str, config: NavigationFilterConfig, sensors: dict[str, SensorConfig]
    ) -> None:
        imu = sensors["imu"]
        self.config, self.sensors = config, sensors
        names = {key: getattr(config, key) for key in sensors}
        inputs = body_state_signals(config.vehicle)
        inputs += [f"{names['imu']}.{s}" for s in vector("gyro", 3) + vector("accel", 3)]
        self.slots: dict[str, slice] = {"truth": slice(0, 13), "imu": slice(13, 19)}
        signals = {
            "dvl": vector("velocity", 3)
            + [f"covariance[{i},{j}]" for i in (1, 2, 3) for j in (1, 2, 3)]
            + ["velocity_valid", "time_of_validity"],
            "depth": ["depth"],
            "ahrs": ["roll", "pitch", "heading"],
            "usbl": vector("position", 3) + ["valid", "time_of_validity"],
        }
        for key, own in signals.items():
            if key in sensors:
                self.slots[key] = slice(len(inputs), len(inputs) + len(own))
                inputs += [f"{names[key]}.{s}" for s in own]
        outputs = body_state_signals(name) + [f"{name}.{s}" for s in vector("variance", SIZE)]
        outputs += [f"{name}.{s}" for s in vector("sigma_nu", 3)]
        outputs += [f"{name}.{s}" for s in vector("accel_bias", 3) + vector("gyro_bias", 3)]
        outputs += [f"{name}.{s}" for s in ("heading_error", "stale", "rejected")]
        super().__init__(name, config.sample_time, inputs, outputs)
        self.mounts = {key: _mount(c) for key, c in sensors.items()}
        self.models = self._models()
        heading = sensors.get("ahrs")
        self.noise = ProcessNoise(
            accel_density=imu.accel.noise_density,
            gyro_density=imu.gyro.noise_density,
            accel_bias_driving=imu.accel.bias_driving,
            gyro_bias_driving=imu.gyro.bias_driving,
            heading_driving=math.radians(heading.heading_drift) if heading else 0.0,
            heading_time_constant=heading.drift_time_constant if heading else math.inf,
        )
        self.reset()

    def reset(self) -> None:
        self.fusion: LaggedFusion | None = None
        self.start = 0.0
        self.held: np.ndarray | None = None  # last IMU sample: rate, force (body frame)
        self.last = {key: -math.inf for key in ("dvl", "usbl")}  # times of validity fused
        self.samples = {key: -1 for key in ("depth", "ahrs")}  # sample counts fused

    def initial_covariance(self) -> np.ndarray:
        """The error state's covariance at the start (16, 16)."""
        c, imu = self.config, self.sensors["imu"]
        variance = np.zeros(SIZE)
        variance[POSITION] = c.position_std**2
        variance[VELOCITY] = c.velocity_std**2
        variance[ATTITUDE] = np.radians([c.tilt_std, c.tilt_std, c.heading_std]) ** 2
        variance[ACCEL_BIAS] = _bias_variance(imu.accel)
        variance[GYRO_BIAS] = _bias_variance(imu.gyro)
        ahrs = self.sensors.get("ahrs")
        if ahrs is not None and math.isfinite(ahrs.drift_time_constant):
            drift = math.radians(ahrs.heading_drift)
            variance[HEADING_ERROR] = drift**2 * ahrs.drift_time_constant / 2
        return np.diag(variance)

    def _start(self, time: float, truth: np.ndarray) -> None:
        """Start at the true state plus a draw from the initial covariance (p, v, attitude)."""
        P = self.initial_covariance()
        rng = noise_stream(self.config.seed, self.name)
        error = np.zeros(SIZE)
        error[:9] = rng.standard_normal(9) * np.sqrt(np.diag(P)[:9])
        q = truth[3:7] / np.linalg.norm(truth[3:7])
        zero = np.zeros(3)
        true = NavigationState(truth[0:3].copy(), truth[7:10].copy(), q, zero, zero)
        imu = self.sensors["imu"]
        navigation = ErrorStateFilter(
            true.corrected(error), P, self.noise, imu.sample_time, imu.g, self.config.gate
        )
        self.fusion = LaggedFusion(navigation, self.config.horizon)
        self.start = time

    def _imu(self, inputs: np.ndarray) -> np.ndarray:
        """Angular rate (rad/s) and specific force at the body origin (m/s^2), body frame,
        of an IMU sample, one after the other (its lever arm's centripetal term removed, with
        the rate estimate; the angular-acceleration term, unmeasured, is neglected)."""
        mount = self.mounts["imu"]
        reading = inputs[self.slots["imu"]]
        sample = np.empty(6)
        sample[:3] = rate = mount.rotation @ reading[:3]
        w = (rate - self.fusion.filter.gyro_bias).tolist()
        centripetal = cross_floats(w, cross_floats(w, mount.position.tolist()))
        sample[3:] = mount.rotation @ reading[3:] - np.array(centripetal)
        return sample

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        if self.fusion is None:
            self._start(time, inputs[self.slots["truth"]])
        steps = [propagation_step(time, self.held)] if self.held is not None else []
        self.held = self._imu(inputs)
        steps += self._measurements(time, inputs)
        self.fusion.add(steps)
        return self._outputs()

    def _due(self, key: str, time: float) -> float | None:
        """The time of a new sample of a sensor published at its samples, or None."""
        period = self.sensors[key].sample_time
        n = math.floor((time - self.start) / period + 1e-6)
        if n <= self.samples[key]:
            return None
        self.samples[key] = n
        return self.start + n * period

    def _measurements(self, time: float, inputs: np.ndarray) -> list[Step]:
        """The steps of the measurements new at ``time``."""
        steps = []
        if "dvl" in self.slots:
            reading = inputs[self.slots["dvl"]]
            when = float(reading[13])
            if reading[12] > 0.5 and when > self.last["dvl"] + SAME_TIME:
                self.last["dvl"] = when
                ping = self.models["dvl"].reading(self.held[:3], reading[:3], reading[3:12])
                steps.append(measurement_step(when, ping))
        if "depth" in self.slots and (when := self._due("depth", time)) is not None:
            steps.append(
                measurement_step(when, self.models["depth"].reading(inputs[self.slots["depth"]]))
            )
        if "ahrs" in self.slots and (when := self._due("ahrs", time)) is not None:
            steps.append(
                measurement_step(when, self.models["ahrs"].reading(inputs[self.slots["ahrs"]]))
            )
        if "usbl" in self.slots:
            reading = inputs[self.slots["usbl"]]
            when = float(reading[4])
            if reading[3] > 0.5 and when > self.last["usbl"] + SAME_TIME:
                self.last["usbl"] = when
                steps.append(measurement_step(when, self.models["usbl"].reading(reading[:3])))
        return steps

    def _models(self) -> dict[str, measurements.SensorModel]:
        """The aiding sensors' measurement models, by key."""
        models = {}
        mounts = self.mounts
        if "dvl" in self.sensors:
            models["dvl"] = measurements.VelocityOverGround(mounts["dvl"])
        if "depth" in self.sensors:
            std = self.config.depth_noise or self.sensors["depth"].noise
            models["depth"] = measurements.Depth(mounts["depth"], std)
        if (a := self.sensors.get("ahrs")) is not None:
            std = np.radians([a.tilt_noise, a.tilt_noise, a.heading_noise])
            models["ahrs"] = measurements.Attitude(
                mounts["ahrs"], std, math.radians(a.heading_offset)
            )
        if (u := self.sensors.get("usbl")) is not None:
            # noise from the predicted slant range, as the USBL model's
            models["usbl"] = measurements.Position(
                mounts["usbl"], u.noise_floor, u.noise_fraction, u.transceiver
            )
        return models

    def _outputs(self) -> np.ndarray:
        navigation = self.fusion.filter
        x, variance = navigation.nominal, navigation.variances
        return np.concatenate(
            [
                x[ESTIMATE],
                self.held[:3] - navigation.gyro_bias,
                variance,
                np.sqrt(variance[VELOCITY]),
                x[10:17],  # accelerometer and gyroscope biases, heading error
                self.fusion.counts,
            ]
        )
