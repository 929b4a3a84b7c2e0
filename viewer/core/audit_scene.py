"""The audit checks that need a scene's 3D metadata, for the questions of one scene.

Runs in a worker process for large releases, so it takes plain arguments
(the release folder, the scene id, its questions) and returns a picklable
SceneAudit. Ray casting is the render layer's (imported only when a
visibility check actually runs).
"""
from __future__ import annotations

import numpy as np

from . import geometry as geo
from .audit import CHECK_BY_ID, Finding, SceneAudit, Tally, json_safe
from .diagnostics import UserError
from .scene import QuestionGeometry, Scene, link_question, load_scene

ANGLE_TOLERANCE = 5.0            # degrees
DISTANCE_TOLERANCE = 0.15        # metres, or DISTANCE_RELATIVE of the distance if larger
DISTANCE_RELATIVE = 0.05
POINT_TOLERANCE = 15.0           # normalised map units
NEAR_DISTANCE = 0.3              # metres
NEAR_ANGLE = 30.0                # degrees between the optical axes
# Share of the query image the target must cover to count as visible: a
# handful of pixels at an object's silhouette is rasterisation noise, not a
# view of the object. Above VIEW_ERROR_FRACTION it is unmistakable.
VIEW_MIN_FRACTION = 1e-4
VIEW_ERROR_FRACTION = 1e-3
# Share of a video frame the target must cover in some frame to count as seen.
VIDEO_MIN_FRACTION = 5e-4
# A target on screen this long must fall on a sampled frame.
SEEN_SECONDS = 0.5


def audit_scene(root: str, scene_id: str, questions: list, checks: set[str]) -> SceneAudit:
    scene = load_scene(root, scene_id)
    tally = Tally([c for c in CHECK_BY_ID if c in checks])
    auditor = _SceneAuditor(scene, scene_id, questions, checks, tally)
    for q in questions:
        auditor.audit(q)
    problems = [str(d) for d in scene.diagnostics] if scene is not None else []
    if auditor._visibility is not None and auditor._visibility.note:
        problems.append(f"warning: {auditor._visibility.note}")
    return SceneAudit(auditor.findings, tally, auditor.angles, problems, auditor.rays_cast)


class _SceneAuditor:
    def __init__(self, scene: Scene | None, scene_id: str, questions: list, checks: set[str], tally: Tally):
        self.scene, self.scene_id, self.checks, self.tally = scene, scene_id, checks, tally
        self.findings: list[Finding] = []
        self.angles: list = []
        self.targets = {q.target for q in questions if q.target}
        self._visibility = None
        self._visibility_error: str | None = None
        self._views: dict[str, dict] = {}
        self._videos: dict[str, tuple] = {}

    @property
    def rays_cast(self) -> int:
        return self._visibility.rays_cast if self._visibility is not None else 0

    def add(self, q, check: str, message: str, details: dict, severity: str | None = None) -> None:
        self.tally.flag(check)
        self.findings.append(Finding(q.uid, check, severity or CHECK_BY_ID[check].severity, message,
                                     json_safe(details)))

    def audit(self, q) -> None:
        key = q.column.key if q.column else None
        # gt_angle_convention is judged release-wide, from the evidence gathered here.
        applicable = [c for c in CHECK_BY_ID if c in self.checks and key in CHECK_BY_ID[c].columns
                      and c != "gt_angle_convention"]
        if not applicable:
            return
        if self.scene is None:
            for c in applicable:
                self.tally.skip(c, "no scene metadata (scenes/<scene>/scene.json)")
            return
        g = link_question(q, self.scene)
        for c in applicable:
            getattr(self, "_" + c)(q, key, g)

    # ------------------------------------------------------------ ground truth
    def _recomputed(self, q, check: str, g: QuestionGeometry):
        if not q.truth.ok:
            self.tally.skip(check, "the stored answer is invalid (see invalid_answer)")
            return None
        r = geo.recompute_ground_truth(q, g)
        if r.value is None:
            self.tally.skip(check, r.reason)
            return None
        return r

    def _gt_direction_mismatch(self, q, key, g) -> None:
        r = self._recomputed(q, "gt_direction_mismatch", g)
        if r is None:
            return
        stored = float(q.truth.value)
        if "gt_angle_convention" in self.checks:
            from .conventions import angle_evidence
            self.angles.append(angle_evidence(q, key, g, stored))
        diff = abs(_wrap(stored - r.exact))
        if diff <= ANGLE_TOLERANCE:
            self.tally.passed("gt_direction_mismatch")
            return
        what = "heading on the map" if key == "Ori" else "direction"
        self.add(q, "gt_direction_mismatch",
                 f"stored {what} {stored:g}° but the geometry gives {r.exact:.0f}° ({diff:.0f}° apart)",
                 {"stored": stored, "recomputed": r.exact, "difference_deg": diff,
                  "tolerance_deg": ANGLE_TOLERANCE, "viewpoint": q.viewpoint, "target": q.target})

    def _gt_distance_mismatch(self, q, key, g) -> None:
        r = self._recomputed(q, "gt_distance_mismatch", g)
        if r is None:
            return
        stored = float(q.truth.value)
        tol = max(DISTANCE_TOLERANCE, DISTANCE_RELATIVE * r.exact)
        diff = abs(stored - r.exact)
        if diff <= tol:
            self.tally.passed("gt_distance_mismatch")
            return
        self.add(q, "gt_distance_mismatch",
                 f"stored distance {stored:g} m but the geometry gives {r.exact:.2f} m ({diff:.2f} m apart)",
                 {"stored": stored, "recomputed": r.exact, "difference_m": diff, "tolerance_m": tol,
                  "viewpoint": q.viewpoint, "target": q.target})

    def _gt_point_mismatch(self, q, key, g) -> None:
        r = self._recomputed(q, "gt_point_mismatch", g)
        if r is None:
            return
        stored = np.asarray(q.truth.value, float)
        diff = float(np.hypot(*(stored - np.asarray(r.value, float))))
        if diff <= POINT_TOLERANCE:
            self.tally.passed("gt_point_mismatch")
            return
        what = "target's map point" if key in ("GP_v", "GP_s") else "map position of the current view"
        self.add(q, "gt_point_mismatch",
                 f"stored {what} ({stored[0]:g}, {stored[1]:g}) but the geometry gives "
                 f"({r.value[0]}, {r.value[1]}) ({diff:.0f} units apart)",
                 {"stored": stored, "recomputed": list(r.value), "distance": diff,
                  "tolerance": POINT_TOLERANCE, "target": q.target, "viewpoint": q.viewpoint,
                  "topdown": g.topdown.name if g.topdown else None})

    # ------------------------------------------------------------ promises
    def _ambiguous_semantic_target(self, q, key, g) -> None:
        check = "ambiguous_semantic_target"
        if g.target is None:
            self.tally.skip(check, _first(g.problems, "target") or "no target")
            return
        category = (g.target.semantic or "").strip().lower()
        if not category:
            self.tally.skip(check, "the target has no semantic category")
            return
        same = sorted(iid for iid, inst in self.scene.instances.items()
                      if (inst.semantic or "").strip().lower() == category)
        if len(same) <= 1:
            self.tally.passed(check)
            return
        others = [i for i in same if i != g.target.id]
        shown = ", ".join(others[:4]) + (" ..." if len(others) > 4 else "")
        self.add(q, check, f"{len(same)} instances of {category!r} in {self.scene.id}: "
                           f"{g.target.id} and {shown}",
                 {"category": category, "count": len(same), "instances": same[:20], "target": g.target.id})

    def _query_near_trajectory(self, q, key, g) -> None:
        check = "query_near_trajectory"
        if g.viewpoint is None:
            self.tally.skip(check, _first(g.problems, "viewpoint") or "no viewpoint")
            return
        if g.video is None:
            self.tally.skip(check, _first(g.problems, "video") or "the question names no video")
            return
        poses = g.video.poses
        valid = np.flatnonzero(g.video.valid)
        if len(valid) == 0:
            self.tally.skip(check, f"video {g.video.id} has no valid camera pose")
            return
        centres = poses[valid, :3, 3]
        axes = poses[valid, :3, 2]
        dist = np.linalg.norm(centres - g.viewpoint.pose[:3, 3], axis=1)
        cos = np.clip(axes @ g.viewpoint.pose[:3, 2], -1.0, 1.0)
        angle = np.degrees(np.arccos(cos))
        near = (dist <= NEAR_DISTANCE) & (angle <= NEAR_ANGLE)
        if not near.any():
            self.tally.passed(check)
            return
        k = np.flatnonzero(near)[np.argmin(dist[near])]
        self.add(q, check, f"current view {g.viewpoint.id} is {dist[k]:.2f} m and {angle[k]:.0f}° from "
                           f"frame {valid[k]} of {g.video.id}",
                 {"viewpoint": g.viewpoint.id, "video": g.video.id, "nearest_frame": int(valid[k]),
                  "distance_m": dist[k], "angle_deg": angle[k], "frames_within": int(near.sum()),
                  "max_distance_m": NEAR_DISTANCE, "max_angle_deg": NEAR_ANGLE})

    # ------------------------------------------------------------ ray casting
    def visibility(self):
        """The scene's ray caster, built on first use; None (reason kept) when it cannot be."""
        if self._visibility is None and self._visibility_error is None:
            try:
                from ..render.visibility import SceneVisibility
                self._visibility = SceneVisibility(self.scene, sorted(self.targets))
            except UserError as e:
                self._visibility_error = str(e)
        return self._visibility

    def _target_index(self, check: str, g: QuestionGeometry):
        if g.target is None:
            self.tally.skip(check, _first(g.problems, "target") or "no target")
            return None
        vis = self.visibility()
        if vis is None:
            self.tally.skip(check, self._visibility_error)
            return None
        if vis.index(g.target.id) is None:
            self.tally.skip(check, f"target {g.target.id} is neither in the mesh nor has a bbox3")
            return None
        return vis

    def _target_visible_in_query_view(self, q, key, g) -> None:
        check = "target_visible_in_query_view"
        if g.viewpoint is None:
            self.tally.skip(check, _first(g.problems, "viewpoint") or "no viewpoint")
            return
        intrinsics = g.viewpoint.intrinsics or (g.video.intrinsics if g.video else None)
        if intrinsics is None:
            self.tally.skip(check, f"viewpoint {g.viewpoint.id} has no intrinsics (nor its video)")
            return
        vis = self._target_index(check, g)
        if vis is None:
            return
        if g.viewpoint.id not in self._views:
            self._views[g.viewpoint.id] = vis.in_view(g.viewpoint.pose, intrinsics, sorted(self.targets))
        seen = self._views[g.viewpoint.id].get(g.target.id)
        if seen is None or seen.fraction < VIEW_MIN_FRACTION:
            self.tally.passed(check)
            return
        boxes_only = g.target.id in vis.boxed
        severity = "error" if seen.fraction >= VIEW_ERROR_FRACTION and not boxes_only else "warning"
        self.add(q, check, f"target {g.target.id} is visible from the current view {g.viewpoint.id} "
                           f"({seen.pixels} pixels, {seen.fraction:.2%} of the image)",
                 {"viewpoint": g.viewpoint.id, "target": g.target.id, "visible_pixels": seen.pixels,
                  "visible_fraction": seen.fraction, "bbox_2d": seen.bbox, "rays": seen.sampled,
                  "stride": seen.stride, "geometry": "boxes" if boxes_only else "mesh",
                  "min_fraction": VIEW_MIN_FRACTION}, severity)

    def _target_unseen_in_video(self, q, key, g) -> None:
        check = "target_unseen_in_video"
        video = g.video
        if video is None:
            self.tally.skip(check, _first(g.problems, "video") or "the question names no video")
            return
        if video.intrinsics is None or not video.valid.any():
            self.tally.skip(check, f"video {video.id} has no intrinsics or no valid pose")
            return
        vis = self._target_index(check, g)
        if vis is None:
            return
        if video.id not in self._videos:
            step = max(1, int(np.floor(video.fps * SEEN_SECONDS))) if video.fps else 1
            frames = np.arange(0, len(video.poses), step)
            counts, per_frame = vis.over_frames(video.poses[frames], video.intrinsics)
            self._videos[video.id] = (frames, counts, per_frame, step)
        frames, counts, per_frame, step = self._videos[video.id]
        column = counts[:, vis.index(g.target.id)]
        best = int(np.argmax(column))
        if column[best] == 0:
            # Never seen: show the frame that looks most directly at it (what hides it there).
            poses = video.poses[frames]
            to_target = g.target.bbox.center - poses[:, :3, 3]
            cos = np.einsum("ij,ij->i", poses[:, :3, 2], to_target) / np.linalg.norm(to_target, axis=1)
            best = int(np.nanargmax(np.where(np.isfinite(cos), cos, -2.0)))
        best_fraction = column[best] / per_frame
        if best_fraction >= VIDEO_MIN_FRACTION:
            self.tally.passed(check)
            return
        claimed = len(video.instances.get(g.target.id, {}).get("appear_frames", []) or [])
        note = f"; scene.json claims it appears in {claimed} frames" if claimed else ""
        self.add(q, check, f"target {g.target.id} is visible in none of the {len(frames)} sampled frames "
                           f"of {video.id} (at most {best_fraction:.2%} of a frame){note}",
                 {"video": video.id, "target": g.target.id, "frames_sampled": len(frames), "frame_step": step,
                  "fps": video.fps, "best_frame": int(frames[best]), "best_fraction": best_fraction,
                  "min_fraction": VIDEO_MIN_FRACTION, "claimed_appear_frames": claimed,
                  "geometry": vis.geometry})


def _wrap(a: float) -> float:
    return (a + 180.0) % 360.0 - 180.0


def _first(problems: list[str], word: str) -> str | None:
    return next((p for p in problems if word in p), None)
