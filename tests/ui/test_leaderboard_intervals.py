"""The leaderboard's error bars (issue 32): each column's n, "41.9 ± 2.3" on demand, and the A − B row
with its significance marks while the browser compares two models; walked on, off and back."""
from dataclasses import replace

from ui_helpers import settle

from viewer.assets import default_release
from viewer.core.intervals import FEW_MARK

DEMO = default_release()
PREDS = [DEMO / "predictions" / f"{m}.jsonl" for m in ("noisy-expert", "random-guesser", "sign-flipper")]


def _row(board, label_start: str) -> int | None:
    for r in range(board.rowCount()):
        item = board.verticalHeaderItem(r)
        if item is not None and item.text().startswith(label_start):
            return r
    return None


def test_intervals_counts_and_the_paired_row(qtbot, make_inspector):
    win, state = make_inspector(DEMO, PREDS)
    board = win.leaderboard
    avg = board.columnCount() - 1
    header = board.horizontalHeaderItem(0)
    assert "n = " in header.toolTip() and header.text().endswith(FEW_MARK)     # the demo's columns are small
    assert "±" not in board.item(0, avg).text()

    board.intervals_action.setChecked(True)                 # on: every model's cell gets its interval
    assert all("±" in board.item(r, avg).text() for r in range(3))
    assert "bootstrap interval" in board.item(0, avg).toolTip()
    board.intervals_action.setChecked(False)                # and off again
    assert "±" not in board.item(0, avg).text()

    state.filter = replace(state.filter, compare="a_right_b_wrong", model=0, model_b=1)
    settle(qtbot, win)
    r = _row(board, "A − B")
    assert r is not None and "noisy-expert minus random-guesser" in board.verticalHeaderItem(r).toolTip()
    assert board.item(r, avg).text().endswith("*") and "significant at 5 %" in board.item(r, avg).toolTip()
    state.filter = replace(state.filter, model_b=2)         # another B: the row follows
    settle(qtbot, win)
    r = _row(board, "A − B")
    assert r is not None and "noisy-expert minus sign-flipper" in board.verticalHeaderItem(r).toolTip()
    state.filter = replace(state.filter, compare="none")    # comparison off: the row goes
    settle(qtbot, win)
    assert _row(board, "A − B") is None
    assert _row(board, "Random (uniform)") is not None
    board.cellClicked.emit(_row(board, "Random (uniform)"), 0)   # a reference row sets no filter
    assert state.filter.compare == "none"


def test_the_papers_rows_beside_the_loaded_models(qtbot, make_inspector):
    win, state = make_inspector(DEMO, PREDS[:1])
    board = win.leaderboard
    avg = board.columnCount() - 1
    board.published_action.setChecked(True)
    r = _row(board, "Gemini-3-Pro (paper)")
    assert r is not None and board.item(r, avg).text() == "42.7"          # the paper: 42.68
    assert "no interval, no paired test" in board.item(r, avg).toolTip()
    assert _row(board, "Human Level (20 samples/task) (paper)") is not None and _row(board, "noisy-expert") == 0
    assert not any("project page only" in (board.verticalHeaderItem(k).text() or "")
                   for k in range(board.rowCount()))                    # the paper's rows only
    board.published_action.setChecked(False)
    assert _row(board, "Gemini-3-Pro (paper)") is None
