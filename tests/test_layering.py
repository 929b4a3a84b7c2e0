"""The core and render layers never pull in Qt; the core stays light to import."""
import pkgutil
import subprocess
import sys
from pathlib import Path

import viewer

PKG = Path(viewer.__file__).parent


def _modules(sub):
    return [f"viewer.{sub}.{m.name}" for m in pkgutil.iter_modules([str(PKG / sub)])]


def test_core_and_render_import_no_qt_and_core_no_heavy_libs():
    mods = _modules("core") + _modules("render")
    code = ("import sys, importlib\n"
            f"core = [m for m in {mods!r} if m.startswith('viewer.core')]\n"
            "for m in core: importlib.import_module(m)\n"
            "heavy = [m for m in ('open3d', 'cv2', 'trimesh', 'PyQt6', 'pyqtgraph') if m in sys.modules]\n"
            f"for m in {mods!r}: importlib.import_module(m)\n"
            "qt = [m for m in ('PyQt6', 'pyqtgraph') if m in sys.modules]\n"
            "print(heavy, qt)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[] []"


def test_no_qt_import_statements_in_core_or_render():
    for sub in ("core", "render"):
        for f in (PKG / sub).rglob("*.py"):
            text = f.read_text()
            for bad in ("PyQt6", "PySide6", "pyqtgraph"):
                assert f"import {bad}" not in text and f"from {bad}" not in text, f
