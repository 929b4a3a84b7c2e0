"""In the window, a prediction file of another benchmark gets no row and one line in Problems (issue 25)."""
import sys
from pathlib import Path

from ui_helpers import settle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from test_wrong_benchmark import DEMO, DEMO_PREDICTIONS, VSI_RESPONSES, _cv_bench_table  # noqa: E402


def _problems(win) -> list[str]:
    return [win.problems.item(k).text() for k in range(win.problems.count())]


def test_the_window_leaves_out_a_file_of_another_benchmark(qtbot, make_inspector, tmp_path):
    table = _cv_bench_table(tmp_path / "CV-Bench-3D.tsv")
    win, state = make_inspector(DEMO, [DEMO_PREDICTIONS, table])
    assert state.models == ("noisy-expert",)
    said = [t for t in _problems(win) if "CV-Bench-3D.tsv" in t]
    assert len(said) == 1 and "left out" in said[0], _problems(win)
    rows = [win.leaderboard.verticalHeaderItem(r).text() for r in range(win.leaderboard.rowCount())
            if win.leaderboard.verticalHeaderItem(r) is not None]
    assert not any("CV-Bench" in r for r in rows)
    win.add_predictions([VSI_RESPONSES])                     # added later: the same rule
    qtbot.waitUntil(lambda: any(VSI_RESPONSES.name in t for t in _problems(win)), timeout=20000)
    settle(qtbot, win)
    assert state.models == ("noisy-expert",)
    said = [t for t in _problems(win) if VSI_RESPONSES.name in t]
    assert len(said) == 1 and "this release is GST-Bench" in said[0] and "\x1f" not in said[0]
