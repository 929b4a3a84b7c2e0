"""The question shown: a header, its prompt with media in order, and each model's answer.

Each binds to the state: it redraws when the question, the session or its
models change. The answers table's check boxes are the state's visible models.
"""
from __future__ import annotations

import html

import numpy as np
from PyQt6.QtCore import Qt, QUrl, pyqtSignal
from PyQt6.QtGui import QBrush
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
)

from ..core import browse
from ..core.release import Question
from ..core.session import Session
from ..core.state import InspectorState
from ..core.talk.showcase import truth_for_people
from . import style


def media_label(question: Question, kind: str, index: int) -> str:
    if kind == "video":
        return "exploration video"
    role = question.image_role(index)
    if role == "option":
        return f"option {chr(ord('A') + index)}"
    return {"map": "top-down map", "view": "current view"}.get(role, f"image {index + 1}")


def _bind_question(state: InspectorState, show) -> None:
    """Call `show()` whenever what a question view shows may have changed."""
    for signal in (state.events.session, state.events.question, state.events.models):
        signal.connect(show)


class SampleHeader(QLabel):
    def __init__(self, state: InspectorState, parent=None):
        super().__init__(parent)
        self.state = state
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setWordWrap(True)
        self.setContentsMargins(6, 4, 6, 4)
        _bind_question(state, self.refresh)
        self.refresh()

    def refresh(self) -> None:
        self.show_question(self.state.session, self.state.question)

    def show_question(self, session: Session | None, qi: int | None) -> None:
        if session is None or qi is None:
            self.setText("<i>No question selected</i>")
            return
        q = session.release.questions[qi]
        c = q.column
        key = browse.column_label(q.column_index, q.benchmark)      # the benchmark's short label
        title = c.title if c else f"unknown task {q.task}"
        truth = truth_for_people(session.release, qi)             # in the question's unit, as the figures
        self.setText(
            f"<span style='font-size:13pt'>{style.badge_html(key, '#455A64')}&nbsp; "
            f"<b>{html.escape(title)}</b></span>"
            f" &nbsp;·&nbsp; {html.escape(q.scene)} &nbsp;·&nbsp; ground truth "
            f"<b style='color:{style.TRUTH_HEX}'>{html.escape(truth)}</b>"
            f"<br><span style='color:gray'>{html.escape(q.uid)}</span>")


class PromptView(QTextBrowser):
    """The prompt as the model read it, media shown as clickable chips between the texts."""
    mediaActivated = pyqtSignal(str, int)        # "video" | "image", image index

    def __init__(self, state: InspectorState, parent=None):
        super().__init__(parent)
        self.state = state
        self.setOpenLinks(False)
        # The scroll bar kept: shown for a long prompt and hidden for a short one, it resized the text's
        # viewport at every other question, laying the text out twice and repainting the pane around it.
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.anchorClicked.connect(self._clicked)
        for signal in (state.events.session, state.events.question):
            signal.connect(lambda: self.show_question(state.current))

    def show_question(self, q: Question | None) -> None:
        if q is None:
            self.setHtml("")
            return
        parts = []
        image_k = 0
        for kind, item in q.prompt_segments():
            if kind == "text":
                parts.append(html.escape(item).replace("\n", "<br>"))
                continue
            if kind == "video":
                label, href = media_label(q, "video", 0), "media:video:0"
                icon = "▶"
            else:
                label, href = media_label(q, "image", image_k), f"media:image:{image_k}"
                icon = "▣"
                image_k += 1
            state = "" if item.exists else (f" <span style='color:#c62828'>— {html.escape(item.name)}: "
                                            f"{html.escape(item.problem or 'missing')}</span>")
            parts.append(f"<a href='{href}' style='text-decoration:none; color:#1565C0'>"
                         f"<b>[{icon} {html.escape(label)}]</b></a>{state}")
        self.setHtml("<div style='line-height:140%'>" + "<br>".join(parts) + "</div>")

    def _clicked(self, url: QUrl) -> None:
        parts = url.toString().split(":")
        if len(parts) == 3 and parts[0] == "media":
            self.mediaActivated.emit(parts[1], int(parts[2]))


class AnswersTable(QTableWidget):
    """One row per model: parsed answer, error, score, and the raw text it was parsed from.

    The check box by a model's name shows or hides it on the map, 3D view, charts and exports.
    """
    # Short headers, said in full in their tooltips: "raw answer / parse status" was cut at 1280 px.
    _HEAD = ["model", "answer", "error", "score", "raw answer"]
    _HEAD_TIPS = ["the model (its check box shows or hides it on the map, 3D view, charts and exports)",
                  "the answer as parsed from the model's text", "the error against the ground truth",
                  "the score, from 0 (wrong) to 1 (right)",
                  "the model's text as it answered; when it could not be parsed or scored, why, first"]

    def __init__(self, state: InspectorState, parent=None):
        super().__init__(0, len(self._HEAD), parent)
        self.state = state
        self.setHorizontalHeaderLabels(self._HEAD)
        for c, tip in enumerate(self._HEAD_TIPS):
            self.horizontalHeaderItem(c).setToolTip(tip)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.verticalHeader().setVisible(False)
        self.setWordWrap(False)
        hh = self.horizontalHeader()
        for c in range(4):
            hh.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.itemChanged.connect(self._checked)
        _bind_question(state, self.refresh)
        state.events.visible_models.connect(self._show_visible)

    def refresh(self) -> None:
        self.blockSignals(True)
        self.show_question(self.state.session, self.state.question)
        self._show_visible(self.state.visible_models)
        self.blockSignals(False)
        # The names whole: sized once their rows and check boxes are in (the header sized them without
        # the check box, and cut "random-guesser" to "random-gu…").
        self.resizeColumnToContents(0)

    def _show_visible(self, models: frozenset[int]) -> None:
        self.blockSignals(True)
        for m in range(self.rowCount()):
            self.item(m, 0).setCheckState(Qt.CheckState.Checked if m in models else Qt.CheckState.Unchecked)
        self.blockSignals(False)

    def _checked(self, item: QTableWidgetItem) -> None:
        if item.column() != 0:
            return
        m = item.row()
        shown = item.checkState() == Qt.CheckState.Checked
        models = self.state.visible_models
        self.state.visible_models = models | {m} if shown else models - {m}

    def show_question(self, session: Session | None, qi: int | None) -> None:
        results = session.results if session is not None and qi is not None else []
        if self.rowCount() != len(results):
            self.setRowCount(len(results))
        for m in range(len(results)):
            if self.item(m, 0) is None:
                self._new_row(m)
        # Each item's change would tell the view at once, and the header sizes its columns to their contents
        # at each: 11 ms a question with 22 models. Told once, for the whole table, it is under 1 ms.
        model = self.model()
        model.blockSignals(True)
        try:
            self._fill(session, qi, results)
        finally:
            model.blockSignals(False)
        if results:
            model.dataChanged.emit(model.index(0, 0), model.index(len(results) - 1, self.columnCount() - 1))

    def _fill(self, session: Session, qi: int, results: list) -> None:
        for m, r in enumerate(results):
            rel = session.release
            raw = r.raw[qi]
            raw_text = "" if raw is None else " ".join(str(raw).split())
            status = browse.status_text(r, qi)
            s = float(r.score[qi])
            texts = (f"● {r.model}", browse.answer_text(r, rel, qi), browse.error_text(r, rel, qi),
                     browse.score_text(r, qi), raw_text if r.status[qi] == "ok" else f"{status} — {raw_text}")
            # The row's items are kept and their texts set: an item made anew per cell and question cost
            # ~0.3 ms each (inserted, laid out, the old one deleted); a text that did not change costs nothing.
            for c, text in enumerate(texts):
                item = self.item(m, c)
                if item.text() != text:
                    item.setText(text)
            self.item(m, 0).setForeground(QBrush(style.model_color(m)))
            self.item(m, 3).setBackground(QBrush() if np.isnan(s) else QBrush(style.score_color(s)))
            self.item(m, 4).setToolTip("" if raw is None else str(raw)[:2000])

    def _new_row(self, m: int) -> None:
        name = QTableWidgetItem()
        name.setFlags(name.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        name.setToolTip("shown on the map, in the 3D view, the charts and exports")
        for c, item in enumerate((name, *(QTableWidgetItem() for _ in range(4)))):
            if c in (1, 2, 3):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(m, c, item)
