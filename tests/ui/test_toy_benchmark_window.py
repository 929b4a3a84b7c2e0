"""Toy-Bench (tests/toy_bench.py), a benchmark defined in the tests alone, in the window: every question
shows its prompt and the model's answer as its own kind writes it, in file order, sorted and filtered,
and predictions added later are read through the session (its parse profile, its own format)."""
from __future__ import annotations

from dataclasses import replace

import pytest
import toy_bench as toy
from PyQt6.QtCore import Qt
from ui_helpers import settle


@pytest.fixture
def toy_window(make_inspector, tmp_path):
    toy.registered()
    try:
        release = toy.write_release(tmp_path / "toy-release")
        answers = toy.write_answers(tmp_path / "colour-bot.toy")
        yield make_inspector(release, [answers], uid="t1")
    finally:
        toy.unregister_all()


WANT = {"t1": "blue", "t2": "red", "t3": "5", "t4": "yellow", "t5": "", "t6": "5"}   # the answers column


def _walk(qtbot, win, state) -> list[str]:
    """Step through the browser's order from its first row as a user does; each question's uid."""
    state.question = int(state.order[0])
    seen = []
    for pos in range(len(state.order)):
        if pos:
            state.step(+1)
        settle(qtbot, win)
        q = state.current
        seen.append(q.uid)
        answers = win.sample_view.answers
        assert win.browser.table.currentIndex().row() == pos
        assert answers.item(0, 1).text().startswith(WANT[q.uid]), (q.uid, answers.item(0, 1).text())
        assert q.texts[0] in win.sample_view.prompt.toPlainText()
        # The colour questions have no chart (their kind names none); the widths show the distance bars.
        assert win.sample_view.chart_stack.isVisible() == (q.column.key == "Width"), q.uid
    return seen


def test_every_question_shows_in_file_order_sorted_and_filtered(qtbot, toy_window):
    win, state = toy_window
    assert state.session.release.benchmark is toy.TOY and state.models == ("colour-bot",)
    assert state.current.uid == "t1"
    # The browser opens sorted by the model's score, worst first (the unreadable door first); "#": file order.
    opened = _walk(qtbot, win, state)
    scores = [float(state.session.results[0].score[state.session.release.index[u]]) for u in opened]
    assert scores == sorted(scores) and opened[0] == "t5" and state.sort == (("score", 0), False)
    b = win.browser
    b.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    settle(qtbot, win)
    assert _walk(qtbot, win, state) == [q["id"] for q in toy.QUESTIONS]

    score_column = b.model.column_of(("score", 0))                         # "colour-bot score"
    b.table.sortByColumn(score_column, Qt.SortOrder.AscendingOrder)
    settle(qtbot, win)
    seen = _walk(qtbot, win, state)
    scores = [float(state.session.results[0].score[state.session.release.index[u]]) for u in seen]
    assert scores == sorted(scores) and seen[0] == "t5"                  # the unreadable door first

    state.filter = replace(state.filter, columns=frozenset({toy.TOY.keys.index("Door")}))
    settle(qtbot, win)
    assert _walk(qtbot, win, state) == ["t5", "t2"]
    state.step(-1)                                                       # back to t5: its kind's status
    settle(qtbot, win)
    assert state.current.uid == "t5" and win.sample_view.answers.item(0, 4).text().startswith(toy.NO_COLOUR)
    state.filter = replace(state.filter, columns=None)
    b.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)                 # back to file order
    settle(qtbot, win)
    assert _walk(qtbot, win, state) == [q["id"] for q in toy.QUESTIONS]


def test_predictions_added_later_are_read_by_the_session_in_its_own_format(qtbot, toy_window, tmp_path):
    from viewer.core.answers import LENIENT
    win, state = toy_window
    state.session.profile = LENIENT
    later = toy.write_answers(tmp_path / "later.toy", "always-red", {k: "red" for k in toy.ANSWERS})
    with qtbot.waitSignal(win.predictionsAdded, timeout=30000):
        win.add_predictions([later])
    settle(qtbot, win)
    assert state.models == ("colour-bot", "always-red")
    result = state.session.result("always-red")
    assert result.source == str(later)
    assert [toy.COLOURS[int(v)] for v in result.answer[[0, 1, 3, 4], 0]] == ["red"] * 4
    # Scored by the session: under its profile, through its parse cache.
    assert result.profile == LENIENT and (toy.COLOUR.name, LENIENT) in state.session.parse_cache
