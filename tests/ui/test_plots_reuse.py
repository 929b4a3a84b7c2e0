"""The plots dock when stepping through questions (issue 30): at each change of column the histogram's other
models and the score-vs-k curves are redrawn in the items already in the plots, from values computed once per
column, and they still draw what the answers say."""
from __future__ import annotations

import numpy as np
import pytest
from ui_helpers import settle

from viewer.ui.target_k import BUCKETS


def _two_columns(state) -> list[int]:
    """A question of each of two columns, then the first again, and the second again."""
    rel = state.session.release
    cols = [c for c in dict.fromkeys(rel.column.tolist()) if c >= 0][:2]
    first = [int(np.flatnonzero(rel.column == c)[0]) for c in cols]
    return first * 2


def _reference_curves(state, k: dict, column: int) -> dict:
    """Score vs k as masks over every question, bucket by bucket (what the plot drew before)."""
    rel = state.session.release
    out = {}
    for r in state.session.results:
        bucket = np.minimum(k[r.model], len(BUCKETS))
        xs, ys, ns = [], [], []
        for b in range(len(BUCKETS) + 1):
            m = (bucket == b) & ~np.isnan(r.score) & (rel.column == column) & rel.in_leaderboard
            if m.any():
                xs.append(b)
                ys.append(float(r.score[m].mean()))
                ns.append(int(m.sum()))
        out[r.model] = (xs, ys, ns)
    return out


def test_stepping_between_columns_redraws_the_plots_in_the_same_items(qtbot, inspect_demo):
    win, state = inspect_demo()
    win.plots_dock.raise_()
    settle(qtbot, win)
    n = len(state.session.release)
    rng = np.random.default_rng(3)
    k = {r.model: np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 8, n).astype(float))
         for r in state.session.results}
    win.score_vs_k.set_k(k)
    plots, svk = win.plots, win.score_vs_k
    seen_items, seen_curves = None, {}
    for qi in _two_columns(state):
        state.question = qi
        settle(qtbot, win)
        column = plots.column
        assert column == int(state.session.release.column[qi])
        items = (list(plots.hist_plot.items), list(svk.plot.items))
        if seen_items is None:
            seen_items = items
        # The same items, given new data: none made, none dropped.
        assert [id(x) for x in items[0]] == [id(x) for x in seen_items[0]]
        assert [id(x) for x in items[1]] == [id(x) for x in seen_items[1]]
        curves = svk.curves()
        assert seen_curves.setdefault(column, curves) is curves       # computed once per column
        # ... and what they draw is what the answers say.
        for model, (xs, ys, ns) in _reference_curves(state, k, column).items():
            assert curves[model][0].tolist() == xs and curves[model][2].tolist() == ns
            assert curves[model][1] == pytest.approx(ys)
        shown_lines = [x for x in svk._lines if x.isVisible()]
        assert len(shown_lines) == sum(1 for xs, _ys, _ns in curves.values() if len(xs))
        for line, (xs, ys, _ns) in zip(shown_lines, (c for c in curves.values() if len(c[0]))):
            assert line.xData.tolist() == xs.tolist() and line.yData == pytest.approx(ys)
        h = plots.histogram
        others = [x for x in plots.hist_others if x.isVisible()]
        assert len(others) == len(state.session.results) - 1
        for item, m in zip(others, [m for m in sorted(state.visible_models) if m != plots._model_shown]):
            values = plots._column_stats(m, "histogram").values
            counts, _ = np.histogram(np.minimum(values, h.edges[-1]), bins=h.edges)
            assert item.yData.tolist() == counts.tolist()
    # A model hidden: its outline goes, the others stay; shown again, it is back.
    hidden = next(m for m in state.visible_models if m != plots._model_shown)
    state.visible_models = state.visible_models - {hidden}
    settle(qtbot, win)
    assert sum(x.isVisible() for x in plots.hist_others) == len(state.session.results) - 2
    state.visible_models = state.visible_models | {hidden}
    settle(qtbot, win)
    assert sum(x.isVisible() for x in plots.hist_others) == len(state.session.results) - 1


def test_the_scatter_is_worked_out_for_the_selected_model_alone(qtbot, inspect_demo, monkeypatch):
    """Every model's histogram outline and status bar are drawn, but only the selected model's scatter: the
    others' are not worked out (2.7 ms a model and column at 200,000 questions)."""
    from viewer.core import plots as core_plots
    win, state = inspect_demo()
    win.plots_dock.raise_()
    settle(qtbot, win)
    made = []
    real = core_plots.scatter
    monkeypatch.setattr(core_plots, "scatter", lambda rel, r, *a: (made.append(r.model), real(rel, r, *a))[1])
    for qi in _two_columns(state):
        state.question = qi
        settle(qtbot, win)
        assert win.plots.scatter is not None
    assert set(made) == {state.session.results[state.filter.model].model}
    assert len(made) == 2                                   # once per column, then kept
