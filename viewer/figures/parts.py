"""Building blocks of figures and slides: title, frame strip, options, answers table, 3D still."""
from __future__ import annotations

from PyQt6.QtCore import QPointF, QRectF, Qt
from PyQt6.QtGui import QColor, QFontMetricsF, QImage, QPainter

from ..core.answers import is_scored
from ..core.talk.showcase import QuestionStory
from ..render.still_camera import Still
from . import theme as th
from .canvas import draw_image, draw_marker, draw_text, pen, polygon
from .map_painter import LegendEntry
from .theme import Theme


def paint_title(p: QPainter, rect: QRectF, story: QuestionStory, theme: Theme, show_uid: bool = True) -> None:
    """"ED_v  Egocentric direction (visual)" on the left (the benchmark's short label in the badge), the
    benchmark's name and the uid small on the right (without the uid: the name after the title)."""
    font = theme.font(1.35, bold=True)
    fm = QFontMetricsF(font)
    badge = f" {story.label} "
    bw = fm.horizontalAdvance(badge) + theme.font_px * 0.4
    p.fillRect(QRectF(rect.left(), rect.top(), bw, fm.height() * 1.15), theme.text)
    draw_text(p, QRectF(rect.left(), rect.top(), bw, fm.height() * 1.15), badge, font, theme.background,
              Qt.AlignmentFlag.AlignCenter, wrap=False)
    x = rect.left() + bw + theme.font_px * 0.6
    uid_w = rect.width() * 0.38 if show_uid else 0.0
    room = rect.right() - x - uid_w
    title_w = min(fm.horizontalAdvance(story.title), room)
    draw_text(p, QRectF(x, rect.top(), room, fm.height() * 1.15), story.title, font,
              theme.text, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, wrap=False)
    bench_x = x + title_w + theme.font_px * 0.8
    if not show_uid and story.benchmark:
        draw_text(p, QRectF(bench_x, rect.top(), rect.right() - bench_x, fm.height() * 1.15),
                  story.benchmark, theme.font(0.9), theme.muted,
                  Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, wrap=False)
    if show_uid:               # the benchmark's name goes with the uid, which never crowds the title
        where = f"{story.benchmark}  ·  {story.uid}" if story.benchmark else story.uid
        draw_text(p, QRectF(rect.right() - uid_w, rect.top(), uid_w, fm.height() * 1.15), where,
                  theme.font(0.62), theme.muted, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                  wrap=False)


def title_height(theme: Theme) -> float:
    return QFontMetricsF(theme.font(1.35, bold=True)).height() * 1.15


def paint_question(p: QPainter, rect: QRectF, story: QuestionStory, theme: Theme, scale: float = 1.1) -> float:
    """The question sentence, and under it how the answer is written; returns the height used."""
    h = draw_text(p, rect, story.sentence, theme.font(scale, bold=True), theme.text)
    gap = theme.font_px * 0.35
    if story.convention and rect.height() - h - gap > theme.font_px * 0.7:
        h += gap + draw_text(p, QRectF(rect.left(), rect.top() + h + gap, rect.width(), rect.height() - h - gap),
                             "Answer: " + story.convention, theme.font(0.8), theme.muted)
    return h


def paint_strip(p: QPainter, rect: QRectF, frames: list[tuple[int, QImage]], fps: float, theme: Theme,
                best: int | None = None, note: str = "") -> None:
    """Video frames side by side with their time under each; the target's best frame outlined."""
    cap_h = QFontMetricsF(theme.font(0.7)).height() * 1.3
    if not frames:
        draw_image(p, rect, None, theme, note or "no video frames")
        return
    n = len(frames)
    gap = theme.font_px * 0.4
    img = frames[0][1]
    aspect = img.width() / max(img.height(), 1)
    fw = min((rect.width() - gap * (n - 1)) / n, (rect.height() - cap_h) * aspect)
    fh = fw / aspect
    x = rect.left() + (rect.width() - (n * fw + (n - 1) * gap)) / 2
    for k, image in frames:
        box = QRectF(x, rect.top(), fw, fh)
        is_best = best is not None and k == best
        draw_image(p, box, image, theme, frame=th.TARGET if is_best else None, frame_width=theme.w(3))
        t = f"{k / fps:.1f} s" if fps > 0 else f"frame {k}"
        draw_text(p, QRectF(x, rect.top() + fh + 2, fw, cap_h), t + ("  · target best seen" if is_best else ""),
                  theme.font(0.7), th.TARGET if is_best else theme.muted, Qt.AlignmentFlag.AlignHCenter, wrap=False)
        x += fw + gap
    if note:
        draw_text(p, QRectF(rect.left(), rect.top() + fh + cap_h, rect.width(), cap_h), note, theme.font(0.7),
                  theme.muted, Qt.AlignmentFlag.AlignHCenter, wrap=False)


def paint_options(p: QPainter, rect: QRectF, images: list[QImage | None], notes: list[str],
                  story: QuestionStory, theme: Theme, show_picks: bool = True, show_truth: bool = True) -> None:
    """Multiple-choice options in a grid: the truth framed green, each model's pick as a badge."""
    n = len(images)
    if n == 0:
        draw_image(p, rect, None, theme, "no options")
        return
    cols = 2 if n <= 4 else 3
    rows = (n + cols - 1) // cols
    font = theme.font(0.75, bold=True)
    badge_h = QFontMetricsF(font).height() * 1.35
    gap = theme.font_px * 0.6
    cw = (rect.width() - gap * (cols - 1)) / cols
    ch = (rect.height() - gap * (rows - 1)) / rows
    truth = story.question.truth.value if story.question.truth.ok else None
    picks: dict[int, list] = {}
    for a in story.answers:
        if is_scored(a.status) and a.value is not None:
            picks.setdefault(int(a.value), []).append(a)
    for k in range(n):
        cell = QRectF(rect.left() + (k % cols) * (cw + gap), rect.top() + (k // cols) * (ch + gap), cw, ch)
        letter_h = QFontMetricsF(theme.font(1.0, bold=True)).height() * 1.2
        is_truth = show_truth and truth is not None and int(truth) == k
        fw = theme.w(5)                    # the truth frame sits outside the image: leave it room
        img_rect = QRectF(cell.left() + fw, cell.top() + letter_h + fw, cw - 2 * fw, ch - letter_h - badge_h - 2 * fw)
        label = chr(65 + k) + ("   ✓ ground truth" if is_truth else "")
        draw_text(p, QRectF(cell.left(), cell.top(), cw, letter_h), label, theme.font(1.0, bold=True),
                  th.TRUTH if is_truth else theme.text, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                  wrap=False)
        draw_image(p, img_rect, images[k], theme, notes[k] if k < len(notes) else "",
                   frame=th.TRUTH if is_truth else None, frame_width=fw)
        if show_picks:
            x = cell.left()
            for a in picks.get(k, []):
                x += paint_badge(p, QPointF(x, cell.bottom() - badge_h), a.name, th.model_color(a.index),
                                 font, badge_h) + gap * 0.5


def paint_badge(p: QPainter, at: QPointF, text: str, color: QColor, font, height: float) -> float:
    fm = QFontMetricsF(font)
    w = fm.horizontalAdvance(text) + height * 0.6
    r = QRectF(at.x(), at.y() + height * 0.08, w, height * 0.84)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color)
    p.drawRoundedRect(r, height * 0.2, height * 0.2)
    fg = QColor(0, 0, 0) if color.lightness() > 150 else QColor(255, 255, 255)
    draw_text(p, r, text, font, fg, Qt.AlignmentFlag.AlignCenter, wrap=False)
    return w


def paint_answers(p: QPainter, rect: QRectF, story: QuestionStory, theme: Theme, show_scores: bool = True,
                  show_truth: bool = True, show_answers: bool = True) -> float:
    """Ground truth first, then one row per model: marker, name, answer, score bar. Returns height."""
    font = theme.font(0.95)
    bold = theme.font(0.95, bold=True)
    row = QFontMetricsF(font).height() * 1.6
    y = rect.top()
    sym = theme.font_px * 1.4
    name_w = rect.width() * 0.42
    ans_w = rect.width() * 0.28
    if show_truth:
        draw_marker(p, "star", QPointF(rect.left() + sym / 2, y + row / 2), theme.font_px * 0.55, th.TRUTH,
                    QColor(255, 255, 255), theme.w(1))
        draw_text(p, QRectF(rect.left() + sym, y, name_w, row), "ground truth", bold, th.TRUTH,
                  Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, wrap=False)
        draw_text(p, QRectF(rect.left() + sym + name_w, y, ans_w, row), story.truth, bold, th.TRUTH,
                  Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, wrap=False)
        y += row
    if show_answers and not story.answers:
        draw_text(p, QRectF(rect.left(), y, rect.width(), row), "no model predictions loaded", theme.font(0.8),
                  theme.muted, wrap=False)
        y += row
    if show_answers:
        for a in story.answers:
            c = th.model_color(a.index)
            draw_marker(p, th.model_shape(a.index), QPointF(rect.left() + sym / 2, y + row / 2),
                        theme.font_px * 0.42, c, QColor(0, 0, 0), theme.w(1))
            draw_text(p, QRectF(rect.left() + sym, y, name_w, row), a.name, font, theme.text,
                      Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, wrap=False)
            draw_text(p, QRectF(rect.left() + sym + name_w, y, ans_w, row), a.text, font,
                      theme.text if is_scored(a.status) else theme.muted,
                      Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, wrap=False)
            if show_scores:
                _score_bar(p, QRectF(rect.left() + sym + name_w + ans_w, y, rect.right() - (rect.left() + sym +
                                                                                     name_w + ans_w), row),
                           a.score, a.score_text, theme)
            y += row
    if show_scores and story.answers:
        draw_text(p, QRectF(rect.left(), y + row * 0.1, rect.width(), row), "score: 0 (wrong) … 1 (right), as the "
                  "paper scores it", theme.font(0.65), theme.muted, wrap=False)
        y += row
    return y - rect.top()


def _score_bar(p: QPainter, r: QRectF, score: float | None, text: str, theme: Theme) -> None:
    fm = QFontMetricsF(theme.font(0.85))
    tw = fm.horizontalAdvance("0.00") + theme.font_px * 0.4
    bar = QRectF(r.left(), r.center().y() - r.height() * 0.18, max(r.width() - tw, 4), r.height() * 0.36)
    p.fillRect(bar, theme.panel)
    if score is not None:
        fill = QColor(th.TRUTH) if score >= 0.999 else QColor(230, 140, 20) if score > 0 else QColor(200, 50, 40)
        p.fillRect(QRectF(bar.left(), bar.top(), bar.width() * max(score, 0.0), bar.height()), fill)
    draw_text(p, QRectF(bar.right() + theme.font_px * 0.3, r.top(), tw, r.height()), text, theme.font(0.85),
              theme.text, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, wrap=False)


def paint_still(p: QPainter, rect: QRectF, still: Still, image: QImage, theme: Theme, show_truth: bool = True,
                show_answers: bool = True) -> QRectF:
    """The ray-cast still with its projected overlay lines; returns where the image went."""
    where = draw_image(p, rect, image, theme)
    s = where.width() / still.intrinsics[0]

    def q(pt) -> QPointF:
        return QPointF(where.left() + float(pt[0]) * s, where.top() + float(pt[1]) * s)

    styles = {"trajectory": (th.viridis(0.5), 2.5), "query": (th.VIEWPOINT, 2.5),
              "target": (th.TARGET, 3.0), "truth": (th.TRUTH, 5.0)}
    p.save()
    p.setClipRect(where)
    for name, lines in still.lines:
        if name == "truth" and not show_truth or isinstance(name, tuple) and not show_answers:
            continue
        color, width = (th.model_color(name[1]), 3.5) if isinstance(name, tuple) else styles[name]
        halo = pen(QColor(0, 0, 0, 150), theme.w(width + 2.5))
        for seg in lines:
            p.setPen(halo)
            p.drawPolyline(polygon([(q(a).x(), q(a).y()) for a in seg]))
        p.setPen(pen(color, theme.w(width)))
        timed = name == "trajectory" and len(still.path_times) == len(lines)
        for k, seg in enumerate(lines):
            if timed:                  # the time gradient of the window's map and 3D view
                p.setPen(pen(th.viridis(still.path_times[k]), theme.w(width)))
            p.drawPolyline(polygon([(q(a).x(), q(a).y()) for a in seg]))
        if isinstance(name, tuple) and lines:
            draw_marker(p, th.model_shape(name[1]), q(lines[-1][-1]), theme.w(7), color, QColor(0, 0, 0), theme.w(1.2))
    for _name, pt in still.points:
        draw_marker(p, "circle", q(pt), theme.w(8), th.VIEWPOINT, QColor(255, 255, 255), theme.w(2))
    p.restore()
    return where


def still_legend(still: Still, truth_label: str | None, model_labels: dict[int, str]) -> list[LegendEntry]:
    """Entries for what the still shows (no truth entry when `truth_label` is None)."""
    names = {n for n, lines in still.lines if lines}
    out = []
    if "truth" in names and truth_label is not None:
        out.append(LegendEntry("truth-ray", th.TRUTH, truth_label))
    out += [LegendEntry("model", th.model_color(k), label, th.model_shape(k))
            for k, label in model_labels.items() if ("model", k) in names]
    if "query" in names:
        out.append(LegendEntry("view", th.VIEWPOINT, "current view (camera)"))
    if "target" in names:
        out.append(LegendEntry("target", th.TARGET, "target"))
    if "trajectory" in names:
        out.append(LegendEntry("path", th.viridis(0.5), "video path (dark → light: time)"))
    return out


def paint_note(p: QPainter, rect: QRectF, text: str, theme: Theme) -> None:
    if text:
        draw_text(p, rect, text, theme.font(0.7), theme.muted, wrap=False)


__all__ = ["paint_title", "title_height", "paint_question", "paint_strip", "paint_options", "paint_answers",
           "paint_still", "still_legend", "paint_badge", "paint_note", "pen"]
