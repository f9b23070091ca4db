"""The water a replay draws: the free surface at z = 0 (NED) moved by the scenario's wave, and
the seabed where the scenario declares one.

The surface of a wave component (``MurCoSim.Ocean.RegularWave`` or ``IrregularSea``: a
component with the parameters ``amplitude`` and ``period``, or ``H_s``) is the sum of its Airy
components, as the FMU sums them (Cortesi 2012, eq. A.8; deep water, k = w^2/g):

    zeta(x, y, t) = sum_j A_j sin(w_j t - k_j chi + phase_j),   chi = x cos(beta) + y sin(beta)

(m, up). The irregular sea's amplitudes follow the Pierson-Moskowitz spectrum over its frequency
bins, A_j = sqrt(2 S(w_j) dw), with the bin offsets and phases the run drew from its seed
(:func:`orchestrator.system.ocean.draws`). Any other component that records an elevation
``zeta`` gives the surface a flat level, the mean of the recorded elevations.
"""

from __future__ import annotations

import math

import numpy as np

from orchestrator.fmi.parameters import ComponentParameters
from orchestrator.scenario.model import Scenario
from orchestrator.scenario.sensors import DvlConfig
from orchestrator.system.ocean import draws

PIERSON_MOSKOWITZ = (0.0081, 3.11)  # alpha and beta of S(w) = alpha g^2/w^5 exp(-beta/(w^4 H_s^2))


def _series(parameters: ComponentParameters, name: str, variable: str) -> list[float]:
    values = []
    while (value := parameters.get(name, f"{variable}[{len(values) + 1}]")) is not None:
        values.append(value)
    return values


def _irregular(
    scenario: Scenario, parameters: ComponentParameters, name: str, g: float
) -> tuple[np.ndarray, ...]:
    """Frequencies (rad/s), amplitudes (m) and phases (rad) of an irregular sea (its bin
    offsets and phases drawn from its seed as the run drew them, unless the scenario sets
    them)."""
    get = lambda variable: parameters.get(name, variable)  # noqa: E731
    n = len(_series(parameters, name, "bin_offset"))
    offsets, phases = draws(int(get("seed")), n)
    spec = scenario.components[name].parameters
    offsets = np.array([spec.get(f"bin_offset[{j}]", u) for j, u in enumerate(offsets, 1)])
    phases = np.array([spec.get(f"phase[{j}]", p) for j, p in enumerate(phases, 1)])
    width = (get("omega_max") - get("omega_min")) / get("components")
    omega = get("omega_min") + (np.arange(n) + offsets) * width
    alpha, beta = PIERSON_MOSKOWITZ
    spectrum = alpha * g**2 / omega**5 * np.exp(-beta / (omega**4 * get("H_s") ** 2))
    kept = (np.arange(1, n + 1) <= get("components")) & (omega <= get("omega_cutoff"))
    return omega, np.where(kept, np.sqrt(2 * spectrum * width), 0.0), phases


def wave_field(scenario: Scenario, parameters: ComponentParameters, name: str) -> dict | None:
    """The wave of component ``name`` (its ``omega`` (rad/s), ``k`` (rad/m), ``amplitude``
    (m) and ``phase`` (rad) per Airy component, the ``direction`` of travel (rad from north
    towards east) and ``g``), or None for a component that is not a wave."""
    get = lambda variable: parameters.get(name, variable)  # noqa: E731
    g, direction = get("g"), get("direction")
    if g is None or direction is None:
        return None
    if get("amplitude") is not None and get("period") is not None:
        omega = np.array([2 * math.pi / get("period")])
        amplitude = np.array([get("amplitude")])
        phase = np.array([get("phase[1]") or 0.0])
    elif get("H_s") is not None:
        omega, amplitude, phase = _irregular(scenario, parameters, name, g)
    else:
        return None
    used = amplitude > 0
    return {
        "component": name,
        "direction": direction,
        "g": g,
        "omega": omega[used].tolist(),
        "k": (omega[used] ** 2 / g).tolist(),
        "amplitude": amplitude[used].tolist(),
        "phase": phase[used].tolist(),
    }


def elevation(wave: dict, north: np.ndarray, east: np.ndarray, time: np.ndarray) -> np.ndarray:
    """The surface elevation (m, up) of ``wave`` (:func:`wave_field`) at NED ``north``,
    ``east`` (m) and ``time`` (s), all broadcast together."""
    chi = north * math.cos(wave["direction"]) + east * math.sin(wave["direction"])
    total = np.zeros(np.broadcast(north, east, time).shape)
    for a, w, k, ph in zip(wave["amplitude"], wave["omega"], wave["k"], wave["phase"], strict=True):
        total = total + a * np.sin(w * time - k * chi + ph)
    return total


def surface(
    scenario: Scenario,
    parameters: ComponentParameters,
    columns: dict[str, np.ndarray],
    bodies: list[str],
    rows: np.ndarray,
) -> dict:
    """The free surface: ``wave`` (:func:`wave_field` of the first wave component, None
    without one) and ``level``, the mean recorded elevation (m, up) of the other components
    that record one, per drawn row (zeros without any)."""
    recorders = [n for n in scenario.components if n not in bodies and f"{n}.zeta" in columns]
    waves = [w for n in recorders if (w := wave_field(scenario, parameters, n)) is not None]
    others = [columns[f"{n}.zeta"] for n in recorders if n not in {w["component"] for w in waves}]
    level = np.mean(others, axis=0)[rows] if others and not waves else np.zeros(len(rows))
    return {"wave": waves[0] if waves else None, "level": level}


def seabed_depths(scenario: Scenario) -> list[float]:
    """The NED depths (m) of the flat seabeds the scenario declares: the environment's, the
    bodies' own ``seabed_depth`` parameters and the DVLs' seabeds, each once, shallowest
    first."""
    depths = {scenario.environment.seabed_depth}
    depths |= {
        c.parameters["seabed_depth"]
        for c in scenario.components.values()
        if "seabed_depth" in c.parameters
    }
    depths |= {c.seabed_depth for c in scenario.controllers.values() if isinstance(c, DvlConfig)}
    return sorted(d for d in depths if math.isfinite(d))
