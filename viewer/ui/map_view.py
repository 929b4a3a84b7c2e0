"""The top-down view: a map image with the answer drawn on it (pyqtgraph, zoom and pan).

It draws any `viewer.core.primitives.Overlay` and nothing else: every
coordinate arrives in map pixels (x right, y down), computed by the core.
The view's y axis points down too, so image directions are screen directions.
"""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pyqtgraph as pg
from PyQt6.QtCore import QLineF, QRectF, Qt
from PyQt6.QtGui import QBrush, QColor, QImage
from PyQt6.QtWidgets import QGraphicsLineItem

from ..core import primitives as pr
from ..core.primitives import Overlay
from . import style
from .plot_items import (
    NO_PEN,
    PlotWithLegend,
    arrowhead,
    fill_sample,
    label,
    line_sample,
    marker,
    model_legend,
    pen,
    polygon,
    polyline,
    symbol_sample,
)

RING_COLOR = QColor(0, 150, 70, 220)
TRAJECTORY_PIECES = 24
PATHS_KEPT = 8              # video paths whose drawn pieces are kept
IMAGES_KEPT_BYTES = 96 << 20    # converted map images kept, in all
_VIRIDIS = None


def _role_color(item) -> QColor:
    if item.role == pr.MODEL:
        return style.model_color(item.model)
    return {pr.TRUTH: style.TRUTH, pr.VIEWPOINT: style.VIEWPOINT, pr.TARGET: style.TARGET}.get(item.role,
                                                                                            style.TRUTH)


_LEGEND_COLOR = {"target": style.TARGET, "view": style.VIEWPOINT}
_LINE_STYLE = {pr.SOLID: Qt.PenStyle.SolidLine, pr.DASHED: Qt.PenStyle.DashLine, pr.DOTTED: Qt.PenStyle.DotLine}


def time_colors(n: int) -> list[QColor]:
    global _VIRIDIS
    if _VIRIDIS is None:
        _VIRIDIS = pg.colormap.get("viridis")
    return _VIRIDIS.map(np.linspace(0.0, 1.0, n), mode="qcolor")


class MapImage(pg.ImageItem):
    """pyqtgraph's image item, converting each map array to a QImage once.

    pyqtgraph converts the array again whenever the image is set (~0.7 ms for a 640x512 map), and keeps an
    RGB888 QImage that Qt converts again at every paint (~0.3 ms). The questions of a few scenes alternate
    between their maps, so the conversions are kept by array (the loader keeps the arrays: the same array is
    the same map), in the screen's 32-bit format, which is drawn as it is.
    """

    def __init__(self):
        super().__init__(axisOrder="row-major")
        self._converted: OrderedDict[tuple, tuple[np.ndarray, QImage]] = OrderedDict()
        self._source: np.ndarray | None = None      # the array given (pyqtgraph keeps a view of it)

    def setImage(self, image=None, *args, **kwargs):
        if image is not None:
            self._source = image
        return super().setImage(image, *args, **kwargs)

    def clear(self) -> None:
        self._source = None
        super().clear()

    def render(self) -> None:
        source = self._source
        if source is None or self.lut is not None or self.autoDownsample:     # not how the map view draws
            super().render()
            return
        key = (id(source), None if self.levels is None else tuple(np.ravel(self.levels)))
        hit = self._converted.get(key)
        if hit is not None and hit[0] is source:
            self._converted.move_to_end(key)
            self.qimage = hit[1]
            self._renderRequired = False
            self._unrenderable = False
            return
        super().render()
        if self.qimage is None or self._unrenderable:
            return
        fmt = QImage.Format.Format_ARGB32_Premultiplied if self.qimage.hasAlphaChannel() \
            else QImage.Format.Format_RGB32
        # A copy in any case: pyqtgraph may have drawn into a buffer it reuses.
        self.qimage = self.qimage.convertToFormat(fmt) if self.qimage.format() != fmt else self.qimage.copy()
        self._converted[key] = (source, self.qimage)
        while sum(q.sizeInBytes() for _, q in self._converted.values()) > IMAGES_KEPT_BYTES \
                and len(self._converted) > 1:
            self._converted.popitem(last=False)


class MapView(PlotWithLegend):
    def __init__(self, parent=None):
        super().__init__(QColor(40, 40, 44), (235, 235, 235), parent)
        self.hide_axes("left", "bottom")
        self.vb.invertY(True)
        self.vb.setAspectLocked(True)
        self.image_item = MapImage()
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
        self.overlay: Overlay | None = None
        self._paths: OrderedDict[tuple, list] = OrderedDict()     # a video path's drawn pieces, by its points
        self._map_shape: tuple[int, int] | None = None
        self._user_zoomed = False
        self.whole_map = False           # Fit: the whole map rather than the overlay's focus
        self.vb.sigRangeChangedManually.connect(self._zoomed)

    def _zoomed(self, *_):
        self._user_zoomed = True

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not getattr(self, "_user_zoomed", True):     # pyqtgraph resizes during __init__
            self.reset_zoom()

    # --------------------------------------------------------------- image
    def set_map(self, image: np.ndarray | None) -> None:
        if image is None:
            self.image_item.clear()
            self._map_image = None
            return
        # The questions of a scene share its map (the loader caches the array): it is rendered once, not at
        # every question (pyqtgraph rescales and converts the whole image on each setImage, ~4 ms).
        if image is not getattr(self, "_map_image", None):
            self.image_item.setImage(image, levels=(0, 255) if image.dtype == np.uint8 else None)
            self._map_image = image
        shape = image.shape[:2]
        if shape != self._map_shape or not self._user_zoomed:
            self._map_shape = shape
            self.reset_zoom()

    def reset_zoom(self) -> None:
        """Show the overlay's focus (a direction's view, rays and target), or with `whole_map` (Fit) or
        without a focus the whole map and what is drawn beyond it (a distance circle), within reason."""
        self._user_zoomed = False
        if self._map_shape is None:
            return
        h, w = self._map_shape
        x0, y0, x1, y1 = 0.0, 0.0, float(w), float(h)
        ov = self.overlay
        if ov is not None and (ov.width, ov.height) == (w, h):
            x0, y0, x1, y1 = ov.shown_box(focused=not self.whole_map)
        self.vb.setRange(QRectF(x0, y0, x1 - x0, y1 - y0), padding=0.02)

    def set_whole_map(self, whole: bool) -> None:
        """Fit: the whole map (True) or the overlay's focus (False, the default view)."""
        self.whole_map = bool(whole)
        self.reset_zoom()

    def shown_rect(self) -> QRectF:
        """The map pixels the view shows now."""
        (x0, x1), (y0, y1) = self.vb.viewRange()
        return QRectF(x0, y0, x1 - x0, y1 - y0)

    # ------------------------------------------------------------- overlay
    def set_overlay(self, ov: Overlay | None, model_names: list[str]) -> None:
        """Draw any overlay's primitives, bottom first, each by its type in its role's colour."""
        self.clear_layer()
        self.overlay = ov
        self._heading.setVisible(False)
        self._camera.setVisible(False)
        if ov is None:
            self.set_legend([])
            return
        self._ring_count = len(ov.of(pr.Ring))
        self._rings_drawn = 0
        for item in pr.flatten(ov.drawn(), self._DRAW):
            self._DRAW[type(item)](self, item)
        # The models drawn, by name, in their colours and shapes.
        drawn = {item.model for item in ov.drawn() if item.role == pr.MODEL and item.model is not None}
        self.set_legend(self._legend(ov) + model_legend(drawn, model_names))
        self.set_frame(0)
        if not self._user_zoomed:
            self.reset_zoom()

    @staticmethod
    def _legend(ov: Overlay) -> list:
        out = []
        for e in ov.legend_items():
            color = _LEGEND_COLOR.get(e.kind, style.TRUTH)
            if e.kind == "path":
                out.append(("path", e.text, line_sample(time_colors(3)[1])))
                out.append(("camera", "camera at this frame", symbol_sample("s", QColor(255, 200, 0))))
            elif e.kind == "truth-star":
                out.append((e.kind, e.text, symbol_sample("star", style.TRUTH, 16)))
            elif e.kind == "band":
                c = QColor(style.TRUTH)
                c.setAlpha(90)
                out.append((e.kind, e.text, fill_sample(c)))
            elif e.kind == "ring":
                out.append((e.kind, e.text, line_sample(RING_COLOR, 1.5)))
            elif e.kind == "view":
                out.append((e.kind, e.text, symbol_sample("o", style.VIEWPOINT)))
            else:
                out.append((e.kind, e.text, line_sample(color, 2.5)))
        return out

    def _map_box(self) -> tuple[float, float, float, float]:
        return (0.0, 0.0, float(self.overlay.width), float(self.overlay.height))

    def _edge_mark(self, at, out, color: QColor) -> None:
        """What lies beyond the map's edge that way (`primitives.clamp`, `clip_path`)."""
        self.add(arrowhead(np.asarray(at, float), out, color, 11))

    def _timed_path(self, item: pr.TimedPath) -> None:
        """The path in time-coloured pieces, cut at the map's edge with a mark where it leaves. The pieces
        are kept by the path's points and the map's size: the questions of one video draw the same path,
        and cutting and tracing it again took ~15 ms of every map draw."""
        xy = np.ascontiguousarray(item.points, dtype=float)
        if len(xy) < 2:
            return
        key = (xy.shape, xy.tobytes(), self._map_box())
        items = self._paths.get(key)
        if items is None:
            items = []
            bounds = np.linspace(0, len(xy) - 1, TRAJECTORY_PIECES + 1).round().astype(int)
            for (a, b), c in zip(zip(bounds[:-1], bounds[1:]), time_colors(TRAJECTORY_PIECES)):
                if b > a:
                    runs, marks = pr.clip_path(xy[a:b + 1], self._map_box())
                    items += [polyline(run, pen(c, 3.0)) for run in runs]
                    items += [arrowhead(np.asarray(at, float), out, QColor(200, 200, 200), 11) for at, out in marks]
            self._paths[key] = items
            while len(self._paths) > PATHS_KEPT:
                self._paths.popitem(last=False)
        else:
            self._paths.move_to_end(key)
        for it in items:
            self.add(it)
        self._paths_shown += items

    def clear_layer(self) -> None:
        # The kept path pieces leave the old layer (back to Python's ownership) before it is dropped with
        # its children.
        for it in getattr(self, "_paths_shown", ()):
            if it.scene() is not None:
                it.scene().removeItem(it)
        self._paths_shown = []
        super().clear_layer()

    def _sector(self, item: pr.Sector) -> None:
        c = QColor(_role_color(item))
        c.setAlpha({15.0: 110, 30.0: 70, 45.0: 40}.get(item.level, 40))
        self.add(polygon(item.points, NO_PEN, QBrush(c)))

    def _polygon(self, item: pr.Polygon) -> None:
        color = _role_color(item)
        if item.filled:
            c = QColor(color)
            c.setAlpha(60)
            self.add(polygon(item.points, pen(color, 1.5), QBrush(c)))
        else:
            self.add(polygon(item.points, pen(color, 2.5)))

    def _ring(self, item: pr.Ring) -> None:
        self.add(polyline(item.points, pen(RING_COLOR, 1.3, dash=True)))
        # Rings are ~25 px apart on a 640 px map: label the innermost and outermost only.
        if self._rings_drawn in (0, self._ring_count - 1):
            ring = item.points
            corner = ring[np.argmin(ring[:, 1] - ring[:, 0])]
            self.add(label(item.label, corner[0], corner[1], QColor(0, 150, 70), anchor=(0.0, 1.0), size=8))
        self._rings_drawn += 1

    def _polyline(self, item: pr.Polyline) -> None:
        color = _role_color(item)
        width = 3.0 if item.role == pr.TRUTH else 1.5 if len(item.points) == 2 else 2.2
        pts = item.points
        if len(pts) == 2:            # a link between two points: it meets their markers where they are drawn
            pts = np.stack([pr.clamp(x, self._map_box())[0] for x in pts])
        self.add(polyline(pts, pen(color, width, dash=item.dashed)))
        if item.mark is not None and item.role == pr.MODEL:
            pts = item.points
            at = pts[np.argmin(pts[:, 1])] if item.mark == "top" else pts[-1]
            self.add(marker(*at, style.model_shape(item.model), 9, color, QColor(0, 0, 0), 1.0))

    def _arrow(self, item: pr.Arrow) -> None:
        """A ray, cut at the map's edge: its head then sits on the edge, pointing where it goes."""
        runs, _ = pr.clip_path(item.points, self._map_box())
        if not runs:
            return
        seg = np.stack([runs[0][0], runs[0][-1]])
        color = _role_color(item)
        line = pen(color, 4 if item.role == pr.TRUTH else 2.5)
        line.setStyle(_LINE_STYLE[item.line])
        self.add(polyline(seg, line))
        d = seg[1] - seg[0]
        if math.hypot(*d) > 0:
            self.add(arrowhead(seg[1], d, color, 16))

    def _marker(self, item: pr.Marker) -> None:
        """A marker on or past the map's edge is drawn on the edge, with a mark pointing where it is."""
        color = _role_color(item)
        at, out = pr.clamp(item.at, self._map_box())
        if out is not None:
            self._edge_mark(at, out, color)
        if item.role == pr.MODEL:
            self.add(marker(*at, style.model_shape(item.model), 14 * item.size, color, QColor(0, 0, 0), 1.2))
        elif item.shape == "star":
            self.add(marker(*at, "star", 24 * item.size, color, QColor(255, 255, 255)))
        else:
            self.add(marker(*at, item.shape, 13 * item.size, color, QColor(255, 255, 255)))

    def _label(self, item: pr.Label) -> None:
        self.add(label(item.text, item.at[0], item.at[1], _role_color(item), anchor=(0.5, 1.0), size=9))

    # How each primitive type is drawn; a type without an entry is drawn as its parts().
    _DRAW = {pr.TimedPath: _timed_path, pr.Sector: _sector, pr.Polygon: _polygon, pr.Ring: _ring,
             pr.Polyline: _polyline, pr.Arrow: _arrow, pr.Marker: _marker, pr.Label: _label}

    def set_frame(self, k: int) -> None:
        """Mark the video camera of frame k (follows the scrubber)."""
        ov = self.overlay
        path = ov.path() if ov is not None else None
        if path is None or not len(path.points):
            return
        k = min(max(int(k), 0), len(path.points) - 1)
        p = path.points[k]
        if not np.isfinite(p).all():
            self._heading.setVisible(False)
            self._camera.setVisible(False)
            return
        h = path.heading[k] if path.heading is not None else np.zeros(2)
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
