"""Multiple choice with text options: each option's text, the truth marked, each model's pick as a badge.

The chart of answer kinds whose `chart` is "option-texts" (VSI-Bench's
multiple choice). It takes the charts' `set_answer(truth, picks, names, frame)`
and the question's option texts as `options`; it knows nothing of benchmarks.
"""
from __future__ import annotations

import html

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from ..core.talk.showcase import OptionRow, option_rows
from . import style


class OptionTexts(QScrollArea):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        self._layout = QVBoxLayout(body)
        self._layout.setContentsMargins(8, 8, 8, 8)
        self._layout.setSpacing(6)
        self._layout.addStretch(1)
        self.setWidget(body)
        self._labels: list[QLabel] = []
        self.rows: list[OptionRow] = []

    def set_answer(self, truth: int | None, preds: list[tuple[int, int]], names: list[str],
                   frame: str | None = None, *, options=(), **_unused) -> None:
        """`truth` and each pick are option indices; `options` the option texts in order."""
        self.rows = option_rows(options, truth, preds)
        n = len(self.rows)
        while len(self._labels) < n:
            label = QLabel(wordWrap=True, textFormat=Qt.TextFormat.RichText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self._layout.insertWidget(len(self._labels), label)
            self._labels.append(label)
        for k, label in enumerate(self._labels):
            label.setVisible(k < n)
            if k < n:
                self._show(label, self.rows[k], names)

    @staticmethod
    def _show(label: QLabel, row: OptionRow, names: list[str]) -> None:
        border = style.TRUTH_HEX if row.truth else "#c8c8c8"
        label.setStyleSheet(f"QLabel {{ border: {3 if row.truth else 1}px solid {border}; border-radius: 4px;"
                            " padding: 6px; background: white; }")
        parts = [f"<span style='font-size:14pt; font-weight:700'>{row.letter}</span>&nbsp;&nbsp;"
                 f"<span style='font-size:12pt'>{html.escape(row.text)}</span>"]
        if row.truth:
            parts.append(f"&nbsp;&nbsp;<span style='color:{style.TRUTH_HEX}; font-weight:700'>✓ ground truth</span>")
        if row.picked_by:
            badges = " ".join(style.badge_html(html.escape(names[m] if m < len(names) else f"model {m}"),
                                               style.model_color(m).name()) for m in row.picked_by)
            parts.append(f"<br>{badges}")
        label.setText("".join(parts))
