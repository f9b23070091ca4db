"""A CasADi function evaluated in place on preallocated NumPy arrays.

Calling a ``casadi.Function`` from Python converts every input to a CasADi matrix and every
output back (for a local problem of the rendezvous, 369 decision variables and 186
constraints, this took a fifth of a warm-started solve). CasADi's ``Function.buffer``
evaluates the same function on memory the caller owns: the arrays here are bound to its
inputs and outputs once, a call writes the inputs into them and reads the outputs from them.
The numbers are those of an ordinary call (the same compiled routine on the same values).
"""

from __future__ import annotations

import casadi as ca
import numpy as np


class InPlaceCall:
    """``function`` (dense inputs and outputs) bound to ``inputs`` and ``outputs``, arrays by
    the function's own input and output names; ``__call__`` evaluates it and returns its
    statistics (``Function.stats``)."""

    def __init__(self, function: ca.Function) -> None:
        for kind, count, sparsity in (
            ("input", function.n_in(), function.sparsity_in),
            ("output", function.n_out(), function.sparsity_out),
        ):
            for i in range(count):
                if not sparsity(i).is_dense():
                    raise ValueError(f"{function.name()}: {kind} {i} is sparse, expected dense")
        self.function = function
        self.inputs = {
            name: np.zeros(function.nnz_in(i)) for i, name in enumerate(function.name_in())
        }
        self.outputs = {
            name: np.zeros(function.nnz_out(i)) for i, name in enumerate(function.name_out())
        }
        self._buffer, self._evaluate = function.buffer()
        for i, values in enumerate(self.inputs.values()):
            self._buffer.set_arg(i, memoryview(values))
        for i, values in enumerate(self.outputs.values()):
            self._buffer.set_res(i, memoryview(values))

    def __call__(self) -> dict:
        """Evaluate on the present inputs (CasADi releases the interpreter lock meanwhile)."""
        self._evaluate()
        return self._buffer.stats()
