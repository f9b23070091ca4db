"""The compiled error-state Kalman filter of ``_navigation.c``: the kernel extension's types
``Filter`` (propagation, measurement models and update on a nominal-state array and a
covariance array the caller owns, both written in place) and ``Fusion`` (its history of steps,
re-run from a late measurement), and the codes of what a step does. Each step's inputs are one
float64 array, laid out as the C source's header lists them.

``orchestrator.navigation`` is the interface: its modules state the equations and build the
steps' inputs; this module is the contract with the C code.
"""

from __future__ import annotations

from orchestrator.native._kernel import Filter, Fusion

__all__ = ["ATTITUDE", "DEPTH", "NOMINAL", "POSITION", "PROPAGATION", "VELOCITY"]
__all__ += ["Filter", "Fusion"]

NOMINAL = 17
"""Entries of the nominal state: p (3), v (3), q (4), accelerometer bias (3), gyroscope bias
(3), compass heading error (1)."""

# what a step does
PROPAGATION, VELOCITY, DEPTH, ATTITUDE, POSITION = range(5)
