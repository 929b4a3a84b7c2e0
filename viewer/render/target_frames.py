"""The frames of a video where a target is seen when the release gives no `appear_frames`: the red box found
in a visual question's video (render/redbox.py), else by ray casting the scene; run off the GUI thread."""
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


def find_target_frames(question, geometry, progress=None) -> TargetFrames | None:
    """core.timeline.target_frames with its slow sources: the red box in the video (scanned once per file and
    cached; `progress(done, total)` as it goes, which may raise to cancel), then ray casting a known scene."""
    from ..core.timeline import can_cast, target_frames
    from .redbox import red_box_target_frames
    cast = ray_cast_target_frames if can_cast(question, geometry) else None
    return target_frames(question, geometry, cast, lambda path: red_box_target_frames(path, progress))
