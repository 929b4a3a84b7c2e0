"""The window right on every click (issue 28), walked as a model developer and a reviewer do on the demo at the
README's size: every question forward and back with its target frames and B; every header sort and a click
after it; every comparison filter; the models' names whole in headers and legends."""
import json

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtGui import QFontMetrics
from PyQt6.QtTest import QTest
from ui_helpers import settle

from viewer.core.browse import BrowseFilter
from viewer.core.compare import COMPARISONS, NEEDS_B

SIZE = (1600, 1000)
DEMO_MODELS = ("noisy-expert", "random-guesser", "sign-flipper")


@pytest.fixture
def window(qtbot, inspect_demo):
    win, state = inspect_demo(size=SIZE)
    assert state.models == DEMO_MODELS
    return win, state


def known_frames(release_root, q):
    """The target's frames as the scene file lists them (read here, not through the viewer)."""
    if not q.target or not q.video_id:
        return None
    doc = json.loads((release_root / "scenes" / q.scene / "scene.json").read_text())
    rec = doc["videos"].get(q.video_id, {}).get("instances", {}).get(q.target)
    if not rec:
        return None
    frames = set(rec.get("appear_frames") or ())
    if rec.get("best_frame_idx") is not None:
        frames.add(rec["best_frame_idx"])
    return tuple(sorted(frames)), rec.get("best_frame_idx")


def action(win, key: str):
    """The window's action on `key` (what pressing it does)."""
    return next(a for a in win.actions() if a.shortcut().toString() == key)


def check_target_frames(qtbot, win, state, root) -> bool:
    """The shown question's scrubber marks, view tick and B; whether it has known target frames."""
    q = state.current
    slider = win.sample_view.player.slider
    known = known_frames(root, q)
    best_action = action(win, "B")
    if known is None:
        best_action.trigger()
        assert "no frame of this video is known" in win.status_label.text(), q.uid
        return False
    frames, best = known
    assert slider.seen == frames, q.uid
    assert slider.best == best, q.uid
    if state.geometry.viewpoint is not None:
        assert slider.view_frame is not None, q.uid
    win.show_status("something else")
    best_action.trigger()
    settle(qtbot, win)
    assert state.frame == best, q.uid
    assert win.status_label.text().startswith(f"frame {best + 1}:"), (q.uid, win.status_label.text())
    qtbot.waitUntil(lambda: win.sample_view.player.current == best, timeout=10000)
    return True


def test_every_question_forward_and_back_has_its_target_frames_and_b(qtbot, window):
    win, state = window
    root = win.session.release.root
    n = len(state.order)
    assert n == len(win.session.release)
    with_frames = []
    for k in range(n):
        if k:
            action(win, "J").trigger()                             # the Go menu's "Next sample"
        settle(qtbot, win)
        assert state.question == int(state.order[k])
        with_frames.append(check_target_frames(qtbot, win, state, root))
    # Each scene has several questions with frames: the first of a scene is not the only one that works.
    assert sum(with_frames) >= 3 * 3, sum(with_frames)
    for k in range(n - 1, -1, -1):                                 # back again, to the first
        if k < n - 1:
            action(win, "K").trigger()
        settle(qtbot, win)
        assert state.question == int(state.order[k])
        check_target_frames(qtbot, win, state, root)


def highlighted_question(win) -> int:
    table, model = win.browser.table, win.browser.model
    idx = table.currentIndex()
    assert idx.isValid()
    rows = {i.row() for i in table.selectionModel().selectedRows()}
    assert rows == {idx.row()}, "the selection is the current row"
    return int(model.rows[idx.row()])


def click_row(qtbot, win, row: int) -> None:
    table = win.browser.table
    idx = win.browser.model.index(row, 1)
    table.scrollTo(idx)
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(idx).center())
    settle(qtbot, win)


def test_every_header_sort_keeps_the_shown_question_highlighted_and_a_click_shows_another(qtbot, window):
    win, state = window
    model, header = win.browser.model, win.browser.table.horizontalHeader()
    click_row(qtbot, win, 5)
    for col in range(model.columnCount()):
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            shown = state.question
            header.setSortIndicator(col, order)                  # what a header click does
            settle(qtbot, win)
            assert state.question == shown, "sorting changes the order, not the question"
            assert highlighted_question(win) == shown, (model.key_of_column(col), order)
            assert list(state.order) == list(model.rows)
            # Another row, clicked: it is shown and highlighted.
            other = (model.position_of(shown) + 7) % len(model.rows)
            click_row(qtbot, win, other)
            assert state.question == int(model.rows[other]) == highlighted_question(win)
    # Then a filter: the shown question stays highlighted, or the first listed is shown.
    win.browser.column_box.setCurrentIndex(2)
    settle(qtbot, win)
    assert highlighted_question(win) == state.question


def test_sorting_by_error_ranks_columns_of_different_units_by_their_tolerance(qtbot, window):
    win, state = window
    model, rel = win.browser.model, win.session.release
    header = win.browser.table.horizontalHeader()
    header.setSortIndicator(model.column_of(("error", 0)), Qt.SortOrder.DescendingOrder)
    settle(qtbot, win)
    r = win.session.results[0]
    shares = []
    for qi in model.rows:
        kind = rel.questions[qi].kind
        if r.error[qi] == r.error[qi]:                       # not NaN
            shares.append(r.error[qi] / (kind.error_scale or 1.0))
    assert shares == sorted(shares, reverse=True)
    # Map points (errors in the hundreds) do not all rank above every angle any more.
    kinds = [rel.questions[qi].kind.name for qi in model.rows[:len(shares)]]
    first_angle = kinds.index("angle")
    assert first_angle < max(k for k, name in enumerate(kinds) if name == "point")
    # "error >" says its unit: mixed over every column, degrees on an angle column alone.
    assert "mixed units" in win.compare_bar.error_min.suffix()
    angle_column = next(k for k, c in enumerate(rel.benchmark.columns) if c.kind_name == "angle")
    box = win.browser.column_box
    box.setCurrentIndex(box.findData(angle_column))
    settle(qtbot, win)
    assert win.compare_bar.error_min.suffix() == "°"


def test_each_comparison_puts_b_beside_a(qtbot, window):
    win, state = window
    model, box = win.browser.model, win.compare_bar.compare_box
    b_box = win.compare_bar.b_box
    for key in COMPARISONS:
        box.setCurrentIndex(box.findData(key))
        settle(qtbot, win)
        if key in NEEDS_B:
            b_box.setCurrentIndex(b_box.findData(2))              # the last model: B, not next to A unasked
            settle(qtbot, win)
        f = state.filter
        assert f.compare == key
        # The models' columns ((name, model) keys), not the trailing ones (the target's k, ui/target_k.py).
        per_model = [k for k in (model.key_of_column(c) for c in range(5, model.columnCount()))
                     if isinstance(k, tuple)]
        owners = [m for _name, m in per_model]
        assert owners[:3] == [f.model] * 3, "A's answer, error and score first"
        if key in NEEDS_B:
            assert f.model_b == 2
            assert owners[3:6] == [f.model_b] * 3, (key, owners)
            # Beside A on screen too: B's answer column starts where A's score column ends.
            x = [win.browser.table.columnViewportPosition(c) for c in (7, 8)]
            assert x[1] == x[0] + win.browser.table.columnWidth(7)
            # And in view: the less useful columns give B's answers their room (no sideways scroll).
            table = win.browser.table
            b_score = model.column_of(("score", f.model_b))
            assert table.columnViewportPosition(b_score) + table.columnWidth(b_score) <= table.viewport().width()
        else:
            assert owners == sorted(owners, key=lambda m: (m != f.model, m))
    box.setCurrentIndex(box.findData("none"))
    settle(qtbot, win)


def _fits(fm, text: str, width: int) -> bool:
    return fm.horizontalAdvance(text) <= width


def _legend_labels(plot) -> list:
    return [label for _sample, label in plot.legend.items]


def assert_legend_whole(plot, names):
    """Every model named in the plot's legend, in full, inside the widget."""
    labels = _legend_labels(plot)
    texts = [label.text for label in labels]
    for name in names:
        assert name in texts, (name, texts)
    for label in labels:
        box = label.item.mapRectToScene(label.item.boundingRect())
        assert box.left() >= 0 and box.right() <= plot.width() + 0.5, (label.text, box, plot.width())
        assert box.bottom() <= plot.height() + 0.5, (label.text, box, plot.height())


def test_model_names_are_whole_in_headers_tables_and_legends(qtbot, window):
    win, state = window
    rel = win.session.release
    header = win.browser.table.horizontalHeader()
    fm = header.fontMetrics()
    model = win.browser.model
    named = 0
    for col in range(model.columnCount()):
        text = str(model.headerData(col, Qt.Orientation.Horizontal))
        for line in text.split("\n"):
            if line in DEMO_MODELS:
                named += 1
            assert _fits(fm, line, header.sectionSize(col)), (line, header.sectionSize(col))
    assert named == len(DEMO_MODELS), "each model named once over its columns"

    # A direction question: the dial, the map and the 3D legend name every model.
    qi = next(i for i, q in enumerate(rel.questions) if q.kind is not None and q.kind.name == "angle")
    state.question = qi
    settle(qtbot, win)
    answers = win.sample_view.answers
    afm = answers.fontMetrics()
    for m, name in enumerate(DEMO_MODELS):
        item = answers.item(m, 0)
        assert item.text().endswith(name)
        assert _fits(afm, item.text(), answers.columnWidth(0) - 24), (name, answers.columnWidth(0))
    assert_legend_whole(win.sample_view.charts["dial"], DEMO_MODELS)
    assert_legend_whole(win.sample_view.map_panel.view, DEMO_MODELS)

    win.sample_view.tabs.setCurrentIndex(1)
    settle(qtbot, win)
    legend = win.sample_view.view3d.legend
    from PyQt6.QtGui import QTextDocument
    doc = QTextDocument()
    doc.setHtml(legend.text())
    for name in DEMO_MODELS:
        assert name in doc.toPlainText()
    assert legend.heightForWidth(legend.width()) <= legend.height(), "wrapped, every line shown"
    info = win.sample_view.view3d.info
    assert not info.geometry().intersects(legend.geometry()), "the triangle count beside, not over, the legend"
    win.sample_view.tabs.setCurrentIndex(0)

    # The video's scrubber spans its pane.
    player = win.sample_view.player
    assert player.slider.width() >= 0.9 * player.width()


def test_docks_get_room_and_keep_it_and_problems_say_none(qtbot, window, settings):
    win, state = window
    for dock, share in ((win.plots_dock, 0.27), (win.audit_dock, 0.33)):
        dock.raise_()
        qtbot.waitUntil(lambda d=dock, s=share: d.height() >= s * win.height(), timeout=5000)
    win.board_dock.raise_()
    qtbot.waitUntil(lambda: win.board_dock.height() < 0.3 * win.height(), timeout=5000)
    win.problems_dock.raise_()
    if win.problems.count() == 0:
        assert win.problems.EMPTY == "No problems in the input."
    win.save_layout()
    heights = json.loads(settings.value("docks/heights"))
    assert heights["dock_plots"] >= 0.27 * win.height() and heights["dock_audit"] >= 0.33 * win.height()


def test_a_model_renamed_in_the_models_tab_is_renamed_everywhere(qtbot, window):
    win, state = window
    layers = win.layers
    item = layers.item(1)
    item.setText("baseline")
    qtbot.waitUntil(lambda: state.models[1] == "baseline", timeout=5000)
    assert win.session.results[1].model == "baseline"
    model = win.browser.model
    assert any("baseline" in str(model.headerData(c, Qt.Orientation.Horizontal)) for c in range(model.columnCount()))
    layers.item(2).setText("baseline")                          # taken: refused, and said
    qtbot.waitUntil(lambda: "already called" in win.status_label.text(), timeout=5000)
    assert state.models[2] == "sign-flipper" and layers.item(2).text() == "sign-flipper"


# ---------------------------------------------------------------- 1280 x 800, the smaller screen
NARROW = (1280, 800)
MAP_MIN_WIDTH = 250           # pixels of map view below which a map of a room is not read


def assert_chart_whole(chart):
    """The chart's own items (dial, labels) inside the widget: no corner cut."""
    box = chart.item.mapRectToScene(chart.item.boundingRect())
    assert box.left() >= -0.5 and box.top() >= -0.5, box
    assert box.right() <= chart.width() + 0.5 and box.bottom() <= chart.height() + 0.5, (box, chart.size())


def assert_dial_labels_whole(dial):
    """ "0° ahead" and the other labels inside the dial's view, not cut at its edge."""
    view = dial.vb.mapRectToScene(dial.vb.boundingRect())
    for text in dial._labels:
        box = text.mapRectToScene(text.boundingRect())
        assert view.top() - 0.5 <= box.top() and box.bottom() <= view.bottom() + 0.5, (text.toPlainText(), box, view)
        assert view.left() - 0.5 <= box.left() and box.right() <= view.right() + 0.5, (text.toPlainText(), box, view)


def test_at_1280_by_800_the_map_its_legend_the_dial_and_the_plots_are_whole(qtbot, inspect_demo):
    win, state = inspect_demo(size=NARROW)
    assert (win.width(), win.height()) == NARROW
    rel = win.session.release
    # The filters wrap: the browser no longer holds the window wide, the sample view has its room.
    assert win.browser_dock.width() <= 0.4 * win.width(), win.browser_dock.width()
    for row in (win.browser, win.compare_bar):
        assert row.minimumSizeHint().width() <= 0.4 * win.width(), (row, row.minimumSizeHint())
    qi = next(i for i, q in enumerate(rel.questions) if q.kind is not None and q.kind.name == "angle")
    state.question = qi
    settle(qtbot, win)
    view = win.sample_view.map_panel.view
    assert view.width() >= MAP_MIN_WIDTH, view.width()
    assert view.vb.width() >= MAP_MIN_WIDTH - 20 and view.vb.height() >= 90, view.vb.size()
    for plot in (view, win.sample_view.charts["dial"]):
        assert_legend_whole(plot, DEMO_MODELS)
        labels = _legend_labels(plot)
        fm = QFontMetrics(labels[0].item.font())
        for label in labels:                                  # each entry's text has its item's width
            assert _fits(fm, label.item.toPlainText(), label.item.boundingRect().width()), label.text
    dial = win.sample_view.charts["dial"]
    assert_chart_whole(dial)
    assert_dial_labels_whole(dial)
    # A distance question: the bars' legend (the MRA bands) whole beside the map.
    state.question = next(i for i, q in enumerate(rel.questions) if q.kind is not None and q.kind.chart == "bars")
    settle(qtbot, win)
    bars = win.sample_view.charts["bars"]
    assert _legend_labels(bars), "the MRA bands are named"
    assert_legend_whole(bars, ())
    assert_legend_whole(view, DEMO_MODELS)

    # The plots dock: the status plot's colour key within its plot, every plot of the row given room.
    win.plots_dock.raise_()
    qtbot.waitUntil(lambda: win.plots.isVisible() and win.plots.graphics.width() > 0, timeout=5000)
    settle(qtbot, win)
    qtbot.wait(50)
    plots = win.plots
    state.question = qi                                       # the direction question again, in a lower pane
    settle(qtbot, win)
    assert_dial_labels_whole(dial)
    status = plots.status_plot
    title = status.titleLabel
    assert title.toolTip()
    assert title.item.boundingRect().width() <= status.width() + 0.5, (title.item.boundingRect(), status.width())
    doc = title.item.document()
    assert all(g in doc.toPlainText() for g in ("scored", "flagged", "unparsed", "missing"))
    shown = [p for p in plots.graphics.ci.items if hasattr(p, "vb") and p.isVisible()]
    right = max(p.mapRectToScene(p.boundingRect()).right() for p in shown)
    assert right <= plots.graphics.width() + 0.5, "no plot runs past the dock's edge"
    assert min(p.vb.width() for p in shown) >= 60, [p.vb.width() for p in shown]
    for p in shown:                                           # every title within its plot, said whole
        if p.titleLabel.isVisible():
            assert p.titleLabel.item.boundingRect().width() <= p.width() + 0.5, p.titleLabel.text
    box = plots.column_box
    assert box.fontMetrics().horizontalAdvance(box.currentText()) <= box.width() - 20, box.currentText()


def score_in_view(win) -> None:
    """The selected model's score column whole in the browser's viewport, with no sideways scroll."""
    table, model = win.browser.table, win.browser.model
    col = model.column_of(("score", win.state.filter.model))
    right = table.columnViewportPosition(col) + table.columnWidth(col)
    assert table.horizontalScrollBar().value() == 0
    assert not table.isColumnHidden(col) and right <= table.viewport().width(), (right, table.viewport().width())


def test_at_1600_the_browser_shows_the_selected_models_columns(qtbot, window):
    win, state = window
    score_in_view(win)
    table, model = win.browser.table, win.browser.model
    assert not any(table.isColumnHidden(c) for c in range(model.columnCount())), "room for every column"
    assert win.sample_view.map_panel.view.width() >= 300


def test_at_1280_the_selected_models_score_is_in_view_and_the_answers_headers_whole(qtbot, inspect_demo):
    from viewer.ui.browser import UID_MIN_CHARS
    win, state = inspect_demo(size=NARROW)
    table, model = win.browser.table, win.browser.model
    fm = table.fontMetrics()
    for m in (0, 1, 2, 0):                  # every model selected in turn (their names' widths differ)
        win.browser.model_box.setCurrentIndex(win.browser.model_box.findData(m))
        settle(qtbot, win)
        score_in_view(win)
        # The uid stays readable (elided in the middle), the truth and the model's answer stay.
        assert table.columnWidth(model.column_of("uid")) >= fm.horizontalAdvance("0" * UID_MIN_CHARS)
        for key in ("uid", "truth", ("answer", m), ("error", m)):
            assert not table.isColumnHidden(model.column_of(key)), key
    # A column the user asks for from the header's menu comes back (and the table scrolls sideways then).
    hidden = [k for k in ("row", "scene", "column") if table.isColumnHidden(model.column_of(k))]
    assert hidden, "at 1280 the browser is too narrow for every column"
    win.browser.show_column(hidden[0], True)
    assert not table.isColumnHidden(model.column_of(hidden[0]))
    win.browser.show_column(hidden[0], False)
    score_in_view(win)
    # The answers table's headers whole.
    answers = win.sample_view.answers
    header = answers.horizontalHeader()
    hfm = QFontMetrics(header.font())
    for c in range(answers.columnCount()):
        text = answers.horizontalHeaderItem(c).text()
        assert hfm.horizontalAdvance(text) + 8 <= header.sectionSize(c), (text, header.sectionSize(c))
        assert answers.horizontalHeaderItem(c).toolTip()


# ---------------------------------------------------------------- sorting by score by default
def test_the_browser_opens_sorted_by_the_selected_models_score_worst_first(qtbot, window):
    import numpy as np
    win, state = window
    r = win.session.results[state.filter.model]
    assert state.sort == (("score", 0), False)
    scores = r.score[state.order]
    known = scores[~np.isnan(scores)]
    assert len(known) and np.all(np.diff(known) >= 0), "worst first"
    assert np.all(np.isnan(scores[len(known):])), "unscored last"
    assert state.question == int(state.order[0]) == highlighted_question(win)
    hh = win.browser.table.horizontalHeader()
    assert hh.sortIndicatorSection() == win.browser.model.column_of(("score", 0))
    assert "worst first" in str(win.browser.model.headerData(hh.sortIndicatorSection(), Qt.Orientation.Horizontal,
                                                              Qt.ItemDataRole.ToolTipRole))
    # Another model chosen: the default sort follows it, and the shown question stays highlighted.
    win.browser.model_box.setCurrentIndex(win.browser.model_box.findData(2))
    settle(qtbot, win)
    assert state.sort == (("score", 2), False)
    s2 = win.session.results[2].score[state.order]
    s2 = s2[~np.isnan(s2)]
    assert np.all(np.diff(s2) >= 0)
    assert highlighted_question(win) == state.question
    # A sort the user chose stays when the model changes.
    hh.setSortIndicator(win.browser.model.column_of("uid"), Qt.SortOrder.AscendingOrder)
    settle(qtbot, win)
    win.browser.model_box.setCurrentIndex(win.browser.model_box.findData(1))
    settle(qtbot, win)
    assert state.sort == ("uid", False) and highlighted_question(win) == state.question


def test_a_renamed_model_is_found_by_a_saved_view_and_keeps_its_frame_policy(qtbot, window):
    from viewer.core.frames.sampling import parse_policy
    win, state = window
    bar = win.compare_bar
    policy = parse_policy("uniform:16")
    state.filter = BrowseFilter(model=1, model_b=0)
    win.models_eye.policy.setCurrentText("uniform:16")
    win.models_eye._policy_edited()
    assert state.frame_policies.policy_of("random-guesser") == policy
    assert bar.save_view("guesser")
    win.layers.item(1).setText("baseline")                     # the Models tab's rename
    qtbot.waitUntil(lambda: state.models[1] == "baseline", timeout=5000)
    settle(qtbot, win)
    assert state.frame_policies.policy_of("baseline") == policy
    assert win.models_eye.policy_text() == "uniform:16"
    state.filter = BrowseFilter(model=0, model_b=2)
    assert bar.open_view("guesser")                             # saved under the old name
    assert state.filter.model == 1 and "skipped" not in win.status_label.text()
    assert bar.save_view("baseline view")
    bar.close_store()
    bar._session_changed()                                      # the views database opened again
    state.filter = BrowseFilter(model=0, model_b=2)
    assert bar.open_view("baseline view") and state.filter.model == 1


@pytest.mark.parametrize("width", [240, 420])
def test_the_distance_bars_value_labels_are_whole_in_a_narrow_pane(qtbot, width):
    """ "6.0 m (76%)" was cut at the pane's edge beside the map (the chart's narrowest pane is 240 px)."""
    from viewer.ui.answer_charts import DistanceBars
    bars = DistanceBars()
    bars.resize(width, 330)
    bars.show()
    bars.set_answer(3.4, [(0, 2.8), (1, 6.0), (2, 3.4)], list(DEMO_MODELS))
    texts = [it for it in bars._layer.childItems() if hasattr(it, "text") and it.text().strip()]
    assert sorted(t.text().strip() for t in texts) == sorted(bars.value_texts) and "6.0 m (76%)" in bars.value_texts

    def cut():
        """The labels running past the plot's right edge (screen-sized text: its width is in pixels)."""
        view = bars.vb.mapRectToScene(bars.vb.boundingRect())
        return [(t.text(), t.scenePos().x() + t.boundingRect().width(), view.right()) for t in texts
                if t.scenePos().x() + t.boundingRect().width() > view.right() + 0.5]
    qtbot.waitUntil(lambda: bars.vb.width() > 0, timeout=3000)
    qtbot.wait(150)                                                   # laid out: its legend placed, the range set
    assert not cut()
    bars.resize(width + 60, 330)                                      # and after a resize
    qtbot.wait(150)
    assert not cut()
    bars.hide()
