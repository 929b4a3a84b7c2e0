"""Docks made when first shown (issue 30): the plots dock and the answer charts are built when the user
first raises them, however they are raised, and then show the question on screen, also after stepping."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
from PyQt6.QtCore import QSettings
from ui_helpers import open_release, settle


@pytest.fixture
def demo_copy(tmp_path):
    from viewer.assets import assets_dir
    root = tmp_path / "demo"
    shutil.copytree(assets_dir() / "demo", root)
    return root, sorted((root / "predictions").glob("*.jsonl"))


def _column_of(state) -> int:
    return int(state.session.release.column[state.question])


def _kinds(state):
    rel = state.session.release
    return {rel.questions[i].kind.name: i for i in range(len(rel)) if rel.questions[i].kind is not None}


def _plots_show_the_question(win, state) -> None:
    plots = win.plots
    assert plots.column == _column_of(state)
    assert plots.histogram is not None and plots.hist_now.isVisible()
    h = plots.histogram
    k = int(np.flatnonzero(h.rows == state.question)[0])
    assert plots.hist_now.value() == min(float(h.values[k]), float(h.edges[-1]))
    assert win.score_vs_k.column == plots.column          # score vs k draws in the dock made late


def test_the_plots_dock_is_made_when_its_tab_is_first_raised(qtbot, inspect_demo):
    win, state = inspect_demo(size=(1600, 1000))
    assert not win.plots_dock.built and win.plots_dock.widget() is None      # not made at start
    kinds = _kinds(state)
    state.question = kinds["angle"]
    settle(qtbot, win)
    assert not win.plots_dock.built                     # stepping does not make it either
    win.plots_dock.raise_()                             # the user clicks its tab
    settle(qtbot, win)
    assert win.plots_dock.built and win.plots_dock.widget() is win.plots and win.plots.isVisible()
    _plots_show_the_question(win, state)
    state.question = kinds["distance"]                  # another column: the plots follow
    settle(qtbot, win)
    _plots_show_the_question(win, state)


def test_the_plots_dock_opened_from_the_view_menu_and_the_palette(qtbot, inspect_demo):
    from viewer.ui.command_palette import window_actions
    win, state = inspect_demo(size=(1600, 1000))
    state.question = _kinds(state)["distance"]
    settle(qtbot, win)
    action = win.plots_dock.toggleViewAction()
    assert action in [a for _text, a in window_actions(win)]      # the palette lists the menu's entry
    action.trigger()                                    # tabbed away but shown: the menu entry closes it...
    assert not win.plots_dock.isVisible() and not win.plots_dock.built
    action.trigger()                                    # ...and opens it again, raised
    win.plots_dock.raise_()
    settle(qtbot, win)
    assert win.plots_dock.built
    _plots_show_the_question(win, state)
    state.question = _kinds(state)["angle"]
    settle(qtbot, win)
    _plots_show_the_question(win, state)


def test_the_plots_dock_raised_in_a_restored_layout_is_made_at_start(qtbot, tmp_path, demo_copy):
    from viewer.ui.app import make_app
    from viewer.ui.main_window import MainWindow
    make_app()
    settings = QSettings(str(tmp_path / "layout.ini"), QSettings.Format.IniFormat)
    first = MainWindow(settings)
    qtbot.addWidget(first)
    first.resize(1600, 1000)
    first.show()
    first.plots_dock.raise_()
    qtbot.waitUntil(lambda: first.plots_dock.built)
    first.save_layout()
    first.close()
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.plots_dock.built)       # raised by the restored layout: made when shown
    root, preds = demo_copy
    open_release(qtbot, win, root, preds)
    state = win.state
    state.question = _kinds(state)["angle"]
    settle(qtbot, win)
    _plots_show_the_question(win, state)


def test_answer_charts_are_made_for_the_first_question_that_needs_one(qtbot, inspect_demo):
    win, state = inspect_demo(size=(1600, 1000))
    sv = win.sample_view
    kinds = _kinds(state)
    state.question = kinds["point"] if "point" in kinds else next(iter(kinds.values()))
    settle(qtbot, win)
    made = set(sv.charts)
    state.question = kinds["angle"]
    settle(qtbot, win)
    assert "dial" in sv.charts and sv.chart_stack.currentWidget() is sv.charts["dial"]
    assert sv.chart_stack.isVisible() and set(sv.charts) == made | {"dial"}
    state.question = kinds["distance"]
    settle(qtbot, win)
    assert sv.chart_stack.currentWidget() is sv.charts["bars"] and sv.chart_stack.count() == len(sv.charts)
