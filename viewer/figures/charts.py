"""The window's answer charts, painted for figures: the direction dial and the distance bars.

A question with no map (a release without scene data, an egocentric angle or
a distance) still has a picture of its answers: the chart its kind names
(`AnswerKind.chart`), drawn as `ui/answer_charts.py` draws it in the window.
`CHART_PAINTERS` maps that name to a painter `(p, rect, truth, answers, frame, theme)`.
"""
from __future__ import annotations

import math

import numpy as np
from PyQt6.QtCore import QPointF, QRectF, Qt
from PyQt6.QtGui import QColor, QPainter, QPolygonF

from ..core.overlays import model_answers
from ..core.scoring import ANGLE_TOLERANCES, MRA_THETAS
from . import theme as th
from .canvas import draw_text, pen
from .theme import Theme

DIAL_LABELS = {"egocentric": ("0° ahead", "+90° left", "−90° right", "±180° behind"),
               "map": ("0° image up", "+90° image left", "−90° image right", "±180° image down")}


def _dir(deg: float) -> np.ndarray:
    """Screen direction (y down) of an angle: 0 = up, counter-clockwise positive."""
    a = math.radians(deg)
    return np.array([-math.sin(a), -math.cos(a)])


def paint_dial(p: QPainter, rect: QRectF, truth: float | None, answers: list[tuple[int, float]],
               frame: str, theme: Theme) -> None:
    """Seen from above, you at the centre facing up: the truth with its tolerance sectors, each model's arrow."""
    label_h = theme.font_px * 1.6
    r = max(4.0, min(rect.width() * 0.32, (rect.height() - 2 * label_h) / 2))
    c = QPointF(rect.center().x(), rect.center().y())

    def at(deg: float, scale: float) -> QPointF:
        v = _dir(deg) * r * scale
        return QPointF(c.x() + v[0], c.y() + v[1])

    if truth is not None:
        for tau, alpha in zip(ANGLE_TOLERANCES[::-1], (40, 75, 120)):
            col = QColor(th.TRUTH)
            col.setAlpha(alpha)
            pts = [c] + [at(a, 1.0) for a in np.linspace(truth - tau, truth + tau, 40)] + [c]
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(col)
            p.drawPolygon(QPolygonF(pts))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.setPen(pen(theme.muted, theme.w(1.5)))
    p.drawEllipse(c, r, r)
    for a in range(0, 360, 45):
        p.drawLine(at(a, 0.93), at(a, 1.0))
    for text, a, align in zip(DIAL_LABELS.get(frame, DIAL_LABELS["egocentric"]), (0, 90, -90, 180),
                              (Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
                               Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                               Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                               Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)):
        q = at(a, 1.06)
        w = theme.font_px * 9
        box = QRectF(q.x() - (w if a == 90 else 0 if a == -90 else w / 2),
                     q.y() - (label_h if a == 0 else 0 if a == 180 else label_h / 2), w, label_h)
        draw_text(p, box, text, theme.font(0.75), theme.muted, align, wrap=False)
    arrows = [(v, th.model_color(m), 2.8) for m, v in answers]
    if truth is not None:
        arrows.append((truth, th.TRUTH, 4.5))        # on top
    for deg, col, width in arrows:
        tip = at(deg, 0.9)
        p.setPen(pen(col, theme.w(width)))
        p.drawLine(c, tip)
        d = _dir(deg)
        n = np.array([-d[1], d[0]])
        s = theme.w(width) * 3
        back = np.array([tip.x(), tip.y()]) - d * s * 1.6
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(col)
        p.drawPolygon(QPolygonF([tip, QPointF(*(back + n * s)), QPointF(*(back - n * s))]))
    you = [QPointF(c.x(), c.y() - r * 0.12), QPointF(c.x() - r * 0.07, c.y() + r * 0.07),
           QPointF(c.x() + r * 0.07, c.y() + r * 0.07)]
    p.setBrush(theme.text)
    p.drawPolygon(QPolygonF(you))


def paint_bars(p: QPainter, rect: QRectF, truth: float | None, answers: list[tuple[int, float]],
               frame: str | None, theme: Theme, names: dict[int, str] | None = None) -> None:
    """Truth and answered distances as bars over the bands each MRA threshold accepts."""
    names = names or {}
    rows = [("ground truth", truth, th.TRUTH)] if truth is not None else []
    rows += [(names.get(m, f"model {m + 1}"), v, th.model_color(m)) for m, v in answers]
    if not rows:
        return
    label_w = min(rect.width() * 0.3, theme.font_px * 9)
    x0 = rect.left() + label_w
    plot_w = rect.width() - label_w - theme.font_px * 5
    sane = [v for _, v, _ in rows if v is not None and math.isfinite(v) and 0 <= v <= 1e4]
    edge = max(max(sane + [1.0]), (truth or 0) * 1.5) * 1.2

    def x(v: float) -> float:
        return x0 + plot_w * min(max(v, 0.0), edge) / edge if math.isfinite(v) else x0 + plot_w

    row_h = min(rect.height() / (len(rows) + 0.5), theme.font_px * 2.6)
    top = rect.top() + (rect.height() - row_h * len(rows)) / 2
    if truth is not None:
        for t in 1.0 - MRA_THETAS:
            col = QColor(th.TRUTH)
            col.setAlpha(22)
            p.fillRect(QRectF(x(truth * (1 - t)), top, x(truth * (1 + t)) - x(truth * (1 - t)),
                              row_h * len(rows)), col)
    for k, (name, v, col) in enumerate(rows):
        y = top + k * row_h
        draw_text(p, QRectF(rect.left(), y, label_w - theme.font_px * 0.5, row_h), name, theme.font(0.8),
                  theme.text, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, wrap=False)
        bar = QRectF(x0, y + row_h * 0.2, x(v) - x0, row_h * 0.6)
        p.fillRect(bar, col)
        text = f"{v:.1f} m" if math.isfinite(v) and abs(v) < 1e6 else f"{v:.3g} m"
        draw_text(p, QRectF(bar.right() + theme.font_px * 0.4, y, theme.font_px * 6, row_h), text, theme.font(0.8),
                  theme.text, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, wrap=False)


CHART_PAINTERS = {"dial": paint_dial, "bars": paint_bars}


def chart_painter(subject):
    """A paint function `(p, rect, theme)` for the chart the subject's kind names, or None."""
    kind = subject.story.kind
    painter = CHART_PAINTERS.get(kind.chart) if kind is not None else None
    if painter is None:
        return None
    q = subject.story.question
    truth = float(q.truth.value) if q.truth.ok and np.ndim(q.truth.value) == 0 else None
    answers = [(m, float(v)) for m, v in model_answers(subject.qi, subject.media.results_shown) if np.ndim(v) == 0]
    names = {a.index: a.name for a in subject.story.answers}
    frame = q.column.frame if q.column is not None else "egocentric"

    def paint(p: QPainter, rect: QRectF, theme: Theme) -> None:
        if painter is paint_bars:
            paint_bars(p, rect, truth, answers, frame, theme, names)
        else:
            painter(p, rect, truth, answers, frame, theme)
    return paint
