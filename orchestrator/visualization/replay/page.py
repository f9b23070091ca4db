"""One self-contained HTML file: the viewer, three.js and the scene, nothing fetched at view time.

three.js comes from npm, not with the package: the folder of an npm install of ``three`` named by
the environment variable ``MURCOSIM_THREE``, else ``build/web/node_modules/three`` in the current
folder or the nearest one above it (where ``make web`` installs it in the repository checkout).
Its ES modules
and the viewer's are stored base64-encoded in the page; a small loader turns them into blob
URLs at view time, pointing each module's imports at the blob URLs of the modules it imports.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
from importlib import resources
from pathlib import Path

from orchestrator.errors import MurcosimError

THREE_VARIABLE = "MURCOSIM_THREE"
THREE_IN_CHECKOUT = Path("build", "web", "node_modules", "three")

# (id in the page, file under the three package)
THREE_MODULES = (
    ("three-core", "build/three.core.js"),
    ("three", "build/three.module.js"),
    ("orbit-controls", "examples/jsm/controls/OrbitControls.js"),
)


def _module(element_id: str, source: bytes) -> str:
    text = base64.b64encode(source).decode("ascii")
    return f'<script type="text/plain" id="{element_id}">{text}</script>'


def _json(value: object) -> str:
    """JSON for an inline ``<script>``: infinities as null, no ``</`` that closes the tag."""

    def finite(v: object) -> object:
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: finite(x) for k, x in v.items()}
        if isinstance(v, list):
            return [finite(x) for x in v]
        return v

    return json.dumps(finite(value), separators=(",", ":"), allow_nan=False).replace("</", "<\\/")


def three_folder() -> Path:
    """The npm install of three.js the pages inline: ``$MURCOSIM_THREE``, else
    ``build/web/node_modules/three`` in the current folder or the nearest one above it."""
    if os.environ.get(THREE_VARIABLE):
        return Path(os.environ[THREE_VARIABLE])
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / THREE_IN_CHECKOUT / "package.json").is_file():
            return folder / THREE_IN_CHECKOUT
    raise MurcosimError(
        f"three.js not found: set {THREE_VARIABLE} to an npm install of 'three', or run "
        "'make web' in the repository checkout and run the command from there"
    )


def three_sources(three_dir: Path) -> list[tuple[str, bytes]]:
    """The three.js modules the viewer needs, read from an npm install of ``three``."""
    found = []
    for element_id, relative in THREE_MODULES:
        path = Path(three_dir) / relative
        if not path.is_file():
            raise MurcosimError(f"{path}: not found (expected three.js from npm: run 'make web')")
        found.append((element_id, path.read_bytes()))
    return found


def render_page(scene: dict, three_dir: Path | None = None) -> str:
    """The replay page of ``scene`` (see
    :func:`~orchestrator.visualization.replay.scene.build_scene`) with three.js from
    ``three_dir`` (default: :func:`three_folder`)."""
    package = resources.files("orchestrator.visualization.replay")
    template = package.joinpath("viewer.html").read_text(encoding="utf-8")
    modules = [
        *three_sources(three_dir or three_folder()),
        ("viewer", package.joinpath("viewer.js").read_bytes()),
    ]
    title = f"{scene['title']}: replay".replace("&", "&amp;").replace("<", "&lt;")
    fields = {
        "title": title,
        "scene": _json(scene),
        "modules": "\n".join(_module(i, s) for i, s in modules),
    }
    return re.sub(r"\{\{(\w+)\}\}", lambda m: fields[m.group(1)], template)
