"""target_visible_in_query_view, target_unseen_in_video: the promises answered by casting rays.

The current view must not show the target (else the question answers itself),
and some frame of the exploration video must (else it cannot be located).
The rays are cast by the audit's Visibility (viewer.core.audit.visibility).

Without 3D (no scene metadata, or no ray caster), target_unseen_in_video still judges a visual question:
its video has the target drawn as a red box, so some frame must show the box (the audit's image reader
finds it: ImageSource.red_box_frames, render/redbox.py). A semantic question is skipped then, never guessed.
"""
from __future__ import annotations

import numpy as np

from ...scene.model import QuestionGeometry
from ...settings_table import GLOBAL
from ..auditors import SceneAuditor, geometry_problem
from ..registry import SCENE, VISIBILITY, Check
from ..types import OBJECT_COLUMNS, VIEW_TARGET_COLUMNS
from ..visibility import Visibility

# Share of the query image the target must cover to count as visible: a
# handful of pixels at an object's silhouette is rasterisation noise, not a
# view of the object. Above VIEW_ERROR_FRACTION it is unmistakable.
VIEW_MIN_FRACTION = 1e-4
VIEW_ERROR_FRACTION = 1e-3
# Share of a video frame the target must cover in some frame to count as seen.
VIDEO_MIN_FRACTION = 5e-4
# A target on screen this long must fall on a sampled frame.
SEEN_SECONDS = 0.5


def target_visibility(auditor: SceneAuditor, check: Check, g: QuestionGeometry) -> Visibility | None:
    """The scene's ray caster, when it can cast the question's target; else None (the check skipped)."""
    if g.target is None:
        auditor.skip(check, geometry_problem(g, "target", "no target"))
        return None
    vis = auditor.visibility()
    if vis is None:
        auditor.skip(check, auditor.visibility_error)
        return None
    if vis.index(g.target.id) is None:
        auditor.skip(check, f"target {g.target.id} is neither in the mesh nor has a bbox3")
        return None
    return vis


def view_caster(auditor: SceneAuditor, check: Check, g: QuestionGeometry) -> tuple[Visibility, object] | None:
    """The ray caster and the camera of the question's current view; None (the check skipped) without them."""
    if g.viewpoint is None:
        auditor.skip(check, geometry_problem(g, "viewpoint", "no viewpoint"))
        return None
    intrinsics = g.viewpoint.intrinsics or (g.video.intrinsics if g.video else None)
    if intrinsics is None:
        auditor.skip(check, f"viewpoint {g.viewpoint.id} has no intrinsics (nor its video)")
        return None
    vis = target_visibility(auditor, check, g)
    return None if vis is None else (vis, intrinsics)


class TargetVisibleInQueryView(Check):
    def check_question(self, auditor: SceneAuditor, q, g: QuestionGeometry) -> None:
        if getattr(q, "setting", GLOBAL) != GLOBAL:
            auditor.skip(self, "a local variant: its target is meant to be seen (target_visible_in_local_view)")
            return
        cast = view_caster(auditor, self, g)
        if cast is None:
            return
        vis, intrinsics = cast
        seen = auditor.cast(("in_view", g.viewpoint.id, g.target.id),
                            lambda: vis.in_view(g.viewpoint.pose, intrinsics, [g.target.id])).get(g.target.id)
        if seen is None or seen.fraction < VIEW_MIN_FRACTION:
            auditor.passed(self)
            return
        boxes_only = g.target.id in vis.boxed
        severity = "error" if seen.fraction >= VIEW_ERROR_FRACTION and not boxes_only else "warning"
        auditor.flag(self, q, f"target {g.target.id} is visible from the current view {g.viewpoint.id} "
                              f"({seen.pixels} pixels, {seen.fraction:.2%} of the image)",
                     {"viewpoint": g.viewpoint.id, "target": g.target.id, "visible_pixels": seen.pixels,
                      "visible_fraction": seen.fraction, "bbox_2d": seen.bbox, "rays": seen.sampled,
                      "stride": seen.stride, "geometry": "boxes" if boxes_only else "mesh",
                      "min_fraction": VIEW_MIN_FRACTION}, severity)


class TargetUnseenInVideo(Check):
    def check_question(self, auditor: SceneAuditor, q, g: QuestionGeometry) -> None:
        video = g.video
        if video is None:
            auditor.skip(self, geometry_problem(g, "video", "the question names no video"))
            return
        if video.intrinsics is None or not video.valid.any():
            auditor.skip(self, f"video {video.id} has no intrinsics or no valid pose")
            return
        vis = target_visibility(auditor, self, g)
        if vis is None:
            return
        step = max(1, int(np.floor(video.fps * SEEN_SECONDS))) if video.fps else 1
        frames = np.arange(0, len(video.poses), step)
        # Per target, casting only where its box projects and stopping at the first frame that shows it.
        # (A long video's frames are cast in chunks, by jobs of their own: SceneAuditor.target_over_frames.)
        column, per_frame = auditor.target_over_frames(("target_over_frames", video.id, g.target.id),
                                                       video.poses[frames], video.intrinsics, g.target.id,
                                                       VIDEO_MIN_FRACTION)
        best = int(np.argmax(column))
        if column[best] == 0:
            # Never seen: show the frame that looks most directly at it (what hides it there).
            poses = video.poses[frames]
            to_target = g.target.bbox.center - poses[:, :3, 3]
            cos = np.einsum("ij,ij->i", poses[:, :3, 2], to_target) / np.linalg.norm(to_target, axis=1)
            best = int(np.nanargmax(np.where(np.isfinite(cos), cos, -2.0)))
        best_fraction = column[best] / per_frame
        if best_fraction >= VIDEO_MIN_FRACTION:
            auditor.passed(self)
            return
        claimed = len(video.instances.get(g.target.id, {}).get("appear_frames", []) or [])
        note = f"; scene.json claims it appears in {claimed} frames" if claimed else ""
        auditor.flag(self, q, f"target {g.target.id} is visible in none of the {len(frames)} sampled frames "
                              f"of {video.id} (at most {best_fraction:.2%} of a frame){note}",
                     {"video": video.id, "target": g.target.id, "frames_sampled": len(frames), "frame_step": step,
                      "fps": video.fps, "best_frame": int(frames[best]), "best_fraction": best_fraction,
                      "min_fraction": VIDEO_MIN_FRACTION, "claimed_appear_frames": claimed,
                      "geometry": vis.geometry})


    def check_scene(self, auditor: SceneAuditor, questions: list) -> None:
        """The questions check_question could not reach (no scene metadata, or no ray caster): a visual one
        by the red box in its video, a semantic one skipped."""
        if auditor.scene is not None and auditor.has_ray_caster:
            return                          # check_question judged every one
        from ..run import NO_RAY_CASTER, NO_SCENE
        why_not = NO_SCENE if auditor.scene is None else NO_RAY_CASTER
        for q in questions:
            self._by_red_box(auditor, q, why_not)

    def _by_red_box(self, auditor: SceneAuditor, q, why_not: str) -> None:
        column = q.column
        if column is None or column.semantic:
            auditor.skip(self, f"{why_not}; a semantic question's target is not marked in its video")
            return
        images = auditor.images()
        if images is None or q.video is None or not q.video.path or not q.video.exists:
            auditor.skip(self, f"{why_not}; and its video cannot be read for the red box"
                               if images is not None else f"{why_not}; and the audit has no image reader")
            return
        try:
            frames = auditor.memo(("red_box", q.video.path), lambda: images.red_box_frames(q.video.path))
        except (OSError, ValueError) as e:
            auditor.skip(self, f"{why_not}; the video cannot be read for the red box ({e})")
            return
        if frames:
            auditor.passed(self)
            return
        auditor.flag(self, q, f"target {q.target or '?'}: no frame of {q.video.name} shows the red box that "
                              f"marks it (found without 3D, from the video itself)",
                     {"video": q.video.declared, "target": q.target, "method": "red box", "frames_with_box": 0})


NEEDS_RAYS = frozenset({SCENE, VISIBILITY})
TARGET_VISIBLE_IN_QUERY_VIEW = TargetVisibleInQueryView("target_visible_in_query_view", "error",
                                                        "target visible from the current view", VIEW_TARGET_COLUMNS,
                                                        NEEDS_RAYS)
TARGET_UNSEEN_IN_VIDEO = TargetUnseenInVideo("target_unseen_in_video", "error", "target in no frame of the video",
                                             OBJECT_COLUMNS, NEEDS_RAYS)
