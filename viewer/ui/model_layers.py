"""The model layers: each loaded model with a visibility check box, its colour and its marker shape.

A hidden model (unchecked) leaves the map, the 3D view, the charts, the
plots and every export: they draw `state.shown_results()` / `visible_models`.
A name edited here (double-click, F2) renames the model everywhere (`state.rename_model`).
"""
from __future__ import annotations

from PyQt6.QtCore import QPointF, QRectF, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from PyQt6.QtWidgets import QListWidget, QListWidgetItem

from ..core.state import InspectorState
from . import style
from .bindings import Bindings


def model_icon(index: int, size: int = 16) -> QIcon:
    """The model's marker as the map and figures draw it: its shape, filled with its colour."""
    pm = QPixmap(size, size)
    pm.fill(QColor(0, 0, 0, 0))
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setBrush(style.model_color(index))
    p.setPen(QPen(QColor(0, 0, 0), 1.2))
    r = size / 2 - 1.5
    c = QPointF(size / 2, size / 2)
    shape = style.model_shape(index)
    path = QPainterPath()
    if shape == "square":
        path.addRect(QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r))
    elif shape == "triangle":
        path.addPolygon(QPolygonF([QPointF(c.x(), c.y() - r), QPointF(c.x() + r, c.y() + r * 0.8),
                                   QPointF(c.x() - r, c.y() + r * 0.8)]))
        path.closeSubpath()
    elif shape == "diamond":
        path.addPolygon(QPolygonF([QPointF(c.x(), c.y() - r), QPointF(c.x() + r, c.y()),
                                   QPointF(c.x(), c.y() + r), QPointF(c.x() - r, c.y())]))
        path.closeSubpath()
    else:
        path.addEllipse(c, r, r)
    p.drawPath(path)
    p.end()
    return QIcon(pm)


class ModelLayersPanel(QListWidget):
    message = pyqtSignal(str)          # a rename refused: why

    def __init__(self, state: InspectorState, parent=None):
        super().__init__(parent)
        self.state = state
        self.bindings = Bindings(state)
        self.bindings.checked_rows(self, "visible_models")
        self.setEditTriggers(QListWidget.EditTrigger.DoubleClicked | QListWidget.EditTrigger.EditKeyPressed)
        self.itemChanged.connect(self._renamed)
        state.events.session.connect(self._fill)
        state.events.models.connect(self._fill)

    def _renamed(self, item: QListWidgetItem) -> None:
        m = self.row(item)
        if not 0 <= m < len(self.state.models) or item.text() == self.state.models[m]:
            return                                   # a check box, not the name
        # After the editor has closed: the rename refills this list, item included.
        QTimer.singleShot(0, lambda name=item.text(): self._rename(m, name))

    def _rename(self, m: int, name: str) -> None:
        why_not = self.state.rename_model(m, name)
        if why_not:
            self.message.emit(f"rename: {why_not}")
            self._fill()

    def _fill(self) -> None:
        with self.bindings.refilling(self):
            for m, name in enumerate(self.state.models):
                item = QListWidgetItem(model_icon(m), name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEditable)
                item.setToolTip(f"{name}: {style.model_color(m).name()} {style.model_shape(m)}; "
                                "unchecked: left out of the map, 3D view, charts, plots and exports; "
                                "double-click to rename")
                self.addItem(item)
