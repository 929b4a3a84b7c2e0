"""Answers without a map: a direction dial for angles, bars for distances (pyqtgraph).

Every chart takes `set_answer(truth, [(model, value)], names, frame, **details)`; an answer
kind names the chart it wants (`AnswerKind.chart`), so a new kind may reuse one. The details
are the question's as the core gives them (`scale`: what a number measures and its unit,
`options`: option texts); a chart uses those it draws and ignores the others.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PyQt6.QtCore import QRectF
from PyQt6.QtGui import QBrush, QColor, QFont

from ..core.benchmarks import METRES, Scale
from ..core.scoring import ANGLE_TOLERANCES, MRA_THETAS, relative_error
from . import style
from .plot_items import (
    NO_PEN,
    PlotWithLegend,
    arrowhead,
    fill_sample,
    label,
    line_sample,
    model_legend,
    pen,
    polygon,
    polyline,
)


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
        self.clear_layer()


DIAL_LABEL_AT = 1.04          # the labels' distance from the centre, in dial radii
DIAL_MARGIN = 4               # pixels between a label and the pane's edge
DIAL_MIN_PX = 20              # pixels per radius, at the least


class DirectionDial(_Chart):
    """Seen from above: you at the centre facing up; the true and predicted directions."""

    LABELS = {"egocentric": ("0° ahead", "+90°\nleft", "−90°\nright", "±180° behind"),
              "map": ("0° image up", "+90°\nimage\nleft", "−90°\nimage\nright", "±180° image down")}

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hide_axes("left", "bottom")
        self.vb.setAspectLocked(True)
        self.vb.setRange(QRectF(-1.7, -1.3, 3.4, 2.6), padding=0)
        # The dial itself never changes: built once, only its labels' texts do.
        grey = QColor(150, 150, 150)
        t = np.linspace(0, 2 * np.pi, 200)
        self.item.addItem(pg.PlotDataItem(np.cos(t), np.sin(t), pen=pen(grey, 1.5)))
        ticks = dial_vector(np.arange(0, 360, 45))
        seg = np.stack([0.93 * ticks, ticks], axis=1).reshape(-1, 2)
        self.item.addItem(pg.PlotDataItem(seg[:, 0], seg[:, 1], pen=pen(grey, 1), connect="pairs"))
        font = QFont()
        font.setPointSize(9)
        self._labels = []
        for a, anchor in zip((0, 90, -90, 180), ((0.5, 1), (1, 0.5), (0, 0.5), (0.5, 0))):
            text_item = pg.TextItem("", color=(90, 90, 90), anchor=anchor)
            text_item.setFont(font)
            text_item.setPos(*(dial_vector(a) * DIAL_LABEL_AT))
            self.item.addItem(text_item)
            self._labels.append(text_item)
        you = np.array([[0, 0.12], [-0.07, -0.07], [0.07, -0.07], [0, 0.12]])
        you_item = polygon(you, NO_PEN, QBrush(QColor(60, 60, 60)))
        you_item.setZValue(10)
        self.item.addItem(you_item)
        self._frame = None
        self.vb.sigResized.connect(self._fit_dial)

    def _fit_dial(self, *_) -> None:
        """The dial as large as its labels leave room for, the labels whole: a fixed range cut "0° ahead"
        off the top of a low pane (1280 x 800)."""
        w, h = self.vb.width(), self.vb.height()
        if w <= 1 or h <= 1:
            return
        rects = [t.boundingRect() for t in self._labels]
        above = max(rects[0].height(), rects[3].height()) + DIAL_MARGIN
        beside = max(rects[1].width(), rects[2].width()) + DIAL_MARGIN
        px = max(min((h / 2 - above) / DIAL_LABEL_AT, (w / 2 - beside) / DIAL_LABEL_AT), DIAL_MIN_PX)
        self.vb.setRange(QRectF(-w / 2 / px, -h / 2 / px, w / px, h / px), padding=0)

    def set_answer(self, truth: float | None, preds: list[tuple[int, float]], names: list[str],
                   frame: str = "egocentric", **_details) -> None:
        self.clear_chart()
        self.arrow_tips: list[tuple[str, np.ndarray]] = []      # (colour, tip) as drawn
        if frame != self._frame:
            self._frame = frame
            for text_item, text in zip(self._labels, self.LABELS[frame]):
                text_item.setText(text)
            self._fit_dial()
        legend = []
        if truth is not None:
            for tau in ANGLE_TOLERANCES[::-1]:
                c = QColor(style.TRUTH)
                c.setAlpha({15.0: 120, 30.0: 75, 45.0: 40}[float(tau)])
                self.add(polygon(_sector(truth, float(tau)), NO_PEN, QBrush(c)))
            self._arrow(truth, style.TRUTH, 4.5)
            c = QColor(style.TRUTH)
            c.setAlpha(90)
            bands = "/".join(f"{float(t):g}" for t in ANGLE_TOLERANCES)
            legend = [("truth", "ground truth", line_sample(style.TRUTH, 4)),
                      ("sectors", f"within {bands}°", fill_sample(c))]
        for m, v in preds:
            self._arrow(v, style.model_color(m), 2.8)
        self.set_legend(legend + model_legend([m for m, _ in preds], names))

    def _arrow(self, deg: float, color: QColor, width: float) -> None:
        v = dial_vector(deg)
        tip = 0.9 * v
        self.arrow_tips.append((color.name(), tip))
        self.add(polyline([[0, 0], tip], pen(color, width)))
        self.add(arrowhead(tip, (v[0], -v[1]), color, 16))      # the dial's y is up, the screen's down


class DistanceBars(_Chart):
    """Truth and predicted numbers as bars, over the bands each MRA threshold accepts.

    Values are labelled in the question's `scale` (benchmarks.Scale: a count, "cm", "m²");
    without one, as distances in metres.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self._axis = ""
        self.value_texts: list[str] = []          # the bars' labels as drawn, truth first
        self.item.showGrid(x=True, y=False, alpha=0.3)
        self._set_axis(METRES.axis)
        self.clear_chart()
        self.vb.sigResized.connect(lambda _vb: self._fit_range())

    def _set_axis(self, text: str) -> None:
        if text != self._axis:
            self._axis = text
            self.item.setLabel("bottom", text)

    def set_answer(self, truth: float | None, preds: list[tuple[int, float]], names: list[str],
                   frame: str | None = None, *, scale: Scale | None = None, **_details) -> None:
        self.clear_chart()
        scale = scale or METRES
        self._set_axis(scale.axis)
        self.value_texts = []
        rows = [("ground truth", truth, style.TRUTH)] if truth is not None else []
        rows += [(names[m], v, style.model_color(m)) for m, v in preds]
        n = len(rows)
        if truth is not None:
            # Nested bands |p - g| / g <= 1 - theta, theta = 0.95 (narrowest) .. 0.50: one item.
            tol = 1.0 - MRA_THETAS
            c = QColor(style.TRUTH)
            c.setAlpha(22)
            for t in tol:
                self.add(polygon([[truth * (1 - t), -0.6], [truth * (1 + t), -0.6], [truth * (1 + t), n - 0.4],
                                  [truth * (1 - t), n - 0.4]], NO_PEN, QBrush(c)))
            c = QColor(style.TRUTH)
            c.setAlpha(90)
            # Short enough for the chart's narrowest pane (240 px): the whole entry was cut at 1600 px.
            self.set_legend([("mra", "MRA bands, ±5% … ±50%", fill_sample(c))])
        else:
            self.set_legend([])
        ticks = [(n - 1 - k, name) for k, (name, _, _) in enumerate(rows)]
        # An absurd answer (1e300 m, inf) must not stretch the axis out of reach: bars stop at the edge.
        sane = [v for _, v, _ in rows if v is not None and math.isfinite(v) and 0 <= v <= 1e4]
        vmax = max(sane + [1.0])
        edge = max(vmax, (truth or 0) * 1.5)
        for (y, _), (_, v, c) in zip(ticks, rows):
            w = min(max(v, 0.0), edge * 1.2) if math.isfinite(v) else edge * 1.2
            self.add(polygon([[0, y - 0.275], [w, y - 0.275], [w, y + 0.275], [0, y + 0.275]],
                             pen(c.darker(130), 1), QBrush(c)))
        for k, (_name, v, _color) in enumerate(rows):
            y = n - 1 - k
            text = scale.text(v)
            if truth is not None and k > 0:
                rel = float(relative_error(v, truth))
                text += f" ({100 * rel:.0f}%)" if np.isfinite(rel) else ""
            self.value_texts.append(text)
            x = min(max(v, 0.0), edge * 1.2) if math.isfinite(v) else edge * 1.2
            item = self.add(label("  " + text, x, y, QColor(40, 40, 40), anchor=(0, 0.5)))
            self._labels.append((x, item.boundingRect().width()))
        self.item.getAxis("left").setTicks([ticks])
        self._edge, self._rows = edge, n
        self._fit_range()

    def _fit_range(self) -> None:
        """The x range with room for every value label right of its bar, in the pane's width: "6.0 m (76%)"
        was cut at the pane's edge (a fixed 1.8 times the longest bar left too little room in 240 px)."""
        if self._edge is None:
            return
        hi = self._edge * 1.8
        px = self.vb.width()
        for x, w in self._labels:
            if 0 < w + 4 < px:                           # x / hi of the width, then the label: hi >= x / (1 - w/px)
                hi = max(hi, x / (1 - (w + 4) / px))
        self.vb.setRange(xRange=(0, hi), yRange=(-0.6, max(self._rows, 1) - 0.4), padding=0)

    def clear_chart(self) -> None:
        super().clear_chart()
        self._labels: list[tuple[float, float]] = []       # each value label: its x and its width in pixels
        self._edge: float | None = None

