"""A picture that fits its box, or the reason there is none."""
from __future__ import annotations

from PyQt6.QtCore import QRectF, QSize, Qt
from PyQt6.QtGui import QColor, QImage, QPainter, QPen, QPixmap
from PyQt6.QtWidgets import QSizePolicy, QWidget

from .images import image_text

DIRECT_DOWNSCALE = 2.5       # the strongest downscale drawn with bilinear filtering (see _draws_directly)
_PAINTED_AS_IS = (QImage.Format.Format_RGB32, QImage.Format.Format_ARGB32_Premultiplied)   # the screen's formats


class ImagePane(QWidget):
    """Paints a QImage scaled to fit with its aspect ratio kept.

    Without an image it shows `message` (e.g. "video3.mp4: file not found")
    so a missing file is explained where the picture would be. An optional
    rectangle in image pixels (the target's box on a video frame) is drawn
    on top; a caption is drawn in the top-left corner. An image decoded from
    a file that is not whole (`images.image_text`: a JPEG cut in its scan)
    says so across its foot, where its missing part is drawn grey.
    """

    def __init__(self, message: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self._image: QImage | None = None
        self._message = message
        self._caption = ""
        self._damage = ""
        self._box: tuple[float, float, float, float] | None = None
        self._frame_color: QColor | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(120, 90)
        # It paints every pixel (its background first): Qt need not paint what lies under it when it changes
        # (the player, the splitters and the window's background were painted beneath at every new frame).
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    def sizeHint(self) -> QSize:
        return QSize(480, 360)

    @property
    def image(self) -> QImage | None:
        return self._image

    @property
    def message(self) -> str:
        return self._message

    def set_image(self, image: QImage | None, message: str = "") -> None:
        self._image = image if image is not None and not image.isNull() else None
        if self._image is not None and self._image.format() not in _PAINTED_AS_IS:
            # Once here, not at every paint: drawn from RGB888 (decoded video frames) Qt converts each time.
            alpha = self._image.hasAlphaChannel()
            self._image = self._image.convertToFormat(_PAINTED_AS_IS[1] if alpha else _PAINTED_AS_IS[0])
        self._damage = image_text(self._image) if self._image is not None else ""
        self._message = message
        self.update()

    @property
    def damage(self) -> str:
        """What is wrong with the file of the image shown ('' when whole or none)."""
        return self._damage

    def set_message(self, message: str) -> None:
        self.set_image(None, message)

    def set_caption(self, caption: str) -> None:
        self._caption = caption
        self.update()

    def set_box(self, box: tuple[float, float, float, float] | None) -> None:
        self._box = box
        self.update()

    def set_frame_color(self, color: QColor | None) -> None:
        self._frame_color = color
        self.update()

    def _draws_directly(self, r: QRectF) -> bool:
        """Whether the image is drawn into `r` as it is, with bilinear filtering, not from a smoothly scaled copy.
        Down to 1/2.5 (the video and the current view in the window: 640x512 in panes of 260 to 600 px)
        bilinear filtering looks the same and costs a quarter (0.26 ms against 1.1 ms for a scaled copy made
        into a pixmap, paid at every question); smaller than that, it skips pixels and aliases."""
        return r.width() * self.devicePixelRatioF() * DIRECT_DOWNSCALE >= self._image.width()

    def _scaled(self, r: QRectF) -> QPixmap:
        """The image smoothly scaled to `r`, kept until the image or the size changes: a pane is painted
        several times per question (the caption, the box, the frame colour, its neighbours' layout)."""
        dpr = self.devicePixelRatioF()          # device pixels on a high-density screen
        size = QSize(max(1, round(r.width() * dpr)), max(1, round(r.height() * dpr)))
        key = (self._image.cacheKey(), size.width(), size.height())
        if getattr(self, "_scaled_key", None) != key:
            self._scaled_pixmap = QPixmap.fromImage(self._image.scaled(
                size, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation))
            self._scaled_pixmap.setDevicePixelRatio(dpr)
            self._scaled_key = key
        return self._scaled_pixmap

    def image_rect(self) -> QRectF:
        """Where the image is painted, in widget coordinates."""
        if self._image is None:
            return QRectF()
        iw, ih = self._image.width(), self._image.height()
        s = min(self.width() / iw, self.height() / ih)
        w, h = iw * s, ih * s
        return QRectF((self.width() - w) / 2, (self.height() - h) / 2, w, h)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor(40, 40, 44))
        if self._image is not None:
            r = self.image_rect()
            if self._draws_directly(r):
                p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
                p.drawImage(r, self._image)
            else:
                p.drawPixmap(r.topLeft(), self._scaled(r))
            if self._box is not None:
                s = r.width() / self._image.width()
                x0, y0, x1, y1 = self._box
                p.setPen(QPen(QColor(255, 40, 40), 2))
                p.drawRect(QRectF(r.x() + x0 * s, r.y() + y0 * s, (x1 - x0) * s, (y1 - y0) * s))
        elif self._message:
            p.setPen(QColor(200, 200, 200))
            p.drawText(self.rect().adjusted(12, 12, -12, -12),
                       Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self._message)
        if self._damage and self._image is not None:
            r = self.image_rect()
            strip = QRectF(r.left(), r.bottom() - p.fontMetrics().height() - 8, r.width(), p.fontMetrics().height() + 8)
            p.fillRect(strip, QColor(120, 20, 20, 210))
            p.setPen(QColor(255, 255, 255))
            p.drawText(strip.adjusted(6, 0, -6, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                       p.fontMetrics().elidedText(f"⚠ {self._damage}", Qt.TextElideMode.ElideRight,
                                                  int(strip.width()) - 12))
        if self._frame_color is not None:
            p.setPen(QPen(self._frame_color, 5))
            p.drawRect(self.rect().adjusted(2, 2, -3, -3))
        if self._caption:
            f = p.font()
            f.setBold(True)
            p.setFont(f)
            fm = p.fontMetrics()
            w = fm.horizontalAdvance(self._caption) + 12
            p.fillRect(QRectF(6, 6, w, fm.height() + 6), QColor(0, 0, 0, 160))
            p.setPen(QColor(255, 255, 255))
            p.drawText(QRectF(6, 6, w, fm.height() + 6), Qt.AlignmentFlag.AlignCenter, self._caption)
        p.end()
