"""The controller interface: sampled blocks between the FMUs' signals.

A controller runs at its own sample time. At each sample the master reads the signals named
by ``inputs`` (FMU variables ``<instance>.<variable>`` — states, outputs, inputs — or other
controllers' outputs ``<controller>.<signal>``, or joint signals ``<joint>.angle``), calls
:meth:`Controller.step`, and holds the returned values on the signals named by ``outputs``
until the next sample (zero-order hold). An output named ``<instance>.<input>`` drives that
FMU input (the outputs of several controllers on one input are summed); one named
``<controller name>.<signal>`` is a signal of its own that other controllers read. Every
output is recorded as a column and read by the run callback's probe.

The built-in controllers and a user's own share this interface: a subclass sets ``inputs`` and
``outputs`` in its constructor and implements :meth:`step`; a scenario names it by import
path (``class = "my_package.module:MyController"``, made as ``Class(name, sample_time,
settings)``, ``settings`` checked by the class's ``Settings`` pydantic model when it has
one), and ``murcosim.run(..., controllers=[MyController(...)])`` takes objects. A ``step`` that
raises or returns non-finite values is a ``controller_fault`` event and its previous outputs
are held, as for the built-ins.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from orchestrator.scenario.model import PID


class Controller(ABC):
    """A sampled controller with named input and output signals.

    ``latency`` (s): the master applies the outputs this much after the sample (a delay line),
    except those named in ``monitors`` (measurements, published at the sample).
    ``event_kinds``: the kinds of event the controller appends to ``events`` (the master logs
    ``controller_fault`` for any controller); a learning environment's ``terminate_on`` takes
    these, so a controller of a user's own declares the kinds it emits.
    """

    latency: float = 0.0
    monitors: tuple[str, ...] = ()
    event_kinds: tuple[str, ...] = ()

    def __init__(self, name: str, sample_time: float, inputs: list[str], outputs: list[str]):
        self.name = name
        self.sample_time = sample_time
        self.inputs = inputs
        self.outputs = outputs
        self.events: list[tuple[str, str]] = []  # (event, detail) for events.csv, drained

    @abstractmethod
    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        """Map the input signals at ``time`` (s) to the output signals, in declared order."""

    def reset(self) -> None:  # noqa: B027 - a stateless controller has nothing to reset
        """Return to the state before the first sample (a new run with the same object)."""

    def reconfigure(self, x: np.ndarray) -> bool:
        """Adapt to a changed morphology at state ``x``; True if ``outputs`` changed."""
        return False


def body_state_signals(body: str) -> list[str]:
    """The signals of a body's full state: ``p`` (NED, m), ``q`` (quaternion), ``nu`` (body
    frame, m/s and rad/s), in that order (13 signals)."""
    return (
        [f"{body}.p[{i}]" for i in range(1, 4)]
        + [f"{body}.q[{i}]" for i in range(1, 5)]
        + [f"{body}.nu[{i}]" for i in range(1, 7)]
    )


def loop_gains(gains: PID) -> tuple[float, float, float, float]:
    """A PID loop's settings for the compiled laws: kp, ki, kd and the integral's bound
    divided by ki (0 without ki). The loop's action is kp e + ki I + kd e', with the integral
    I advanced by e times the sample time and clamped to the bound (anti-windup)."""
    limit = gains.integral_limit / gains.ki if gains.ki else 0.0
    return float(gains.kp), float(gains.ki), float(gains.kd), limit
