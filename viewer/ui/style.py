"""Colours and small shared look-and-feel choices, in one place."""
from __future__ import annotations

from PyQt6.QtGui import QColor

from ..core import model_palette

# Ground truth is always this green, the current view this blue, the target this red; models take
# `core.model_palette` in load order (colour-blind safe, never one of these three), with a marker shape each.
TRUTH = QColor(model_palette.TRUTH)
TRUTH_HEX = TRUTH.name()
VIEWPOINT = QColor(model_palette.VIEWPOINT)
TARGET = QColor(model_palette.TARGET)
MUTED = QColor(120, 120, 120)
model_shape = model_palette.model_shape


def model_color(index: int) -> QColor:
    return QColor(model_palette.model_color(index))


def score_color(score: float) -> QColor:
    """Red (0) through amber to green (1), for score cells."""
    s = min(max(score, 0.0), 1.0)
    if s < 0.5:
        r, g = 230, int(90 + 250 * s)
    else:
        r, g = int(230 - 300 * (s - 0.5)), 215
    return QColor(r, g, 90, 110)


def badge_html(text: str, color: str, fg: str = "white") -> str:
    return (f"<span style='background:{color}; color:{fg}; font-weight:600;'>"
            f"&nbsp;{text}&nbsp;</span>")
