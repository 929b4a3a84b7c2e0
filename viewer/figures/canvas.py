"""Painting surfaces and small drawing helpers shared by every figure.

One paint function draws a figure in logical pixels; `save_figure` hands it
a QImage (PNG at any scale), a QSvgGenerator (SVG) or a QPdfWriter (PDF,
one logical pixel = one point), so the three formats show the same thing.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable

import numpy as np
from PyQt6.QtCore import QPointF, QRectF, QSize, QSizeF, Qt
from PyQt6.QtGui import QBrush, QColor, QFontMetricsF, QImage, QPainter, QPainterPath, QPen, QPolygonF

from ..core.diagnostics import UserError
from ..render.clip_writer import check_writable
from .theme import Theme

FORMATS = (".png", ".svg", ".pdf")
PaintFn = Callable[[QPainter], None]
_APP: list = []          # the application made here, kept alive for the process


def ensure_gui_app(offscreen: bool = False):
    """An application for painting text (fonts need one); headless when there is no display, or
    when `offscreen` (a batch worker paints only into images, whatever display its machine has).

    A QApplication, not a bare QGuiApplication: widgets made later in the same
    process (the window, its tests) need the widgets kind, and there is only one.
    """
    from PyQt6.QtGui import QGuiApplication
    app = QGuiApplication.instance()
    if app is None:
        # Read when the application is made (not when QtGui is imported): set just before.
        if offscreen:
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        elif not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from PyQt6.QtCore import QCoreApplication, Qt
        from PyQt6.QtWidgets import QApplication
        # As viewer.ui.app.make_app: the window's 3D view needs it set before the app exists.
        QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
        app = QApplication(sys.argv[:1])
        _APP.append(app)
    return app


def rgb_to_qimage(arr: np.ndarray) -> QImage:
    arr = np.ascontiguousarray(arr, np.uint8)
    h, w = arr.shape[:2]
    return QImage(arr.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()


def qimage_to_rgb(img: QImage) -> np.ndarray:
    img = img.convertToFormat(QImage.Format.Format_RGB888)
    h, w, bpl = img.height(), img.width(), img.bytesPerLine()
    buf = np.frombuffer(img.constBits().asstring(h * bpl), np.uint8).reshape(h, bpl)
    return buf[:, : w * 3].reshape(h, w, 3).copy()


def raster(size: tuple[int, int], paint: PaintFn, scale: float = 1.0) -> QImage:
    """The figure as an RGB image of size * scale pixels."""
    w, h = size
    img = QImage(max(1, int(round(w * scale))), max(1, int(round(h * scale))), QImage.Format.Format_RGB888)
    img.fill(QColor(255, 255, 255))
    p = QPainter(img)
    _hints(p)
    p.scale(scale, scale)
    paint(p)
    p.end()
    return img


def _hints(p: QPainter) -> None:
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)


def save_figure(path: Path, size: tuple[int, int], paint: PaintFn, scale: float = 1.0,
                title: str = "gst-viewer figure") -> Path:
    """Write the figure as .png (size * scale pixels), .svg or .pdf (size in points)."""
    path = check_writable(Path(path))
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise UserError(f"{path}: unknown figure format {suffix or '(none)'}; use .png, .svg or .pdf")
    if not scale > 0:
        raise UserError(f"--scale {scale}: must be positive")
    w, h = size
    if suffix == ".png":
        if not raster(size, paint, scale).save(str(path), "PNG"):
            raise UserError(f"{path}: cannot write the image")
        return path
    if suffix == ".svg":
        from PyQt6.QtSvg import QSvgGenerator
        gen = QSvgGenerator()
        gen.setFileName(str(path))
        gen.setSize(QSize(int(w), int(h)))
        gen.setViewBox(QRectF(0, 0, w, h))
        gen.setTitle(title)
        device = gen
    else:
        from PyQt6.QtCore import QMarginsF
        from PyQt6.QtGui import QPageLayout, QPageSize, QPdfWriter
        pdf = QPdfWriter(str(path))
        pdf.setResolution(72)
        pdf.setPageLayout(QPageLayout(QPageSize(QSizeF(w, h), QPageSize.Unit.Point), QPageLayout.Orientation.Portrait,
                                      QMarginsF(0, 0, 0, 0)))
        pdf.setTitle(title)
        device = pdf
    p = QPainter()
    if not p.begin(device):
        raise UserError(f"{path}: cannot write")
    _hints(p)
    p.fillRect(QRectF(0, 0, w, h), QColor(255, 255, 255))
    paint(p)
    p.end()
    if not path.exists() or path.stat().st_size == 0:
        raise UserError(f"{path}: nothing was written")
    return path


# ---------------------------------------------------------------- helpers
def pen(color: QColor, width: float, dash: bool = False, cap=Qt.PenCapStyle.RoundCap) -> QPen:
    pn = QPen(QColor(color))
    pn.setWidthF(width)
    pn.setCapStyle(cap)
    pn.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    if dash:
        pn.setStyle(Qt.PenStyle.DashLine)
    return pn


def polygon(points) -> QPolygonF:
    return QPolygonF([QPointF(float(x), float(y)) for x, y in points])


def shape_path(shape: str, centre: QPointF, r: float) -> QPainterPath:
    path = QPainterPath()
    x, y = centre.x(), centre.y()
    if shape == "square":
        path.addRect(QRectF(x - 0.85 * r, y - 0.85 * r, 1.7 * r, 1.7 * r))
    elif shape == "triangle":
        path.addPolygon(polygon([(x, y - 1.15 * r), (x + r, y + 0.75 * r), (x - r, y + 0.75 * r)]))
        path.closeSubpath()
    elif shape == "diamond":
        path.addPolygon(polygon([(x, y - 1.2 * r), (x + r, y), (x, y + 1.2 * r), (x - r, y)]))
        path.closeSubpath()
    elif shape == "star":
        pts = []
        for k in range(10):
            a = np.pi / 2 + k * np.pi / 5
            rr = r * (1.0 if k % 2 == 0 else 0.45)
            pts.append((x + rr * np.cos(a), y - rr * np.sin(a)))
        path.addPolygon(polygon(pts))
        path.closeSubpath()
    else:
        path.addEllipse(centre, r, r)
    return path


def draw_marker(p: QPainter, shape: str, centre: QPointF, r: float, fill: QColor, outline: QColor,
                width: float) -> None:
    p.setPen(pen(outline, width))
    p.setBrush(QBrush(fill))
    p.drawPath(shape_path(shape, centre, r))


def text_height(p: QPainter, rect_width: float, text: str, font) -> float:
    fm = QFontMetricsF(font)
    return fm.boundingRect(QRectF(0, 0, rect_width, 1e6),
                           int(Qt.TextFlag.TextWordWrap), text).height()


def draw_text(p: QPainter, rect: QRectF, text: str, font, color: QColor,
              flags=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, wrap: bool = True) -> float:
    """Draw text in rect; returns the height it took (elided with … when it does not fit)."""
    p.setFont(font)
    p.setPen(QColor(color))
    fm = QFontMetricsF(font)
    f = int(flags) | (int(Qt.TextFlag.TextWordWrap) if wrap else 0)
    need = fm.boundingRect(QRectF(0, 0, rect.width(), 1e6), f, text)
    if not wrap:
        text = fm.elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
    elif need.height() > rect.height() + 0.5:
        # Too long: keep whole lines that fit and end with an ellipsis.
        words = text.split()
        while words and fm.boundingRect(QRectF(0, 0, rect.width(), 1e6), f,
                                        " ".join(words) + " …").height() > rect.height() + 0.5:
            words.pop()
        text = " ".join(words) + " …"
    p.drawText(rect, f, text)
    return min(need.height(), rect.height())


# Zero bytes after the copy draw_scaled paints from: Qt reads 3 of them (one RGB888 pixel).
_TAIL_BYTES = 16


def draw_scaled(p: QPainter, rect: QRectF, image: QImage) -> None:
    """p.drawImage(rect, image), with the same pixels on every run.

    Qt (6.11) reads the 3 bytes after the end of a Format_RGB888 image's buffer
    when it samples the image's bottom-right corner, smoothly and antialiased,
    at some scales. Those bytes are whatever the heap holds there, so that one
    corner pixel of a figure changed from run to run (the gallery's grid.png).
    A 24-bit image is drawn from a copy followed by zero bytes instead: every
    other pixel is the same, and the corner is fixed.
    """
    if image.format() != QImage.Format.Format_RGB888 or image.isNull():
        p.drawImage(rect, image)
        return
    n = image.sizeInBytes()
    buf = bytearray(n + _TAIL_BYTES)
    buf[:n] = image.constBits().asstring(n)
    # The QImage only borrows `buf`, which outlives it: both end with this call.
    p.drawImage(rect, QImage(buf, image.width(), image.height(), image.bytesPerLine(), image.format()))


def fit_rect(outer: QRectF, w: float, h: float) -> QRectF:
    """The largest rect of aspect w:h centred in `outer`."""
    if w <= 0 or h <= 0:
        return QRectF(outer)
    s = min(outer.width() / w, outer.height() / h)
    return QRectF(outer.center().x() - w * s / 2, outer.center().y() - h * s / 2, w * s, h * s)


def draw_image(p: QPainter, outer: QRectF, image: QImage | None, theme: Theme, message: str = "",
               frame: QColor | None = None, frame_width: float = 0.0) -> QRectF:
    """Image letterboxed in `outer` (or a panel with `message`); returns where it went."""
    if image is None or image.isNull():
        p.fillRect(outer, theme.panel)
        draw_text(p, outer.adjusted(12, 12, -12, -12), message or "not available", theme.font(0.8),
                  theme.muted, Qt.AlignmentFlag.AlignCenter)
        return QRectF(outer)
    r = fit_rect(outer, image.width(), image.height())
    draw_scaled(p, r, image)
    if frame is not None:
        p.setPen(pen(frame, frame_width, cap=Qt.PenCapStyle.SquareCap))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(r.adjusted(-frame_width / 2, -frame_width / 2, frame_width / 2, frame_width / 2))
    return r
