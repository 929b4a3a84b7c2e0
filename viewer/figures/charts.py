"""The window's answer charts, painted for figures: the direction dial, the number bars, the option texts.

A question with no map (a release without scene data, an egocentric angle or
a distance) still has a picture of its answers: the chart its kind names
(`AnswerKind.chart`), drawn as `ui/answer_charts.py` and `ui/option_texts.py` draw it in
the window. `CHART_PAINTERS` maps that name to a painter `(p, rect, truth, answers, frame,
theme, *, names, scale, options)`; as in the window, `scale` is the question's
`Benchmark.scale` (the unit numbers are written in) and `options` its option texts, and a
painter ignores the details it does not draw.
"""
from __future__ import annotations

import math

import numpy as np
from PyQt6.QtCore import QPointF, QRectF, Qt
from PyQt6.QtGui import QColor, QFontMetricsF, QPainter, QPolygonF

from ..core.benchmarks import METRES, Scale
from ..core.overlays import model_answers
from ..core.scoring import ANGLE_TOLERANCES, MRA_THETAS
from ..core.talk.showcase import option_rows
from . import theme as th
from .canvas import draw_text, pen, text_height
from .theme import Theme

DIAL_LABELS = {"egocentric": ("0° ahead", "+90° left", "−90° right", "±180° behind"),
               "map": ("0° image up", "+90° image left", "−90° image right", "±180° image down")}


def _dir(deg: float) -> np.ndarray:
    """Screen direction (y down) of an angle: 0 = up, counter-clockwise positive."""
    a = math.radians(deg)
    return np.array([-math.sin(a), -math.cos(a)])


def paint_dial(p: QPainter, rect: QRectF, truth: float | None, answers: list[tuple[int, float]],
               frame: str, theme: Theme, **_details) -> None:
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
               frame: str | None, theme: Theme, *, names: dict[int, str] | None = None,
               scale: Scale | None = None, **_details) -> None:
    """Truth and answered numbers as bars over the bands each MRA threshold accepts, written in the
    question's `scale` (a count, cm, m²; without one, metres)."""
    names = names or {}
    scale = scale or METRES
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
        draw_text(p, QRectF(bar.right() + theme.font_px * 0.4, y, theme.font_px * 6, row_h), scale.text(v),
                  theme.font(0.8), theme.text, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, wrap=False)
    draw_text(p, QRectF(x0, top + row_h * len(rows), plot_w, theme.font_px * 1.3), scale.axis,
              theme.font(0.75), theme.muted, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, wrap=False)


def paint_option_texts(p: QPainter, rect: QRectF, truth: float | None, answers: list[tuple[int, float]],
                       frame: str | None, theme: Theme, *, names: dict[int, str] | None = None,
                       options=(), **_details) -> None:
    """Each option's letter and text, the truth framed green, each model's pick as a badge under it."""
    from .parts import paint_badge
    names = names or {}
    rows = option_rows(options, None if truth is None else int(truth), [(m, int(v)) for m, v in answers])
    if not rows:
        return
    font, letter_font = theme.font(0.9), theme.font(1.0, bold=True)
    badge_font = theme.font(0.7, bold=True)
    badge_h = QFontMetricsF(badge_font).height() * 1.35
    gap = theme.font_px * 0.45
    pad = theme.font_px * 0.5
    letter_w = QFontMetricsF(letter_font).horizontalAdvance("M") * 1.6
    text_w = rect.width() - 2 * pad - letter_w
    mark, mark_font = "✓ ground truth", theme.font(0.8, bold=True)
    mark_h = QFontMetricsF(mark_font).height() * 1.1
    heights = [max(text_height(p, text_w, r.text, font), QFontMetricsF(letter_font).height())
               + (mark_h if r.truth else 0) + (badge_h if r.picked_by else 0) + 2 * pad for r in rows]
    shrink = min(1.0, (rect.height() - gap * (len(rows) - 1)) / max(sum(heights), 1.0))
    y = rect.top()
    for r, h in zip(rows, heights):
        h *= shrink
        box = QRectF(rect.left(), y, rect.width(), h)
        p.setPen(pen(th.TRUTH if r.truth else theme.muted, theme.w(3 if r.truth else 1)))
        p.setBrush(theme.background)
        p.drawRoundedRect(box, theme.font_px * 0.25, theme.font_px * 0.25)
        inner = box.adjusted(pad, pad * shrink, -pad, -pad * shrink)
        draw_text(p, QRectF(inner.left(), inner.top(), letter_w, inner.height()), r.letter, letter_font,
                  th.TRUTH if r.truth else theme.text, wrap=False)
        body = QRectF(inner.left() + letter_w, inner.top(), text_w,
                      inner.height() - (badge_h if r.picked_by else 0) - (mark_h if r.truth else 0))
        used = draw_text(p, body, r.text, font, theme.text)
        if r.truth:
            draw_text(p, QRectF(body.left(), body.top() + used, body.width(), mark_h), mark, mark_font, th.TRUTH,
                      wrap=False)
        x = inner.left() + letter_w
        for m in r.picked_by:
            x += paint_badge(p, QPointF(x, inner.bottom() - badge_h), names.get(m, f"model {m + 1}"),
                             th.model_color(m), badge_font, badge_h) + gap
        y += h + gap


CHART_PAINTERS = {"dial": paint_dial, "bars": paint_bars, "option-texts": paint_option_texts}


def chart_painter(subject, truth: bool = True, answers: bool = True):
    """A paint function `(p, rect, theme)` for the chart the subject's kind names, or None; `truth` and
    `answers` False leave them out (a slide before its reveal)."""
    kind = subject.story.kind
    painter = CHART_PAINTERS.get(kind.chart) if kind is not None else None
    if painter is None:
        return None
    q = subject.story.question
    show_truth, show_answers = truth, answers
    truth = float(q.truth.value) if show_truth and q.truth.ok and np.ndim(q.truth.value) == 0 else None
    answers = [(m, float(v)) for m, v in model_answers(subject.qi, subject.media.results_shown)
               if show_answers and np.ndim(v) == 0]
    names = {a.index: a.name for a in subject.story.answers}
    frame = q.column.frame if q.column is not None else "egocentric"
    details = dict(names=names, scale=q.benchmark.scale(q), options=list(q.options or ()))

    def paint(p: QPainter, rect: QRectF, theme: Theme) -> None:
        painter(p, rect, truth, answers, frame, theme, **details)
    return paint
