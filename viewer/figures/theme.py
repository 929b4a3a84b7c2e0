"""Looks of figures: paper (light, print), and talk (dark or light, large type, thick strokes).

Colours of the truth, the models, the viewpoint and the target, and the models'
marker shapes, come from `viewer.core.model_palette` (through `viewer.ui.style`), the one
table the window takes them from too, so a model looks the same in the inspector,
every figure, every clip and every slide.
"""
from __future__ import annotations

from dataclasses import dataclass

from PyQt6.QtGui import QColor, QFont

from ..core.model_palette import MODEL_SHAPES, model_shape  # noqa: F401  (re-exported: figures name them here)
from ..ui import style

FONT_FAMILY = "DejaVu Sans"          # installed with the app's system deps; Qt falls back otherwise


@dataclass(frozen=True)
class Theme:
    name: str
    background: QColor
    panel: QColor            # behind images and boxes
    text: QColor
    muted: QColor
    font_px: float           # body text size, in logical pixels
    stroke: float            # multiplies every line width

    def font(self, scale: float = 1.0, bold: bool = False) -> QFont:
        f = QFont(FONT_FAMILY)
        f.setPixelSize(max(1, int(round(self.font_px * scale))))
        f.setBold(bold)
        return f

    def w(self, width: float) -> float:
        return width * self.stroke

    @property
    def dark(self) -> bool:
        return self.background.lightness() < 128


PAPER = Theme("paper", QColor(255, 255, 255), QColor(242, 242, 244), QColor(25, 25, 30),
              QColor(105, 105, 112), 16.0, 1.0)
TALK_DARK = Theme("dark", QColor(18, 19, 24), QColor(34, 36, 44), QColor(240, 240, 244),
                  QColor(165, 168, 178), 30.0, 2.2)
TALK_LIGHT = Theme("light", QColor(250, 250, 248), QColor(232, 233, 236), QColor(20, 20, 26),
                   QColor(95, 95, 105), 30.0, 2.2)
THEMES = {t.name: t for t in (PAPER, TALK_DARK, TALK_LIGHT)}

TRUTH = style.TRUTH
VIEWPOINT = style.VIEWPOINT
TARGET = style.TARGET
MARKER = QColor(255, 200, 0)


def model_color(index: int) -> QColor:
    return style.model_color(index)


def viridis(t: float) -> QColor:
    """Time along the video path: dark purple -> teal -> yellow (as the window's map)."""
    stops = ((0.0, (68, 1, 84)), (0.5, (33, 145, 140)), (1.0, (253, 231, 37)))
    t = min(max(t, 0.0), 1.0)
    for (t0, c0), (t1, c1) in zip(stops, stops[1:]):
        if t <= t1:
            a = (t - t0) / (t1 - t0)
            return QColor(*(int(round(x + a * (y - x))) for x, y in zip(c0, c1)))
    return QColor(*stops[-1][1])
