"""The navigation filter's plot: its estimate against the true state, with the 2-sigma band of
its covariance, for the position (NED, m), the body velocity (m/s) and the attitude (deg)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from orchestrator.kinematics import euler_angles, wrap_angle
from orchestrator.visualization.style import plt

AXES = {
    "position": ("p", ("north (m)", "east (m)", "down (m)")),
    "velocity": ("nu", ("surge u (m/s)", "sway v (m/s)", "heave w (m/s)")),
    "attitude": ("q", ("roll (deg)", "pitch (deg)", "yaw (deg)")),
}


def _vector(columns: dict[str, np.ndarray], name: str, size: int) -> np.ndarray:
    return np.column_stack([columns[f"{name}[{i}]"] for i in range(1, size + 1)])


def plot_navigation(columns: dict[str, np.ndarray], name: str, vehicle: str, path: Path) -> Path:
    """Estimate of filter ``name`` against the truth of ``vehicle``, 2-sigma shaded, saved as
    ``path``. The attitude's band is that of the error about the body axes, which are the
    Euler angles' to first order at small roll and pitch."""
    t = columns["time"]
    variance = _vector(columns, f"{name}.variance", 9)
    sigma = {
        "position": np.sqrt(variance[:, 0:3]),
        "velocity": _vector(columns, f"{name}.sigma_nu", 3),
        "attitude": np.degrees(np.sqrt(variance[:, 6:9])),
    }
    estimate = {
        "position": _vector(columns, f"{name}.p", 3),
        "velocity": _vector(columns, f"{name}.nu", 6)[:, :3],
        "attitude": np.degrees(euler_angles(_vector(columns, f"{name}.q", 4))),
    }
    truth = {
        "position": _vector(columns, f"{vehicle}.p", 3),
        "velocity": _vector(columns, f"{vehicle}.nu", 6)[:, :3],
        "attitude": np.degrees(euler_angles(_vector(columns, f"{vehicle}.q", 4))),
    }
    # the yaw estimate drawn beside the truth, not a turn away
    truth["attitude"][:, 2] = estimate["attitude"][:, 2] + np.degrees(
        wrap_angle(np.radians(truth["attitude"][:, 2] - estimate["attitude"][:, 2]))
    )
    figure, axes = plt.subplots(3, 3, figsize=(13, 8.5), sharex=True)
    for row, (kind, (_, labels)) in zip(axes, AXES.items(), strict=True):
        for i, ax in enumerate(row):
            x, s = estimate[kind][:, i], sigma[kind][:, i]
            ax.fill_between(t, x - 2 * s, x + 2 * s, color="C0", alpha=0.25, label="±2σ")
            ax.plot(t, x, color="C0", lw=1.0, label=f"estimate ({name})")
            ax.plot(t, truth[kind][:, i], color="k", lw=0.8, ls="--", label="truth")
            ax.set_ylabel(labels[i])
    axes[0, 0].legend(fontsize="x-small")
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    figure.suptitle(f"{name}: estimate of {vehicle} against the truth")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
