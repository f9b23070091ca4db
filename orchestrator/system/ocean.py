"""Random draws of irregular seas and current fields, and the environment's parameters of bodies:
the parts of the ocean model Modelica cannot do.

``MurCoSim.Ocean.IrregularSea`` computes the Pierson-Moskowitz amplitudes and the wave
kinematics itself, but the random frequency of each component within its bin and its random
phase (Fossen's Algorithm 3.1) are parameters: the Modelica subset the library is written in
has no seeded random generator. ``MurCoSim.Ocean.CurrentField`` sums cosines the same way for
the Gauss-Markov variation of its speed and direction. When a system is built, every instance
of an FMU with the parameter ``seed`` and arrays ``<prefix>bin_offset[j]`` and
``<prefix>phase[j]`` gets them drawn here from its seed, so that instances with the same seed
(one per body) see the same sea and the same current.
"""

from __future__ import annotations

import math
from collections.abc import Collection

import numpy as np

from orchestrator.fmi.fmu import FMU

SEED = "seed"
SEABED = "seabed_depth"


# Prefixes of the drawn arrays, each with its own stream of the seed: "" (the sea's components,
# drawn as before the current fields existed), then the current field's two processes.
PREFIXES = ("", "speed_", "direction_")


def component_count(fmu: FMU, prefix: str = "") -> int:
    """Number of components of the drawn arrays with ``prefix`` an FMU holds (0 if none)."""
    return _count(fmu.variables, prefix)


def _count(variables: Collection[str], prefix: str) -> int:
    if SEED not in variables:
        return 0
    n = 0
    while f"{prefix}bin_offset[{n + 1}]" in variables and f"{prefix}phase[{n + 1}]" in variables:
        n += 1
    return n


def drawn_names(variables: Collection[str]) -> list[str]:
    """The parameters drawn here among an FMU's ``variables``: ``<prefix>bin_offset[j]`` and
    ``<prefix>phase[j]`` of an FMU with a ``seed`` (none for any other FMU)."""
    return [
        f"{prefix}{kind}[{j}]"
        for prefix in PREFIXES
        for kind in ("bin_offset", "phase")
        for j in range(1, _count(variables, prefix) + 1)
    ]


def draws(seed: int, n: int, stream: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Frequency positions within their bins (uniform on [0, 1)) and phases (uniform on
    [0, 2 pi), rad) of ``n`` components from stream ``stream`` of ``seed`` (stream 0: the
    generator seeded with ``seed`` alone). Component j's draws do not depend on ``n``."""
    rng = np.random.default_rng(seed if stream == 0 else (seed, stream))
    pairs = rng.uniform(size=(n, 2))
    return pairs[:, 0], 2 * np.pi * pairs[:, 1]


def seeded_parameters(fmu: FMU, parameters: dict[str, float]) -> dict[str, float]:
    """``<prefix>bin_offset[j]`` and ``<prefix>phase[j]`` of an irregular-sea or current-field
    instance drawn from its seed.

    ``parameters`` are the instance's own settings (its seed, if set); entries given there
    explicitly are kept. Returns nothing for an FMU without random draws.
    """
    values: dict[str, float] = {}
    for stream, prefix in enumerate(PREFIXES):
        n = component_count(fmu, prefix)
        if not n:
            continue
        seed = parameters.get(SEED, fmu.variables[SEED].start)
        offsets, phases = draws(int(seed), n, stream)
        values.update({f"{prefix}bin_offset[{j + 1}]": float(u) for j, u in enumerate(offsets)})
        values.update({f"{prefix}phase[{j + 1}]": float(p) for j, p in enumerate(phases)})
    return {k: v for k, v in values.items() if k not in parameters}


def environment_parameters(
    fmu: FMU, parameters: dict[str, float], seabed_depth: float
) -> dict[str, float]:
    """The environment's ``seabed_depth`` (m, NED z; inf: none) for a body FMU that has that
    parameter and does not set it in ``parameters``."""
    if math.isinf(seabed_depth) or SEABED not in fmu.variables or SEABED in parameters:
        return {}
    return {SEABED: seabed_depth}
