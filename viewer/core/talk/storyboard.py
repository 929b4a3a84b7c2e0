"""The order in which a question is revealed, and what each moment shows (no Qt).

A talk walks through four stages: the question, the exploration video, the
models' answers, the truth. Clips open on a title card (the task, the
models), play the video (slowing down and holding where the target is best
seen) and then reveal the question's viewpoint, the answers and the truth. Both draw each moment with
the same painter; what may be drawn at a stage is decided here, because
some overlays *are* the answer: the current viewpoint is the answer of
Pos/Ori, the target's box the answer of the object tasks.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..column import Column, Columns

QUESTION, VIDEO, ANSWER, TRUTH = "question", "video", "answer", "truth"
TITLE = "title"                                      # a clip's title card: the task and the models
TALK_STAGES = (QUESTION, VIDEO, ANSWER, TRUTH)       # presentation mode, arrow keys
CLIP_STAGES = (TITLE, VIDEO, QUESTION, ANSWER, TRUTH)  # exported clips end on the reveal
STAGE_TITLES = {TITLE: "", QUESTION: "The question", VIDEO: "The exploration video",
                ANSWER: "The models' answers", TRUTH: "The ground truth"}

# Tasks whose answer is where the current view stands / looks.
_SELF_TASKS = Columns(has_view=True, has_target=False)


@dataclass(frozen=True)
class Layers:
    """What the map (or option grid) shows at one moment."""
    trajectory: bool = True      # the video's camera path
    path_until: int | None = None  # draw the path only up to this frame (video playing)
    marker: int | None = None    # the video camera of this frame
    viewpoint: bool = True       # the current view's position and field of view
    target: bool = True          # the target's footprint
    answers: bool = True         # models' answers
    truth: bool = True           # ground truth and its tolerance bands

    def visible(self) -> frozenset[str]:
        """The primitive layers (`primitives.L_*`) these flags show."""
        flags = {"trajectory": self.trajectory, "viewpoint": self.viewpoint, "target": self.target,
                 "answers": self.answers, "truth": self.truth}
        return frozenset(name for name, on in flags.items() if on)


EVERYTHING = Layers()


def layers_at(column: Column | None, stage: str, frame: int | None = None) -> Layers:
    """What may be shown at `stage` without giving the answer away before TRUTH."""
    if stage not in TALK_STAGES:
        raise ValueError(f"unknown stage {stage!r}; expected one of {TALK_STAGES}")
    self_task = _SELF_TASKS.matches(column)
    kind = column.kind if column is not None else None
    # The target's box gives away every object task's answer; the viewpoint Pos/Ori's.
    viewpoint = stage == TRUTH or (not self_task and stage in (QUESTION, ANSWER))
    target = stage == TRUTH
    if stage == VIDEO:
        return Layers(trajectory=True, path_until=frame, marker=frame, viewpoint=False,
                      target=False, answers=False, truth=False)
    return Layers(trajectory=stage != QUESTION or (kind is not None and kind.path_gives_nothing_away),
                  marker=None, viewpoint=viewpoint, target=target,
                  answers=stage in (ANSWER, TRUTH), truth=stage == TRUTH)


@dataclass(frozen=True)
class ClipFrame:
    stage: str
    video_frame: int | None      # frame of the exploration video shown (VIDEO), else None
    time: float                  # seconds into the clip
    target_box: bool = False     # the target's best frame, held, with its box drawn


@dataclass(frozen=True)
class ClipFocus:
    """Where the question's target is in the video: its best frame and the frames it is in view."""
    best: int
    seen: tuple[int, ...] = ()

    def around_best(self, max_gap: int = 3) -> tuple[int, int]:
        """The run of in-view frames containing the best one (gaps up to `max_gap` bridged)."""
        seen = sorted(set(self.seen) | {self.best})
        i = seen.index(self.best)
        lo = hi = i
        while lo > 0 and seen[lo] - seen[lo - 1] <= max_gap:
            lo -= 1
        while hi < len(seen) - 1 and seen[hi + 1] - seen[hi] <= max_gap:
            hi += 1
        return seen[lo], seen[hi]


TITLE_SECONDS = 1.2              # the title card: task and models
HOLD_SECONDS = 1.5               # the target's best frame at least this long...
HOLD_SHARE = 0.2                 # ...and at least this share of the clip
READABLE_SPEED = 2.0             # around the target the video plays at most this fast (x real time)
APPROACH_SECONDS = 1.5           # of the video before and after the best frame, at readable speed


def _spread(first: int, last: int, count: int) -> list[int]:
    """`count` frame numbers from `first` to `last`, evenly, in order (empty when count <= 0)."""
    if count <= 0:
        return []
    if count == 1 or last <= first:
        return [first] * count if last <= first else [first]
    return [int(round(first + k * (last - first) / (count - 1))) for k in range(count)]


def _video_frames(n_out: int, n_video: int, video_fps: float, fps: float,
                  focus: ClipFocus | None, seconds: float) -> list[tuple[int, bool]]:
    """(video frame, target box held) for `n_out` clip frames of the exploration part.

    Without a focus the whole video is time-lapsed evenly. With one, the clip
    slows to a readable speed around the target's appearance, holds its best
    frame, and time-lapses the rest, so the camera still travels the whole path.
    """
    if focus is None or not 0 <= focus.best < n_video or n_out < 4:
        return [(f, False) for f in _spread(0, n_video - 1, n_out)]
    best = focus.best
    hold = min(n_out // 2, max(int(round(HOLD_SECONDS * fps)), int(round(HOLD_SHARE * seconds * fps))))
    lo, hi = focus.around_best()
    reach = int(round(APPROACH_SECONDS * READABLE_SPEED * video_fps))   # video frames each side, at most
    lo, hi = max(lo, best - reach), min(hi, best + reach)
    # Clip frames for the slow parts: the video frames they cover at READABLE_SPEED, within what is left.
    per_video_frame = fps / (READABLE_SPEED * video_fps)
    left = n_out - hold
    slow_before = min(int(round((best - lo) * per_video_frame)), left // 3)
    slow_after = min(int(round((hi - best) * per_video_frame)), left // 3)
    fast = left - slow_before - slow_after
    # Fast parts share what remains in proportion to the video they cover.
    n_pre, n_post = lo, n_video - 1 - hi
    fast_pre = int(round(fast * n_pre / max(n_pre + n_post, 1))) if n_pre + n_post else 0
    fast_post = fast - fast_pre
    if n_pre == 0:
        fast_pre, fast_post = 0, fast
    if n_post == 0:
        fast_pre, fast_post = fast, 0
    if n_pre and not fast_pre and fast_post > 1:       # start where the video starts
        fast_pre, fast_post = 1, fast_post - 1
    out = [(f, False) for f in _spread(0, max(lo - 1, 0), fast_pre)]
    out += [(f, False) for f in _spread(lo, best, slow_before + 1)[:-1]] if slow_before else []
    out += [(best, True)] * hold
    out += [(f, False) for f in _spread(best, hi, slow_after + 1)[1:]] if slow_after else []
    out += [(f, False) for f in _spread(min(hi + 1, n_video - 1), n_video - 1, fast_post)]
    return out


def plan_clip(seconds: float, fps: float, n_video_frames: int, reveal_share: float = 0.35,
              stages: tuple[str, ...] = CLIP_STAGES, video_fps: float = 10.0,
              focus: ClipFocus | None = None) -> list[ClipFrame]:
    """round(seconds * fps) frames: the title card, the video, then the reveal stages.

    The title card takes TITLE_SECONDS (less in a short clip); the reveal
    stages share `reveal_share` of the clip equally (at least one frame
    each); the video plays in the rest (`_video_frames`: around the target
    when `focus` is given). Without a video the other stages take the clip.
    """
    if not (seconds > 0 and fps > 0):
        raise ValueError("seconds and fps must be positive")
    stages = tuple(s for s in stages if n_video_frames > 0 or s != VIDEO)
    total = max(int(round(seconds * fps)), len(stages))
    reveal = [s for s in stages if s not in (VIDEO, TITLE)]
    n_title = 0
    if TITLE in stages:
        n_title = max(1, min(int(round(TITLE_SECONDS * fps)), int(total * 0.12)))
    n_reveal = max(len(reveal), int(round(total * reveal_share)))
    if VIDEO not in stages:
        n_reveal = total - n_title
    n_video = total - n_title - n_reveal
    if VIDEO in stages and n_video < 1:
        n_title, n_video = max(0, n_title + n_video - 1), 1
        n_reveal = total - n_title - n_video
    per = [n_reveal // len(reveal) + (1 if k < n_reveal % len(reveal) else 0) for k in range(len(reveal))]
    out: list[ClipFrame] = []
    k_reveal = 0
    for stage in stages:
        if stage == TITLE:
            out += [ClipFrame(TITLE, None, (len(out) + j) / fps) for j in range(n_title)]
        elif stage == VIDEO:
            for f, held in _video_frames(n_video, n_video_frames, video_fps, fps, focus, seconds):
                out.append(ClipFrame(VIDEO, f, len(out) / fps, held))
        else:
            out += [ClipFrame(stage, None, (len(out) + j) / fps) for j in range(per[k_reveal])]
            k_reveal += 1
    return out


def strip_frames(n_frames: int, count: int, best: int | None = None) -> list[int]:
    """`count` frames spread over the video, the target's best frame among them when known."""
    if n_frames <= 0 or count <= 0:
        return []
    count = min(count, n_frames)
    picks = [round(i * (n_frames - 1) / max(count - 1, 1)) for i in range(count)] if count > 1 else [0]
    if best is not None and 0 <= best < n_frames and best not in picks:
        nearest = min(range(len(picks)), key=lambda i: abs(picks[i] - best))
        picks[nearest] = best
    return sorted(set(picks))


def best_frame(video_instances: dict, target: str | None) -> tuple[int | None, list[float] | None]:
    """(best_frame_idx, best_bbox) of the target in a video track's instances, if recorded."""
    if not target:
        return None, None
    rec = video_instances.get(target) or {}
    k, box = rec.get("best_frame_idx"), rec.get("best_bbox")
    k = k if isinstance(k, int) and not isinstance(k, bool) else None
    ok_box = isinstance(box, list) and len(box) == 4 and all(isinstance(v, (int, float)) for v in box)
    return k, [float(v) for v in box] if ok_box else None
