"""What to draw over a top-down map and in the 3D view, as plain arrays.

The window's views only draw polylines, polygons and points; every
coordinate is computed here, in map pixels (x right, y down) or world
metres, so the drawing code holds no geometry and all of it is tested.

Directions are turned into drawn lines through the map's affine, so a map
whose affine mirrors the world still shows left turns where they are.
Answers given on the question's own map (normalised points, Ori headings)
are carried onto any other map of the scene (a rendered level) through the
world: own-map pixel -> world -> shown-map pixel.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import geometry as geo
from .answers import OK
from .evaluate import ModelResult
from .release import Question
from .scene import QuestionGeometry
from .scoring import ANGLE_TOLERANCES, POINT_THRESHOLDS
from .tasks import AnswerType

DEFAULT_HFOV = 90.0           # degrees, when a viewpoint has no intrinsics
_ARC_STEPS = 48


@dataclass
class MapOverlay:
    """Everything drawn over one map image, in its pixels."""
    width: int
    height: int
    trajectory: np.ndarray | None = None          # (N, 2); NaN rows where a pose is invalid
    trajectory_heading: np.ndarray | None = None  # (N, 2) unit directions on the image
    viewpoint: np.ndarray | None = None           # (2,)
    fov_wedge: np.ndarray | None = None           # (K, 2) closed polygon
    target_box: np.ndarray | None = None          # (4, 2) footprint polygon
    truth_point: np.ndarray | None = None         # (2,)
    rings: list[tuple[float, np.ndarray]] = field(default_factory=list)     # (tau, closed polyline)
    pred_points: list[tuple[int, np.ndarray]] = field(default_factory=list)  # (model, (2,))
    truth_ray: np.ndarray | None = None           # (2, 2) from the viewpoint
    pred_rays: list[tuple[int, np.ndarray]] = field(default_factory=list)
    sectors: list[tuple[float, np.ndarray]] = field(default_factory=list)   # (tau, polygon), widest first
    truth_circle: np.ndarray | None = None        # (K, 2) closed polyline
    pred_circles: list[tuple[int, np.ndarray]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # why something is not drawn


def model_answers(question_index: int, results: list[ModelResult]) -> list[tuple[int, object]]:
    """(model index, parsed value) for the models whose answer parsed."""
    out = []
    for m, r in enumerate(results):
        if r.status[question_index] != OK:
            continue
        if not np.isnan(r.point[question_index]).any():
            out.append((m, r.point[question_index].astype(float)))
        elif not np.isnan(r.value[question_index]):
            out.append((m, float(r.value[question_index])))
    return out


def _unit_circle(n: int = 2 * _ARC_STEPS) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n)
    return np.stack([np.cos(t), np.sin(t)], axis=-1)


def _points(ov: MapOverlay, question: Question, qi: int, results: list[ModelResult],
            to_px: Callable[[np.ndarray], np.ndarray]) -> None:
    """Truth, threshold rings (circles in normalised units) and predicted points."""
    if question.truth.ok:
        t = np.asarray(question.truth.value, float)
        ov.truth_point = to_px(t)
        ov.rings = [(float(tau), to_px(t + tau * _unit_circle())) for tau in POINT_THRESHOLDS]
    for m, v in model_answers(qi, results):
        ov.pred_points.append((m, to_px(v)))


def published_map_overlay(question: Question, qi: int, results: list[ModelResult],
                          width: int, height: int) -> MapOverlay:
    """Truth and predicted points on a release's own map image (no scene metadata)."""
    ov = MapOverlay(width, height)
    _points(ov, question, qi, results, lambda n: geo.normalised_to_pixel(n, width, height))
    return ov


def scene_map_overlay(question: Question, qi: int, results: list[ModelResult], g: QuestionGeometry,
                      width: int, height: int, world_to_pixel=None) -> MapOverlay:
    """The full overlay from scene metadata on a map image of `width` x `height`.

    `world_to_pixel` is the shown image's affine when it is not the question's
    own map (a map rendered from the mesh); None means the own map, whose
    declared affine is scaled to the size actually shown.
    """
    ov = MapOverlay(width, height)
    tmap = g.topdown
    own_W = None
    if tmap is not None and tmap.world_to_pixel is not None and tmap.width and tmap.height:
        own_W = np.asarray(tmap.world_to_pixel, float)
    if world_to_pixel is None:
        W = None if own_W is None else np.diag([width / tmap.width, height / tmap.height]) @ own_W

        def to_px(n):
            return geo.normalised_to_pixel(n, width, height)
        own_to_shown = np.eye(2)
    else:
        W = np.asarray(world_to_pixel, float)
        to_px = None
        own_to_shown = None
        if own_W is not None:
            def to_px(n):
                world = geo.pixel_to_world(own_W, geo.normalised_to_pixel(n, tmap.width, tmap.height))
                return geo.world_to_pixel(W, world)
            own_to_shown = W[:, :2] @ np.linalg.inv(own_W[:, :2])

    at = question.answer_type
    if W is None:
        ov.notes.append("the map has no world_to_pixel: the scene cannot be drawn on it")
        if at is AnswerType.POINT:
            _points(ov, question, qi, results, to_px)
        return ov
    reach = _reach_metres(W, width, height)
    if g.video is not None and len(g.video.poses):
        poses = g.video.poses
        ov.trajectory = geo.world_to_pixel(W, geo.camera_center(poses))
        ov.trajectory_heading = _image_dirs(W, geo.forward_on_ground(poses))
    vp = g.viewpoint
    if vp is not None:
        ov.viewpoint = geo.world_to_pixel(W, geo.camera_center(vp.pose))
        ov.fov_wedge = _wedge(W, vp.pose, 0.0, _hfov(vp.intrinsics) / 2, reach * 0.6)
    if g.target is not None and g.target.bbox is not None:
        c = g.target.bbox.corners()
        # Corners with bit 2 clear are the bottom face; 0, 1, 3, 2 goes around it.
        ov.target_box = geo.world_to_pixel(W, c[[0, 1, 3, 2]])

    if at is AnswerType.POINT:
        if to_px is None:
            ov.notes.append("the question's own map has no affine: answer points cannot be "
                            "carried onto this map")
        else:
            _points(ov, question, qi, results, to_px)
    elif at is AnswerType.ANGLE and question.column.key == "Ori":
        if own_to_shown is None:
            ov.notes.append("the question's own map has no affine: headings cannot be drawn here")
        else:
            _orientation(ov, question, qi, results, 0.1 * math.hypot(width, height), own_to_shown)
    elif at is AnswerType.ANGLE:
        _directions(ov, question, qi, results, g, W, reach)
    elif at is AnswerType.DISTANCE:
        if vp is None:
            ov.notes.append("no viewpoint: distances cannot be drawn")
        else:
            if question.truth.ok:
                ov.truth_circle = _circle(W, vp.pose, float(question.truth.value))
            ov.pred_circles = [(m, _circle(W, vp.pose, v)) for m, v in model_answers(qi, results)
                               if np.isfinite(v) and v >= 0]
    return ov


def _directions(ov, question, qi, results, g: QuestionGeometry, W, reach: float) -> None:
    vp = g.viewpoint
    if vp is None:
        ov.notes.append("no viewpoint: directions cannot be drawn")
        return
    length = reach
    if g.target is not None and g.target.bbox is not None:
        d = float(np.linalg.norm(g.target.bbox.center[:2] - geo.camera_center(vp.pose)[:2]))
        length = max(d, reach * 0.3)
    if question.truth.ok:
        t = float(question.truth.value)
        ov.truth_ray = _ray(W, vp.pose, t, length)
        ov.sectors = [(float(tau), _wedge(W, vp.pose, t, float(tau), length))
                      for tau in ANGLE_TOLERANCES[::-1]]
    ov.pred_rays = [(m, _ray(W, vp.pose, v, length)) for m, v in model_answers(qi, results)]


def _orientation(ov: MapOverlay, question: Question, qi: int, results: list[ModelResult],
                 length_px: float, own_to_shown: np.ndarray) -> None:
    """Ori: headings given on the question's own image (0 = up, counter-clockwise as displayed)."""
    if ov.viewpoint is None:
        ov.notes.append("no viewpoint: the heading cannot be drawn")
        return
    o = ov.viewpoint

    def direction(deg) -> np.ndarray:
        d = heading_vector(deg) @ own_to_shown.T
        return d / np.linalg.norm(d, axis=-1, keepdims=True)

    if question.truth.ok:
        t = float(question.truth.value)
        ov.truth_ray = np.stack([o, o + length_px * direction(t)])
        for tau in ANGLE_TOLERANCES[::-1]:
            arc = o + length_px * direction(np.linspace(t - tau, t + tau, _ARC_STEPS))
            ov.sectors.append((float(tau), np.vstack([o, arc, o])))
    ov.pred_rays = [(m, np.stack([o, o + length_px * direction(v)])) for m, v in model_answers(qi, results)]


def heading_vector(deg) -> np.ndarray:
    """Image direction (x right, y down) of a map heading: 0 = up, counter-clockwise positive."""
    a = np.radians(np.asarray(deg, float))
    return np.stack([-np.sin(a), -np.cos(a)], axis=-1)


def _reach_metres(W, width: int, height: int) -> float:
    """A length that reads well on this map: ~12% of its diagonal, in metres."""
    px_per_m = math.sqrt(abs(np.linalg.det(np.asarray(W)[:, :2])))
    return 0.12 * math.hypot(width, height) / px_per_m


def _hfov(intr) -> float:
    if intr is None:
        return DEFAULT_HFOV
    return math.degrees(2 * math.atan2(intr.width / 2, intr.fx))


def _image_dirs(W, world_dirs) -> np.ndarray:
    d = np.asarray(world_dirs, float) @ np.asarray(W, float)[:, :2].T
    return d / np.linalg.norm(d, axis=-1, keepdims=True)


def _rotate(v, deg) -> np.ndarray:
    """Rotate 2D vectors counter-clockwise (seen from above) by deg."""
    a = np.radians(np.asarray(deg, float))[..., None]
    c, s = np.cos(a), np.sin(a)
    return np.concatenate([c * v[..., :1] - s * v[..., 1:], s * v[..., :1] + c * v[..., 1:]], axis=-1)


def world_direction(c2w, egocentric_deg) -> np.ndarray:
    """Unit ground-plane direction of an egocentric angle (0 = forward, left positive)."""
    return _rotate(geo.forward_on_ground(c2w), egocentric_deg)


def _ray(W, c2w, deg: float, length: float) -> np.ndarray:
    o = geo.camera_center(c2w)[:2]
    return geo.world_to_pixel(W, np.stack([o, o + length * world_direction(c2w, deg)]))


def _wedge(W, c2w, centre_deg: float, half: float, length: float) -> np.ndarray:
    o = geo.camera_center(c2w)[:2]
    a = np.linspace(centre_deg - half, centre_deg + half, _ARC_STEPS)
    arc = o + length * world_direction(c2w, a)
    return geo.world_to_pixel(W, np.vstack([o, arc, o]))


def _circle(W, c2w, radius: float) -> np.ndarray:
    return geo.world_to_pixel(W, geo.camera_center(c2w)[:2] + radius * _unit_circle())


# ------------------------------------------------------------------------ 3D
# Box edges as corner index pairs (corner bit i = +half size on axis i).
BOX_EDGES = np.array([[a, a | (1 << i)] for a in range(8) for i in range(3) if not a >> i & 1])


@dataclass
class SceneOverlay3D:
    """World-space lines and points for the 3D view."""
    trajectory: np.ndarray | None = None           # (N, 3) camera centres, NaN where invalid
    video_frustums: np.ndarray | None = None       # (N, 5, 3) apex + 4 image corners per frame
    query_frustum: np.ndarray | None = None        # (5, 3)
    target_edges: np.ndarray | None = None         # (12, 2, 3)
    target_center: np.ndarray | None = None        # (3,)
    truth_ray: np.ndarray | None = None            # (2, 3)
    pred_rays: list[tuple[int, np.ndarray]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def frustum_lines(frustum: np.ndarray) -> np.ndarray:
    """(8, 2, 3) segments of an apex + 4 corners frustum: 4 sides and the image rectangle."""
    apex, c = frustum[0], frustum[1:]
    sides = [np.stack([apex, c[k]]) for k in range(4)]
    rect = [np.stack([c[k], c[(k + 1) % 4]]) for k in range(4)]
    return np.stack(sides + rect)


def _frustums(c2w, intrinsics, depth: float) -> np.ndarray:
    from .scene import Intrinsics
    intr = intrinsics or Intrinsics(640, 512, 320.0, 320.0, 320.0, 256.0)
    corners = geo.frustum_corners(c2w, intr, depth)
    apex = geo.camera_center(c2w)[..., None, :]
    return np.concatenate([apex, corners], axis=-2)


def scene_overlay_3d(question: Question, qi: int, results: list[ModelResult],
                     g: QuestionGeometry, frustum_depth: float = 0.4) -> SceneOverlay3D:
    ov = SceneOverlay3D()
    if g.video is not None and len(g.video.poses):
        ov.trajectory = geo.camera_center(g.video.poses)
        ov.video_frustums = _frustums(g.video.poses, g.video.intrinsics, frustum_depth)
    vp = g.viewpoint
    if vp is not None:
        ov.query_frustum = _frustums(vp.pose, vp.intrinsics, frustum_depth * 1.5)
    if g.target is not None and g.target.bbox is not None:
        c = g.target.bbox.corners()
        ov.target_edges = c[BOX_EDGES]
        ov.target_center = g.target.bbox.center
    if question.answer_type is AnswerType.ANGLE and question.column.key != "Ori":
        if vp is None:
            ov.notes.append("no viewpoint: direction rays cannot be drawn")
            return ov
        o = geo.camera_center(vp.pose)
        length = 2.0
        if ov.target_center is not None:
            length = max(float(np.linalg.norm(ov.target_center[:2] - o[:2])), 0.5)

        def ray(deg: float) -> np.ndarray:
            d = world_direction(vp.pose, deg)
            return np.stack([o, o + length * np.array([d[0], d[1], 0.0])])
        if question.truth.ok:
            ov.truth_ray = ray(float(question.truth.value))
        ov.pred_rays = [(m, ray(v)) for m, v in model_answers(qi, results)]
    return ov
