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

from ..core.diagnostics import UserError
from ..core.overlays import SceneOverlay3D, frustum_lines

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


def project_segments(c2w, intr, segments: np.ndarray) -> list[np.ndarray]:
    """(S, 2, 3) world segments -> 2-point pixel polylines, clipped at the near plane."""
    out = []
    for a, b in np.asarray(segments, float).reshape(-1, 2, 3):
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
    return out


def polyline_segments(points: np.ndarray) -> np.ndarray:
    p = np.asarray(points, float)
    return np.stack([p[:-1], p[1:]], axis=1) if len(p) > 1 else np.zeros((0, 2, 3))


def choose_pose(camera: str, overlay: SceneOverlay3D, bounds, viewpoint_pose=None, video_poses=None,
                aspect: float = 16 / 9) -> np.ndarray:
    """The camera named by `camera` ("overview", "query" or "frame:K"); UserError when it cannot be."""
    lo, hi = bounds
    if camera == "overview":
        toward = None
        if viewpoint_pose is not None:
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


def answer_marks_3d(question, qi: int, results, geometry, floor_z: float) -> list[tuple[object, np.ndarray]]:
    """World segments (S, 2, 3) for answers the 3D overlay has no rays for: distances as circles
    around the current view at its height, map points as poles standing on the floor."""
    from ..core import geometry as geo
    from ..core.overlays import model_answers
    from ..core.tasks import AnswerType
    at = question.answer_type
    marks: list[tuple[object, np.ndarray]] = []
    answers = [(("model", m), v) for m, v in model_answers(qi, results)]
    if question.truth.ok:
        answers.append(("truth", question.truth.value))
    if at is AnswerType.DISTANCE and geometry.viewpoint is not None:
        c = geo.camera_center(geometry.viewpoint.pose)
        t = np.linspace(0, 2 * np.pi, 73)
        for name, r in answers:
            if np.isfinite(r) and r >= 0:
                ring = np.stack([c[0] + r * np.cos(t), c[1] + r * np.sin(t), np.full_like(t, c[2])], axis=1)
                marks.append((name, polyline_segments(ring)))
    elif at is AnswerType.POINT:
        tmap = geometry.topdown
        if tmap is None or tmap.world_to_pixel is None or not tmap.width:
            return marks
        for name, pt in answers:
            x, y = geo.pixel_to_world(tmap.world_to_pixel,
                                      geo.normalised_to_pixel(np.asarray(pt, float), tmap.width, tmap.height))
            t = np.linspace(0, 2 * np.pi, 25)
            ring = np.stack([x + 0.25 * np.cos(t), y + 0.25 * np.sin(t), np.full_like(t, floor_z + 0.02)], axis=1)
            pole = np.array([[[x, y, floor_z], [x, y, floor_z + 1.4]]])
            marks.append((name, np.concatenate([polyline_segments(ring), pole])))
    return marks


def render_still(raycaster, overlay: SceneOverlay3D, pose: np.ndarray, width: int, height: int,
                 hfov_deg: float = 60.0, marks: list[tuple[object, np.ndarray]] = ()) -> Still:
    intr = intrinsics_for(width, height, hfov_deg)
    view = raycaster.render_view(pose, intr)
    still = Still(_brighten(view.color, view.depth), pose, intr)
    if overlay.trajectory is not None:
        still.lines.append(("trajectory", project_segments(pose, intr, polyline_segments(overlay.trajectory))))
    if overlay.query_frustum is not None:
        still.lines.append(("query", project_segments(pose, intr, frustum_lines(overlay.query_frustum))))
    if overlay.target_edges is not None:
        still.lines.append(("target", project_segments(pose, intr, overlay.target_edges)))
    for m, ray in overlay.pred_rays:
        still.lines.append((("model", m), project_segments(pose, intr, ray[None])))
    if overlay.truth_ray is not None:
        still.lines.append(("truth", project_segments(pose, intr, overlay.truth_ray[None])))
    for name, segments in marks:
        still.lines.append((name, project_segments(pose, intr, segments)))
    if overlay.query_frustum is not None:
        apex = _to_camera(pose, overlay.query_frustum[0])
        if apex[2] > NEAR:
            still.points.append(("query", _project_cam(intr, apex)))
    return still
