"""Where the bundled assets are: next to the package in a checkout, inside it when installed."""
from __future__ import annotations

from pathlib import Path

from .core.diagnostics import UserError


def assets_dir() -> Path:
    installed = Path(__file__).resolve().parent / "_assets"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parent.parent / "assets"


def default_release() -> Path:
    demo = assets_dir() / "demo"
    if not demo.is_dir():
        raise UserError(f"the bundled demo is missing ({demo}); generate one with "
                        "'gst-viewer make-demo DIR' and open DIR")
    return demo


def default_predictions(release: Path) -> list[Path]:
    folder = Path(release) / "predictions"
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
