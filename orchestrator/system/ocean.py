"""Random draws of irregular seas: the part of the wave model Modelica cannot do.

``MurCoSim.Ocean.IrregularSea`` computes the Pierson-Moskowitz amplitudes and the wave
kinematics itself, but the random frequency of each component within its bin and its random
phase (Fossen's Algorithm 3.1) are parameters: the Modelica subset the library is written in
has no seeded random generator. When a system is built, every instance of an FMU with the
parameters ``seed``, ``bin_offset[j]`` and ``phase[j]`` gets them drawn here from its seed, so
that instances with the same seed (one per body) see the same sea.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from orchestrator.fmi.fmu import FMU

SEED = "seed"


def component_count(fmu: FMU) -> int:
    """Number of wave components an irregular-sea FMU holds (0 for any other FMU)."""
    return len(drawn_names(fmu.variables)) // 2


def drawn_names(variables: Collection[str]) -> list[str]:
    """The parameters drawn here among an FMU's ``variables``: ``bin_offset[j]`` and
    ``phase[j]`` of an FMU with a ``seed`` (none for any other FMU)."""
    if SEED not in variables:
        return []
    n = 0
    while f"bin_offset[{n + 1}]" in variables and f"phase[{n + 1}]" in variables:
        n += 1
    return [f"{kind}[{j}]" for kind in ("bin_offset", "phase") for j in range(1, n + 1)]


def draws(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Frequency positions within their bins (uniform on [0, 1)) and phases (uniform on
    [0, 2 pi), rad) of ``n`` components. Component j's draws do not depend on ``n``."""
    rng = np.random.default_rng(seed)
    pairs = rng.uniform(size=(n, 2))
    return pairs[:, 0], 2 * np.pi * pairs[:, 1]


def seeded_parameters(fmu: FMU, parameters: dict[str, float]) -> dict[str, float]:
    """``bin_offset[j]`` and ``phase[j]`` of an irregular-sea instance drawn from its seed.

    ``parameters`` are the instance's own settings (its seed, if set); entries given there
    explicitly are kept. Returns nothing for an FMU without random draws.
    """
    n = component_count(fmu)
    if not n:
        return {}
    seed = parameters.get(SEED, fmu.variables[SEED].start)
    offsets, phases = draws(int(seed), n)
    values = {f"bin_offset[{j + 1}]": float(u) for j, u in enumerate(offsets)}
    values.update({f"phase[{j + 1}]": float(p) for j, p in enumerate(phases)})
    return {k: v for k, v in values.items() if k not in parameters}
