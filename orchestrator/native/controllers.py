"""The compiled controller laws of ``_controllers.c``: the kernel extension's types ``Law``
(one built-in controller's step on a settings array and a state array the caller owns) and
``LawGroup`` (several laws sampled in one call on the state vector and the signal bus),
``step_laws`` (many laws stepped in one call, as a swarm's vehicles), the inverse kinematics of
a 3-DOF arm and the thrust-to-PWM map (of one thruster or many). This module packs the settings
as the C source's header lists them; ``orchestrator.controllers`` states the laws.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from orchestrator.native._kernel import (
    Law,
    LawGroup,
    arm_inverse,
    step_laws,
    thrust_pwm,
    thrust_pwm_many,
    use_dgemv,
)

__all__ = ["DONE", "NOT_FINITE", "OUT_OF_REACH", "AT_EDGE", "Law", "LawGroup", "arm_inverse"]
__all__ += ["autopilot", "bind_blas", "joint_pid", "pseudo_inverse", "step_laws", "thrust_pwm"]
__all__ += ["thrust_pwm_many", "vehicle_pd"]

# what a step returns
DONE, OUT_OF_REACH, AT_EDGE, NOT_FINITE = range(4)
VEHICLE_PD, JOINT_PID, PSEUDO_INVERSE, AUTOPILOT = range(4)

LoopGains = tuple[float, float, float, float]
"""A PID loop's kp, ki, kd and the integral's bound divided by ki (0 without ki)."""

Terms = Sequence[tuple[float, float, float, float, float, float, float]]
"""A reference's terms: start, stop (s), angular frequency (rad/s), phase (rad), offset,
slope (per s), amplitude."""


def _reference(terms: Terms) -> list[float]:
    return [float(len(terms)), *(float(v) for term in terms for v in term)]


def _law(kind: int, settings: list[float], state_size: int, inputs: int, outputs: int) -> Law:
    return Law(kind, np.array(settings, dtype=float), np.zeros(state_size), inputs, outputs)


def vehicle_pd(kp: Sequence[float], kd: Sequence[float], pose: Sequence[Terms]) -> Law:
    """The vehicle PD with gains ``kp``, ``kd`` (6 each) and the references of x, y, z
    (m), roll, pitch, yaw (rad)."""
    settings = [*map(float, kp), *map(float, kd)]
    for terms in pose:
        settings += _reference(terms)
    return _law(VEHICLE_PD, settings, 0, 13, 6)


def joint_pid(
    sample_time: float,
    gains: Sequence[LoopGains],
    references: Sequence[Terms],
    feedforwards: Sequence[Terms],
    paths: Sequence[tuple[Sequence[int], float, float, bool, Sequence[Terms]]],
) -> Law:
    """The joint PID of ``len(gains)`` loops, each kp, ki, kd and the integral's bound (rad s;
    0 without ki), with joint references and feedforward torques, and task-space ``paths``:
    (its three loops, upper arm (m), forearm (m), elbow down, references of x, y, z (m))."""
    n = len(gains)
    settings = [float(n), float(sample_time), *(float(v) for g in gains for v in g)]
    for terms in [*references, *feedforwards]:
        settings += _reference(terms)
    settings.append(float(len(paths)))
    for loops, upper_arm, forearm, elbow_down, axes in paths:
        settings += [*map(float, loops), upper_arm, forearm, float(elbow_down)]
        for terms in axes:
            settings += _reference(terms)
    return _law(JOINT_PID, settings, n, 2 * n, 2 * n)


@functools.cache
def bind_blas() -> None:
    """Hand the laws the BLAS routine NumPy's ``@`` uses for the allocation's product (dgemv,
    transposed): the same kernel, so the same sums; the joint motors' accelerations take it
    too. Bound by the first pseudo-inverse law or joint motor, not at import: SciPy's linear
    algebra takes 0.2 s to import, and a run without them need not wait for it."""
    from scipy.linalg import cython_blas

    use_dgemv(cython_blas.__pyx_capi__["dgemv"])


def pseudo_inverse(
    commands: int,
    bias: float,
    limits: np.ndarray,
    groups: Sequence[np.ndarray],
    pwm_constants: Sequence[tuple[float, ...]],
) -> Law:
    """The pseudo-inverse allocation over ``len(limits)`` thrusters of the sum of ``commands``
    6-vectors, with thrust ``bias`` (N) along the balanced ``groups`` and each thruster's
    PWM constants (see ``thrust_pwm``). Its state: the pseudo-inverse (m x 6) and the
    available flags (m), all thrusters available until the caller writes them."""
    bind_blas()
    m = len(limits)
    settings = [float(m), float(bias), float(len(groups)), *map(float, limits)]
    settings += [float(v) for group in groups for v in group]
    settings += [float(v) for constants in pwm_constants for v in constants]
    return _law(PSEUDO_INVERSE, settings, 7 * m, 6 * commands, m)


def autopilot(
    sample_time: float,
    gains: Sequence[LoopGains],
    set_points: tuple[float, float, float],
    changes: Sequence[tuple[float, float, float, float]],
) -> Law:
    """The depth, heading and surge-speed autopilot with the ``gains`` of its loops (depth,
    surge, sway, roll, pitch, heading), the initial ``set_points`` depth (m), heading (deg),
    surge speed (m/s) and their ``changes``: per change in time order its time (s) and all
    three set points from then on. Its state: the six integrals, zero."""
    settings = [float(sample_time), *(float(v) for g in gains for v in g), *map(float, set_points)]
    settings.append(float(len(changes)))
    settings += [float(v) for change in changes for v in change]
    return _law(AUTOPILOT, settings, 6, 13, 9)
