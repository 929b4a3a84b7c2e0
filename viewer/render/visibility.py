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

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..core.diagnostics import UserError
from ..core.scene import Scene
from ..core.scene_sources import scene_mesh_file
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

    def index(self, instance_id: str) -> int | None:
        return self._index.get(instance_id)

    def in_view(self, pose, intrinsics, instance_ids: Iterable[str]) -> dict[str, ViewVisibility]:
        """Visibility of each instance from one camera (OpenCV camera-to-world)."""
        width, height = as_intrinsics(intrinsics)[:2]
        stride = stride_for(width, VIEW_SAMPLES_ACROSS)
        imap = self.caster.instance_map(pose, intrinsics, stride)
        self.rays_cast += imap.size
        out = {}
        for iid in instance_ids:
            i = self.index(iid)
            if i is None:
                continue
            count = int(np.count_nonzero(imap == i))
            box = instance_bbox_2d(imap, i)
            if box is not None:     # sample cell -> the full-resolution pixels it stands for
                box = [box[0] * stride, box[1] * stride,
                       min(width, (box[2] + 1) * stride) - 1, min(height, (box[3] + 1) * stride) - 1]
            out[iid] = ViewVisibility(count * stride * stride, count / imap.size, box, imap.size, stride)
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
        return counts, h * w
