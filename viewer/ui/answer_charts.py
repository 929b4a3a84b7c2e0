"""Answers without a map: a direction dial for angles, bars for distances (pyqtgraph)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PyQt6.QtCore import QRectF
from PyQt6.QtGui import QBrush, QColor, QFont

from ..core.scoring import ANGLE_TOLERANCES, MRA_THETAS, angle_error, relative_error
from . import style
from .map_view import _pen, _polygon


def dial_vector(deg) -> np.ndarray:
    """Direction on the dial (y up): 0 = up (ahead / image up), counter-clockwise positive."""
    a = np.radians(np.asarray(deg, float))
    return np.stack([-np.sin(a), np.cos(a)], axis=-1)


def _sector(centre: float, half: float, radius: float = 1.0) -> np.ndarray:
    a = np.linspace(centre - half, centre + half, 40)
    return np.vstack([[0, 0], radius * dial_vector(a), [0, 0]])


class _Chart(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setBackground(QColor(250, 250, 250))
        self.item = self.getPlotItem()
        self.item.setMenuEnabled(False)
        self.item.hideButtons()
        self.vb = self.item.getViewBox()
        self.vb.setMouseEnabled(False, False)
        self.legend = self.item.addLegend(offset=(6, 6), brush=QBrush(QColor(255, 255, 255, 220)),
                                          labelTextColor=(30, 30, 30))
        self._items: list = []

    def _add(self, item, legend: str | None = None):
        self.addItem(item)
        self._items.append(item)
        if legend:
            self.legend.addItem(item, legend)
        return item

    def clear_chart(self) -> None:
        for it in self._items:
            self.removeItem(it)
        self._items = []
        self.legend.clear()


class DirectionDial(_Chart):
    """Seen from above: you at the centre facing up; the true and predicted directions."""

    LABELS = {"egocentric": ("0° ahead", "+90° left", "−90° right", "±180° behind"),
              "map": ("0° image up", "+90° image left", "−90° image right", "±180° image down")}

    def __init__(self, parent=None):
        super().__init__(parent)
        self.item.hideAxis("left")
        self.item.hideAxis("bottom")
        self.vb.setAspectLocked(True)
        self.vb.setRange(QRectF(-1.45, -1.3, 2.9, 2.6), padding=0)

    def set_answer(self, truth: float | None, preds: list[tuple[int, float]], names: list[str],
                   frame: str = "egocentric") -> None:
        self.clear_chart()
        t = np.linspace(0, 2 * np.pi, 200)
        self._add(pg.PlotDataItem(np.cos(t), np.sin(t), pen=_pen(QColor(150, 150, 150), 1.5)))
        for a in range(0, 360, 45):
            v = dial_vector(a)
            self._add(pg.PlotDataItem([0.93 * v[0], v[0]], [0.93 * v[1], v[1]],
                                      pen=_pen(QColor(150, 150, 150), 1)))
        font = QFont()
        font.setPointSize(9)
        for text, a, anchor in zip(self.LABELS[frame], (0, 90, -90, 180),
                                   ((0.5, 1), (1, 0.5), (0, 0.5), (0.5, 0))):
            v = dial_vector(a) * 1.04
            label = pg.TextItem(text, color=(90, 90, 90), anchor=anchor)
            label.setFont(font)
            label.setPos(*v)
            self._add(label)
        if truth is not None:
            for tau in ANGLE_TOLERANCES[::-1]:
                c = QColor(style.TRUTH)
                c.setAlpha({15.0: 120, 30.0: 75, 45.0: 40}[float(tau)])
                self._add(_filled(_sector(truth, float(tau)), c))
            self._arrow(truth, style.TRUTH, 4.5, f"ground truth {truth:g}°")
        for m, v in preds:
            err = f", off by {float(angle_error(v, truth)):.0f}°" if truth is not None else ""
            self._arrow(v, style.model_color(m), 2.8, f"{names[m]}: {v:g}°{err}")
        if truth is not None:
            note = pg.TextItem("shaded: within 15° / 30° / 45° of the truth", color=(0, 110, 50),
                               anchor=(0, 1))
            note.setFont(font)
            note.setPos(-1.42, -1.28)
            self._add(note)
        you = np.array([[0, 0.12], [-0.07, -0.07], [0.07, -0.07], [0, 0.12]])
        self._add(_filled(you, QColor(60, 60, 60)))

    def _arrow(self, deg: float, color: QColor, width: float, name: str) -> None:
        v = dial_vector(deg)
        self._add(pg.PlotDataItem([0, 0.9 * v[0]], [0, 0.9 * v[1]], pen=_pen(color, width)), name)
        # ArrowItem angles are on screen (y down), 0 pointing left.
        head = pg.ArrowItem(angle=float(np.degrees(np.arctan2(v[1], -v[0]))), headLen=16,
                            tipAngle=35, brush=color, pen=pg.mkPen(color))
        head.setPos(0.9 * v[0], 0.9 * v[1])
        self._add(head)


def _filled(poly: np.ndarray, color: QColor):
    return _polygon(poly, _pen(QColor(0, 0, 0, 0), 0), QBrush(color))


class DistanceBars(_Chart):
    """Truth and predicted distances as bars, over the bands each MRA threshold accepts."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.item.setLabel("bottom", "distance (m)")
        self.item.showGrid(x=True, y=False, alpha=0.3)

    def set_answer(self, truth: float | None, preds: list[tuple[int, float]], names: list[str]) -> None:
        self.clear_chart()
        rows = [("ground truth", truth, style.TRUTH)] if truth is not None else []
        rows += [(names[m], v, style.model_color(m)) for m, v in preds]
        n = len(rows)
        if truth is not None:
            # Nested bands: |p - g| / g <= 1 - theta for theta = 0.95 (narrowest) .. 0.50.
            for theta in MRA_THETAS:
                tol = 1.0 - theta
                c = QColor(style.TRUTH)
                c.setAlpha(22)
                band = pg.LinearRegionItem((truth * (1 - tol), truth * (1 + tol)), movable=False,
                                           brush=QBrush(c), pen=pg.mkPen(None))
                self._add(band)
        if truth is not None:
            note = pg.TextItem("shaded: the ranges the 10 MRA thresholds accept (±5% … ±50%)",
                               color=(0, 110, 50), anchor=(0, 0))
            note.setPos(0, n - 0.45)
            self._add(note)
        ticks = []
        for k, (name, v, color) in enumerate(rows):
            y = n - 1 - k
            ticks.append((y, name))
            self._add(pg.BarGraphItem(x0=[0], y=[y], width=[max(v, 0.0)], height=0.55,
                                      brush=QBrush(color), pen=pg.mkPen(color.darker(130))))
            text = f"{v:.1f} m"
            if truth is not None and k > 0:
                rel = float(relative_error(v, truth))
                text += f"  ({100 * rel:.0f}% off)" if np.isfinite(rel) else ""
            label = pg.TextItem(text, color=(40, 40, 40), anchor=(0, 0.5))
            label.setPos(max(v, 0.0), y)
            self._add(label)
        self.item.getAxis("left").setTicks([ticks])
        vmax = max([v for _, v, _ in rows if v is not None] + [1.0])
        hi = max(vmax, (truth or 0) * 1.5) * 1.35
        self.vb.setRange(xRange=(0, hi), yRange=(-0.6, max(n, 1) - 0.4), padding=0)
