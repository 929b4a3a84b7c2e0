"""Render packaging/linux/icons/gst-viewer.svg to the PNG sizes desktops look for.

    .venv/bin/python packaging/linux/render_icons.py

writes icons/hicolor/<N>x<N>/apps/gst-viewer.png for N in SIZES (committed;
rerun after editing the SVG). Uses Qt's SVG renderer, offscreen.
"""
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PyQt6.QtCore import Qt  # noqa: E402
from PyQt6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PyQt6.QtSvg import QSvgRenderer  # noqa: E402

HERE = Path(__file__).resolve().parent
SVG = HERE / "icons" / "gst-viewer.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256)


def render(svg: Path, size: int) -> QImage:
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def main() -> int:
    app = QGuiApplication(sys.argv[:1])  # noqa: F841  (fonts and painting need one)
    for size in SIZES:
        out = HERE / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "gst-viewer.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        if not render(SVG, size).save(str(out), "PNG"):
            raise SystemExit(f"{out}: cannot write")
        print(out.relative_to(HERE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
