"""A top-down map with a question's overlay, painted with QPainter, and its legend.

Draws any `viewer.core.primitives.Overlay` (all coordinates in map pixels,
computed by the core) scaled into any rectangle, showing only the layers a
`viewer.core.storyboard.Layers` allows. Same symbols as the window's map
view: green truth with its tolerance bands, one colour per model, the
current view in blue with its field of view, the target's box in red, the
video path coloured by time and the moving camera in yellow. Models also
get a marker shape each, so they stay apart in grey-scale print.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PyQt6.QtCore import QPointF, QRectF, Qt
from PyQt6.QtGui import QBrush, QColor, QFontMetricsF, QImage, QPainter, QPainterPath

from ..core import primitives as pr
from ..core.primitives import Overlay
from ..core.talk.storyboard import EVERYTHING, Layers
from . import theme as th
from .canvas import draw_image, draw_marker, draw_scaled, draw_text, pen, polygon
from .theme import Theme

SECTOR_ALPHA = {15.0: 110, 30.0: 70, 45.0: 40}
_LINE_STYLE = {pr.SOLID: Qt.PenStyle.SolidLine, pr.DASHED: Qt.PenStyle.DashLine, pr.DOTTED: Qt.PenStyle.DotLine}


@dataclass
class LegendEntry:
    kind: str          # "path", "marker", "view", "target", "truth-star", "truth-ray", "truth-line",
    #                    "band", "ring", "model"
    color: QColor
    label: str
    shape: str = "circle"


class _Map:
    """Map pixels -> figure coordinates for one drawn map: the map pixel box `box` fitted in `rect`.

    `edge` (figure coordinates) is where points may be drawn: the map within the box
    (`Overlay.edge_box`); what lies beyond is drawn on its edge with an edge mark.
    """

    def __init__(self, rect: QRectF, box: tuple[float, float, float, float],
                 edge: tuple[float, float, float, float] | None = None):
        x0, y0, x1, y1 = box
        self.s = min(rect.width() / (x1 - x0), rect.height() / (y1 - y0))
        self.ox = rect.center().x() - (x0 + x1) / 2 * self.s
        self.oy = rect.center().y() - (y0 + y1) / 2 * self.s
        e = self.pts([(edge or box)[:2], (edge or box)[2:]])
        self.edge = (float(e[0][0]), float(e[0][1]), float(e[1][0]), float(e[1][1]))

    def inside(self, xy, r: float, mark: float) -> tuple[np.ndarray, np.ndarray | None]:
        """A figure point kept `r` inside the edge (a marker of radius r is drawn whole), and moved
        `mark` further in when it was outside, to leave room for its edge mark."""
        x0, y0, x1, y1 = self.edge
        r = min(r, (x1 - x0) / 2, (y1 - y0) / 2)
        q, out = pr.clamp(xy, (x0 + r, y0 + r, x1 - r, y1 - r))
        if out is not None and float(np.hypot(*(np.asarray(xy, float)[:2] - q))) > r:
            return q - out * mark, out          # past the edge: marked
        return q, None                         # on the edge: drawn whole, unmarked

    def rect(self, x0: float, y0: float, x1: float, y1: float) -> QRectF:
        a, b = self.pts([[x0, y0], [x1, y1]])
        return QRectF(QPointF(*a), QPointF(*b))

    def pts(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(a, float) * self.s + (self.ox, self.oy)

    def pt(self, a) -> QPointF:
        x, y = self.pts(np.asarray(a, float).reshape(2))
        return QPointF(float(x), float(y))


def _arrow(p: QPainter, a: QPointF, b: QPointF, color: QColor, width: float, head: float,
           line: Qt.PenStyle = Qt.PenStyle.SolidLine) -> None:
    shaft = pen(color, width)
    shaft.setStyle(line)
    p.setPen(shaft)
    p.drawLine(a, b)
    d = np.array([b.x() - a.x(), b.y() - a.y()])
    n = np.hypot(*d)
    if n < 1e-6:
        return
    d /= n
    left = np.array([-d[1], d[0]])
    tip = np.array([b.x(), b.y()])
    base = tip - head * d
    p.setBrush(QBrush(color))
    p.setPen(pen(color, 1.0))
    p.drawPolygon(polygon([tip, base + 0.5 * head * left, base - 0.5 * head * left]))


def paint_map(p: QPainter, rect: QRectF, image: QImage | None, ov: Overlay | None, theme: Theme,
              layers: Layers = EVERYTHING, message: str = "", mask: QRectF | None = None,
              focused: bool = False) -> QRectF:
    """The map letterboxed in `rect` with the primitives of `ov` that `layers` shows; returns the map's rect.

    The map is cropped to its content (`content_box`); `focused`: to the overlay's focus, when it has
    one (a direction's view, rays and target), as clips and slides show it.

    SVG output ignores clipping, so a long ray or a wide distance circle would
    spill over the rest of the figure: `mask` (the whole figure) is then
    painted over in the background colour everywhere but on the map. Paint
    the map first and the rest of the figure after it.
    """
    if image is None or image.isNull() or ov is None:
        return draw_image(p, rect, image, theme, message)
    box = shown_box(ov, image, focused)
    m = _Map(rect, box, ov.edge_box(box))
    where = m.rect(*box)                             # the map and what its answers reach beyond it
    if theme.dark:
        image = on_dark(image, theme.panel)
    if not _within(box, (0.0, 0.0, float(ov.width), float(ov.height))):
        # A wide distance circle: the map shrinks to fit it, on the map's own background colour.
        p.fillRect(where, theme.panel if theme.dark else image.pixelColor(0, 0))
    draw_scaled(p, m.rect(0, 0, ov.width, ov.height), image)
    p.save()
    p.setClipRect(where)
    for item in pr.flatten(ov.drawn(layers.visible()), _DRAW):
        _DRAW[type(item)](p, m, item, theme, layers)
    path = ov.path()
    if layers.marker is not None and path is not None:
        _camera(p, m, ov, path, layers.marker, theme)
    p.restore()
    if mask is not None:
        outside = QPainterPath()
        outside.addRect(mask)
        inside = QPainterPath()
        inside.addRect(where)
        p.fillPath(outside.subtracted(inside), theme.background)
    return where


def _within(a, b) -> bool:
    return a[0] >= b[0] and a[1] >= b[1] and a[2] <= b[2] and a[3] <= b[3]


def shown_box(ov: Overlay, image: QImage | None = None, focused: bool = False) -> tuple[float, float, float, float]:
    """The map pixel box a figure shows (`Overlay.shown_box`): the focus when `focused`, else the map
    cropped to the content of `image` and to what is drawn, grown to the answers drawn beyond it."""
    content = content_box(image, ov.width, ov.height) if image is not None and not image.isNull() else None
    return ov.shown_box(focused, content)


def content_box(image: QImage, width: int, height: int) -> tuple[float, float, float, float] | None:
    """The part of a map image that is not its empty surroundings (the colour of its corner, reaching
    the border), in the overlay's pixels (`width` x `height`); None when it is all content."""
    key = (image.cacheKey(), width, height)
    if key not in _CONTENT:
        from .canvas import qimage_to_rgb
        rgb = qimage_to_rgb(image).astype(np.int16)
        background = rgb[0, 0]
        full = (np.abs(rgb - background) > 12).any(axis=2)
        rows, cols = np.flatnonzero(full.any(axis=1)), np.flatnonzero(full.any(axis=0))
        box = None
        if len(rows) and len(cols):
            sx, sy = width / rgb.shape[1], height / rgb.shape[0]
            box = (cols[0] * sx, rows[0] * sy, (cols[-1] + 1) * sx, (rows[-1] + 1) * sy)
        _CONTENT[key] = box
        while len(_CONTENT) > 16:
            _CONTENT.pop(next(iter(_CONTENT)))
    return _CONTENT[key]


_CONTENT: dict[tuple, tuple | None] = {}


def on_dark(image: QImage, colour: QColor) -> QImage:
    """The map with its empty surroundings (near-white, reaching the border) in `colour`: a dark slide
    shows the rooms, not a white sheet around them. The rooms themselves keep their colours.

    A clip paints the same map in every frame: the result is kept per image and colour.
    """
    key = (image.cacheKey(), colour.rgba())
    hit = _ON_DARK.get(key)
    if hit is None:
        hit = _ON_DARK[key] = _darken_surroundings(image, colour)
        while len(_ON_DARK) > 8:
            _ON_DARK.pop(next(iter(_ON_DARK)))
    return hit


_ON_DARK: dict[tuple[int, int], QImage] = {}


def _darken_surroundings(image: QImage, colour: QColor) -> QImage:
    from scipy import ndimage

    from .canvas import qimage_to_rgb, rgb_to_qimage
    rgb = qimage_to_rgb(image)
    light = (rgb >= 245).all(axis=2)
    labels, _ = ndimage.label(light)
    border = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    outside = np.isin(labels, border[border > 0])
    if not outside.any():
        return image
    rgb[outside] = (colour.red(), colour.green(), colour.blue())
    return rgb_to_qimage(rgb)


def role_color(item) -> QColor:
    """The colour of a primitive: its model's, or its role's."""
    if item.role == pr.MODEL:
        return th.model_color(item.model)
    return {pr.TRUTH: th.TRUTH, pr.VIEWPOINT: th.VIEWPOINT, pr.TARGET: th.TARGET}.get(item.role, th.MARKER)


def _sector(p: QPainter, m: _Map, item: pr.Sector, theme: Theme, layers: Layers) -> None:
    c = QColor(role_color(item))
    c.setAlpha(SECTOR_ALPHA.get(item.level, 40))
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(c))
    p.drawPolygon(polygon(m.pts(item.points)))


def _polygon(p: QPainter, m: _Map, item: pr.Polygon, theme: Theme, layers: Layers) -> None:
    color = role_color(item)
    if item.filled:
        c = QColor(color)
        c.setAlpha(55)
        p.setPen(pen(color, theme.w(1.5)))
        p.setBrush(QBrush(c))
    else:
        p.setPen(pen(color, theme.w(3.0)))
        p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawPolygon(polygon(m.pts(item.points)))


def _polyline(p: QPainter, m: _Map, item: pr.Polyline, theme: Theme, layers: Layers) -> None:
    color = role_color(item)
    lw = theme.w
    pts = m.pts(item.points)
    if len(pts) == 2:                  # a link between two points: it meets their markers where they are drawn
        a, b = (m.inside(x, lw(9), edge_mark_size(theme))[0] for x in pts)
        p.setPen(pen(color, lw(2.0), dash=item.dashed))
        p.drawLine(QPointF(*a), QPointF(*b))
        return
    p.setPen(pen(color, lw(3.5 if item.role == pr.TRUTH else 2.5), dash=item.dashed))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawPolyline(polygon(pts))
    if item.mark is not None and item.role == pr.MODEL:
        at = pts[np.argmin(pts[:, 1])] if item.mark == "top" else pts[-1]
        draw_marker(p, th.model_shape(item.model), QPointF(*at), lw(6), color, QColor(0, 0, 0), lw(1.2))


def _arrow_item(p: QPainter, m: _Map, item: pr.Arrow, theme: Theme, layers: Layers) -> None:
    """A ray cut at the map's edge (its head then on the edge, pointing where it goes); a model's
    marker at its tip, or just inside the edge on the ray when it was cut."""
    a, b = m.pts(item.points)
    runs, _ = pr.clip_path(np.stack([a, b]), m.edge)
    if not runs:
        return
    a, end = runs[0][0], runs[0][-1]
    head = theme.w(15)
    if item.role != pr.MODEL:
        _arrow(p, QPointF(*a), QPointF(*end), role_color(item), theme.w(5), head * 1.2)
        return
    color = role_color(item)
    _arrow(p, QPointF(*a), QPointF(*end), color, theme.w(3), head, _LINE_STYLE[item.line])
    r = theme.w(6)
    tip = end
    length = float(np.hypot(*(end - a)))
    if not np.allclose(end, b) and length > 0:
        tip = a + (end - a) / length * max(length - head - r, 0.5 * length)
    draw_marker(p, th.model_shape(item.model), QPointF(*tip), r, color, QColor(0, 0, 0), theme.w(1.2))


def _marker(p: QPainter, m: _Map, item: pr.Marker, theme: Theme, layers: Layers) -> None:
    lw = theme.w
    r = (lw(9) if item.role == pr.MODEL else lw(15) if item.shape == "star" else lw(8)) * item.size
    at, out = m.inside(m.pts(np.asarray(item.at, float)[:2]), r, edge_mark_size(theme))
    if out is not None:
        _edge_mark(p, at + out * r, out, role_color(item), theme)
    if item.role == pr.MODEL:
        draw_marker(p, th.model_shape(item.model), QPointF(*at), r, role_color(item), QColor(0, 0, 0), lw(1.5))
    else:
        draw_marker(p, item.shape, QPointF(*at), r, role_color(item), QColor(255, 255, 255), lw(2))


def edge_mark_size(theme: Theme) -> float:
    return theme.w(11)


def _edge_mark(p: QPainter, base, out, color: QColor, theme: Theme) -> None:
    """A small triangle from `base` pointing `out`: what it marks lies beyond the map's edge that way."""
    size = edge_mark_size(theme)
    base, out = np.asarray(base, float), np.asarray(out, float)
    side = np.array([-out[1], out[0]])
    tip = base + out * size
    p.setPen(Qt.PenStyle.NoPen)                  # no outline: it must not read as a model's marker
    p.setBrush(QBrush(color))
    p.drawPolygon(polygon([tip, base + 0.4 * size * side, base - 0.4 * size * side]))


def _ring(p: QPainter, m: _Map, item: pr.Ring, theme: Theme, layers: Layers) -> None:
    font = theme.font(0.7)
    pts = m.pts(item.points)
    p.setPen(pen(QColor(0, 150, 70, 210), theme.w(1.4), dash=True))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawPolyline(polygon(pts))
    top = pts[np.argmin(pts[:, 1])]
    fm = QFontMetricsF(font)
    label = item.label
    box = QRectF(top[0] - fm.horizontalAdvance(label) / 2 - 3, top[1] - fm.height() - 1,
                 fm.horizontalAdvance(label) + 6, fm.height())
    p.fillRect(box, QColor(255, 255, 255, 190))
    draw_text(p, box, label, font, QColor(0, 110, 55), Qt.AlignmentFlag.AlignCenter, wrap=False)


def _timed_path(p: QPainter, m: _Map, item: pr.TimedPath, theme: Theme, layers: Layers) -> None:
    """The path as a grey line with time-coloured dots; cut at the map's edge, with a mark where it leaves."""
    xy = m.pts(item.points)
    n = len(xy)
    end = n if layers.path_until is None else min(max(layers.path_until + 1, 0), n)
    runs, marks = pr.clip_path(xy[:end], m.edge)          # NaN rows (invalid poses) break it
    p.setPen(pen(QColor(90, 90, 90, 170), theme.w(1.4)))
    for run in runs:
        p.drawPolyline(polygon(run))
    r = theme.w(2.6)
    x0, y0, x1, y1 = m.edge
    inside = np.isfinite(xy).all(axis=1) & (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)
    p.setPen(Qt.PenStyle.NoPen)
    for i in range(0, end, max(1, n // 160)):
        if inside[i]:
            p.setBrush(QBrush(th.viridis(i / max(n - 1, 1))))
            p.drawEllipse(QPointF(*xy[i]), r, r)
    for at, out in marks:
        _edge_mark(p, at - out * edge_mark_size(theme), out, QColor(160, 160, 160, 220), theme)


def _label(p: QPainter, m: _Map, item: pr.Label, theme: Theme, layers: Layers) -> None:
    font = theme.font(0.75)
    fm = QFontMetricsF(font)
    at = m.pt(item.at)
    box = QRectF(at.x() - fm.horizontalAdvance(item.text) / 2 - 3, at.y() - fm.height() - 2,
                 fm.horizontalAdvance(item.text) + 6, fm.height())
    draw_text(p, box, item.text, font, role_color(item), Qt.AlignmentFlag.AlignCenter, wrap=False)


# How each primitive type is painted; a type without an entry is painted as its parts().
_DRAW = {pr.Sector: _sector, pr.Polygon: _polygon, pr.Polyline: _polyline, pr.Arrow: _arrow_item,
         pr.Marker: _marker, pr.Ring: _ring, pr.TimedPath: _timed_path, pr.Label: _label}


def _camera(p: QPainter, m: _Map, ov: Overlay, path: pr.TimedPath, k: int, theme: Theme) -> None:
    k = min(max(int(k), 0), len(path.points) - 1)
    pos = path.points[k]
    if not np.isfinite(pos).all():
        return
    c = m.pt(pos)
    if path.heading is not None and np.isfinite(path.heading[k]).all():
        tip = pos + 0.06 * math.hypot(ov.width, ov.height) * path.heading[k]
        _arrow(p, c, m.pt(tip), QColor(255, 255, 255), theme.w(3), theme.w(11))
    draw_marker(p, "square", c, theme.w(7), th.MARKER, QColor(0, 0, 0), theme.w(1.5))


# ------------------------------------------------------------------ legend
def answer_legend(story, truth: bool = True, scores: bool = True) -> list[LegendEntry]:
    """The truth and every chosen model's answer (also those that cannot be drawn), as legend entries."""
    out = []
    if truth:
        symbol = story.kind.truth_symbol if story.kind is not None else "truth-star"
        out.append(LegendEntry(symbol, th.TRUTH, f"ground truth: {story.truth}"))
    out += [LegendEntry("model", th.model_color(a.index),
                        f"{a.name}: {a.text}" + (f" ({a.score_text})" if scores else ""), th.model_shape(a.index))
            for a in story.answers]
    return out


_LEGEND_COLOR = {"band": th.TRUTH, "ring": th.TRUTH, "view": th.VIEWPOINT, "target": th.TARGET}


def map_legend(ov: Overlay | None, layers: Layers, truth_label: str | None,
               model_labels: dict[int, str]) -> list[LegendEntry]:
    """Entries for what `paint_map` draws with these layers (models: index -> label;
    no truth entry when `truth_label` is None)."""
    out: list[LegendEntry] = []
    if ov is None:
        return out
    items = ov.legend_items(layers.visible())
    truths = [e for e in items if e.kind.startswith("truth-")]
    if truth_label is not None and truths:
        out.append(LegendEntry(truths[0].kind, th.TRUTH, truth_label))
    if layers.answers:
        drawn = ov.models_drawn()
        out += [LegendEntry("model", th.model_color(k), label, th.model_shape(k))
                for k, label in model_labels.items() if k in drawn]
    out += [LegendEntry(e.kind, th.viridis(0.5) if e.kind == "path" else _LEGEND_COLOR.get(e.kind, th.TRUTH), e.text)
            for e in items if not e.kind.startswith("truth-")]
    if layers.marker is not None and ov.path() is not None:
        out.append(LegendEntry("marker", th.MARKER, "video camera now"))
    return out


def _entry_width(e: LegendEntry, theme: Theme, fm: QFontMetricsF) -> float:
    return theme.font_px * 2.2 + fm.horizontalAdvance(e.label) + theme.font_px * 1.2


def legend_height(entries: list[LegendEntry], width: float, theme: Theme) -> float:
    if not entries:
        return 0.0
    fm = QFontMetricsF(theme.font(0.85))
    rows, x = 1, 0.0
    for e in entries:
        w = _entry_width(e, theme, fm)
        if x > 0 and x + w > width:
            rows, x = rows + 1, 0.0
        x += w
    return rows * fm.height() * 1.45


def paint_legend(p: QPainter, rect: QRectF, entries: list[LegendEntry], theme: Theme) -> None:
    font = theme.font(0.85)
    fm = QFontMetricsF(font)
    row_h = fm.height() * 1.45
    x, y = rect.left(), rect.top()
    sw = theme.font_px * 2.2                      # the symbol's box
    for e in entries:
        w = _entry_width(e, theme, fm)
        if x > rect.left() and x + w > rect.right():
            x, y = rect.left(), y + row_h
        cy = y + row_h / 2
        _symbol(p, e, QRectF(x, cy - theme.font_px * 0.6, sw - theme.font_px * 0.4, theme.font_px * 1.2), theme)
        draw_text(p, QRectF(x + sw, y, w - sw, row_h), e.label, font, theme.text,
                  Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, wrap=False)
        x += w


def _symbol(p: QPainter, e: LegendEntry, r: QRectF, theme: Theme) -> None:
    c = r.center()
    lw = theme.w
    left, right = QPointF(r.left(), c.y()), QPointF(r.right(), c.y())
    if e.kind == "truth-star":
        draw_marker(p, "star", c, r.height() * 0.6, e.color, QColor(255, 255, 255), lw(1.2))
    elif e.kind == "truth-ray":
        _arrow(p, left, right, e.color, lw(4), lw(10))
    elif e.kind == "truth-line":
        p.setPen(pen(e.color, lw(3.5)))
        p.drawLine(left, right)
    elif e.kind == "model":
        p.setPen(pen(e.color, lw(2.5)))
        p.drawLine(left, right)
        draw_marker(p, e.shape, c, r.height() * 0.38, e.color, QColor(0, 0, 0), lw(1.2))
    elif e.kind == "band":
        col = QColor(e.color)
        col.setAlpha(90)
        p.fillRect(r, col)
    elif e.kind == "ring":
        p.setPen(pen(e.color, lw(1.6), dash=True))
        p.drawLine(left, right)
    elif e.kind == "view":
        draw_marker(p, "circle", c, r.height() * 0.4, e.color, QColor(255, 255, 255), lw(1.5))
    elif e.kind == "target":
        p.setPen(pen(e.color, lw(2.5)))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(r.adjusted(r.width() * 0.2, 2, -r.width() * 0.2, -2))
    elif e.kind == "path":
        for k in range(4):
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QBrush(th.viridis(k / 3)))
            p.drawEllipse(QPointF(r.left() + (k + 0.5) * r.width() / 4, c.y()), lw(3), lw(3))
    elif e.kind == "marker":
        draw_marker(p, "square", c, r.height() * 0.35, e.color, QColor(0, 0, 0), lw(1.2))
