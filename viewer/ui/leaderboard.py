"""The Table-1 leaderboard of the loaded models, with reference rows; cells filter the browser."""
from __future__ import annotations

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QBrush, QColor, QFont
from PyQt6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ..core.evaluate import average
from ..core.session import Session
from ..core.tasks import COLUMN_KEYS, COLUMNS
from . import style

AVG = "Avg"


class LeaderboardPanel(QTableWidget):
    """Rows: the loaded models, then reference rows (Random, and any given, e.g. Human).

    Clicking a model's cell emits (model index, column index or None for Avg).
    """
    cellChosen = pyqtSignal(object, object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.cellClicked.connect(self._clicked)
        self.reference_rows: dict[str, dict[str, float | None]] = {}
        self._n_models = 0

    def set_reference_rows(self, rows: dict[str, dict[str, float | None]]) -> None:
        """Published rows (e.g. the paper's Human row): name -> {column key: value}."""
        self.reference_rows = dict(rows)

    def set_session(self, session: Session | None) -> None:
        self.clear()
        cols = list(COLUMN_KEYS) + [AVG]
        self.setColumnCount(len(cols))
        self.setHorizontalHeaderLabels(cols)
        for k, c in enumerate(COLUMNS):
            self.horizontalHeaderItem(k).setToolTip(f"{c.title}\n{c.task}")
        if session is None:
            self.setRowCount(0)
            return
        board = session.leaderboard()["models"]
        refs = {"Random (uniform)": session.random_row()}
        refs.update(self.reference_rows)
        names = list(board) + list(refs)
        self._n_models = len(board)
        self.setRowCount(len(names))
        self.setVerticalHeaderLabels(names)
        for r, name in enumerate(board):
            self.verticalHeaderItem(r).setForeground(QBrush(style.model_color(r).darker(120)))
            m = board[name]
            values = [m["columns"][k] for k in COLUMN_KEYS] + [m["avg"]]
            counts = [m["counts"][k] for k in COLUMN_KEYS] + [None]
            for c, (v, n) in enumerate(zip(values, counts)):
                item = self._item(v, heat=True)
                tip = f"{name} · {cols[c]}" + (f" · {n} questions" if n is not None else "")
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

    def _item(self, value: float | None, heat: bool) -> QTableWidgetItem:
        item = QTableWidgetItem("–" if value is None else f"{value:.1f}")
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if heat and value is not None:
            item.setBackground(QBrush(style.score_color(value / 100.0)))
        return item

    def _clicked(self, row: int, col: int) -> None:
        if row >= self._n_models:
            return
        self.cellChosen.emit(row, None if col >= len(COLUMN_KEYS) else col)
