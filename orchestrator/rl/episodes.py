"""Episodes of a scenario driven one control sample at a time: what the environments share.

An episode is one :class:`~orchestrator.master.stepping.SteppedRun` of the scenario with values
drawn for it (:mod:`orchestrator.rl.draws`). Its command (a controller named ``name``, run after
the scenario's controllers) reads the observed signals and the limited ones at every sample
and holds the action on the action signals until the next. The loaded FMUs are kept from one
episode to the next (loading them is most of a run's set-up), and so are their instances: the
next episode resets them in place (``fmi3Reset``/``fmi2Reset``) and sets the values drawn for
it, on the system assembled before (:meth:`~orchestrator.master.stepping.SteppedRun.restart`);
coupling, controllers and master are built anew. Where that cannot be (a drawn parameter of a
vehicle carrying thrusters, an instance that cannot be reset) the episode is built anew, and
an FMU whose reset does not bring back its first episode's start (checked at construction)
gets new instances every episode (:attr:`Episodes.restarts` False).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from orchestrator.errors import ScenarioError
from orchestrator.fmi.fmu import FMU
from orchestrator.fmi.folder import fmu_folder
from orchestrator.master.stepping import ExternalCommand, SteppedRun
from orchestrator.rl.draws import Draw, ScenarioDraws
from orchestrator.rl.shared_fmus import SharedFMUs
from orchestrator.rl.terminations import terminating_kinds
from orchestrator.scenario.model import Scenario
from orchestrator.scenario.reading import load_scenario, validate_scenario

Bounds = Mapping[str, tuple[float, float]]
Signals = Bounds | Sequence[str]


def signal_bounds(
    signals: Signals, key: str, finite: bool = False
) -> dict[str, tuple[float, float]]:
    """Signals with their (low, high) bounds: a mapping as given, a list unbounded; one line
    naming ``key`` and the signal for bounds that are not numbers with low < high (finite
    ones where ``finite``)."""
    if isinstance(signals, str):
        raise ScenarioError(f"{key}: expected a list of signal names or a mapping to bounds")
    given = dict(signals) if isinstance(signals, Mapping) else dict.fromkeys(signals)
    if not given:
        raise ScenarioError(f"{key}: expected at least one signal")
    bounds = {}
    for name, pair in given.items():
        low, high = (-math.inf, math.inf) if pair is None else pair
        try:
            low, high = float(low), float(high)
        except (TypeError, ValueError):
            raise ScenarioError(f"{key}: '{name}': expected (low, high) numbers") from None
        if not low < high or (finite and not math.isfinite(high - low)):
            kind = "finite " if finite else ""
            raise ScenarioError(f"{key}: '{name}': expected {kind}bounds low < high, got {pair}")
        bounds[name] = (low, high)
    return bounds


class Episodes:
    """Episodes of ``scenario`` (a file or a scenario object) for an agent named ``name``.

    ``observation`` and ``action``: signal names with (low, high) bounds in their units
    (see :class:`~orchestrator.rl.env.ScenarioEnv`); ``limits``: further signals ending the episode
    outside their bounds; ``terminate_on``: event kinds ending it; ``sample_time`` (s): the
    agent's (default: the shortest of the scenario's controllers); ``max_time`` (s): the
    episode's length (default: the scenario's stop time less its start time); ``start`` and
    ``parameters``: draws (:mod:`orchestrator.rl.draws`). An episode is started twice at
    construction: built anew, so that a bad name fails here in one line, then on its instances
    reset in place; :attr:`restarts` tells whether both started alike, and so whether the
    next episodes restart on the same instances. ``shared_fmus``: FMUs loaded once for the
    environments of a process (:class:`~orchestrator.rl.shared_fmus.SharedFMUs`; default:
    loaded for these episodes alone).
    """

    def __init__(
        self,
        scenario: Scenario | str | Path,
        observation: Signals,
        action: Signals,
        *,
        limits: Bounds | None = None,
        terminate_on: Sequence[str] = (),
        sample_time: float | None = None,
        max_time: float | None = None,
        start: Mapping[str, Draw] | None = None,
        parameters: Mapping[str, Draw] | None = None,
        fmu_dir: str | Path | None = None,
        source: str | Path | None = None,
        name: str = "agent",
        shared_fmus: SharedFMUs | None = None,
    ) -> None:
        if isinstance(scenario, Scenario):
            self.source = str(source) if source is not None else "<scenario>"
            data = scenario.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True)
            scenario = validate_scenario(data, self.source)
        else:
            self.source = str(scenario)
            scenario = load_scenario(Path(scenario))
        given = Path(fmu_dir) if fmu_dir is not None else None
        self.fmu_dir = fmu_folder(scenario, Path(self.source).parent, self.source, given)
        self.observation = signal_bounds(observation, "observation")
        self.action = signal_bounds(action, "action", finite=True)
        limited = signal_bounds(limits, "limits") if limits else {}
        sim = scenario.simulation
        if sample_time is None:
            times = [
                c.sample_time for c in scenario.controllers.values() if hasattr(c, "sample_time")
            ]
            if not times:
                raise ScenarioError(
                    "sample_time: expected a time (s): no scenario controller to take it from"
                )
            sample_time = min(times)
        if not sample_time > 0:
            raise ScenarioError(f"sample_time: expected a positive time (s), got {sample_time}")
        if max_time is not None:
            if not max_time >= sample_time:
                raise ScenarioError(
                    f"max_time: expected at least one sample ({sample_time:g} s), got {max_time}"
                )
            sim = sim.model_copy(update={"stop_time": sim.start_time + float(max_time)})
            scenario = scenario.model_copy(update={"simulation": sim})
        self.scenario = scenario
        self.sample_time = float(sample_time)
        self.terminate_on = terminating_kinds(terminate_on, scenario, self.source)
        self.name = name
        read = list(self.observation) + [n for n in limited if n not in self.observation]
        self._bounded = {**limited, **self.observation}
        self._read = read
        self._low = np.array([self._bounded.get(n, (-math.inf, math.inf))[0] for n in read])
        self._high = np.array([self._bounded.get(n, (-math.inf, math.inf))[1] for n in read])
        self.action_low = np.array([b[0] for b in self.action.values()])
        self.action_high = np.array([b[1] for b in self.action.values()])
        self._draws = ScenarioDraws(scenario, start or {}, parameters or {})
        self._shared_fmus = shared_fmus
        self._loaded: dict[tuple[Path, str], FMU] = (
            {} if shared_fmus is None else shared_fmus.acquire()
        )
        self._run: SteppedRun | None = None
        self._command = ExternalCommand(name, self.sample_time, read, list(self.action))
        self._events_seen = 0
        self._signals = np.zeros(len(read))  # read at the last sample
        self.clipped = np.zeros(len(read))  # the same clipped into their bounds
        self._last_start = sim.stop_time + 1e-9  # s: no sample after this less a sample time
        self.time = sim.start_time
        self._done = True
        # Every name is checked now, by one episode built anew; the same episode again on its
        # instances reset in place must start where it did, or every episode is built anew.
        self.restarts = True
        try:
            first = self.begin(np.random.default_rng(0))[0].copy()
            again = self.begin(np.random.default_rng(0))[0]
        except BaseException:
            self.close()
            raise
        self.restarts = self._restarted and bool(np.array_equal(first, again, equal_nan=True))
        self._done = True  # the first reset starts the first episode

    # -- one episode -----------------------------------------------------------------------

    def begin(self, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
        """A new episode with values drawn from ``rng``: the signals read at its first sample
        and the info (``time`` in s, ``events`` so far)."""
        scenario = self._draws.apply(self.scenario, rng)
        run, self._run = self._run, None
        if run is not None and self.restarts:
            self._run = run.restart(scenario)
        elif run is not None:
            run.close()
        self._restarted = self._run is not None
        if self._run is None:
            self._run = SteppedRun(scenario, self.source, self.fmu_dir, self._command, self._loaded)
        self._events_seen = 0
        self._done = False
        reached = self._run.advance()
        if reached is None:  # cannot happen with max_time >= sample_time; kept for FMU stops
            raise ScenarioError(f"{self.source}: the run ended before the agent's first sample")
        self._signals = reached[1]
        self._clip(self._signals)
        self.time = self._run.master.time  # the sample's time stamp (s)
        return self._signals, self._info()

    def advance(self, action: np.ndarray) -> tuple[np.ndarray, bool, bool, dict]:
        """Hold ``action`` (clipped into its bounds; a wrong shape or a NaN is a ValueError)
        for one sample: the signals read at the next (:attr:`clipped` too), terminated (a
        ``terminate_on`` event, an FMU's ``terminated``, a signal out of its bounds),
        truncated (the time limit) and the info."""
        if self._done or self._run is None:
            raise RuntimeError("the episode has ended: call reset() first")
        shape = action.shape if isinstance(action, np.ndarray) else np.shape(action)
        if shape != self.action_low.shape:
            raise ValueError(f"action: expected shape {self.action_low.shape}, got {shape}")
        held = np.maximum(action, self.action_low, out=self._command.command)  # np.clip's
        np.minimum(held, self.action_high, out=held)  # arithmetic, without its wrapper
        if not math.isfinite(held.sum()):  # NaN would be held as a fault
            raise ValueError(f"action: expected finite numbers, got {action!r}")
        reached = self._run.advance()
        if reached is None:  # the run ended before the next sample
            self.time = self._run.master.time
            info = self._info()
            terminated = "terminated" in {event[1] for event in info["events"]}
            self._done = True
            return self._signals, terminated, not terminated, info
        signals = self._signals = reached[1]
        self.time = self._run.master.time
        info = self._info()
        events = info["events"]
        outside = self._clip(signals)
        terminated = outside or bool(events and {e[1] for e in events} & self.terminate_on)
        truncated = not terminated and self.time + self.sample_time > self._last_start
        self._done = terminated or truncated
        return signals, terminated, truncated, info

    @property
    def held(self) -> np.ndarray:
        """The action held now (as clipped into its bounds)."""
        return self._command.command

    def _clip(self, signals: np.ndarray) -> bool:
        """Clip ``signals`` into their bounds in :attr:`clipped` (as ``np.clip``, by its two
        ufuncs into a buffer); whether one was outside them (a NaN, which the clip keeps,
        counts as outside: NaN floats are unequal, and so are the lists holding them)."""
        clipped = np.maximum(signals, self._low, out=self.clipped)
        np.minimum(clipped, self._high, out=clipped)
        return clipped.tolist() != signals.tolist()  # a third of two comparisons' cost

    def _info(self) -> dict:
        rows = self._run.events.rows
        if len(rows) == self._events_seen:  # most samples: no event
            return {"time": self.time, "events": []}
        new, self._events_seen = rows[self._events_seen :], len(rows)
        return {"time": self.time, "events": new}

    def _close_run(self) -> None:
        if self._run is not None:
            run, self._run = self._run, None
            run.close()

    def close(self) -> None:
        """Free the episode's instances and the loaded FMUs (shared ones: when the last
        environment sharing them closes)."""
        self._close_run()
        if self._shared_fmus is not None:
            shared, self._shared_fmus, self._loaded = self._shared_fmus, None, {}
            shared.release()
        for fmu in self._loaded.values():
            fmu.close()
        self._loaded.clear()
