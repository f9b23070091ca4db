"""Open-loop schedule: piecewise-constant values on FMU inputs, such as thruster commands."""

from __future__ import annotations

import numpy as np

from orchestrator.controllers.base import Controller
from orchestrator.scenario.model import ScheduleConfig


class Schedule(Controller):
    """Holds each signal at the value of the latest step at or before the present time.

    Before a signal's first step it keeps ``initial`` (the input's start value).
    """

    def __init__(self, name: str, config: ScheduleConfig, initial: dict[str, float]) -> None:
        outputs = sorted({n for step in config.steps for n in step.values})
        super().__init__(name, config.sample_time, [], outputs)
        self.steps = sorted(config.steps, key=lambda s: s.time)
        self.initial = np.array([initial[n] for n in outputs])

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        values = self.initial.copy()
        for step in self.steps:
            if step.time > time + 1e-12:
                break
            for k, name in enumerate(self.outputs):
                if name in step.values:
                    values[k] = step.values[name]
        return values
