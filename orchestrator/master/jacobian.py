"""The system Jacobian d der(x) / dx from the FMUs' directional derivatives.

Each Model Exchange instance gives, by one directional derivative per known, the partial
derivatives of its state derivatives and of the outputs the connections read with respect to
its states and its connected inputs. Chained through the connections in their propagation
order (an input is the sum of the outputs wired to it), these give the exact Jacobian of the
whole system's right-hand side, which the implicit methods (CVODE's BDF) use for their Newton
iterations instead of difference quotients. Offered only where every instance provides
directional derivatives and no constraint coupling changes the right-hand side.
"""

from __future__ import annotations

import numpy as np

from orchestrator.fmi.fmu import MODEL_EXCHANGE, FMUInstance
from orchestrator.system.system import System


class _Partials:
    """Partial derivatives of one instance: unknowns (state derivatives, then read outputs)
    with respect to knowns (states, then connected inputs)."""

    def __init__(self, instance: FMUInstance, outputs: list[str], inputs: list[str]) -> None:
        fmu = instance.fmu
        self.instance = instance
        self.outputs, self.inputs = outputs, inputs
        names = fmu.state_derivatives + outputs
        self._unknowns = [fmu.variable(n).value_reference for n in names]
        self._knowns = [fmu.variable(n).value_reference for n in fmu.states + inputs]
        self.n_states = len(fmu.states)

    def evaluate(self) -> np.ndarray:
        """(derivatives + outputs) x (states + inputs) at the instance's current point."""
        model = self.instance._model
        matrix = np.zeros((len(self._unknowns), len(self._knowns)))
        for k, known in enumerate(self._knowns):
            matrix[:, k] = model.getDirectionalDerivative(self._unknowns, [known], [1.0])
        return matrix


class DirectionalJacobian:
    """d der(x)/dx of a system, from directional derivatives chained through connections."""

    def __init__(self, system: System) -> None:
        self.system = system
        reads: dict[str, list[str]] = {}
        writes: dict[str, list[str]] = {}
        for kind, instance, item in system._schedule:
            port = item if kind == "read" else item.port
            (reads if kind == "read" else writes).setdefault(instance.name, []).extend(port.names)
        self._partials = {
            name: _Partials(instance, reads.get(name, []), writes.get(name, []))
            for name, instance in system.instances.items()
            if instance not in system.sampled
        }

    @staticmethod
    def available(system: System) -> bool:
        """Whether every Model Exchange instance provides directional derivatives (Co-Simulation
        units sampled by the master hold their outputs between steps: constants here)."""
        return all(
            i.kind == MODEL_EXCHANGE and i.fmu.provides_directional_derivatives
            for i in system.instances.values()
            if i not in system.sampled
        )

    def __call__(self, time: float, x: np.ndarray) -> np.ndarray:
        """The Jacobian at (``time`` (s), ``x``), shape (n, n)."""
        system = self.system
        system.derivatives(time, x)  # every state and connected input at this point
        n = system.n_states
        slices = {instance.name: part for instance, part in system._slices}
        matrices = {name: p.evaluate() for name, p in self._partials.items()}
        output_rows: dict[int, np.ndarray] = {}  # id(read port) -> d(outputs)/dx
        input_rows: dict[str, np.ndarray] = {}  # instance -> d(connected inputs)/dx

        def by_states(name: str, rows: slice) -> np.ndarray:
            """d(unknown rows)/dx of instance ``name``: its own states and its inputs."""
            p, m = self._partials[name], matrices[name]
            result = np.zeros((rows.stop - rows.start, n))
            if name in slices:
                result[:, slices[name]] = m[rows, : p.n_states]
            if name in input_rows:  # inputs written before: outputs read now may depend on them
                result += m[rows, p.n_states :] @ input_rows[name]
            return result

        for kind, instance, item in system._schedule:
            p = self._partials[instance.name]
            if kind == "read":
                start = p.n_states + p.outputs.index(item.names[0])
                output_rows[id(item)] = by_states(instance.name, slice(start, start + len(item)))
                continue
            rows = input_rows.setdefault(instance.name, np.zeros((len(p.inputs), n)))
            offset = p.inputs.index(item.port.names[0])
            for source, from_index, to_index, factor, _ in item.terms:
                rows[offset + to_index] += factor * output_rows[id(source)][from_index]
        jacobian = np.zeros((n, n))
        for instance, part in system._slices:
            jacobian[part] = by_states(instance.name, slice(0, instance.n_states))
        return jacobian
