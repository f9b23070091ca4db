"""A page in headless Chromium (Debian package ``chromium``) driven by Playwright: screenshots
and every console error, and a pinhole camera to say where a NED point lands on them."""

from __future__ import annotations

import io
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from conftest import skip_claim
from PIL import Image

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--enable-unsafe-swiftshader",  # software WebGL, without the deprecation message
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SIZE = (960, 640)  # viewport, px
FIELD_OF_VIEW = 45.0  # deg, vertical: the replay viewer's camera


def chromium() -> str:
    """Path of the Chromium executable, or skip the test saying why."""
    path = shutil.which("chromium")
    if path is None:
        skip_claim("Debian package 'chromium' is not installed ('make test' installs it as root)")
    return path


@dataclass
class Views:
    """Screenshots (H x W x 3 arrays, one per address), the console errors of all loads and
    the values of the probe (one per address, None without a probe)."""

    screenshots: list[np.ndarray]
    errors: list[str]
    values: list[object]


def open_views(page: Path, fragments: list[str], ready: str, probe: str | None = None) -> Views:
    """Load ``page#fragment`` for each fragment in a fresh tab, wait until the JavaScript
    expression ``ready`` is true, take a screenshot and evaluate the JavaScript expression
    ``probe``."""
    from playwright.sync_api import sync_playwright

    shots, errors, values = [], [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), args=FLAGS)
        try:
            for fragment in fragments:
                tab = browser.new_page(viewport={"width": SIZE[0], "height": SIZE[1]})
                tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                tab.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
                tab.goto(f"{page.resolve().as_uri()}#{fragment}")
                tab.wait_for_function(ready, timeout=60_000)
                image = Image.open(io.BytesIO(tab.screenshot())).convert("RGB")
                shots.append(np.asarray(image, dtype=np.int16))
                values.append(tab.evaluate(probe) if probe is not None else None)
                tab.close()
        finally:
            browser.close()
    return Views(shots, errors, values)


def project(points: np.ndarray, camera: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Pixel (column, row) and distance along the view axis (m) of NED points (n, 3), seen
    from ``camera`` looking at ``target`` with the NED up (-z) as the screen's up."""
    back = (camera - target) / np.linalg.norm(camera - target)
    right = np.cross(np.array([0.0, 0.0, -1.0]), back)
    right /= np.linalg.norm(right)
    up = np.cross(back, right)
    d = np.atleast_2d(points) - camera
    depth = -d @ back
    focal = focal_length()
    column = SIZE[0] / 2 + focal * (d @ right) / depth
    row = SIZE[1] / 2 - focal * (d @ up) / depth
    return np.column_stack([column, row, depth])


def disc(centre: np.ndarray, radius: float) -> np.ndarray:
    """Pixels within ``radius`` px of ``centre`` (column, row), as a mask of the screenshot."""
    rows, columns = np.mgrid[0 : SIZE[1], 0 : SIZE[0]]
    return (columns - centre[0]) ** 2 + (rows - centre[1]) ** 2 <= radius**2


def focal_length() -> float:
    """Focal length of the viewer's camera in px at the test viewport."""
    return SIZE[1] / 2 / np.tan(np.radians(FIELD_OF_VIEW) / 2)
