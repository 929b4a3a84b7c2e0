"""Colours and small shared look-and-feel choices, in one place."""
from __future__ import annotations

from PyQt6.QtGui import QColor

# Ground truth is always this green; models take the palette in load order
# (Okabe-Ito, distinguishable with colour-blindness, none of them green).
TRUTH = QColor(0, 170, 80)
TRUTH_HEX = TRUTH.name()
_MODELS = ["#E69F00", "#0072B2", "#D55E00", "#CC79A7", "#56B4E9", "#8C564B", "#F0E442", "#7F7F7F"]
VIEWPOINT = QColor(30, 120, 255)
TARGET = QColor(230, 30, 30)
MUTED = QColor(120, 120, 120)


def model_color(index: int) -> QColor:
    return QColor(_MODELS[index % len(_MODELS)])


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
