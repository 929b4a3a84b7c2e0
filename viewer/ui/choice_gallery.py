"""Multiple-choice questions: the options side by side, the truth and each model's pick marked."""
from __future__ import annotations

import html

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QImage
from PyQt6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from . import style
from .image_pane import ImagePane


class _Option(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.pane = ImagePane("loading…")
        self.picks = QLabel()
        self.picks.setTextFormat(Qt.TextFormat.RichText)
        self.picks.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picks.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.setSpacing(2)
        lay.addWidget(self.pane, 1)
        lay.addWidget(self.picks)


class ChoiceGallery(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(4, 4, 4, 4)
        self.grid.setSpacing(6)
        self.options: list[_Option] = []

    def set_options(self, n: int, truth: int | None, picks: list[tuple[int, int]],
                    names: list[str]) -> None:
        """n options; truth index; picks as (model index, option index)."""
        while len(self.options) < n:
            opt = _Option()
            self.options.append(opt)
        for k, opt in enumerate(self.options):
            self.grid.removeWidget(opt)
            opt.setVisible(k < n)
        cols = 2 if n <= 4 else 3
        for k in range(n):
            self.grid.addWidget(self.options[k], k // cols, k % cols)
            opt = self.options[k]
            letter = chr(ord("A") + k)
            is_truth = truth == k
            opt.pane.set_caption(f"{letter}  ✓ ground truth" if is_truth else letter)
            opt.pane.set_frame_color(style.TRUTH if is_truth else None)
            chosen = [m for m, p in picks if p == k]
            if chosen:
                opt.picks.setText(" ".join(
                    style.badge_html(html.escape(names[m]), style.model_color(m).name()) for m in chosen))
            else:
                opt.picks.setText("<span style='color:gray'>no model picked this</span>")

    def set_image(self, k: int, image: QImage | None, message: str = "") -> None:
        if 0 <= k < len(self.options):
            self.options[k].pane.set_image(image, message)
