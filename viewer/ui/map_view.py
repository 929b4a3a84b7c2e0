"""The top-down view: a map image with the answer drawn on it (pyqtgraph, zoom and pan).

It draws a `viewer.core.overlays.MapOverlay` and nothing else: every
coordinate arrives in map pixels (x right, y down), computed by the core.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PyQt6.QtCore import QPointF, QRectF, Qt
from PyQt6.QtGui import QBrush, QColor, QPen, QPolygonF
from PyQt6.QtWidgets import QGraphicsPolygonItem

from ..core.overlays import MapOverlay
from . import style


def _pen(color: QColor, width: float = 2.0, dash: bool = False) -> QPen:
    pen = QPen(color)
    pen.setWidthF(width)
    pen.setCosmetic(True)
    if dash:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


def _polygon(points: np.ndarray, pen: QPen, brush: QBrush | None = None) -> QGraphicsPolygonItem:
    item = QGraphicsPolygonItem(QPolygonF([QPointF(float(x), float(y)) for x, y in points]))
    item.setPen(pen)
    item.setBrush(brush if brush is not None else QBrush(Qt.BrushStyle.NoBrush))
    return item


def arrow_angle(direction: np.ndarray) -> float:
    """pyqtgraph ArrowItem angle (0 points left, clockwise on screen) for a y-down direction."""
    return math.degrees(math.atan2(-direction[1], -direction[0]))


class PlotWithLegend(pg.GraphicsLayoutWidget):
    """A plot with its legend in a strip below it, so the legend never hides what is drawn."""

    def __init__(self, background: QColor, text: tuple, parent=None):
        super().__init__(parent)
        self.setBackground(background)
        self.item = self.addPlot(row=0, col=0)
        self.item.setMenuEnabled(False)
        self.item.hideButtons()
        self.vb = self.item.getViewBox()
        self.legend = pg.LegendItem(labelTextColor=text, colCount=3, horSpacing=14, verSpacing=-6)
        self.addItem(self.legend, row=1, col=0)
        # A long legend must not widen the plot beyond the widget: let it clip instead.
        self.legend.setMinimumWidth(10)
        self.legend.setMaximumWidth(100000)
        self.ci.layout.setRowStretchFactor(0, 1)
        self.ci.layout.setRowStretchFactor(1, 0)
        self._items: list = []

    def _add(self, item, legend: str | None = None):
        self.item.addItem(item)
        self._items.append(item)
        if legend:
            self.legend.addItem(item, legend)
        return item

    def _clear_items(self) -> None:
        for it in self._items:
            self.item.removeItem(it)
        self._items = []
        self.legend.clear()


class MapView(PlotWithLegend):
    def __init__(self, parent=None):
        super().__init__(QColor(40, 40, 44), (235, 235, 235), parent)
        self.item.hideAxis("left")
        self.item.hideAxis("bottom")
        self.vb.invertY(True)
        self.vb.setAspectLocked(True)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.item.addItem(self.image_item)
        self._frame_items: list = []
        self.overlay: MapOverlay | None = None
        self._map_shape: tuple[int, int] | None = None
        self._user_zoomed = False
        self.vb.sigRangeChangedManually.connect(self._zoomed)

    def _zoomed(self, *_):
        self._user_zoomed = True

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if hasattr(self, "legend"):
            self.legend.setColumnCount(3 if self.width() > 560 else 2 if self.width() > 380 else 1)
        if not getattr(self, "_user_zoomed", True):     # pyqtgraph resizes during __init__
            self.reset_zoom()

    # --------------------------------------------------------------- image
    def set_map(self, image: np.ndarray | None) -> None:
        if image is None:
            self.image_item.clear()
            return
        self.image_item.setImage(image, levels=(0, 255) if image.dtype == np.uint8 else None)
        shape = image.shape[:2]
        if shape != self._map_shape or not self._user_zoomed:
            self._map_shape = shape
            self.reset_zoom()

    def reset_zoom(self) -> None:
        self._user_zoomed = False
        if self._map_shape is not None:
            h, w = self._map_shape
            self.vb.setRange(QRectF(0, 0, w, h), padding=0.02)

    # ------------------------------------------------------------- overlay
    def clear_overlay(self) -> None:
        self._clear_items()
        for it in self._frame_items:
            self.item.removeItem(it)
        self._frame_items = []
        self.overlay = None

    def set_overlay(self, ov: MapOverlay | None, model_names: list[str]) -> None:
        self.clear_overlay()
        self.overlay = ov
        if ov is None:
            return
        if ov.trajectory is not None:
            self._trajectory(ov)
        for tau, poly in ov.sectors:
            alpha = {15.0: 110, 30.0: 70, 45.0: 40}.get(tau, 40)
            c = QColor(style.TRUTH)
            c.setAlpha(alpha)
            self._add(_polygon(poly, _pen(QColor(0, 0, 0, 0), 0), QBrush(c)))
        if ov.fov_wedge is not None:
            c = QColor(style.VIEWPOINT)
            c.setAlpha(60)
            self._add(_polygon(ov.fov_wedge, _pen(style.VIEWPOINT, 1.5), QBrush(c)))
        if ov.target_box is not None:
            box = _polygon(ov.target_box, _pen(style.TARGET, 2.5))
            self._add(box)
            self.legend.addItem(pg.PlotDataItem(pen=_pen(style.TARGET, 2.5)), "target box")
        for tau, ring in ov.rings:
            self._add(pg.PlotDataItem(ring, pen=_pen(QColor(0, 150, 70, 200), 1.3, dash=True)))
            top = ring[np.argmin(ring[:, 1])]
            label = pg.TextItem(f"{tau:g}", color=(0, 120, 60), anchor=(0.5, 1.0))
            label.setPos(float(top[0]), float(top[1]))
            self._add(label)
        if ov.truth_circle is not None:
            self._add(pg.PlotDataItem(ov.truth_circle, pen=_pen(style.TRUTH, 3)), "ground truth")
        for m, poly in ov.pred_circles:
            self._add(pg.PlotDataItem(poly, pen=_pen(style.model_color(m), 2.2, dash=True)),
                      None)
        if ov.truth_ray is not None:
            self._ray(ov.truth_ray, style.TRUTH, 4, "ground truth")
        for m, seg in ov.pred_rays:
            self._ray(seg, style.model_color(m), 2.5, None)
        if ov.viewpoint is not None:
            self._add(pg.ScatterPlotItem([ov.viewpoint[0]], [ov.viewpoint[1]], size=13, symbol="o",
                                         brush=style.VIEWPOINT, pen=pg.mkPen("w", width=1.5)),
                      "current view")
        if ov.truth_point is not None:
            for m, p in ov.pred_points:
                line = np.stack([p, ov.truth_point])
                self._add(pg.PlotDataItem(line, pen=_pen(style.model_color(m), 1.5, dash=True)))
        for m, p in ov.pred_points:
            self._add(pg.ScatterPlotItem([p[0]], [p[1]], size=14, symbol="o", brush=style.model_color(m),
                                         pen=pg.mkPen("k", width=1.2)))
        if ov.truth_point is not None:
            self._add(pg.ScatterPlotItem([ov.truth_point[0]], [ov.truth_point[1]], size=22, symbol="star",
                                         brush=style.TRUTH, pen=pg.mkPen("w", width=1.5)), "ground truth")

    def _ray(self, seg: np.ndarray, color: QColor, width: float, name: str | None) -> None:
        self._add(pg.PlotDataItem(seg, pen=_pen(color, width)), name)
        d = seg[1] - seg[0]
        if np.hypot(*d) > 0:
            arrow = pg.ArrowItem(angle=arrow_angle(d), tipAngle=35, headLen=16, brush=color,
                                 pen=pg.mkPen(color))
            arrow.setPos(*seg[1])
            self._add(arrow)

    def _trajectory(self, ov: MapOverlay) -> None:
        xy = ov.trajectory
        ok = np.isfinite(xy).all(axis=1)
        self._add(pg.PlotDataItem(xy[:, 0], xy[:, 1], pen=_pen(QColor(90, 90, 90, 160), 1.2),
                                  connect="finite"))
        t = np.linspace(0.0, 1.0, len(xy))
        cmap = pg.colormap.get("viridis")
        brushes = [pg.mkBrush(c) for c in cmap.map(t[ok], mode="qcolor")]
        scatter = pg.ScatterPlotItem(xy[ok, 0], xy[ok, 1], size=5, pen=None, brush=brushes)
        self._add(scatter, "video path (dark → light: time)")
        self._frame_items = [pg.PlotDataItem(pen=_pen(QColor(255, 255, 255), 2.5)),
                             pg.ScatterPlotItem(size=13, symbol="s", brush=QColor(255, 200, 0),
                                                pen=pg.mkPen("k", width=1.5))]
        for it in self._frame_items:
            self.item.addItem(it)
        self.set_frame(0)

    def set_frame(self, k: int) -> None:
        """Mark the video camera of frame k (follows the scrubber)."""
        ov = self.overlay
        if ov is None or ov.trajectory is None or not self._frame_items or not len(ov.trajectory):
            return
        k = min(max(int(k), 0), len(ov.trajectory) - 1)
        p = ov.trajectory[k]
        line, dot = self._frame_items
        if not np.isfinite(p).all():
            line.setData([], [])
            dot.setData([], [])
            return
        h = ov.trajectory_heading[k] if ov.trajectory_heading is not None else np.zeros(2)
        tip = p + 0.05 * math.hypot(ov.width, ov.height) * h
        line.setData([p[0], tip[0]], [p[1], tip[1]])
        dot.setData([p[0]], [p[1]])
