"""The window on the bundled demo: every sample, every map level, the leaderboard, playback."""
import numpy as np
import pytest
from overlay_queries import truth_point
from ui_helpers import open_release, settle

from viewer.assets import assets_dir
from viewer.core.tasks import COLUMN_KEYS

DEMO = assets_dir() / "demo"
pytestmark = pytest.mark.skipif(not (DEMO / "questions.jsonl").is_file(), reason="no bundled demo")


@pytest.fixture
def demo_window(qtbot, window, tmp_path):
    import shutil
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    open_release(qtbot, window, root, sorted((root / "predictions").glob("*.jsonl")))
    return window


def test_step_through_every_sample(qtbot, demo_window):
    w = demo_window
    n = w.browser.model.rowCount()
    assert n == len(w.session.release) and len(w.session.results) == 3
    w.browser.select_position(0)
    kinds = set()
    for pos in range(n):
        w.browser.select_position(pos)
        settle(qtbot, w)
        sv = w.sample_view
        q = w.session.release.questions[w.browser.current_question()]
        kinds.add(q.kind.name)
        assert sv.geometry is not None and sv.geometry.scene is not None, q.uid
        if q.kind.name == "choice":
            assert sv.answer_stack.currentWidget() is sv.gallery
            assert all(o.pane.image is not None for o in sv.gallery.options[:4])
        else:
            ov = sv.map_panel.view.overlay
            assert ov is not None and ov.path() is not None, q.uid
            assert sv.map_panel.stack.currentWidget() is sv.map_panel.view
        assert sv.player.n_frames > 0, q.uid
    assert kinds == {"angle", "distance", "point", "choice"}


def test_levels_filters_and_leaderboard_on_the_demo(qtbot, demo_window):
    w = demo_window
    b, sv = w.browser, w.sample_view
    col = COLUMN_KEYS.index("GP_v")
    w.leaderboard.cellClicked.emit(2, col)
    assert b.model_box.currentData() == 2 and b.column_box.currentData() == col
    assert {int(c) for c in w.session.release.column[b.model.rows]} == {col}
    settle(qtbot, w)
    shown = []
    for key in ("scene:photo", "scene:floorplan", "scene:occupancy"):
        assert sv.map_panel.select_source(key)
        settle(qtbot, w)
        shown.append(sv.map_panel.view.image_item.image.copy())
        assert truth_point(sv.map_panel.view.overlay) is not None
    assert not np.array_equal(shown[0], shown[1]) and not np.array_equal(shown[1], shown[2])
    b.table.sortByColumn(5 + 3 * 2 + 2, b.table.horizontalHeader().sortIndicatorOrder())
    scores = w.session.results[2].score[b.model.rows]
    assert list(scores) == sorted(scores) or list(scores) == sorted(scores, reverse=True)
    player = sv.player
    player.play()
    qtbot.waitUntil(lambda: player.current >= 5, timeout=15000)
    player.pause()
    assert sv.map_panel.view.camera_position is not None
