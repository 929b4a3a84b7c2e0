"""Where the bundled assets are.

- installed from a wheel, and in the PyInstaller build: `viewer/_assets/`
  (the wheel maps the checkout's top-level `assets/` there, see setup.py);
- in a checkout, also an editable install: the top-level `assets/` next to `viewer/`.

`GST_VIEWER_ASSETS=DIR` overrides both (for packagers and tests).
"""
from __future__ import annotations

import os
from pathlib import Path

from .core.diagnostics import UserError

ENV = "GST_VIEWER_ASSETS"
PACKAGE_DIR = Path(__file__).resolve().parent


def find_assets(package_dir: Path = PACKAGE_DIR, environ=os.environ) -> Path:
    """The assets folder for a `viewer` package at `package_dir` (it may not exist)."""
    override = environ.get(ENV)
    if override:
        return Path(override).expanduser()
    installed = Path(package_dir) / "_assets"
    if installed.is_dir():
        return installed
    return Path(package_dir).parent / "assets"


def assets_dir() -> Path:
    return find_assets()


def default_release() -> Path:
    demo = assets_dir() / "demo"
    if not demo.is_dir():
        raise UserError(f"the bundled demo is missing ({demo}); generate one with "
                        "'gst-viewer make-demo DIR' and open DIR")
    return demo


def default_predictions(release: Path) -> list[Path]:
    folder = Path(release) / "predictions"
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
