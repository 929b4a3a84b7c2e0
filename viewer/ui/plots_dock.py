"""The linked plots: error histogram, predicted-vs-truth scatter and parse-status bars, per column and model.

Bound to the state: the column is the question shown's (or the one chosen in
the box), the model the browser's selected one (`filter.model`), the status
bars show the visible models. Brushing a histogram range sets the filter's
column, model and error range, so the browser lists those questions;
clicking a scatter point selects its question; the question shown is
highlighted in every plot. What the plots draw is `core.plots`; answers
without a value are counted in the note under the plots, never drawn at 0.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PyQt6.QtCore import QPointF, Qt, pyqtSignal
from PyQt6.QtGui import QColor, QFontMetrics
from PyQt6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from ..core import plots
from ..core.answers import MISSING, OK, is_scored
from ..core.state import InspectorState
from . import style
from .bindings import Bindings

_STATUS_COLORS = {"scored": QColor(120, 170, 120), "flagged": QColor(230, 190, 90),
                  "unparsed": QColor(200, 110, 110), "missing": QColor(170, 170, 170)}
_HIGHLIGHT = QColor(255, 200, 0)          # the video-camera yellow: "the one shown now", as on the map
_HIGHLIGHT_TEXT = _HIGHLIGHT.darker(170)  # its label, readable on white
_FOLLOW = -1                              # the column box's "column of the question shown"
_SYMBOLS = {"circle": "o", "square": "s", "triangle": "t1", "diamond": "d"}
# More points than this are drawn as an even sample (the note says so): beyond it a scatter is a blot,
# and pyqtgraph's per-point cost would make switching models slow at 200,000 questions.
MAX_SCATTER_POINTS = 4000


# What the plots draw of one model on one column (`PlotsPanel._column_stats`), from (release, result, rows,
# column).
_STATS = {
    "histogram": lambda rel, r, rows, c: plots.error_histogram(r, rows),
    "scatter": lambda rel, r, rows, c: plots.scatter(rel, r, rows, rel.benchmark.columns[c].kind_name),
    "status": lambda rel, r, rows, c: plots.status_counts(r, rows),
}


TITLE_MIN = 90                # pixels: a plot title's lines are never made narrower than this
TITLE_AXIS_ROOM = 70          # pixels of a plot's share its left axis takes, not its title


class PlotsPanel(QWidget):
    columnShown = pyqtSignal(object)        # the column the plots show (None: none), after each redraw

    def __init__(self, state: InspectorState, parent=None):
        super().__init__(parent)
        self.state = state
        self.column: int | None = None
        self._rows = np.zeros(0, np.int64)            # the column's questions
        self.histogram: plots.Histogram | None = None
        self.scatter: plots.Scatter | None = None
        self._status_models: list[int] = []
        self._status_counts = np.zeros((0, len(plots.STATUS_GROUPS)))
        self._scatter_drawn = np.zeros(0, np.int64)

        self.column_box = QComboBox(toolTip="The Table-1 column the plots show")
        self.column_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.clear_button = QToolButton(text="Clear range", toolTip="Remove the brushed error range from the filter")
        self.note = QLabel()
        self.note.setStyleSheet("color: gray")
        self.note.setWordWrap(True)          # a long note wraps rather than squeezing the column box
        top = QHBoxLayout()
        top.addWidget(self.column_box)
        top.addWidget(self.clear_button)
        top.addWidget(self.note, 1)

        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        self.hist_plot = self.graphics.addPlot(row=0, col=0, title="error")
        # Side by side: the dock sits under the sample view, wide and low.
        self.scatter_plot = self.graphics.addPlot(row=0, col=1, title="predicted vs truth")
        self.status_plot = self.graphics.addPlot(row=0, col=2, title="parse status")
        self._status_title: str | None = None           # set once the status key is drawn (`_fit_status_title`)
        self._full_titles: dict = {}                     # plot -> (words as shown, words as measured)
        self._set_titles: dict = {}                      # plot -> the title `_fit_titles` set last
        self._set_tips: dict = {}                        # plot -> the tooltip `_fit_titles` set last
        for p in (self.hist_plot, self.scatter_plot, self.status_plot):
            p.setMenuEnabled(False)
            p.hideButtons()
        self.hist_plot.setMouseEnabled(x=False, y=False)
        self.status_plot.setMouseEnabled(x=False, y=False)
        self.hist_bars = pg.BarGraphItem(x0=[], x1=[], height=[], brush=style.model_color(0))
        self.hist_plot.addItem(self.hist_bars)
        self.hist_others: list[pg.PlotDataItem] = []
        self.brush = pg.LinearRegionItem(values=(0, 0), brush=pg.mkBrush(0, 120, 255, 40))
        self.brush.setZValue(10)
        self.brush.hide()
        self.hist_plot.addItem(self.brush)
        # The question shown is marked, and said so, in every plot.
        self.hist_now = pg.InfiniteLine(angle=90, pen=pg.mkPen(_HIGHLIGHT, width=3), label="shown",
                                        labelOpts={"position": 0.92, "color": _HIGHLIGHT_TEXT,
                                                   "anchors": [(1, 0), (1, 0)]})
        self.hist_plot.addItem(self.hist_now)
        self.scatter_guide = pg.PlotDataItem(pen=pg.mkPen(style.TRUTH, width=1, style=Qt.PenStyle.DashLine))
        self.scatter_lines = pg.PlotDataItem(connect="pairs")
        self.scatter_item = pg.ScatterPlotItem(size=6, pen=pg.mkPen(0, 0, 0, 120))
        self.scatter_now = pg.ScatterPlotItem(size=16, pen=pg.mkPen(_HIGHLIGHT, width=3), brush=None)
        self.scatter_now_label = pg.TextItem("shown", color=_HIGHLIGHT_TEXT, anchor=(-0.15, 1.0))
        for it in (self.scatter_guide, self.scatter_lines, self.scatter_item, self.scatter_now, self.scatter_now_label):
            self.scatter_plot.addItem(it)
        self.status_items: list[pg.BarGraphItem] = []
        self.status_now = pg.ScatterPlotItem(size=14, symbol="t", pen=pg.mkPen(0, 0, 0), brush=_HIGHLIGHT)
        self.status_plot.addItem(self.status_now)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(self.graphics, 1)

        # The brush is the filter's error range: a drag writes it, a range set elsewhere moves it.
        self.bindings = b = Bindings(state)
        self._brush_binding = b.bind(self.brush, "filter", changed=self.brush.sigRegionChangeFinished,
                                     read=self.brush.getRegion, to_widget=lambda f: (f.error_min, f.error_max),
                                     show=self._show_brush, write=lambda region: self.brush_range(*region))
        self.clear_button.clicked.connect(self.clear_range)
        self.column_box.currentIndexChanged.connect(b.user(lambda _: self.redraw()))
        self.scatter_plot.scene().sigMouseClicked.connect(self._clicked)
        state.events.session.connect(self._session_changed)
        state.events.models.connect(self._redraw_when_shown)
        state.events.visible_models.connect(self._redraw_when_shown)
        state.events.question.connect(self._question_changed)
        state.events.filter.connect(self._filter_changed)
        self._model_shown: int | None = None
        self._stale = False                      # changed while hidden: redrawn when shown
        self._shown = True
        # Per (model result, column, what): histogram, scatter, status counts. A session's results do not change
        # once scored, so switching back and forth between models and columns costs nothing the second time.
        self._stats: dict[tuple[int, int, str], tuple] = {}

    # ------------------------------------------------------------ binding
    def catch_up(self) -> None:
        """Show the state as it is now (the window makes this panel when its tab is first raised, perhaps
        long after the release opened and the filter's error range was brushed)."""
        self._brush_binding.pull()
        self._session_changed()

    def _session_changed(self) -> None:
        self._stats = {}
        with self.bindings.refilling(self.column_box):
            self.column_box.addItem("Column of the question shown", _FOLLOW)
            s = self.state.session
            if s is not None:
                present = set(np.unique(s.release.column).tolist())
                for i, c in enumerate(s.release.benchmark.columns):
                    if i in present:
                        self.column_box.addItem(f"{c.key} — {c.title}", i)
        self._redraw_when_shown()

    def _wanted_column(self) -> int | None:
        chosen = self.column_box.currentData()
        if chosen is not None and chosen != _FOLLOW:
            return chosen
        s, qi = self.state.session, self.state.question
        if s is None or qi is None:
            return None
        c = int(s.release.column[qi])
        return c if c >= 0 else None

    def _question_changed(self) -> None:
        if self._stale or self._wanted_column() != self.column:
            self._redraw_when_shown()
        elif self._shown:
            self._highlight()

    def _filter_changed(self, f) -> None:
        if self._stale or f.model != self._model_shown:
            self._redraw_when_shown()

    def _redraw_when_shown(self) -> None:
        """Plots nobody sees are not drawn: stepping through questions with the dock tabbed away
        costs nothing; it catches up when shown (`set_shown`)."""
        if self._shown:
            self.redraw()
        else:
            self._stale = True

    def set_shown(self, shown: bool) -> None:
        """Whether the plots can be seen: a dock tabbed away is moved off screen, not hidden, so the
        window says so (QDockWidget.visibilityChanged)."""
        self._shown = shown
        if shown and self._stale:
            self.redraw()

    @property
    def model(self) -> int | None:
        m = self.state.filter.model
        n = len(self.state.session.results) if self.state.session is not None else 0
        return m if m is not None and 0 <= m < n else None

    # ------------------------------------------------------------- drawing
    def _column_stats(self, m: int, what: str) -> object:
        """Model m's `what` ("histogram", "scatter" or "status") on the column shown, computed once: the other
        models need no scatter (it is drawn for the selected one only: 2.7 ms a model at 200,000 questions)."""
        s = self.state.session
        r = s.results[m]
        key = (id(r), self.column, what)
        hit = self._stats.get(key)
        if hit is None or hit[0] is not r:
            hit = self._stats[key] = (r, _STATS[what](s.release, r, self._rows, self.column))
        return hit[1]

    def redraw(self) -> None:
        """Every plot for the column and model the state says."""
        self._stale = False
        s = self.state.session
        self.column = self._wanted_column()
        m = self._model_shown = self.model
        if s is None or self.column is None or m is None:
            self._clear("Choose a model in the browser and a question to plot." if s is not None else "")
            return
        rel = s.release
        col = rel.benchmark.columns[self.column]
        self._rows = plots.column_rows(rel, self.column)
        result = s.results[m]
        self._draw_histogram(result, col)
        self._draw_scatter(rel, result, col)
        self._draw_status()
        notes = []
        if self.scatter is not None and len(self.scatter.rows) > MAX_SCATTER_POINTS:
            notes.append(f"scatter: an even {MAX_SCATTER_POINTS:,} of {len(self.scatter.rows):,} points drawn")
        for what, data in (("histogram", self.histogram), ("scatter", self.scatter)):
            if data is not None and data.not_plotted:
                notes.append(f"{what}: not drawn " + ", ".join(f"{n} {k}" for k, n in data.not_plotted.items()))
        self.note.setText(f"{result.model} · {col.key} · {len(self._rows):,} questions · "
                          f"<span style='color:{_HIGHLIGHT_TEXT.name()}'>| ◯ ▼ the question shown</span>"
                          + ("; " + "; ".join(notes) if notes else ""))
        self._brush_binding.pull()
        self._highlight()
        self.columnShown.emit(self.column)

    def _clear(self, message: str) -> None:
        self.histogram = self.scatter = None
        self.hist_bars.setOpts(x0=[], x1=[], height=[])
        self._hide_hist_others(0)
        for it in (self.scatter_item, self.scatter_now, self.status_now):
            it.setData([], [])
        self.scatter_now_label.hide()
        self.scatter_lines.setData([], [])
        self.scatter_guide.setData([], [])
        for it in self.status_items:
            self.status_plot.removeItem(it)
        self.status_items = []
        self.brush.hide()
        self.hist_now.hide()
        self.note.setText(message)
        self.columnShown.emit(None)

    def _draw_histogram(self, result, col) -> None:
        h = self.histogram = self._column_stats(self._model_shown, "histogram")
        upper = float(h.edges[-1])
        self.hist_bars.setOpts(x0=h.edges[:-1], x1=h.edges[1:], height=h.counts,
                               brush=style.model_color(self._model_shown), pen=pg.mkPen(0, 0, 0, 80))
        s = self.state.session
        others = [k for k in sorted(self.state.visible_models) if k != self._model_shown and k < len(s.results)]
        # The other models' outlines: items kept and given new data (21 made and added at each change of
        # column were ~13 ms with 22 models).
        while len(self.hist_others) < len(others):
            item = pg.PlotDataItem(stepMode="center")
            self.hist_plot.addItem(item)
            self.hist_others.append(item)
        for item, k in zip(self.hist_others, others):
            values = self._column_stats(k, "histogram").values
            counts, _ = np.histogram(np.minimum(values, upper), bins=h.edges)
            item.setData(h.edges, counts, pen=pg.mkPen(style.model_color(k), width=2))
            item.show()
        self._hide_hist_others(len(others))
        unit = col.kind.unit.strip() if col.kind is not None and col.kind.unit else ""
        self.hist_plot.setTitle(f"error{f' ({unit})' if unit else ''}: drag across to filter")
        self.brush.setBounds((0.0, upper))
        self.hist_plot.setXRange(0.0, upper, padding=0.02)
        self.hist_plot.setYRange(0, max(int(h.counts.max()) if len(h.counts) else 1, 1), padding=0.05)

    def _hide_hist_others(self, shown: int) -> None:
        for item in self.hist_others[shown:]:
            if item.isVisible():
                item.clear()
                item.hide()

    def _draw_scatter(self, rel, result, col) -> None:
        sc = self.scatter = self._column_stats(self._model_shown, "scatter")
        p = self.scatter_plot
        color = style.model_color(self._model_shown)
        symbol = _SYMBOLS.get(style.model_shape(self._model_shown), "o")
        self.scatter_lines.setData([], [])
        self.scatter_guide.setData([], [])
        if sc is None:
            p.setTitle("no scatter for this kind of answer")
            self.scatter_item.setData([], [])
            return
        loglog = sc.mode == "loglog"
        # Scatter items do not follow a plot's log mode: log-log data is drawn as log10, the axes label it.
        for axis in ("bottom", "left"):
            p.getAxis(axis).setLogMode(loglog)
        p.getViewBox().invertY(sc.mode == "vectors")
        # Not aspect-locked: map points are normalised 0..999 on both axes, not metric, and a locked
        # view widened the x axis to the plot's shape (-500..1500 for data in 0..999).
        p.getViewBox().setAspectLocked(False)
        drawn = _even_sample(len(sc.rows), MAX_SCATTER_POINTS)
        self._scatter_drawn = drawn
        if sc.mode == "vectors":
            p.setTitle("map points: truth → prediction")
            xy = np.empty((2 * len(drawn), 2))
            xy[0::2, 0], xy[0::2, 1], xy[1::2, 0], xy[1::2, 1] = sc.x[drawn], sc.y[drawn], sc.u[drawn], sc.v[drawn]
            self.scatter_lines.setData(xy[:, 0], xy[:, 1], pen=pg.mkPen(color, width=1))
            self.scatter_item.setData(sc.u[drawn], sc.v[drawn], brush=pg.mkBrush(color), symbol=symbol)
            self.scatter_guide.setData([0, 999, 999, 0, 0], [0, 0, 999, 999, 0])
            p.setXRange(0, 999, padding=0.02)
            p.setYRange(0, 999, padding=0.02)
            return
        x, y = _view_xy(sc, drawn)
        self.scatter_item.setData(x, y, brush=pg.mkBrush(color), symbol=symbol)
        if loglog:
            p.setTitle("distance: predicted vs truth, log–log")
            both = np.concatenate([x, y]) if len(x) else np.array([-1.0, 1.0])
            lo, hi = float(both.min()) - 0.1, float(both.max()) + 0.1
            self.scatter_guide.setData([lo, hi], [lo, hi])
        else:
            p.setTitle("angle (°): predicted vs truth")
            self.scatter_guide.setData([-180, 180], [-180, 180])
            p.setXRange(-180, 180, padding=0.02)
            p.setYRange(-360, 360, padding=0.02)
        p.enableAutoRange(enable=loglog)

    def _draw_status(self) -> None:
        for it in self.status_items:
            self.status_plot.removeItem(it)
        self.status_items = []
        s = self.state.session
        shown = [k for k in sorted(self.state.visible_models) if k < len(s.results)]
        counts = np.array([[self._column_stats(k, "status")[g] for g in plots.STATUS_GROUPS]
                           for k in shown], float).reshape(len(shown), len(plots.STATUS_GROUPS))
        y = np.arange(len(shown), dtype=float)
        left = np.zeros(len(shown))
        for g, group in enumerate(plots.STATUS_GROUPS):
            bar = pg.BarGraphItem(x0=left, y=y, height=0.6, width=counts[:, g], brush=_STATUS_COLORS[group],
                                  pen=pg.mkPen(255, 255, 255))
            self.status_plot.addItem(bar)
            self.status_items.append(bar)
            left = left + counts[:, g]
        self.status_plot.getAxis("left").setTicks([[(k, s.results[m].model[:16]) for k, m in enumerate(shown)]])
        self._fit_status_title()
        self._status_models = shown
        self._status_counts = counts
        self.status_plot.setXRange(0, max(float(left.max()) if len(left) else 1.0, 1.0), padding=0.02)
        self.status_plot.setYRange(-0.6, max(len(shown) - 0.4, 0.6), padding=0)

    def _fit_status_title(self) -> None:
        """The status plot's title is its colour key, wrapped as every title is (`_fit_titles`); the groups
        explained in its tooltip."""
        words = [f"<span style='color:{_STATUS_COLORS[g].name()}'>■</span>{g}" for g in plots.STATUS_GROUPS]
        self._full_titles[self.status_plot] = (words, [f"■{g}" for g in plots.STATUS_GROUPS])
        self.status_plot.titleLabel.setToolTip(
            "The selected column's answers per model: scored (parsed as they should be), flagged (scored, with "
            "a note: several numbers, a lenient reading), unparsed (scored 0), missing (no answer)")
        self._status_title = ""
        self._fit_titles()

    def _fit_titles(self) -> None:
        """Each plot's title on as many lines as its share of the dock's width needs: a title on one line
        sets its plot's minimum width, and the row of plots, wider than the dock at 1280 px, cut the last
        one off. A wrapped title says itself whole in its tooltip."""
        shown = [p for p in (self.hist_plot, self.scatter_plot, self.status_plot, *self._extra_plots())
                 if p.isVisible()]
        budget = max(TITLE_MIN, self.graphics.width() // max(len(shown), 1) - TITLE_AXIS_ROOM)
        for p in shown:
            label = p.titleLabel
            if not label.isVisible():
                continue
            if label.text != self._set_titles.get(p) and p is not self.status_plot:
                text = label.text                            # a title set since: its words, as they read
                self._full_titles[p] = (text.split(" "), text.split(" ")) if "<" not in text else ([text], [text])
                if label.toolTip() in ("", self._set_tips.get(p)):
                    self._set_tips[p] = text
                    label.setToolTip(text)
            words, plain = self._full_titles.get(p, ([label.text], [label.text]))
            fm = QFontMetrics(label.item.font())
            lines: list[list[str]] = [[]]
            used = 0
            for word, text in zip(words, plain):
                w = fm.horizontalAdvance(text + " ")
                if lines[-1] and used + w > budget:
                    lines.append([])
                    used = 0
                lines[-1].append(word)
                used += w
            title = "<br>".join(" ".join(line) for line in lines)
            if title != label.text or p not in self._set_titles:
                p.setTitle(title)
                height = len(lines) * fm.lineSpacing() + 12
                label.setMaximumHeight(height)
                p.layout.setRowFixedHeight(0, height)
            self._set_titles[p] = label.text

    def _extra_plots(self) -> list:
        """Plots the window added beside these (score vs k)."""
        return [item for item in self.graphics.ci.items if isinstance(item, pg.PlotItem)
                and item not in (self.hist_plot, self.scatter_plot, self.status_plot)]

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._status_title is not None:
            self._fit_titles()

    # ----------------------------------------------------------- highlight
    def _highlight(self) -> None:
        """The question shown, in every plot: a line at its error, a ring on its point, a tick on its status."""
        qi, s = self.state.question, self.state.session
        for it in (self.scatter_now, self.status_now):
            it.setData([], [])
        self.hist_now.hide()
        self.scatter_now_label.hide()
        if qi is None or s is None or self.histogram is None:
            return
        h = self.histogram
        hit = np.flatnonzero(h.rows == qi)
        if len(hit):
            self.hist_now.setValue(min(float(h.values[hit[0]]), float(h.edges[-1])))
            self.hist_now.show()
        sc = self.scatter
        if sc is not None:
            hit = np.flatnonzero(sc.rows == qi)
            if len(hit):
                k = hit[0]
                x, y = _view_xy(sc, np.array([k]))
                self.scatter_now.setData(x, y)
                if len(x) and np.isfinite(x[0]) and np.isfinite(y[0]):
                    self.scatter_now_label.setPos(float(x[0]), float(y[0]))
                    self.scatter_now_label.show()
        if int(s.release.column[qi]) == self.column:
            xs, ys = [], []
            for row, m in enumerate(self._status_models):
                st = s.results[m].status[qi]
                group = _status_group(st)
                if group is None:
                    continue
                g = plots.STATUS_GROUPS.index(group)
                c = self._status_counts[row]
                xs.append(float(c[:g].sum() + c[g] / 2))
                ys.append(row + 0.42)
            self.status_now.setData(xs, ys)

    # -------------------------------------------------------------- intent
    def brush_range(self, low: float, high: float) -> None:
        """Filter the browser to the column shown and the selected model's errors in [low, high]
        (a dragged range: the browser lists the column's questions with the model's error in it)."""
        if self.column is None or self._model_shown is None:
            return
        top = float(self.histogram.edges[-1]) if self.histogram is not None else high
        self.state.filter = replace(self.state.filter, columns=frozenset({self.column}), model=self._model_shown,
                                    error_min=float(low), error_max=None if high >= top - 1e-9 else float(high))

    def clear_range(self) -> None:
        self.state.filter = replace(self.state.filter, error_min=None, error_max=None)

    def _show_brush(self, error_range: tuple) -> None:
        """The filter's error range on the histogram (setting the region emits the brush's signals)."""
        low, high = error_range
        if low is None and high is None or self.histogram is None:
            self.brush.hide()
        else:
            top = float(self.histogram.edges[-1])
            self.brush.setRegion((low or 0.0, top if high is None else high))
            self.brush.show()
        self.clear_button.setEnabled(low is not None or high is not None)

    def _clicked(self, event) -> None:
        vb = self.scatter_plot.getViewBox()
        if not self.scatter_plot.sceneBoundingRect().contains(event.scenePos()):
            return
        at = vb.mapSceneToView(event.scenePos())
        self.pick(at.x(), at.y())
        event.accept()

    def pick(self, x: float, y: float) -> int | None:
        """Select the question of the scatter point nearest (x, y), in the plot's view coordinates."""
        sc = self.scatter
        if sc is None or not len(sc.rows):
            return None
        drawn = self._scatter_drawn
        px, py = _view_xy(sc, drawn)
        (x0, x1), (y0, y1) = self.scatter_plot.getViewBox().viewRange()
        k = plots.nearest_point(px, py, (x, y), (x1 - x0, y1 - y0))
        if k is None:
            return None
        self.state.question = int(sc.rows[drawn[k]])
        return self.state.question

    def point_scene_pos(self, k: int) -> QPointF:
        """Where the scatter's k-th point is in the scene (for tests that click it)."""
        x, y = _view_xy(self.scatter, np.array([k]))
        return self.scatter_plot.getViewBox().mapViewToScene(QPointF(float(x[0]), float(y[0])))


def _view_xy(sc: plots.Scatter, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The scatter's points `which` in the plot's view coordinates: the prediction end of a map vector,
    log10 on a log-log plot."""
    if sc.mode == "vectors":
        return sc.u[which], sc.v[which]
    if sc.mode == "loglog":
        return np.log10(sc.x[which]), np.log10(sc.y[which])
    return sc.x[which], sc.y[which]


def _even_sample(n: int, most: int) -> np.ndarray:
    """Indices of at most `most` of n points, evenly spread (all of them when there are few)."""
    if n <= most:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, most).astype(np.int64))


def _status_group(status: str) -> str | None:
    if status == "unscored":
        return None
    if is_scored(status):
        return "scored" if status == OK else "flagged"
    return "missing" if status == MISSING else "unparsed"
