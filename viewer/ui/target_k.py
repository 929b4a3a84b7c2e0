"""'Target in k of the N sampled frames' in the window: the browser's k column and its filter, and each
model's score against k in the plots dock (docs/frames.md).

k is computed for the whole release, for every model under its own policy (the state's `frame_policies`,
core.frames.FramePolicies, with its records' `frames` fields), in a background job
(render/frames_scan.release_target_k: the videos scanned for the red box once, cached), with progress and
cancel, again when a policy changes. The k column and the filter (the state's `filter.target_k`,
core/browse.py) are the selected model's; the plot draws each model's against its own k, over the plots
dock's column.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PyQt6.QtWidgets import QComboBox, QLabel, QWidget

from ..core.browse import TARGET_K_FILTERS
from ..core.state import InspectorState
from . import style
from .flow_layout import FlowLayout, labelled
from .jobs import Jobs

BUCKETS = (0, 1, 2, 3, 4)               # and "5+"


SCORE_VS_K_MESSAGE_WIDTH = 130     # pixels


class ScoreVsK:
    """Each model's mean score over the questions of the plots dock's column whose target is in k of the
    frames its policy samples (k = 0, 1, .., 5+); the count of questions under each k."""

    def __init__(self, state: InspectorState, plot: pg.PlotItem | None = None):
        self.state, self.plot = state, None
        self.k: dict[str | None, np.ndarray] | None = None      # per model name
        self.column: int | None = None                          # the plots dock's (None: none shown)
        self._curves: dict[int, tuple] = {}                     # column: (names, curves)
        self._curves_from: tuple = ()                           # what they were computed from
        self._lines: list[pg.PlotDataItem] = []                 # the plot's items, reused (`_draw`)
        self._counts: list[pg.TextItem] = []
        self._message: pg.TextItem | None = None
        state.events.models.connect(self.redraw)
        state.events.visible_models.connect(self.redraw)
        if plot is not None:
            self.attach(plot)

    def attach(self, plot: pg.PlotItem) -> None:
        """Draw in `plot` from now on (the plots dock makes it when first shown; k is kept until then)."""
        self.plot = plot
        self._lines, self._counts, self._message = [], [], None
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.setMouseEnabled(x=False, y=False)
        plot.setLabel("bottom", "k: frames with target")
        plot.setLabel("left", "mean score")
        plot.setYRange(0, 1)
        plot.getAxis("bottom").setTicks([[(b, str(b)) for b in BUCKETS] + [(len(BUCKETS), "5+")]])
        self.redraw()

    def set_k(self, k: dict[str | None, np.ndarray] | None) -> None:
        self.k = k
        self.redraw()

    def set_column(self, column: int | None) -> None:
        """The column the plots dock shows (PlotsPanel.columnShown)."""
        if column != self.column:
            self.column = column
            self.redraw()

    def curves(self) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per model: the buckets that have questions of the column, its mean score in each, and their counts.

        Computed once per column, k and scores, and kept: stepping through questions redraws at each change of
        column, where 22 models x 6 buckets of masks over 200,000 questions were ~80 ms; now one bincount per
        model, once."""
        session = self.state.session
        if session is None or self.k is None or self.column is None:
            return {}
        # Kept per column while k, the release and the scores are the same objects (kept with the curves, so
        # an id is never another's); another k, session or reparse starts afresh.
        used = (self.k, session.release, *(r.score for r in session.results))
        if len(used) != len(self._curves_from) or any(a is not b for a, b in zip(used, self._curves_from)):
            self._curves, self._curves_from = {}, used
        names = tuple(r.model for r in session.results)
        kept = self._curves.get(self.column)
        if kept is not None and kept[0] == names:
            return kept[1]
        rel = session.release
        rows = np.flatnonzero((rel.column == self.column) & rel.in_leaderboard)
        last = len(BUCKETS)
        out = {}
        for r in session.results:
            k = self.k.get(r.model)
            if k is None:
                continue
            bucket = np.minimum(k[rows], last)
            score = r.score[rows]
            ok = np.isin(bucket, np.arange(last + 1)) & ~np.isnan(score)
            b = bucket[ok].astype(np.int64)
            ns = np.bincount(b, minlength=last + 1)
            sums = np.bincount(b, weights=score[ok], minlength=last + 1)
            xs = np.flatnonzero(ns)
            out[r.model] = (xs, sums[xs] / ns[xs], ns[xs])
        self._curves[self.column] = (names, out)
        return out

    def redraw(self, *_) -> None:
        if self.plot is None:
            return
        session = self.state.session
        curves = self.curves()
        lines, counts = [], []                   # (xs, ys, colour, name); (x, y, n, colour)
        for m, r in enumerate(session.results if session is not None else []):
            if r.model not in curves or m not in self.state.visible_models:
                continue
            xs, ys, ns = curves[r.model]
            if not len(xs):
                continue
            color = style.model_color(m)
            lines.append((xs, ys, color, r.model))
            counts += [(float(x), float(y), int(n), color) for x, y, n in zip(xs, ys, ns)]
        message = None
        if session is not None and self.k is None:
            message = "k not computed yet"
        elif session is not None and self.column is None:
            message = "no column shown"
        elif session is not None and not any(len(c[0]) for c in curves.values()):
            message = "no question of this column has known target frames"
        self._draw(lines, counts, message)

    def _draw(self, lines: list, counts: list, message: str | None) -> None:
        """The curves, each point's count under it in the model's colour, and the message: the plot's items
        are kept and given new data (a PlotDataItem and 6 TextItems made per model at each change of column
        were ~15 ms with 22 models)."""
        plot = self.plot
        while len(self._lines) < len(lines):
            item = pg.PlotDataItem(symbol="o", symbolSize=7)
            plot.addItem(item)
            self._lines.append(item)
        for item, (xs, ys, color, name) in zip(self._lines, lines):
            item.setData(xs, ys, pen=pg.mkPen(color, width=2), symbolBrush=color, name=name)
            item.show()
        for item in self._lines[len(lines):]:
            item.clear()
            item.hide()
        while len(self._counts) < len(counts):
            t = pg.TextItem("", anchor=(0.5, -0.2))
            plot.addItem(t)
            self._counts.append(t)
        for t, (x, y, n, color) in zip(self._counts, counts):
            t.setText(f"{n}", color=color)
            t.setPos(x, y)
            t.show()
        for t in self._counts[len(counts):]:
            t.hide()
        if message:
            if self._message is None:
                self._message = pg.TextItem("", color=(120, 120, 120))
                self._message.setTextWidth(SCORE_VS_K_MESSAGE_WIDTH)     # wrapped: the plot is a quarter of the dock
                self._message.setPos(0, 0.8)
                plot.addItem(self._message)
            self._message.setText(message, color=(120, 120, 120))
            self._message.show()
        elif self._message is not None:
            self._message.hide()


class TargetKBar(QWidget):
    """The browser's row: filter by k, and what the k column counts (the selected model's, under its policy,
    how many never)."""

    def __init__(self, state: InspectorState, jobs: Jobs, browser, score_vs_k: ScoreVsK | None = None):
        super().__init__()
        self.state, self.jobs, self.browser, self.score_vs_k = state, jobs, browser, score_vs_k
        self.box = QComboBox(toolTip="Questions by whether their target is in the frames the selected model's "
                                     "policy samples (the k column)")
        self.box.addItems(list(TARGET_K_FILTERS))
        self.status = QLabel("")
        self.status.setStyleSheet("color: gray")
        self.status.setWordWrap(True)           # a long count wraps rather than widening the browser
        # A flow: the count goes under the box when the browser is narrow, rather than into a thin column.
        lay = FlowLayout(self, spacing=4)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(labelled("target in frames:", self.box))
        lay.addWidget(self.status, 1)
        self.box.currentTextChanged.connect(self._filter)
        state.events.filter.connect(self._show_filter)
        state.events.session.connect(self.compute)
        state.events.models.connect(self.compute)
        # A release's models arriving one by one (ui/model_arrivals): k is found once, with the last.
        state.events.models_arriving.connect(lambda arriving: arriving or self.compute())
        state.events.frame_policies.connect(self.compute)
        self.per_model: dict[str | None, tuple[np.ndarray, np.ndarray]] = {}
        self._session = None                       # the session the arrays are of
        self._shown = None                         # (arrays, model) on the browser's index

    def _filter(self, text: str) -> None:
        if self.state.filter.target_k != text:
            self.state.filter = replace(self.state.filter, target_k=text)

    def _show_filter(self, f) -> None:
        if self.box.currentText() != f.target_k:
            self.box.blockSignals(True)
            self.box.setCurrentText(f.target_k)
            self.box.blockSignals(False)
        self._show_selected()

    def compute(self, *_) -> None:
        session = self.state.session
        if session is None:
            return
        from ..render.frames_scan import release_target_k
        if self._session is not session:           # another release: nothing of the last one is shown
            self._session, self.per_model, self._shown = session, {}, None
            if self.score_vs_k is not None:
                self.score_vs_k.set_k(None)
        if self.state.models_arriving:
            self.status.setText("k: once the models are scored")
            return
        policies, sources = self.state.frame_policies, self.state.model_sources()
        self.status.setText("k: scanning the videos…")
        self.jobs.submit(release_target_k, session.release, policies, sources, lane="target_k", scope="session",
                         with_progress=True, label="finding the target in the sampled frames",
                         done=lambda result, key=(session, policies, tuple(sources)): self._done(key, result),
                         failed=lambda msg: self.status.setText(f"k: {msg}"))

    def _done(self, key, per_model: dict) -> None:
        session = self.state.session
        if key != (session, self.state.frame_policies, tuple(self.state.model_sources())):
            return                                  # a policy changed meanwhile: its own job follows
        self.per_model, self._shown = per_model, None
        if self.score_vs_k is not None:
            self.score_vs_k.set_k({m: k for m, (k, _n) in per_model.items()})
        self._show_selected()

    def _show_selected(self) -> None:
        """The selected model's k on the browser's index (its column and filter); again when it changes."""
        index = self.browser.index
        model = self.state.selected_model
        arrays = self.per_model.get(model) or self.per_model.get(None)
        if index is None or arrays is None or len(arrays[0]) != index.n or self._shown == (id(arrays), model):
            return
        self._shown = (id(arrays), model)
        k, sampled = arrays
        index.target_k, index.sampled_n = k, sampled
        known = ~np.isnan(k)
        never = int(np.count_nonzero(known & (k == 0)))
        policy = self.state.frame_policies.policy_of(model)
        who = f"{model} at {policy}" if model else f"{policy}"
        self.status.setText(f"k of {who}: target never sampled in {never} of {int(known.sum())}")
        if self.state.filter.target_k != "any" or self.browser.model.sort_key == "target_k":
            self.browser.apply_filter()              # the rows (or their order) follow k
        else:
            self.browser.model.column_changed("target_k")    # only the k column's texts do
