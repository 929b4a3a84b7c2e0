"""Packaging files: one version everywhere, valid desktop entry and AppStream data,
icons at their sizes, the PyInstaller trimming rules, and the AppDir script."""
import configparser
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import viewer

REPO = Path(__file__).resolve().parent.parent
LINUX = REPO / "packaging" / "linux"
APP_ID = "io.github.gst_bench.gst_viewer"
DESKTOP = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"

sys.path.insert(0, str(REPO / "packaging" / "pyinstaller"))
import trim  # noqa: E402


def test_one_version_everywhere():
    changelog = (REPO / "CHANGELOG.md").read_text()
    newest = re.search(r"^## \[?(\d+\.\d+\.\d+[^\]\s]*)\]?", changelog, re.M)
    assert newest and newest.group(1) == viewer.__version__
    releases = ET.parse(METAINFO).getroot().find("releases")
    assert releases[0].get("version") == viewer.__version__
    pyproject = (REPO / "pyproject.toml").read_text()
    assert 'version = { attr = "viewer.__version__" }' in pyproject
    assert not re.search(r"^version\s*=\s*\"", pyproject, re.M)


def test_desktop_entry():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(DESKTOP)
    d = entry["Desktop Entry"]
    assert d["Type"] == "Application" and d["Exec"].split()[0] == "gst-viewer"
    assert d["Icon"] == "gst-viewer" and (LINUX / "icons" / "gst-viewer.svg").is_file()
    if shutil.which("desktop-file-validate"):
        p = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True)
        assert p.returncode == 0 and not p.stdout.strip(), p.stdout + p.stderr


def test_appstream_metainfo():
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.find("launchable").text == DESKTOP.name
    assert root.find("provides/binary").text == "gst-viewer"
    if shutil.which("appstreamcli"):
        p = subprocess.run(["appstreamcli", "validate", "--no-net", str(METAINFO)],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", head[16:24])


def test_icons_at_every_size():
    root = ET.parse(LINUX / "icons" / "gst-viewer.svg").getroot()
    assert root.get("viewBox") == "0 0 256 256"
    for n in (16, 24, 32, 48, 64, 128, 256):
        png = LINUX / "icons" / "hicolor" / f"{n}x{n}" / "apps" / "gst-viewer.png"
        assert _png_size(png) == (n, n)


@pytest.mark.parametrize("dest, kept", [
    ("PyQt6/Qt6/plugins/platforms/libqxcb.so", True),
    ("PyQt6/Qt6/plugins/platforms/libqoffscreen.so", True),
    ("PyQt6/Qt6/plugins/platforms/libqminimal.so", True),
    ("PyQt6/Qt6/plugins/platforms/libqwayland.so", False),
    ("PyQt6/Qt6/plugins/platforms/libqeglfs.so", False),
    ("PyQt6/Qt6/plugins/imageformats/libqjpeg.so", True),
    ("PyQt6/Qt6/plugins/imageformats/libqsvg.so", True),
    ("PyQt6/Qt6/plugins/imageformats/libqpdf.so", False),
    ("PyQt6/Qt6/plugins/xcbglintegrations/libqxcb-glx-integration.so", True),
    ("PyQt6/Qt6/plugins/platformthemes/libqgtk3.so", False),
    ("PyQt6/Qt6/plugins/multimedia/libffmpegmediaplugin.so", False),
    ("PyQt6/Qt6/plugins/wayland-shell-integration/libxdg-shell.so", False),
    ("PyQt6/Qt6/lib/libQt6Core.so.6", True),
    ("open3d/libOpen3D.so.0.20", True),
    ("open3d/open3d_torch_ops.so", False),
    ("open3d/open3d_tf_ops.so", False),
])
def test_binary_rules(dest, kept):
    assert trim.keep_binary(dest) is kept


@pytest.mark.parametrize("dest, kept", [
    ("PyQt6/Qt6/translations/qtbase_de.qm", False),
    ("PyQt6/Qt6/qml/QtQuick/qmldir", False),
    ("open3d/resources/Roboto-Medium.ttf", False),
    ("viewer/_assets/demo/questions.jsonl", True),
    ("pyqtgraph/colors/maps/CET-L1.csv", True),
])
def test_data_rules(dest, kept):
    assert trim.keep_data(dest) is kept


def test_libraries_only_dropped_plugins_needed_are_pruned():
    def libs(*names):
        return [(f"PyQt6/Qt6/lib/{n}" if n.startswith("libQt6") else n, f"/src/{n}", "BINARY") for n in names]
    original = [("PyQt6/QtWidgets.abi3.so", "/src/QtWidgets", "EXTENSION"),
                ("PyQt6/Qt6/plugins/platforms/libqxcb.so", "/src/qxcb", "BINARY"),
                ("PyQt6/Qt6/plugins/platformthemes/libqgtk3.so", "/src/qgtk3", "BINARY"),
                ("PyQt6/Qt6/plugins/imageformats/libqpdf.so", "/src/qpdf", "BINARY")] + \
        libs("libQt6Widgets.so.6", "libQt6Gui.so.6", "libQt6Core.so.6", "libQt6XcbQpa.so.6",
             "libQt6DBus.so.6", "libQt6Pdf.so.6", "libQt6Quick.so.6", "libgtk-3.so.0", "libglib-2.0.so.0",
             "libpython3.11.so.1.0", "libhooked.so.1")
    needs = {"/src/QtWidgets": ["libQt6Widgets.so.6"], "/src/libQt6Widgets.so.6": ["libQt6Gui.so.6"],
             "/src/libQt6Gui.so.6": ["libQt6Core.so.6", "libQt6DBus.so.6", "libglib-2.0.so.0"],
             "/src/qxcb": ["libQt6XcbQpa.so.6", "libxcb.so.1"],
             "/src/qgtk3": ["libgtk-3.so.0", "libglib-2.0.so.0"], "/src/qpdf": ["libQt6Pdf.so.6"],
             "/src/libgtk-3.so.0": ["libglib-2.0.so.0"]}
    kept = [e for e in original if trim.keep_binary(e[0])]
    assert len(kept) == len(original) - 2                       # the gtk3 and pdf plugins
    kept, dropped = trim.prune_orphans(original, kept, lambda src: needs.get(src, []))
    # libQt6Quick: a Qt library nothing links to; libglib stays (QtGui links it);
    # libhooked and libpython: nothing links to them, so something loads them by name.
    assert dropped == ["PyQt6/Qt6/lib/libQt6Pdf.so.6", "PyQt6/Qt6/lib/libQt6Quick.so.6", "libgtk-3.so.0"]
    assert {"libglib-2.0.so.0", "libhooked.so.1", "libpython3.11.so.1.0"} <= {e[0] for e in kept}


def test_spec_and_hooks_compile():
    for f in ("gst-viewer.spec", "rthook_open3d.py", "gst_viewer_main.py", "trim.py"):
        path = REPO / "packaging" / "pyinstaller" / f
        compile(path.read_text(), str(path), "exec")


def test_runtime_hook_stands_in_for_open3d_plotly_only_when_plotly_is_absent():
    code = ("import sys, importlib.abc\n"
            "class Block(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('plotly', 'dash'): raise ImportError(name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "import importlib.util\n"
            "importlib.util.find_spec = lambda n, *a: None if n in ('plotly', 'dash') else 1\n"
            f"exec(open({str(REPO / 'packaging/pyinstaller/rthook_open3d.py')!r}).read())\n"
            "m = sys.modules['open3d.visualization.draw_plotly']\n"
            "try:\n    m.draw_plotly([])\nexcept ImportError as e:\n    print('refused:', e)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "refused: open3d's plotly drawing" in p.stdout


def test_make_appdir_assembles_a_runnable_folder(tmp_path):
    build = tmp_path / "dist" / "gst-viewer"
    (build / "_internal").mkdir(parents=True)
    exe = build / "gst-viewer"
    exe.write_text("#!/bin/sh\necho \"fake gst-viewer: $*\"\n")
    exe.chmod(0o755)
    out = tmp_path / "gst-viewer.AppDir"
    p = subprocess.run(["bash", str(LINUX / "make-appdir.sh"), str(build), str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    for rel in ("AppRun", f"{APP_ID}.desktop", "gst-viewer.png", ".DirIcon",
                "usr/bin/gst-viewer", "usr/lib/gst-viewer/_internal",
                f"usr/share/applications/{APP_ID}.desktop", f"usr/share/metainfo/{APP_ID}.metainfo.xml",
                "usr/share/icons/hicolor/scalable/apps/gst-viewer.svg",
                "usr/share/icons/hicolor/16x16/apps/gst-viewer.png"):
        assert os.path.lexists(out / rel), rel
    run = subprocess.run([str(out / "AppRun"), "--selftest", "a b"], capture_output=True, text=True)
    assert run.stdout == "fake gst-viewer: --selftest a b\n"
    assert subprocess.run([str(out / "usr/bin/gst-viewer")], capture_output=True, text=True).returncode == 0
    # Run again: the folder is replaced, not nested.
    p = subprocess.run(["bash", str(LINUX / "make-appdir.sh"), str(build), str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0 and not (out / "usr/lib/gst-viewer/gst-viewer.AppDir").exists()


def test_make_appdir_refuses_a_missing_build(tmp_path):
    p = subprocess.run(["bash", str(LINUX / "make-appdir.sh"), str(tmp_path / "nothing"), str(tmp_path / "out")],
                       capture_output=True, text=True)
    assert p.returncode == 1 and "no executable" in p.stderr
