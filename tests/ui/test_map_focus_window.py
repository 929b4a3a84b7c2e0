"""The window's map opens a direction question on its view, rays and target; Fit shows the whole map
and back (issue 28, item 3). Walked over the demo's questions forward, as a user steps."""
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ui_helpers import settle  # noqa: E402

DEMO = Path(__file__).resolve().parents[2] / "assets" / "demo"


@pytest.fixture
def demo(tmp_path):
    return Path(shutil.copytree(DEMO, tmp_path / "demo"))


def _shows(view, box, tol=0.08) -> bool:
    """The view's range is `box` (with pyqtgraph's padding and the aspect lock, within `tol` of its size)."""
    r = view.shown_rect()
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    inside = r.left() <= x0 + tol * w and r.top() <= y0 + tol * h and r.right() >= x1 - tol * w \
        and r.bottom() >= y1 - tol * h
    return inside and min(r.width() - w, r.height() - h) <= tol * max(w, h) + 1


def test_direction_questions_open_zoomed_and_fit_toggles(qtbot, make_inspector, demo):
    window, state = make_inspector(demo, sorted((demo / "predictions").glob("*.jsonl")))
    panel = window.sample_view.map_panel
    view = panel.view
    focused = 0
    for k in range(len(state.order)):
        state.question = int(state.order[k])
        settle(qtbot, window)
        ov = view.overlay
        if ov is None or view._map_shape is None or (ov.width, ov.height) != view._map_shape[::-1]:
            continue
        if ov.focus is None:
            assert _shows(view, ov.shown_box(focused=False))
            continue
        focused += 1
        assert _shows(view, ov.focus), (state.uid, view.shown_rect(), ov.focus)
        panel.fit_button.click()                                     # the whole map
        assert panel.fit_button.isChecked()
        assert _shows(view, ov.shown_box(focused=False))
        panel.fit_button.click()                                     # and back
        assert not panel.fit_button.isChecked()
        assert _shows(view, ov.focus)
    assert focused >= 6
