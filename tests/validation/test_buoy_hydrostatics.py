"""Exact hydrostatics of the buoy cylinders against an independent numerical integration."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.spatial.transform import Rotation

RADIUS, LENGTH = 0.0395, 0.418  # the prototype payload (Cortesi 2012, Table 5.1)
FULL = np.pi * RADIUS**2 * LENGTH
STATE = ["p[1]", "p[2]", "p[3]", "q[1]", "q[2]", "q[3]", "q[4]"] + [f"nu[{i}]" for i in range(1, 7)]


def wet_interval(h_bottom: float, c: float, s: float, x: float) -> tuple[float, float]:
    """The part [lo, hi] of the axis (0..L, bottom to top) under water along the line at
    distance x across the axis: the points there are h_bottom + c t - s x above the surface."""
    depth_at_bottom = s * x - h_bottom  # depth of the point t = 0; it changes by -c per metre
    if c == 0.0:
        return (0.0, LENGTH) if depth_at_bottom > 0 else (0.0, 0.0)
    t_surface = depth_at_bottom / c
    if c > 0:
        return 0.0, float(np.clip(t_surface, 0.0, LENGTH))
    return float(np.clip(t_surface, 0.0, LENGTH)), LENGTH


def reference(h_bottom: float, c: float, s: float) -> tuple[float, float, float]:
    """Submerged volume and its first moments across (along x) and along the axis, by adaptive
    quadrature across the circle of the wet length of each line parallel to the axis."""
    ends = (h_bottom / s, (h_bottom + LENGTH * c) / s) if s > 0 else ()
    kinks = sorted({round(x, 12) for x in ends if abs(x) < RADIUS})  # where the wet length kinks

    def integrand(x: float, moment: int) -> float:
        lo, hi = wet_interval(h_bottom, c, s, x)
        width = 2 * np.sqrt(max(RADIUS**2 - x * x, 0.0))
        return width * (hi - lo, x * (hi - lo), (hi * hi - lo * lo) / 2)[moment]

    return tuple(
        quad(
            integrand,
            -RADIUS,
            RADIUS,
            args=(m,),
            points=kinks or None,
            epsabs=1e-16,
            epsrel=1e-11,
            limit=200,
        )[0]
        for m in range(3)
    )


def expected(R: np.ndarray, p3: float, zeta: float) -> tuple[float, np.ndarray]:
    """Volume and centre of buoyancy (body frame: origin at the bottom centre, axis along -z)."""
    c, s = R[2, 2], float(np.hypot(R[2, 0], R[2, 1]))
    volume, across, along = reference(-p3 - zeta, c, s)
    if volume == 0.0:
        return 0.0, np.zeros(3)
    down = np.array([R[2, 0], R[2, 1], 0.0]) / max(s, 1e-300)
    return volume, (across * down - along * np.array([0.0, 0.0, 1.0])) / volume


@pytest.fixture(scope="module")
def payload(fmus):
    inst = fmus("PrototypePayload").instantiate("payload_hydrostatics")
    inst.initialize(0.0)
    yield inst
    inst.terminate()


def evaluate(inst, R: np.ndarray, p3: float, zeta: float) -> tuple[float, np.ndarray, np.ndarray]:
    x = np.zeros(13)
    x[2] = p3
    x[3:7] = np.roll(Rotation.from_matrix(R).as_quat(), 1)
    inst.set_time(0.0)
    inst.set_continuous_states(x)
    port = inst.port(["zeta"])
    port.values[:] = zeta
    inst.write(port)
    values = inst.get_values(
        ["V_sub", "r_cb[1]", "r_cb[2]", "r_cb[3]"] + [f"f_env[{i}]" for i in range(1, 7)]
    )
    return values[0], values[1:4], values[4:]


def tilted(angle: float, azimuth: float, spin: float) -> np.ndarray:
    """Body to NED: spin about the axis, then tilt of the axis by ``angle`` towards ``azimuth``."""
    return (
        Rotation.from_euler("z", azimuth)
        * Rotation.from_euler("y", angle)
        * Rotation.from_euler("z", spin - azimuth)
    ).as_matrix()


TILTS = [
    0.0,
    1e-9,
    1e-5,
    0.3,
    0.7,
    1.2,
    np.pi / 2 - 1e-3,
    np.pi / 2 - 2.5e-5,
    np.pi / 2 - 1.5e-5,
    np.pi / 2 - 1e-8,
    np.pi / 2,
    np.pi / 2 + 1e-6,
    2.0,
    2.8,
    np.pi - 1e-6,
    np.pi,
]


@pytest.mark.parametrize("angle", TILTS)
def test_volume_and_centre_of_buoyancy_match_numerical_integration(payload, angle):
    """At every tilt (upright, near and at horizontal, on both sides of the near-horizontal
    series switch, upside down) and at 25 drafts from dry to fully submerged, with a wave
    elevation added, the FMU's submerged volume and centre of buoyancy equal an adaptive
    quadrature of the wet length across the circle. Tolerance: 1e-7 of the full volume for
    the volume and 1e-7 of (full volume x length) for the moments V r_cb: the near-horizontal
    series' truncation error (the closed form is otherwise exact; the quadrature is good to
    1e-11)."""
    rng = np.random.default_rng(int(angle * 1e6) % 2**32)
    for p3 in np.linspace(-0.55, 0.12, 25):
        R = tilted(angle, rng.uniform(-np.pi, np.pi), rng.uniform(-np.pi, np.pi))
        zeta = rng.uniform(-0.05, 0.05)
        volume, r_cb, _ = evaluate(payload, R, p3, zeta)
        volume_ref, r_cb_ref = expected(R, p3, zeta)
        assert abs(volume - volume_ref) <= 1e-7 * FULL, (angle, p3)
        moment_error = np.abs(volume * r_cb - volume_ref * r_cb_ref)
        assert np.all(moment_error <= 1e-7 * FULL * LENGTH), (angle, p3)


@pytest.mark.parametrize("angle", [0.0, 0.4, np.pi / 2, 2.5, np.pi])
def test_dry_and_fully_submerged(payload, angle):
    """Limits without integration: a dry cylinder has no volume and its centre of buoyancy is
    set to zero (Cortesi 2012, Sec. 2.3); a submerged one displaces pi R^2 L with the centre of
    buoyancy at mid-length on the axis, at any attitude (to rounding, 1e-12)."""
    R = tilted(angle, 0.3, 1.1)
    volume, r_cb, _ = evaluate(payload, R, -1.0, 0.0)
    assert volume == 0.0 and np.all(r_cb == 0.0)
    volume, r_cb, _ = evaluate(payload, R, 1.0, 0.2)
    assert volume == pytest.approx(FULL, rel=1e-12)
    np.testing.assert_allclose(r_cb, [0.0, 0.0, -LENGTH / 2], atol=1e-12)


def test_buoyancy_force_and_moment_at_rest(payload):
    """At rest (no drag) the FMU's environment force is the buoyancy rho g V along the upward
    vertical, in the body frame, with the moment r_cb x F about the origin (to rounding):
    Archimedes with the volume and centre of the quadrature above, rho = 1000 kg/m3,
    g = 9.8 m/s2 (Cortesi (2012))."""
    R = tilted(0.6, 0.4, -0.8)
    volume, r_cb, force = evaluate(payload, R, -0.25, 0.03)
    volume_ref, r_cb_ref = expected(R, -0.25, 0.03)
    F = 1000 * 9.8 * volume_ref * (R.T @ np.array([0.0, 0.0, -1.0]))
    np.testing.assert_allclose(force[:3], F, rtol=1e-9)
    np.testing.assert_allclose(force[3:], np.cross(r_cb_ref, F), rtol=1e-8, atol=1e-12)
