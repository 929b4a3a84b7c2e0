"""Answers without a map: a direction dial for angles, bars for distances (pyqtgraph)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PyQt6.QtCore import QRectF
from PyQt6.QtGui import QBrush, QColor, QFont

from ..core.scoring import ANGLE_TOLERANCES, MRA_THETAS, relative_error
from . import style
from .map_view import PlotWithLegend, _pen, _polygon


def dial_vector(deg) -> np.ndarray:
    """Direction on the dial (y up): 0 = up (ahead / image up), counter-clockwise positive."""
    a = np.radians(np.asarray(deg, float))
    return np.stack([-np.sin(a), np.cos(a)], axis=-1)


def _sector(centre: float, half: float, radius: float = 1.0) -> np.ndarray:
    a = np.linspace(centre - half, centre + half, 40)
    return np.vstack([[0, 0], radius * dial_vector(a), [0, 0]])


class _Chart(PlotWithLegend):
    def __init__(self, parent=None):
        super().__init__(QColor(250, 250, 250), (30, 30, 30), parent)
        self.legend.setColumnCount(1)
        self.vb.setMouseEnabled(False, False)

    def clear_chart(self) -> None:
        self._clear_items()


class DirectionDial(_Chart):
    """Seen from above: you at the centre facing up; the true and predicted directions."""

    LABELS = {"egocentric": ("0° ahead", "+90°\nleft", "−90°\nright", "±180° behind"),
              "map": ("0° image up", "+90°\nimage\nleft", "−90°\nimage\nright", "±180° image down")}

    def __init__(self, parent=None):
        super().__init__(parent)
        self.item.hideAxis("left")
        self.item.hideAxis("bottom")
        self.vb.setAspectLocked(True)
        self.vb.setRange(QRectF(-1.7, -1.3, 3.4, 2.6), padding=0)

    def set_answer(self, truth: float | None, preds: list[tuple[int, float]], names: list[str],
                   frame: str = "egocentric") -> None:
        self.clear_chart()
        self.arrow_tips: list[tuple[str, np.ndarray]] = []      # (colour, tip) as drawn
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
        # Models are named in the answers table, in these colours.
        for m, v in preds:
            self._arrow(v, style.model_color(m), 2.8, None)
        if truth is not None:
            c = QColor(style.TRUTH)
            c.setAlpha(90)
            self.legend.addItem(pg.BarGraphItem(x=[0], height=[1], width=1, brush=c, pen=None),
                                "within 15° / 30° / 45° of the truth")
        you = np.array([[0, 0.12], [-0.07, -0.07], [0.07, -0.07], [0, 0.12]])
        self._add(_filled(you, QColor(60, 60, 60)))

    def _arrow(self, deg: float, color: QColor, width: float, name: str | None) -> None:
        v = dial_vector(deg)
        self.arrow_tips.append((color.name(), 0.9 * v))
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
            c = QColor(style.TRUTH)
            c.setAlpha(90)
            self.legend.addItem(pg.BarGraphItem(x=[0], height=[1], width=1, brush=c, pen=None),
                                "ranges the 10 MRA thresholds accept (±5% … ±50% of the truth)")
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
