"""The signal table of a run: every signal name, resolved once to where its value lives.

A run's signals live in four places:

- ``bus``: controller outputs of the controllers' own (``autopilot.tau[1]``), the joint
  signals of the constraint coupling (``hinge.angle`` in rad, ``.rate`` in rad/s, ``.torque``
  in N.m) and, where a controller reads them under strong coupling, the coupled bodies'
  accelerations with the joints' forces (``rov.der(nu[1])``, m/s^2 and rad/s^2, body frame),
  held between communication points in :attr:`SignalTable.values`;
- ``joint``: the coupling's recorded joint columns (``dock.position_error`` in m, ``.force_a[1]``
  in N, ...), computed from the state when a row is recorded;
- ``state``: continuous states of the integrated FMUs (``rov.p[3]``), by position in the state
  vector (strong coupling only: under weak coupling each unit holds its own states);
- ``fmu``: any other FMU variable (``t1.pwm``, ``rov.tau_ext[1]``), read or written through
  ports of its instance.

A name may live in more than one place (a state is also an FMU variable; a joint signal is
both on the bus and a recorded column): each user says in which order it looks
(:meth:`SignalTable.select`). A name found nowhere is a ScenarioError of one line naming the
scenario entry (and the closest names, or the FMU's suggestion for a variable it lacks).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from orchestrator.errors import ScenarioError
from orchestrator.fmi.fmu import FMUInstance, Port
from orchestrator.system.system import System

KINDS = ("bus", "joint", "state", "fmu")

FMUPorts = list[tuple[FMUInstance, Port, np.ndarray]]  # (instance, port, positions among names)


@dataclass
class Selection:
    """Where each of some named signals (``names``) lives, with its position among them.

    ``bus``: positions among the names and slots in the bus values; ``state``: positions and
    indices in the state vector; ``joint``: positions and names of joint columns; ``fmu``:
    (instance, port, positions) per instance, in the order the names first name it.
    """

    names: list[str]
    bus: tuple[np.ndarray, np.ndarray]
    state: tuple[np.ndarray, np.ndarray]
    joint: tuple[np.ndarray, list[str]]
    fmu: FMUPorts

    def from_bus(self, bus: np.ndarray, signals: np.ndarray) -> None:
        """Copy the bus values into ``signals`` (one value per name), in place."""
        positions, slots = self.bus
        if positions.size:
            signals[positions] = bus[slots]

    def to_bus(self, signals: np.ndarray, bus: np.ndarray) -> None:
        """Copy ``signals`` (one value per name) onto the bus, in place."""
        positions, slots = self.bus
        if positions.size:
            bus[slots] = signals[positions]

    def fmu_positions(self) -> np.ndarray:
        """Positions among the names of the FMU variables, port after port."""
        return np.concatenate([positions for _, _, positions in self.fmu] or [[]]).astype(int)


class SignalTable:
    """Every signal of a run by name (see the module docstring), built once per run.

    ``bus``: the bus signals' names, in order; ``states``: state-vector position by name
    (empty under weak coupling); ``joint_columns``: the recorded joint columns.
    """

    def __init__(
        self,
        system: System,
        bus: Sequence[str],
        states: dict[str, int],
        joint_columns: Iterable[str],
    ) -> None:
        self.system = system
        self.index = {name: k for k, name in enumerate(bus)}  # on the bus
        self.values = np.zeros(len(self.index))  # the bus
        self.states = states
        self.joint_columns = set(joint_columns)
        self._slots: dict[tuple[str, ...], np.ndarray] = {}

    def slots(self, names: tuple[str, ...]) -> np.ndarray:
        """Positions of the bus signals ``names`` in :attr:`values` (looked up once per
        tuple: the coupling names its joint signals and commands by the same tuple each
        time)."""
        slots = self._slots.get(names)
        if slots is None:
            slots = self._slots[names] = np.array([self.index[n] for n in names], dtype=int)
        return slots

    def kind(self, name: str, kinds: Sequence[str] = KINDS) -> str | None:
        """The first of ``kinds`` where ``name`` lives without asking the FMUs (``fmu`` for
        any name not found before it, checked by :meth:`select`); None if none of them."""
        for kind in kinds:
            if kind == "fmu" or name in self._of(kind):
                return kind
        return None

    def select(self, names: Sequence[str], key: str, kinds: Sequence[str] = KINDS) -> Selection:
        """Where each of ``names`` lives, looked for in the order of ``kinds``. A name none of
        them holds is a ScenarioError of one line naming ``key`` (the scenario entry)."""
        names = list(names)
        where = [self.kind(n, kinds) for n in names]
        unknown = [n for n, kind in zip(names, where, strict=True) if kind is None]
        if unknown:
            known = [n for kind in kinds for n in self._of(kind)]
            closest = difflib.get_close_matches(unknown[0], known, n=3, cutoff=0.0)
            raise ScenarioError(
                f"{self.system.source}: {key}: '{unknown[0]}' is none of the {_list(kinds)}"
                + (f" (closest: {', '.join(closest)})" if closest else "")
            )

        def positions(kind: str) -> np.ndarray:
            return np.array([k for k, w in enumerate(where) if w == kind], dtype=int)

        on_bus, joint, in_state, fmu = (positions(kind) for kind in KINDS)
        fmu_names = [names[k] for k in fmu]
        self._no_missing_output(fmu_names, key)
        ports = self.system.port(fmu_names, key) if fmu_names else []
        return Selection(
            names,
            (on_bus, np.array([self.index[names[k]] for k in on_bus], dtype=int)),
            (in_state, np.array([self.states[names[k]] for k in in_state], dtype=int)),
            (joint, [names[k] for k in joint]),
            [(instance, port, fmu[p]) for instance, port, p in ports],
        )

    def _no_missing_output(self, names: list[str], key: str) -> None:
        """A name taken for an FMU variable whose prefix is a controller, not an instance, is
        an output that controller does not have: one line naming its outputs nearest to it
        (instead of calling the controller an unknown component)."""
        for name in names:
            owner = name.partition(".")[0]
            if owner in self.system.instances:
                continue
            outputs = [n for n in self.index if n.partition(".")[0] == owner]
            if outputs:
                closest = difflib.get_close_matches(name, outputs, n=3, cutoff=0.0)
                raise ScenarioError(
                    f"{self.system.source}: {key}: '{name}' is not an output of controller "
                    f"'{owner}' (closest: {', '.join(closest)})"
                )

    def _of(self, kind: str) -> dict[str, int] | set[str]:
        return {"bus": self.index, "state": self.states, "joint": self.joint_columns}[kind]


def _list(kinds: Sequence[str]) -> str:
    words = {
        "bus": "controller outputs or joint signals",
        "joint": "joint columns",
        "state": "integrated states",
        "fmu": "FMU variables",
    }
    return ", ".join(words[k] for k in kinds)
