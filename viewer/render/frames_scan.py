"""Measuring a release's videos for core/frames/: frame counts and rates, and the red box where the
question is visual; run one video a job, here or on an executor (core/executors.py, viewer/cluster.py).

A video that cannot be read (unreadable, truncated, no frames) gives VideoFacts with its problem, one
message per file; the rest proceeds.
"""
from __future__ import annotations

import os
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


def videos_of(release, questions=None) -> dict[str, bool]:
    """Each readable video file the release's questions (or `questions`) name, and whether a visual
    question uses it."""
    out: dict[str, bool] = {}
    for q in release.questions if questions is None else questions:
        v = q.video
        if v is None or not v.path or not v.exists:
            continue
        out[v.path] = out.get(v.path, False) or is_visual(q)
    return out


def release_video_facts(release, executor=None, progress: Callable[[int, int], None] | None = None,
                        questions=None) -> dict[str, VideoFacts]:
    """Facts of every video of the release (or of `questions`), by absolute path; `executor` None runs
    them here in turn."""
    wanted = videos_of(release, questions)
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


@dataclass(frozen=True)
class _Facts:
    """What the sampled indices need of a video: kept so that the scrubber's ticks of the next question of the
    same video do not open it again (off screen, the Model's eye asks for them on every question)."""
    n_frames: int
    fps: float
    width: int
    height: int


_FACTS: dict[tuple, _Facts] = {}


def _stamp(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (path, st.st_size, st.st_mtime_ns)


def _video_facts(path: str) -> _Facts | None:
    stamp = _stamp(path)
    return _FACTS.get(stamp) if stamp is not None else None


def facts_known(path: str) -> bool:
    """Whether `model_sheet(path, ..., images=False)` needs no file opened (the video was measured before):
    then it takes well under a millisecond, and the window computes it at once rather than in a job."""
    return _video_facts(path) is not None


def _remember_facts(path: str, reader) -> None:
    stamp = _stamp(path)
    if stamp is not None:
        if len(_FACTS) > 256:
            _FACTS.clear()
        _FACTS[stamp] = _Facts(reader.n_frames, reader.fps, reader.width, reader.height)


def model_sheet(path: str, policy, find_box: bool, progress=None, max_frames: int = 64,
                logged: tuple[int, ...] | None = None, explicit: tuple[int, ...] | None = None,
                images: bool = True) -> ModelSheet:
    """Decode the sampled frames of `path` under the policy (a FramePolicy or its text; at most `max_frames`
    shown), resized to the model's resolution; with `find_box`, the red box of every frame (cached scan)
    scaled to it. `logged` is the question's list for a `list:` policy, `explicit` the indices a prediction
    record gives (they win over the policy; its resolution still applies), as ModelFrames.for_question
    gives them. PolicyError or VideoError say what is wrong. `images=False`: the sampled indices alone (no
    frame decoded, no box looked for), as the scrubber's ticks need them while the sheet is not on screen."""
    from PIL import Image

    from ..core.frames.sampling import PolicyError, Sampled, parse_policy, sample
    from .redbox import scan_video
    from .video import VideoReader
    if isinstance(policy, str):
        policy = parse_policy(policy)
    vb = scan_video(path, progress) if find_box and images else None
    facts = None if images else _video_facts(path)
    reader = facts or VideoReader(path, cache_frames=2)
    try:
        if explicit is not None:
            bad = [k for k in explicit if not 0 <= k < reader.n_frames]
            if bad:
                raise PolicyError(f"the record's frames {bad[:5]} are outside the video (0..{reader.n_frames - 1})")
            s = Sampled(tuple(sorted(set(explicit))), "the frames its prediction record gives")
        else:
            s = sample(policy, reader.n_frames, reader.fps, logged)
        w, h = reader.width, reader.height
        size = policy.resolution.size_for(w, h) if policy.resolution else (w, h)
        sx, sy = size[0] / w, size[1] / h
        shown = s.indices if len(s.indices) <= max_frames else s.indices[:: -(-len(s.indices) // max_frames)]
        shown = shown if images else ()
        pictures, boxes = [], []
        for i, k in enumerate(shown):
            img = reader.frame(k)
            if size != (w, h):
                img = np.asarray(Image.fromarray(img).resize(size, Image.Resampling.BICUBIC))
            pictures.append(img)
            b = vb.box(k) if vb is not None else None
            boxes.append(None if b is None else (b.x0 * sx, b.y0 * sy, b.x1 * sx, b.y1 * sy))
            if progress:
                progress(i + 1, len(shown))
    finally:
        if facts is None:
            _remember_facts(path, reader)
            reader.close()
    note = s.note
    if images and len(shown) < len(s.indices):
        note = "; ".join(filter(None, [note, f"{len(shown)} of the {len(s.indices)} sampled frames shown"]))
    return ModelSheet(path, policy.text, reader.n_frames, tuple(s.indices), tuple(shown), pictures, boxes, size,
                      vb.frames() if vb is not None else None, note)


def target_rows(release) -> np.ndarray:
    """The questions about an object whose video is there, from the release's columns: the only ones that
    can have a k (a training-set release's 200,000 questions are not built one by one for the rest)."""
    cols = release.benchmark.columns
    about_object = np.array([c.has_target for c in cols] + [False])[release.column]
    about_object[release.missing_video_rows()] = False
    return np.flatnonzero(about_object)


def release_target_k(release, policies, sources: dict[str, str], progress=None) -> dict:
    """Per model (`sources`: name -> its prediction file, whose records' `frames` fields are honoured; the
    name None for the policy of every model), under its policy (core.frames.FramePolicies): per question
    k (sampled frames showing the target; NaN where unknown) and how many frames are sampled (0 where the
    question is about no object, its video cannot be read or the policy gives none). Only the questions
    about an object with a video (`target_rows`) are built, once and not kept by the release; questions on the
    same video about the same target share their target frames. The videos are scanned once, as
    `release_video_facts` does (cached); `progress` may raise to cancel. PolicyError for an unreadable
    `list:` file."""
    from ..core.frames import is_visual, target_seen
    from ..core.scene.model import link_question
    from ..core.scene.sources import SceneLibrary
    frames = {m: policies.model_frames(m, src) for m, src in sources.items()}
    rows = target_rows(release).tolist()
    questions = [release.question_for_now(i) for i in rows]        # for this pass; the release keeps none
    facts = release_video_facts(release, None, progress, questions)
    scenes = SceneLibrary(release.root)
    n = len(release)
    out = {m: (np.full(n, np.nan), np.zeros(n, np.int32)) for m in frames}
    seen: dict = {}
    for i, q in zip(rows, questions):
        vf = facts_of(q, facts)
        if vf is None or vf.problem:
            continue
        key = (q.scene, vf.path, q.target, is_visual(q))
        target = seen.get(key)
        if target is None:
            target = seen[key] = target_seen(q, link_question(q, scenes.get(q.scene)), vf)
        for m, mf in frames.items():
            row = mf.question(q, None, vf, target)
            if row.problem:
                continue
            k, sampled = out[m]
            sampled[i] = len(row.sampled)
            if row.k is not None:
                k[i] = row.k
    return out
