"""A scene opened on its own (`--scene DIR`) and File → Import scene…, through the InspectorState."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ui_helpers import settle

from viewer.core.map_choice import MapKind
from viewer.render.scene_import import ImportRequest, import_scene

DATA = Path(__file__).parent.parent / "data" / "scene_import"


def imported(tmp_path) -> Path:
    result = import_scene(ImportRequest(str(tmp_path / "Fixture_int"),
                                        omnigibson=str(DATA / "omnigibson/Fixture_int_best.json"),
                                        trajectory=str(DATA / "omnigibson/walk_tum.txt")))
    return result.folder


def test_a_scene_alone_shows_its_maps_trajectory_and_3d(qtbot, make_inspector, tmp_path):
    folder = imported(tmp_path)
    win, state = make_inspector()
    win.open_scene(folder)
    settle(qtbot, win)
    assert state.question is None and len(state.session.release) == 0
    g = state.geometry
    assert g is not None and g.scene.id == "Fixture_int" and len(g.video.poses) == 2
    assert state.map_choice.current.kind is MapKind.RENDER                  # the photo-like map first
    assert {s.name for s in state.map_choice.sources} >= {"floorplan", "occupancy", "photo"}
    assert win.sample_view.tabs.isTabEnabled(1)                             # the 3D view
    assert not win.browser_dock.isVisible() and not win.jobs.callback_errors


def test_import_dialog_runs_the_importer_off_the_gui_thread(qtbot, make_inspector, tmp_path):
    win, state = make_inspector()
    win.show_import_dialog()
    dialog = win.import_dialog
    dialog.omnigibson.edit.setText(str(DATA / "omnigibson/Fixture_int_best.json"))
    dialog.out_dir.edit.setText(str(tmp_path / "Imported_int"))
    with qtbot.waitSignal(dialog.imported, timeout=60000) as blocker:
        dialog.start()
    assert blocker.args == [str(tmp_path / "Imported_int")]
    settle(qtbot, win)
    assert state.geometry is not None and state.geometry.scene.id == "Imported_int"   # opened on its own
    dialog.start()                                                           # again: the folder exists now
    qtbot.waitUntil(lambda: "not imported" in dialog.status.text(), timeout=30000)
    assert "already exists" in dialog.status.text()


def test_cli_scene_screenshot(tmp_path):
    folder = imported(tmp_path)
    out = tmp_path / "scene.png"
    p = subprocess.run([sys.executable, "-m", "viewer", "--scene", str(folder), "--screenshot", str(out),
                        "--size", "900x600"], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert p.returncode == 0, p.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = subprocess.run([sys.executable, "-m", "viewer", "--scene", str(tmp_path)], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "no scene.json" in bad.stderr
