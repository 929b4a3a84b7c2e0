"""Everything an export of one question draws, loaded as arrays at once (no Qt).

What that is, is the question's `viewer.core.view.plan.plan`, the window's
too: this module runs it synchronously, taking the first map that can be
had. Every part that cannot be had carries a one-line reason instead, so a
figure can say "no current view: file not found" where the image would be.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.diagnostics import UserError
from ..core.map_choice import MapSource
from ..core.primitives import Overlay
from ..core.scene.model import QuestionGeometry, link_question
from ..core.scene.sources import SceneLibrary
from ..core.session import Session
from ..core.state import shown_results
from ..core.view.plan import ImagePlan, MapCanvas, MapFile, MapRequest, ViewPlan, plan
from .frame_source import FrameSource, open_frames
from .image_io import read_rgb
from .scene_assets import SceneAssets


@dataclass
class QuestionMedia:
    geometry: QuestionGeometry | None
    map_image: np.ndarray | None = None          # (h, w, 3) RGB
    map_source: MapSource | None = None          # which map it is
    overlay: Overlay | None = None
    map_note: str = ""
    view_image: np.ndarray | None = None
    view_note: str = ""
    options: list[np.ndarray | None] = field(default_factory=list)
    option_notes: list[str] = field(default_factory=list)
    frames: FrameSource | None = None
    frames_note: str = ""
    video_problem: str = ""                      # a video file there that cannot be shown whole: said on stderr
    overlay3d: Overlay | None = None
    results_shown: list = field(default_factory=list)   # session.results, unchosen models hidden

    def close(self) -> None:
        if self.frames is not None:
            self.frames.close()


def read_image(image: ImagePlan) -> tuple[np.ndarray | None, str]:
    """The first of the plan's files that reads, or None and why."""
    note = image.problem
    for path in image.paths:
        try:
            return read_rgb(path), ""
        except OSError as e:
            note = str(e)
    return None, note


def load_map(request: MapRequest, assets: SceneAssets) -> tuple[np.ndarray, np.ndarray | None]:
    """A map plan's pixels, at once, and a rendering's own affine (None for an image file or a canvas)."""
    if isinstance(request, MapFile):
        return read_rgb(request.path), None
    if isinstance(request, MapCanvas):
        return request.image(), None
    try:
        rm = assets.topdown(request.scene, request.level, request.world_to_pixel, request.size)
    except UserError as e:
        raise UserError(f"no map: {e}") from e
    return rm.image, rm.world_to_pixel


def gather_media(session: Session, qi: int, scenes: SceneLibrary | None, assets: SceneAssets,
                 models: list[int] | None = None, frames: bool = True,
                 map_source: MapSource | None = None) -> QuestionMedia:
    """Load what the figures of question `qi` show; overlays carry only the chosen `models`.

    What that is, is `view.plan.plan`'s, as in the window: `map_source` is the user's choice, if any.
    """
    q = session.release.questions[qi]
    g = link_question(q, scenes.get(q.scene)) if scenes is not None else None
    if g is not None and g.scene is None:
        g = None
    view = plan(session.release, qi, g, map_source)
    media = QuestionMedia(g)
    media.results_shown = shown_results(session.results, models)
    for option in view.options:
        img, note = read_image(option)
        media.options.append(img)
        media.option_notes.append(note)
    if view.view is not None:                  # not a multiple-choice question
        media.view_image, media.view_note = read_image(view.view)
        _map(media, view, assets)
    media.overlay3d = view.scene_overlay(media.results_shown)
    if frames:
        media.frames, media.frames_note = open_frames(q, g, assets)
        if media.frames is not None:
            media.video_problem = media.frames.problem
        elif (q.video is not None and q.video.exists) or (g is not None and g.video is not None and g.video.file):
            media.video_problem = media.frames_note
    return media


def _map(media: QuestionMedia, view: ViewPlan, assets: SceneAssets) -> None:
    """The first of the plan's maps that can be had; each one that cannot leaves its reason."""
    for m in view.maps:
        if m.load is None:
            media.map_note = media.map_note or m.problem
            continue
        try:
            image, rendered = load_map(m.load, assets)
        except (OSError, UserError) as e:
            media.map_note = media.map_note or str(e)
            continue
        h, w = image.shape[:2]
        media.map_image, media.map_source = image, m.source
        media.overlay = view.map_overlay(m, media.results_shown, w, h, rendered)
        return
    if not media.map_note:
        media.map_note = "no top-down map (no map image and no scene metadata)"
