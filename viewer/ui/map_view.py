"""The top-down view: a map image with the answer drawn on it (pyqtgraph, zoom and pan).

It draws a `viewer.core.overlays.MapOverlay` and nothing else: every
coordinate arrives in map pixels (x right, y down), computed by the core.
The view's y axis points down too, so image directions are screen directions.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PyQt6.QtCore import QLineF, QRectF
from PyQt6.QtGui import QBrush, QColor
from PyQt6.QtWidgets import QGraphicsLineItem

from ..core.overlays import MapOverlay
from . import style
from .plot_items import (
    NO_PEN,
    PlotWithLegend,
    arrowhead,
    fill_sample,
    label,
    line_sample,
    marker,
    pen,
    polygon,
    polyline,
    symbol_sample,
)

RING_COLOR = QColor(0, 150, 70, 220)
TRAJECTORY_PIECES = 24
_VIRIDIS = None


def time_colors(n: int) -> list[QColor]:
    global _VIRIDIS
    if _VIRIDIS is None:
        _VIRIDIS = pg.colormap.get("viridis")
    return _VIRIDIS.map(np.linspace(0.0, 1.0, n), mode="qcolor")


def _extent(ov: MapOverlay) -> tuple[float, float, float, float] | None:
    """Bounding box of the answer's drawings (circles, rays, points), in map pixels."""
    parts = [ov.truth_circle, ov.truth_ray, ov.truth_point, ov.viewpoint]
    parts += [p for _, p in ov.pred_circles] + [p for _, p in ov.pred_rays] + [p for _, p in ov.pred_points]
    pts = [np.atleast_2d(p) for p in parts if p is not None]
    if not pts:
        return None
    xy = np.concatenate(pts)
    xy = xy[np.isfinite(xy).all(axis=1)]
    if not len(xy):
        return None
    return (float(xy[:, 0].min()), float(xy[:, 1].min()), float(xy[:, 0].max()), float(xy[:, 1].max()))


class MapView(PlotWithLegend):
    def __init__(self, parent=None):
        super().__init__(QColor(40, 40, 44), (235, 235, 235), parent)
        self.item.hideAxis("left")
        self.item.hideAxis("bottom")
        self.vb.invertY(True)
        self.vb.setAspectLocked(True)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.image_item.setZValue(-10)
        self.item.addItem(self.image_item)
        # The video camera of the current frame: two items moved by the scrubber.
        self._heading = QGraphicsLineItem()
        self._heading.setPen(pen(QColor(255, 255, 255), 2.5))
        self._camera = marker(0, 0, "square", 13, QColor(255, 200, 0), QColor(0, 0, 0))
        for it in (self._heading, self._camera):
            it.setZValue(20)
            it.setVisible(False)
            self.vb.addItem(it, ignoreBounds=True)
        self.overlay: MapOverlay | None = None
        self._map_shape: tuple[int, int] | None = None
        self._extent: tuple[float, float, float, float] | None = None
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
        """Show the whole map, and what is drawn beyond it (a distance circle), within reason."""
        self._user_zoomed = False
        if self._map_shape is None:
            return
        h, w = self._map_shape
        x0, y0, x1, y1 = 0.0, 0.0, float(w), float(h)
        if self._extent is not None:
            ex0, ey0, ex1, ey1 = self._extent
            x0, y0 = max(min(x0, ex0), -0.3 * w), max(min(y0, ey0), -0.3 * h)
            x1, y1 = min(max(x1, ex1), 1.3 * w), min(max(y1, ey1), 1.3 * h)
        self.vb.setRange(QRectF(x0, y0, x1 - x0, y1 - y0), padding=0.02)

    # ------------------------------------------------------------- overlay
    def set_overlay(self, ov: MapOverlay | None, model_names: list[str]) -> None:
        self.clear_layer()
        self.overlay = ov
        self._extent = None
        legend = []
        self._heading.setVisible(False)
        self._camera.setVisible(False)
        if ov is None:
            self.set_legend(legend)
            return
        add = self.add
        if ov.trajectory is not None and len(ov.trajectory) > 1:
            xy = ov.trajectory
            bounds = np.linspace(0, len(xy) - 1, TRAJECTORY_PIECES + 1).round().astype(int)
            for (a, b), c in zip(zip(bounds[:-1], bounds[1:]), time_colors(TRAJECTORY_PIECES)):
                if b > a:
                    add(polyline(xy[a:b + 1], pen(c, 3.0)))
            legend.append(("path", "video path (dark → light: time)", line_sample(time_colors(3)[1])))
            legend.append(("camera", "camera at this frame", symbol_sample("s", QColor(255, 200, 0))))
        for tau, poly in ov.sectors:
            c = QColor(style.TRUTH)
            c.setAlpha({15.0: 110, 30.0: 70, 45.0: 40}.get(tau, 40))
            add(polygon(poly, NO_PEN, QBrush(c)))
        if ov.sectors:
            c = QColor(style.TRUTH)
            c.setAlpha(90)
            legend.append(("sectors", "within 15° / 30° / 45°", fill_sample(c)))
        if ov.fov_wedge is not None:
            c = QColor(style.VIEWPOINT)
            c.setAlpha(60)
            add(polygon(ov.fov_wedge, pen(style.VIEWPOINT, 1.5), QBrush(c)))
        if ov.target_box is not None:
            add(polygon(ov.target_box, pen(style.TARGET, 2.5)))
            legend.append(("target", "target box", line_sample(style.TARGET, 2.5)))
        for k, (tau, ring) in enumerate(ov.rings):
            add(polyline(ring, pen(RING_COLOR, 1.3, dash=True)))
            # Rings are ~25 px apart on a 640 px map: label the innermost and outermost only.
            if k in (0, len(ov.rings) - 1):
                corner = ring[np.argmin(ring[:, 1] - ring[:, 0])]
                add(label(f"{tau:g}", corner[0], corner[1], QColor(0, 150, 70), anchor=(0.0, 1.0), size=8))
        for m, poly in ov.pred_circles:
            add(polyline(poly, pen(style.model_color(m), 2.2, dash=True)))
        if ov.truth_circle is not None:
            add(polyline(ov.truth_circle, pen(style.TRUTH, 3)))
        if ov.truth_ray is not None:
            self._ray(ov.truth_ray, style.TRUTH, 4)
        for m, seg in ov.pred_rays:
            self._ray(seg, style.model_color(m), 2.5)
        if ov.truth_ray is not None or ov.truth_circle is not None:
            legend.append(("truth_line", "ground truth", line_sample(style.TRUTH)))
        if ov.viewpoint is not None:
            add(marker(*ov.viewpoint, "circle", 13, style.VIEWPOINT, QColor(255, 255, 255)))
            legend.append(("view", "current view", symbol_sample("o", style.VIEWPOINT)))
        if ov.truth_point is not None:
            for m, p in ov.pred_points:
                add(polyline(np.stack([p, ov.truth_point]), pen(style.model_color(m), 1.5, dash=True)))
        for m, p in ov.pred_points:
            add(marker(*p, "circle", 14, style.model_color(m), QColor(0, 0, 0), 1.2))
        if ov.truth_point is not None:
            add(marker(*ov.truth_point, "star", 24, style.TRUTH, QColor(255, 255, 255)))
            legend.append(("truth_star", "ground truth", symbol_sample("star", style.TRUTH, 16)))
            legend.append(("rings", "score thresholds 100…300", line_sample(RING_COLOR, 1.5)))
        self.set_legend(legend)
        self.set_frame(0)
        self._extent = _extent(ov)
        if not self._user_zoomed:
            self.reset_zoom()

    def _ray(self, seg: np.ndarray, color: QColor, width: float) -> None:
        self.add(polyline(seg, pen(color, width)))
        d = seg[1] - seg[0]
        if math.hypot(*d) > 0:
            self.add(arrowhead(seg[1], d, color, 16))

    def set_frame(self, k: int) -> None:
        """Mark the video camera of frame k (follows the scrubber)."""
        ov = self.overlay
        if ov is None or ov.trajectory is None or not len(ov.trajectory):
            return
        k = min(max(int(k), 0), len(ov.trajectory) - 1)
        p = ov.trajectory[k]
        if not np.isfinite(p).all():
            self._heading.setVisible(False)
            self._camera.setVisible(False)
            return
        h = ov.trajectory_heading[k] if ov.trajectory_heading is not None else np.zeros(2)
        tip = p + 0.05 * math.hypot(ov.width, ov.height) * h
        self._heading.setLine(QLineF(p[0], p[1], tip[0], tip[1]))
        self._camera.setPos(float(p[0]), float(p[1]))
        self._heading.setVisible(True)
        self._camera.setVisible(True)

    @property
    def camera_position(self) -> tuple[float, float] | None:
        """Where the current frame's camera is drawn (None when hidden)."""
        if not self._camera.isVisible():
            return None
        return (self._camera.pos().x(), self._camera.pos().y())
