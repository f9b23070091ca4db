"""Float64 ports of several FMU instances read or written together, by one compiled call.

A controller sample writes one input port per thruster and a recorded row reads one output
port per instance; each port through ctypes costs a few microseconds of Python. A
:class:`PortBatch` binds the ports' value buffers to consecutive slices of one array and makes
all their FMI calls (fmi2GetReal/SetReal, fmi3GetFloat64/SetFloat64) in one call of the kernel
extension's ``Transfer``. The ports keep working on their own (the same memory), so code that
reads a port's ``values`` sees what the batch moved. Ports of other variable types (integers,
booleans, strings, arrays) go through the instances' own calls, one port at a time.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import numpy as np

from orchestrator.fmi.fmu import FMUInstance, Port
from orchestrator.native import _kernel

# Breadcrumbs: the address of a double and the code of an (instance, "read" | "write") call.
Watch = tuple[int, Callable[[FMUInstance, str], float]]


class PortBatch:
    """Reads or writes (``write``) the given ports in order; ``values`` holds all their values,
    one port after the other (units as the variables')."""

    def __init__(
        self, ports: list[tuple[FMUInstance, Port]], write: bool, watch: Watch | None = None
    ) -> None:
        self.ports = list(ports)
        self.write = write
        sizes = [len(port) for _, port in self.ports]
        self.starts = np.cumsum([0, *sizes])
        self.values = np.zeros(int(self.starts[-1]))
        self._transfer = None
        if all(port.plain for _, port in self.ports):
            calls = []
            for (instance, port), start, size in zip(
                self.ports, self.starts[:-1], sizes, strict=True
            ):
                port.bind(self.values[start : start + size])
                function = instance._set_real if write else instance._get_real
                address = ctypes.cast(function, ctypes.c_void_p).value
                calls.append((instance._fmi3, address, instance._handle, list(port._vr), start))
            self._transfer = _kernel.Transfer(self.values, calls)
            if watch is not None:
                address, code = watch
                method = "write" if write else "read"
                self._transfer.watch(address, [code(i, method) for i, _ in self.ports])

    def run(self) -> None:
        """Make the FMI calls: ``values`` to the instances (write) or from them (read)."""
        if self._transfer is None:
            self._one_by_one()
            return
        try:
            self._transfer.run()
        except _kernel.TransferError as exc:
            self.failed(exc)

    @property
    def call(self) -> Callable[[], None]:
        """What :meth:`run` calls: the compiled transfer where there is one (its
        ``TransferError`` to be given to :meth:`failed`), else :meth:`run` itself."""
        return self.run if self._transfer is None else self._transfer.run

    def failed(self, error: Exception) -> None:
        """Raise the FMUError of the compiled transfer's ``TransferError`` (the call of the
        port that failed, with its FMI status)."""
        k, status = error.args
        instance, port = self.ports[k]
        instance._check(status, f"{'set' if self.write else 'get'} {port.names}")

    def variable(self, k: int) -> tuple[FMUInstance, str]:
        """The instance and the variable name of entry ``k`` of ``values``."""
        p = int(np.searchsorted(self.starts, k, side="right")) - 1
        instance, port = self.ports[p]
        return instance, port.names[k - int(self.starts[p])]

    def _one_by_one(self) -> None:
        for (instance, port), start, end in zip(
            self.ports, self.starts[:-1], self.starts[1:], strict=True
        ):
            if self.write:
                port.values[:] = self.values[start:end]
                instance.write(port)
            else:
                self.values[start:end] = instance.read(port)
