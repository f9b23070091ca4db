"""Controllers of one kind batched: many vehicles' autopilots, or their thrust allocations,
sampled in one step.

A swarm runs the same controllers on every vehicle. Sampled one by one, each costs the
master's per-controller work (gathering inputs, applying outputs) and NumPy's per-call cost
on a handful of numbers. :func:`batched` merges the autopilots of equal sample time into one
:class:`AutopilotBatch` (every member's compiled law stepped in one call) and the thrust
allocations into one :class:`AllocationBatch` (the thrusts' ranges and the thrust-to-PWM maps
over all thrusters in one call each, every vehicle's program solved in one compiled call,
the pseudo-inverse members' compiled laws stepped in one call). Each vehicle's outputs are the
same, bit for bit, as its own controller's: the same laws, or the same floating-point
operations in the same order, and a member that fails holds its own previous outputs, as the
master holds a controller's.
"""

from __future__ import annotations

import math

import numpy as np

from orchestrator.controllers.allocation import ThrustAllocation, ThrusterMaps
from orchestrator.controllers.autopilot import DepthHeadingSpeedAutopilot
from orchestrator.controllers.base import Controller
from orchestrator.controllers.constrained_allocation import allocate_many, thrust_range
from orchestrator.native.controllers import step_laws

BATCHED_KINDS = (DepthHeadingSpeedAutopilot, ThrustAllocation)


def _instances(names: list[str]) -> set[str]:
    """The instances or controllers that signal names belong to (``<owner>.<signal>``)."""
    return {name.partition(".")[0] for name in names}


def _kind(controller: Controller) -> tuple[type, float, float] | None:
    """What a controller must share with the others of its batch, None if it is batched with
    none: its class (built-in kinds only; not a subclass), sample time and latency (s)."""
    if type(controller) not in BATCHED_KINDS:
        return None
    return type(controller), controller.sample_time, controller.latency


def batched(controllers: list[Controller]) -> list[Controller]:
    """``controllers`` in execution order with every group of the same kind merged into one
    batch at its first member's place. A controller joins an earlier member's batch only if
    it is independent of every controller sampled in between (it reads none of their
    outputs, they read none of its), so the order of every dependent pair is kept. A kind
    with a single member keeps its controller."""
    order: list[list[Controller]] = []
    # per group: the instances and controllers its members read and write (to test a
    # controller that would pass the group against all its members at once)
    reads: list[set[str]] = []
    writes: list[set[str]] = []
    open_groups: dict[tuple[type, float, float], int] = {}
    for controller in controllers:
        kind = _kind(controller)
        at = open_groups.get(kind) if kind is not None else None
        mine_read, mine_written = _instances(controller.inputs), _instances(controller.outputs)
        if at is not None and not any(
            mine_read & writes[g] or mine_written & reads[g] for g in range(at + 1, len(order))
        ):  # independent of every controller sampled in between
            order[at].append(controller)
        else:
            at = len(order)
            order.append([controller])
            reads.append(set())
            writes.append(set())
            if kind is not None:
                open_groups[kind] = at
        reads[at] |= mine_read
        writes[at] |= mine_written
    return [group[0] if len(group) == 1 else _batch(group) for group in order]


def _batch(members: list[Controller]) -> Controller:
    if isinstance(members[0], DepthHeadingSpeedAutopilot):
        return AutopilotBatch(members)
    return AllocationBatch(members)


class _Batch(Controller):
    """Members of one kind sampled in one step: inputs and outputs are theirs, concatenated
    in member order. A member whose step raises or gives non-finite outputs holds its
    previous outputs and reports a ``controller_fault`` event, as the master does for a
    controller of its own."""

    def __init__(self, members: list[Controller]) -> None:
        first = members[0]
        name = f"{first.name}+{len(members) - 1}"
        super().__init__(name, first.sample_time, [], [])
        self.latency = first.latency
        self.members = members
        self._lay_out()

    def _lay_out(self) -> None:
        """Inputs, outputs and monitors from the members' (again after a reconfiguration)."""
        members = self.members
        self.inputs = [n for m in members for n in m.inputs]
        self.outputs = [n for m in members for n in m.outputs]
        self.monitors = tuple(n for m in members for n in m.monitors)
        counts = np.cumsum([0] + [len(m.outputs) for m in members])
        self._spans = list(zip(counts[:-1].tolist(), counts[1:].tolist(), strict=True))
        self._held = np.zeros(len(self.outputs))

    def reset(self) -> None:
        for member in self.members:
            member.reset()
        self._held = np.zeros(len(self.outputs))

    def reconfigure(self, x: np.ndarray) -> bool:
        changed = [m.reconfigure(x) for m in self.members]  # every member, not the first only
        if any(changed):
            self._lay_out()
        return any(changed)

    def _fault(self, k: int, outputs: np.ndarray, error: Exception) -> None:
        """Member ``k``'s previous outputs back in ``outputs``, and its fault reported."""
        start, end = self._spans[k]
        outputs[start:end] = self._held[start:end]
        detail = f"{self.members[k].name}: {type(error).__name__}: {error}; previous outputs held"
        self.events.append(("controller_fault", detail))

    def _hold(self, outputs: np.ndarray, failed: dict[int, Exception]) -> np.ndarray:
        """Members in ``failed`` (index: error) or with non-finite outputs hold their previous
        outputs (added to ``failed``); the outputs are kept as the next to hold."""
        # all finite and far from overflow: no member's sum is non-finite (one pass, not N)
        if not (np.isfinite(outputs).all() and np.abs(outputs).max(initial=0.0) < 1e300):
            for k, (start, end) in enumerate(self._spans):
                if k not in failed and not math.isfinite(outputs[start:end].sum()):
                    failed[k] = ValueError(f"non-finite outputs {outputs[start:end]!r}")
        for k, error in failed.items():
            self._fault(k, outputs, error)
        self._held = outputs.copy()
        return outputs


class AutopilotBatch(_Batch):
    """Depth, heading and surge-speed autopilots of many vehicles
    (:class:`~orchestrator.controllers.autopilot.DepthHeadingSpeedAutopilot`): their compiled
    laws stepped in one call, each on its own integrals."""

    def __init__(self, members: list[DepthHeadingSpeedAutopilot]) -> None:
        super().__init__(members)
        self._laws = [m.compiled_law for m in members]

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        outputs = np.empty(len(self.outputs))
        # an autopilot's step always gives outputs: a lost state makes them non-finite, held
        step_laws(self._laws, time, np.ascontiguousarray(inputs, dtype=float), outputs)
        return self._hold(outputs, {})


class AllocationBatch(_Batch):
    """Thrust allocations of many vehicles
    (:class:`~orchestrator.controllers.allocation.ThrustAllocation`): each QP member's thrusts
    from its own program (its allocator keeps its solver's state), the static maps thrust to
    PWM and PWM to realized thrust over their thrusters (:class:`ThrusterMaps`); the
    pseudo-inverse members' compiled laws (thrusts and PWM) stepped in one call."""

    def _lay_out(self) -> None:
        super()._lay_out()
        self._maps = ThrusterMaps([t for m in self.members for t in m.thrusters])
        self._fail_times = np.concatenate([m.fail_times for m in self.members])
        limits, steps = [], []
        for m in self.members:  # the QP allocations' limits and rate steps (N); none otherwise
            qp = m.method == "qp"
            limits.append(m.allocator.limits if qp else np.zeros(len(m.outputs)))
            steps.append(np.full(len(m.outputs), m.allocator.step_limit if qp else 0.0))
        self._highest, self._steps = np.concatenate(limits), np.concatenate(steps)
        # the QP members (solved in one compiled call) and their thrusters
        self._qp = [k for k, m in enumerate(self.members) if m.method == "qp"]
        spans = [np.arange(*self._spans[k]) for k in self._qp]
        self._qp_thrusters = np.concatenate(spans) if spans else np.zeros(0, dtype=int)
        # the pseudo-inverse members, their inputs and their thrusters
        self._pseudo = [k for k, m in enumerate(self.members) if m.method != "qp"]
        starts = np.cumsum([0] + [len(m.inputs) for m in self.members])
        self._pseudo_inputs = np.array(
            [i for k in self._pseudo for i in range(starts[k], starts[k + 1])], dtype=int
        )
        self._pseudo_thrusters = np.array(
            [j for k in self._pseudo for j in range(*self._spans[k])], dtype=int
        )

    def _commands(self, inputs: np.ndarray) -> np.ndarray:
        """Each member's command (members x 6; N, N.m): the sum of its inputs' wrenches."""
        if all(len(m.inputs) == 6 for m in self.members):  # one command each
            return inputs.reshape(-1, 6)
        ends = np.cumsum([len(m.inputs) for m in self.members])
        parts = np.split(inputs, ends[:-1])
        return np.array([p if len(p) == 6 else p.reshape(-1, 6).sum(axis=0) for p in parts])

    def step(self, time: float, inputs: np.ndarray) -> np.ndarray:
        available = time < self._fail_times
        previous = np.concatenate([m.thrusts for m in self.members])
        low, high = thrust_range(-self._highest, self._highest, self._steps, previous, available)
        thrusts = np.zeros(len(self.outputs))
        failed: dict[int, Exception] = {}
        taus = self._commands(inputs)
        if self._qp:  # NaN thrusts where a vehicle's program failed
            index = self._qp_thrusters
            allocators = [self.members[k].allocator for k in self._qp]  # a morphology's own
            solved, failures = allocate_many(allocators, taus[self._qp], low[index], high[index])
            thrusts[index] = solved
            failed.update({self._qp[j]: error for j, error in failures.items()})
        failed = dict(sorted(failed.items()))  # reported in member order
        pwm = self._maps.pwm(thrusts, available)
        with np.errstate(invalid="ignore"):  # caught as non-finite outputs
            realized = self._maps.realized(pwm)
        if self._pseudo:
            laws = [
                self.members[k].pseudo_inverse_law(available[slice(*self._spans[k])])
                for k in self._pseudo
            ]
            part = np.empty(len(self._pseudo_thrusters))
            step_laws(laws, time, inputs[self._pseudo_inputs], part)
            pwm[self._pseudo_thrusters] = part
        outputs = self._hold(pwm, failed)
        for k, member in enumerate(self.members):
            start, end = self._spans[k]
            if member.method == "qp" and k not in failed:  # rate limits start from these
                member.thrusts = realized[start:end]
        return outputs
