"""The compiled constrained thrust allocation of ``_allocation.c``: ``Allocator`` (one
vehicle's two programs and their DAQP workspaces) and ``allocate`` (a sample of many
vehicles in one call).

``orchestrator.controllers.constrained_allocation`` is the interface: it states the programs
and builds their matrices; this module is the contract with the C code, which runs DAQP's own
C functions, those of the daqp package's extension module (bound here when first imported).
"""

from __future__ import annotations

import daqp

from orchestrator.native._allocation import Allocator, allocate, bind_daqp

__all__ = ["Allocator", "allocate"]

bind_daqp(daqp.__file__)
