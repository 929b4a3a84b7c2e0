"""One moment of a question's story, painted: a clip frame or a presentation slide.

Left: what the model looked at (the exploration video while it plays, then
the current view, or for a question without one the target in its best
frame). Right: the top-down map with only the layers the stage allows (the
camera moving along the path while the video plays), or the options of a
multiple-choice question, or the answer's chart (dial, bars, option texts) as
`render` draws it; beside a map that shows no answer (VSI-Bench's objects), the
chart too. A medium the release lacks leaves no pane and no placeholder: the
others share the width. Bottom: the whole question and, stage by stage, the
answers and the truth with the scores. Type and strokes scale with the
frame's height, so a 1280x720 clip and a full-screen projector read alike.
"""
from __future__ import annotations

import dataclasses

from PyQt6.QtCore import QRectF, Qt
from PyQt6.QtGui import QFontMetricsF, QImage, QPainter

from ..core.talk.storyboard import ANSWER, QUESTION, STAGE_TITLES, TITLE, TRUTH, VIDEO, best_frame, layers_at
from . import theme as th
from .canvas import draw_image, draw_text, pen, rgb_to_qimage, text_height
from .charts import chart_painter
from .layouts import Subject
from .map_painter import LegendEntry, answer_legend, legend_height, map_legend, paint_legend, paint_map
from .parts import paint_options, paint_title, title_height
from .theme import Theme

FONT_PER_HEIGHT = 1 / 34          # body text size as a share of the frame height
STROKE_HEIGHT = 900               # a theme's stroke widths are meant for a frame this high


def scaled_theme(theme: Theme, height: float) -> Theme:
    """`theme` with type and strokes sized for a frame `height` pixels high."""
    return dataclasses.replace(theme, font_px=height * FONT_PER_HEIGHT,
                               stroke=theme.stroke * max(height, 300) / STROKE_HEIGHT)


def contact_sheet(frames: list[tuple[int, QImage]], gap: int = 6) -> QImage | None:
    """Up to four frames in a 2x2 sheet (for questions with no current view to show)."""
    if not frames:
        return None
    w, h = frames[0][1].width(), frames[0][1].height()
    sheet = QImage(2 * w + gap, 2 * h + gap, QImage.Format.Format_RGB888)
    sheet.fill(0)
    p = QPainter(sheet)
    for i, (_, img) in enumerate(frames[:4]):
        p.drawImage(QRectF((i % 2) * (w + gap), (i // 2) * (h + gap), w, h), img)
    p.end()
    return sheet


class StoryPainter:
    """Paints any (stage, video frame) of one Subject; caches decoded frames' QImages lightly."""

    def __init__(self, subject: Subject):
        self.s = subject
        self._frame_cache: tuple[int, QImage] | None = None
        self._best: QImage | None = None

    # ------------------------------------------------------------- pieces
    def video_image(self, k: int) -> QImage | None:
        src = self.s.media.frames
        if src is None:
            return None
        if self._frame_cache is None or self._frame_cache[0] != k:
            self._frame_cache = (k, rgb_to_qimage(src.frame(k)))
        return self._frame_cache[1]

    def looked_at(self) -> tuple[QImage | None, str]:
        """What the left pane shows outside the video stage, and its caption."""
        s = self.s
        if s.view_q is not None:
            return s.view_q, "current view"
        best = s.best_frame()
        if best is not None and s.media.frames is not None:
            if self._best is None:
                self._best = rgb_to_qimage(s.media.frames.frame(best))
            return self._best, "the target (red box) in the video"
        if s.media.frames is not None:
            if self._best is None:
                self._best = contact_sheet(s.strip(4))
            return self._best, "the exploration video, four moments"
        return None, s.media.view_note or s.media.frames_note

    def target_box(self) -> tuple[int, list[float]] | None:
        """(best frame, its box in video pixels) of the question's target, when the scene records it."""
        g, target = self.s.media.geometry, self.s.story.question.target
        if g is None or g.video is None or not target:
            return None
        k, box = best_frame(g.video.instances, target)
        return None if k is None or box is None else (k, box)

    def paint_target_box(self, p: QPainter, placed: QRectF, t: Theme) -> None:
        """The target's box on the video frame drawn at `placed` (the held best frame)."""
        src, found = self.s.media.frames, self.target_box()
        img = self.video_image(found[0]) if found is not None else None
        if img is None or src is None:
            return
        x0, y0, x1, y1 = found[1]
        sx, sy = placed.width() / img.width(), placed.height() / img.height()
        p.setPen(pen(th.TARGET, t.w(2.5)))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(placed.left() + x0 * sx, placed.top() + y0 * sy, (x1 - x0) * sx, (y1 - y0) * sy))

    def paint_title_card(self, p: QPainter, rect: QRectF, t: Theme) -> None:
        """The clip's first moment: the task, the question and the models compared."""
        s = self.s
        p.fillRect(rect, t.background)
        m = rect.width() * 0.08
        inner = rect.adjusted(m, rect.height() * 0.16, -m, -rect.height() * 0.1)
        fm = QFontMetricsF(t.font(1.6, bold=True))
        y = inner.top()
        head = f"{s.story.label}  ·  {s.story.title}  ·  {s.story.benchmark}"
        draw_text(p, QRectF(inner.left(), y, inner.width(), fm.height() * 1.2), head,
                  t.font(1.6, bold=True), t.text, Qt.AlignmentFlag.AlignHCenter, wrap=False)
        y += fm.height() * 1.8
        y += draw_text(p, QRectF(inner.left(), y, inner.width(), inner.height() * 0.45), s.story.sentence,
                       t.font(1.05), t.text, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        y += t.font_px * 1.4
        names = [a.name for a in s.story.answers]
        models = ("Models: " + ", ".join(names)) if names else "No model answers loaded"
        draw_text(p, QRectF(inner.left(), y, inner.width(), inner.bottom() - y), models, t.font(0.95, bold=True),
                  t.muted, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)

    def legend(self, stage: str, frame: int | None) -> list[LegendEntry]:
        s = self.s
        layers = layers_at(s.story.question.column, stage, frame)
        entries = []
        if stage in (ANSWER, TRUTH):
            entries = answer_legend(s.story, truth=stage == TRUTH, scores=stage == TRUTH)
        if not s.is_choice:
            entries += map_legend(s.media.overlay, layers, None, {})
        return entries

    # -------------------------------------------------------------- frame
    def panes(self, stage: str, has_image: bool) -> list[str]:
        """What the frame shows side by side, left to right: "image" (what the model looked at), then
        "options", "map" (with "chart" beside it when the map shows no answer) or "chart" (the answer's
        chart, as `render` draws it). A medium the release lacks leaves no pane: the others take its room."""
        s = self.s
        out = ["image"] if has_image else []
        if s.is_choice:
            if any(o is not None for o in s.options_q):
                out.append("options")
        elif s.map_q is not None:
            out.append("map")
            if s.chart_beside_map and stage != VIDEO:
                out.append("chart")
        elif s.chart is not None and stage != VIDEO:
            out.append("chart")
        return out

    def _sentence(self, p: QPainter, width: float, t: Theme, most: float) -> tuple[object, float]:
        """The font the whole question fits in `most` pixels with (smaller for a long one), and its height."""
        for size in (1.0, 0.85, 0.72, 0.6):
            font = t.font(size, bold=True)
            h = text_height(p, width, self.s.story.sentence, font)
            if h <= most:
                break
        return font, min(h, most)

    def paint(self, p: QPainter, rect: QRectF, stage: str, frame: int | None, theme: Theme,
              time_text: str = "", target_box: bool = False) -> None:
        """One moment; `target_box`: draw the target's recorded box on the video frame (held best frame)."""
        s = self.s
        t = scaled_theme(theme, rect.height())
        if stage == TITLE:
            self.paint_title_card(p, rect, t)
            return
        p.fillRect(rect, t.background)
        m = t.font_px * 0.9
        inner = QRectF(rect.left() + m, rect.top() + m, rect.width() - 2 * m, rect.height() - 2 * m)
        th_ = title_height(t)
        entries = self.legend(stage, frame)
        sentence_font, sentence_h = self._sentence(p, inner.width(), t, inner.height() * 0.3)
        sentence_h += t.font_px * 0.4
        leg_h = max(legend_height(entries, inner.width(), t), QFontMetricsF(t.font(0.85)).height() * 2.9)
        band = sentence_h + leg_h + t.font_px * 0.5
        top = inner.top() + th_ + t.font_px * 0.6
        pane_h = inner.bottom() - band - top - t.font_px * 0.5
        gap = t.font_px
        cap_h = QFontMetricsF(t.font(0.75)).height() * 1.3
        if stage == VIDEO:
            img, caption = self.video_image(frame or 0), "exploration video"
            if s.media.frames is not None and s.media.frames.kind == "rendered":
                caption = "exploration video (rendered from the scene: no video file)"
        else:
            img, caption = self.looked_at()
        if stage == VIDEO and target_box:
            caption = "the target (red box), best seen here"
        panes = self.panes(stage, img is not None)
        pane_w = (inner.width() - gap * (len(panes) - 1)) / max(len(panes), 1)
        at = {name: QRectF(inner.left() + k * (pane_w + gap), top, pane_w, pane_h) for k, name in enumerate(panes)}
        layers = layers_at(s.story.question.column, stage, frame)
        if "map" in at:            # first: it masks what spills outside the map (see paint_map)
            paint_map(p, at["map"], s.map_q, s.media.overlay, t, layers, s.media.map_note, mask=rect,
                      focused=stage != VIDEO)
        paint_title(p, QRectF(inner.left(), inner.top(), inner.width(), th_), s.story, t, show_uid=False)
        draw_text(p, QRectF(inner.left() + inner.width() * 0.55, inner.top(), inner.width() * 0.45, th_),
                  STAGE_TITLES[stage] + (f"  {time_text}" if time_text else ""), t.font(0.8, bold=True), t.muted,
                  Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, wrap=False)
        if "image" in at:
            left = at["image"]
            placed = draw_image(p, QRectF(left.left(), left.top(), left.width(), left.height() - cap_h), img, t,
                                caption)
            if stage == VIDEO and target_box:
                self.paint_target_box(p, placed, t)
            draw_text(p, QRectF(left.left(), left.bottom() - cap_h, left.width(), cap_h), caption, t.font(0.75),
                      t.muted, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter, wrap=False)
        if "options" in at:
            paint_options(p, at["options"], s.options_q, s.media.option_notes, s.story, t,
                          show_picks=stage in (ANSWER, TRUTH), show_truth=stage == TRUTH)
        if "chart" in at:          # the truth and the answers only at the stages that reveal them
            chart = chart_painter(s, truth=stage == TRUTH, answers=stage in (ANSWER, TRUTH))
            chart(p, at["chart"], t)
        if not panes:              # nothing to show: say why, in words rather than an empty box
            why = "; ".join(dict.fromkeys(x for x in (caption, s.media.map_note) if x))
            draw_text(p, QRectF(inner.left(), top, inner.width(), pane_h), why, t.font(0.8), t.muted,
                      Qt.AlignmentFlag.AlignCenter)
        y = inner.bottom() - band + t.font_px * 0.3
        draw_text(p, QRectF(inner.left(), y, inner.width(), sentence_h), s.story.sentence, sentence_font, t.text)
        paint_legend(p, QRectF(inner.left(), y + sentence_h, inner.width(), leg_h), entries, t)

    def image(self, size: tuple[int, int], stage: str, frame: int | None, theme: Theme,
              time_text: str = "", target_box: bool = False) -> QImage:
        img = QImage(size[0], size[1], QImage.Format.Format_RGB888)
        p = QPainter(img)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self.paint(p, QRectF(0, 0, size[0], size[1]), stage, frame, theme, time_text, target_box)
        p.end()
        return img


__all__ = ["StoryPainter", "scaled_theme", "QUESTION", "VIDEO", "ANSWER", "TRUTH"]
