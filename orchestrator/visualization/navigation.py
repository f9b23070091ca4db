"""The navigation filter's plot: its estimate against the true state, with the 2-sigma band of
its covariance, for the position (NED, m), the body velocity (m/s) and the attitude (deg);
under each row the estimate's error (estimate - truth) within its +-2-sigma band, with the
share of the recorded rows inside it (about 95 % for a consistent filter with Gaussian
errors)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from orchestrator.kinematics import euler_angles, wrap_angle
from orchestrator.visualization.style import plt

AXES = {
    "position": ("north (m)", "east (m)", "down (m)"),
    "velocity": ("surge u (m/s)", "sway v (m/s)", "heave w (m/s)"),
    "attitude": ("roll (deg)", "pitch (deg)", "yaw (deg)"),
}
BAND = 2.0  # sigmas either side


def _vector(columns: dict[str, np.ndarray], name: str, size: int) -> np.ndarray:
    return np.column_stack([columns[f"{name}[{i}]"] for i in range(1, size + 1)])


def navigation_series(
    columns: dict[str, np.ndarray], name: str, vehicle: str
) -> dict[str, dict[str, np.ndarray]]:
    """Per kind (position, velocity, attitude): the ``estimate`` of filter ``name``, the
    ``truth`` of ``vehicle`` and the filter's standard deviation ``sigma`` (rows, 3; m, m/s,
    deg). The attitude's sigma is that of the error about the body axes, which are the Euler
    angles' to first order at small roll and pitch; the true yaw is taken within half a turn
    of the estimate."""
    variance = _vector(columns, f"{name}.variance", 9)
    series = {
        "position": {
            "estimate": _vector(columns, f"{name}.p", 3),
            "truth": _vector(columns, f"{vehicle}.p", 3),
            "sigma": np.sqrt(variance[:, 0:3]),
        },
        "velocity": {
            "estimate": _vector(columns, f"{name}.nu", 6)[:, :3],
            "truth": _vector(columns, f"{vehicle}.nu", 6)[:, :3],
            "sigma": _vector(columns, f"{name}.sigma_nu", 3),
        },
        "attitude": {
            "estimate": np.degrees(euler_angles(_vector(columns, f"{name}.q", 4))),
            "truth": np.degrees(euler_angles(_vector(columns, f"{vehicle}.q", 4))),
            "sigma": np.degrees(np.sqrt(variance[:, 6:9])),
        },
    }
    attitude = series["attitude"]
    turn = np.radians(attitude["truth"][:, 2] - attitude["estimate"][:, 2])
    attitude["truth"][:, 2] = attitude["estimate"][:, 2] + np.degrees(wrap_angle(turn))
    return series


def navigation_figure(columns: dict[str, np.ndarray], name: str, vehicle: str) -> plt.Figure:
    """The figure of filter ``name`` estimating ``vehicle`` (:func:`navigation_series`): for
    each kind a row of estimate and truth with the estimate +-2 sigma shaded, and a row of the
    error with +-2 sigma about zero shaded."""
    t = columns["time"]
    series = navigation_series(columns, name, vehicle)
    figure, axes = plt.subplots(6, 3, figsize=(13, 15), sharex=True)
    for k, (kind, labels) in enumerate(AXES.items()):
        s = series[kind]
        error = s["estimate"] - s["truth"]
        for i in range(3):
            values, errors = axes[2 * k, i], axes[2 * k + 1, i]
            x, band = s["estimate"][:, i], BAND * s["sigma"][:, i]
            values.fill_between(t, x - band, x + band, color="C0", alpha=0.25, label="±2σ")
            values.plot(t, x, color="C0", lw=1.0, label=f"estimate ({name})")
            values.plot(t, s["truth"][:, i], color="k", lw=0.8, ls="--", label="truth")
            values.set_ylabel(labels[i])
            errors.fill_between(t, -band, band, color="C1", alpha=0.25, label="±2σ")
            errors.plot(t, error[:, i], color="C1", lw=0.9, label="estimate - truth")
            errors.axhline(0.0, color="k", lw=0.5)
            inside = float(np.mean(np.abs(error[:, i]) <= band))
            errors.set_title(f"inside ±2σ: {100 * inside:.0f} %", fontsize="small", loc="right")
            errors.set_ylabel(f"error, {labels[i].split(' (')[1].rstrip(')')}")
    axes[0, 0].legend(fontsize="x-small")
    axes[1, 0].legend(fontsize="x-small")
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    figure.suptitle(f"{name}: estimate of {vehicle} against the truth")
    figure.tight_layout()
    return figure


def plot_navigation(columns: dict[str, np.ndarray], name: str, vehicle: str, path: Path) -> Path:
    """:func:`navigation_figure` saved as ``path``."""
    figure = navigation_figure(columns, name, vehicle)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
