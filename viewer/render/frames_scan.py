"""Measuring a release's videos for core/frames/: frame counts and rates, and the red box where the
question is visual; run one video a job, here or on an executor (core/executors.py, viewer/cluster.py).

A video that cannot be read (unreadable, truncated, no frames) gives VideoFacts with its problem, one
message per file; the rest proceeds.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

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


@dataclass
class ModelSheet:
    """The frames a policy gives a model from one video, at the model's input size, with the red box."""
    path: str
    policy: str
    n_frames: int
    sampled: tuple[int, ...]
    shown: tuple[int, ...]             # the sampled frames drawn (all, or every n-th of very many)
    images: list                       # (h, w, 3) uint8 RGB per shown frame, at `size`
    boxes: list                        # per sampled frame: (x0, y0, x1, y1) at `size`, or None
    size: tuple[int, int]              # the model's input (width, height)
    target: tuple[int, ...] | None     # frames showing the target (red box), None when not looked for
    note: str | None = None

    @property
    def k(self) -> int | None:
        return None if self.target is None else len(set(self.sampled) & set(self.target))


def model_sheet(path: str, policy_text: str, find_box: bool, progress=None, max_frames: int = 64) -> ModelSheet:
    """Decode the sampled frames of `path` under the policy (at most `max_frames` shown), resized to the
    model's resolution; with `find_box`, the red box of every frame (cached scan) scaled to it.
    PolicyError or VideoError say what is wrong."""
    from PIL import Image

    from ..core.frames.sampling import parse_policy, sample
    from .redbox import scan_video
    from .video import VideoReader
    policy = parse_policy(policy_text)
    vb = scan_video(path, progress) if find_box else None
    reader = VideoReader(path, cache_frames=2)
    try:
        s = sample(policy, reader.n_frames, reader.fps)
        w, h = reader.width, reader.height
        size = policy.resolution.size_for(w, h) if policy.resolution else (w, h)
        sx, sy = size[0] / w, size[1] / h
        shown = s.indices if len(s.indices) <= max_frames else s.indices[:: -(-len(s.indices) // max_frames)]
        images, boxes = [], []
        for i, k in enumerate(shown):
            img = reader.frame(k)
            if size != (w, h):
                img = np.asarray(Image.fromarray(img).resize(size, Image.Resampling.BICUBIC))
            images.append(img)
            b = vb.box(k) if vb is not None else None
            boxes.append(None if b is None else (b.x0 * sx, b.y0 * sy, b.x1 * sx, b.y1 * sy))
            if progress:
                progress(i + 1, len(shown))
    finally:
        reader.close()
    note = s.note
    if len(shown) < len(s.indices):
        note = "; ".join(filter(None, [note, f"{len(shown)} of the {len(s.indices)} sampled frames shown"]))
    return ModelSheet(path, policy.text, reader.n_frames, tuple(s.indices), tuple(shown), images, boxes, size,
                      vb.frames() if vb is not None else None, note)


def release_target_k(release, policy_text: str, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """Per question, under one policy: k (sampled frames showing the target; NaN where unknown or no target)
    and how many frames are sampled (0 where the video cannot be read). The videos are scanned as
    `release_video_facts` does (cached); `progress` may raise to cancel. PolicyError for a bad policy."""
    from ..core.frames import question_frames, target_seen
    from ..core.frames.sampling import parse_policy
    from ..core.scene.model import link_question
    from ..core.scene.sources import SceneLibrary
    policy = parse_policy(policy_text)
    facts = release_video_facts(release, None, progress)
    scenes = SceneLibrary(release.root)
    k = np.full(len(release.questions), np.nan)
    sampled = np.zeros(len(release.questions), np.int32)
    for i, q in enumerate(release.questions):
        vf = facts_of(q, facts)
        if vf is None or vf.problem:
            continue
        row = question_frames(q, None, policy, vf, target_seen(q, link_question(q, scenes.get(q.scene)), vf))
        sampled[i] = len(row.sampled)
        if row.k is not None:
            k[i] = row.k
    return k, sampled
