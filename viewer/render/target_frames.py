"""The frames of a video where a target is seen, by ray casting the scene (the timeline's fallback when the
release gives no `appear_frames`); run off the GUI thread."""
from __future__ import annotations

from ..core.scene.model import Scene, VideoTrack
from ..core.timeline import TargetFrames, frames_from_counts
from .visibility import SceneVisibility


def ray_cast_target_frames(scene: Scene, video: VideoTrack, target: str) -> TargetFrames | None:
    """None when the target is not in the scene's geometry or the video has no intrinsics."""
    if video is None or video.intrinsics is None or not len(video.poses):
        return None
    vis = SceneVisibility(scene, [target])
    i = vis.index(target)
    if i is None:
        return None
    counts, samples = vis.over_frames(video.poses, video.intrinsics)
    return frames_from_counts(counts[:, i], samples)
