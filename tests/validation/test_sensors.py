"""Sensor models against their oracles, on synthetic true signals (each test seeded).

IMU: Allan deviation of white noise plus a first-order Gauss-Markov bias (IEEE Std 952-1997,
Annex C; El-Sheimy, Hou and Niu, "Analysis and Modeling of Inertial Sensors Using Allan
Variance", IEEE Trans. Instrumentation and Measurement 57(1), 2008); DVL: Janus beam geometry;
depth: first-order (Airy) deep-water wave theory (Newman, Marine Hydrodynamics, 1977).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from orchestrator.kinematics import quaternion_from_euler, rotation_matrix
from orchestrator.sensors.ahrs import Ahrs, AhrsSettings
from orchestrator.sensors.dvl import Dvl, DvlSettings, beam_directions
from orchestrator.sensors.fiducial import CameraSettings, FiducialCamera
from orchestrator.sensors.imu import ADIS16448_ACCEL, ADIS16448_GYRO, Imu, InertialAxes
from orchestrator.sensors.mount import Mount, point_state, specific_force
from orchestrator.sensors.pressure import PressureDepth, PressureSettings, RegularWave
from orchestrator.sensors.usbl import Usbl, UsblSettings

HOURS_2 = 7200.0


def allan_deviation(rate: np.ndarray, interval: float, cluster: float) -> float:
    """Overlapping Allan deviation of a rate record at cluster time ``cluster`` (s)."""
    m = round(cluster / interval)
    angle = np.concatenate([[0.0], np.cumsum(rate) * interval])
    second_difference = angle[2 * m :] - 2 * angle[m:-m] + angle[: -2 * m]
    return math.sqrt(np.mean(second_difference**2) / (2 * (m * interval) ** 2))


def allan_curve(density: float, driving: float, tau_c: float, cluster: float) -> float:
    """Allan deviation of white noise (density N) plus a Gauss-Markov process (driver q,
    time constant T_c): N^2 / T + q^2 T_c^2 / T (1 - T_c / (2 T) (3 - 4 e^{-T/T_c} +
    e^{-2T/T_c})) (El-Sheimy et al. 2008, eq. 12)."""
    r = cluster / tau_c
    markov = (
        driving**2 * tau_c**2 / cluster * (1 - (3 - 4 * math.exp(-r) + math.exp(-2 * r)) / (2 * r))
    )
    return math.sqrt(density**2 / cluster + markov)


def gyro_record(rate_hz: float, seed: int) -> np.ndarray:
    """One axis of a 2 h stationary gyro record, made in chunks of 10 min."""
    interval = 1 / rate_hz
    axes = InertialAxes(ADIS16448_GYRO, interval, np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    chunk = round(600 * rate_hz)
    parts = []
    for _ in range(12):
        parts.append(axes.record(np.zeros((chunk, 3)), rng.standard_normal((chunk, 2, 3)))[:, 0])
    return np.concatenate(parts)


@pytest.mark.parametrize("rate_hz", [50.0, 100.0, 400.0])
def test_gyro_allan_deviation_is_its_noise_density_at_any_rate(rate_hz):
    """At 1 s the Allan deviation is the white-noise density (ADIS16448: 3.394e-4 rad/s/sqrt(Hz))
    within 5 % (the bias adds 0.2 % in variance there; 7200 clusters give a 1.2 % standard
    error); the whole curve, 0.1-10 s, is the analytic one at 50, 100 and 400 Hz: 5 % up to
    1 s, 10 % at 10 s (720 clusters: standard error 1/sqrt(2 * 719) = 2.6 %, so 4 of them)."""
    record = gyro_record(rate_hz, seed=7)
    g = ADIS16448_GYRO
    assert allan_deviation(record, 1 / rate_hz, 1.0) == pytest.approx(g.noise_density, rel=0.05)
    for cluster, tolerance in ((0.1, 0.05), (1.0, 0.05), (10.0, 0.10)):
        expected = allan_curve(g.noise_density, g.bias_driving, g.bias_time_constant, cluster)
        measured = allan_deviation(record, 1 / rate_hz, cluster)
        assert measured == pytest.approx(expected, rel=tolerance), cluster


def test_per_sample_sigma_would_not_be_rate_invariant():
    """The check above can fail: white noise of a fixed per-sample sigma (the density's at
    100 Hz) has an Allan deviation at 1 s off by a factor 2 at 400 Hz."""
    sigma = ADIS16448_GYRO.noise_density * math.sqrt(100.0)
    record = sigma * np.random.default_rng(3).standard_normal(round(HOURS_2 * 400 / 10))
    ratio = allan_deviation(record, 1 / 400, 1.0) / ADIS16448_GYRO.noise_density
    assert ratio == pytest.approx(0.5, rel=0.05)


@pytest.mark.parametrize("rate_hz", [10.0, 50.0])
def test_accelerometer_bias_spread_over_200_runs_is_its_stationary_std(rate_hz):
    """After 5 time constants (1500 s), the bias of 200 runs (3 axes each) spreads as
    driver sqrt(tau / 2) = 0.006 sqrt(150) = 0.0735 m/s^2 within 10 % (600 samples: 2.9 %
    standard error), at either rate: the discretisation is exact."""
    a = ADIS16448_ACCEL
    n = round(1500 * rate_hz)
    ends = []
    for run in range(200):
        rng = np.random.default_rng(1000 + run)
        axes = InertialAxes(a, 1 / rate_hz, rng)
        axes.record(np.zeros((n, 3)), rng.standard_normal((n, 2, 3)))
        ends.append(axes.bias)
    expected = a.bias_driving * math.sqrt(a.bias_time_constant / 2)
    assert np.std(ends) == pytest.approx(expected, rel=0.10)


def test_imu_zero_noise_is_exact_and_reads_gravity_with_lever_arm():
    """Zero noise reproduces the truth bit for bit; a level body at rest reads (0, 0, -g); a
    body spinning at r about z reads -r^2 times the lever arm (centripetal)."""
    quiet = ADIS16448_GYRO.__class__(0.0, 0.0, math.inf, 0.0)
    imu = Imu(0.01, np.random.default_rng(0), quiet, quiet)
    rate, force = np.array([0.1, -0.2, 0.3]), np.array([0.5, 0.0, -9.0])
    measured = imu.measure(rate, force)
    assert np.array_equal(measured, np.concatenate([rate, force]))
    mount = Mount(np.array([0.2, 0.1, 0.0]), np.eye(3))
    level = np.array([1.0, 0.0, 0.0, 0.0])
    rest = specific_force(mount, level, np.zeros(6), np.zeros(6), g=9.81)
    assert np.allclose(rest, [0.0, 0.0, -9.81], atol=1e-15)
    spin = specific_force(mount, level, np.array([0, 0, 0, 0, 0, 2.0]), np.zeros(6), g=0.0)
    assert np.allclose(spin, [-4 * 0.2, -4 * 0.1, 0.0], atol=1e-15)


def test_imu_draws_ahead_give_the_samples_of_one_draw_per_sample():
    """300 samples (more than a block drawn ahead) then a record of 400, bit for bit as NumPy
    gives them drawing each sample's 12 normals in its own call and stepping the biases as
    arrays: the model as it reads in the module docstring."""
    interval, rng = 0.01, np.random.default_rng(7)
    imu = Imu(interval, np.random.default_rng(7))
    axes = []
    for noise in (ADIS16448_GYRO, ADIS16448_ACCEL):
        bias_std = noise.bias_driving * math.sqrt(noise.bias_time_constant / 2)
        decay = math.exp(-interval / noise.bias_time_constant)
        step_std = noise.bias_driving * math.sqrt(
            noise.bias_time_constant / 2 * -math.expm1(-2 * interval / noise.bias_time_constant)
        )
        turn_on = noise.turn_on_std * rng.standard_normal(3)
        bias = bias_std * rng.standard_normal(3)
        axes.append([turn_on, bias, noise.noise_density / math.sqrt(interval), decay, step_std])
    truth = np.random.default_rng(8).standard_normal((700, 6))
    expected = np.empty((700, 6))
    for k in range(700):
        xi = rng.standard_normal((2, 2, 3))
        for i, a in enumerate(axes):
            turn_on, bias, white_std, decay, step_std = a
            expected[k, 3 * i : 3 * i + 3] = (
                truth[k, 3 * i : 3 * i + 3] + turn_on + bias + (white_std * xi[i, 0])
            )
            a[1] = decay * bias + step_std * xi[i, 1]
    sampled = [imu.measure(truth[k, :3], truth[k, 3:]) for k in range(300)]
    recorded = np.hstack(imu.record(truth[300:, :3], truth[300:, 3:]))
    assert np.array_equal(np.vstack([sampled, recorded]), expected)


def dvl(**changes: float) -> Dvl:
    settings = dict(
        tilt=math.radians(22.5),
        beam_noise=0.005,
        range_noise=0.0,
        min_altitude=0.05,
        max_altitude=50.0,
        max_speed=2.0,
        beam_dropout=0.0,
    )
    return Dvl(DvlSettings(**(settings | changes)), np.random.default_rng(11))


def test_dvl_noise_ratio_is_the_janus_geometry():
    """Beam noise at 22.5 deg gives body-frame horizontal/vertical noise sqrt(2) cot(22.5 deg)
    = 3.41 within 10 % (20 000 pings: 0.5 % standard error per std), and the reported
    covariance is the sample covariance within 5 %."""
    sensor = dvl()
    true = np.array([0.3, -0.1, 0.05])
    readings = [sensor.ping(true, np.eye(3), 10.0) for _ in range(20000)]
    errors = np.array([r.velocity for r in readings]) - true
    std = errors.std(axis=0)
    expected = math.sqrt(2) / math.tan(math.radians(22.5))
    assert expected == pytest.approx(3.414, abs=1e-3)
    assert std[0] / std[2] == pytest.approx(expected, rel=0.10)
    assert std[1] / std[2] == pytest.approx(expected, rel=0.10)
    assert np.diag(readings[0].covariance) == pytest.approx(std**2, rel=0.05)
    assert readings[0].fom == pytest.approx(math.sqrt(readings[0].covariance[0, 0]))


def test_dvl_covariance_is_that_of_each_pings_own_beams():
    """With half the beams lost at random, every bottom-locked ping reports beam_noise^2
    (B' B)^-1 of its own valid beams (each set met many times, kept by the sensor), bit for
    bit, and its figure of merit the root of that covariance's largest diagonal entry."""
    sensor = dvl(beam_dropout=0.5)
    beams = beam_directions(math.radians(22.5))
    sets = set()
    for _ in range(400):
        r = sensor.ping(np.array([0.3, -0.1, 0.05]), np.eye(3), 10.0)
        if r.velocity_valid:
            valid = beams[r.beam_valid]
            expected = 0.005**2 * np.linalg.inv(valid.T @ valid)
            assert np.array_equal(r.covariance, expected)
            assert r.fom == math.sqrt(np.max(np.diag(expected)))
            sets.add(tuple(r.beam_valid))
    assert len(sets) == 5  # all four beams, or one of four lost


def test_dvl_no_valid_output_above_the_maximum_altitude():
    """Level, 1 mm below the limit: four beams and a velocity; 1 mm above: none; the three
    beams left after one is lost still give the exact velocity without noise."""
    sensor = dvl(beam_noise=0.0)
    true = np.array([0.4, 0.2, -0.1])
    assert sensor.ping(true, np.eye(3), 49.999).velocity_valid
    above = [sensor.ping(true, np.eye(3), h) for h in (50.001, 80.0, math.inf)]
    assert not any(r.velocity_valid or r.beam_valid.any() for r in above)
    assert all(np.array_equal(r.velocity, np.zeros(3)) for r in above)
    assert not sensor.ping(true, np.eye(3), 0.01).velocity_valid  # below the minimum
    lossy = dvl(beam_noise=0.0, beam_dropout=0.3)
    three = [r for r in (lossy.ping(true, np.eye(3), 5.0) for _ in range(200))]
    three = [r for r in three if r.beam_valid.sum() == 3]
    assert three and all(np.allclose(r.velocity, true, atol=1e-12) for r in three)


def test_dvl_lever_arm_velocity_of_a_pure_yaw_rate():
    """A DVL at (x, y) on a body yawing at r reads (-r y, r x, 0)."""
    mount = Mount(np.array([0.3, -0.2, 0.1]), np.eye(3))
    nu = np.array([0, 0, 0, 0, 0, 0.5])
    state = point_state(mount, np.zeros(3), np.array([1.0, 0, 0, 0]), nu)
    assert np.allclose(state.velocity, [0.5 * 0.2, 0.5 * 0.3, 0.0], atol=1e-15)


WAVE = RegularWave(amplitude=0.2, period=4.0, direction=math.radians(30.0), phase=0.4)


def particle_velocity(time: float, r: np.ndarray) -> np.ndarray:
    """Airy deep-water particle velocity (NED) below the mean level, written out from the
    wave components of MurCoSim.Ocean (unstretched): w a e^{-kz} [sin cos b, sin sin b, -cos]."""
    w, k, b = 2 * math.pi / WAVE.period, WAVE.wavenumber, WAVE.direction
    arg = w * time - k * (r[0] * math.cos(b) + r[1] * math.sin(b)) + WAVE.phase
    speed = w * WAVE.amplitude * math.exp(-k * r[2])
    return speed * np.array(
        [math.sin(arg) * math.cos(b), math.sin(arg) * math.sin(b), -math.cos(arg)]
    )


def test_depth_of_a_body_riding_the_orbit_is_constant():
    """A body carried by the water (its path integrated from the particle velocity) at 3 m
    reads a constant depth: the material derivative of the first-order pressure head
    z + a e^{-kz} sin(w t - k chi) along this velocity field vanishes identically (the
    second-order terms of the advection cancel), so the reading is constant to the path's
    integration accuracy (asserted: 1e-7 m, against a fixed body's swing of 0.19 m)."""
    sensor = PressureDepth(PressureSettings(noise=0.0), WAVE, np.random.default_rng(0))
    times = np.linspace(0.0, 2 * WAVE.period, 401)
    path = solve_ivp(
        particle_velocity, (0, times[-1]), [1.0, 2.0, 3.0], t_eval=times, rtol=1e-10, atol=1e-12
    )
    depths = [sensor.measure(t, path.y[:, i])[1] for i, t in enumerate(times)]
    orbit = WAVE.amplitude * math.exp(-WAVE.wavenumber * 3.0)
    fixed = [sensor.measure(t, np.array([1.0, 2.0, 3.0]))[1] for t in times]
    assert np.ptp(path.y[2]) == pytest.approx(2 * orbit, rel=0.02)  # it does move
    assert np.ptp(depths) < 1e-7
    assert np.ptp(fixed) == pytest.approx(2 * orbit, rel=1e-3)


def test_depth_of_a_fixed_body_swings_by_a_exp_kz():
    """A sensor held at 3 m with 2 mm noise reads 3 m plus a e^{-kz} sin(w t + ...): the
    least-squares sinusoid over 20 periods at 10 Hz has the amplitude a e^{-kz} within 2 %
    and the mean 3 m within 1 mm."""
    rng = np.random.default_rng(5)
    sensor = PressureDepth(PressureSettings(noise=0.002), WAVE, rng)
    times = np.arange(0.0, 20 * WAVE.period, 0.1)
    depths = np.array([sensor.measure(t, np.array([1.0, 2.0, 3.0]))[1] for t in times])
    w = 2 * math.pi / WAVE.period
    basis = np.column_stack([np.ones_like(times), np.sin(w * times), np.cos(w * times)])
    mean, s, c = np.linalg.lstsq(basis, depths, rcond=None)[0]
    k = (2 * math.pi / WAVE.period) ** 2 / 9.8
    assert math.hypot(s, c) == pytest.approx(0.2 * math.exp(-k * 3.0), rel=0.02)
    assert mean == pytest.approx(3.0, abs=1e-3)


def test_depth_scales_with_the_configured_density_and_is_zero_in_air():
    settings = PressureSettings(rho=1025.0, rho_set=997.0, noise=0.0)
    still = RegularWave(amplitude=0.0, period=1.0)
    sensor = PressureDepth(settings, still, np.random.default_rng(0))
    assert sensor.measure(0.0, np.array([0, 0, 10.0]))[1] == pytest.approx(10 * 1025 / 997)
    assert sensor.measure(0.0, np.array([0, 0, -1.0])) == (0.0, 0.0)


def test_usbl_latency_grows_with_range_and_outliers_come_at_their_rate():
    """A fix pinged at 100 m slant range arrives 2 R / c + turnaround later (0.1333 + 0.05 s);
    errors have std floor + fraction R per axis (0.1 + 0.01 * 100 = 1.1 m) within 5 %, and
    outliers come at their probability (5 %) within 1 percentage point (4000 pings)."""
    settings = UsblSettings((0.0, 0.0, 0.0), 1500.0, 0.05, 0.1, 0.01, 0.05, 20.0, 300.0)
    usbl = Usbl(settings, np.random.default_rng(2))
    target = np.array([60.0, 0.0, 80.0])
    usbl.ping(0.0, target)
    assert usbl.arrived(0.18) == []
    (fix,) = usbl.arrived(0.2 / 1.5 + 0.05)
    assert fix.time_of_validity == 0.0 and fix.range == pytest.approx(100.0)
    for k in range(4000):
        usbl.ping(k + 1.0, target)
    fixes = usbl.arrived(1e6)
    normal = np.array([f.position for f in fixes if not f.outlier]) - target
    assert normal.std(axis=0) == pytest.approx([1.1] * 3, rel=0.05)
    assert np.mean([f.outlier for f in fixes]) == pytest.approx(0.05, abs=0.01)
    far = Usbl(settings, np.random.default_rng(2))
    far.ping(0.0, np.array([0.0, 0.0, 301.0]))
    assert far.arrived(10.0) == []


def camera(**changes: float) -> FiducialCamera:
    settings = dict(
        focal_length=1000.0,
        width=1920,
        height=1080,
        marker_size=0.2,
        min_pixels=25.0,
        max_view_angle=math.radians(60.0),
        pixel_noise=0.5,
        dropout=0.0,
    )
    return FiducialCamera(CameraSettings(**(settings | changes)), np.random.default_rng(4))


FACING_BACK = rotation_matrix(quaternion_from_euler(0.0, 0.0, math.pi))  # normal along -x


def test_camera_field_of_view_marker_size_and_noise():
    """Detected inside the field of view (half-width 960 px at f = 1000: 43.8 deg) and up to
    f s / 25 px = 8 m; not beyond either; bearing noise std 0.5 px / f = 0.5 mrad and depth
    noise z^2 0.5 / (f s) = 10 mm at 2 m, within 5 % (4000 frames)."""
    cam = camera()
    eye = np.eye(3)
    seen = lambda p: cam.observe(np.zeros(3), eye, np.array(p), FACING_BACK).detected  # noqa: E731
    assert seen([2.0, 2.0 * math.tan(math.radians(43.0)), 0.0])
    assert not seen([2.0, 2.0 * math.tan(math.radians(44.5)), 0.0])
    assert seen([7.99, 0.0, 0.0]) and not seen([8.01, 0.0, 0.0])
    assert not seen([-2.0, 0.0, 0.0])
    assert not cam.observe(np.zeros(3), eye, np.array([2.0, 0, 0]), eye).detected  # turned away
    frames = [
        cam.observe(np.zeros(3), eye, np.array([2.0, 0.3, 0.1]), FACING_BACK) for _ in range(4000)
    ]
    azimuth = np.array([f.azimuth for f in frames])
    depth = np.array([f.position[0] for f in frames])
    assert azimuth.mean() == pytest.approx(math.atan(0.3 / 2.0), abs=1e-4)
    assert azimuth.std() == pytest.approx(0.5e-3 * math.cos(math.atan(0.15)) ** 2, rel=0.05)
    assert depth.std() == pytest.approx(2.0**2 * 0.5 / (1000 * 0.2), rel=0.05)


def test_camera_dropouts_come_at_their_rate():
    cam = camera(dropout=0.2)
    frames = [
        cam.observe(np.zeros(3), np.eye(3), np.array([2.0, 0, 0]), FACING_BACK) for _ in range(4000)
    ]
    assert np.mean([not f.detected for f in frames]) == pytest.approx(0.2, abs=0.02)


def test_ahrs_heading_wraps_and_its_drift_is_stationary():
    """The heading of a body at 179.9 deg plus noise stays in [-pi, pi); the drift of 300 AHRS
    (Gauss-Markov, driver 1e-3 rad/s/sqrt(Hz), 100 s) spreads as 1e-3 sqrt(50) after 500 s
    within 10 %."""
    settings = AhrsSettings(0.001, 0.01, 1e-3, 100.0, 0.0)
    attitude = rotation_matrix(quaternion_from_euler(0.0, 0.0, math.radians(179.9)))
    ahrs = Ahrs(settings, 1.0, np.random.default_rng(1))
    headings = np.array([ahrs.measure(attitude)[2] for _ in range(500)])
    assert headings.min() >= -math.pi and headings.max() < math.pi
    drifts = []
    for run in range(300):
        unit = Ahrs(settings, 1.0, np.random.default_rng(run))
        for _ in range(500):
            unit.measure(np.eye(3))
        drifts.append(unit.drift)
    assert np.std(drifts) == pytest.approx(1e-3 * math.sqrt(50), rel=0.10)
