"""What one sample shows, decided once: its map, the map's pixel transform and overlay, its view image, its boxes.

`plan(release, qi, geometry, source)` opens no file: it names what to load
(an image file, a rendering of the scene's mesh, or a blank canvas under a
benchmark's own drawing) and how to draw on it once loaded. It is one
request run two ways, as napari's `_LayerSlicer` runs a slice request: the
window loads what it names through its jobs (`ui/sample_view.py`, scope
"question"), and figures, clips and galleries load it at once
(`render/question_media.py`). Either way the pixels loaded go back through
`MapPlan.transform` and `ViewPlan.map_overlay`, so every view of a question
draws the same map with the same overlay.

The maps are `choose_map`'s sources, best first: the window shows the first
and says why when it cannot be had, an export takes the first that can.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..inferred import inferred_for, linked_map
from ..map_choice import MapChoice, MapKind, MapSource, choose_map
from ..overlays import published_map_overlay, scene_map_overlay, scene_overlay_3d
from ..primitives import Overlay
from ..release import Question, Release
from ..scene.model import QuestionGeometry, Scene

CANVAS_GREY = 250          # the blank canvas under a drawing of its own


# ------------------------------------------------------------- map requests
@dataclass(frozen=True)
class MapFile:
    """A map image to read."""
    path: str
    declared: tuple[int, int] | None = None    # the size its affine is written for (a scene map's width, height)


@dataclass(frozen=True)
class MapRender:
    """A map to render from the scene's mesh: `render.scene_assets.SceneAssets.topdown`'s arguments."""
    scene: Scene
    level: str
    world_to_pixel: object = None      # through the question's own map's affine; None: fitted to the mesh
    size: tuple[int, int] | None = None


@dataclass(frozen=True)
class MapCanvas:
    """A blank canvas for a drawing in pixels of its own (VSI-Bench's objects seen from above)."""
    width: int
    height: int

    def image(self) -> np.ndarray:
        return np.full((self.height, self.width, 3), CANVAS_GREY, np.uint8)


MapRequest = MapFile | MapRender | MapCanvas


@dataclass(frozen=True)
class MapPlan:
    source: MapSource | None           # None: the canvas
    load: MapRequest | None            # None: it cannot be had, `problem` says why
    problem: str = ""
    lines_up: bool = False             # the question's own map, or drawn through its affine
    world_to_pixel: object = None      # a scene map's own affine, at its declared size
    drawing: Overlay | None = None     # what the canvas shows

    def transform(self, width: int, height: int, rendered=None) -> np.ndarray | None:
        """The affine from world metres to the `width` x `height` pixels loaded (`rendered`: a rendering's own).

        None: the question's own map, whose affine the overlay scales itself.
        """
        if self.lines_up:
            return None
        W = rendered if rendered is not None else self.world_to_pixel
        if W is None:
            return None
        W = np.asarray(W, float)
        declared = self.load.declared if isinstance(self.load, MapFile) else None
        if declared and declared[0] and declared[1]:
            # A scene map's affine is written for its declared size; the file may have other pixels.
            W = np.diag([width / declared[0], height / declared[1]]) @ W
        return W


# ------------------------------------------------------------------ images
@dataclass(frozen=True)
class ImagePlan:
    """An image to show: the files to try in order, and why there is none when there is none."""
    paths: tuple[str, ...]
    problem: str = ""


def _ref_plan(ref, what: str) -> ImagePlan:
    if ref is None:
        return ImagePlan((), f"no {what}")
    if not ref.exists:
        return ImagePlan((), f"{what} {ref.name!r}: {ref.problem or 'missing'}")
    return ImagePlan((ref.path,))


def video_boxes(question: Question | None, g: QuestionGeometry | None) -> dict[int, tuple[float, ...]]:
    """The target's box in the frame where the scene says it is seen best: {frame: (x0, y0, x1, y1)}."""
    if question is None or g is None or g.video is None or not question.target:
        return {}
    rec = g.video.instances.get(question.target) or {}
    k, box = rec.get("best_frame_idx"), rec.get("best_bbox")
    if isinstance(k, int) and isinstance(box, list) and len(box) == 4 \
            and all(isinstance(v, (int, float)) and math.isfinite(v) for v in box):
        return {k: tuple(float(v) for v in box)}
    return {}


# -------------------------------------------------------------------- plan
def map_choice(release: Release | None, qi: int | None, geometry: QuestionGeometry | None,
               preferred: MapSource | None = None) -> MapChoice | None:
    """The maps question `qi` (None: the scene shown alone) can be drawn on, best first; None: neither."""
    if qi is None or release is None:
        return choose_map(None, geometry, preferred) if geometry is not None else None
    linked = linked_map(release, qi) if geometry is None or geometry.scene is None or _unaligned(geometry) \
        else None
    return choose_map(release.questions[qi], geometry, preferred, linked)


def _unaligned(g: QuestionGeometry) -> bool:
    """A scene reconstructed from the video that the answers could not tie to a map: the map shows what the
    answers infer, as without a scene, and says why the path is not on it."""
    return g.scene is not None and bool(g.scene.provenance) and not g.scene.topdown


@dataclass(frozen=True)
class ViewPlan:
    release: Release | None
    qi: int | None
    question: Question | None          # None: a scene shown alone
    geometry: QuestionGeometry | None
    choice: MapChoice | None           # what the map's source box lists (None: no map to choose)
    maps: tuple[MapPlan, ...]          # best first; empty for a multiple-choice question or without any map
    map_wanted: bool                   # whether the map's place says something (a map, or why there is none)
    map_problem: str                   # why there is no map, when `maps` is empty
    view: ImagePlan | None             # the current view; None for a multiple-choice question
    options: tuple[ImagePlan, ...]     # a multiple-choice question's option images
    boxes: dict = field(default_factory=dict)     # video_boxes

    @property
    def map(self) -> MapPlan | None:
        """The map the window shows."""
        return self.maps[0] if self.maps else None

    def map_overlay(self, m: MapPlan, results: list, width: int, height: int, rendered=None) -> Overlay | None:
        """What is drawn on map `m` once loaded at `width` x `height` (`rendered`: a rendering's own affine)."""
        if m.drawing is not None:
            return m.drawing
        q, g = self.question, self.geometry
        unaligned = g is not None and _unaligned(g)
        if g is not None and g.scene is not None and not (unaligned and m.lines_up):
            return scene_map_overlay(q, self.qi, results, g, width, height, m.transform(width, height, rendered))
        if m.lines_up and q is not None:
            ov = published_map_overlay(q, self.qi, results, width, height, inferred_for(self.release, self.qi))
            if ov is not None and unaligned:
                ov.notes.insert(0, g.scene.provenance)
            return ov
        return None

    def scene_overlay(self, results: list) -> Overlay | None:
        """The overlay of the 3D views (None without a scene)."""
        g = self.geometry
        if g is None or g.scene is None:
            return None
        return scene_overlay_3d(self.question, self.qi, results, g)


def _map_plan(source: MapSource, release: Release, q: Question | None, g: QuestionGeometry | None) -> MapPlan:
    if source.kind in (MapKind.RELEASE, MapKind.LINKED):
        # A linked question's map shows the same scene: normalised points mean the same on it.
        ref = (release.get(source.name) if source.kind is MapKind.LINKED else q).role_image("map")
        if not ref.exists:
            return MapPlan(source, None, f"map image {ref.name!r}: {ref.problem or 'missing'}", lines_up=True)
        return MapPlan(source, MapFile(ref.path), lines_up=True)
    if source.kind is MapKind.SCENE:
        tmap = g.scene.topdown[source.name]
        own = g.topdown is not None and g.topdown.name == source.name
        return MapPlan(source, MapFile(tmap.image, (tmap.width, tmap.height)), lines_up=own,
                       world_to_pixel=None if own else tmap.world_to_pixel)
    # A rendering lines up with the question's own map when that has an affine, else it is fitted to the mesh.
    own = g.topdown if g.topdown is not None and g.topdown.world_to_pixel is not None else None
    # A scene alone is rendered in its own maps' frame: import-scene fits them to the mesh and the path, so
    # a path that leaves the mesh a little is still on the map (docs/scene-import.md, One frame).
    frame = own if q is not None else next((t for t in g.scene.topdown.values()
                                            if t.world_to_pixel is not None and t.width and t.height), None)
    size = (frame.width, frame.height) if frame is not None and frame.width else None
    return MapPlan(source, MapRender(g.scene, source.name, None if frame is None else frame.world_to_pixel, size),
                   lines_up=own is not None)


def plan(release: Release | None, qi: int | None, geometry: QuestionGeometry | None,
         source: MapSource | None = None, *, has_scenes: bool = True) -> ViewPlan:
    """What question `qi` (None: the scene shown alone) shows, with `geometry` linked (None: none or not yet).

    `source` is the map the user chose; `has_scenes` whether the release has scene metadata at all
    (so that no geometry means "not read yet" rather than "none").
    """
    q = release.questions[qi] if qi is not None and release is not None else None
    g = geometry
    picks = q is not None and q.kind is not None and q.kind.picks_an_option
    choice = None if picks else map_choice(release, qi, g, source)      # the options take the map's place
    view, options, maps = None, (), ()
    if picks:
        options = tuple(_ref_plan(im, f"option {chr(65 + k)}") for k, im in enumerate(q.images))
    else:
        if q is not None:
            view = _ref_plan(q.role_image("view"), "current view")
            if g is not None and g.viewpoint is not None and g.viewpoint.image:
                # The scene's image of the viewpoint, when the release's is missing or unreadable.
                view = ImagePlan(view.paths + (g.viewpoint.image,), view.problem)
        if choice is not None:
            maps = tuple(_map_plan(s, release, q, g) for s in choice.ranked)
        drawing = q.benchmark.objects_overlay(release, q) if q is not None and not maps else None
        if drawing is not None:
            # No map, but the benchmark draws the question's objects from above on a canvas of their own.
            maps = (MapPlan(None, MapCanvas(drawing.width, drawing.height), drawing=drawing),)
    scene_pending = g is None and has_scenes
    if maps or picks:
        problem = ""
    else:
        reason = ("no scene metadata" if not has_scenes else "; ".join(g.problems) if g is not None and g.problems
                  else "loading the scene…" if g is None else "no map in the scene")
        problem = f"No top-down map for this question ({reason})."
    needs_map = (q is None or q.kind is not None and q.kind.needs_map(q.column) or scene_pending
                 or (g is not None and g.scene is not None))
    wanted = not picks and (bool(choice is not None and choice.options) or needs_map or bool(maps))
    return ViewPlan(release, qi, q, g, choice, maps, wanted, problem, view, options, video_boxes(q, g))
