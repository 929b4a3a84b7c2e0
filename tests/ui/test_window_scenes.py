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
from ui_helpers import open_release, settle  # noqa: E402


@pytest.fixture
def scene_release(tmp_path):
    return sr.build(tmp_path / "release")


def _open(qtbot, window, root, key):
    open_release(qtbot, window, root, [root / "m1.jsonl"], uid=sr.UIDS[key])
    qtbot.waitUntil(lambda: window.sample_view.geometry is not None, timeout=10000)
    settle(qtbot, window)
    return window.sample_view


def test_direction_question_on_the_scene_map(qtbot, window, scene_release):
    sv = _open(qtbot, window, scene_release, "ED_v")
    assert sv.map_panel.current_source == "scene:occupancy"
    ov = sv.map_panel.view.overlay
    assert ov.path().points.shape == (sr.N_FRAMES, 2)
    np.testing.assert_allclose(viewpoint(ov), [50.0, 70.0])
    # 2 m to the left = up
    np.testing.assert_allclose(one(ov, pr.Arrow, pr.TRUTH).points[1], [50.0, 30.0], atol=1e-9)
    assert len(ov.of(pr.Sector)) == 3 and len(ov.of(pr.Arrow, pr.MODEL)) == 1
    assert sv.chart_stack.currentWidget() is sv.dial
    assert window.sample_view.tabs.isTabEnabled(1)
    sources = [sv.map_panel.source_box.itemData(k) for k in range(sv.map_panel.source_box.count())]
    # The scene ships an occupancy map; the two other levels are rendered from its boxes.
    assert sources == ["scene:occupancy", "render:photo", "render:floorplan"]


def test_video_scrubber_moves_the_camera_on_the_map(qtbot, window, scene_release):
    sv = _open(qtbot, window, scene_release, "ED_v")
    player = sv.player
    qtbot.waitUntil(lambda: player.n_frames == sr.N_FRAMES, timeout=20000)
    view = sv.map_panel.view
    np.testing.assert_allclose(view.camera_position, [30.0, 70.0])   # frame 0 at world (1, 1)
    with qtbot.waitSignal(player.frameChanged, timeout=10000):
        player.seek(sr.N_FRAMES - 1)
    end = view.camera_position
    np.testing.assert_allclose(end, [170.0, 70.0])                   # last frame at world (8, 1)
    with qtbot.waitSignal(player.frameChanged, timeout=10000):
        player.seek(4)
    assert player.pane._box == (10.0, 10.0, 30.0, 30.0)              # the target's best frame


def test_switch_map_level_and_keep_the_choice(qtbot, window, scene_release):
    sv = _open(qtbot, window, scene_release, "Pos")
    assert sv.map_panel.select_source("render:floorplan")
    settle(qtbot, window)
    image = sv.map_panel.view.image_item.image
    assert image.shape == (sr.MAP_SIZE[1], sr.MAP_SIZE[0], 3)       # rendered in the map's own frame
    assert sv.map_panel.stack.currentWidget() is sv.map_panel.view
    np.testing.assert_allclose(truth_point(sv.map_panel.view.overlay), [250.5 * 0.2, 700.5 * 0.1])
    window.select_uid(sr.UIDS["GP_v"])
    qtbot.waitUntil(lambda: sv.geometry is not None, timeout=10000)
    settle(qtbot, window)
    assert sv.map_panel.current_source == "render:floorplan"        # remembered across samples
    assert sv.map_panel.select_source("render:photo")
    settle(qtbot, window)
    photo = sv.map_panel.view.image_item.image
    assert photo.shape == image.shape and not np.array_equal(photo, image)


def test_distance_and_choice_questions(qtbot, window, scene_release):
    sv = _open(qtbot, window, scene_release, "EDist_v")
    ov = sv.map_panel.view.overlay
    np.testing.assert_allclose(np.hypot(*(one(ov, pr.Polyline, pr.TRUTH).points - viewpoint(ov)).T), 44.0)
    assert sv.chart_stack.currentWidget() is sv.bars
    window.select_uid(sr.UIDS["TDS_E"])
    settle(qtbot, window)
    assert sv.answer_stack.currentWidget() is sv.gallery
    assert "ground truth" in sv.gallery.options[1].pane._caption
    assert "m1" in sv.gallery.options[1].picks.text()


def test_3d_tab_without_opengl_explains_itself(qtbot, window, scene_release):
    from viewer.ui.view3d import opengl_problem
    sv = _open(qtbot, window, scene_release, "ED_v")
    sv.tabs.setCurrentIndex(1)
    settle(qtbot, window)
    if opengl_problem() is None:
        pytest.skip("OpenGL works here; the 3D view is tested under Xvfb in test_screenshot.py")
    assert "needs OpenGL" in sv.view3d.message.text()
    assert sv.view3d.stack.currentWidget() is sv.view3d.message


def test_broken_mesh_falls_back_to_boxes(qtbot, window, scene_release, make_scene):
    folder = make_scene(scene_release, dataclasses.replace(sr.scene(), mesh="scene.glb"))
    (folder / "scene.glb").write_bytes(b"glTF" + b"\x00" * 40)
    sv = _open(qtbot, window, scene_release, "GP_v")
    assert sv.map_panel.select_source("render:photo")
    settle(qtbot, window)
    assert sv.map_panel.stack.currentWidget() is sv.map_panel.view
    mesh = sv.assets.mesh(sv.geometry.scene)
    assert "scene.glb" in mesh._cache["load_problem"] and "boxes instead" in mesh._cache["load_problem"]


def test_broken_scene_json_leaves_2d_working(qtbot, window, scene_release, make_scene):
    make_scene(scene_release, sr.scene(), text="{ not json")
    open_release(qtbot, window, scene_release, [scene_release / "m1.jsonl"], uid=sr.UIDS["GP_v"])
    sv = window.sample_view
    qtbot.waitUntil(lambda: sv.geometry is not None, timeout=10000)
    settle(qtbot, window)
    # The question's own map image still shows, with the answer points on it.
    assert sv.map_panel.current_source == "release"
    ov = sv.map_panel.view.overlay
    np.testing.assert_allclose(truth_point(ov), [250.5 * 0.2, 300.5 * 0.1])
    assert ov.path() is None
