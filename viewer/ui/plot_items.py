"""Cheap drawing primitives for the 2D views, and a plot with its legend below.

pyqtgraph's items cost about a millisecond each to create and to remove;
an overlay has dozens, redrawn on every sample. Plain Qt graphics items
under one container cost a few microseconds, and clearing the overlay is
removing the container. Symbols and labels ignore the view's scale, so
they keep their size when zooming.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PyQt6.QtCore import QPointF, QRectF, Qt
from PyQt6.QtGui import QBrush, QColor, QFont, QPainterPath, QPen, QPolygonF
from PyQt6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
)

_FIXED_SIZE = QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations


def pen(color: QColor, width: float = 2.0, dash: bool = False) -> QPen:
    p = QPen(QColor(color))
    p.setWidthF(width)
    p.setCosmetic(True)
    if dash:
        p.setStyle(Qt.PenStyle.DashLine)
    return p


NO_PEN = QPen(Qt.PenStyle.NoPen)


def _qpoints(points) -> list[QPointF]:
    return [QPointF(float(x), float(y)) for x, y in np.asarray(points, float)]


def polyline(points, line_pen: QPen) -> QGraphicsPathItem:
    """A path through the points; a NaN point breaks it (an invalid pose)."""
    path = QPainterPath()
    pts = np.asarray(points, float)
    pen_down = False
    for x, y in pts:
        if not (math.isfinite(x) and math.isfinite(y)):
            pen_down = False
            continue
        if pen_down:
            path.lineTo(x, y)
        else:
            path.moveTo(x, y)
            pen_down = True
    item = QGraphicsPathItem(path)
    item.setPen(line_pen)
    return item


def polygon(points, line_pen: QPen, brush: QBrush | None = None) -> QGraphicsPolygonItem:
    item = QGraphicsPolygonItem(QPolygonF(_qpoints(points)))
    item.setPen(line_pen)
    item.setBrush(brush if brush is not None else QBrush(Qt.BrushStyle.NoBrush))
    return item


def _star(r: float) -> QPainterPath:
    path = QPainterPath()
    for k in range(10):
        a = math.pi / 2 + k * math.pi / 5
        rr = r if k % 2 == 0 else r * 0.45
        p = QPointF(rr * math.cos(a), -rr * math.sin(a))
        path.moveTo(p) if k == 0 else path.lineTo(p)
    path.closeSubpath()
    return path


def marker(x: float, y: float, shape: str, size: float, brush: QColor, outline: QColor,
           outline_width: float = 1.5) -> QGraphicsPathItem:
    """A symbol of `size` screen pixels centred at data point (x, y)."""
    r = size / 2
    path = QPainterPath()
    if shape == "star":
        path = _star(r)
    elif shape == "square":
        path.addRect(QRectF(-r, -r, size, size))
    elif shape in ("triangle", "diamond"):       # the models' second channel (core.model_palette.MODEL_SHAPES)
        pts = [(0, -r), (r, r * 0.8), (-r, r * 0.8)] if shape == "triangle" else [(0, -r), (r, 0), (0, r), (-r, 0)]
        path.addPolygon(QPolygonF([QPointF(x_, y_) for x_, y_ in pts]))
        path.closeSubpath()
    else:
        path.addEllipse(QPointF(0, 0), r, r)
    item = QGraphicsPathItem(path)
    item.setBrush(QBrush(brush))
    item.setPen(pen(outline, outline_width))
    item.setFlag(_FIXED_SIZE)
    item.setPos(float(x), float(y))
    return item


def label(text: str, x: float, y: float, color: QColor, anchor=(0.5, 1.0), size: int = 9,
          bold: bool = False) -> QGraphicsSimpleTextItem:
    """Screen-sized text; `anchor` is the point of its box placed at (x, y), (0, 0) = top left."""
    item = QGraphicsSimpleTextItem(text)
    font = QFont()
    font.setPointSize(size)
    font.setBold(bold)
    item.setFont(font)
    item.setBrush(QBrush(QColor(color)))
    item.setFlag(_FIXED_SIZE)
    box = item.boundingRect()
    # The offset must be in screen pixels too: a child transform, not a data-space shift.
    item.setTransformOriginPoint(0, 0)
    item.setPos(float(x), float(y))
    item.setTransform(item.transform().translate(-anchor[0] * box.width(), -anchor[1] * box.height()))
    return item


def arrowhead(tip, screen_direction, color: QColor, length: float = 15.0) -> QGraphicsPolygonItem:
    """A filled head at data point `tip`, pointing along a screen-space direction (y down)."""
    d = np.asarray(screen_direction, float)
    n = math.hypot(*d) or 1.0
    ux, uy = d / n
    w = length * 0.42
    pts = [(0.0, 0.0), (-length * ux - w * uy, -length * uy + w * ux), (-length * ux + w * uy, -length * uy - w * ux)]
    item = QGraphicsPolygonItem(QPolygonF([QPointF(a, b) for a, b in pts]))
    item.setBrush(QBrush(QColor(color)))
    item.setPen(pen(color, 1))
    item.setFlag(_FIXED_SIZE)
    item.setPos(float(tip[0]), float(tip[1]))
    return item


LEGEND_SAMPLE_ROOM = 44          # pixels of a legend entry besides its text: the sample and the spacing
LEGEND_ENTRIES_KEPT = 64       # legend entries kept for reuse per plot
LEGEND_SIDE_SHARE = 0.6        # of the plot's width, at most, for a legend beside it
LEGEND_MIN_TEXT = 120          # pixels: an entry never wraps narrower


class PlotWithLegend(pg.GraphicsLayoutWidget):
    """A plot with its legend in a strip below it, so the legend never hides what is drawn.

    Everything drawn per sample goes into one container (`add`); `clear_layer`
    drops it at once. Legend samples are made once per kind and reused.
    """

    def __init__(self, background: QColor, text: tuple, parent=None):
        super().__init__(parent)
        self.setBackground(background)
        self.item = self.addPlot(row=0, col=0)
        self.item.setMenuEnabled(False)
        self.item.hideButtons()
        self.vb = self.item.getViewBox()
        self.hide_axes("top", "right")           # hidden by pyqtgraph already; never shown here
        self.legend = pg.LegendItem(labelTextColor=text, colCount=3, horSpacing=14, verSpacing=-6)
        self.addItem(self.legend, row=1, col=0)
        # A long legend must not widen the plot beyond the widget: let it clip instead.
        self.legend.setMinimumWidth(10)
        self.legend.setMaximumWidth(100000)
        self.ci.layout.setRowStretchFactor(0, 1)
        self.ci.layout.setRowStretchFactor(1, 0)
        self._legend_beside = False
        self._layer: QGraphicsRectItem | None = None
        self._legend_samples: dict[str, object] = {}
        self._legend_entries: dict[tuple[str, str], tuple] = {}      # (kind, text): (ItemSample, LabelItem)
        self._legend_shown: list[tuple[str, str]] = []
        self.clear_layer()

    def hide_axes(self, *names: str) -> None:
        """Hide these axes for good: also unlinked from the view, since a hidden axis still works out its ticks
        and labels at every range change (about 3 ms a question over the map and the dial)."""
        for name in names:
            self.item.hideAxis(name)
            self.item.getAxis(name).unlinkFromView()

    def clear_layer(self) -> None:
        if self._layer is not None:
            self.vb.removeItem(self._layer)
        self._layer = QGraphicsRectItem()
        self._layer.setPen(NO_PEN)
        self._layer.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents)
        self.vb.addItem(self._layer, ignoreBounds=True)

    def add(self, item: QGraphicsItem) -> QGraphicsItem:
        item.setParentItem(self._layer)
        return item

    def set_legend(self, entries: list[tuple[str, str, object]]) -> None:
        """Entries (kind, text, factory of a sample item); rebuilt only when they change."""
        shown = [(kind, text) for kind, text, _ in entries]
        if shown == self._legend_shown:
            return
        # The entries' items are kept by (kind, text) and put back in the layout: a LabelItem made anew costs
        # ~4 ms (its text laid out, its size fixed), and most questions show the legend of one seen before.
        lg = self.legend
        for i in range(lg.layout.count() - 1, -1, -1):
            lg.layout.removeAt(i)
        for sample, label in lg.items:
            sample.hide()
            label.hide()
        lg.items = []
        lg.rowCount = 0
        for kind, text, factory in entries:
            pair = self._legend_entries.get((kind, text))
            if pair is None:
                item = self._legend_samples.get(kind)
                if item is None:
                    item = self._legend_samples[kind] = factory()
                if len(self._legend_entries) >= LEGEND_ENTRIES_KEPT:
                    self._drop_hidden_entries()
                sample = lg.sampleType(item)
                sample.setParentItem(lg)
                sample.sigClicked.connect(lg.sigSampleClicked)
                label = pg.LabelItem(text, color=lg.opts["labelTextColor"], justify="left",
                                     size=lg.opts["labelTextSize"])
                label.setParentItem(lg)
                pair = self._legend_entries[(kind, text)] = (sample, label)
            pair[0].show()
            pair[1].show()
            lg.items.append(pair)
            lg._addItemToLayout(*pair)
        lg.updateSize()
        self._legend_shown = shown
        self.fit_legend()

    def _drop_hidden_entries(self) -> None:
        """Forget the kept legend entries not shown now (so that renamed models do not pile up)."""
        shown = {id(x) for pair in self.legend.items for x in pair}
        for key, (sample, label) in list(self._legend_entries.items()):
            if id(sample) not in shown:
                del self._legend_entries[key]
                for x in (sample, label):
                    x.setParentItem(None)
                    if x.scene() is not None:
                        x.scene().removeItem(x)

    def fit_legend(self) -> None:
        """The legend where it leaves the plot the larger square (below it, or beside it when the widget is
        wide and low), in as many columns as the width holds whole (up to 3): never a name cut off."""
        labels = [label for _sample, label in self.legend.items]
        if not labels:
            return
        w, h, n = self.width(), self.height(), len(labels)
        # An entry longer than the pane is wide wraps (then the legend goes under the plot, one column).
        self._wrap_labels(labels, w - 12 - LEGEND_SAMPLE_ROOM)
        sizes = [label.item.boundingRect() for label in labels]
        entry = max(r.width() for r in sizes) + LEGEND_SAMPLE_ROOM
        line = max(r.height() for r in sizes)
        cols = max(1, min(3, int((w - 12) // entry)))
        rows = sum(r.height() for r in sizes) if cols == 1 else math.ceil(n / cols) * line
        below = min(w, h - rows)
        # Beside only when it leaves the plot a fair share of the width, and its entries fit its height.
        fits = entry <= LEGEND_SIDE_SHARE * w and sum(r.height() for r in sizes) <= h
        beside = min(w - entry, h) if fits else -1
        self._place_legend(beside > below)
        cols = 1 if self._legend_beside else cols
        if cols != self.legend.columnCount:
            self.legend.setColumnCount(cols)
        # Beside a tall plot the legend's cell is the plot's height: held to its own height and put at the
        # top, its entries stay one line apart rather than spread down the whole pane.
        tall = self.legend.layout.effectiveSizeHint(Qt.SizeHint.PreferredSize).height() + 4
        self.legend.setMaximumHeight(tall if self._legend_beside else 100000)

    def _wrap_labels(self, labels, room: float) -> None:
        """An entry wider than the legend can ever be (one column under the plot, `room` pixels of text) wraps
        onto more lines at that width rather than being cut at the pane's edge; the others stay one line. Set
        only when it changes: a label laid out again costs milliseconds, and most draws keep the width."""
        room = max(int(room), LEGEND_MIN_TEXT)
        changed = False
        for label in labels:
            item = label.item
            natural = getattr(label, "natural_width", None)
            if natural is None:
                item.setTextWidth(-1)
                natural = label.natural_width = item.boundingRect().width()
            want = room if natural > room else -1
            if item.textWidth() != want:
                item.setTextWidth(want)
                label.updateMin()
                changed = True
        if changed:
            # LegendItem.updateSize (pyqtgraph) sizes the legend from the entries as they are laid out.
            self.legend.updateSize()

    def _place_legend(self, beside: bool) -> None:
        if beside == self._legend_beside:
            return
        self._legend_beside = beside
        self.ci.removeItem(self.legend)
        self.ci.addItem(self.legend, row=0 if beside else 1, col=1 if beside else 0)
        self.ci.layout.setAlignment(self.legend, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.ci.layout.setRowStretchFactor(0, 1)
        self.ci.layout.setColumnStretchFactor(0, 1)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if hasattr(self, "legend"):              # pyqtgraph resizes during __init__
            self.fit_legend()


def line_sample(color: QColor, width: float = 3.0):
    return lambda: pg.PlotDataItem(pen=pen(color, width))


def symbol_sample(symbol: str, color: QColor, size: int = 12):
    return lambda: pg.ScatterPlotItem(symbol=symbol, size=size, brush=QColor(color), pen=pg.mkPen("w"))


def fill_sample(color: QColor):
    return lambda: pg.BarGraphItem(x=[0], height=[1], width=1, brush=QColor(color), pen=None)


_PG_SYMBOL = {"circle": "o", "square": "s", "triangle": "t1", "diamond": "d"}


def model_legend(models, names: list[str]) -> list[tuple[str, str, object]]:
    """Legend entries naming each of `models` (indices) in its colour and shape, for `set_legend`."""
    from . import style
    out = []
    for m in sorted(set(models)):
        name = names[m] if 0 <= m < len(names) else f"model {m + 1}"
        out.append((f"model-{m}", name, symbol_sample(_PG_SYMBOL[style.model_shape(m)], style.model_color(m), 11)))
    return out
