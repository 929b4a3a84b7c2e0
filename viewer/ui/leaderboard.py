"""The Table-1 leaderboard of the loaded models, with the Random reference row; cells set the browser's filter."""
from __future__ import annotations

from dataclasses import replace

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QAction, QBrush, QColor, QFont
from PyQt6.QtWidgets import QAbstractItemView, QFileDialog, QHeaderView, QTableWidget, QTableWidgetItem

from ..core.answers import STATUS_TEXT
from ..core.evaluate import ProfileComparison, average
from ..core.session import Session
from ..core.state import InspectorState
from . import style

AVG = "Avg"


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
        self._n_models = 0
        state.events.session.connect(self.set_session)
        state.events.models.connect(lambda: self.set_session(state.session))

    def set_session(self, session: Session | None) -> None:
        self.clear()
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
        refs = {"Random (uniform)": session.random_row()}
        names = list(board) + list(refs)
        self._n_models = len(board)
        self.setRowCount(len(names))
        self.setVerticalHeaderLabels(names)
        for r, name in enumerate(board):
            self.verticalHeaderItem(r).setForeground(QBrush(style.model_color(r).darker(120)))
            profiles = profile_text(session.compare_profiles(name))
            m = board[name]
            if "settings_verdict" in m:         # Table 2 (core/settings_table.py): the per-model verdict
                profiles += "\nTable 2: " + m["settings_verdict"]["reason"]
            self.verticalHeaderItem(r).setToolTip(f"{name}\n{profiles}")
            values = [m["columns"][k] for k in COLUMN_KEYS] + [m["avg"]]
            counts = [m["counts"][k] for k in COLUMN_KEYS] + [None]
            for c, (v, n) in enumerate(zip(values, counts)):
                item = self._item(v, heat=True)
                tip = f"{name} · {cols[c]}" + (f" · {n} questions" if n is not None else "")
                if c == len(COLUMN_KEYS):
                    tip += "\n" + profiles
                item.setToolTip(tip + "\nclick: show these questions in the browser")
                self.setItem(r, c, item)
        italic = QFont()
        italic.setItalic(True)
        for k, (name, row) in enumerate(refs.items()):
            r = len(board) + k
            values = [row.get(key) for key in COLUMN_KEYS] + [average(row)]
            for c, v in enumerate(values):
                item = self._item(v, heat=False)
                item.setFont(italic)
                item.setForeground(QBrush(QColor(110, 110, 110)))
                item.setToolTip(f"{name}: reference row, not a loaded model")
                self.setItem(r, c, item)

    # ------------------------------------------------------------- export
    def export_text(self, fmt: str) -> str:
        """Table 1 of the shown models (and the Random row) as `fmt`: csv, md or tex (core.board_export)."""
        from ..core.board_export import export_board
        s = self.state
        shown = [s.models[m] for m in sorted(s.visible_models) if m < len(s.models)]
        return export_board(fmt, s.session.leaderboard(), s.session.random_row(), s.session.release.benchmark, shown)

    def export(self, path: str, fmt: str | None = None) -> None:
        from pathlib import Path

        from ..core.atomic import atomic_write_text
        from ..core.board_export import SUFFIXES
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

    def _item(self, value: float | None, heat: bool) -> QTableWidgetItem:
        item = QTableWidgetItem("–" if value is None else f"{value:.1f}")
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
