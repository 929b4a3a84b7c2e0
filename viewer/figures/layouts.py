"""The figure layouts of one question: `map`, `panel` (the paper's Figure 1 style), `3d`, and `settings`
(the question's Global / Local-Video / Local-Image variants side by side, answers on one map).

Each returns its logical size and a paint function; `save_figure` turns
that into PNG, SVG or PDF. A `Subject` is a question ready to draw: its
story (texts, answers, scores), its media as arrays and as QImages.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from PyQt6.QtCore import QRectF
from PyQt6.QtGui import QImage, QPainter

from ..core.diagnostics import UserError
from ..core.map_choice import MapSource
from ..core.overlays import scene_overlay_3d
from ..core.scene.sources import SceneLibrary
from ..core.session import Session
from ..core.talk.showcase import QuestionStory, build_story
from ..core.talk.storyboard import EVERYTHING, best_frame, strip_frames
from ..render.question_media import QuestionMedia, gather_media
from ..render.scene_assets import SceneAssets
from . import theme as th
from .canvas import draw_image, draw_text, rgb_to_qimage, save_figure
from .charts import chart_painter
from .map_painter import answer_legend, legend_height, map_legend, paint_legend, paint_map, shown_box
from .parts import (
    paint_answers,
    paint_options,
    paint_question,
    paint_still,
    paint_strip,
    paint_title,
    still_legend,
    title_height,
)
from .theme import PAPER, Theme

LAYOUTS = ("map", "panel", "3d", "settings")
STRIP_FRAMES = 6
Paint = Callable[[QPainter], None]


@dataclass
class Subject:
    session: Session
    qi: int
    models: list[int]
    story: QuestionStory
    media: QuestionMedia
    assets: SceneAssets
    map_q: QImage | None = None
    view_q: QImage | None = None
    options_q: list[QImage | None] = field(default_factory=list)
    _strip: list | None = None

    @property
    def is_choice(self) -> bool:
        return self.story.kind is not None and self.story.kind.picks_an_option

    @property
    def chart(self):
        """The answer chart the question's kind names (charts.chart_painter), or None."""
        return None if self.is_choice else chart_painter(self)

    @property
    def chart_beside_map(self) -> bool:
        """Whether the chart is drawn beside the map: the map is a benchmark's own drawing (VSI-Bench's
        objects from above) that shows no answer, so the answers need their chart too."""
        return self.map_q is not None and self.media.map_source is None and self.chart is not None

    def model_labels(self, scores: bool = True) -> dict[int, str]:
        return {a.index: f"{a.name}: {a.text}" + (f"  (score {a.score_text})" if scores else "")
                for a in self.story.answers}

    def best_frame(self) -> int | None:
        g = self.media.geometry
        if g is None or g.video is None:
            return None
        return best_frame(g.video.instances, self.story.question.target)[0]

    def strip(self, count: int = STRIP_FRAMES) -> list[tuple[int, QImage]]:
        """Frames for the panel's strip, decoded once."""
        if self._strip is None:
            src = self.media.frames
            picks = strip_frames(src.n_frames, count, self.best_frame()) if src is not None else []
            self._strip = [(k, rgb_to_qimage(src.frame(k))) for k in picks]
        return self._strip

    def close(self) -> None:
        self.media.close()


def prepare(session: Session, qi: int, models: list[int] | None = None, scenes: SceneLibrary | None = None,
            assets: SceneAssets | None = None, frames: bool = True, map_source: MapSource | None = None) -> Subject:
    """What a figure of question `qi` shows; `map_source` is the map the user chose (None: choose_map's)."""
    models = list(range(len(session.results))) if models is None else models
    scenes = scenes if scenes is not None else SceneLibrary(session.release.root)
    assets = assets or SceneAssets()
    media = gather_media(session, qi, scenes, assets, models, frames=frames, map_source=map_source)
    subject = Subject(session, qi, models, build_story(session, qi, models), media, assets)
    subject.map_q = rgb_to_qimage(media.map_image) if media.map_image is not None else None
    subject.view_q = rgb_to_qimage(media.view_image) if media.view_image is not None else None
    subject.options_q = [rgb_to_qimage(o) if o is not None else None for o in media.options]
    return subject


# ------------------------------------------------------------------- map
def map_figure(s: Subject, theme: Theme = PAPER, width: int = 1000) -> tuple[tuple[int, int], Paint]:
    """The map with every overlay and a legend that names each answer and its score.

    A multiple-choice question has no map: its options take the map's place.
    """
    m = theme.font_px * 1.5
    inner = width - 2 * m
    probe = QImage(8, 8, QImage.Format.Format_RGB888)
    pp = QPainter(probe)
    q_h = paint_question_height(pp, inner, s, theme)       # the whole question: the figure grows
    pp.end()
    entries = answer_legend(s.story)
    chart = s.chart if s.map_q is None or s.chart_beside_map else None
    gap = theme.font_px
    map_w = (inner - gap) / 2 if s.chart_beside_map else inner
    if s.is_choice:
        body_h = inner * 0.82
    elif s.map_q is not None:
        # The map cropped to its content: a wide apartment on a square image leaves no empty bands.
        x0, y0, x1, y1 = (shown_box(s.media.overlay, s.map_q) if s.media.overlay is not None
                          else (0, 0, s.map_q.width(), s.map_q.height()))
        body_h = map_w * (y1 - y0) / (x1 - x0)
        if chart is not None:          # the map and, beside it, the answers' chart
            body_h = max(body_h, inner * 0.4)
        entries += map_legend(s.media.overlay, EVERYTHING, None, {})
    else:                          # no map: the answer chart, or nothing (the layout closes up)
        body_h = inner * 0.5 if chart is not None else 0.0
    leg_h = legend_height(entries, inner, theme)
    top = m + title_height(theme) + theme.font_px * 0.6
    height = int(top + q_h + theme.font_px * 0.6 + body_h + leg_h + theme.font_px * 0.8 + m)

    def paint(p: QPainter) -> None:
        full = QRectF(0, 0, width, height)
        p.fillRect(full, theme.background)
        body = QRectF(m, top + q_h + theme.font_px * 0.6, inner, body_h)
        if s.is_choice:
            paint_options(p, body, s.options_q, s.media.option_notes, s.story, theme)
        elif s.map_q is not None:
            paint_map(p, QRectF(body.left(), body.top(), map_w, body.height()), s.map_q, s.media.overlay, theme,
                      EVERYTHING, s.media.map_note, mask=full)
            if chart is not None:
                chart(p, QRectF(body.left() + map_w + gap, body.top(), inner - map_w - gap, body.height()), theme)
        elif chart is not None:
            chart(p, body, theme)
        paint_title(p, QRectF(m, m, inner, title_height(theme)), s.story, theme)
        paint_question(p, QRectF(m, top, inner, q_h), s.story, theme, scale=1.0)
        paint_legend(p, QRectF(m, body.bottom() + theme.font_px * 0.8, inner, leg_h), entries, theme)
    return (width, height), paint


def paint_question_height(p: QPainter, width: float, s: Subject, theme: Theme) -> float:
    from .canvas import text_height
    h = text_height(p, width, s.story.sentence, theme.font(1.0, bold=True))
    if s.story.convention:
        h += theme.font_px * 0.35 + text_height(p, width, "Answer: " + s.story.convention, theme.font(0.8))
    return h


# ----------------------------------------------------------------- panel
def panel_parts(s: Subject) -> dict[str, str]:
    """What each slot of the panel shows; a slot with nothing to show is absent and the layout closes up.

    strip: video frames; view: the current view or the target's best frame;
    middle: the options, the map, or the chart the answer kind names (dial,
    bars); question and answers always.
    """
    parts = {"title": "title", "question": "question", "answers": "answers"}
    if s.strip():
        parts["strip"] = "frames"
    if s.view_q is not None:
        parts["view"] = "current view"
    elif s.best_frame() is not None and dict(s.strip()).get(s.best_frame()) is not None:
        parts["view"] = "best frame"
    if s.is_choice:
        if any(o is not None for o in s.options_q):
            parts["middle"] = "options"
    elif s.map_q is not None:
        parts["middle"] = "map"
        if s.chart_beside_map and "view" not in parts:     # the answers' chart where no view is
            parts["view"] = "chart:" + s.story.kind.chart
    elif s.chart is not None:
        parts["middle"] = "chart:" + s.story.kind.chart
    return parts


def panel_figure(s: Subject, theme: Theme = PAPER, width: int = 1600, height: int = 900
                 ) -> tuple[tuple[int, int], Paint]:
    """Video strip on top; current view and question | map, chart or options | answers and scores."""
    m = theme.font_px * 1.5
    gap = theme.font_px * 1.5
    inner = width - 2 * m
    parts = panel_parts(s)
    strip_frames_ = s.strip()
    fps = s.media.frames.fps if s.media.frames is not None else 0.0
    note = s.media.frames.note if s.media.frames is not None else ""
    middle = parts.get("middle")
    chart = s.chart if middle and middle.startswith("chart:") else None
    view_chart = s.chart if parts.get("view", "").startswith("chart:") else None

    def paint(p: QPainter) -> None:
        full = QRectF(0, 0, width, height)
        p.fillRect(full, theme.background)
        th_ = title_height(theme)
        y = m + th_ + theme.font_px * 0.9
        n = s.media.frames.n_frames if s.media.frames is not None else 0
        label = "Exploration video" + (f" ({n} frames, {n / fps:.0f} s; {len(strip_frames_)} shown)"
                                       if n and fps else "")
        strip_top = y
        if "strip" in parts:
            y += theme.font_px * 1.5
            strip_h = height * 0.2
            y += strip_h + (theme.font_px * 1.0 if note else 0) + gap * 0.8
        body_h = height - m - y
        if middle is not None:
            c1 = inner * 0.27
            c3 = inner * 0.27
            c2 = inner - c1 - c3 - 2 * gap
        else:                      # nothing in the middle: the two columns share the width
            c1 = c3 = (inner - gap) / 2
            c2 = -gap
        x2, x3 = m + c1 + gap, m + c1 + c2 + 2 * gap
        entries = map_legend(s.media.overlay, EVERYTHING, "ground truth",
                             {a.index: a.name for a in s.story.answers}) if middle == "map" else []
        leg_h = legend_height(entries, c2, theme) if entries else 0.0
        if middle == "map":        # first: it masks what spills outside the map (see paint_map)
            paint_map(p, QRectF(x2, y, c2, body_h - leg_h - theme.font_px * 0.5), s.map_q, s.media.overlay, theme,
                      EVERYTHING, s.media.map_note, mask=full)
        paint_title(p, QRectF(m, m, inner, th_), s.story, theme)
        if "strip" in parts:
            draw_text(p, QRectF(m, strip_top, inner, theme.font_px * 1.4), label, theme.font(0.85, bold=True),
                      theme.muted, wrap=False)
            paint_strip(p, QRectF(m, strip_top + theme.font_px * 1.5, inner, strip_h), strip_frames_, fps, theme,
                        s.best_frame(), note)
        # Column 1: the current view (or the target where the model saw it best), then the question.
        qy = y
        if view_chart is not None:
            view_h = body_h * 0.55
            view_chart(p, QRectF(m, y, c1, view_h), theme)
            qy = y + view_h + theme.font_px
        elif "view" in parts:
            image, caption = s.view_q, "Current view"
            if image is None:      # no current view (GP tasks): the target in its best frame
                image, caption = dict(strip_frames_).get(s.best_frame()), "The target (red box) in the video"
            head = theme.font_px * 1.4
            draw_text(p, QRectF(m, y, c1, head), caption, theme.font(0.85, bold=True), theme.muted, wrap=False)
            view_h = min(c1 * 0.8, body_h * 0.55)
            draw_image(p, QRectF(m, y + head, c1, view_h), image, theme, s.media.view_note)
            qy = y + head + view_h + theme.font_px
        paint_question(p, QRectF(m, qy, c1, y + body_h - qy), s.story, theme, scale=1.0)
        # Column 2: the map with its legend, the answer chart, or the options.
        if middle == "options":
            paint_options(p, QRectF(x2, y, c2, body_h), s.options_q, s.media.option_notes, s.story, theme)
        elif middle == "map":
            paint_legend(p, QRectF(x2, y + body_h - leg_h, c2, leg_h), entries, theme)
        elif chart is not None:
            chart(p, QRectF(x2, y, c2, body_h), theme)
        # Column 3: the answers and their scores.
        draw_text(p, QRectF(x3, y, c3, theme.font_px * 1.4), "Answers", theme.font(0.85, bold=True), theme.muted,
                  wrap=False)
        paint_answers(p, QRectF(x3, y + theme.font_px * 1.6, c3, body_h), s.story, theme)
    return (width, height), paint


# -------------------------------------------------------------------- 3d
def still_figure(s: Subject, camera: str = "overview", theme: Theme = PAPER, width: int = 1280,
                 pixels: float = 1.0) -> tuple[tuple[int, int], Paint]:
    """A ray-cast still of the scene with the overlay lines; `pixels` = render resolution factor."""
    from ..render.still_camera import choose_pose, crop_to_content, map_up_direction, on_the_floor, render_still
    g = s.media.geometry
    if g is None or g.scene is None or s.media.overlay3d is None:
        raise UserError(f"--layout 3d: question {s.story.uid!r} has no scene metadata "
                        f"(scenes/{s.story.question.scene}/scene.json)")
    mesh = s.assets.mesh(g.scene)
    caster = mesh._cache.get("still_raycaster")
    if caster is None:
        from ..render.raycast import Raycaster
        caster = mesh._cache["still_raycaster"] = Raycaster(mesh.without_instances(mesh.kind_mask("ceiling")))
    m = theme.font_px * 1.5
    inner = width - 2 * m
    # The overview turned as the question's map is, north up.
    map_up = map_up_direction(g.topdown.world_to_pixel) if g.topdown is not None else None
    pose = choose_pose(camera, s.media.overlay3d, mesh.bounds(),
                       g.viewpoint.pose if g.viewpoint is not None else None,
                       g.video.poses if g.video is not None else None, aspect=16 / 9, map_up=map_up)
    w_px = int(round(inner * pixels))
    # Answers standing on the floor stand on the mesh's floor.
    floor_z = float(mesh.bounds()[0][2])
    overlay = scene_overlay_3d(s.story.question, s.qi, s.media.results_shown, g, floor_z=floor_z)
    if camera != "overview":
        overlay = on_the_floor(overlay, floor_z)
    still = render_still(caster, overlay, pose, w_px, int(round(w_px * 9 / 16)))
    if camera == "overview":            # from above, the scene is a band across the frame: keep the band
        still = crop_to_content(still)
    img_h = inner * still.image.shape[0] / still.image.shape[1]
    image = rgb_to_qimage(still.image)
    entries = answer_legend(s.story) + still_legend(still, None, {})
    leg_h = legend_height(entries, inner, theme)
    top = m + title_height(theme) + theme.font_px * 0.6
    cam_text = {"overview": "seen from above the scene (ceiling removed)",
                "query": "seen from the current view"}.get(camera, f"seen from video {camera}")
    height = int(top + theme.font_px * 1.6 + img_h + theme.font_px * 0.8 + leg_h + m)

    def paint(p: QPainter) -> None:
        p.fillRect(QRectF(0, 0, width, height), theme.background)
        paint_title(p, QRectF(m, m, inner, title_height(theme)), s.story, theme)
        draw_text(p, QRectF(m, top, inner, theme.font_px * 1.5), f"{s.story.sentence}   — 3D, {cam_text}",
                  theme.font(0.9), theme.muted, wrap=False)
        box = QRectF(m, top + theme.font_px * 1.6, inner, img_h)
        paint_still(p, box, still, image, theme)
        paint_legend(p, QRectF(m, box.bottom() + theme.font_px * 0.8, inner, leg_h), entries, theme)
    return (width, height), paint


def export_figure(s: Subject, layout: str, out: Path, scale: float = 1.0, camera: str = "overview",
                  theme: Theme = PAPER) -> Path:
    if layout not in LAYOUTS:
        raise UserError(f"--layout {layout!r}: expected one of {', '.join(LAYOUTS)}")
    if layout == "map":
        size, paint = map_figure(s, theme)
    elif layout == "settings":
        size, paint = settings_figure(s, theme)
    elif layout == "panel":
        size, paint = panel_figure(s, theme)
    else:
        vector = Path(out).suffix.lower() in (".svg", ".pdf")
        size, paint = still_figure(s, camera, theme, pixels=1.5 if vector else min(max(scale, 1.0), 3.0))
    return save_figure(Path(out), size, paint, scale, title=f"{s.story.benchmark} {s.story.label}: {s.story.uid}")


# ------------------------------------------------------------------- settings
def settings_subjects(s: Subject) -> dict[str, Subject]:
    """The subject of each member of `s`'s family (setting -> Subject); UserError without variants."""
    from ..core.settings_table import family_of
    family = family_of(s.session.release, s.qi)
    if family is None:
        raise UserError(f"{s.story.uid}: no Local-Video or Local-Image variant (--layout settings needs one)")
    return {setting: s if i == s.qi else prepare(s.session, i, s.models, assets=s.assets, frames=False)
            for setting, i in family.items()}


def settings_figure(s: Subject, theme: Theme = PAPER, width: int = 1500) -> tuple[tuple[int, int], Paint]:
    """Three columns (each setting's view and answers) over one map with every setting's answer arrows."""
    from ..core.settings_overlay import LINE, LINE_TEXT, merge_settings_overlays
    from ..core.settings_table import TITLES
    subjects = settings_subjects(s)
    base = subjects["global"]
    overlay = merge_settings_overlays({k: v.media.overlay for k, v in subjects.items()})
    m = theme.font_px * 1.5
    inner = width - 2 * m
    gap = theme.font_px
    col_w = (inner - 2 * gap) / 3
    view_h = col_w * 0.8
    line_h = theme.font_px * 1.45
    n_models = max(len(v.story.answers) for v in subjects.values())
    ans_h = line_h * (n_models + 1.3)
    img = base.map_q
    aspect = img.height() / img.width() if img is not None and img.width() else 0.8
    map_w = inner * 0.7
    map_h = map_w * aspect
    top = m + title_height(theme) + theme.font_px * 0.5
    cols_h = line_h * 1.4 + view_h + ans_h
    height = int(top + cols_h + gap + map_h + line_h * 1.6 + m)

    def paint(p: QPainter) -> None:
        full = QRectF(0, 0, width, height)
        p.fillRect(full, theme.background)
        map_rect = QRectF(m + (inner - map_w) / 2, top + cols_h + gap, map_w, map_h)
        paint_map(p, map_rect, img, overlay, theme, EVERYTHING, base.media.map_note, mask=full)
        paint_title(p, QRectF(m, m, inner, title_height(theme)), base.story, theme)
        for k, setting in enumerate(("global", "local_video", "local_image")):
            x = m + k * (col_w + gap)
            sub = subjects.get(setting)
            head = f"{TITLES[setting]}  ({LINE_TEXT[LINE[setting]]} arrows)"
            draw_text(p, QRectF(x, top, col_w, line_h * 1.3), head, theme.font(1.05, bold=True), theme.text,
                      wrap=False)
            if sub is None:
                draw_text(p, QRectF(x, top + line_h * 1.4, col_w, line_h), "no variant", theme.font(0.9),
                          theme.muted)
                continue
            view_msg = "" if sub.view_q is not None else (sub.media.view_note or "no view")
            draw_image(p, QRectF(x, top + line_h * 1.4, col_w, view_h), sub.view_q, theme, view_msg)
            y = top + line_h * 1.4 + view_h + line_h * 0.3
            draw_text(p, QRectF(x, y, col_w, line_h), f"truth {sub.story.truth}"
                      + ("   · no video" if sub.story.question.video is None else ""), theme.font(0.9),
                      theme.muted, wrap=False)
            for j, a in enumerate(sub.story.answers):
                score = "" if a.score is None else f"  score {a.score:.2f}"
                draw_text(p, QRectF(x, y + line_h * (j + 1), col_w, line_h), f"{a.name}: {a.text}{score}",
                          theme.font(0.9), th.model_color(a.index), wrap=False)
        draw_text(p, QRectF(m, map_rect.bottom() + line_h * 0.4, inner, line_h * 1.5), "  ".join(overlay.notes)
                  if overlay is not None else "", theme.font(0.85), theme.muted)
    return (width, height), paint
