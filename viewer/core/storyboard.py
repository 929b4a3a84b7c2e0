"""The order in which a question is revealed, and what each moment shows (no Qt).

A talk walks through four stages: the question, the exploration video, the
models' answers, the truth. Clips play the video first and then reveal the
question's viewpoint, the answers and the truth. Both draw each moment with
the same painter; what may be drawn at a stage is decided here, because
some overlays *are* the answer: the current viewpoint is the answer of
Pos/Ori, the target's box the answer of the object tasks.
"""
from __future__ import annotations

from dataclasses import dataclass

from .kinds import AnswerKind
from .tasks import column_keys

QUESTION, VIDEO, ANSWER, TRUTH = "question", "video", "answer", "truth"
TALK_STAGES = (QUESTION, VIDEO, ANSWER, TRUTH)       # presentation mode, arrow keys
CLIP_STAGES = (VIDEO, QUESTION, ANSWER, TRUTH)       # exported clips end on the reveal
STAGE_TITLES = {QUESTION: "The question", VIDEO: "The exploration video",
                ANSWER: "The models' answers", TRUTH: "The ground truth"}

# Tasks whose answer is where the current view stands / looks.
_SELF_KEYS = column_keys(has_view=True, has_target=False)


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


def layers_at(key: str | None, kind: AnswerKind | None, stage: str,
              frame: int | None = None) -> Layers:
    """What may be shown at `stage` without giving the answer away before TRUTH."""
    if stage not in TALK_STAGES:
        raise ValueError(f"unknown stage {stage!r}; expected one of {TALK_STAGES}")
    self_task = key in _SELF_KEYS
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


def plan_clip(seconds: float, fps: float, n_video_frames: int, reveal_share: float = 0.4,
              stages: tuple[str, ...] = CLIP_STAGES) -> list[ClipFrame]:
    """round(seconds * fps) frames: the video (time-lapsed to fit), then the other stages.

    The reveal stages share `reveal_share` of the clip equally (at least one
    frame each); the video plays in the rest, every video frame mapped in
    order. Without a video the reveal takes the whole clip.
    """
    if not (seconds > 0 and fps > 0):
        raise ValueError("seconds and fps must be positive")
    total = max(int(round(seconds * fps)), len(stages))
    reveal = [s for s in stages if s != VIDEO]
    n_reveal = total if n_video_frames <= 0 else min(total - 1, max(len(reveal),
                                                                     int(round(total * reveal_share))))
    n_video = total - n_reveal
    per = [n_reveal // len(reveal) + (1 if k < n_reveal % len(reveal) else 0) for k in range(len(reveal))]
    out: list[ClipFrame] = []
    k_reveal = 0
    for stage in stages:
        if stage == VIDEO:
            for k in range(n_video):
                f = 0 if n_video == 1 else round(k * (n_video_frames - 1) / (n_video - 1))
                out.append(ClipFrame(VIDEO, int(f), len(out) / fps))
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
