"""Everything an export of one question draws, loaded as arrays (no Qt).

The map is the one the window shows (`viewer.core.map_choice`), with the
overlay computed by `viewer.core.overlays`. Every part that cannot be had
carries a one-line reason instead, so a figure can say "no current view:
file not found" where the image would be.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.diagnostics import UserError
from ..core.inferred import inferred_for, linked_map
from ..core.map_choice import MapKind, MapSource, choose_map
from ..core.overlays import published_map_overlay, scene_map_overlay, scene_overlay_3d
from ..core.primitives import Overlay
from ..core.scene.model import QuestionGeometry, link_question
from ..core.scene.sources import SceneLibrary
from ..core.session import Session
from ..core.state import shown_results
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
    overlay3d: Overlay | None = None
    results_shown: list = field(default_factory=list)   # session.results, unchosen models hidden

    def close(self) -> None:
        if self.frames is not None:
            self.frames.close()


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
                 models: list[int] | None = None, frames: bool = True,
                 map_source: MapSource | None = None) -> QuestionMedia:
    """Load what the figures of question `qi` show; overlays carry only the chosen `models`.

    The map is `choose_map`'s, as in the window: `map_source` is the user's choice, if any.
    """
    q = session.release.questions[qi]
    results = session.results
    g = link_question(q, scenes.get(q.scene)) if scenes is not None else None
    if g is not None and g.scene is None:
        g = None
    media = QuestionMedia(g)
    media.results_shown = shown_results(results, models)

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
        _map(media, qi, q, g, assets, media.results_shown, map_source, session.release)
    if g is not None:
        media.overlay3d = scene_overlay_3d(q, qi, media.results_shown, g)
    if frames:
        media.frames, media.frames_note = open_frames(q, g, assets)
    return media


def _map(media: QuestionMedia, qi: int, q, g: QuestionGeometry | None, assets: SceneAssets, results,
         preferred: MapSource | None, release=None) -> None:
    """The first source of `choose_map` that can be had; each one that cannot leaves its reason."""
    linked = linked_map(release, qi) if g is None else None
    for source in choose_map(q, g, preferred, linked).ranked:
        try:
            image, W = _map_image(source, release.get(source.name) if source.kind is MapKind.LINKED else q, g, assets)
        except (OSError, UserError) as e:
            media.map_note = media.map_note or str(e)
            continue
        h, w = image.shape[:2]
        media.map_image, media.map_source = image, source
        if g is not None:
            media.overlay = scene_map_overlay(q, qi, results, g, w, h, W)
        else:
            media.overlay = published_map_overlay(q, qi, results, w, h, inferred_for(release, qi))
        return
    if not media.map_note:
        media.map_note = "no top-down map (no map image and no scene metadata)"


def _map_image(source: MapSource, q, g: QuestionGeometry | None, assets: SceneAssets):
    """The map's pixels and the affine to draw the scene on them (None: the question's own map's)."""
    if source.kind in (MapKind.RELEASE, MapKind.LINKED):     # a linked question's map: its own image
        ref = q.role_image("map")
        if not ref.exists:
            raise OSError(f"map image {ref.name!r}: {ref.problem or 'missing'}")
        return read_rgb(ref.path), None
    if source.kind is MapKind.SCENE:
        shown = g.scene.topdown[source.name]
        image = read_rgb(shown.image)
        W = None
        if shown is not g.topdown and shown.world_to_pixel is not None and shown.width:
            h, w = image.shape[:2]
            W = np.diag([w / shown.width, h / shown.height]) @ np.asarray(shown.world_to_pixel, float)
        return image, W
    # A rendering lines up with the question's own map when that has an affine, else it is fitted to the mesh.
    own = g.topdown if g.topdown is not None and g.topdown.world_to_pixel is not None else None
    size = (own.width, own.height) if own is not None and own.width else None
    try:
        rm = assets.topdown(g.scene, source.name, None if own is None else own.world_to_pixel, size)
    except UserError as e:
        raise UserError(f"no map: {e}") from e
    return rm.image, None if own else rm.world_to_pixel
