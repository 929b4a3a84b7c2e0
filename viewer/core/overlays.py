"""What to draw over a top-down map and in the 3D view, as lists of primitives (`primitives.py`).

The shared parts (the video's path, the current view and its field of
view, the target's footprint) are built here; the truth and the answers
are drawn by the question's answer kind (`kinds/`), through a context that
hands it the map's geometry. Every coordinate is computed here, in map
pixels (x right, y down) or world metres, so the renderers hold no
geometry and all of it is tested.

Directions are turned into drawn lines through the map's affine, so a map
whose affine mirrors the world still shows left turns where they are.
Answers given on the question's own map (normalised points, map headings)
are carried onto any other map of the scene (a rendered level) through the
world: own-map pixel -> world -> shown-map pixel.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import geometry as geo
from . import primitives as pr
from .answers import is_scored
from .evaluate import ModelResult
from .inferred import Inferred
from .primitives import Overlay
from .release import Question
from .scene.model import QuestionGeometry

DEFAULT_HFOV = 90.0           # degrees, when a viewpoint has no intrinsics
FOCUS_PAD = 0.12              # margin around a focus, a share of its larger side
FOCUS_MIN_SIDE = 0.22         # a focus is at least this share of the map's larger side
FOCUS_MAX_SHARE = 0.6         # a focus covering more of the map than this is no focus: the whole map is shown
_ARC_STEPS = 48


def model_answers(question_index: int, results: list[ModelResult]) -> list[tuple[int, object]]:
    """(model index, parsed value) for the models whose answer is scored (choices as option indices)."""
    out = []
    for m, r in enumerate(results):
        if not is_scored(r.status[question_index]):
            continue
        row = r.answer[question_index]
        if not np.isnan(row[1]):
            out.append((m, row.astype(float)))
        elif not np.isnan(row[0]):
            out.append((m, float(row[0])))
    return out


def _unit_circle(n: int = 2 * _ARC_STEPS) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n)
    return np.stack([np.cos(t), np.sin(t)], axis=-1)


@dataclass
class MapContext:
    """What an answer kind needs to draw one question's truth and answers on one map image."""
    overlay: Overlay
    question: Question
    answers: list[tuple[int, object]]      # (model index, parsed value)
    truth: object                          # the parsed truth, None when it does not parse
    to_px: Callable[[np.ndarray], np.ndarray] | None = None  # normalised (0..999) -> shown pixels
    W: np.ndarray | None = None            # world -> shown pixels (2, 3)
    own_to_shown: np.ndarray | None = None  # directions on the question's own map -> on the shown one
    viewpoint_pose: np.ndarray | None = None
    viewpoint_px: np.ndarray | None = None
    target_distance: float | None = None   # metres from the view to the target's centre, on the ground
    reach: float = 1.0                     # metres: a length that reads well on this map
    # Geometry rebuilt from other questions' answers (`Benchmark.inferred`) rather than read from a scene:
    # which parts ("viewpoint", "heading", "target", "scale"), and whether the heading and scale are known.
    inferred: frozenset[str] = frozenset()
    heading_known: bool = True
    scale_known: bool = True

    @property
    def column(self):
        return self.question.column

    @property
    def width(self) -> int:
        return self.overlay.width

    @property
    def height(self) -> int:
        return self.overlay.height

    def note(self, text: str) -> None:
        self.overlay.notes.append(text)

    def unit_circle(self) -> np.ndarray:
        return _unit_circle()

    def target_far(self) -> float | None:
        """Metres from the view to the target's farthest drawn point on this map (None: none drawn)."""
        if self.W is None or self.viewpoint_px is None:
            return None
        pts = [np.atleast_2d(p.points) for p in self.overlay.of(pr.Polygon, pr.TARGET)]
        pts += [np.atleast_2d(p.at) for p in self.overlay.of(pr.Marker, pr.TARGET)]
        if not pts:
            return None
        px_per_m = math.sqrt(abs(np.linalg.det(np.asarray(self.W)[:, :2])))
        return float(np.linalg.norm(np.concatenate(pts)[:, :2] - self.viewpoint_px, axis=1).max()) / px_per_m

    def clear_of(self, at, lines: list[np.ndarray], margin_m: float) -> bool:
        """Whether map point `at` lies at least `margin_m` metres from each of `lines` (pixel polylines)
        and from the target's drawn footprint (outside it)."""
        px_per_m = math.sqrt(abs(np.linalg.det(np.asarray(self.W)[:, :2])))
        margin = margin_m * px_per_m
        at = np.asarray(at, float)[:2]
        for poly in self.overlay.of(pr.Polygon, pr.TARGET):
            pts = np.asarray(poly.points, float)[:, :2]
            if geo.point_in_polygon(at, pts):
                return False
            lines = [*lines, np.vstack([pts, pts[:1]])]
        return all(geo.distance_to_polyline(at, line) >= margin for line in lines)

    def focus_on(self, points) -> None:
        """Show this answer first (`Overlay.focus`): the view, `points` (map pixels: the rays' tips) and
        the target, with a margin, and no smaller than FOCUS_MIN_SIDE of the map."""
        pts = [np.atleast_2d(np.asarray(points, float))[:, :2]]
        if self.viewpoint_px is not None:
            pts.append(np.atleast_2d(self.viewpoint_px))
        pts += [np.atleast_2d(p.points)[:, :2] for p in self.overlay.of(pr.Polygon, pr.TARGET)]
        pts += [np.atleast_2d(p.at)[:, :2] for p in self.overlay.of(pr.Marker, pr.TARGET)]
        box = pr.box_around(np.concatenate(pts), FOCUS_PAD, FOCUS_MIN_SIDE * max(self.width, self.height))
        # Never more than the map: a target across the room gets the whole map (no focus).
        w, h = float(self.width), float(self.height)
        box = (max(box[0], 0.0), max(box[1], 0.0), min(box[2], w), min(box[3], h))
        if (box[2] - box[0]) * (box[3] - box[1]) < FOCUS_MAX_SHARE * w * h:
            self.overlay.focus = box

    # Egocentric angles around the current view (0 = its forward direction, left positive).
    def ray(self, deg: float, length: float) -> np.ndarray:
        return _ray(self.W, self.viewpoint_pose, deg, length)

    def wedge(self, centre_deg: float, half: float, length: float) -> np.ndarray:
        return _wedge(self.W, self.viewpoint_pose, centre_deg, half, length)

    def circle(self, radius: float) -> np.ndarray:
        return geo.world_to_pixel(self.W, geo.camera_center(self.viewpoint_pose)[:2] + radius * _unit_circle())

    # Map headings at the current view (0 = up on the question's own map, counter-clockwise).
    def heading_ray(self, deg: float, length_px: float) -> np.ndarray:
        o = self.viewpoint_px
        return np.stack([o, o + length_px * self._heading_dir(deg)])

    def heading_wedge(self, centre_deg: float, half: float, length_px: float) -> np.ndarray:
        o = self.viewpoint_px
        arc = o + length_px * self._heading_dir(np.linspace(centre_deg - half, centre_deg + half, _ARC_STEPS))
        return np.vstack([o, arc, o])

    def _heading_dir(self, deg) -> np.ndarray:
        d = heading_vector(deg) @ self.own_to_shown.T
        return d / np.linalg.norm(d, axis=-1, keepdims=True)


def _context(ov: Overlay, question: Question, qi: int, results: list[ModelResult], **geometry) -> MapContext:
    truth = question.truth.value if question.truth.ok else None
    if truth is not None and question.kind is not None and question.kind.width == 2:
        truth = np.asarray(truth, float)
    return MapContext(ov, question, model_answers(qi, results), truth, **geometry)


def published_map_overlay(question: Question, qi: int, results: list[ModelResult],
                          width: int, height: int, inferred: Inferred | None = None) -> Overlay | None:
    """Truth and answers on a release's map image (no scene metadata); None when nothing can be drawn.

    `inferred` (`Benchmark.inferred`, core/inferred.py) places the viewpoint, its heading, the
    target and the scale from the scene's other questions; all of it is
    drawn and labelled as inferred, and what is missing is said in a note.
    """
    if question.kind is None:
        return None
    ov = Overlay(width, height)
    geometry = {}
    if inferred is not None:
        geometry = _inferred_geometry(ov, inferred, width, height)
    question.kind.map_overlay(_context(ov, question, qi, results,
                                       to_px=lambda n: geo.normalised_to_pixel(n, width, height), **geometry))
    return ov if ov.items else None


INFERRED = "(inferred from answers)"


def inferred_pose(point_px, heading: float, metres_per_px: float) -> tuple[np.ndarray, np.ndarray]:
    """A world frame for a map with no affine, and the view's camera-to-world pose (OpenCV) in it.

    World x = pixel x, world y = -pixel y, in metres; so image up is world +y
    and counter-clockwise on the displayed map is counter-clockwise in the
    world, as the map-heading convention (0 = up) requires.
    """
    W = np.array([[1.0 / metres_per_px, 0.0, 0.0], [0.0, -1.0 / metres_per_px, 0.0]])
    yaw = math.radians(90.0 + heading)
    c, s = math.cos(yaw), math.sin(yaw)
    pose = np.array([[s, 0.0, c, point_px[0] * metres_per_px],
                     [-c, 0.0, s, -point_px[1] * metres_per_px],
                     [0.0, -1.0, 0.0, 0.0],
                     [0.0, 0.0, 0.0, 1.0]])
    return W, pose


def breakable(text: str) -> str:
    """Uids may wrap after their underscores (a zero-width space), so a note never widens its panel."""
    return text.replace("_", "_\u200b")


def _inferred_geometry(ov: Overlay, inf: Inferred, width: int, height: int) -> dict:
    """Viewpoint, field of view and target from the answers, drawn and labelled as inferred; the context's geometry."""
    size = np.array([width, height], float)
    parts = set()
    scale_known = inf.scale is not None and inf.map_size is not None
    # Metres per shown pixel: the fit is in the reference map's pixels.
    m_per_px = inf.scale.metres_per_px * inf.map_size[0] / width if scale_known else 1.0
    out: dict = {"own_to_shown": np.eye(2), "scale_known": scale_known}
    if scale_known:
        parts.add("scale")
    if inf.viewpoint is not None:
        parts.add("viewpoint")
        at = inf.viewpoint / 1000.0 * size
        heading = inf.heading if inf.heading is not None else 0.0
        W, pose = inferred_pose(at, heading, m_per_px)
        reach = _reach_metres(W, width, height)
        ov.add(pr.Marker(pr.VIEWPOINT, None, (pr.L_VIEWPOINT,), pr.Z_VIEW, at=at))
        if inf.heading is not None:
            parts.add("heading")
            ov.add(pr.Polygon(pr.VIEWPOINT, None, (pr.L_VIEWPOINT,), pr.Z_FOV, filled=True,
                              points=_wedge(W, pose, 0.0, DEFAULT_HFOV / 2, reach * 0.6)))
        label = "current view" + ("" if inf.heading is not None else ", heading unknown")
        ov.legend.append(pr.LegendItem("view", f"{label} {INFERRED}", layers=(pr.L_VIEWPOINT,)))
        out.update(W=W, viewpoint_pose=pose, viewpoint_px=at, reach=reach, heading_known=inf.heading is not None)
        if inf.target is not None:
            tp = inf.target / 1000.0 * size
            out["target_distance"] = float(np.linalg.norm(tp - at)) * m_per_px
    if inf.target is not None:
        parts.add("target")
        ov.add(pr.Marker(pr.TARGET, None, (pr.L_TARGET,), pr.Z_TARGET, at=inf.target / 1000.0 * size, shape="square"))
        ov.legend.append(pr.LegendItem("target", f"target {INFERRED}", layers=(pr.L_TARGET,)))
    if inf.note:
        ov.notes.append(inf.note)
    if inf.scale is not None and inf.scale.weak:
        ov.notes.append(f"the scale is weak: {inf.scale.describe()}")
    ov.notes.extend(f"not inferred: {breakable(m)}" for m in inf.missing)
    out["inferred"] = frozenset(parts)
    return out


def scene_map_overlay(question: Question | None, qi: int | None, results: list[ModelResult], g: QuestionGeometry,
                      width: int, height: int, world_to_pixel=None) -> Overlay:
    """The full overlay from scene metadata on a map image of `width` x `height`.

    `world_to_pixel` is the shown image's affine when it is not the question's
    own map (a map rendered from the mesh); None means the own map, whose
    declared affine is scaled to the size actually shown.
    """
    ov = Overlay(width, height)
    tmap = g.topdown
    own_W = None
    if tmap is not None and tmap.world_to_pixel is not None and tmap.width and tmap.height:
        own_W = np.asarray(tmap.world_to_pixel, float)
    to_px = own_to_shown = None
    if world_to_pixel is None:
        W = None if own_W is None else np.diag([width / tmap.width, height / tmap.height]) @ own_W

        def to_px(n):
            return geo.normalised_to_pixel(n, width, height)
        own_to_shown = np.eye(2)
    else:
        W = np.asarray(world_to_pixel, float)
        if own_W is not None:
            def to_px(n):
                world = geo.pixel_to_world(own_W, geo.normalised_to_pixel(n, tmap.width, tmap.height))
                return geo.world_to_pixel(W, world)
            own_to_shown = W[:, :2] @ np.linalg.inv(own_W[:, :2])

    kind = question.kind if question is not None else None       # None: a scene shown alone
    provenance = g.scene.provenance if g.scene is not None else ""
    if W is None:
        ov.notes.append(provenance if provenance and tmap is None
                        else "the map has no world_to_pixel: the scene cannot be drawn on it")
        if kind is not None:
            kind.map_overlay(_context(ov, question, qi, results, to_px=to_px))
        return ov
    reach = _reach_metres(W, width, height)
    if g.video is not None and len(g.video.poses):
        poses = g.video.poses
        ov.add(pr.TimedPath(pr.PATH, None, (pr.L_TRAJECTORY,), pr.Z_PATH,
                            points=geo.world_to_pixel(W, geo.camera_center(poses)),
                            heading=_image_dirs(W, geo.forward_on_ground(poses))))
        ov.legend.append(pr.LegendItem("path", _path_label(provenance), layers=(pr.L_TRAJECTORY,)))
    if provenance:
        ov.notes.append(provenance)
    vp = g.viewpoint
    viewpoint_px = None
    if vp is not None:
        viewpoint_px = geo.world_to_pixel(W, geo.camera_center(vp.pose))
        ov.add(pr.Polygon(pr.VIEWPOINT, None, (pr.L_VIEWPOINT,), pr.Z_FOV, filled=True,
                          points=_wedge(W, vp.pose, 0.0, _hfov(vp.intrinsics) / 2, reach * 0.6)),
               pr.Marker(pr.VIEWPOINT, None, (pr.L_VIEWPOINT,), pr.Z_VIEW, at=viewpoint_px))
        ov.legend.append(pr.LegendItem("view", "current view", layers=(pr.L_VIEWPOINT,)))
    target_distance = None
    if g.target is not None and g.target.bbox is not None:
        c = g.target.bbox.corners()
        # Corners with bit 2 clear are the bottom face; 0, 1, 3, 2 goes around it.
        ov.add(pr.Polygon(pr.TARGET, None, (pr.L_TARGET,), pr.Z_TARGET, points=geo.world_to_pixel(W, c[[0, 1, 3, 2]])))
        ov.legend.append(pr.LegendItem("target", "target (size estimated)" if g.target.size_estimated else "target",
                                       layers=(pr.L_TARGET,)))
        if vp is not None:
            target_distance = float(np.linalg.norm(g.target.bbox.center[:2] - geo.camera_center(vp.pose)[:2]))
    if kind is not None:
        kind.map_overlay(_context(ov, question, qi, results, to_px=to_px, W=W, own_to_shown=own_to_shown,
                                  viewpoint_pose=None if vp is None else vp.pose, viewpoint_px=viewpoint_px,
                                  target_distance=target_distance, reach=reach))
    return ov


def _path_label(provenance: str) -> str:
    """The path's legend line: where it came from when not from scene files (structure from motion)."""
    return f"video path, {provenance} (dark → light: time)" if provenance else "video path (dark → light: time)"


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


# ------------------------------------------------------------------------ 3D
# Box edges as corner index pairs (corner bit i = +half size on axis i).
BOX_EDGES = np.array([[a, a | (1 << i)] for a in range(8) for i in range(3) if not a >> i & 1])


def frustum_lines(frustum: np.ndarray) -> np.ndarray:
    """(8, 2, 3) segments of an apex + 4 corners frustum: 4 sides and the image rectangle."""
    apex, c = frustum[0], frustum[1:]
    sides = [np.stack([apex, c[k]]) for k in range(4)]
    rect = [np.stack([c[k], c[(k + 1) % 4]]) for k in range(4)]
    return np.stack(sides + rect)


def _frustums(c2w, intrinsics, depth: float) -> np.ndarray:
    from .scene.model import Intrinsics
    intr = intrinsics or Intrinsics(640, 512, 320.0, 320.0, 320.0, 256.0)
    corners = geo.frustum_corners(c2w, intr, depth)
    apex = geo.camera_center(c2w)[..., None, :]
    return np.concatenate([apex, corners], axis=-2)


@dataclass
class SceneContext:
    """What an answer kind needs to draw one question's truth and answers in the room (world metres)."""
    overlay: Overlay
    question: Question
    answers: list[tuple[int, object]]
    truth: object
    viewpoint_pose: np.ndarray | None = None
    target_distance: float | None = None
    topdown: object = None                 # the question's own map (TopdownMap), for map answers
    floor_z: float = 0.0

    @property
    def column(self):
        return self.question.column

    @property
    def camera_center(self) -> np.ndarray:
        return geo.camera_center(self.viewpoint_pose)

    def note(self, text: str) -> None:
        self.overlay.notes.append(text)

    def ray(self, deg: float, length: float) -> np.ndarray:
        o = geo.camera_center(self.viewpoint_pose)
        d = world_direction(self.viewpoint_pose, deg)
        return np.stack([o, o + length * np.array([d[0], d[1], 0.0])])

    def answers_then_truth(self, z: int):
        """(model or None, role, value, z) for each answer, then the truth drawn above them."""
        out = [(m, pr.MODEL, v, z) for m, v in self.answers]
        if self.truth is not None:
            out.append((None, pr.TRUTH, self.truth, z + 1))
        return out


def scene_overlay_3d(question: Question | None, qi: int | None, results: list[ModelResult], g: QuestionGeometry,
                     frustum_depth: float = 0.4, floor_z: float | None = None) -> Overlay:
    """The question in the room: path, frustums, target box, and the kind's truth and answers.

    `floor_z` is where answers standing on the floor (map points) are drawn; by
    default the lowest box of the scene's objects.
    """
    ov = Overlay()
    if g.video is not None and len(g.video.poses):
        ov.add(pr.Polyline(pr.PATH, None, (pr.L_TRAJECTORY,), pr.Z_PATH, points=geo.camera_center(g.video.poses)),
               pr.FrameFrustums(pr.CAMERA, None, (pr.L_TRAJECTORY,), pr.Z_PATH + 1,
                                frustums=_frustums(g.video.poses, g.video.intrinsics, frustum_depth)))
        ov.legend.append(pr.LegendItem("path", _path_label(g.scene.provenance if g.scene is not None else ""),
                                       layers=(pr.L_TRAJECTORY,)))
    if g.scene is not None and g.scene.points is not None and len(g.scene.points):
        ov.add(pr.PointCloud(pr.PATH, None, (pr.L_TRAJECTORY,), pr.Z_PATH - 1, points=g.scene.points,
                             colors=g.scene.point_colors))
        ov.legend.append(pr.LegendItem("marker", f"{len(g.scene.points)} points of the video's scene",
                                       layers=(pr.L_TRAJECTORY,)))
    vp = g.viewpoint
    if vp is not None:
        f = _frustums(vp.pose, vp.intrinsics, frustum_depth * 1.5)
        ov.add(pr.Segments(pr.VIEWPOINT, None, (pr.L_VIEWPOINT,), pr.Z_FOV, segments=frustum_lines(f)),
               pr.Marker(pr.VIEWPOINT, None, (pr.L_VIEWPOINT,), pr.Z_VIEW, at=f[0]))
    target_distance = None
    if g.target is not None and g.target.bbox is not None:
        c = g.target.bbox.corners()
        ov.add(pr.Segments(pr.TARGET, None, (pr.L_TARGET,), pr.Z_TARGET, segments=c[BOX_EDGES]))
        if vp is not None:
            target_distance = float(np.linalg.norm(g.target.bbox.center[:2] - geo.camera_center(vp.pose)[:2]))
    if floor_z is None:
        floor_z = _floor(g)
    kind = question.kind if question is not None else None       # None: a scene shown alone
    if kind is not None:
        truth = question.truth.value if question.truth.ok else None
        kind.scene_overlay(SceneContext(ov, question, model_answers(qi, results), truth,
                                        None if vp is None else vp.pose, target_distance, g.topdown, floor_z))
    return ov


def _floor(g: QuestionGeometry) -> float:
    """The lowest point of the scene's object boxes (0 when there are none)."""
    if g.scene is None:
        return 0.0
    lows = [float(i.bbox.corners()[:, 2].min()) for i in g.scene.instances.values() if i.bbox is not None]
    return min(lows) if lows else 0.0
