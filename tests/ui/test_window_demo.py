"""The window on the bundled demo: every sample, every map level, the leaderboard, playback."""
import numpy as np
import pytest
from overlay_queries import truth_point
from ui_helpers import settle

from viewer.assets import assets_dir
from viewer.core.benchmarks.gst.columns import COLUMN_KEYS
from viewer.core.map_choice import MapSource

DEMO = assets_dir() / "demo"
pytestmark = pytest.mark.skipif(not (DEMO / "questions.jsonl").is_file(), reason="no bundled demo")


@pytest.fixture
def demo(inspect_demo):
    return inspect_demo()


def test_step_through_every_sample(qtbot, demo):
    w, state = demo
    n = len(state.order)
    assert n == len(state.session.release) and len(state.models) == 3
    assert state.position() == 0
    kinds = set()
    for pos in range(n):
        if pos:
            state.step(+1)
        settle(qtbot, w)
        sv = w.sample_view
        q = state.current
        kinds.add(q.kind.name)
        assert state.position() == pos and w.browser.table.currentIndex().row() == pos
        assert state.geometry is not None and state.geometry.scene is not None, q.uid
        if q.kind.name == "choice":
            assert sv.answer_stack.currentWidget() is sv.gallery
            assert all(o.pane.image is not None for o in sv.gallery.options[:4])
        else:
            ov = sv.map_panel.view.overlay
            assert ov is not None and ov.path() is not None, q.uid
            assert sv.map_panel.stack.currentWidget() is sv.map_panel.view
            # The model saw no map: the scene's photo-like one, as in exported figures; else its own.
            assert state.shown_map == (MapSource.scene("photo") if q.role_image("map") is None
                                       else MapSource.release()), q.uid
        assert sv.player.n_frames > 0, q.uid
    assert kinds == {"angle", "distance", "point", "choice"}


def test_levels_filters_and_leaderboard_on_the_demo(qtbot, demo):
    w, state = demo
    sv = w.sample_view
    col = COLUMN_KEYS.index("GP_v")
    w.leaderboard.cellClicked.emit(2, col)
    assert state.filter.model == 2 and state.filter.columns == {col}
    assert {int(c) for c in state.session.release.column[state.order]} == {col}
    settle(qtbot, w)
    shown = []
    for name in ("photo", "floorplan", "occupancy"):
        state.map_source = MapSource.scene(name)
        settle(qtbot, w)
        shown.append(sv.map_panel.view.image_item.image.copy())
        assert truth_point(sv.map_panel.view.overlay) is not None
    assert not np.array_equal(shown[0], shown[1]) and not np.array_equal(shown[1], shown[2])
    b = w.browser
    b.table.sortByColumn(b.model.column_of(("score", 2)), b.table.horizontalHeader().sortIndicatorOrder())
    scores = state.session.results[2].score[state.order]
    assert list(scores) == sorted(scores) or list(scores) == sorted(scores, reverse=True)
    player = sv.player
    player.play()
    qtbot.waitUntil(lambda: state.frame >= 5, timeout=15000)
    player.pause()
    assert sv.map_panel.view.camera_position is not None
