"""Camera and map geometry for GST-Bench scenes (spec section 3).

Conventions, fixed here once for the whole app:
  - world frame: right-handed, z up, metres; the ground plane is xy;
  - poses are camera-to-world 4x4 matrices in the OpenCV camera convention
    (x right, y down, z forward); `viewer.core.scene` converts OpenGL poses
    (x right, y up, -z forward, as USD/OmniGibson write them) at load time;
  - angles in degrees in [-180, 180], counter-clockwise (left) positive;
  - map pixels: x right, y down on the top-down image; normalised points are
    the [0, 999] grid of the benchmark's `<point>x y</point>` answers.

Every function broadcasts over leading dimensions, so a whole trajectory
or a batch of targets is one call.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .column import MAP_HEADING

if TYPE_CHECKING:
    from .release import Question
    from .scene.model import QuestionGeometry

# Negating camera y and z turns an OpenGL camera into an OpenCV one and back.
_FLIP_YZ = np.diag([1.0, -1.0, -1.0, 1.0])
# Tolerances for accepting a pose as rigid; JSON written with ~6 decimals
# drifts around 1e-6, a scaled or sheared matrix is off by far more.
RIGID_TOLERANCE = 1e-3


def opengl_to_opencv(c2w) -> np.ndarray:
    return np.asarray(c2w, float) @ _FLIP_YZ


def opencv_to_opengl(c2w) -> np.ndarray:
    return np.asarray(c2w, float) @ _FLIP_YZ


def quaternion_to_matrix(q) -> np.ndarray:
    """Rotation matrices (..., 3, 3) from quaternions [qx, qy, qz, qw] (normalised here)."""
    q = np.asarray(q, float)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = np.moveaxis(q, -1, 0)
    r = np.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
    ], axis=-1)
    return r.reshape(q.shape[:-1] + (3, 3))


def rigid_problems(poses) -> list[str | None]:
    """For each 4x4 in (N, 4, 4): None when it is a rigid transform, else why not."""
    poses = np.asarray(poses, float).reshape(-1, 4, 4)
    finite = np.isfinite(poses).all(axis=(1, 2))
    safe = np.where(finite[:, None, None], poses, np.eye(4))
    r = safe[:, :3, :3]
    ortho_err = np.abs(np.swapaxes(r, 1, 2) @ r - np.eye(3)).max(axis=(1, 2))
    det = np.linalg.det(r)
    bottom_err = np.abs(safe[:, 3] - [0.0, 0.0, 0.0, 1.0]).max(axis=1)
    bad = ~finite | (bottom_err > RIGID_TOLERANCE) | (ortho_err > RIGID_TOLERANCE) | \
        (np.abs(det - 1.0) > RIGID_TOLERANCE)
    out: list[str | None] = [None] * len(poses)
    for i in np.flatnonzero(bad):        # messages only for the (rare) bad ones
        if not finite[i]:
            out[i] = "contains NaN or infinity"
        elif bottom_err[i] > RIGID_TOLERANCE:
            out[i] = f"last row is {safe[i, 3].tolist()}, not [0, 0, 0, 1]"
        elif ortho_err[i] > RIGID_TOLERANCE:
            out[i] = f"rotation is not orthonormal (R^T R deviates from I by {ortho_err[i]:.3g})"
        else:
            out[i] = f"rotation has determinant {det[i]:.3g}, not 1 (a reflection)"
    return out


def camera_center(c2w) -> np.ndarray:
    return np.asarray(c2w, float)[..., :3, 3]


def forward_on_ground(c2w) -> np.ndarray:
    """Unit xy direction the camera looks along, projected on the ground plane.

    A camera looking straight down has no horizontal forward; its image-up
    axis (-y) is then the heading it "faces", as on a map.
    """
    c2w = np.asarray(c2w, float)
    fwd = c2w[..., :2, 2]
    up_in_image = -c2w[..., :2, 1]
    n = np.linalg.norm(fwd, axis=-1, keepdims=True)
    use = np.where(n > 1e-9, fwd, up_in_image)
    return use / np.linalg.norm(use, axis=-1, keepdims=True)


def _signed_angle(a, b) -> np.ndarray:
    """Degrees from 2D vector a to b, counter-clockwise positive, in (-180, 180]."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    cross = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    dot = a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]
    return _half_open(np.degrees(np.arctan2(cross, dot)))


def _half_open(deg) -> np.ndarray:
    # atan2 gives -180 for a signed zero; one value for "exactly behind".
    return np.where(deg == -180.0, 180.0, deg)


def egocentric_direction(c2w, target_xyz) -> np.ndarray:
    """Angle from the camera's ground forward to the target; left positive, 0 = ahead."""
    to_target = np.asarray(target_xyz, float)[..., :2] - camera_center(c2w)[..., :2]
    return _signed_angle(forward_on_ground(c2w), to_target)


def egocentric_distance(c2w, target_xyz) -> np.ndarray:
    return np.linalg.norm(np.asarray(target_xyz, float) - camera_center(c2w), axis=-1)


def world_to_pixel(W, xy) -> np.ndarray:
    """Map pixels (..., 2) of world points (x, y[, z]) through the 2x3 affine W."""
    W = np.asarray(W, float)
    xy = np.asarray(xy, float)[..., :2]
    return xy @ W[:, :2].T + W[:, 2]


def pixel_to_world(W, px) -> np.ndarray:
    """World (x, y) of map pixels; the inverse of world_to_pixel."""
    W = np.asarray(W, float)
    inv = np.linalg.inv(W[:, :2])
    return (np.asarray(px, float) - W[:, 2]) @ inv.T


def pixel_to_normalised(px, width, height) -> np.ndarray:
    """The benchmark's [0, 999] grid: floor(px / size * 1000), clamped."""
    px = np.asarray(px, float)
    size = np.array([width, height], float)
    return np.clip(np.floor(px / size * 1000.0), 0, 999).astype(np.int64)


def normalised_to_pixel(pt, width, height) -> np.ndarray:
    """Pixel at the centre of a normalised grid cell."""
    size = np.array([width, height], float)
    return (np.asarray(pt, float) + 0.5) / 1000.0 * size


def map_heading(c2w, W) -> np.ndarray:
    """The view's heading drawn on the map: 0 = image up, toward the image's left positive.

    Computed on the image as displayed (y down), so a mirroring affine (the
    usual world-y-up to image-y-down) is accounted for.
    """
    d = forward_on_ground(c2w) @ np.asarray(W, float)[:, :2].T
    return _half_open(np.degrees(np.arctan2(-d[..., 0], -d[..., 1])))


def _k_parts(intrinsics) -> tuple[float, float, float, float]:
    return float(intrinsics.fx), float(intrinsics.fy), float(intrinsics.cx), float(intrinsics.cy)


def frustum_corners(c2w, intrinsics, depth: float) -> np.ndarray:
    """World points (..., 4, 3) of the image corners at `depth` along the optical axis.

    Order: top-left, top-right, bottom-right, bottom-left of the image.
    """
    fx, fy, cx, cy = _k_parts(intrinsics)
    w, h = float(intrinsics.width), float(intrinsics.height)
    u = np.array([0.0, w, w, 0.0])
    v = np.array([0.0, 0.0, h, h])
    cam = np.stack([(u - cx) / fx * depth, (v - cy) / fy * depth, np.full(4, float(depth))], axis=-1)
    c2w = np.asarray(c2w, float)
    return np.einsum("...ij,kj->...ki", c2w[..., :3, :3], cam) + c2w[..., None, :3, 3]


def project(c2w, intrinsics, xyz) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates (..., 2) and depth along the optical axis (...) of world points.

    Points behind the camera get a negative depth; their pixels are meaningless.
    """
    fx, fy, cx, cy = _k_parts(intrinsics)
    c2w = np.asarray(c2w, float)
    rel = np.asarray(xyz, float) - c2w[..., :3, 3]
    cam = np.einsum("...ji,...j->...i", c2w[..., :3, :3], rel)
    z = cam[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        uv = np.stack([fx * cam[..., 0] / z + cx, fy * cam[..., 1] / z + cy], axis=-1)
    return uv, z


class Recomputed(NamedTuple):
    value: Any          # int angle, float distance (1 decimal), (int, int) point; None if impossible
    reason: str | None  # why value is None
    exact: Any = None   # the unrounded value (float; for points the (x, y) before flooring and clamping)


def _round_half_away(x: float) -> int:
    return int(np.sign(x) * np.floor(abs(x) + 0.5))


def recompute_ground_truth(question: "Question", geometry: "QuestionGeometry") -> Recomputed:
    """The answer the question should have, from its scene's geometry.

    Rounded as the published answers are written: integer degrees, metres
    with one decimal, integer normalised points.
    """
    column = question.column
    if column is None:
        return Recomputed(None, f"task {question.task!r} is not a {question.benchmark.title} task")
    at = column.kind_name
    if at == "choice":
        return Recomputed(None, f"{column.key} is a multiple-choice task; its answer is not geometric")
    if geometry.scene is None:
        return Recomputed(None, f"no scene metadata for {question.scene or 'this question'}")

    vp = geometry.viewpoint
    target = geometry.target
    if column.has_view and vp is None:
        return Recomputed(None, f"viewpoint {question.viewpoint!r} is not available in the scene")
    if column.has_target:
        if target is None:
            return Recomputed(None, f"target {question.target!r} is not available in the scene")
        if target.bbox is None:
            return Recomputed(None, f"target {target.id!r} has no bbox3")
    tmap = geometry.topdown
    if column.on_map:
        if tmap is None:
            return Recomputed(None, "no top-down map for this question")
        if tmap.world_to_pixel is None:
            return Recomputed(None, f"top-down map {tmap.name!r} has no world_to_pixel")
        if not tmap.width or not tmap.height:
            return Recomputed(None, f"top-down map {tmap.name!r} has no width/height")

    with np.errstate(all="ignore"):             # a box at 1e308 m gives inf, said below, not warned
        if at == "angle" and column.frame == MAP_HEADING:      # Ori: the view's heading on the map
            a = float(map_heading(vp.pose, tmap.world_to_pixel))
            return _finite_or_reason(a) or Recomputed(_wrap_int(a), None, a)
        if at == "angle":
            a = float(egocentric_direction(vp.pose, target.bbox.center))
            return _finite_or_reason(a) or Recomputed(_wrap_int(a), None, a)
        if at == "distance":
            d = float(egocentric_distance(vp.pose, target.bbox.center))
            return _finite_or_reason(d * 10) or Recomputed(_round_half_away(d * 10) / 10, None, d)
        where = target.bbox.center if column.has_target else camera_center(vp.pose)
        px = world_to_pixel(tmap.world_to_pixel, where)
        n = pixel_to_normalised(px, tmap.width, tmap.height)
        exact = px / np.array([tmap.width, tmap.height], float) * 1000.0
    return _finite_or_reason(*n, *exact) or Recomputed((int(n[0]), int(n[1])), None, (float(exact[0]), float(exact[1])))


def _finite_or_reason(*values: float) -> Recomputed | None:
    """None when every value is a finite number; else why no answer can be computed."""
    if all(np.isfinite(values)):
        return None
    return Recomputed(None, "the scene's geometry gives no finite answer (a pose or box out of range)")


def _wrap_int(angle) -> int:
    a = _round_half_away(float(angle))
    return a - 360 if a > 180 else a + 360 if a < -180 else a


def distance_to_polyline(p, line) -> float:
    """Distance from 2D point `p` to the polyline `line` (N, 2)."""
    p = np.asarray(p, float)[:2]
    a, b = np.asarray(line, float)[:-1, :2], np.asarray(line, float)[1:, :2]
    d = b - a
    t = np.clip(((p - a) * d).sum(axis=1) / np.maximum((d * d).sum(axis=1), 1e-12), 0.0, 1.0)
    return float(np.linalg.norm(a + t[:, None] * d - p, axis=1).min())


def point_in_polygon(p, poly) -> bool:
    """Whether 2D point `p` lies inside the closed polygon `poly` (N, 2) (even-odd rule)."""
    x, y = float(p[0]), float(p[1])
    inside = False
    pts = np.asarray(poly, float)[:, :2]
    for (x0, y0), (x1, y1) in zip(pts, np.roll(pts, -1, axis=0)):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside
