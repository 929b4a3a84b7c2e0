"""The map view with its toolbar: which map to show (release image, scene map, rendered level)."""
from __future__ import annotations

import numpy as np
from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QStackedWidget, QToolButton, QVBoxLayout, QWidget

from ..core.primitives import Overlay
from .map_view import MapView

# Source keys: "release" (the question's own map image), "scene:<name>" (a map
# listed in scene.json), "render:<level>" (rendered from the mesh).
RENDER_LABELS = {"photo": "rendered: photo", "occupancy": "rendered: occupancy",
                 "floorplan": "rendered: floor plan"}


class MapPanel(QWidget):
    sourceChosen = pyqtSignal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.source_box = QComboBox(toolTip="Map shown: the release's image, a scene map, or a "
                                            "rendering of the scene at one of three abstraction levels")
        self.source_box.setMinimumContentsLength(18)
        self.fit_button = QToolButton(text="Fit", toolTip="Show the whole map")
        self.note = QLabel()
        self.note.setStyleSheet("color: #b26a00")
        self.note.setWordWrap(True)
        self.view = MapView()
        self.message = QLabel()
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setStyleSheet("background: rgb(40,40,44); color: rgb(210,210,210); padding: 12px")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.view)
        self.stack.addWidget(self.message)

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        bar.addWidget(QLabel("Map:"))
        bar.addWidget(self.source_box)
        bar.addWidget(self.fit_button)
        bar.addWidget(self.note, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(bar)
        lay.addWidget(self.stack, 1)
        self.fit_button.clicked.connect(self.view.reset_zoom)
        self.source_box.activated.connect(lambda _: self.sourceChosen.emit(self.source_box.currentData()))

    def set_sources(self, sources: list[tuple[str, str]], current: str | None) -> None:
        self.source_box.blockSignals(True)
        self.source_box.clear()
        for key, label in sources:
            self.source_box.addItem(label, key)
        k = self.source_box.findData(current)
        self.source_box.setCurrentIndex(max(k, 0))
        self.source_box.setEnabled(len(sources) > 1)
        self.source_box.blockSignals(False)

    @property
    def current_source(self) -> str | None:
        return self.source_box.currentData()

    def select_source(self, key: str) -> bool:
        """As if the user picked `key` (tests, remembered choice)."""
        k = self.source_box.findData(key)
        if k < 0:
            return False
        self.source_box.setCurrentIndex(k)
        self.sourceChosen.emit(key)
        return True

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.stack.setCurrentWidget(self.message)

    def show_map(self, image: np.ndarray, overlay: Overlay | None, names: list[str]) -> None:
        self.view.set_map(image)
        self.view.set_overlay(overlay, names)
        self.note.setText("; ".join(overlay.notes) if overlay is not None else "")
        self.stack.setCurrentWidget(self.view)

    def set_note(self, text: str) -> None:
        self.note.setText(text)
