"""A scene opened on its own (`--scene DIR`) and File → Import scene…, through the InspectorState.

A scene alone shows no question panels, says what it holds and which way is up, frames its mesh and
its path together on the map and in 3D, and writes nothing into its folder (issue 27).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from ui_helpers import open_release, settle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import audit_release as ar  # noqa: E402
from import_fixtures import room_glb, room_ply, tum_walk  # noqa: E402
from read_only import listing  # noqa: E402

from viewer.core.map_choice import MapKind  # noqa: E402
from viewer.core.review.flags import DB_NAME  # noqa: E402
from viewer.core.scene.formats import UP_AXES  # noqa: E402
from viewer.render.scene_import import ImportRequest, import_scene  # noqa: E402
from viewer.ui.settings_strip import NO_QUESTION, SCENE_ALONE  # noqa: E402
from viewer.ui.view3d import framed_bounds  # noqa: E402

DATA = Path(__file__).parent.parent / "data" / "scene_import"


def imported(tmp_path) -> Path:
    result = import_scene(ImportRequest(str(tmp_path / "Fixture_int"),
                                        omnigibson=str(DATA / "omnigibson/Fixture_int_best.json"),
                                        trajectory=str(DATA / "omnigibson/walk_tum.txt")))
    return result.folder


def y_up_room(tmp_path) -> Path:
    """The y-up GLB room and a walk in the same y-up world, imported with the defaults (up y, glTF's)."""
    glb = room_glb(tmp_path / "room.glb", "y")
    walk = tum_walk(tmp_path / "walk.txt", to_file=UP_AXES["y"].T)
    return import_scene(ImportRequest(str(tmp_path / "Room_glb"), mesh=str(glb), trajectory=str(walk))).folder


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
    before = listing(folder)
    out = tmp_path / "scene.png"
    p = subprocess.run([sys.executable, "-m", "viewer", "--scene", str(folder), "--screenshot", str(out),
                        "--size", "900x600"], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert p.returncode == 0, p.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert listing(folder) == before, "opening a scene alone wrote into its folder"
    bad = subprocess.run([sys.executable, "-m", "viewer", "--scene", str(tmp_path)], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "no scene.json" in bad.stderr


def test_a_scene_alone_shows_no_question_panels_and_says_which_way_is_up(qtbot, make_inspector, tmp_path):
    folder = y_up_room(tmp_path)
    release = ar.build(tmp_path / "release")
    win, state = make_inspector()
    docks = win.question_docks
    for d in docks:                                     # as a user may have left them
        d.toggleViewAction().setChecked(True)
    win.open_scene(folder)
    settle(qtbot, win)
    assert not any(d.isVisible() for d in docks), [d.windowTitle() for d in docks if d.isVisible()]
    assert not any(d.toggleViewAction().isEnabled() for d in docks)         # View menu: greyed out
    assert win.settings_strip.message.text() in (NO_QUESTION, SCENE_ALONE)
    assert "this question" not in win.settings_strip.message.text()
    info = win.sample_view.scene_info
    assert info.isVisible() and not win.sample_view.header.isVisible()
    assert info.text() == ("scene Room_glb, opened alone (no questions) · a mesh, 8 camera poses, maps: floorplan, "
                           "occupancy · up y from its format: glTF is y-up by its specification")
    assert win.audit.store is None and win.compare_bar.store is None and win.flags_where.text() == ""
    assert "opened alone" in win.status_label.text()

    # A release opened afterwards gets its panels back, and the scene line goes.
    open_release(qtbot, win, release, uid=ar.uid("ED_v"))
    assert all(d.toggleViewAction().isEnabled() and d.toggleViewAction().isChecked() for d in docks)
    assert win.browser_dock.isVisible() and not info.isVisible() and win.sample_view.header.isVisible()
    assert win.audit.store is not None and win.flags_where.text() == "flags: beside the release"

    # ... and a scene opened again hides them again, and the next release shows them again.
    win.open_scene(folder)
    settle(qtbot, win)
    assert not any(d.isVisible() for d in docks) and info.isVisible()
    open_release(qtbot, win, release)
    assert all(d.toggleViewAction().isChecked() for d in docks) and win.browser_dock.isVisible()


def test_the_first_views_frame_the_mesh_and_the_path_together(qtbot, make_inspector, tmp_path):
    """A walk that leaves a 3 x 4 m room to x = 4.5 m: the map was fitted to both at the import, the window's
    first map range holds every camera, and the 3D view's first frame holds the mesh and the path."""
    mesh = room_ply(tmp_path / "room.ply", hi=(3, 4, 2.5))
    folder = import_scene(ImportRequest(str(tmp_path / "Narrow"), mesh=str(mesh),
                                        trajectory=str(tum_walk(tmp_path / "walk.txt")))).folder
    win, state = make_inspector()
    win.open_scene(folder)
    settle(qtbot, win)
    view = win.sample_view.map_panel.view
    cams = view.overlay.path().points
    assert len(cams) == 8 and np.isfinite(cams).all()
    (x0, x1), (y0, y1) = view.vb.viewRange()
    assert ((cams[:, 0] >= x0) & (cams[:, 0] <= x1) & (cams[:, 1] >= y0) & (cams[:, 1] <= y1)).all()
    h, w = view.image_item.image.shape[:2]
    assert ((cams >= 0) & (cams < [w, h])).all()                              # on the map, not past its edge

    sv = win.sample_view
    overlay = sv.view_plan().scene_overlay(state.shown_results())
    centres = state.geometry.video.poses[:, :3, 3]
    mesh_lo, mesh_hi = win.assets.mesh(state.geometry.scene).bounds()
    assert centres[:, 0].max() > mesh_hi[0] + 1                               # the path leaves the mesh
    lo, hi = framed_bounds((mesh_lo, mesh_hi), overlay)
    assert (lo <= mesh_lo).all() and (hi >= mesh_hi).all()
    assert (lo <= centres.min(axis=0) + 1e-9).all() and (hi >= centres.max(axis=0) - 1e-9).all()
    # Without a path the mesh alone is framed.
    assert [b.tolist() for b in framed_bounds((mesh_lo, mesh_hi), None)] == [list(mesh_lo), list(mesh_hi)]


def test_a_scene_alone_writes_nothing_into_its_folder(qtbot, make_inspector, tmp_path):
    """Opened, looked at in both tabs, closed: the folder's listing (names, sizes, times) is unchanged, and
    no annotations.sqlite (nor -wal, -shm) was made."""
    folder = y_up_room(tmp_path)
    before = listing(folder)
    win, state = make_inspector()
    win.open_scene(folder)
    settle(qtbot, win)
    win.sample_view.tabs.setCurrentIndex(1)
    settle(qtbot, win)
    win.sample_view.tabs.setCurrentIndex(0)
    win.compare_bar.fill_menu()                          # the saved views menu
    settle(qtbot, win)
    win.close()
    assert listing(folder) == before
    assert not any(n.startswith(DB_NAME) for n in before)


def test_a_behavior_scene_of_scale_only_objects_shows_its_maps(qtbot, make_inspector, tmp_path):
    """Issue 27's Rs_garden case: objects with a scale and no bounding_box were an empty scene ("No top-down
    map"); now their estimated footprints are drawn and the scene line says they were estimated."""
    folder = import_scene(ImportRequest(str(tmp_path / "Garden"),
                                        omnigibson=str(DATA / "omnigibson/Fixture_garden_best.json"))).folder
    win, state = make_inspector()
    win.open_scene(folder)
    settle(qtbot, win)
    panel = win.sample_view.map_panel
    assert panel.stack.currentWidget() is panel.view, panel.message.text()
    assert {s.name for s in state.map_choice.sources} >= {"floorplan", "occupancy"}
    image = panel.view.image_item.image
    assert image is not None and image.std() > 0                     # something drawn, not a blank page
    info = win.sample_view.scene_info.text()
    assert "6 objects (5 of them size estimated)" in info and "up z from its format: OmniGibson scenes are z-up" in info


def test_import_dialog_aligns_a_georeferenced_walk_and_refuses_an_empty_import(qtbot, make_inspector, tmp_path):
    """The dialog offers what the command offers: a georeferenced TUM walk beside a room, moved onto it with
    Align trajectory = center, opens with every camera on the map. An import that wrote no geometry is not
    opened, as the command exits 1, and says why."""
    import json
    win, state = make_inspector()
    win.show_import_dialog()
    dialog = win.import_dialog
    dialog.source.setCurrentIndex(1)                                  # a mesh and a trajectory
    dialog.mesh.edit.setText(str(room_glb(tmp_path / "room.glb", "z")))
    dialog.trajectory.edit.setText(str(DATA / "tum_georeferenced.txt"))
    dialog.align.setCurrentText("center")
    dialog.out_dir.edit.setText(str(tmp_path / "Site"))
    with qtbot.waitSignal(dialog.imported, timeout=60000):
        dialog.start()
    settle(qtbot, win)
    assert "trajectory_outside_mesh" not in dialog.status.text() and "do not look like one frame" not in \
        dialog.status.text()
    view = win.sample_view.map_panel.view
    cams = view.overlay.path().points
    h, w = view.image_item.image.shape[:2]
    assert len(cams) == 8 and ((cams >= 0) & (cams < [w, h])).all()

    doc = json.loads((DATA / "omnigibson/Fixture_garden_best.json").read_text())
    doc["objects_info"]["init_info"] = {k: v for k, v in doc["objects_info"]["init_info"].items()
                                        if k.startswith("walls")}
    walls = tmp_path / "Walls_best.json"
    walls.write_text(json.dumps(doc))
    dialog.source.setCurrentIndex(0)
    dialog.omnigibson.edit.setText(str(walls))
    dialog.out_dir.edit.setText(str(tmp_path / "Walls"))
    opened = []
    dialog.imported.connect(opened.append)
    dialog.start()
    qtbot.waitUntil(lambda: "not imported" in dialog.status.text(), timeout=60000)
    assert "nothing to draw" in dialog.status.text() and "wrote no geometry at all" in dialog.status.text()
    assert not opened and state.geometry.scene.id == "Site"


def test_the_3d_legend_says_a_target_size_was_estimated(tmp_path):
    """As the map's legend: a target whose box came from `scale` x a typical size says so in 3D too."""
    from viewer.core.overlays import scene_overlay_3d
    from viewer.core.scene.model import QuestionGeometry
    from viewer.core.scene.reader import read_scene_file
    from viewer.ui.view3d import legend_html
    folder = import_scene(ImportRequest(str(tmp_path / "Garden"),
                                        omnigibson=str(DATA / "omnigibson/Fixture_garden_best.json"))).folder
    scene = read_scene_file(folder / "scene.json", "Garden")
    g = QuestionGeometry(scene, None, None, scene.instances["bench_aaaaaa_0"], None)
    ov = scene_overlay_3d(None, None, [], g)
    def text(html: str) -> str:                    # the legend keeps each entry on one line with &nbsp;
        return html.replace("&nbsp;", " ")
    assert "target (size estimated)" in text(legend_html(ov, [], target_estimated=True))
    assert "target (size estimated)" not in text(legend_html(ov, [])) and "target" in text(legend_html(ov, []))
