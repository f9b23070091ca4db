"""The navigation filter's figure of ``murcosim plot``: its bands are 2 sigma of the recorded
covariance, its lines the recorded estimate, truth and error (read back from the figure)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

from orchestrator.recording.tables import read_timeseries
from orchestrator.runner.run import run_scenario
from orchestrator.visualization.navigation import navigation_figure
from orchestrator.visualization.plots import plot_run
from orchestrator.visualization.style import plt


def band_edges(ax):
    """Lower and upper edge of the axes' one filled band at each time of its outline."""
    (band,) = ax.collections
    vertices = band.get_paths()[0].vertices
    times, index = np.unique(vertices[:, 0], return_inverse=True)
    lower = np.full(len(times), np.inf)
    upper = np.full(len(times), -np.inf)
    np.minimum.at(lower, index, vertices[:, 1])
    np.maximum.at(upper, index, vertices[:, 1])
    return times, lower, upper


def columns_of(columns, name, size):
    return np.column_stack([columns[f"{name}[{i}]"] for i in range(1, size + 1)])


@pytest.mark.slow
def test_navigation_figure_bands_are_two_sigma_of_the_covariance(fmu_dir, tmp_path):
    """The first 3 s of the navigation scenario: position, velocity and attitude panels shade
    the estimate +-2 sqrt(variance) of the recorded covariance diagonal (nav.variance[1..9];
    the attitude's in degrees), to round-off; the error panels shade +-2 sigma about zero
    around the estimate minus the truth (position: nav.p - rov.p); murcosim plot makes the
    figure for a run with a navigation filter."""
    text = (ROOT / "scenarios" / "bluerov2_heavy_navigation.toml").read_text()
    path = tmp_path / "navigation.toml"
    path.write_text(text.replace("stop_time = 30.0", "stop_time = 3.0"))
    out = tmp_path / "out"
    run_scenario(path, out, fmu_dir, plots=False)
    columns = read_timeseries(out / "timeseries.csv")
    t = columns["time"]
    variance = columns_of(columns, "nav.variance", 9)
    sigma = np.sqrt(variance)
    sigma[:, 6:9] = np.degrees(sigma[:, 6:9])
    position_error = columns_of(columns, "nav.p", 3) - columns_of(columns, "rov.p", 3)
    velocity = columns_of(columns, "nav.nu", 6)[:, :3]
    figure = navigation_figure(columns, "nav", "rov")
    axes = np.array(figure.axes).reshape(6, 3)
    for kind in range(3):
        for i in range(3):
            s = sigma[:, 3 * kind + i]
            assert s.max() > 0
            values, errors = axes[2 * kind, i], axes[2 * kind + 1, i]
            estimate = values.lines[0].get_ydata()
            times, lower, upper = band_edges(values)
            assert np.array_equal(times, t)
            assert np.allclose(upper - estimate, 2 * s, rtol=1e-12, atol=1e-12)
            assert np.allclose(estimate - lower, 2 * s, rtol=1e-12, atol=1e-12)
            times, lower, upper = band_edges(errors)
            assert np.array_equal(times, t)
            assert np.allclose(upper, 2 * s, rtol=1e-12, atol=1e-12)
            assert np.allclose(lower, -2 * s, rtol=1e-12, atol=1e-12)
            error = errors.lines[0].get_ydata()
            assert np.allclose(error, estimate - values.lines[1].get_ydata(), atol=1e-12)
            if kind == 0:
                assert np.array_equal(estimate, columns[f"nav.p[{i + 1}]"])
                assert np.allclose(error, position_error[:, i], atol=1e-12)
            if kind == 1:
                assert np.array_equal(estimate, velocity[:, i])
    plt.close(figure)
    made = plot_run(out)
    assert out / "navigation_nav.png" in made
