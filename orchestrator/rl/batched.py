"""``BatchedVectorEnv``: environments stepped in batches by a few worker processes.

Gymnasium's ``AsyncVectorEnv`` gives each environment a process and exchanges pickled actions
and results per environment and step; for an environment step of ~150 us that round trip
(~170 us measured) costs more than the step. Here each worker process holds a contiguous slice
of the environments and steps the whole slice per message: actions, observations, rewards and
the terminated and truncated flags live in shared memory (``multiprocessing.shared_memory``,
read and written through NumPy views), and one short pipe message per worker and step starts
the batch (a single byte) and returns the slice's infos (pickled with ``pickle`` itself:
``Connection.send`` builds a ``ForkingPickler`` per message, which copies the ``copyreg``
dispatch table every time). A worker polls its pipe for a millisecond before it
blocks (:data:`SPIN`), as the caller does for the workers' answers, yielding its core between
polls (:class:`_Waiting`): between steps that come back to back it is awake when the next one
starts, and an agent that thinks longer costs it at most that much spinning per step.
Observation and action spaces must be ``Box`` spaces.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import select
import time
from collections.abc import Callable, Sequence
from functools import partial
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import CloudpickleWrapper, batch_space
from threadpoolctl import threadpool_limits

_FIELDS = ("observations", "actions", "rewards", "terminations", "truncations")
SPIN = 0.001  # s: how long a worker polls its pipe for the next command before it blocks
_STEP = b"s"  # the command to step a slice: the only one of every step, so a single byte
_OK, _ERROR = b"k", b"e"  # the first byte of an answer: the rest is its pickled payload


def _message(status: bytes, payload: object) -> bytes:
    """``status`` and ``payload`` as one pipe message (see :func:`_payload`)."""
    return status + pickle.dumps(payload, pickle.HIGHEST_PROTOCOL)


def _payload(message: bytes) -> tuple[bytes, Any]:
    """A message's status and payload (see :func:`_message`)."""
    return message[:1], pickle.loads(memoryview(message)[1:])


def _command(name: str, payload: object) -> bytes:
    """A command other than a step (``attach``, ``reset``, ``close``) as one pipe message."""
    return pickle.dumps((name, payload), pickle.HIGHEST_PROTOCOL)


def _layout(
    n: int, observation_space: spaces.Box, action_space: spaces.Box
) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """Shape and dtype of each shared array. Actions are kept in (at least) double precision,
    so that a sub-environment receives the caller's values as a serial vector env passes them."""
    return {
        "observations": ((n, *observation_space.shape), observation_space.dtype),
        "actions": ((n, *action_space.shape), np.promote_types(action_space.dtype, np.float64)),
        "rewards": ((n,), np.dtype(np.float64)),
        "terminations": ((n,), np.dtype(np.bool_)),
        "truncations": ((n,), np.dtype(np.bool_)),
    }


def _views(
    blocks: dict[str, SharedMemory], layout: dict[str, tuple[tuple[int, ...], np.dtype]]
) -> dict[str, np.ndarray]:
    return {
        name: np.ndarray(shape, dtype=dtype, buffer=blocks[name].buf)
        for name, (shape, dtype) in layout.items()
    }


class _Waiting:
    """Waiting for a message on ``pipe``: polled for up to ``spin`` seconds before the
    blocking receive. A process woken from a blocked read waits for the scheduler, on a
    virtual machine hundreds of microseconds, longer than a step of a few environments
    (measured: a batch of eight environments over two workers took 1.06 ms blocking at once,
    0.57 ms polling first). One poll is one ``poll`` system call on a poller made once
    (``Connection.poll`` builds a selector per call: 6.6 us against 0.3 us measured), and
    between polls the process yields its core to any other that is ready to run (the worker
    it waits for, on a machine whose cores are all busy)."""

    def __init__(self, pipe: Connection, spin: float = SPIN) -> None:
        self.pipe, self.spin = pipe, spin
        self._poller = select.poll()
        self._poller.register(pipe.fileno(), select.POLLIN)

    def receive(self) -> bytes:
        """The next message (EOFError when the other end is gone)."""
        deadline = time.perf_counter() + self.spin
        while not self._poller.poll(0) and time.perf_counter() < deadline:
            os.sched_yield()
        return self.pipe.recv_bytes()


class _Slice:
    """Environments of one contiguous slice of the batch and their rows of the shared arrays:
    what one process steps per message (a sub-environment whose episode ended is reset by
    the next step, as Gymnasium's next-step autoreset does)."""

    def __init__(self, envs: list[gymnasium.Env], shared: dict[str, np.ndarray], first: int):
        self.envs = envs
        rows = {k: v[first : first + len(envs)] for k, v in shared.items()}
        self.observations, self.actions, self.rewards, self.terminations, self.truncations = (
            rows[k] for k in _FIELDS
        )
        self.ended = [False] * len(envs)  # whose last step ended its episode

    def step(self) -> list[dict]:
        """Step (or reset) each environment with its row of the actions; their infos. The
        rewards and flags are gathered in lists and written once per slice."""
        infos, rewards, terminations, truncations = [], [], [], []
        for i, env in enumerate(self.envs):
            if self.ended[i]:  # the last step ended its episode: this one resets it
                self.observations[i], info = env.reset()
                reward, terminated, truncated = 0.0, False, False
            else:
                observation, reward, terminated, truncated, info = env.step(self.actions[i])
                self.observations[i] = observation
            infos.append(info)
            rewards.append(reward)
            terminations.append(terminated)
            truncations.append(truncated)
        self.rewards[:] = rewards
        self.terminations[:] = terminations
        self.truncations[:] = truncations
        self.ended = [bool(t or u) for t, u in zip(terminations, truncations, strict=True)]
        return infos

    def reset(self, seeds: list[int | None], options: dict | None) -> list[dict]:
        """Reset each environment with its seed; their infos."""
        infos = []
        for i, env in enumerate(self.envs):
            self.observations[i], info = env.reset(seed=seeds[i], options=options)
            infos.append(info)
        self.ended = [False] * len(self.envs)
        return infos


def _serve(env_fns: CloudpickleWrapper, first: int, pipe: Connection) -> None:
    """A worker's loop: build its environments (indices ``first`` on), report their spaces,
    attach to the shared arrays, then answer ``reset``, ``step`` and ``close``. An
    exception is sent back (and raised by the caller) instead of ending the worker silently."""
    envs: list[gymnasium.Env] = []
    blocks: dict[str, SharedMemory] = {}
    # one BLAS thread per worker: the workers share the cores, and the controllers' small
    # dense algebra only slows down when the BLAS threads of two workers compete
    threadpool_limits(limits=1, user_api="blas")
    try:
        envs = [make() for make in env_fns.fn]
        declared = [(env.observation_space, env.action_space) for env in envs]
        pipe.send_bytes(_message(_OK, (declared, envs[0].metadata)))
        # "attach" (or "close" when the spaces were refused)
        command, payload = pickle.loads(pipe.recv_bytes())
        if command == "attach":
            names, layout = payload
            blocks = {field: SharedMemory(name=name) for field, name in names.items()}
            part = _Slice(envs, _views(blocks, layout), first)
            pipe.send_bytes(_message(_OK, []))
        waiting = _Waiting(pipe)
        while command != "close":
            message = waiting.receive()
            if message == _STEP:
                pipe.send_bytes(_message(_OK, part.step()))
                continue
            command, payload = pickle.loads(message)
            if command == "reset":
                pipe.send_bytes(_message(_OK, part.reset(*payload)))
    except EOFError:  # the caller is gone
        pass
    except Exception as error:  # handed to the caller, which raises it
        pipe.send_bytes(_message(_ERROR, error))
    finally:
        for env in envs:
            env.close()
        for block in blocks.values():
            block.close()
        pipe.close()


def _info_columns(infos: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``infos`` batched a key at a time as Gymnasium's ``VectorEnv._add_info`` batches them
    one info at a time (an array of the first value's type per key, Python numbers as NumPy
    numbers, other objects in an object array, and a mask ``_key``), where every info has the
    same keys, none private (``_``-prefixed) or special (``final_obs``), and each key's values
    are of one type that is neither a dict, a NumPy number nor an array: the infos of this
    package's environments. None otherwise."""
    keys = infos[0].keys()  # the batch's order: the first info's, as Gymnasium's
    if any(info.keys() != keys for info in infos[1:]):
        return None
    if any(key.startswith("_") or key == "final_obs" for key in keys):
        return None
    columns: dict[str, Any] = {}
    n = len(infos)
    for key in keys:
        values = [info[key] for info in infos]
        kinds = set(map(type, values))
        if len(kinds) > 1:
            return None
        kind = kinds.pop()
        if kind in (int, float, bool):
            columns[key] = np.array(values, dtype=kind)
        elif kind is dict or issubclass(kind, np.number | np.ndarray):
            return None
        else:  # the objects themselves (a list is not spread)
            columns[key] = np.fromiter(values, dtype=object, count=n)
        columns[f"_{key}"] = np.ones(n, dtype=bool)
    return columns


class BatchedVectorEnv(VectorEnv):
    """The environments made by ``env_fns`` stepped by ``workers`` processes (default: as many
    as there are cores, at most one per environment), each stepping a contiguous slice of them
    per message; a ``gymnasium.vector.VectorEnv``. The calling process is one of them: it
    steps the first slice itself while the ``workers - 1`` started processes step theirs, so
    no core idles while it waits and it never waits to be woken.

    It behaves as Gymnasium's ``SyncVectorEnv`` over the same ``env_fns`` does: ``reset(seed=)``
    takes ``None``, an int (sub-environment ``i`` gets ``seed + i``) or one seed per
    sub-environment; a sub-environment whose episode ended is reset by the next ``step`` (its
    action ignored, reward 0, Gymnasium's next-step autoreset); infos are batched with their
    ``_key`` masks. So the same seeds and actions give the same episodes, bit for bit.
    ``context``: the multiprocessing start method (default the platform's; with ``spawn`` or
    ``forkserver`` the functions must pickle with cloudpickle).
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], gymnasium.Env]],
        workers: int | None = None,
        context: str | None = None,
    ) -> None:
        self._blocks: dict[str, SharedMemory] = {}
        self._pipes: list[Connection] = []
        self._waiting: dict[Connection, _Waiting] = {}
        self._processes: list[multiprocessing.process.BaseProcess] = []
        self._own: list[gymnasium.Env] = []  # the caller's slice
        self.num_envs = len(env_fns)
        if self.num_envs < 1:
            raise ValueError("env_fns: expected at least one environment")
        workers = min(self.num_envs, os.cpu_count() or 1) if workers is None else workers
        if not isinstance(workers, int) or not 1 <= workers <= self.num_envs:
            raise ValueError(
                f"workers: expected 1 to {self.num_envs} (the environments), got {workers!r}"
            )
        ctx = multiprocessing.get_context(context)
        # The workers attach to shared memory the parent creates: they must report it to the
        # parent's resource tracker (started now, so they inherit it), not to trackers of
        # their own, which would remove it when a worker ends.
        resource_tracker.ensure_running()
        # the calling process, which also exchanges, takes the smaller slice of an uneven split
        sizes = [len(s) for s in np.array_split(np.arange(self.num_envs), workers)][::-1]
        self._slices: list[tuple[int, int]] = []  # each slice's first environment and count
        first = sizes[0]
        for n in sizes[1:]:
            parent, child = ctx.Pipe()
            fns = CloudpickleWrapper(list(env_fns[first : first + n]))
            process = ctx.Process(target=_serve, args=(fns, first, child), daemon=True)
            process.start()
            child.close()
            self._pipes.append(parent)
            self._processes.append(process)
            first += n
        first = 0
        for n in sizes:
            self._slices.append((first, n))
            first += n
        try:
            self._own = [make() for make in env_fns[: sizes[0]]]
        except BaseException:
            self.close_extras()
            raise
        reports = [self._receive(pipe) for pipe in self._pipes]
        declared = [(env.observation_space, env.action_space) for env in self._own]
        declared += [pair for pairs, _ in reports for pair in pairs]
        observation_space, action_space = declared[0]
        metadata = self._own[0].metadata
        if any(pair != declared[0] for pair in declared) or not all(
            isinstance(space, spaces.Box) for space in declared[0]
        ):
            self.close()
            raise ValueError(
                "env_fns: expected environments with the same Box observation and action spaces"
            )
        self.single_observation_space = observation_space
        self.single_action_space = action_space
        self.observation_space = batch_space(observation_space, self.num_envs)
        self.action_space = batch_space(action_space, self.num_envs)
        self.metadata = {**metadata, "autoreset_mode": AutoresetMode.NEXT_STEP}
        layout = _layout(self.num_envs, observation_space, action_space)
        for name, (shape, dtype) in layout.items():
            size = max(1, int(np.prod(shape)) * dtype.itemsize)
            self._blocks[name] = SharedMemory(create=True, size=size)
        self._shared = _views(self._blocks, layout)
        names = {field: block.name for field, block in self._blocks.items()}
        for pipe in self._pipes:
            pipe.send_bytes(_command("attach", (names, layout)))
        for pipe in self._pipes:
            self._receive(pipe)
        self._waiting = {pipe: _Waiting(pipe) for pipe in self._pipes}
        self._part = _Slice(self._own, self._shared, 0)

    def _receive(self, pipe: Connection, wait: bool = False) -> Any:
        """A worker's answer (``wait``: polled for first, see :class:`_Waiting`); its
        exception raised here (after closing every worker)."""
        try:
            status, payload = _payload(self._waiting[pipe].receive() if wait else pipe.recv_bytes())
        except EOFError:
            status, payload = _ERROR, RuntimeError("a worker process stopped unexpectedly")
        if status == _ERROR:
            self.close()
            raise payload
        return payload

    def _gather(
        self, messages: Sequence[bytes], own_part: Callable[[], list[dict[str, Any]]]
    ) -> dict[str, Any]:
        """Send each worker its message, carry out the caller's own part (``own_part``)
        while the workers run theirs, then batch the infos of all, in the order of the
        sub-environments."""
        for pipe, message in zip(self._pipes, messages, strict=True):
            pipe.send_bytes(message)
        try:
            own = own_part()
        except BaseException:
            self.close()
            raise
        for pipe in self._pipes:
            own += self._receive(pipe, wait=True)
        return self._batched_infos(own)

    def _batched_infos(self, infos: list[dict[str, Any]]) -> dict[str, Any]:
        """The sub-environments' ``infos`` batched as Gymnasium's ``_add_info`` batches them,
        one info at a time (:func:`_info_columns` makes the same a key at a time, where it
        can)."""
        columns = _info_columns(infos)
        if columns is not None:
            return columns
        batched: dict[str, Any] = {}
        for i, info in enumerate(infos):
            batched = self._add_info(batched, info, i)
        return batched

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every sub-environment: the batched first observations and infos."""
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"seed: expected {self.num_envs} seeds, got {len(seeds)}")
        parts = [(seeds[first : first + n], options) for first, n in self._slices]
        messages = [_command("reset", part) for part in parts[1:]]
        infos = self._gather(messages, partial(self._part.reset, *parts[0]))
        return self._shared["observations"].copy(), infos

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment with its row of ``actions`` (one whose episode ended
        is reset instead): observations, rewards, terminations, truncations, infos."""
        self._shared["actions"][:] = actions
        infos = self._gather([_STEP] * len(self._pipes), self._part.step)
        s = self._shared
        return (
            s["observations"].copy(),
            s["rewards"].copy(),
            s["terminations"].copy(),
            s["truncations"].copy(),
            infos,
        )

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the workers (their environments are closed) and free the shared memory."""
        for pipe in self._pipes:
            with contextlib.suppress(BrokenPipeError, OSError):
                pipe.send_bytes(_command("close", None))
        for process in self._processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()
        for pipe in self._pipes:
            pipe.close()
        for block in self._blocks.values():
            block.close()
            block.unlink()
        for env in self._own:
            env.close()
        self._pipes, self._processes, self._blocks, self._own = [], [], {}, []

    def __del__(self) -> None:
        if not getattr(self, "closed", True):
            self.close()
