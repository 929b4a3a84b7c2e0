"""The window on a release without scenes whose video was reconstructed (structure from motion, cached):
the path on the map with where it came from, question after question of the scene, and back."""
import sys
from pathlib import Path

import numpy as np

from viewer.core import primitives as pr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import sfm_release as sf  # noqa: E402
from ui_helpers import settle  # noqa: E402

POS = "scene1_Egocentric_Localization_Global_Position_pos_15_orient_0_video_0"
LABEL = "reconstructed from the video (structure from motion), aligned by 16 answers"


def _shown(qtbot, window, state, uid):
    state.select_uid(uid)
    qtbot.waitUntil(lambda: state.geometry is not None and state.geometry.scene is not None, timeout=20000)
    settle(qtbot, window)
    sv = window.sample_view
    ov = sv.map_panel.view.overlay
    return sv, ov


def test_the_reconstructed_path_is_drawn_with_its_provenance(qtbot, make_inspector, tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    root = sf.scene_less(tmp_path)
    result, _ = sf.fake_result(root)
    sf.cache(result)
    window, state = make_inspector(root, [root / "predictions" / p.name for p in (root / "predictions").iterdir()],
                                   uid=POS)
    release = state.session.release
    scene_uids = [q.uid for q in release.questions if q.scene == sf.SCENE]
    following = scene_uids[scene_uids.index(POS) + 1]            # the next question of the scene (an Ori)
    for uid in (POS, following, POS):
        sv, ov = _shown(qtbot, window, state, uid)
        assert state.geometry.scene.provenance == LABEL
        path = ov.path()
        assert path is not None and np.isfinite(path.points).sum() > 0.5 * path.points.size   # 30 % unregistered
        assert any(LABEL in e.text for e in ov.legend if e.kind == "path")
        assert LABEL in sv.map_panel.note.text()
        assert ov.of(pr.Marker, pr.VIEWPOINT)                         # the localised query view
        sv.tabs.setCurrentIndex(1)                                    # the 3D tab (its legend needs no OpenGL)
        settle(qtbot, window)
        assert LABEL in sv.view3d.legend.text()
        assert "aligned by" in sv.view3d.legend.text()
        sv.tabs.setCurrentIndex(0)
    # The 3D tab draws the cloud the reconstruction recovered.
    ov3 = sv.view3d.overlay
    assert ov3 is not None and len(ov3.of(pr.PointCloud)[0].points) == len(result.points)


def test_an_unaligned_reconstruction_leaves_the_map_to_the_answers_and_says_so(qtbot, make_inspector, tmp_path,
                                                                                 monkeypatch):
    from viewer.core.map_choice import MapKind
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))

    def one_pos(recs):           # one Pos answer left in the scene: nothing to align by
        pos = [r for r in recs if r["scene"] == sf.SCENE and "Global_Position_pos" in r["uid"]]
        for r in pos[1:]:
            recs.remove(r)
    root = sf.scene_less(tmp_path, one_pos)
    result, _ = sf.fake_result(root)
    sf.cache(result)
    ed = "scene1_Object_Localization_Egocentric_Direction_visual_potted_plant_yzwbdf_2_pos_15_orient_0_video_0"
    window, state = make_inspector(root, uid=ed)
    for uid in (ed, POS, ed):
        sv, ov = _shown(qtbot, window, state, uid)
        assert "not aligned to the map (1 usable position answer, 2 needed): 3D only" in sv.map_panel.note.text()
        assert ov.path() is None                                         # the path is not on the map
        assert ov.of(pr.Marker, pr.VIEWPOINT)                             # the view the answers place
        if uid == ed:
            assert state.shown_map.kind is MapKind.LINKED                 # the map of a linked question
            assert "inferred from answers" in sv.map_panel.note.text()
        sv.tabs.setCurrentIndex(1)
        settle(qtbot, window)
        assert len(sv.view3d.overlay.of(pr.PointCloud)) == 1 and sv.view3d.overlay.of(pr.Polyline, pr.PATH)
        sv.tabs.setCurrentIndex(0)


def test_a_white_point_cloud_stands_out_against_the_3d_background():
    """A textured room's points are mostly white: drawn in their own colour they vanished on the light grey
    background. Each is drawn darker than the background by a clear margin, keeping its hue and order."""
    from viewer.ui.view3d import BACKGROUND, cloud_rgba
    colors = np.array([[255, 255, 255], [200, 40, 40], [0, 0, 0]], np.uint8)
    rgba = cloud_rgba(colors, 3)
    luma = rgba[:, :3] @ np.array([0.299, 0.587, 0.114])
    background = np.dot(np.array(BACKGROUND) / 255.0, [0.299, 0.587, 0.114])
    assert luma.max() < background - 0.3                                # even white: well below the background
    assert luma[0] > luma[1] > luma[2] and rgba[1, 0] > rgba[1, 1]      # lightness order and hue kept
    assert np.all(rgba[:, 3] == 1.0)
    assert cloud_rgba(colors[:2], 3) == (0.35, 0.35, 0.4, 1.0)          # colours that do not fit: one grey


def _clipped_legend_entries(view) -> list[str]:
    """The map legend's entries not shown whole: measured with the font the legend draws in (QFontMetrics), an
    entry's text needs as many lines as its width holds, all of them inside the map's pane."""
    import math

    from PyQt6.QtGui import QFont, QFontMetricsF
    viewport = view.viewport().rect()
    out = []
    for _sample, label in view.legend.items:
        font = QFont(label.item.font())
        font.setPointSizeF(float(str(view.legend.opts["labelTextSize"]).removesuffix("pt")))
        fm = QFontMetricsF(font)
        text_width = label.item.textWidth()
        width = fm.horizontalAdvance(label.text)
        lines = 1 if text_width < 0 else math.ceil(width / text_width)
        shown = view.mapFromScene(label.mapRectToScene(label.itemRect())).boundingRect()
        if text_width < 0 and shown.width() < width - 1:
            out.append(f"{label.text!r}: {shown.width()} px of {width:.0f}")
        elif shown.height() < 0.95 * lines * fm.lineSpacing():
            out.append(f"{label.text!r}: {shown.height()} px high, {lines} lines of {fm.lineSpacing():.0f} needed")
        elif not viewport.contains(shown):
            out.append(f"{label.text!r}: {shown} beyond the pane {viewport}")
    return out


def test_the_long_path_entry_wraps_in_the_legend_of_a_1280_by_800_window(qtbot, make_inspector, tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    root = sf.scene_less(tmp_path)
    sf.cache(sf.fake_result(root)[0])
    window, state = make_inspector(root, uid=POS, size=(1280, 800))
    release = state.session.release
    following = next(q.uid for q in release.questions if q.scene == sf.SCENE and q.uid != POS)
    for uid in (POS, following, POS):
        sv, ov = _shown(qtbot, window, state, uid)
        view = sv.map_panel.view
        path_entry = [label for _s, label in view.legend.items if LABEL in label.text]
        assert path_entry and path_entry[0].item.textWidth() > 0          # narrower than its text: wrapped
        assert not _clipped_legend_entries(view), _clipped_legend_entries(view)
