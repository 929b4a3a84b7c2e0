"""The Table-1 leaderboard of the loaded models, with the Random reference row; cells set the browser's filter."""
from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Callable

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QAction, QBrush, QColor, QFont
from PyQt6.QtWidgets import QAbstractItemView, QFileDialog, QHeaderView, QTableWidget, QTableWidgetItem

from ..core.answers import STATUS_TEXT
from ..core.compare import NEEDS_B
from ..core.evaluate import ProfileComparison, average
from ..core.intervals import FEW, FEW_MARK
from ..core.session import Session
from ..core.state import InspectorState
from . import style

AVG = "Avg"


def comparison_label(c) -> str:
    """The A − B row's header, short so the table keeps its Avg in view; the models are in its tooltip."""
    return "A − B"


class LeaderboardPanel(QTableWidget):
    """Rows: the loaded models, then the Random (uniform) reference row.

    Clicking a model's cell filters the questions to that model and column (all columns for Avg).
    """
    message = pyqtSignal(str)            # for the status bar

    def __init__(self, state: InspectorState, parent=None):
        super().__init__(parent)
        self.state = state
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.cellClicked.connect(self._clicked)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.export_action = QAction("Export leaderboard…", self)
        self.export_action.triggered.connect(self.choose_export)
        self.addAction(self.export_action)
        # Error bars (core/intervals.py): "41.9 ± 2.3" in every model's cell, computed when asked for.
        self.intervals_action = QAction("Show 95 % intervals", self, checkable=True)
        self.intervals_action.toggled.connect(lambda _: self.set_session(state.session))
        self.addAction(self.intervals_action)
        # Published results beside the loaded models (Benchmark.published_rows, core/reference_rows.py).
        self.published_action = QAction("Show the paper's results", self, checkable=True)
        self.published_action.toggled.connect(lambda _: self.set_session(state.session))
        self.addAction(self.published_action)
        self._n_models = 0
        self._intervals_of: tuple | None = None      # (session, results) the cached intervals are for
        self._intervals: dict = {}
        self._comparison_of: tuple | None = None     # (session, A, B) the cached comparison is for
        self._comparison = None
        self._comparison_shown: tuple | None = None  # the browser's (A, B) the table was last drawn for
        state.events.session.connect(self.set_session)
        state.events.models.connect(lambda: self.set_session(state.session))
        # A comparison in the browser (A against B) adds their paired difference as a row.
        state.events.filter.connect(self._filter_changed)

    def set_session(self, session: Session | None) -> None:
        """Table 1 of the session's models. Its headers size to their contents once it is filled: sized at
        every header item and colour set, each asking every row's header again, it cost ~60 ms at 22 models."""
        heads = (self.verticalHeader(), self.horizontalHeader())
        for h in heads:
            h.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        try:
            self._fill(session)
        finally:
            for h in heads:
                h.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

    def _fill(self, session: Session | None) -> None:
        self.clear()
        self._comparison_shown = self._wanted_comparison()
        self._bench = None if session is None else session.release.benchmark
        if session is None:              # no release: no benchmark, so no columns yet
            self.setColumnCount(0)
            self.setRowCount(0)
            return
        bench = self._bench
        COLUMN_KEYS = bench.table_keys
        cols = [bench.label(k) for k in COLUMN_KEYS] + [AVG]
        self.setColumnCount(len(cols))
        self.setHorizontalHeaderLabels(cols)
        for k, key in enumerate(COLUMN_KEYS):
            c = bench.columns[bench.members(key)[0]]
            tip = (f"{c.title}\n{c.task}" if key not in bench.groups
                   else f"{key}\nmean of {', '.join(bench.groups[key])}")
            self.horizontalHeaderItem(k).setToolTip(tip)
        board = session.leaderboard()["models"]
        intervals = self._model_intervals(session) if self.intervals_action.isChecked() else {}
        counts = self._column_counts(session, board)
        for k, n in enumerate(counts):                   # every column's n; few questions marked
            if n is None:
                continue
            item = self.horizontalHeaderItem(k)
            item.setToolTip(item.toolTip() + f"\nn = {n} questions" + (f" (fewer than {FEW}: read the score "
                                                                         "with care)" if n < FEW else ""))
            if n < FEW:
                item.setText(f"{item.text()} {FEW_MARK}")
        refs = {"Random (uniform)": (session.random_row(), None, "reference row, not a loaded model")}
        published = session.release.benchmark.published_rows(False) if self.published_action.isChecked() else None
        for ref in published or ():
            refs[f"{ref.name} ({ref.origin})"] = (ref.columns, ref.avg,
                                                  f"published, no per-question data (no interval, no paired test); "
                                                  f"{ref.source}")
        if self.published_action.isChecked() and published is None:
            self.message.emit(f"no published results are bundled for {session.release.benchmark.title}")
        comparison = self._paired(session)
        rows = list(board) + ([comparison_label(comparison)] if comparison is not None else []) + list(refs)
        self._n_models = len(board)
        self.setRowCount(len(rows))
        self.setVerticalHeaderLabels(rows)
        for r, name in enumerate(board):
            m = board[name]
            # Strict against lenient reparses every answer of the model: done when a tooltip first asks
            # (22 models of 200,000 answers took 15 s here), once per result (Session.compare_profiles).
            profiles = _Once(partial(_profiles_tip, session, name, m))
            self.setVerticalHeaderItem(r, LazyTipItem(name, lambda profiles=profiles, name=name:
                                                      f"{name}\n{profiles()}"))
            self.verticalHeaderItem(r).setForeground(QBrush(style.model_color(r).darker(120)))
            values = [m["columns"][k] for k in COLUMN_KEYS] + [m["avg"]]
            counts = [m["counts"][k] for k in COLUMN_KEYS] + [None]
            bars = intervals.get(name)
            halves = ([bars.columns[k].half_width for k in COLUMN_KEYS] + [bars.avg.half_width]) if bars else []
            counts_m = [m["counts"][k] for k in COLUMN_KEYS] + [None]
            for c, (v, n) in enumerate(zip(values, counts_m)):
                item = self._item(v, heat=True, half=halves[c] if halves else None,
                                  lazy=c == len(COLUMN_KEYS))
                tip = f"{name} · {cols[c]}" + (f" · {n} questions" if n is not None else "")
                if halves and halves[c] is not None:
                    tip += f"\n95 % bootstrap interval ± {halves[c]:.1f} points (core/intervals.py)"
                click = "\nclick: show these questions in the browser"
                if c == len(COLUMN_KEYS):
                    item.tip = lambda tip=tip, profiles=profiles, click=click: f"{tip}\n{profiles()}{click}"
                else:
                    item.setToolTip(tip + click)
                self.setItem(r, c, item)
        if comparison is not None:
            self._fill_comparison(len(board), comparison, COLUMN_KEYS)
            self.verticalHeaderItem(len(board)).setToolTip(
                f"A − B: {comparison.a} minus {comparison.b}, per column; * and bold: significant at 5 % "
                "(paired permutation test, Holm-corrected)")
        italic = QFont()
        italic.setItalic(True)
        for k, (name, (row, avg, what)) in enumerate(refs.items()):
            r = len(board) + (comparison is not None) + k
            values = [row.get(key) for key in COLUMN_KEYS] + [average(row) if avg is None else avg]
            for c, v in enumerate(values):
                item = self._item(v, heat=False)
                item.setFont(italic)
                item.setForeground(QBrush(QColor(110, 110, 110)))
                item.setToolTip(f"{name}: {what}")
                self.setItem(r, c, item)

    # ------------------------------------------------------------- export
    def export_text(self, fmt: str) -> str:
        """Table 1 of the shown models (and the Random row) as `fmt`: csv, md or tex (core.exports.board)."""
        from ..core.exports.board import export_board
        s = self.state
        shown = [s.models[m] for m in sorted(s.visible_models) if m < len(s.models)]
        return export_board(fmt, s.session.leaderboard(), s.session.random_row(), s.session.release.benchmark, shown)

    def export(self, path: str, fmt: str | None = None) -> None:
        from pathlib import Path

        from ..core.atomic import atomic_write_text
        from ..core.exports.board import SUFFIXES
        fmt = fmt or next((f for f, suffix in SUFFIXES.items() if Path(path).suffix.lower() == suffix), "csv")
        try:
            atomic_write_text(path, self.export_text(fmt))
        except OSError as e:
            self.message.emit(f"{path}: cannot write the leaderboard ({e.strerror or e})")
            return
        self.message.emit(f"leaderboard written to {path}")

    def choose_export(self) -> None:
        if self.state.session is None:
            self.message.emit("open a release first")
            return
        path, chosen = QFileDialog.getSaveFileName(self, "Export leaderboard", "leaderboard.csv",
                                                   "CSV (*.csv);;Markdown (*.md);;LaTeX (*.tex)")
        if path:
            fmt = {"CSV": "csv", "Markdown": "md", "LaTeX": "tex"}.get(chosen.split(" ")[0])
            self.export(path, None if path.lower().endswith((".csv", ".md", ".tex")) else fmt)

    # ------------------------------------------------------------- error bars and paired tests
    def _model_intervals(self, session: Session) -> dict:
        from ..core.intervals import model_intervals
        key = (session, tuple(id(r) for r in session.results))
        if self._intervals_of != key:
            self._intervals_of, self._intervals = key, model_intervals(session.release, session.results)
        return self._intervals

    @staticmethod
    def _column_counts(session: Session, board: dict) -> list:
        """Each leaderboard column's n: the questions a model's mean counts (the same for every model)."""
        first = next(iter(board.values()), None)
        return [] if first is None else [first["counts"][k] for k in session.release.benchmark.table_keys]

    def _paired(self, session: Session):
        """A against B while the browser compares them (core/paired.py), cached; None otherwise."""
        f = self.state.filter
        results = session.results
        if f.compare not in NEEDS_B or f.model is None or f.model_b is None or f.model == f.model_b \
                or max(f.model, f.model_b) >= len(results):
            return None
        key = (session, id(results[f.model]), id(results[f.model_b]))
        if self._comparison_of != key:
            from ..core.paired import compare_models
            self._comparison_of = key
            self._comparison = compare_models(session.release, results[f.model], results[f.model_b])
        return self._comparison

    def _wanted_comparison(self) -> tuple | None:
        f = self.state.filter
        return (f.model, f.model_b) if f.compare in NEEDS_B else None

    def _filter_changed(self) -> None:
        if self._wanted_comparison() != self._comparison_shown and self.state.session is not None:
            self.set_session(self.state.session)

    def _fill_comparison(self, r: int, c, keys) -> None:
        """The A − B row: each column's paired difference, * where it is significant at 5 % (Holm)."""
        diffs = [c.columns[k] for k in keys] + [c.avg]
        for col, d in enumerate(diffs):
            if d.difference is None:
                text, tip = "–", "no questions"
            else:
                star = " *" if d.significant() else ""
                text = f"{d.difference:+.1f}{star}"
                tip = (f"{c.a} − {c.b}: {d.difference:+.1f} points, 95 % interval {d.low:+.1f} to {d.high:+.1f}; "
                       f"paired permutation p = {d.p:.3g}" + (f", Holm {d.p_holm:.3g}" if d.p_holm is not None else "")
                       + (" — significant at 5 %" if star else " — not significant at 5 %") + f"; n = {d.n}")
            item = QTableWidgetItem(text)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setToolTip(tip)
            font = QFont()
            font.setBold(d.difference is not None and d.significant())
            item.setFont(font)
            self.setItem(r, col, item)

    def _item(self, value: float | None, heat: bool, half: float | None = None,
              lazy: bool = False) -> QTableWidgetItem:
        # "77.8±11.1": no spaces, so thirteen columns with intervals still fit a docked leaderboard.
        text = "–" if value is None else f"{value:.1f}" + (f"±{half:.1f}" if half is not None else "")
        item = LazyTipItem(text) if lazy else QTableWidgetItem(text)
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if heat and value is not None:
            item.setBackground(QBrush(style.score_color(value / 100.0)))
        return item

    def _clicked(self, row: int, col: int) -> None:
        bench = getattr(self, "_bench", None)
        if row >= self._n_models or bench is None:
            return
        key = None if col >= len(bench.table_keys) else bench.table_keys[col]
        self.state.filter = replace(self.state.filter, columns=None if key is None else frozenset(bench.members(key)),
                                    model=row)
        title = bench.columns[bench.members(key)[0]].title if key is not None and key not in bench.groups else key
        where = "" if key is None else f", {key} — {title}"
        self.message.emit(f"browser: {self.state.models[row]}{where}")


class LazyTipItem(QTableWidgetItem):
    """An item whose tooltip is computed when first asked for (by the view, or by toolTip())."""

    def __init__(self, text: str, tip: Callable[[], str] | None = None):
        super().__init__(text)
        self.tip = tip

    def data(self, role: int):
        if role == Qt.ItemDataRole.ToolTipRole and self.tip is not None:
            tip, self.tip = self.tip, None
            self.setToolTip(tip())
        return super().data(role)


class _Once:
    """A function's value, computed on the first call."""

    def __init__(self, fn: Callable[[], str]):
        self.fn, self.value = fn, None

    def __call__(self) -> str:
        if self.fn is not None:
            self.value, self.fn = self.fn(), None
        return self.value


def _profiles_tip(session: Session, name: str, row: dict) -> str:
    """The model's strict and lenient Avg, and its Table-2 verdict, for its row's tooltips."""
    text = profile_text(session.compare_profiles(name))
    if "settings_verdict" in row:         # Table 2 (core/settings_table.py): the per-model verdict
        text += "\nTable 2: " + row["settings_verdict"]["reason"]
    return text


def profile_text(c: ProfileComparison | None) -> str:
    """A model's Avg under both parse profiles and what each lenient rescue was worth, for a tooltip."""
    if c is None:
        return ""

    def fmt(v):
        return "–" if v is None else f"{v:.1f}"

    lines = [f"Avg strict {fmt(c.strict)} · lenient {fmt(c.lenient)}"]
    if not c.rescues:
        lines.append("lenient rescues nothing: every answer reads the same")
    for status, (n, worth) in c.rescues.items():
        lines.append(f"  {status} ({STATUS_TEXT[status].removeprefix('lenient: ')}): "
                     f"{n} answers, {worth:+.1f} Avg")
    return "\n".join(lines)
