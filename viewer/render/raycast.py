"""Egocentric images of a scene by CPU ray casting (open3d RaycastingScene), no GPU needed.

Pixel convention, shared with `viewer.core.geometry`: the image spans
[0, width] x [0, height] and pixel (u, v) is sampled at its centre
(u + 0.5, v + 0.5). Rays are cast with camera-frame directions
((u + 0.5 - cx) / fx, (v + 0.5 - cy) / fy, 1), so the hit distance open3d
returns is directly the depth along the optical axis.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .scene_mesh import SceneMesh

Intrinsics = tuple[int, int, float, float, float, float]   # width, height, fx, fy, cx, cy

# Shading: a headlight (light at the camera) plus ambient, dimmed with depth,
# so walls meeting at a corner and the faces of a box differ in brightness.
AMBIENT = 0.35
DEPTH_FALLOFF = 0.06            # brightness x 1 / (1 + falloff * depth)
OUTLINE_DARKEN = 0.55           # instance borders and depth steps
DEPTH_STEP = 0.08               # relative depth jump that counts as an edge
BACKGROUND = (24, 26, 30)
# Rays per cast_rays call in batched work: bounds memory (~60 bytes a ray).
BATCH_RAYS = 4_000_000


@dataclass
class ViewRender:
    color: np.ndarray       # (H, W, 3) uint8
    depth: np.ndarray       # (H, W) float32, metres along the optical axis, inf = no hit
    instance: np.ndarray    # (H, W) int32, index into SceneMesh.instance_ids, -1 = no hit


def as_intrinsics(intrinsics: Any) -> Intrinsics:
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
    """A (4, 4) OpenCV camera-to-world from an array, 16 numbers or an object holding one."""
    for attr in ("c2w", "matrix", "camera_to_world"):
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
        import open3d as o3d  # heavy; only when something is rendered

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
        self._rays_cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    # -- rays -------------------------------------------------------------
    def camera_directions(self, intrinsics: Any, stride: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Camera-frame ray directions (h*w, 3) float32 (z = 1) and 1/|d|, cached per intrinsics."""
        w, h, fx, fy, cx, cy = as_intrinsics(intrinsics)
        key = (w, h, fx, fy, cx, cy, int(stride))
        hit = self._rays_cache.get(key)
        if hit is None:
            s = int(stride)
            u = (np.arange(0, w, s, dtype=np.float64) + 0.5 * s - cx) / fx
            v = (np.arange(0, h, s, dtype=np.float64) + 0.5 * s - cy) / fy
            d = np.empty((len(v), len(u), 3), np.float32)
            d[..., 0] = u[None, :]
            d[..., 1] = v[:, None]
            d[..., 2] = 1.0
            d = d.reshape(-1, 3)
            hit = (d, (1.0 / np.linalg.norm(d, axis=1)).astype(np.float32))
            if len(self._rays_cache) > 8:
                self._rays_cache.clear()
            self._rays_cache[key] = hit
        return hit

    def grid_shape(self, intrinsics: Any, stride: int = 1) -> tuple[int, int]:
        w, h = as_intrinsics(intrinsics)[:2]
        return -(-h // stride), -(-w // stride)

    def _world_rays(self, c2ws: np.ndarray, dirs: np.ndarray) -> np.ndarray:
        """(F, n, 6) float32 rays for F poses sharing camera directions (n, 3)."""
        rays = np.empty((len(c2ws), len(dirs), 6), np.float32)
        for f, m in enumerate(c2ws):
            rays[f, :, :3] = m[:3, 3]
            np.matmul(dirs, m[:3, :3].T.astype(np.float32), out=rays[f, :, 3:])
        return rays

    def cast(self, rays: np.ndarray) -> dict[str, np.ndarray]:
        """open3d cast_rays on (..., 6) float32 rays, results as numpy (primitive ids as int32, -1 = miss)."""
        import open3d as o3d

        shape = rays.shape[:-1]
        if self._empty:
            return {"t_hit": np.full(shape, np.inf, np.float32),
                    "primitive_ids": np.full(shape, -1, np.int32),
                    "primitive_normals": np.zeros(shape + (3,), np.float32)}
        out = self._scene.cast_rays(o3d.core.Tensor.from_numpy(np.ascontiguousarray(rays)))
        return {"t_hit": out["t_hit"].numpy(),
                "primitive_ids": out["primitive_ids"].numpy().view(np.int32),
                "primitive_normals": out["primitive_normals"].numpy()}

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
                    outlines: bool = True, color_by: str = "mesh") -> ViewRender:
        """Colour, depth and instance images seen from camera-to-world pose `c2w`."""
        table = self.triangle_color_table(color_by)
        w, h = as_intrinsics(intrinsics)[:2]
        dirs, inv_norm = self.camera_directions(intrinsics)
        m = as_pose(c2w, convention)
        rays = self._world_rays(m[None], dirs)[0]
        hit = self.cast(rays)
        depth = hit["t_hit"]
        prim = hit["primitive_ids"]
        instance = self.instance_of(prim)

        # |cos| of the angle between ray and normal: two-sided, winding-agnostic.
        cos = np.abs(np.einsum("ij,ij->i", hit["primitive_normals"], rays[:, 3:])) * inv_norm
        shade = (AMBIENT + (1.0 - AMBIENT) * cos) / (1.0 + DEPTH_FALLOFF * np.minimum(depth, 1e3))
        color = table[prim] * np.where(prim >= 0, shade, 1.0)[:, None]
        color = color.reshape(h, w, 3)
        depth = depth.reshape(h, w)
        instance = instance.reshape(h, w)
        if outlines:
            color *= np.where(edge_mask(instance, depth), OUTLINE_DARKEN, 1.0)[..., None]
        return ViewRender(np.clip(color, 0, 255).astype(np.uint8), depth, instance)

    def instance_map(self, c2w: Any, intrinsics: Any, stride: int = 1, *,
                     convention: str = "opencv") -> np.ndarray:
        """(h, w) int32 instance indices (-1 = none) on the pixel grid subsampled by `stride`."""
        dirs, _ = self.camera_directions(intrinsics, stride)
        rays = self._world_rays(as_pose(c2w, convention)[None], dirs)[0]
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
        poses = np.asarray([as_pose(p, convention) for p in c2ws], np.float64).reshape(-1, 4, 4)
        n_inst = len(self.mesh.instance_ids)
        out = np.zeros((len(poses), n_inst), np.int64)
        dirs, _ = self.camera_directions(intrinsics, stride)
        per_call = max(1, BATCH_RAYS // max(len(dirs), 1))
        for start in range(0, len(poses), per_call):
            chunk = poses[start:start + per_call]
            prim = self.cast(self._world_rays(chunk, dirs))["primitive_ids"]
            inst = self.instance_of(prim)                       # (f, n)
            frame = np.arange(len(chunk), dtype=np.int64)[:, None]
            keys = (frame * (n_inst + 1) + inst + 1).ravel()
            counts = np.bincount(keys, minlength=len(chunk) * (n_inst + 1))
            out[start:start + len(chunk)] = counts.reshape(len(chunk), n_inst + 1)[:, 1:]
        return out


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
    x0 = np.full(n, w, np.int64); y0 = np.full(n, h, np.int64)
    x1 = np.full(n, -1, np.int64); y1 = np.full(n, -1, np.int64)
    np.minimum.at(x0, idx, xs); np.minimum.at(y0, idx, ys)
    np.maximum.at(x1, idx, xs); np.maximum.at(y1, idx, ys)
    return {int(i): [int(x0[i]), int(y0[i]), int(x1[i]), int(y1[i])] for i in np.flatnonzero(x1 >= 0)}
