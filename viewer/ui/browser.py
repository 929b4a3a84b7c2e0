"""The sample browser: a table of questions over the core's arrays, with filters.

The table model holds one index array (the visible questions, in display
order) and formats only the cells Qt asks for, so 200,000 questions scroll
as smoothly as 20. Filtering and sorting are `viewer.core.browse`.

Bound to the state (`ui.bindings`): each filter widget shows and sets its
attribute of `filter`; the table lists the questions it leaves, publishes
them in display order as `order`, selects `question` and sets it when the
user picks a row. A question shown
that the filters hide clears them. The selected model's answer, error and
score come right after the truth; the uid column shows the uid's
distinguishing tail (`Benchmark.short_uid`), the full uid in its tooltip and
the context menu's Copy uid. The sort is the state's `sort`. A browser too
narrow for the selected model's score (a 1280 px window) hides its optional
columns and narrows the uid until the score is in view (`_fit_columns`).
"""
from __future__ import annotations

import numpy as np
from PyQt6.QtCore import QAbstractTableModel, QEvent, QModelIndex, Qt
from PyQt6.QtGui import QBrush, QGuiApplication
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..core import browse
from ..core.browse import BrowseFilter, BrowseIndex
from ..core.compare import NEEDS_B
from ..core.session import Session
from ..core.state import InspectorState
from . import style
from .bindings import Bindings, signals_blocked
from .flow_layout import FlowLayout

_FIXED = [("#", "row"), ("uid", "uid"), ("scene", "scene"), ("task", "column"), ("truth", "truth")]
# Hidden, in this order, while the browser is too narrow to show the selected model's score beside them (1280 px
# windows), the uid being narrowed (elided in the middle) down to UID_MIN_CHARS first: the header above the
# sample and the scene and task filters say the same; the header's context menu shows them again.
OPTIONAL = ("row", "scene", "column")
UID_MIN_CHARS = 11
# After the models: the target in k of the N frames the selected model's policy samples (ui/target_k.py).
_TRAILING = [("k", "target_k")]
_PER_MODEL = [("answer", "answer"), ("error", "error"), ("score", "score")]
# data() runs for every role of every visible cell at each paint: the roles and the alignment looked up once.
_DISPLAY, _BACKGROUND, _FOREGROUND, _TOOLTIP, _ALIGNMENT = (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole,
    Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.TextAlignmentRole)
_ROLES = frozenset({_DISPLAY, _BACKGROUND, _FOREGROUND, _TOOLTIP, _ALIGNMENT})
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class QuestionTableModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.session: Session | None = None
        self.index_: BrowseIndex | None = None
        self.rows = np.zeros(0, np.int64)
        self.sort_key: str | tuple[str, int] = "row"
        self.descending = False
        self.first_model: int | None = None     # the browser's selected model: its columns follow the truth
        self.second_model: int | None = None    # B of an A-versus-B comparison: its columns follow A's
        # Qt asks data() for every role of every visible cell at each paint: the column keys are kept per
        # (A, B, models), and the texts that need a question's record per question, for the rows lately shown.
        self._keys: list = []
        self._keys_of: tuple | None = None
        self._texts: dict[int, tuple[str, str, str]] = {}

    # ---------------------------------------------------------------- data
    def set_session(self, session: Session | None, index: BrowseIndex | None) -> None:
        self.beginResetModel()
        self.session, self.index_ = session, index
        self._keys_of, self._texts = None, {}
        self.rows = np.arange(len(session.release), dtype=np.int64) if session else np.zeros(0, np.int64)
        self.sort_key, self.descending = "row", False
        self.endResetModel()

    def set_rows(self, rows: np.ndarray) -> None:
        rows = self._sorted(np.asarray(rows, np.int64))
        if rows.shape == self.rows.shape and self.rows.size and np.array_equal(rows, self.rows):
            # The same rows (another model chosen, its filter keeping them all): their cells are drawn again,
            # the view keeps its place and selection rather than resetting over 200,000 rows.
            self.dataChanged.emit(self.index(0, 0), self.index(len(rows) - 1, self.columnCount() - 1))
            return
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def key_of_column(self, col: int) -> str | tuple[str, int]:
        return self._column_keys()[col]

    def _column_keys(self) -> list:
        """Every column's key, in column order: the fixed ones, each model's block (model_order), the trailing."""
        n = len(self.session.results) if self.session is not None else 0
        if self._keys_of != (self.first_model, self.second_model, n):
            self._keys_of = (self.first_model, self.second_model, n)
            self._keys = [k for _, k in _FIXED] + [(name, m) for m in self.model_order() for _, name in _PER_MODEL] \
                + [k for _, k in _TRAILING]
        return self._keys

    def model_order(self) -> tuple[int, ...]:
        """Models in column order: the selected one (A) first, B of a comparison next, then the others in
        load order."""
        n = len(self.session.results) if self.session is not None else 0
        key = (n, self.first_model, self.second_model)
        if getattr(self, "_order_key", None) != key:        # asked for by every cell painted: kept per key
            lead = [m for m in (self.first_model, self.second_model) if m is not None and 0 <= m < n]
            lead = list(dict.fromkeys(lead))
            self._order = tuple(lead + [m for m in range(n) if m not in lead])
            self._order_key = key
        return self._order

    def column_changed(self, key: str) -> None:
        """Column `key`'s values changed, not the rows: its cells are drawn again."""
        if self.rows.size and self.session is not None:
            col = self.column_of(key)
            self.dataChanged.emit(self.index(0, col), self.index(len(self.rows) - 1, col))

    def column_of(self, key: str | tuple[str, int]) -> int:
        return next(c for c in range(self.columnCount()) if self.key_of_column(c) == key)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if self.session is None:
            return
        self.layoutAboutToBeChanged.emit()
        # The current and selected rows move with their questions (else the highlight stays on the
        # row number while another question is shown there, and clicking it does nothing).
        kept = self.persistentIndexList()
        questions = [int(self.rows[i.row()]) if 0 <= i.row() < len(self.rows) else -1 for i in kept]
        self.sort_key = self.key_of_column(column)
        self.descending = order == Qt.SortOrder.DescendingOrder
        self.rows = self._sorted(self.rows)
        at = self.positions_of(questions)
        self.changePersistentIndexList(kept, [self.index(at[q], i.column()) if at.get(q, -1) >= 0
                                              else QModelIndex() for q, i in zip(questions, kept)])
        self.layoutChanged.emit()

    def positions_of(self, questions: list[int]) -> dict[int, int]:
        """Each of `questions`' row in the table (-1: not listed; the rows hold a question once), found in one
        pass over the rows (a sort keeps the view's persistent indices, several per selected row: one pass
        each was a tenth of a model switch at 200,000 questions)."""
        wanted = [q for q in questions if q >= 0]
        hits = np.flatnonzero(np.isin(self.rows, wanted))
        return {**dict.fromkeys(wanted, -1), **dict(zip(self.rows[hits].tolist(), hits.tolist()))}

    def _sorted(self, rows: np.ndarray) -> np.ndarray:
        if self.session is None:
            return rows
        return self.index_.sort(rows, self.sort_key, self.descending, self.session.results)

    def position_of(self, question: int) -> int:
        hit = np.flatnonzero(self.rows == question)
        return int(hit[0]) if len(hit) else -1

    # ------------------------------------------------------------- Qt API
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        if parent.isValid() or self.session is None:
            return 0
        return len(_FIXED) + len(_PER_MODEL) * len(self.session.results) + len(_TRAILING)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or self.session is None:
            return None
        key = self.key_of_column(section)
        if role == Qt.ItemDataRole.DisplayRole:
            if isinstance(key, str):
                return dict((k, t) for t, k in _FIXED + _TRAILING)[key]
            # The model's name once, whole, over its block (answer, error, score): cut names were
            # unreadable ("sy-exp error"); its colour says whose the other two are.
            return f"{self.session.results[key[1]].model if key[0] == 'answer' else ''}\n{key[0]}"
        if role == Qt.ItemDataRole.ToolTipRole and key == "target_k":
            return "the target in k of the N frames the selected model's policy samples (0: never seen; ?: unknown)"
        if role == Qt.ItemDataRole.ToolTipRole and isinstance(key, tuple):
            note = "\nsorted by the error as a share of the column's loosest tolerance, so that columns " \
                   "of different units rank together" if key[0] == "error" else \
                "\nsorted by score, equal scores by the error as a share of the column's tolerance; the " \
                "browser opens sorted by the selected model's score, worst first" \
                if key[0] == "score" else ""
            return f"{self.session.results[key[1]].model}: {key[0]}{note}"
        if role == Qt.ItemDataRole.ForegroundRole and isinstance(key, tuple):
            return QBrush(style.model_color(key[1]).darker(130))
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        # The view asks every visible cell for some seven roles at each paint; the table answers four.
        if role not in _ROLES or self.session is None or not index.isValid():
            return None
        i = int(self.rows[index.row()])
        key = self._column_keys()[index.column()]
        rel = self.session.release
        if role == _DISPLAY:
            if key == "row":
                return str(i + 1)
            if key == "uid":
                return self._question_texts(i)[0]
            if key == "scene":
                return self.index_.scene_names[self.index_.scene_code[i]]
            if key == "column":
                return browse.column_label(int(rel.column[i]), rel.benchmark)
            if key == "truth":
                return self._question_texts(i)[1]
            if key == "target_k":                    # target in k of the N sampled frames (ui/target_k.py)
                return self.index_.target_k_text(i)
            name, m = key
            r = self.session.results[m]
            if name == "answer":
                return browse.answer_text(r, rel, i)
            if name == "error":
                return browse.error_text(r, rel, i)
            return browse.score_text(r, i)
        if role == _BACKGROUND and isinstance(key, tuple) and key[0] == "score":
            s = float(self.session.results[key[1]].score[i])
            return None if np.isnan(s) else QBrush(style.score_color(s))
        if role == _FOREGROUND and key == "truth":
            return QBrush(style.TRUTH.darker(120))
        if role == _TOOLTIP:
            if key == "uid":
                return rel.uids[i]
            if isinstance(key, tuple):
                r = self.session.results[key[1]]
                raw = r.raw[i]
                return f"{r.model}: {browse.status_text(r, i)}\n{'' if raw is None else str(raw)[:500]}"
        if role == _ALIGNMENT and (key in ("row", "truth") or isinstance(key, tuple)):
            return _RIGHT
        return None

    def _question_texts(self, i: int) -> tuple[str, str]:
        """Question i's short uid and truth, which need its record: read for the moment (a 200,000-question
        release keeps no Question per row scrolled past) and kept for the rows lately shown."""
        texts = self._texts.get(i)
        if texts is None:
            rel = self.session.release
            q = rel.question_for_now(i)
            if len(self._texts) >= TEXTS_KEPT:
                self._texts.clear()
            texts = self._texts[i] = (rel.benchmark.short_uid(q), browse.question_truth_text(q))
        return texts


TEXTS_KEPT = 2000             # rows whose record-based texts the table keeps (a few screens' worth)


class BrowserPanel(QWidget):
    """Filters above the question table."""

    def __init__(self, state: InspectorState, parent=None):
        super().__init__(parent)
        self.state = state
        self.session: Session | None = None
        self.index: BrowseIndex | None = None
        self.model = QuestionTableModel(self)
        self._widths: dict = {}           # (column key, header text) -> width, for `_widths_of`
        self._widths_of: Session | None = None

        self.search = QLineEdit(placeholderText="Search uid, target or model answers…")
        self.search.setClearButtonEnabled(True)
        self.column_box = QComboBox(toolTip="Table 1 column")
        self.scene_box = QComboBox(toolTip="Scene")
        self.model_box = QComboBox(toolTip="The model the score, status and n/p filters use; the table opens "
                                                  "sorted by its score, worst first")
        self.status_box = QComboBox(toolTip="Which of the model's answers to show")
        for key, text in browse.STATUS_FILTERS.items():
            self.status_box.addItem(key, key)
            self.status_box.setItemData(self.status_box.count() - 1, text, Qt.ItemDataRole.ToolTipRole)
        self.pattern_box = QComboBox(toolTip="Global vs local variants (Table 2), for the model chosen (or any)")
        for key, text in browse.PATTERNS.items():
            self.pattern_box.addItem("any setting pattern" if key == "any" else text.split(":")[0], key)
            self.pattern_box.setItemData(self.pattern_box.count() - 1, text, Qt.ItemDataRole.ToolTipRole)
        self.verdict_box = QComboBox(toolTip="Reviewer verdict (set in the Review panel)")
        for key, text in browse.VERDICT_FILTERS.items():
            self.verdict_box.addItem("any verdict" if key == "any" else text, key)
        # Long texts: the box must not widen the browser (the window's minimum width).
        for box, chars in ((self.pattern_box, 6), (self.status_box, 6), (self.column_box, 12),
                           (self.scene_box, 8), (self.verdict_box, 8), (self.model_box, 12)):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(chars)
        self.score_min = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2, value=0.0,
                                        prefix="score ≥ ")
        self.score_max = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2, value=1.0,
                                        prefix="≤ ")
        self.count_label = QLabel()
        self.count_label.setStyleSheet("color: gray")

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSortingEnabled(True)
        self.table.setWordWrap(False)
        # uids differ at both ends (scene ... target, view, video): keep both.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.setAlternatingRowColors(True)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        vh = self.table.verticalHeader()
        vh.setVisible(False)
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(self.fontMetrics().height() + 6)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setStretchLastSection(False)
        hh.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        hh.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        hh.customContextMenuRequested.connect(self._header_menu)
        self._chosen: dict[str, bool] = {}          # optional columns the user showed (True) or hid (False)
        self.table.viewport().installEventFilter(self)             # refits the columns (`_fit_columns`)

        # One flow of filters: two lines at 1600 px, more when the browser is narrow (1280 px), so the
        # boxes' widths never hold the browser wide and the map keeps its room.
        filters = FlowLayout(spacing=4)
        for widget, stretch in ((self.search, 3), (self.column_box, 2), (self.scene_box, 1),
                                (self.verdict_box, 1), (self.model_box, 2), (self.status_box, 1),
                                (self.pattern_box, 1), (self.score_min, 0), (self.score_max, 0),
                                (self.count_label, 0)):
            filters.addWidget(widget, stretch)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(filters)
        lay.addWidget(self.table)
        self._rows_above_table = 1

        # Typing and spinning write once they pause; a box writes at once.
        b = self.bindings = Bindings(state)
        b.text(self.search, "filter.text", debounce_ms=DEBOUNCE_MS)
        b.combo(self.column_box, "filter.columns", to_widget=_single, from_widget=_one)
        b.combo(self.scene_box, "filter.scenes", to_widget=_single, from_widget=_one)
        b.combo(self.model_box, "filter.model")
        b.combo(self.status_box, "filter.status")
        b.combo(self.verdict_box, "filter.verdict")
        b.combo(self.pattern_box, "filter.pattern", from_widget=lambda key: key or "any")
        b.value(self.score_min, "filter.score_min", debounce_ms=DEBOUNCE_MS)
        b.value(self.score_max, "filter.score_max", debounce_ms=DEBOUNCE_MS)
        # A header click sorts the model (Qt calls `sort`); a sort set in the state sorts it here.
        b.bind(self.table, "sort", changed=self.model.layoutChanged,
               read=lambda: (self.model.sort_key, self.model.descending), show=self._show_sort,
               write=self._sorted_by_header)
        self.selection = b.current_row(self.table, "question", value_of_row=lambda row: int(self.model.rows[row]),
                                       row_of_value=self._row_of, column=1)
        self._fill_boxes()

        state.events.session.connect(self._session_changed)
        state.events.models.connect(self._models_changed)
        state.events.filter.connect(self._filter_changed)
        state.events.verdicts.connect(self._verdicts_changed)
        state.events.question.connect(self._question_changed)

    def add_filter_row(self, widget: QWidget) -> None:
        """Another row of filters (the comparison bar) above the table."""
        self.layout().insertWidget(self._rows_above_table, widget)
        self._rows_above_table += 1

    # ------------------------------------------------------------ session
    def _session_changed(self, session: Session | None) -> None:
        self.session = session
        self.index = session.browse_index if session else None
        f = self.state.filter
        self.model.first_model = f.model
        self.model.second_model = f.model_b if f.compare in NEEDS_B else None
        self.model.set_session(session, self.index)
        # The state's sort for the new release (the selected model's score, worst first: state.default_sort).
        self.model.sort_key, self.model.descending = self._state_sort_key(), bool(self.state.sort[1])
        self._fill_boxes()
        self._size_columns()
        self.apply_filter()
        self._show_sort_indicator()

    def _models_changed(self) -> None:
        """Predictions were added: new model columns, same filter, same sort (the model's reset drops it)."""
        self.model.set_session(self.session, self.index)
        self.model.sort_key, self.model.descending = self._state_sort_key(), bool(self.state.sort[1])
        self._fill_boxes()
        self._size_columns()
        self.apply_filter()
        self._show_sort_indicator()

    def _fill_boxes(self) -> None:
        with self.bindings.refilling(self.column_box, self.scene_box, self.model_box):
            self._add_box_items()

    def _add_box_items(self) -> None:
        self.column_box.addItem("All columns", None)
        # The columns present, by counts: np.unique imports numpy.ma (~15 ms) the first time it is called.
        col = self.session.release.column if self.session else np.zeros(0, np.int64)
        present = set(np.flatnonzero(np.bincount(col[col >= 0])).tolist())
        for i, c in enumerate(self.session.release.benchmark.columns if self.session else ()):
            if i in present:
                self.column_box.addItem(f"{c.key} — {c.title}", i)
        self.scene_box.addItem("All scenes", None)
        for s in (self.index.scene_names if self.index else []):
            self.scene_box.addItem(s, s)
        self.model_box.addItem("(no model)", None)
        for m, r in enumerate(self.session.results if self.session else []):
            self.model_box.addItem(r.model, m)

    def _size_columns(self) -> None:
        fm = self.fontMetrics()
        header = self.table.horizontalHeader()
        hfm = header.fontMetrics()
        widths = {"row": 3, "uid": 18, "scene": 6, "column": 6, "truth": 8}
        # The task and scene columns fit their widest text (VSI-Bench's "scene0207_02", "RelDir medium").
        texts = browse.column_texts(self.index) if self.index is not None else {}
        # Measured once per session and column header: choosing another model only moves its columns.
        if self._widths_of is not self.session:
            self._widths_of, self._widths = self.session, {}
        for col in range(self.model.columnCount()):
            key = self.model.key_of_column(col)
            kept = self._widths.get((key, self.model.headerData(col, Qt.Orientation.Horizontal)))
            if kept is not None:
                self.table.setColumnWidth(col, kept)
                continue
            chars = widths.get(key, 0) if isinstance(key, str) else {"answer": 10, "error": 5, "score": 4}[key[0]]
            texts_w = [fm.horizontalAdvance(t) for t in texts.get(key, ())]
            width = max([fm.horizontalAdvance("0" * chars)] + texts_w) + 10
            if isinstance(key, tuple):
                # Room for the header's widest line and the sort arrow: a model's name is never cut.
                text = str(self.model.headerData(col, Qt.Orientation.Horizontal))
                width = max(width, max(hfm.horizontalAdvance(t) for t in text.split("\n")) + SORT_ARROW_ROOM)
            self._widths[key, self.model.headerData(col, Qt.Orientation.Horizontal)] = width
            self.table.setColumnWidth(col, width)

        self._fit_columns()

    def _natural_width(self, col: int) -> int:
        key = self.model.key_of_column(col)
        return self._widths.get((key, self.model.headerData(col, Qt.Orientation.Horizontal)),
                                self.table.columnWidth(col))

    def _up_to_score(self) -> list[int]:
        """The columns from the first to the selected model's score, or B's while A is compared with B (its
        columns follow A's); all of them without a selected model."""
        cols = list(range(self.model.columnCount()))
        last = self.model.second_model if self.model.second_model is not None else self.model.first_model
        score = ("score", last)
        return next((cols[:c + 1] for c in cols if self.model.key_of_column(c) == score), cols)

    def _fit_columns(self) -> None:
        """The selected model's score in view without scrolling sideways (a 1280 px window): the optional
        columns the user did not choose are hidden, in order, and the uid narrowed (down to UID_MIN_CHARS)
        while it would not be; all shown when there is room."""
        if self.session is None or not self.model.columnCount():
            return
        room = self.table.viewport().width()
        cols = self._up_to_score()
        uid = self.model.column_of("uid")
        natural = self._natural_width(uid)
        least = min(natural, self.fontMetrics().horizontalAdvance("0" * UID_MIN_CHARS) + 10)
        hidden = {k for k, shown in self._chosen.items() if not shown}
        for key in (None, *OPTIONAL):
            if key is not None and key not in self._chosen:
                hidden.add(key)
            needed = sum(self._natural_width(c) for c in cols if self.model.key_of_column(c) not in hidden)
            if needed - (natural - least) <= room:
                break
        for key in OPTIONAL:
            self.table.setColumnHidden(self.model.column_of(key), key in hidden)
        self.table.setColumnWidth(uid, max(least, min(natural, natural - (needed - room))))

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Resize and obj is self.table.viewport():
            self._fit_columns()
            self._show_current()        # the shown question's row stays in view as the table is laid out
        return False

    def _header_menu(self, pos) -> None:
        """Show or hide the optional columns (the user's choice then holds at every width)."""
        menu = QMenu(self)
        for key in OPTIONAL:
            col = self.model.column_of(key) if self.session is not None else -1
            title = dict((k, t) for t, k in _FIXED)[key]
            a = menu.addAction(f"{title} column")
            a.setCheckable(True)
            a.setChecked(col >= 0 and not self.table.isColumnHidden(col))
            a.toggled.connect(lambda on, k=key: self.show_column(k, on))
        menu.exec(self.table.horizontalHeader().mapToGlobal(pos))

    def show_column(self, key: str, shown: bool) -> None:
        self._chosen[key] = shown
        self._fit_columns()

    def preferred_width(self) -> int:
        """The width that shows the table's columns up to the selected model's score, scroll bar included (the
        optional columns too, unless the user hid them)."""
        shown = sum(self._natural_width(c) for c in self._up_to_score()
                    if self._chosen.get(self.model.key_of_column(c), True))
        frame = 2 * self.table.frameWidth() + self.table.verticalScrollBar().sizeHint().width()
        m = self.layout().contentsMargins()
        return shown + frame + m.left() + m.right()

    # ------------------------------------------------------------- filters
    def _filter_changed(self, f: BrowseFilter) -> None:
        second = f.model_b if f.compare in NEEDS_B else None
        if (self.model.first_model, self.model.second_model) != (f.model, second):
            # A's columns first, B's beside them while A is compared with B.
            self.model.first_model, self.model.second_model = f.model, second
            self.model.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, max(self.model.columnCount() - 1, 0))
            self._size_columns()
            self._show_sort_indicator()
        self.apply_filter()

    def _verdicts_changed(self) -> None:
        if self.state.filter.verdict != "any":
            self.apply_filter()

    def apply_filter(self) -> None:
        """List the questions the state's filter leaves; the question shown stays if it is among them."""
        if self.session is None:
            return
        state = self.state
        self.model.set_rows(self.index.rows(state.filter, self.session.results, state.verdicts))
        n, total = len(self.model.rows), len(self.session.release)
        self.count_label.setText(f"{n:,} of {total:,}")
        self._publish_order()
        if state.question is not None and self.model.position_of(state.question) >= 0:
            self.selection.pull()
        elif n:
            state.question = state.first_listed(self.model.rows)

    def _publish_order(self) -> None:
        self.state.order = self.model.rows

    # -------------------------------------------------------------- sorting
    def _sorted_by_header(self, sort: tuple) -> None:
        """A header click sorted the table: the state's `sort` says so, and the order is published."""
        self.state.sort = sort
        self._publish_order()         # also when the sort is the one the state had
        self._show_current()

    def _show_current(self) -> None:
        """The shown question's row, scrolled into view after a sort."""
        idx = self.table.currentIndex()
        if idx.isValid():
            self.table.scrollTo(idx, QAbstractItemView.ScrollHint.EnsureVisible)

    def _state_sort_key(self):
        key = self.state.sort[0]
        n = len(self.session.results) if self.session is not None else 0
        return key if isinstance(key, str) or 0 <= key[1] < n else "row"

    def _show_sort(self, sort: tuple) -> None:
        """The state's sort: the table sorted by it, its arrow shown and the order published."""
        if self.session is None:
            return
        if (self.model.sort_key, self.model.descending) != tuple(sort):
            order = Qt.SortOrder.DescendingOrder if sort[1] else Qt.SortOrder.AscendingOrder
            self.model.sort(self.model.column_of(self._state_sort_key()), order)
        self._show_sort_indicator()
        self._publish_order()
        self._show_current()

    def _show_sort_indicator(self) -> None:
        """The header's arrow on the sorted column, which moves when the selected model's columns do."""
        hh = self.table.horizontalHeader()
        with signals_blocked(hh):             # else the table view would sort again
            if self.model.sort_key == "row" and not self.model.descending:
                hh.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
            else:
                order = Qt.SortOrder.DescendingOrder if self.model.descending else Qt.SortOrder.AscendingOrder
                hh.setSortIndicator(self.model.column_of(self.model.sort_key), order)
        hh.viewport().update()

    # -------------------------------------------------------- context menu
    def _context_menu(self, pos) -> None:
        idx = self.table.indexAt(pos)
        if not idx.isValid() or self.session is None:
            return
        uid = self.session.release.uids[int(self.model.rows[idx.row()])]
        menu = QMenu(self)
        menu.addAction("Copy uid", lambda: QGuiApplication.clipboard().setText(uid))
        menu.exec(self.table.viewport().mapToGlobal(pos))

    # ---------------------------------------------------------- selection
    def _question_changed(self, question: int | None) -> None:
        """Shown from elsewhere (an audit finding, --uid) but filtered out: list everything (`selection`
        then selects it)."""
        if question is not None and self.session is not None and self.model.position_of(question) < 0:
            f = self.state.filter
            self.state.filter = BrowseFilter(model=f.model, model_b=f.model_b)

    def _row_of(self, question: int | None) -> int:
        return -1 if question is None else self.model.position_of(question)

    def select_position(self, pos: int) -> None:
        if not 0 <= pos < self.model.rowCount():
            return
        idx = self.model.index(pos, 1)
        self.table.setCurrentIndex(idx)
        self.table.scrollTo(idx, QAbstractItemView.ScrollHint.EnsureVisible)



DEBOUNCE_MS = 150
SORT_ARROW_ROOM = 22          # pixels a header keeps beside its text for the sort indicator


def _single(values: frozenset | None):
    return next(iter(values)) if values is not None and len(values) == 1 else None


def _one(value) -> frozenset | None:
    return None if value is None else frozenset({value})
