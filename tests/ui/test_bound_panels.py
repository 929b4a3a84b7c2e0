"""The panels bound through ui/bindings, walked as a user does: each action changes the state once,
and the same fields set from the state side (saved views, leaderboard clicks) move every widget."""
from __future__ import annotations

import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from PyQt6.QtCore import Qt
from ui_helpers import settle

from viewer.core.benchmarks.gst.columns import COLUMN_KEYS
from viewer.core.browse import BrowseFilter
from viewer.core.map_choice import MapSource
from viewer.ui.browser import DEBOUNCE_MS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import scene_release as sr  # noqa: E402

DATA = Path(__file__).parent.parent / "data"
ED, POS, GP = (COLUMN_KEYS.index(k) for k in ("ED_v", "Pos", "GP_v"))


class Changes:
    """Emissions of state fields, counted from the moment it is made."""

    def __init__(self, state, *names):
        self.seen = {n: [] for n in names}
        for n in names:
            getattr(state.events, n).connect(self.seen[n].append)

    def __getitem__(self, name) -> int:
        return len(self.seen[name])

    def reset(self) -> None:
        for v in self.seen.values():
            v.clear()


def pick(box, data) -> None:
    """The user's pick in a combo box (by the item's data)."""
    k = box.findData(data)
    assert k >= 0, data
    box.setCurrentIndex(k)


def browser_shows(b, f: BrowseFilter) -> None:
    one = (lambda s: next(iter(s)) if s is not None and len(s) == 1 else None)
    assert b.column_box.currentData() == one(f.columns)
    assert b.scene_box.currentData() == one(f.scenes)
    assert b.model_box.currentData() == f.model
    assert b.status_box.currentData() == f.status
    assert b.verdict_box.currentData() == f.verdict
    assert b.pattern_box.currentData() == f.pattern
    assert b.search.text() == f.text
    assert (b.score_min.value(), b.score_max.value()) == (f.score_min, f.score_max)


def bar_shows(bar, f: BrowseFilter) -> None:
    assert bar.compare_box.currentData() == f.compare and bar.b_box.currentData() == f.model_b
    assert bar.error_on.isChecked() == (f.error_min is not None and f.error_max is None)
    if bar.error_on.isChecked():
        assert bar.error_min.value() == f.error_min


def no_late_write(qtbot, changes) -> None:
    """Nothing is written back once the browser's debounce has had time to fire."""
    before = changes["filter"]
    qtbot.wait(3 * DEBOUNCE_MS)
    assert changes["filter"] == before


def test_browser_and_compare_bar_walk(qtbot, make_inspector, real_samples, prediction_files):
    win, state = make_inspector(real_samples, prediction_files)
    b, bar = win.browser, win.compare_bar
    ch = Changes(state, "filter", "sort", "visible_models")
    # The user, one widget at a time: one change of the filter each.
    pick(b.column_box, ED)
    assert state.filter.columns == {ED} and ch["filter"] == 1
    pick(b.status_box, "failed")
    assert state.filter.status == "failed" and state.filter.columns == {ED} and ch["filter"] == 2
    pick(b.status_box, "any")
    pick(b.column_box, None)
    pick(b.model_box, 1)
    assert state.filter.model == 1 and ch["filter"] == 5
    b.search.setText("armchair")                          # typed: written once it pauses
    qtbot.waitUntil(lambda: state.filter.text == "armchair")
    assert ch["filter"] == 6 and len(state.order) == 2
    b.score_max.setValue(0.5)
    qtbot.waitUntil(lambda: state.filter.score_max == 0.5)
    assert ch["filter"] == 7
    b.search.setText("")
    b.score_max.setValue(1.0)
    qtbot.waitUntil(lambda: state.filter.text == "" and state.filter.score_max == 1.0)
    ch.reset()
    pick(bar.compare_box, "a_right_b_wrong")             # A is model 1: B becomes model 0, in the same change
    assert (state.filter.compare, state.filter.model, state.filter.model_b) == ("a_right_b_wrong", 1, 0)
    assert ch["filter"] == 1 and bar.b_box.currentData() == 0 and bar.b_box.isEnabled()
    pick(bar.compare_box, "none")
    bar.error_on.setChecked(True)
    assert (state.filter.error_min, state.filter.error_max) == (10.0, None) and ch["filter"] == 3
    bar.error_min.setValue(20.0)
    assert state.filter.error_min == 20.0 and ch["filter"] == 4
    bar.error_on.setChecked(False)
    assert state.filter.error_min is None and ch["filter"] == 5
    browser_shows(b, state.filter)
    bar_shows(bar, state.filter)
    # Sorted by a header click: one change of the sort; the table's order is the state's.
    col = b.model.column_of(("score", 0))
    b.table.sortByColumn(col, Qt.SortOrder.DescendingOrder)
    assert state.sort == (("score", 0), True) and ch["sort"] == 1
    assert state.order.tolist() == b.model.rows.tolist()
    no_late_write(qtbot, ch)

    # The same fields from the state side, by a saved view: every widget follows, nothing is written back.
    saved = BrowseFilter(columns=frozenset({POS}), model=0, model_b=1, status="parsed", text="pos",
                         score_min=0.25, compare="both_wrong", error_min=5.0)
    state.visible_models = frozenset({0})
    state.filter = saved
    state.sort = (("error", 1), False)
    assert bar.save_view("walk")
    state.visible_models = frozenset({0, 1})
    state.filter = BrowseFilter(model=1, model_b=0)
    state.sort = ("row", False)
    ch.reset()
    assert bar.open_view("walk")
    assert state.filter == saved and state.sort == (("error", 1), False) and state.visible_models == {0}
    assert (ch["filter"], ch["sort"], ch["visible_models"]) == (1, 1, 1)
    browser_shows(b, saved)
    bar_shows(bar, saved)
    assert (b.model.sort_key, b.model.descending) == (("error", 1), False)
    hh = b.table.horizontalHeader()
    assert hh.sortIndicatorSection() == b.model.column_of(("error", 1))
    assert hh.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert state.order.tolist() == b.model.rows.tolist()
    layers = win.layers
    assert [layers.item(m).checkState() == Qt.CheckState.Checked for m in range(2)] == [True, False]
    no_late_write(qtbot, ch)
    assert state.filter == saved and ch["filter"] == 1

    # A leaderboard click: model and column; the browser follows.
    ch.reset()
    state.filter = BrowseFilter(model=0, model_b=1)
    win.leaderboard.cellClicked.emit(1, POS)
    assert state.filter.model == 1 and state.filter.columns == {POS} and ch["filter"] == 2
    browser_shows(b, state.filter)
    no_late_write(qtbot, ch)


def test_the_sort_stays_when_predictions_are_added(qtbot, make_inspector, real_samples, prediction_files):
    """Adding a model's predictions rebuilt the table in row order while the state still said "by score"."""
    win, state = make_inspector(real_samples, prediction_files[:1])
    b = win.browser
    b.table.sortByColumn(b.model.column_of(("score", 0)), Qt.SortOrder.DescendingOrder)
    order = state.order.tolist()
    assert state.sort == (("score", 0), True) and order != sorted(order)
    with qtbot.waitSignal(win.predictionsAdded, timeout=30000):
        win.add_predictions([prediction_files[1]])
    assert state.sort == (("score", 0), True) and (b.model.sort_key, b.model.descending) == (("score", 0), True)
    assert state.order.tolist() == b.model.rows.tolist() == order
    hh = b.table.horizontalHeader()
    assert hh.sortIndicatorSection() == b.model.column_of(("score", 0))
    assert hh.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder


def test_a_filter_of_several_columns_survives_another_browser_box(qtbot, make_inspector, real_samples,
                                                                   prediction_files):
    """A leaderboard group (VSI's direction) or a saved view filters on several columns, which the column
    box shows as "All columns"; the user's next pick in another box kept them (it reset them before)."""
    win, state = make_inspector(real_samples, prediction_files)
    b = win.browser
    ch = Changes(state, "filter")
    state.filter = replace(state.filter, columns=frozenset({ED, POS, GP}), text="scene")
    assert b.column_box.currentIndex() == 0 and b.search.text() == "scene"
    no_late_write(qtbot, ch)                              # the text set from the state is not written back
    pick(b.status_box, "parsed")
    assert state.filter.columns == {ED, POS, GP} and state.filter.status == "parsed" and ch["filter"] == 2
    b.score_min.setValue(0.5)
    qtbot.waitUntil(lambda: state.filter.score_min == 0.5)
    assert state.filter.columns == {ED, POS, GP} and ch["filter"] == 3


def test_typing_is_not_lost_when_the_filter_changes_elsewhere(qtbot, make_inspector, real_samples,
                                                             prediction_files):
    win, state = make_inspector(real_samples, prediction_files)
    b = win.browser
    b.search.setText("armchair")                          # typed, not yet written ...
    pick(win.compare_bar.compare_box, "both_wrong")       # ... when another control changes the filter
    assert b.search.text() == "armchair"
    qtbot.waitUntil(lambda: state.filter.text == "armchair")
    assert state.filter.compare == "both_wrong"


def test_a_vsi_leaderboard_group_click_then_a_status_pick(qtbot, make_inspector, tmp_path):
    gemini = DATA / "vsi-gemini"
    scene = "scene0222_01"
    root = tmp_path / "vsi"
    root.mkdir()
    shutil.copy(gemini / "scannet_questions" / f"{scene}_questions.json", root)
    win, state = make_inspector(root, [gemini / "gemini_response" / f"{scene}_gemini_response.json"])
    lb = win.leaderboard
    bench = state.session.release.benchmark
    group = next(iter(bench.groups))
    lb.cellClicked.emit(0, bench.table_keys.index(group))
    members = frozenset(bench.members(group))
    assert len(members) == 3 and state.filter.columns == members
    n = len(state.order)
    assert win.browser.column_box.currentIndex() == 0
    pick(win.browser.status_box, "parsed")
    assert state.filter.columns == members and len(state.order) <= n


def test_the_plots_brush_follows_the_filter_without_writing_it(qtbot, inspect_demo):
    win, state = inspect_demo(size=(1600, 1000))
    win.plots_dock.raise_()
    rel = state.session.release
    state.question = next(i for i in range(len(rel)) if rel.questions[i].kind is not None
                          and rel.questions[i].kind.name == "angle")
    settle(qtbot, win)
    plots = win.plots
    assert plots.histogram is not None
    ch = Changes(state, "filter")
    top = float(plots.histogram.edges[-1])
    state.filter = replace(state.filter, error_min=0.2 * top, error_max=0.6 * top)  # set elsewhere (a saved view)
    assert plots.brush.isVisible() and plots.brush.getRegion() == pytest.approx((0.2 * top, 0.6 * top))
    assert ch["filter"] == 1 and state.filter.columns is None             # the brush wrote nothing back
    plots.brush.setRegion((0.3 * top, 0.5 * top))                          # the user's drag
    plots.brush.sigRegionChangeFinished.emit(plots.brush)
    assert ch["filter"] == 2
    assert (state.filter.error_min, state.filter.error_max) == pytest.approx((0.3 * top, 0.5 * top))
    assert state.filter.columns == {plots.column}
    assert not win.compare_bar.error_on.isChecked()                        # a closed range is the plots'
    plots.clear_range()
    assert not plots.brush.isVisible() and ch["filter"] == 3


def test_model_layers_walk(qtbot, make_inspector, real_samples, prediction_files):
    win, state = make_inspector(real_samples, prediction_files)
    layers = win.layers
    ch = Changes(state, "visible_models")
    layers.item(0).setCheckState(Qt.CheckState.Unchecked)
    assert state.visible_models == {1} and ch["visible_models"] == 1
    layers.item(0).setCheckState(Qt.CheckState.Checked)
    assert state.visible_models == {0, 1} and ch["visible_models"] == 2
    state.visible_models = frozenset({0})                                  # a saved view's
    assert [layers.item(m).checkState() for m in range(2)] == [Qt.CheckState.Checked, Qt.CheckState.Unchecked]
    assert ch["visible_models"] == 3


def test_map_source_walk(qtbot, make_inspector, tmp_path):
    root = sr.build(tmp_path / "release")
    win, state = make_inspector(root, [root / "m1.jsonl"], uid=sr.UIDS["Pos"])
    qtbot.waitUntil(lambda: state.geometry is not None, timeout=10000)
    settle(qtbot, win)
    box = win.sample_view.map_panel.source_box
    ch = Changes(state, "map_source")
    box.setCurrentIndex(box.findText("rendered: floor plan"))
    box.activated.emit(box.currentIndex())                                  # the user's pick
    assert state.map_source == MapSource.render("floorplan") and ch["map_source"] == 1
    settle(qtbot, win)
    other = next(box.itemData(k) for k in range(box.count()) if box.itemData(k) != state.map_source)
    state.map_source = other                                                # set elsewhere: the box follows
    settle(qtbot, win)
    assert box.currentData() == state.shown_map == other and ch["map_source"] == 2
    state.select_uid(sr.UIDS["GP_v"])                                       # refilled for the next question
    qtbot.waitUntil(lambda: state.geometry is not None, timeout=10000)
    settle(qtbot, win)
    assert box.currentData() == state.shown_map == other and ch["map_source"] == 2


def test_audit_dock_filter_walk(qtbot):
    from test_audit_panels import report

    from viewer.ui.audit_dock import AuditPanel
    panel = AuditPanel()
    qtbot.addWidget(panel)
    panel.set_report(report())
    ch = Changes(panel.filter, "check", "severity")
    pick(panel.severity_box, "error")                                       # the user's
    assert panel.filter.severity == "error" and ch["severity"] == 1
    assert [f.severity for f in panel.visible_findings()] == ["error", "error"]
    pick(panel.check_box, "query_near_trajectory")
    assert panel.filter.check == "query_near_trajectory" and ch["check"] == 1
    assert [f.uid for f in panel.visible_findings()] == ["q2"]
    panel.set_report(report())                                              # refilled: the choice stays
    assert panel.check_box.currentData() == "query_near_trajectory" and ch["check"] == 1
    assert [f.uid for f in panel.visible_findings()] == ["q2"]
    panel.set_filter(check="models_disagree_with_gt", severity="warning")   # the program's
    assert (panel.check_box.currentData(), panel.severity_box.currentData()) == \
        ("models_disagree_with_gt", "warning")
    assert (ch["check"], ch["severity"]) == (2, 2) and len(panel.visible_findings()) == 1
    panel.set_filter(check="no such check")
    assert panel.filter.check is None and panel.check_box.currentIndex() == 0
    assert len(panel.visible_findings()) == 4


def test_audit_dock_lists_the_checks_after_it_is_painted_and_keeps_a_chosen_check(qtbot):
    """Listing the checks imports every check module: done once the event loop runs, not in the show
    that precedes the window's first paint; a check chosen before then is kept, and the list is whole."""
    from viewer.core.audit import CHECKS
    from viewer.ui.audit_dock import AuditPanel
    panel = AuditPanel()
    qtbot.addWidget(panel)
    panel.show()
    assert panel.check_box.count() == 0                                     # not yet: the paint comes first
    qtbot.waitUntil(lambda: panel.check_box.count() > 1)
    assert [panel.check_box.itemData(i) for i in range(panel.check_box.count())] == [None, *CHECKS.ids()]
    panel.set_filter(check="models_disagree_with_gt")
    panel.hide()
    panel.show()                                                            # shown again: not listed twice
    qtbot.wait(20)
    assert panel.check_box.count() == 1 + len(CHECKS.ids())
    assert panel.check_box.currentData() == "models_disagree_with_gt"
