"""One self-contained HTML file: the viewer, three.js and the scene, nothing fetched at view time.

three.js comes from npm (``make web`` installs it under ``build/web``). Its ES modules
and the viewer's are stored base64-encoded in the page; a small loader turns them into blob
URLs at view time, pointing each module's imports at the blob URLs of the modules it imports.
"""

from __future__ import annotations

import base64
import json
import math
import re
from importlib import resources
from pathlib import Path

from orchestrator.errors import MurcosimError

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_THREE = PROJECT_ROOT / "build" / "web" / "node_modules" / "three"

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


def three_sources(three_dir: Path) -> list[tuple[str, bytes]]:
    """The three.js modules the viewer needs, read from an npm install of ``three``."""
    found = []
    for element_id, relative in THREE_MODULES:
        path = Path(three_dir) / relative
        if not path.is_file():
            raise MurcosimError(f"{path}: not found (expected three.js from npm: run 'make web')")
        found.append((element_id, path.read_bytes()))
    return found


def render_page(scene: dict, three_dir: Path = DEFAULT_THREE) -> str:
    """The replay page of ``scene`` (see :func:`orchestrator.replay.scene.build_scene`)."""
    package = resources.files("orchestrator.replay")
    template = package.joinpath("viewer.html").read_text(encoding="utf-8")
    modules = [*three_sources(three_dir), ("viewer", package.joinpath("viewer.js").read_bytes())]
    title = f"{scene['title']}: replay".replace("&", "&amp;").replace("<", "&lt;")
    fields = {
        "title": title,
        "scene": _json(scene),
        "modules": "\n".join(_module(i, s) for i, s in modules),
    }
    return re.sub(r"\{\{(\w+)\}\}", lambda m: fields[m.group(1)], template)
