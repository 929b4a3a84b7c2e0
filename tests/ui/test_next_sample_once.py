"""The next sample shown in one go (issues 28 and 30): once a question's media were read, switching to it needs
no background job, so it is drawn whole within the switch and painted once rather than again when a job lands;
the views keep their geometry (no re-layout) and their items. Counts, not wall-clock (benchmarks/bench_ui.py
measures the time)."""
import time

import pytest
from PyQt6.QtCore import QEvent, QObject
from ui_helpers import settle

from viewer.core import browse


class Events(QObject):
    """Counts events of the given types a widget receives."""

    def __init__(self, widget, *types):
        super().__init__()
        self.types, self.seen = set(types), []
        widget.installEventFilter(self)

    def eventFilter(self, obj, ev):
        if ev.type() in self.types:
            self.seen.append(ev.type())
        return False


@pytest.fixture
def warm(qtbot, inspect_demo):
    """The demo at the README's size, every question shown once (its frames, images and maps read)."""
    win, state = inspect_demo(size=(1600, 1000))
    for _ in range(len(state.order)):
        state.step(+1)
        settle(qtbot, win)
    win.browser.select_position(0)
    settle(qtbot, win)
    return win, state


def test_a_question_seen_before_is_shown_within_the_switch_with_no_job(qtbot, warm, monkeypatch):
    win, state = warm
    submitted = []
    real = win.jobs.submit
    monkeypatch.setattr(win.jobs, "submit", lambda fn, *a, **k: (submitted.append(k.get("label")),
                                                                 real(fn, *a, **k))[1])
    tabs = win.sample_view.tabs
    toggled = []                                            # the 3D tab switched off and on again
    real_enable = tabs.setTabEnabled
    monkeypatch.setattr(tabs, "setTabEnabled", lambda k, on: (toggled.append((k, on)), real_enable(k, on))[1])
    player, slider = win.sample_view.player, win.sample_view.player.slider
    for _ in range(len(state.order) - 1):
        state.step(+1)
        q = state.current
        assert tabs.isTabEnabled(1) and toggled == [], (q.uid, toggled)     # the scene, read before, linked
        # Before any event is processed: the video's first frame and the model's sampled frames are there.
        if q.video is not None and q.video.exists:
            assert player.current == 0 and player.pane.image is not None, q.uid
            assert player.path == q.video.path
            assert slider.sampled, q.uid                    # the Model's eye ticks (noisy-expert's policy)
        assert submitted == [], (q.uid, submitted)
        settle(qtbot, win)
    assert submitted == []


def test_the_prompt_and_the_answers_keep_their_geometry_and_items(qtbot, warm):
    win, state = warm
    prompt, answers = win.sample_view.prompt, win.sample_view.answers
    resized = Events(prompt.viewport(), QEvent.Type.Resize)
    items = [answers.item(m, c) for m in range(answers.rowCount()) for c in range(answers.columnCount())]
    rel = win.session.release
    for _ in range(len(state.order) - 1):
        state.step(+1)
        settle(qtbot, win)
        qi = state.question
        # The same items, showing this question's answers.
        assert [answers.item(m, c) for m in range(answers.rowCount())
                for c in range(answers.columnCount())] == items
        for m, r in enumerate(win.session.results):
            assert answers.item(m, 0).text() == f"● {r.model}"
            assert answers.item(m, 1).text() == browse.answer_text(r, rel, qi)
            assert answers.item(m, 2).text() == browse.error_text(r, rel, qi)
            assert answers.item(m, 3).text() == browse.score_text(r, qi)
            assert answers.item(m, 4).toolTip() == ("" if r.raw[qi] is None else str(r.raw[qi])[:2000])
    # A long prompt and a short one alike: the text's viewport keeps its width (no scroll bar coming and going).
    assert resized.seen == []


def _job(seconds):
    time.sleep(seconds)
    return seconds


def test_the_busy_bar_shows_only_for_work_that_lasts(qtbot, make_inspector):
    from viewer.ui.main_window import BUSY_DELAY_MS
    win, _state = make_inspector()
    shown = Events(win.progress, QEvent.Type.Show)
    win.jobs.submit(_job, 0.02)
    qtbot.waitUntil(lambda: win.jobs.pending == 0, timeout=5000)
    qtbot.wait(BUSY_DELAY_MS + 100)
    assert shown.seen == [] and not win.progress.isVisible(), "a short job shows no busy bar"
    win.jobs.submit(_job, 3 * BUSY_DELAY_MS / 1000)
    qtbot.waitUntil(win.progress.isVisible, timeout=5000)
    qtbot.waitUntil(lambda: win.jobs.pending == 0, timeout=5000)
    assert not win.progress.isVisible()


def test_a_switch_paints_the_map_once(qtbot, warm):
    """The map and the chart are laid out before the window paints (`SampleView.ready_to_paint`): pyqtgraph
    doing it at the start of their paint changed their scenes again, which painted the map and the window a
    second and third time at each question (here: 2.2 map paints a question without it, 1.4 with it; the
    benchmark's window paints a switch: 2.2 -> 1.4)."""
    from PyQt6.QtWidgets import QApplication
    win, state = warm
    view = win.sample_view.map_panel.view
    painted = Events(view.viewport(), QEvent.Type.Paint)
    counts = {}
    for _ in range(len(state.order) - 1):
        painted.seen.clear()
        state.step(+1)
        for _ in range(10):                                # ten rounds of the event loop, as the benchmark's
            QApplication.processEvents()
        if view.isVisible():
            counts[state.current.uid] = len(painted.seen)
        settle(qtbot, win)
    assert len(counts) >= 40 and sum(counts.values()) <= 1.6 * len(counts), (sum(counts.values()), len(counts))


def _reporting_job(seconds, progress):
    progress(3, 10)                                 # at once, long before the bar shows
    time.sleep(seconds)
    return seconds


def test_progress_reported_before_the_bar_shows_is_what_it_shows(qtbot, make_inspector):
    """The bar comes on after BUSY_DELAY_MS; a job that reported 3 of 10 by then shows 3 of 10, not "busy"."""
    from viewer.ui.main_window import BUSY_DELAY_MS
    win, _state = make_inspector()
    win.jobs.submit(_reporting_job, 4 * BUSY_DELAY_MS / 1000, with_progress=True)
    qtbot.waitUntil(win.progress.isVisible, timeout=5000)
    assert (win.progress.maximum(), win.progress.value()) == (10, 3)
    qtbot.waitUntil(lambda: win.jobs.pending == 0, timeout=5000)
    assert not win.progress.isVisible() and win.progress.maximum() == 0     # the next work starts as busy


def test_a_switch_repaints_only_the_controls_that_change(qtbot, warm):
    """Between two questions with videos read before, the player's controls stay enabled (they were turned off
    and on again: the buttons, the speed box and the scrubber repainted at every question), and between two
    questions of a kind offering the same maps the map's source box is not emptied and filled again (box and
    toolbar laid out and repainted)."""
    from PyQt6.QtWidgets import QApplication
    win, state = warm
    sv = win.sample_view
    player, box = sv.player, sv.map_panel.source_box
    controls = (player.play_button, player.back_button, player.next_button, player.speed)
    enabled = [Events(w, QEvent.Type.EnabledChange) for w in controls]
    painted = [Events(w, QEvent.Type.Paint) for w in (*controls, box)]
    listed = lambda: [(box.itemText(k), box.itemData(k)) for k in range(box.count())]    # noqa: E731
    steps = moves = same_maps = 0
    for _ in range(len(state.order) - 1):
        before_video = state.current.video is not None and state.current.video.exists
        before_kind = state.current.kind
        before_maps, before_visible = listed(), box.isVisible()
        # Where each sits and its panel's size (a panel resized is repainted whole, its children too).
        placed = lambda: [(w.mapTo(win, w.rect().topLeft()), w.size(), w.parentWidget().size())  # noqa: E731
                          for w in (*controls, box)]
        before_places = placed()
        for e in (*enabled, *painted):
            e.seen.clear()
        state.step(+1)
        for _ in range(10):
            QApplication.processEvents()
        q = state.current
        if before_video and q.video is not None and q.video.exists:
            steps += 1
            assert [e.seen for e in enabled] == [[]] * len(controls), q.uid
            if placed()[:-1] == before_places[:-1]:        # not moved (a choice question's video is taller)
                moves += 1
                assert [e.seen for e in painted[:-1]] == [[]] * len(controls), q.uid
            assert player.play_button.isEnabled() and player.slider.maximum() == player.n_frames - 1 > 0
        if before_visible and box.isVisible() and listed() == before_maps and placed()[-1] == before_places[-1] \
                and q.kind is before_kind:                 # another kind may bring another chart: laid out again
            same_maps += 1
            assert painted[-1].seen == [], q.uid
        settle(qtbot, win)
    assert steps >= 40 and moves >= 30 and same_maps >= 20, (steps, moves, same_maps)


def test_what_lies_under_an_image_pane_is_not_painted_when_it_changes(qtbot, warm):
    """The video's frame and the current view change at every question: their panes paint every pixel, so the
    player under the video pane is not painted beneath it (it was, with the splitters and the window's
    background)."""
    from PyQt6.QtGui import QRegion
    from PyQt6.QtWidgets import QApplication
    win, state = warm
    player = win.sample_view.player
    regions = []

    class Regions(QObject):
        def eventFilter(self, obj, ev):
            if ev.type() == QEvent.Type.Paint:
                regions.append(QRegion(ev.region()))
            return False
    spy = Regions()
    player.installEventFilter(spy)
    frames = 0
    for _ in range(len(state.order) - 1):
        regions.clear()
        state.step(+1)
        for _ in range(10):
            QApplication.processEvents()
        pane = QRegion(player.pane.geometry())
        if player.pane.isVisible() and player.pane.image is not None:
            frames += 1
            assert all(r.intersected(pane).isEmpty() for r in regions), state.current.uid
        settle(qtbot, win)
    assert frames >= 40
