"""Everything an export of one question draws, loaded as arrays (no Qt).

The map is the one the model was shown when the question has one (its own
top-down image, with the overlay computed by `viewer.core.overlays`), else a
map of the scene (its first top-down image, or one rendered from the mesh).
Every part that cannot be had carries a one-line reason instead, so a
figure can say "no current view: file not found" where the image would be.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.diagnostics import UserError
from ..core.overlays import published_map_overlay, scene_map_overlay, scene_overlay_3d
from ..core.primitives import Overlay
from ..core.scene import QuestionGeometry, SceneLibrary, link_question
from ..core.session import Session
from .frame_source import FrameSource, open_frames
from .scene_assets import SceneAssets
from .video import import_cv2


@dataclass
class QuestionMedia:
    geometry: QuestionGeometry | None
    map_image: np.ndarray | None = None          # (h, w, 3) RGB
    overlay: Overlay | None = None         # on the map, in its pixels
    map_note: str = ""
    view_image: np.ndarray | None = None
    view_note: str = ""
    options: list[np.ndarray | None] = field(default_factory=list)
    option_notes: list[str] = field(default_factory=list)
    frames: FrameSource | None = None
    frames_note: str = ""
    overlay3d: Overlay | None = None       # in the room, in metres
    results_shown: list = field(default_factory=list)   # session.results, unchosen models hidden

    def close(self) -> None:
        if self.frames is not None:
            self.frames.close()


def read_rgb(path: str) -> np.ndarray:
    cv2 = import_cv2()
    bgr = cv2.imread(path, cv2.IMREAD_COLOR)
    if bgr is None:
        raise OSError(f"{path}: not a readable image")
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def _ref_image(ref, what: str) -> tuple[np.ndarray | None, str]:
    if ref is None:
        return None, f"no {what}"
    if not ref.exists:
        return None, f"{what} {ref.name!r}: {ref.problem or 'missing'}"
    try:
        return read_rgb(ref.path), ""
    except OSError as e:
        return None, str(e)


def gather_media(session: Session, qi: int, scenes: SceneLibrary | None, assets: SceneAssets,
                 models: list[int] | None = None, frames: bool = True) -> QuestionMedia:
    """Load what the figures of question `qi` show; overlays carry only the chosen `models`."""
    q = session.release.questions[qi]
    results = session.results
    g = link_question(q, scenes.get(q.scene)) if scenes is not None else None
    if g is not None and g.scene is None:
        g = None
    media = QuestionMedia(g)
    media.results_shown = _only(results, models)

    if q.kind is not None and q.kind.picks_an_option:
        for k, im in enumerate(q.images):
            img, note = _ref_image(im, f"option {chr(65 + k)}")
            media.options.append(img)
            media.option_notes.append(note)
    else:
        media.view_image, media.view_note = _ref_image(q.role_image("view"), "current view")
        if media.view_image is None and g is not None and g.viewpoint is not None and g.viewpoint.image:
            try:
                media.view_image, media.view_note = read_rgb(g.viewpoint.image), ""
            except OSError as e:
                media.view_note = str(e)
        _map(media, session, qi, q, g, assets, media.results_shown)
    if g is not None:
        media.overlay3d = scene_overlay_3d(q, qi, media.results_shown, g)
    if frames:
        media.frames, media.frames_note = open_frames(q, g, assets)
    return media


class _Hidden:
    """A model left out of a figure: its answers read as missing, so overlays skip it."""

    def __init__(self, r):
        self.model = r.model
        self.status = np.full(len(r.status), "missing", dtype=object)
        self.answer = r.answer


def _only(results, models):
    if models is None:
        return results
    keep = set(models)
    # Keep indices (they are the colours); hide the others.
    return [r if m in keep else _Hidden(r) for m, r in enumerate(results)]


def _map(media: QuestionMedia, session, qi, q, g, assets: SceneAssets, results) -> None:
    own_ref = q.role_image("map")
    shown = g.topdown if g is not None else None
    if own_ref is None and g is not None:
        # The model saw no map: show the scene's most legible one (photo-like), in its own pixels.
        photo = next((t for t in g.scene.topdown.values() if t.kind == "photo" and t.image), None)
        shown = photo or shown
    if shown is not None and shown.image:
        try:
            img = read_rgb(shown.image)
        except OSError as e:
            media.map_note = str(e)
        else:
            h, w = img.shape[:2]
            media.map_image = img
            W = None
            if shown is not g.topdown and shown.world_to_pixel is not None and shown.width:
                W = np.diag([w / shown.width, h / shown.height]) @ np.asarray(shown.world_to_pixel, float)
            media.overlay = scene_map_overlay(q, qi, results, g, w, h, W)
            return
    if own_ref is not None:
        img, note = _ref_image(own_ref, "map image")
        if img is not None:
            h, w = img.shape[:2]
            media.map_image = img
            if g is not None:
                media.overlay = scene_map_overlay(q, qi, results, g, w, h)
            else:
                media.overlay = published_map_overlay(q, qi, results, w, h)
            return
        media.map_note = note
    if g is not None:
        own = g.topdown if g.topdown is not None and g.topdown.world_to_pixel is not None else None
        size = (own.width, own.height) if own is not None and own.width else None
        try:
            rm = assets.topdown(g.scene, "photo", None if own is None else own.world_to_pixel, size)
        except UserError as e:
            media.map_note = media.map_note or f"no map: {e}"
            return
        h, w = rm.image.shape[:2]
        media.map_image = rm.image
        media.overlay = scene_map_overlay(q, qi, results, g, w, h, None if own else rm.world_to_pixel)
        return
    if not media.map_note:
        media.map_note = "no top-down map (no map image and no scene metadata)"
