"""The layers stay apart: viewer.core is numpy only, viewer.render never pulls in Qt.

Checked in a fresh interpreter, where sys.modules shows everything an import
dragged in, however indirectly.
"""
import json
import subprocess
import sys
from pathlib import Path

import viewer

PKG = Path(viewer.__file__).parent
CORE_FORBIDDEN = ("PyQt6", "pyqtgraph", "open3d", "cv2", "trimesh")
QT = ("PyQt6", "PySide6", "pyqtgraph")


def loaded_after_importing(package: str, watch: tuple[str, ...]) -> dict:
    """Every module of `package` (subpackages too) imported in a fresh interpreter; which of `watch` got loaded."""
    code = (
        "import importlib, json, pkgutil, sys\n"
        f"pkg = importlib.import_module({package!r})\n"
        "names = [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.')]\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps({{'modules': names, 'loaded': [m for m in {list(watch)!r} if m in sys.modules]}}))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PKG.parent)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_importing_every_core_module_loads_no_qt_open3d_cv2_or_trimesh():
    result = loaded_after_importing("viewer.core", CORE_FORBIDDEN)
    assert "viewer.core.audit.run" in result["modules"] and "viewer.core.audit.checks.ray_cast" in result["modules"]
    assert result["loaded"] == []


def test_importing_every_render_module_loads_no_qt():
    result = loaded_after_importing("viewer.render", QT)
    assert "viewer.render.visibility" in result["modules"]
    assert result["loaded"] == []


def test_no_qt_import_statements_in_core_or_render():
    for sub in ("core", "render"):
        for f in (PKG / sub).rglob("*.py"):
            text = f.read_text()
            for bad in QT:
                assert f"import {bad}" not in text and f"from {bad}" not in text, f
