"""A 3D still of a question: a camera for it, the ray-cast image, and overlays projected into it.

No OpenGL: the image comes from the CPU ray caster (`Raycaster.render_view`)
on the scene without its ceiling, so a camera above the rooms sees into
them, and the overlay lines are projected with the same pinhole model and
clipped at the near plane. Lines are drawn over the image (not hidden by
walls), as in the window's 3D view: a path behind a wall must stay visible.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..core import primitives as pr
from ..core.diagnostics import UserError
from ..core.primitives import Overlay

NEAR = 0.05
CAMERAS = ("overview", "query", "frame:K")


@dataclass
class Still:
    image: np.ndarray                                  # (h, w, 3) RGB
    pose: np.ndarray                                   # (4, 4) OpenCV camera-to-world
    intrinsics: tuple                                  # (w, h, fx, fy, cx, cy)
    # Named 2D polylines in image pixels: ("trajectory"|"query"|"target"|"truth"|("model", m), lines)
    lines: list[tuple[object, list[np.ndarray]]] = field(default_factory=list)
    points: list[tuple[object, np.ndarray]] = field(default_factory=list)
    # For the video's path, each drawn segment's time along the video (0 = first frame, 1 = last):
    # it is drawn with the time gradient the window's map and 3D view use.
    path_times: list[float] = field(default_factory=list)
    hit: np.ndarray | None = None                      # (h, w) where the ray caster hit the scene


def crop_to_content(still: Still, pad: float = 0.04) -> Still:
    """The still without its empty surroundings: the box of what the rays hit and of every drawn line
    and point, grown by `pad` of its larger side. A wide apartment seen from above then fills the
    figure instead of a band across it."""
    h, w = still.image.shape[:2]
    xs, ys = [], []
    if still.hit is not None and still.hit.any():
        rows, cols = np.flatnonzero(still.hit.any(axis=1)), np.flatnonzero(still.hit.any(axis=0))
        xs += [cols[0], cols[-1] + 1]
        ys += [rows[0], rows[-1] + 1]
    drawn = [seg for _, lines in still.lines for seg in lines] + [np.atleast_2d(pt) for _, pt in still.points]
    for seg in drawn:
        xs += list(seg[:, 0])
        ys += list(seg[:, 1])
    if not xs:
        return still
    side = max(max(xs) - min(xs), max(ys) - min(ys))
    x0, x1 = int(max(0, np.floor(min(xs) - pad * side))), int(min(w, np.ceil(max(xs) + pad * side)))
    y0, y1 = int(max(0, np.floor(min(ys) - pad * side))), int(min(h, np.ceil(max(ys) + pad * side)))
    if x1 - x0 < 16 or y1 - y0 < 16 or (x0, y0, x1, y1) == (0, 0, w, h):
        return still
    shift = np.array([x0, y0], float)
    iw, ih, fx, fy, cx, cy = still.intrinsics
    return Still(still.image[y0:y1, x0:x1].copy(), still.pose, (x1 - x0, y1 - y0, fx, fy, cx - x0, cy - y0),
                 [(name, [seg - shift for seg in lines]) for name, lines in still.lines],
                 [(name, np.asarray(pt, float) - shift) for name, pt in still.points],
                 still.path_times, None if still.hit is None else still.hit[y0:y1, x0:x1])


def look_at(eye, target, up=(0.0, 0.0, 1.0)) -> np.ndarray:
    """OpenCV camera-to-world (x right, y down, z forward) at `eye` looking at `target`."""
    eye, target, up = (np.asarray(v, float) for v in (eye, target, up))
    f = target - eye
    f /= np.linalg.norm(f)
    r = np.cross(f, up)
    if np.linalg.norm(r) < 1e-6:                     # looking straight down: pick any right
        r = np.cross(f, [0.0, 1.0, 0.0])
    r /= np.linalg.norm(r)
    d = np.cross(f, r)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = r, d, f, eye
    return m


def intrinsics_for(width: int, height: int, hfov_deg: float = 60.0) -> tuple:
    fx = width / 2 / math.tan(math.radians(hfov_deg) / 2)
    return (int(width), int(height), fx, fx, width / 2, height / 2)


def overview_pose(lo, hi, toward=None, pitch_deg: float = 58.0, hfov_deg: float = 60.0,
                  aspect: float = 16 / 9) -> np.ndarray:
    """A camera above and to the side of the scene box [lo, hi], seeing all of it.

    `toward` (2,): the horizontal direction the camera looks along (e.g. the
    current view's), so the still reads like the scene seen over its shoulder.
    """
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    centre = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2]])
    d = np.array([0.25, 1.0]) if toward is None or not np.isfinite(toward).all() else np.asarray(toward, float)
    d = d / max(np.linalg.norm(d), 1e-9)
    radius = 0.5 * math.hypot(hi[0] - lo[0], hi[1] - lo[1])
    vfov = 2 * math.atan(math.tan(math.radians(hfov_deg) / 2) / aspect)
    # The box's half diagonal over-estimates what the tilted view must hold.
    dist = 0.85 * radius / math.tan(min(vfov, math.radians(hfov_deg)) / 2)
    p = math.radians(pitch_deg)
    eye = centre + dist * np.array([-math.cos(p) * d[0], -math.cos(p) * d[1], math.sin(p)])
    return look_at(eye, centre)


def _to_camera(c2w: np.ndarray, xyz: np.ndarray) -> np.ndarray:
    return (np.asarray(xyz, float) - c2w[:3, 3]) @ c2w[:3, :3]


def _project_cam(intr, cam: np.ndarray) -> np.ndarray:
    w, h, fx, fy, cx, cy = intr
    return np.stack([fx * cam[..., 0] / cam[..., 2] + cx, fy * cam[..., 1] / cam[..., 2] + cy], axis=-1)


def project_segments(c2w, intr, segments: np.ndarray, kept: list | None = None) -> list[np.ndarray]:
    """(S, 2, 3) world segments -> 2-point pixel polylines, clipped at the near plane; `kept`
    receives the index of each segment drawn."""
    out = []
    for k, (a, b) in enumerate(np.asarray(segments, float).reshape(-1, 2, 3)):
        if not (np.isfinite(a).all() and np.isfinite(b).all()):
            continue
        ca, cb = _to_camera(c2w, a), _to_camera(c2w, b)
        if ca[2] < NEAR and cb[2] < NEAR:
            continue
        if ca[2] < NEAR or cb[2] < NEAR:
            t = (NEAR - ca[2]) / (cb[2] - ca[2])
            cut = ca + t * (cb - ca)
            ca, cb = (cut, cb) if ca[2] < NEAR else (ca, cut)
        out.append(_project_cam(intr, np.stack([ca, cb])))
        if kept is not None:
            kept.append(k)
    return out


def polyline_segments(points: np.ndarray) -> np.ndarray:
    p = np.asarray(points, float)
    return np.stack([p[:-1], p[1:]], axis=1) if len(p) > 1 else np.zeros((0, 2, 3))


def choose_pose(camera: str, overlay: Overlay, bounds, viewpoint_pose=None, video_poses=None,
                aspect: float = 16 / 9, map_up=None) -> np.ndarray:
    """The camera named by `camera` ("overview", "query" or "frame:K"); UserError when it cannot be.

    The overview looks along `map_up` (the world direction that is up on the question's top-down map)
    when given, so the still reads like the 2D map beside it; else over the current view's shoulder.
    """
    lo, hi = bounds
    if camera == "overview":
        toward = None
        if map_up is not None and np.isfinite(map_up).all() and np.linalg.norm(map_up) > 1e-9:
            toward = np.asarray(map_up, float)
        elif viewpoint_pose is not None:
            f = np.asarray(viewpoint_pose)[:3, 2]
            toward = f[:2] if np.linalg.norm(f[:2]) > 1e-6 else None
        return overview_pose(lo, hi, toward, aspect=aspect)
    if camera == "query":
        if viewpoint_pose is None:
            raise UserError("--camera query: this question has no current viewpoint")
        return np.asarray(viewpoint_pose, float)
    if camera.startswith("frame:"):
        try:
            k = int(camera[6:])
        except ValueError:
            raise UserError(f"--camera {camera!r}: expected frame:K with K a frame number") from None
        if video_poses is None or not (0 <= k < len(video_poses)) or not np.isfinite(video_poses[k]).all():
            n = 0 if video_poses is None else len(video_poses)
            raise UserError(f"--camera {camera}: no usable pose for that frame (the video has {n} frames)")
        return np.asarray(video_poses[k], float)
    raise UserError(f"--camera {camera!r}: expected one of {', '.join(CAMERAS)}")


def _brighten(color: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Undo most of the depth dimming meant for eye-level views: seen from far above, all is far."""
    hit = np.isfinite(depth)
    if not hit.any():
        return color
    level = float(np.percentile(color[hit].max(axis=1), 97))
    gain = min(2.5, 235.0 / max(level, 1.0))
    out = color.astype(np.float32)
    out[hit] *= gain
    return np.clip(out, 0, 255).astype(np.uint8)


def map_up_direction(world_to_pixel) -> np.ndarray | None:
    """The world ground direction that points up (towards pixel row 0) on a map with this affine."""
    if world_to_pixel is None:
        return None
    W = np.asarray(world_to_pixel, float)[:, :2]
    if abs(np.linalg.det(W)) < 1e-12:
        return None
    return np.linalg.solve(W, [0.0, -1.0])


def on_the_floor(overlay: Overlay, floor_z: float) -> Overlay:
    """The overlay with the video's path laid on the floor: seen from eye level, a path at camera
    height is a bar across the horizon."""
    from dataclasses import replace
    out = Overlay(overlay.width, overlay.height, legend=overlay.legend, notes=overlay.notes)
    for item in overlay.items:
        if isinstance(item, pr.Polyline) and item.role == pr.PATH:
            pts = np.array(item.points, float)
            pts[:, 2] = floor_z + 0.02
            item = replace(item, points=pts)
        out.items.append(item)
    return out


def render_still(raycaster, overlay: Overlay, pose: np.ndarray, width: int, height: int,
                 hfov_deg: float = 60.0) -> Still:
    """The ray-cast view from `pose` with every 3D line of `overlay` projected into it, bottom first."""
    intr = intrinsics_for(width, height, hfov_deg)
    view = raycaster.render_view(pose, intr)
    still = Still(_brighten(view.color, view.depth), pose, intr, hit=np.isfinite(view.depth))
    for item in overlay.drawn():
        name = ("model", item.model) if item.role == pr.MODEL else _LINE_NAMES.get(item.role)
        if isinstance(item, pr.Polyline) and item.role == pr.PATH:
            kept: list[int] = []
            still.lines.append((name, project_segments(pose, intr, polyline_segments(item.points), kept)))
            still.path_times = [k / max(len(item.points) - 2, 1) for k in kept]
        elif isinstance(item, pr.Polyline):
            still.lines.append((name, project_segments(pose, intr, polyline_segments(item.points))))
        elif isinstance(item, pr.Arrow):
            still.lines.append((name, project_segments(pose, intr, np.asarray(item.points)[None])))
        elif isinstance(item, pr.Segments):
            still.lines.append((name, project_segments(pose, intr, item.segments)))
    for item in overlay.of(pr.Marker):
        apex = _to_camera(pose, item.at)
        if apex[2] > NEAR:
            still.points.append((_LINE_NAMES.get(item.role), _project_cam(intr, apex)))
    return still


# The still's names for the lines of each role (the figure's legend and colours go by them).
_LINE_NAMES = {pr.PATH: "trajectory", pr.VIEWPOINT: "query", pr.TARGET: "target", pr.TRUTH: "truth"}
