"""Measuring a release's videos for core/frames.py: frame counts and rates, and the red box where the
question is visual; run one video a job, here or on an executor (core/executors.py, viewer/cluster.py).

A video that cannot be read (unreadable, truncated, no frames) gives VideoFacts with its problem, one
message per file; the rest proceeds.
"""
from __future__ import annotations

from collections.abc import Callable

from ..core.frames import VideoFacts, is_visual


def video_facts(path: str, want_boxes: bool) -> VideoFacts:
    """One video's facts; with `want_boxes`, the red box of every frame (cached, render/redbox.py)."""
    from .redbox import scan_video, variable_rate
    from .video import VideoError, VideoReader
    try:
        if want_boxes:
            vb = scan_video(path)
            return VideoFacts(path, vb.n_frames, vb.fps, vb.width, vb.height, vb.variable_rate, vb.frames(), vb.boxes)
        r = VideoReader(path, cache_frames=1)
        try:
            return VideoFacts(path, r.n_frames, r.fps, r.width, r.height, variable_rate(r.times))
        finally:
            r.close()
    except VideoError as e:
        return VideoFacts(path, problem=str(e))


def videos_of(release) -> dict[str, bool]:
    """Each readable video file the release's questions name, and whether a visual question uses it."""
    out: dict[str, bool] = {}
    for q in release.questions:
        v = q.video
        if v is None or not v.path or not v.exists:
            continue
        out[v.path] = out.get(v.path, False) or is_visual(q)
    return out


def release_video_facts(release, executor=None, progress: Callable[[int, int], None] | None = None
                        ) -> dict[str, VideoFacts]:
    """Facts of every video of the release, by absolute path; `executor` None runs them here in turn."""
    wanted = videos_of(release)
    paths = sorted(wanted)
    jobs = [(p, wanted[p]) for p in paths]
    out: dict[str, VideoFacts] = {}
    if executor is None:
        results = ((p, video_facts(*job)) for p, job in zip(paths, jobs))
    else:
        results = executor.map_unordered(video_facts, jobs, paths)
    for done, (p, facts) in enumerate(results, 1):
        out[p] = facts
        if progress:
            progress(done, len(paths))
    return out


def facts_of(question, facts: dict[str, VideoFacts]) -> VideoFacts | None:
    """The facts of a question's video; a missing file is a problem named by its declared path."""
    v = question.video
    if v is None:
        return None
    if not v.path or not v.exists:
        return VideoFacts(v.declared, problem=f"{v.declared}: {v.problem or 'file not found'}")
    return facts.get(v.path)
