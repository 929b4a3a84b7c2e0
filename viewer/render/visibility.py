"""Which instances a camera sees, for the ground-truth audit.

`SceneVisibility` implements the audit's interface
(viewer.core.audit.visibility.Visibility; the class itself is the
VisibilityFactory): pass it to `run_audit(visibility=SceneVisibility)`.

The audit asks two questions of a scene: does the query view show the
target (it must not), and does any frame of the exploration video show it
(one must). Both are answered by casting camera rays against the scene's
geometry: its mesh when it has one, else its instances' 3D boxes.

A mesh whose node names are not instance ids cannot say which triangles
are the target. Such targets are added as their bbox3: a ray that reaches
the box before anything else is counted as seeing the target. A box is a
little larger than the object, so this errs towards "visible", which is the
safe side for an audit (a reviewer looks, rather than a problem hiding).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..core.diagnostics import UserError
from ..core.scene.model import Scene
from ..core.scene.sources import scene_mesh_file
from .raycast import Raycaster, as_intrinsics, instance_bbox_2d
from .scene_mesh import SceneMesh, boxes_mesh, load_scene_mesh

# Sampled image widths: a query view is checked finely (a corner of the
# target is enough to break the promise), video frames more coarsely
# (the target must be clearly seen to count as seen).
VIEW_SAMPLES_ACROSS = 320
FRAME_SAMPLES_ACROSS = 160


def stride_for(width: int, samples_across: int) -> int:
    return max(1, int(round(width / samples_across)))


@dataclass
class ViewVisibility:
    pixels: int                 # sampled pixels showing the instance, scaled to full resolution
    fraction: float             # of the image
    bbox: list[int] | None      # [x0, y0, x1, y1] in full-resolution pixels
    sampled: int                # rays cast
    stride: int


def merge_meshes(a: SceneMesh, b: SceneMesh) -> SceneMesh:
    """One mesh holding both; b's instance indices follow a's."""
    return SceneMesh(
        vertices=np.concatenate([a.vertices, b.vertices]),
        triangles=np.concatenate([a.triangles, b.triangles + len(a.vertices)]),
        triangle_instance=np.concatenate([a.triangle_instance, b.triangle_instance + len(a.instance_ids)]),
        instance_ids=list(a.instance_ids) + list(b.instance_ids),
        instance_colors=np.concatenate([a.instance_colors, b.instance_colors]),
        instance_categories=list(a.instance_categories) + list(b.instance_categories),
        triangle_colors=np.concatenate([a.triangle_colors, b.triangle_colors]),
    )


class SceneVisibility:
    """Ray-cast visibility in one scene (a viewer.core.audit.visibility.Visibility).

    `geometry` says what was cast against: "mesh", "mesh+boxes" (targets
    missing from the mesh added as boxes) or "boxes" (no mesh); `boxed` holds
    the instances seen as boxes, whose visibility is overestimated. `note`
    explains a fallback. Raises UserError when the scene has neither a
    readable mesh nor any box.
    """

    def __init__(self, scene: Scene, targets: Iterable[str] = ()):
        semantics = {k: v.semantic for k, v in scene.instances.items() if v.semantic}
        boxes = {k: v.bbox for k, v in scene.instances.items() if v.bbox is not None}
        self.note: str | None = None
        mesh = None
        mesh_file = scene_mesh_file(scene)
        if mesh_file is not None:
            try:
                mesh = load_scene_mesh(mesh_file.path, semantics)
            except UserError as e:
                self.note = f"{e}; using instance boxes instead"
        if mesh is None:
            if not boxes:
                why = self.note or f"scene {scene.id} has no mesh"
                raise UserError(f"{why}, and no instance has a bbox3: visibility cannot be checked")
            mesh, self.geometry = boxes_mesh(boxes, semantics), "boxes"
            self.boxed = set(boxes)
        else:
            self.geometry = "mesh"
            self.boxed: set[str] = set()
            absent = {t: boxes[t] for t in targets if t in boxes and mesh.index_of(t) is None}
            if absent:
                mesh = merge_meshes(mesh, boxes_mesh(absent, semantics))
                self.geometry = "mesh+boxes"
                self.boxed = set(absent)
        self.mesh = mesh
        self._index = {iid: i for i, iid in enumerate(mesh.instance_ids)}
        self.caster = Raycaster(mesh)
        self.rays_cast = 0
        # The rays casting every sample of each distinct camera once would take (what the audit cast before it
        # restricted rays to targets' boxes); rays_cast is what it casts.
        self.rays_covered = 0
        self._covered: set[bytes] = set()
        self._boxes: dict[int, np.ndarray | None] = {}

    def index(self, instance_id: str) -> int | None:
        return self._index.get(instance_id)

    def in_view(self, pose, intrinsics, instance_ids: Iterable[str]) -> dict[str, ViewVisibility]:
        """Visibility of each instance from one camera (OpenCV camera-to-world).

        Only the sample cells inside each instance's projected box are cast (no
        other ray can reach it), unless those add up to more than the whole image.
        """
        width, height = as_intrinsics(intrinsics)[:2]
        stride = stride_for(width, VIEW_SAMPLES_ACROSS)
        h, w = self.caster.grid_shape(intrinsics, stride)
        pose = np.asarray(pose, float).reshape(1, 4, 4)
        wanted = [(iid, self.index(iid)) for iid in instance_ids]
        wanted = [(iid, i) for iid, i in wanted if i is not None]
        rects = {}
        for iid, i in wanted:
            box = self._instance_box(i)
            rects[iid] = (self._grid_rects(box, pose, intrinsics, stride, h, w)[0][0] if box is not None
                          else np.zeros(4, np.int64))
        cells = sum(int((r[1] - r[0]) * (r[3] - r[2])) for r in rects.values())
        self._cover(pose, stride, h * w)
        if cells >= h * w:
            whole = self.caster.instance_map(pose[0], intrinsics, stride)
            self.rays_cast += whole.size
            maps = {iid: (whole, 0, 0) for iid, _ in wanted}
        else:
            flat = self.caster.instance_maps_in(pose.repeat(len(rects), 0), intrinsics, stride,
                                                np.array(list(rects.values()), np.int64).reshape(-1, 4))
            self.rays_cast += cells
            maps, at = {}, 0
            for iid, (r0, r1, c0, c1) in rects.items():
                n = int((r1 - r0) * (c1 - c0))
                maps[iid] = (flat[at:at + n].reshape(r1 - r0, c1 - c0), int(r0), int(c0))
                at += n
        out = {}
        for iid, i in wanted:
            imap, r0, c0 = maps[iid]
            count = int(np.count_nonzero(imap == i))
            box = instance_bbox_2d(imap, i) if imap.size else None
            if box is not None:     # sample cell -> the full-resolution pixels it stands for
                box = [(box[0] + c0) * stride, (box[1] + r0) * stride,
                       min(width, (box[2] + c0 + 1) * stride) - 1, min(height, (box[3] + r0 + 1) * stride) - 1]
            out[iid] = ViewVisibility(count * stride * stride, count / (h * w), box, h * w, stride)
        return out

    def over_frames(self, poses: np.ndarray, intrinsics) -> tuple[np.ndarray, int]:
        """(F, I) sampled pixels per pose and mesh instance, and the samples per frame.

        Poses with NaN (invalid frames) count nothing.
        """
        width = as_intrinsics(intrinsics)[0]
        stride = stride_for(width, FRAME_SAMPLES_ACROSS)
        h, w = self.caster.grid_shape(intrinsics, stride)
        poses = np.asarray(poses, float).reshape(-1, 4, 4)
        valid = np.isfinite(poses).all(axis=(1, 2))
        counts = np.zeros((len(poses), len(self.mesh.instance_ids)), np.int64)
        if valid.any():
            counts[valid] = self.caster.visible_pixel_counts_batch(poses[valid], intrinsics, stride)
        self.rays_cast += int(valid.sum()) * h * w
        self.rays_covered += int(valid.sum()) * h * w
        return counts, h * w

    def target_over_frames(self, poses: np.ndarray, intrinsics, instance_id: str,
                           min_fraction: float) -> tuple[np.ndarray, int]:
        """(F,) sampled pixels showing one instance per pose (NaN poses count nothing), and the samples per frame.

        The same counts as `over_frames(...)[0][:, index]`, for far fewer rays:
        only the sample cells inside the projection of the instance's 3D box
        are cast (no ray outside it can reach the instance), frames where
        the box is out of view are not cast at all, and frames are cast most
        promising first (largest projected box), stopping as soon as one frame
        shows `min_fraction` of its samples: the counts are then exact for the frames cast
        and 0 for the others, which is all a "seen somewhere" question needs.
        """
        i = self.index(instance_id)
        width = as_intrinsics(intrinsics)[0]
        stride = stride_for(width, FRAME_SAMPLES_ACROSS)
        h, w = self.caster.grid_shape(intrinsics, stride)
        poses = np.asarray(poses, float).reshape(-1, 4, 4)
        counts = np.zeros(len(poses), np.int64)
        self._cover(poses, stride, int(np.isfinite(poses).all(axis=(1, 2)).sum()) * h * w)
        box = self._instance_box(i) if i is not None else None
        if box is None:
            return counts, h * w
        rects, behind = self._grid_rects(box, poses, intrinsics, stride, h, w)     # (F, 4) i0, i1, j0, j1
        cells = (rects[:, 1] - rects[:, 0]) * (rects[:, 3] - rects[:, 2])
        # Boxes wholly in front first, largest first: the likeliest views; then those that reach behind.
        order = [f for f in np.lexsort((-cells, behind)).tolist() if cells[f] > 0]
        batch_rays, limit = 0, h * w          # the first cast about a frame's worth, then doubling
        batch: list[int] = []
        for k, f in enumerate(order):
            batch.append(f)
            batch_rays += int(cells[f])
            if batch_rays < limit and k + 1 < len(order):
                continue
            counts[batch] = self.caster.instance_pixel_counts(poses[batch], intrinsics, stride, rects[batch], i)
            self.rays_cast += batch_rays
            batch, batch_rays, limit = [], 0, min(2 * limit, TARGET_BATCH_RAYS)
            if counts.max() / (h * w) >= min_fraction:
                break
        return counts, h * w

    def _cover(self, poses: np.ndarray, stride: int, samples: int) -> None:
        """Count `samples` into rays_covered the first time these cameras are asked about."""
        key = poses.tobytes() + bytes([stride % 256])
        if key not in self._covered:
            self._covered.add(key)
            self.rays_covered += samples

    def _instance_box(self, i: int) -> np.ndarray | None:
        """(2, 3) world AABB of instance i's triangles; None when it has none."""
        if i not in self._boxes:
            tris = self.mesh.triangles[self.mesh.triangle_instance == i]
            if len(tris) == 0:
                self._boxes[i] = None
            else:
                v = self.mesh.vertices[tris.ravel()].astype(np.float64)
                self._boxes[i] = np.stack([v.min(axis=0), v.max(axis=0)])
        return self._boxes[i]

    @staticmethod
    def _grid_rects(box: np.ndarray, poses: np.ndarray, intrinsics, stride: int, h: int, w: int
                    ) -> tuple[np.ndarray, np.ndarray]:
        """(F, 4) int [row0, row1, col0, col1) of the sample cells whose centre ray may meet the box, per pose,
        and (F,) whether the box reaches behind the camera there.

        The box's image is the hull of the projections of its part in front of
        the camera: its corners there and where its edges cross the plane just
        in front of the camera (those project far out, and are clipped to the grid).
        Invalid poses and boxes wholly behind the camera get an empty rectangle.
        """
        _, _, fx, fy, cx, cy = as_intrinsics(intrinsics)
        corners = np.array([[box[a, 0], box[b, 1], box[c, 2]] for a in (0, 1) for b in (0, 1) for c in (0, 1)])
        valid = np.isfinite(poses).all(axis=(1, 2))
        safe = np.where(valid[:, None, None], poses, np.eye(4))
        rot, origin = safe[:, :3, :3], safe[:, :3, 3]
        cam = np.einsum("fji,fkj->fki", rot, corners[None] - origin[:, None, :])     # R^T (X - t): (F, 8, 3)
        near = 1e-6
        p, q = cam[:, _EDGES[:, 0]], cam[:, _EDGES[:, 1]]                             # (F, 12, 3)
        crosses = (p[..., 2] - near) * (q[..., 2] - near) < 0
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (near - p[..., 2]) / (q[..., 2] - p[..., 2])
        cut = p + np.where(crosses, t, 0.0)[..., None] * (q - p)
        cut[..., 2] = near
        points = np.concatenate([cam, cut], axis=1)                                    # (F, 20, 3)
        keep = np.concatenate([cam[..., 2] >= near, crosses], axis=1)
        z = np.where(keep, points[..., 2], 1.0)
        u = np.where(keep, fx * points[..., 0] / z + cx, np.nan)
        v = np.where(keep, fy * points[..., 1] / z + cy, np.nan)
        seen = keep.any(axis=1) & valid
        lim = 4.0 * (w + h) * stride                                                   # beyond the image anyway
        u, v = np.clip(u, -lim, lim), np.clip(v, -lim, lim)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)                            # all-NaN rows: unseen
            # Sample column j looks through u = (j + 0.5) * stride; a pixel's margin covers rounding.
            col0 = np.floor((np.nanmin(u, axis=1) - 1) / stride - 0.5)
            col1 = np.ceil((np.nanmax(u, axis=1) + 1) / stride - 0.5) + 1
            row0 = np.floor((np.nanmin(v, axis=1) - 1) / stride - 0.5)
            row1 = np.ceil((np.nanmax(v, axis=1) + 1) / stride - 0.5) + 1
        rects = np.stack([np.clip(row0, 0, h), np.clip(row1, 0, h), np.clip(col0, 0, w), np.clip(col1, 0, w)], 1)
        rects = np.nan_to_num(rects).astype(np.int64)
        rects[~seen] = 0
        rects[:, 1] = np.maximum(rects[:, 1], rects[:, 0])
        rects[:, 3] = np.maximum(rects[:, 3], rects[:, 2])
        return rects, crosses.any(axis=1)


# The 12 edges of a box whose corners are numbered a*4 + b*2 + c (x, y, z bits).
_EDGES = np.array([(k, k | bit) for bit in (4, 2, 1) for k in range(8) if not k & bit])
# Rays gathered over frames before one cast call in target_over_frames: large enough to keep open3d's
# threads busy, small enough that an early stop wastes little.
TARGET_BATCH_RAYS = 1 << 18
