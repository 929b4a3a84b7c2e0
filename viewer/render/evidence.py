"""Pictures that show why an audit finding was raised, rendered from the scene.

- target visible from the query view: the view, the target's pixels in red;
- query view near the trajectory: the view beside the nearest video frame;
- target unseen in the video: the frame where it came closest to being
  seen, with the target's box (projected through whatever hides it) outlined.

Findings of other checks carry their evidence as numbers (details).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.diagnostics import UserError
from ..core.geometry import project
from ..core.scene import link_question, load_scene
from .visibility import SceneVisibility

TINT = np.array([235, 30, 30], np.float32)
OUTLINE = np.array([255, 210, 0], np.uint8)
CHECKS_WITH_PICTURES = ("target_visible_in_query_view", "query_near_trajectory", "target_unseen_in_video")


@dataclass
class EvidenceImage:
    caption: str
    rgb: np.ndarray            # (H, W, 3) uint8


def finding_evidence(release_root, question, finding) -> list[EvidenceImage]:
    """Images for one finding about `question`; [] for checks whose evidence is numbers.

    Raises UserError when the scene cannot be rendered.
    """
    if finding.code not in CHECKS_WITH_PICTURES:
        return []
    scene = load_scene(release_root, question.scene)
    if scene is None:
        raise UserError(f"no scene metadata for {question.scene}")
    g = link_question(question, scene)
    vis = SceneVisibility(scene, [question.target] if question.target else [])
    d = finding.details
    if finding.code == "target_visible_in_query_view":
        intr = g.viewpoint.intrinsics or g.video.intrinsics
        view = vis.caster.render_view(g.viewpoint.pose, intr)
        mask = view.instance == vis.index(g.target.id)
        rgb = view.color.astype(np.float32)
        rgb[mask] = 0.35 * rgb[mask] + 0.65 * TINT
        return [EvidenceImage(f"current view {g.viewpoint.id}: {int(mask.sum())} pixels of {g.target.id} (red)",
                              rgb.astype(np.uint8))]
    if finding.code == "query_near_trajectory":
        intr = g.viewpoint.intrinsics or g.video.intrinsics
        k = int(d["nearest_frame"])
        return [EvidenceImage(f"current view {g.viewpoint.id}", vis.caster.render_view(g.viewpoint.pose, intr).color),
                EvidenceImage(f"frame {k} of {g.video.id}: {d['distance_m']:.2f} m, {d['angle_deg']:.0f}° away",
                              vis.caster.render_view(g.video.poses[k], g.video.intrinsics).color)]
    k = int(d["best_frame"])
    frame = vis.caster.render_view(g.video.poses[k], g.video.intrinsics).color.copy()
    outline_box(frame, g.video.poses[k], g.video.intrinsics, g.target.bbox.corners())
    return [EvidenceImage(f"frame {k} of {g.video.id}: where {g.target.id} is (yellow), hidden or out of frame",
                          frame)]


def outline_box(rgb: np.ndarray, pose, intrinsics, corners: np.ndarray, width: int = 2) -> bool:
    """Draw the image rectangle around the projected box corners in front of the camera; False if none."""
    uv, z = project(pose, intrinsics, corners)
    uv = uv[z > 1e-3]
    if not len(uv):
        return False
    h, w = rgb.shape[:2]
    x0, y0 = np.clip(np.floor(uv.min(axis=0)).astype(int), 0, [w - 1, h - 1])
    x1, y1 = np.clip(np.ceil(uv.max(axis=0)).astype(int), 0, [w - 1, h - 1])
    if x1 <= x0 or y1 <= y0:
        return False
    rgb[y0:y0 + width, x0:x1 + 1] = OUTLINE
    rgb[max(y1 - width + 1, 0):y1 + 1, x0:x1 + 1] = OUTLINE
    rgb[y0:y1 + 1, x0:x0 + width] = OUTLINE
    rgb[y0:y1 + 1, max(x1 - width + 1, 0):x1 + 1] = OUTLINE
    return True
