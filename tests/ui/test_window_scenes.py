"""The window on a release with scene metadata: map overlays, map levels, video sync, 3D, bad scenes."""
import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
from overlay_queries import one, truth_point, viewpoint

from viewer.core import primitives as pr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import scene_release as sr  # noqa: E402
from ui_helpers import settle  # noqa: E402

from viewer.core.map_choice import MapSource  # noqa: E402


@pytest.fixture
def scene_release(tmp_path):
    return sr.build(tmp_path / "release")


def _open(qtbot, make_inspector, root, key):
    window, state = make_inspector(root, [root / "m1.jsonl"], uid=sr.UIDS[key])
    qtbot.waitUntil(lambda: state.geometry is not None, timeout=10000)
    settle(qtbot, window)
    return window, state


def test_direction_question_on_the_scene_map(qtbot, make_inspector, scene_release):
    window, state = _open(qtbot, make_inspector, scene_release, "ED_v")
    sv = window.sample_view
    assert state.shown_map == MapSource.scene("occupancy")
    assert sv.map_panel.source_box.currentData() == state.shown_map
    ov = sv.map_panel.view.overlay
    assert ov.path().points.shape == (sr.N_FRAMES, 2)
    np.testing.assert_allclose(viewpoint(ov), [50.0, 70.0])
    # To the left = up, past the target 2 m away (y = 30): its red outline stays visible.
    tip = one(ov, pr.Arrow, pr.TRUTH).points[1]
    assert tip[0] == pytest.approx(50.0) and tip[1] < 30.0
    assert len(ov.of(pr.Sector)) == 3 and len(ov.of(pr.Arrow, pr.MODEL)) == 1
    assert sv.chart_stack.currentWidget() is sv.charts["dial"]
    assert window.sample_view.tabs.isTabEnabled(1)
    # The scene ships an occupancy map; the two other levels are rendered from its boxes.
    assert state.map_choice.sources == (MapSource.scene("occupancy"), MapSource.render("photo"),
                                        MapSource.render("floorplan"))
    assert [sv.map_panel.source_box.itemData(k) for k in range(3)] == list(state.map_choice.sources)


def test_video_scrubber_moves_the_camera_on_the_map(qtbot, make_inspector, scene_release):
    window, state = _open(qtbot, make_inspector, scene_release, "ED_v")
    sv = window.sample_view
    player = sv.player
    qtbot.waitUntil(lambda: player.n_frames == sr.N_FRAMES, timeout=20000)
    view = sv.map_panel.view
    np.testing.assert_allclose(view.camera_position, [30.0, 70.0])   # frame 0 at world (1, 1)
    player.seek(sr.N_FRAMES - 1)                                     # the scrubber
    qtbot.waitUntil(lambda: state.frame == sr.N_FRAMES - 1, timeout=10000)
    np.testing.assert_allclose(view.camera_position, [170.0, 70.0])  # last frame at world (8, 1)
    state.frame = 4
    qtbot.waitUntil(lambda: player.current == 4, timeout=10000)
    assert player.pane._box == (10.0, 10.0, 30.0, 30.0)              # the target's best frame


def test_switch_map_level_and_keep_the_choice(qtbot, make_inspector, scene_release):
    window, state = _open(qtbot, make_inspector, scene_release, "Pos")
    sv = window.sample_view
    box = sv.map_panel.source_box
    box.setCurrentIndex(box.findText("rendered: floor plan"))
    box.activated.emit(box.currentIndex())                          # as a user's pick
    assert state.map_source == state.shown_map == MapSource.render("floorplan")
    settle(qtbot, window)
    image = sv.map_panel.view.image_item.image
    assert image.shape == (sr.MAP_SIZE[1], sr.MAP_SIZE[0], 3)       # rendered in the map's own frame
    assert sv.map_panel.stack.currentWidget() is sv.map_panel.view
    np.testing.assert_allclose(truth_point(sv.map_panel.view.overlay), [250.5 * 0.2, 700.5 * 0.1])
    state.select_uid(sr.UIDS["GP_v"])
    qtbot.waitUntil(lambda: state.geometry is not None, timeout=10000)
    settle(qtbot, window)
    assert state.shown_map == MapSource.render("floorplan")          # remembered across samples
    assert box.currentData() == MapSource.render("floorplan")
    state.map_source = MapSource.render("photo")
    settle(qtbot, window)
    assert box.currentData() == MapSource.render("photo")
    photo = sv.map_panel.view.image_item.image
    assert photo.shape == image.shape and not np.array_equal(photo, image)


def test_distance_and_choice_questions(qtbot, make_inspector, scene_release):
    window, state = _open(qtbot, make_inspector, scene_release, "EDist_v")
    sv = window.sample_view
    ov = sv.map_panel.view.overlay
    np.testing.assert_allclose(np.hypot(*(one(ov, pr.Polyline, pr.TRUTH).points - viewpoint(ov)).T), 44.0)
    assert sv.chart_stack.currentWidget() is sv.charts["bars"]
    state.select_uid(sr.UIDS["TDS_E"])
    settle(qtbot, window)
    assert sv.answer_stack.currentWidget() is sv.gallery
    assert "ground truth" in sv.gallery.options[1].pane._caption
    assert "m1" in sv.gallery.options[1].picks.text()


def test_3d_tab_without_opengl_explains_itself(qtbot, make_inspector, scene_release):
    from viewer.ui.view3d import opengl_problem
    window, _ = _open(qtbot, make_inspector, scene_release, "ED_v")
    sv = window.sample_view
    sv.tabs.setCurrentIndex(1)
    settle(qtbot, window)
    if opengl_problem() is None:
        pytest.skip("OpenGL works here; the 3D view is tested under Xvfb in test_screenshot.py")
    assert "needs OpenGL" in sv.view3d.message.text()
    assert sv.view3d.stack.currentWidget() is sv.view3d.message


def test_broken_mesh_falls_back_to_boxes(qtbot, make_inspector, scene_release, make_scene):
    folder = make_scene(scene_release, dataclasses.replace(sr.scene(), mesh="scene.glb"))
    (folder / "scene.glb").write_bytes(b"glTF" + b"\x00" * 40)
    window, state = _open(qtbot, make_inspector, scene_release, "GP_v")
    sv = window.sample_view
    state.map_source = MapSource.render("photo")
    settle(qtbot, window)
    assert sv.map_panel.stack.currentWidget() is sv.map_panel.view
    mesh = window.assets.mesh(state.geometry.scene)
    assert "scene.glb" in mesh._cache["load_problem"] and "boxes instead" in mesh._cache["load_problem"]


def test_broken_scene_json_leaves_2d_working(qtbot, make_inspector, scene_release, make_scene):
    make_scene(scene_release, sr.scene(), text="{ not json")
    window, state = _open(qtbot, make_inspector, scene_release, "GP_v")
    sv = window.sample_view
    # The question's own map image still shows, with the answer points on it.
    assert state.shown_map == MapSource.release()
    ov = sv.map_panel.view.overlay
    np.testing.assert_allclose(truth_point(ov), [250.5 * 0.2, 300.5 * 0.1])
    assert ov.path() is None
