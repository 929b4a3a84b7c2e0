"""Egocentric images of a scene by CPU ray casting (open3d RaycastingScene), no GPU needed.

Pixel convention, shared with `viewer.core.geometry`: the image spans
[0, width] x [0, height] and pixel (u, v) is sampled at its centre
(u + 0.5, v + 0.5). Rays are cast with camera-frame directions
((u + 0.5 - cx) / fx, (v + 0.5 - cy) / fy, 1), so the hit distance open3d
returns is directly the depth along the optical axis.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Mapping

import numpy as np

from .scene_mesh import SceneMesh

IntrinsicsTuple = tuple[int, int, float, float, float, float]   # width, height, fx, fy, cx, cy
# (hit points (N, 3), normals (N, 3), primitive ids (N,), colours (N, 3) float32 0..255) -> colours
Texture = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]

# Shading: a headlight (light at the camera) plus ambient, dimmed with depth,
# so walls meeting at a corner and the faces of a box differ in brightness.
AMBIENT = 0.35
DEPTH_FALLOFF = 0.06            # brightness x 1 / (1 + falloff * depth)
OUTLINE_DARKEN = 0.55           # instance borders and depth steps
DEPTH_STEP = 0.08               # relative depth jump that counts as an edge
BACKGROUND = (24, 26, 30)
# Rays per cast_rays call in batched work: bounds memory (~60 bytes a ray).
BATCH_RAYS = 4_000_000
# Rays per call at most: open3d holds the thread until a call returns, so a slice this size
# (well under a second on a million-triangle scene) is as long as Ctrl-C may wait.
INTERRUPTIBLE_RAYS = 1 << 19


@dataclass
class ViewRender:
    color: np.ndarray       # (H, W, 3) uint8
    depth: np.ndarray       # (H, W) float32, metres along the optical axis, inf = no hit
    instance: np.ndarray    # (H, W) int32, index into SceneMesh.instance_ids, -1 = no hit


def as_intrinsics(intrinsics: Any) -> IntrinsicsTuple:
    """(width, height, fx, fy, cx, cy) from a tuple, a dict or an object with those attributes."""
    keys = ("width", "height", "fx", "fy", "cx", "cy")
    if isinstance(intrinsics, Mapping):
        vals = [intrinsics[k] for k in keys]
    elif hasattr(intrinsics, "fx"):
        vals = [getattr(intrinsics, k) for k in keys]
    else:
        vals = list(intrinsics)
        if len(vals) != 6:
            raise ValueError(f"intrinsics need 6 values (width, height, fx, fy, cx, cy), got {len(vals)}")
    return int(vals[0]), int(vals[1]), float(vals[2]), float(vals[3]), float(vals[4]), float(vals[5])


def as_pose(pose: Any, convention: str = "opencv") -> np.ndarray:
    """A (4, 4) OpenCV camera-to-world from an array, 16 numbers or an object holding one
    (`c2w`, `pose`, `matrix` or `camera_to_world`, e.g. a scene Viewpoint)."""
    for attr in ("c2w", "pose", "matrix", "camera_to_world"):
        if hasattr(pose, attr):
            pose = getattr(pose, attr)
            break
    m = np.asarray(pose, np.float64).reshape(4, 4)
    if convention == "opengl":
        m = m @ np.diag([1.0, -1.0, -1.0, 1.0])
    elif convention != "opencv":
        raise ValueError(f"unknown camera convention {convention!r}")
    return m


class Raycaster:
    """Casts camera rays into one SceneMesh; the BVH is built once, here."""

    def __init__(self, scene_mesh: SceneMesh):
        o3d = import_open3d()  # heavy; only when something is rendered

        self.mesh = scene_mesh
        self._scene = o3d.t.geometry.RaycastingScene()
        self._empty = len(scene_mesh.triangles) == 0
        if not self._empty:
            self._scene.add_triangles(
                o3d.core.Tensor(scene_mesh.vertices),
                o3d.core.Tensor(scene_mesh.triangles.astype(np.uint32)))
        # A trailing -1 so that a miss (primitive id 0xFFFFFFFF read as int32 -1) indexes "none".
        self._triangle_instance = np.append(scene_mesh.triangle_instance, np.int32(-1))
        # Per triangle, plus a trailing background row for misses.
        background = np.asarray(BACKGROUND, np.float32)[None]
        self._triangle_color = {
            "mesh": np.vstack([scene_mesh.triangle_colors.astype(np.float32), background]),
            "instance": np.vstack([scene_mesh.instance_colors.astype(np.float32)[scene_mesh.triangle_instance],
                                   background]),
        }
        self._rays_cache: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        # render_view reuses its ray buffer: a fresh 8 MB array costs page faults
        # every frame. Per thread, so that render workers never share one.
        self._scratch = threading.local()

    # -- rays -------------------------------------------------------------
    def _pixel_grid(self, intrinsics: Any, stride: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per column (u - cx) / fx, per row (v - cy) / fy, per pixel 1/|d|; cached per intrinsics.

        A camera ray is d = (a_u, b_v, 1): storing a and b separately lets world
        directions be built as R @ d = a_u R[:, 0] + b_v R[:, 1] + R[:, 2] with broadcasting.
        """
        w, h, fx, fy, cx, cy = as_intrinsics(intrinsics)
        key = (w, h, fx, fy, cx, cy, int(stride))
        grid = self._rays_cache.get(key)
        if grid is None:
            s = int(stride)
            a = ((np.arange(0, w, s) + 0.5 * s - cx) / fx).astype(np.float32)
            b = ((np.arange(0, h, s) + 0.5 * s - cy) / fy).astype(np.float32)
            inv_norm = (1.0 / np.sqrt(a[None, :] ** 2 + b[:, None] ** 2 + 1.0)).astype(np.float32).ravel()
            grid = (a, b, inv_norm)
            if len(self._rays_cache) > 8:
                self._rays_cache.clear()
            self._rays_cache[key] = grid
        return grid

    def grid_shape(self, intrinsics: Any, stride: int = 1) -> tuple[int, int]:
        a, b, _ = self._pixel_grid(intrinsics, stride)
        return len(b), len(a)

    def camera_rays(self, c2ws: Any, intrinsics: Any, stride: int = 1, *,
                    convention: str = "opencv", out: np.ndarray | None = None) -> np.ndarray:
        """(F, h*w, 6) float32 world rays [origin, direction] of F poses (a single pose: F = 1).

        Directions have camera-frame z = 1, so a hit distance is the depth along the optical axis.
        `out`, if given, is a float32 buffer of exactly F*h*w*6 values to fill.
        """
        poses = np.asarray([as_pose(p, convention) for p in _pose_list(c2ws)], np.float64)
        a, b, _ = self._pixel_grid(intrinsics, stride)
        shape = (len(poses), len(b), len(a), 6)
        rays = np.empty(shape, np.float32) if out is None else out.reshape(shape)
        pool = _shading_pool()
        for f, m in enumerate(poses):
            r = m[:3, :3].astype(np.float32)
            # Six strided channels: the three directions in the pool, the origin here.
            jobs = [pool.submit(np.add, (r[k, 1] * b + r[k, 2])[:, None], (r[k, 0] * a)[None, :],
                                out=rays[f, :, :, 3 + k]) for k in range(3)]
            rays[f, :, :, :3] = m[:3, 3]
            for j in jobs:
                j.result()
        return rays.reshape(len(poses), -1, 6)

    def cast(self, rays: np.ndarray) -> dict[str, np.ndarray]:
        """open3d cast_rays on (..., 6) float32 rays, results as numpy (primitive ids as int32, -1 = miss)."""
        import open3d as o3d

        shape = rays.shape[:-1]
        if self._empty:
            return {"t_hit": np.full(shape, np.inf, np.float32),
                    "primitive_ids": np.full(shape, -1, np.int32),
                    "primitive_normals": np.zeros(shape + (3,), np.float32)}
        flat = np.ascontiguousarray(rays).reshape(-1, 6)
        if len(flat) <= INTERRUPTIBLE_RAYS:
            out = self._scene.cast_rays(o3d.core.Tensor.from_numpy(flat))
            return {"t_hit": out["t_hit"].numpy().reshape(shape),
                    "primitive_ids": out["primitive_ids"].numpy().view(np.int32).reshape(shape),
                    "primitive_normals": out["primitive_normals"].numpy().reshape(shape + (3,))}
        # Many rays: cast a slice at a time, so Ctrl-C (handled between slices) stops us within a second.
        parts = [self.cast(flat[k:k + INTERRUPTIBLE_RAYS]) for k in range(0, len(flat), INTERRUPTIBLE_RAYS)]
        return {"t_hit": np.concatenate([p["t_hit"] for p in parts]).reshape(shape),
                "primitive_ids": np.concatenate([p["primitive_ids"] for p in parts]).reshape(shape),
                "primitive_normals": np.concatenate([p["primitive_normals"] for p in parts]).reshape(shape + (3,))}

    def instance_of(self, primitive_ids: np.ndarray) -> np.ndarray:
        """Instance index per cast result (-1 for a miss), same shape as `primitive_ids`."""
        return self._triangle_instance[primitive_ids]

    # -- images -----------------------------------------------------------
    def triangle_color_table(self, color_by: str = "mesh") -> np.ndarray:
        """(T + 1, 3) float32 colours indexed by primitive id, the last row (id -1) the background.

        "mesh": the colours painted in the mesh file; "instance": one colour per category.
        """
        if color_by not in self._triangle_color:
            raise ValueError(f"unknown colouring {color_by!r}; expected 'mesh' or 'instance'")
        return self._triangle_color[color_by]

    def render_view(self, c2w: Any, intrinsics: Any, *, convention: str = "opencv",
                    outlines: bool = True, color_by: str = "mesh", texture: Texture | None = None) -> ViewRender:
        """Colour, depth and instance images seen from camera-to-world pose `c2w`.

        `texture`, if given, recolours the pixels that hit before shading, from their world hit
        points and normals (the demo's procedural materials, viewer/demo/textures.py).
        """
        table = self.triangle_color_table(color_by)
        h, w = self.grid_shape(intrinsics)
        buffer = getattr(self._scratch, "rays", None)
        if buffer is None or buffer.size != h * w * 6:
            buffer = self._scratch.rays = np.empty(h * w * 6, np.float32)
        rays = self.camera_rays(c2w, intrinsics, convention=convention, out=buffer)[0]
        hit = self.cast(rays)
        depth = hit["t_hit"]
        prim = hit["primitive_ids"]
        instance = self.instance_of(prim)

        # The cast used both cores; the shading after it would use one. numpy
        # lets go of the GIL in its loops, so the outline search and the
        # shading run side by side, then each half of the image is coloured
        # in its own thread.
        pool = _shading_pool()
        edges = pool.submit(edge_mask, instance.reshape(h, w), depth.reshape(h, w)) if outlines else None
        shade = _shade(hit["primitive_normals"], rays, self._pixel_grid(intrinsics)[2], depth)
        if edges is not None:
            shade[edges.result().ravel()] *= OUTLINE_DARKEN
        shade[prim < 0] = 1.0
        color = np.empty((h * w, 3), np.uint8)
        half = (h // 2) * w
        job = _colour if texture is None else partial(_textured, texture, rays, depth, hit["primitive_normals"])
        parts = [pool.submit(job, table, prim[a:b], shade[a:b], color[a:b], a)
                 for a, b in ((0, half), (half, h * w))]
        for f in parts:
            f.result()
        return ViewRender(color.reshape(h, w, 3), depth.reshape(h, w), instance.reshape(h, w))

    def instance_map(self, c2w: Any, intrinsics: Any, stride: int = 1, *,
                     convention: str = "opencv") -> np.ndarray:
        """(h, w) int32 instance indices (-1 = none) on the pixel grid subsampled by `stride`."""
        rays = self.camera_rays(c2w, intrinsics, stride, convention=convention)[0]
        prim = self.cast(rays)["primitive_ids"]
        return self.instance_of(prim).reshape(self.grid_shape(intrinsics, stride))

    def visible_pixel_counts(self, c2w: Any, intrinsics: Any, stride: int = 1, *,
                             convention: str = "opencv") -> dict[int, int]:
        """Instance index -> number of sampled pixels showing it (pixels of the strided grid)."""
        counts = np.bincount(self.instance_map(c2w, intrinsics, stride, convention=convention).ravel() + 1,
                             minlength=len(self.mesh.instance_ids) + 1)[1:]
        return {int(i): int(counts[i]) for i in np.flatnonzero(counts)}

    def visible_pixel_counts_batch(self, c2ws: Any, intrinsics: Any, stride: int = 1, *,
                                   convention: str = "opencv") -> np.ndarray:
        """(F, I) int64 visible sampled pixels per pose and instance, for a whole trajectory."""
        poses = [as_pose(p, convention) for p in _pose_list(c2ws)]
        n_inst = len(self.mesh.instance_ids)
        out = np.zeros((len(poses), n_inst), np.int64)
        h, w = self.grid_shape(intrinsics, stride)
        per_call = max(1, BATCH_RAYS // max(h * w, 1))
        for start in range(0, len(poses), per_call):
            chunk = poses[start:start + per_call]
            prim = self.cast(self.camera_rays(chunk, intrinsics, stride))["primitive_ids"]
            inst = self.instance_of(prim)                       # (f, n)
            frame = np.arange(len(chunk), dtype=np.int64)[:, None]
            keys = (frame * (n_inst + 1) + inst + 1).ravel()
            counts = np.bincount(keys, minlength=len(chunk) * (n_inst + 1))
            out[start:start + len(chunk)] = counts.reshape(len(chunk), n_inst + 1)[:, 1:]
        return out

    def instance_pixel_counts(self, c2ws: Any, intrinsics: Any, stride: int, rects: np.ndarray,
                              index: int) -> np.ndarray:
        """(F,) sampled pixels showing instance `index`, casting only each pose's grid rectangle
        rects[f] = [row0, row1, col0, col1) (OpenCV poses), all poses in one cast."""
        sizes = np.array([(r1 - r0) * (c1 - c0) for r0, r1, c0, c1 in rects], np.int64)
        hit = self.instance_maps_in(c2ws, intrinsics, stride, rects) == index
        running = np.concatenate([[0], np.cumsum(hit, dtype=np.int64)])
        ends = np.cumsum(sizes)
        return running[ends] - running[ends - sizes]

    def instance_maps_in(self, c2ws: Any, intrinsics: Any, stride: int, rects: np.ndarray) -> np.ndarray:
        """Instance indices (-1 = none) of the grid cells inside rects[f] = [row0, row1, col0, col1) of
        pose f, row-major per rectangle, one rectangle after the other, in one cast."""
        a, b, _ = self._pixel_grid(intrinsics, stride)
        poses = np.asarray(c2ws, np.float64).reshape(-1, 4, 4)
        sizes = [int(r1 - r0) * int(c1 - c0) for r0, r1, c0, c1 in rects]
        rays = np.empty((sum(sizes), 6), np.float32)
        at = 0
        for m, (r0, r1, c0, c1), n in zip(poses, rects, sizes):
            if n == 0:
                continue
            r = m[:3, :3].astype(np.float32)
            rays[at:at + n, :3] = m[:3, 3]
            rays[at:at + n, 3:] = (a[None, c0:c1, None] * r[:, 0] + b[r0:r1, None, None] * r[:, 1]
                                   + r[:, 2]).reshape(-1, 3)
            at += n
        return self.instance_of(self.cast(rays)["primitive_ids"])

def import_open3d():
    """open3d, without the browser plotting it imports on the way (plotly and dash: half a second per process,
    for `draw_plotly`, which gst-viewer never calls). The packaged app does the same in rthook_open3d.py."""
    import sys
    import types
    name = "open3d.visualization.draw_plotly"
    if "open3d" not in sys.modules and name not in sys.modules:
        stand_in = types.ModuleType(name)

        def not_loaded(*args, **kwargs):
            raise ImportError("gst-viewer does not load open3d's plotly drawing (plotly, dash)")

        stand_in.get_plotly_fig = stand_in.draw_plotly = stand_in.draw_plotly_server = not_loaded
        sys.modules[name] = stand_in
    import open3d
    return open3d


_POOL = None


def _shading_pool():
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor
        _POOL = ThreadPoolExecutor(2, thread_name_prefix="gst-shade")
    return _POOL


def _shade(normals: np.ndarray, rays: np.ndarray, inv_norm: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Per-pixel brightness: headlight Lambert term, ambient, darkening with depth.

    All on one channel, so the colours are multiplied once. |cos| between ray
    and normal is two-sided, so mesh winding does not matter.
    """
    cos = normals[:, 0] * rays[:, 3]
    cos += normals[:, 1] * rays[:, 4]
    cos += normals[:, 2] * rays[:, 5]
    np.abs(cos, out=cos)
    cos *= inv_norm
    shade = AMBIENT + (1.0 - AMBIENT) * cos
    shade /= 1.0 + DEPTH_FALLOFF * depth      # a miss (inf) goes to 0; the caller resets misses
    return shade


def _colour(table: np.ndarray, prim: np.ndarray, shade: np.ndarray, out: np.ndarray, start: int = 0) -> None:
    c = np.take(table, prim, axis=0)
    c *= shade[:, None]
    out[:] = c                                 # shade <= 1: stays within 0..255, no clipping


def _textured(texture: Texture, rays: np.ndarray, depth: np.ndarray, normals: np.ndarray, table: np.ndarray,
              prim: np.ndarray, shade: np.ndarray, out: np.ndarray, start: int) -> None:
    """_colour with the hit pixels' colours passed through `texture` (pixels start.. of the image)."""
    c = np.take(table, prim, axis=0)
    end = start + len(prim)
    if (prim >= 0).all():                       # indoors every ray hits: slices, no gathers
        points = rays[start:end, :3] + depth[start:end, None] * rays[start:end, 3:]
        c = texture(points, normals[start:end], prim, c)
    else:
        hit = np.flatnonzero(prim >= 0)
        at = hit + start
        points = rays[at, :3] + depth[at, None] * rays[at, 3:]
        c[hit] = texture(points, normals[at], prim[hit], c[hit])
    c *= shade[:, None]
    np.clip(c, 0.0, 255.0, out=c)              # a texture may brighten past the mesh colour
    out[:] = c


def _pose_list(c2ws: Any) -> list:
    """One pose (4x4, 16 numbers or an object holding one) or a sequence of them, as a list."""
    if any(hasattr(c2ws, a) for a in ("c2w", "pose", "matrix", "camera_to_world")):
        return [c2ws]
    try:
        arr = np.asarray(c2ws, np.float64)
    except (TypeError, ValueError):          # a sequence of pose objects
        return list(c2ws)
    if arr.shape in ((4, 4), (16,)):
        return [arr]
    return list(arr.reshape(-1, 4, 4))


def edge_mask(instance: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """(H, W) bool: pixels on an instance border or a depth step (silhouettes, box edges)."""
    edge = np.zeros(instance.shape, bool)
    with np.errstate(invalid="ignore"):
        for a, b, sl_a, sl_b in ((instance[:, 1:], instance[:, :-1], np.s_[:, 1:], np.s_[:, :-1]),
                                 (instance[1:], instance[:-1], np.s_[1:], np.s_[:-1])):
            da, db = depth[sl_a], depth[sl_b]
            step = (a != b) | (np.abs(da - db) > DEPTH_STEP * np.minimum(da, db))
            # Mark the nearer pixel, so outlines hug the object in front.
            edge[sl_a] |= step & (da <= db)
            edge[sl_b] |= step & (db < da)
    return edge


def instance_bbox_2d(instance_map: np.ndarray, index: int) -> list[int] | None:
    """[x0, y0, x1, y1] (inclusive pixel indices) of the pixels showing instance `index`, or None."""
    mask = instance_map == index
    cols = np.flatnonzero(mask.any(axis=0))
    if len(cols) == 0:
        return None
    rows = np.flatnonzero(mask.any(axis=1))
    return [int(cols[0]), int(rows[0]), int(cols[-1]), int(rows[-1])]


def instance_bboxes_2d(instance_map: np.ndarray) -> dict[int, list[int]]:
    """instance_bbox_2d for every instance in the map at once."""
    h, w = instance_map.shape
    flat = instance_map.ravel()
    seen = flat >= 0
    if not seen.any():
        return {}
    idx = flat[seen]
    ys, xs = np.divmod(np.flatnonzero(seen), w)
    n = int(idx.max()) + 1
    x0, y0 = np.full(n, w, np.int64), np.full(n, h, np.int64)
    x1, y1 = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    for low, high, coord in ((x0, x1, xs), (y0, y1, ys)):
        np.minimum.at(low, idx, coord)
        np.maximum.at(high, idx, coord)
    return {int(i): [int(x0[i]), int(y0[i]), int(x1[i]), int(y1[i])] for i in np.flatnonzero(x1 >= 0)}
