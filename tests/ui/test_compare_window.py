"""Comparing models in the window (issue 16): linked plots, comparison filters, layers, timeline, keys."""
from dataclasses import replace

import numpy as np
import pytest
from PyQt6.QtCore import QPoint, Qt
from ui_helpers import settle

from viewer.assets import assets_dir
from viewer.core import primitives as pr

DEMO = assets_dir() / "demo"
pytestmark = pytest.mark.skipif(not (DEMO / "questions.jsonl").is_file(), reason="no bundled demo")


@pytest.fixture
def demo(inspect_demo):
    return inspect_demo(size=(1600, 1000))


def _show_column(state, kind_name: str) -> int:
    rel = state.session.release
    qi = next(i for i in range(len(rel)) if rel.questions[i].kind is not None
              and rel.questions[i].kind.name == kind_name)
    state.question = qi
    return int(rel.column[qi])


def test_brushing_the_histogram_filters_the_browser(qtbot, demo):
    w, state = demo
    w.plots_dock.raise_()                          # brushed where the user sees the plots
    col = _show_column(state, "angle")
    settle(qtbot, w)
    plots = w.plots
    assert plots.column == col and plots.histogram is not None
    m = state.filter.model
    plots.brush.setRegion((20.0, 90.0))            # as a drag ends: sigRegionChangeFinished
    plots.brush.sigRegionChangeFinished.emit(plots.brush)
    settle(qtbot, w)
    err = state.session.results[m].error
    rel = state.session.release
    want = {i for i in range(len(rel)) if rel.column[i] == col and np.isfinite(err[i]) and 20 <= err[i] <= 90}
    assert want and set(w.browser.model.rows.tolist()) == want
    assert set(state.order.tolist()) == want
    plots.clear_range()                  # the column stays chosen; the error range goes
    assert set(w.browser.model.rows.tolist()) == set(np.flatnonzero(rel.column == col).tolist())


def test_clicking_a_scatter_point_selects_its_question(qtbot, demo):
    w, state = demo
    _show_column(state, "distance")
    settle(qtbot, w)
    plots = w.plots
    w.board_dock.hide()                   # the plots tab shows (it is tabbed with the leaderboard)
    w.plots_dock.show()
    w.plots_dock.raise_()
    qtbot.waitUntil(lambda: plots.isVisible() and plots.graphics.width() > 300)
    plots.redraw()
    sc = plots.scatter
    k = int(np.argmax(sc.rows != state.question))
    target = int(sc.rows[k])
    view_pos = plots.graphics.mapFromScene(plots.point_scene_pos(k))
    qtbot.mouseClick(plots.graphics.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(view_pos.x(), view_pos.y()))
    qtbot.waitUntil(lambda: state.question == target, timeout=3000)
    assert state.uid == state.session.release.uids[target]
    # the question shown is highlighted in the scatter
    hx, hy = plots.scatter_now.getData()
    assert len(hx) == 1 and np.isclose(hx[0], np.log10(sc.x[k])) and np.isclose(hy[0], np.log10(sc.y[k]))


def test_a_right_b_wrong_on_the_demo(qtbot, demo):
    w, state = demo
    bar = w.compare_bar
    bar.compare_box.setCurrentIndex(bar.compare_box.findData("a_right_b_wrong"))
    bar.b_box.setCurrentIndex(bar.b_box.findData(1))
    settle(qtbot, w)
    f = state.filter
    assert (f.compare, f.model, f.model_b) == ("a_right_b_wrong", 0, 1)
    a, b = (state.session.results[m].score for m in (0, 1))
    want = {i for i in range(len(a)) if a[i] >= 1.0 and b[i] < 1.0}
    assert want and set(w.browser.model.rows.tolist()) == want
    # combined with the column filter
    col = int(state.session.release.column[min(want)])
    state.filter = replace(state.filter, columns=frozenset({col}))
    assert set(w.browser.model.rows.tolist()) == {i for i in want if state.session.release.column[i] == col}


def test_saved_view_opens_with_missing_models_skipped(qtbot, demo):
    w, state = demo
    bar = w.compare_bar
    state.filter = replace(state.filter, compare="both_wrong", model=2, model_b=1)
    state.visible_models = frozenset({1, 2})
    assert bar.save_view("flipper vs guesser")
    doc = bar.store.documents()["flipper vs guesser"]
    doc["visible"].append("gone-model")
    bar.store.save("with a gone model", doc)
    state.filter = replace(state.filter, compare="none")
    state.visible_models = frozenset({0, 1, 2})
    messages = []
    bar.message.connect(messages.append)
    assert bar.open_view("with a gone model")
    assert state.filter.compare == "both_wrong" and state.filter.model == 2 and state.visible_models == {1, 2}
    assert "gone-model" in messages[-1]
    names = [a.text() for a in (bar.fill_menu() or bar.views_menu.actions())]
    assert "flipper vs guesser" in names


def test_hiding_a_model_removes_it_from_the_map_and_a_figure(qtbot, demo, tmp_path):
    w, state = demo
    _show_column(state, "point")
    settle(qtbot, w)

    def drawn_models():
        ov = w.sample_view.map_panel.view.overlay
        return {it.model for it in ov.drawn() if it.role == pr.MODEL}
    assert 1 in drawn_models()
    name = state.models[1]
    assert w.talk.export_figure(str(tmp_path / "all.svg"), "panel", 1.0)
    assert name in (tmp_path / "all.svg").read_text()
    layer = w.layers.item(1)
    layer.setCheckState(Qt.CheckState.Unchecked)          # the Models list's check box
    settle(qtbot, w)
    assert 1 not in state.visible_models and 1 not in drawn_models() and 0 in drawn_models()
    assert w.talk.export_figure(str(tmp_path / "hidden.svg"), "panel", 1.0)
    assert name not in (tmp_path / "hidden.svg").read_text()


def test_timeline_marks_equal_the_release_appear_frames(qtbot, demo):
    w, state = demo
    col = _show_column(state, "angle")
    settle(qtbot, w)
    q, g = state.current, state.geometry
    rec = g.video.instances[q.target]
    slider = w.sample_view.player.slider
    assert slider.seen == tuple(sorted(set(rec["appear_frames"]) | {rec["best_frame_idx"]}))
    assert slider.best == rec["best_frame_idx"]
    assert slider.view_frame is not None
    w._best_frame()
    settle(qtbot, w)
    assert state.frame == rec["best_frame_idx"]
    assert col is not None


def test_keys_and_command_palette_list_every_action(qtbot, demo):
    from viewer.ui.command_palette import keys_text, window_actions
    w, _state = demo
    text = keys_text(w)
    lines = text.splitlines()
    for key, name in (("F5", "Presentation mode"), ("Ctrl+K", "Command palette"),
                      ("B", "Jump to the target's best frame"), ("J", "Next sample")):
        assert any(line.startswith(f"{key}: ") and name in line for line in lines), (key, text)
    names = [n for n, _ in window_actions(w)]
    assert any("Export leaderboard" in n for n in names)
    w.palette_popup.open()
    qtbot.keyClicks(w.palette_popup.search, "leaderboard")
    assert w.palette_popup.list.count() >= 1
    assert "Export leaderboard" in w.palette_popup.list.item(0).text()
    w.palette_popup.close()


def test_browser_shows_the_selected_model_after_the_truth(qtbot, demo):
    w, state = demo
    model = w.browser.model
    truth_col = next(c for c in range(model.columnCount()) if model.key_of_column(c) == "truth")
    assert model.key_of_column(truth_col + 1) == ("answer", 0)
    state.filter = replace(state.filter, model=2)
    assert model.key_of_column(truth_col + 1) == ("answer", 2)
    assert model.key_of_column(truth_col + 3) == ("score", 2)
    # the uid column shows the tail, the tooltip the whole uid
    i = int(model.rows[0])
    idx = model.index(0, 1)
    uid = state.session.release.uids[i]
    assert model.data(idx, Qt.ItemDataRole.ToolTipRole) == uid
    assert len(model.data(idx)) < len(uid)
    # the selected model's answer is on screen at 1600x1000
    rect = w.browser.table.visualRect(model.index(0, truth_col + 1))
    assert rect.right() <= w.browser.table.viewport().width()
    # the map keeps at least half the centre's width
    assert w.sample_view.tabs.width() >= w.sample_view.width() / 2


def test_leaderboard_export(qtbot, demo, tmp_path):
    w, state = demo
    state.visible_models = frozenset({0, 2})
    w.leaderboard.export(str(tmp_path / "t.tex"))
    tex = (tmp_path / "t.tex").read_text()
    assert "\\toprule" in tex and state.models[1] not in tex and state.models[2] in tex
    w.leaderboard.export(str(tmp_path / "t.csv"))
    assert (tmp_path / "t.csv").read_text().startswith("Model,")


def test_3d_legend_names_the_shown_models(qtbot, demo):
    from viewer.ui.view3d import legend_html
    w, state = demo
    _show_column(state, "angle")
    settle(qtbot, w)
    from viewer.core.overlays import scene_overlay_3d
    ov = scene_overlay_3d(state.current, state.question, state.shown_results(), state.geometry)
    text = legend_html(ov, list(state.models))
    assert all(m in text for m in state.models) and "truth" in text
    state.visible_models = frozenset({0})
    ov = scene_overlay_3d(state.current, state.question, state.shown_results(), state.geometry)
    text = legend_html(ov, list(state.models))
    assert state.models[0] in text and state.models[1] not in text
