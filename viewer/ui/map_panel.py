"""The map view with its toolbar: which map to show (release image, scene map, rendered level).

The source box lists the options `viewer.core.map_choice` gives; picking one
sets the state's `map_source`, which the sample view draws.
"""
from __future__ import annotations

import numpy as np
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QStackedWidget, QToolButton, QVBoxLayout, QWidget

from ..core.map_choice import MapOption, MapSource
from ..core.primitives import Overlay
from ..core.state import InspectorState
from .bindings import Bindings
from .map_view import MapView


class MapPanel(QWidget):
    def __init__(self, state: InspectorState, parent=None):
        super().__init__(parent)
        self.state = state
        self.source_box = QComboBox(toolTip="Map shown: the release's image, a scene map, or a "
                                            "rendering of the scene at one of three abstraction levels")
        self.source_box.setMinimumContentsLength(18)
        self.fit_button = QToolButton(text="Fit", checkable=True,
                                      toolTip="Show the whole map; again: back to where the answer is read "
                                              "(a direction's view, rays and target)")
        self.note = QLabel()
        self.note.setStyleSheet("color: #b26a00")
        self.note.setWordWrap(True)
        # Where a release without 3D has no camera path: "Reconstruct the path from the video", then the
        # run's progress and Cancel (ui/reconstruct_job.py shows it and says what it does).
        self.path_button = QToolButton(objectName="path_button")
        self.path_button.hide()
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
        bar.addWidget(self.path_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(bar)
        lay.addWidget(self.stack, 1)
        self.fit_button.toggled.connect(self.view.set_whole_map)
        # One way: `map_source` is the user's preference; the box shows the map shown, which the
        # sample view passes to `set_sources` (`choose_map` may fall back from the preference).
        self.bindings = Bindings(state)
        self.bindings.combo(self.source_box, "map_source", signal="activated", show=None)
        self._listed: tuple = ()                 # the (label, source) pairs the box lists

    def set_sources(self, options: tuple[MapOption, ...], current: MapSource | None) -> None:
        """The box lists `options` with `current` chosen; refilled only when they change (the questions of a
        scene offer the same maps: the box emptied and filled again was laid out and repainted, with the
        toolbar, at every question)."""
        k = next((k for k, o in enumerate(options) if o.source == current), 0)
        listed = tuple((o.label, o.source) for o in options)
        if listed != self._listed or k != self.source_box.currentIndex():
            with self.bindings.refilling(self.source_box):
                for label, source in listed:
                    self.source_box.addItem(label, source)
                self.source_box.setCurrentIndex(k)
            self._listed = listed
        self.source_box.setEnabled(len(options) > 1)

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
