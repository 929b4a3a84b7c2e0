"""What the video scrubber marks: the frames where the target is seen, its best frame, and the current view.

`target_frames(question, geometry)` is the one answer to "which frames show the
target", for every question of a scene alike: the release's scene metadata
(`VideoTrack.instances[target]`: `appear_frames`, `best_frame_idx`), else
ray-cast visibility (`render/target_frames.py`, passed in as `cast` and run off
the GUI thread) when the scene is known; for a visual question, the red box
found in its video comes between (`render/redbox.py`), so a release without 3D
still has its target frames. `nearest_frame` finds the video frame
whose camera is closest to the question's current view.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# A frame counts as showing the target when this share of its sampled pixels does (ray-cast fallback).
SEEN_FRACTION = 0.002


@dataclass(frozen=True)
class TargetFrames:
    frames: tuple[int, ...]                  # sorted frame indices where the target is seen
    best: int | None                         # the frame that shows it best
    source: str                              # "release" (appear_frames), "red box" or "ray cast"

    @property
    def source_text(self) -> str:
        return {"release": "the release's appear_frames"}.get(self.source, self.source)


def _frame_index(v) -> int | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        return None
    return int(v)


def release_target_frames(instances: dict, target: str | None, n_frames: int | None = None) -> TargetFrames | None:
    """The release's `appear_frames` / `best_frame_idx` of `target`; None when it gives neither.

    Frames outside the video (when `n_frames` is known) and values that are not
    frame numbers are dropped rather than drawn at 0.
    """
    rec = (instances or {}).get(target) if target else None
    if not isinstance(rec, dict):
        return None
    raw = rec.get("appear_frames")
    frames = {_frame_index(v) for v in raw} if isinstance(raw, (list, tuple)) else set()
    best = _frame_index(rec.get("best_frame_idx"))
    inside = (lambda k: k is not None and (n_frames is None or k < n_frames))
    frames = {k for k in frames if inside(k)}
    best = best if inside(best) else None
    if not frames and best is None:
        return None
    if best is not None:
        frames.add(best)
    return TargetFrames(tuple(sorted(frames)), best, "release")


def target_frames(question, geometry, cast=None, red_box=None) -> TargetFrames | None:
    """The frames of `question`'s video that show its target, from the first source that knows; None when
    none does (no target, no video, no source).

    `geometry` is the question's `QuestionGeometry` (None, or without a video, when the release has no
    scene metadata). The sources, in order: the release's `appear_frames`; for a question whose target is
    marked in its video (`marked_in_video`), `red_box(path) -> TargetFrames | None`, the red box found in
    the video file (`render.redbox.red_box_target_frames`); `cast(scene, video, target)` ray casting the
    scene (`render.target_frames.ray_cast_target_frames`). The last two are slow, so the window first asks
    without them and runs the call with them as a job (`can_search` says whether that is worth doing).
    """
    target = getattr(question, "target", None)
    video = geometry.video if geometry is not None else None
    found = None
    if target and video is not None:
        found = release_target_frames(video.instances, target, len(video.poses) or None)
    if found is None and red_box is not None and marked_in_video(question):
        path = video_path(question)
        if path:
            found = red_box(path)
    if found is None and cast is not None and target and video is not None and geometry.scene is not None:
        found = cast(geometry.scene, video, target)
    return found


def marked_in_video(question) -> bool:
    """Whether the question's target is drawn in its video as a red box (a visual, not a semantic, one)."""
    c = getattr(question, "column", None)
    return bool(c is not None and c.has_target and not c.semantic)


def video_path(question) -> str | None:
    v = getattr(question, "video", None)
    return v.path if v is not None and v.path and v.exists else None


def can_cast(question, geometry) -> bool:
    """Whether `target_frames(..., cast=...)` may find frames the release does not list."""
    return bool(getattr(question, "target", None)) and geometry is not None and geometry.video is not None \
        and geometry.scene is not None


def can_search(question, geometry) -> bool:
    """Whether the slow sources (red box, ray cast) may find frames the release does not list."""
    return can_cast(question, geometry) or (marked_in_video(question) and video_path(question) is not None)


def frames_from_counts(counts: np.ndarray, samples: int, min_fraction: float = SEEN_FRACTION) -> TargetFrames | None:
    """From per-frame visible sample counts of the target (ray cast): the frames it fills enough of."""
    counts = np.asarray(counts, float)
    if not len(counts) or samples <= 0:
        return None
    seen = np.flatnonzero(counts / samples >= min_fraction)
    if not len(seen):
        return None
    return TargetFrames(tuple(int(k) for k in seen), int(np.argmax(counts)), "ray cast")


def nearest_frame(poses: np.ndarray, view_pose: np.ndarray | None, metres_per_radian: float = 1.0) -> int | None:
    """The video frame whose camera is nearest the current view: position distance plus the turn between the
    viewing directions (1 rad weighs as `metres_per_radian`); None without a view or valid poses."""
    if view_pose is None:
        return None
    poses = np.asarray(poses, float).reshape(-1, 4, 4)
    view = np.asarray(view_pose, float).reshape(4, 4)
    valid = np.isfinite(poses).all(axis=(1, 2))
    if not valid.any() or not np.isfinite(view).all():
        return None
    d = np.linalg.norm(poses[:, :3, 3] - view[:3, 3], axis=1)
    cos = np.clip(np.einsum("ij,j->i", poses[:, :3, 2], view[:3, 2]), -1.0, 1.0)
    cost = np.where(valid, d + metres_per_radian * np.arccos(cos), np.inf)
    return int(np.argmin(cost))
