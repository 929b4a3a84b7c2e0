"""The answers table under the map at each question (issue 30): its view is told of the new texts once, not
once per cell (each told the header to size its columns again: 11 ms a question with 22 models), and still
shows every model's answer, error, score and raw text, in columns wide enough for them."""
from __future__ import annotations

from ui_helpers import settle

from viewer.core import browse


def test_a_question_tells_the_answers_view_once_and_every_cell_is_right(qtbot, inspect_demo):
    win, state = inspect_demo()
    table = win.sample_view.answers
    told = []
    table.model().dataChanged.connect(lambda *a: told.append(a))
    rel = state.session.release
    header = table.horizontalHeader()
    for qi in [*range(len(rel)), 0]:
        told.clear()
        state.question = qi
        settle(qtbot, win)
        assert len(told) <= 1, (qi, len(told))
        for m, r in enumerate(state.session.results):
            assert table.item(m, 0).text() == f"● {r.model}"
            assert table.item(m, 1).text() == browse.answer_text(r, rel, qi)
            assert table.item(m, 2).text() == browse.error_text(r, rel, qi)
            assert table.item(m, 3).text() == browse.score_text(r, qi)
            assert r.model in table.item(m, 4).text() or " ".join(str(r.raw[qi] or "").split()) \
                in table.item(m, 4).text()
            for c in (1, 2, 3):                         # sized to their contents, as each question is shown
                text = table.item(m, c).text()
                assert header.sectionSize(c) >= table.fontMetrics().horizontalAdvance(text), (qi, c, text)
