"""Per question and model: its sampled frames, the frames that show the target, and k.

Per question and model: the video's frame count, the indices the model's policy samples
(core/frames/sampling.py), the frames where the target is seen and how they were found, k = how many sampled
frames show it (0: the model never saw it), and the target's box at the model's input resolution.

Which frames show the target is core.timeline.target_frames, the window's lookup too: the release's
scene metadata (`appear_frames`): "metadata"; else, for a visual question, the red box drawn in its video
(render/redbox.py, found beforehand: `VideoFacts.box_frames`): "red box"; otherwise unknown, never
guessed (the window also ray casts a known scene). Where the red box and the metadata both exist, their
agreement (share of frames where they say the same) is reported.

Pure: the video facts (frame count, rate, red boxes) are measured by render/ and passed in.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .sampling import FrameLists, FramePolicy, PolicyError, parse_policy, sample

RED_BOX, METADATA, RAY_CAST, UNKNOWN = "red box", "metadata", "ray cast", "unknown"
NO_TARGET = "no target"             # a question about no object (self-localisation, maps, trajectories)

TARGET_SAMPLED, TARGET_NEVER_SAMPLED, TARGET_UNKNOWN = "target sampled", "target never sampled", "target unknown"


@dataclass(frozen=True)
class VideoFacts:
    """What was measured about one video file (by render/frames_scan.py)."""
    path: str
    n_frames: int = 0
    fps: float = 0.0
    width: int = 0
    height: int = 0
    variable_rate: bool = False
    box_frames: tuple[int, ...] | None = None      # frames with the red box; None when not looked for
    boxes: np.ndarray | None = None                 # (n, 4) x0, y0, x1, y1 per frame, -1 where absent
    problem: str | None = None                      # unreadable, truncated, no frames: the message


@dataclass(frozen=True)
class TargetSeen:
    """(Not core/timeline.TargetFrames, the scrubber's marks: this one also says how the frames were found.)"""
    frames: tuple[int, ...]
    source: str                                     # RED_BOX, METADATA, RAY_CAST or UNKNOWN
    agreement: float | None = None                  # red box vs metadata, share of frames agreeing
    cast_agreement: float | None = None             # ray cast vs metadata (frames --ray-cast)


def is_visual(question) -> bool:
    """A question whose target is marked in its video (a red box), not named by its category."""
    c = question.column
    return bool(c is not None and c.has_target and not c.semantic)


def has_target(question) -> bool:
    c = question.column
    return bool(c is not None and c.has_target)


def target_seen(question, geometry, facts: VideoFacts | None, cast=None) -> TargetSeen:
    """The frames of the question's video that show its target and how that is known: the one lookup,
    core.timeline.target_frames (metadata, then the red box already found in `facts`, then `cast`, ray
    casting the scene); and, where the metadata and the red box (or the ray cast) both know, the share of
    frames on which they agree."""
    from ..timeline import TargetFrames, release_target_frames, target_frames
    if not has_target(question):
        return TargetSeen((), NO_TARGET)
    boxed = facts.box_frames if (facts is not None and is_visual(question) and not facts.problem) else None
    red_box = (lambda _path: TargetFrames(tuple(boxed), None, RED_BOX) if boxed else None) if boxed is not None \
        else None
    found = target_frames(question, geometry, cast, red_box)
    if found is None:
        return TargetSeen((), UNKNOWN)
    source = METADATA if found.source == "release" else found.source
    agreement = cast_agreement = None
    video = geometry.video if geometry is not None else None
    listed = release_target_frames(video.instances, question.target, len(video.poses) or None) \
        if video is not None and question.target else None
    if listed is not None:
        n = facts.n_frames if facts is not None and facts.n_frames else len(video.poses)
        if boxed is not None:
            agreement = _agreement(boxed, listed.frames, n)
        if cast is not None and geometry.scene is not None:
            cast_found = cast(geometry.scene, video, question.target)
            cast_agreement = _agreement(cast_found.frames if cast_found else (), listed.frames, n)
    return TargetSeen(found.frames, source, agreement, cast_agreement)


def _agreement(a_frames, b_frames, n: int) -> float | None:
    """The share of the n frames on which two sets of frames agree (both show, or both do not)."""
    if not n:
        return None
    a, b = np.zeros(n, bool), np.zeros(n, bool)
    a[[k for k in a_frames if 0 <= k < n]] = True
    b[[k for k in b_frames if 0 <= k < n]] = True
    return float((a == b).mean())


@dataclass
class QuestionFrames:
    uid: str
    column: str | None
    visual: bool
    video: str | None
    n_frames: int | None = None
    sampled: tuple[int, ...] = ()
    note: str | None = None                         # the policy could not be followed as written
    target: TargetSeen | None = None
    k: int | None = None                            # sampled frames showing the target; None: unknown
    box_at_model: tuple[int, int] | None = None     # the largest box among them, at the model's resolution
    problem: str | None = None                      # why nothing could be said

    @property
    def group(self) -> str | None:
        """TARGET_SAMPLED, TARGET_NEVER_SAMPLED, TARGET_UNKNOWN; None for a question about no object."""
        if self.target is not None and self.target.source == NO_TARGET:
            return None
        if self.k is None:
            return TARGET_UNKNOWN
        return TARGET_SAMPLED if self.k > 0 else TARGET_NEVER_SAMPLED

    def json(self) -> dict:
        t = self.target
        return {"uid": self.uid, "column": self.column, "visual": self.visual, "video": self.video,
                "n_frames": self.n_frames, "sampled": list(self.sampled), "note": self.note,
                "target_frames": list(t.frames) if t and t.source not in (UNKNOWN, NO_TARGET) else None,
                "target_source": t.source if t else UNKNOWN,
                "red_box_vs_metadata": t.agreement if t else None,
                "ray_cast_vs_metadata": t.cast_agreement if t else None,
                "k": self.k, "box_at_model": list(self.box_at_model) if self.box_at_model else None,
                "problem": self.problem}


def question_frames(question, column_key: str | None, policy: FramePolicy | None, facts: VideoFacts | None,
                    target: TargetSeen, logged: tuple[int, ...] | None = None,
                    explicit: tuple[int, ...] | None = None) -> QuestionFrames:
    """One question for one model: `explicit` indices (a prediction record's own `frames` list) win over
    the policy; `logged` is the question's list from a `list:` file."""
    video = question.video.declared if question.video is not None else None
    out = QuestionFrames(question.uid, column_key, is_visual(question), video, target=target)
    if facts is None:
        out.problem = "the question has no video"
        return out
    if facts.problem:
        out.problem = facts.problem
        return out
    out.n_frames = facts.n_frames
    try:
        if explicit is not None:
            bad = [k for k in explicit if not 0 <= k < facts.n_frames]
            if bad:
                raise PolicyError(f"the record's frames {bad[:5]} are outside the video (0..{facts.n_frames - 1})")
            out.sampled = tuple(sorted(set(explicit)))
        elif policy is not None:
            s = sample(policy, facts.n_frames, facts.fps, logged)
            out.sampled, out.note = s.indices, s.note
        else:
            raise PolicyError("no frame policy for this model (--frames, or a frames field in its records)")
    except PolicyError as e:
        out.problem = str(e)
        return out
    if facts.variable_rate:
        out.note = "; ".join(filter(None, [out.note, "variable frame rate: frames sampled by index, not by time"]))
    if target.source not in (UNKNOWN, NO_TARGET):
        seen = sorted(set(out.sampled) & set(target.frames))
        out.k = len(seen)
        if seen and facts.boxes is not None:
            out.box_at_model = _largest_box(facts, seen, policy)
    return out


def _largest_box(facts: VideoFacts, frames: list[int], policy: FramePolicy | None) -> tuple[int, int] | None:
    b = facts.boxes[[k for k in frames if k < len(facts.boxes)]]
    b = b[b[:, 0] >= 0]
    if not len(b):
        return None
    w, h = b[:, 2] - b[:, 0] + 1, b[:, 3] - b[:, 1] + 1
    i = int(np.argmax(w * h))
    sx = sy = 1.0
    if policy is not None and policy.resolution is not None:
        mw, mh = policy.resolution.size_for(facts.width, facts.height)
        sx, sy = mw / facts.width, mh / facts.height
    return max(1, round(w[i] * sx)), max(1, round(h[i] * sy))


# --- a model's frames: from --frames or its records ------------------------------------------------------------

@dataclass
class ModelFrames:
    """How one model's frames are chosen: a policy for all its questions, and per-question overrides from
    its records (a `frames` field: a policy text or the indices themselves)."""
    policy: FramePolicy | None = None
    per_question: dict[str, FramePolicy | tuple[int, ...]] = field(default_factory=dict)
    lists: FrameLists | None = None                 # the policy's list: file, read
    problems: list[str] = field(default_factory=list)

    def for_question(self, uid: str) -> tuple[FramePolicy | None, tuple[int, ...] | None, tuple[int, ...] | None]:
        """(policy, explicit indices, logged indices) for one question."""
        own = self.per_question.get(uid)
        policy = own if isinstance(own, FramePolicy) else self.policy
        explicit = own if isinstance(own, tuple) else None
        logged = None
        if policy is not None and policy.kind == "list":
            logged = self.lists.lists.get(uid) if self.lists is not None else None
        return policy, explicit, logged

    def question(self, question, column_key: str | None, facts: VideoFacts | None,
                 target: TargetSeen) -> QuestionFrames:
        """`question_frames` for this model's policy for the question (a `list:` policy without a list for
        it says so)."""
        policy, explicit, logged = self.for_question(question.uid)
        if policy is not None and policy.kind == "list" and logged is None and explicit is None:
            row = question_frames(question, column_key, None, facts, target)
            if facts is not None and not facts.problem:
                row.problem = f"{policy.list_file}: no frame list for {question.uid}"
            return row
        return question_frames(question, column_key, policy, facts, target, logged, explicit)


@dataclass(frozen=True)
class FramePolicies:
    """Which policy each model uses: the one answer to it, for `frames`, `score --by target-sampled` and the
    window (whose Model's-eye dock changes one model's). A model's own (`--frames NAME=POLICY`, or picked
    in the window), else the one for every model; a record's own `frames` field wins over both
    (`model_frames`)."""
    default: FramePolicy | None = None
    named: tuple[tuple[str, FramePolicy], ...] = ()

    @classmethod
    def parse(cls, frames_args: list[str]) -> FramePolicies:
        """From `--frames [NAME=]POLICY` arguments; PolicyError naming the argument."""
        from ..predictions import named_path
        out = cls()
        for a in frames_args:
            name = named_path(a)[0]          # NAME=POLICY, as NAME=PATH names a prediction file's model
            text = a.partition("=")[2] if name is not None else a
            try:
                out = out.with_policy(name, parse_policy(text))
            except PolicyError as e:
                raise PolicyError(f"--frames {a}: {e}") from None
        return out

    def policy_of(self, model: str | None, model_id: str | None = None) -> FramePolicy | None:
        """Model `model`'s policy (None: the one for every model); under its stable id (`evaluate.model_id`,
        which a rename keeps) first, when given."""
        named = dict(self.named)
        if model_id is not None and model_id in named:
            return named[model_id]
        return named.get(model, self.default) if model is not None else self.default

    def renamed(self, old: str, new: str, model_id: str | None = None) -> FramePolicies:
        """The same after model `old` was renamed `new`: its policy goes with it, under the new name and
        under its stable id `model_id` (where `policy_of(name, model_id)` finds it whatever it is called)."""
        named = dict(self.named)
        policy = named.pop(old, None)
        if policy is None and model_id is not None:
            policy = named.get(model_id)
        if policy is None:
            return self
        named[new] = policy
        if model_id is not None:
            named[model_id] = policy
        return FramePolicies(self.default, tuple(named.items()))

    def with_policy(self, model: str | None, policy: FramePolicy | None) -> FramePolicies:
        """The same, with `model`'s policy (None: every model's that has none of its own) replaced."""
        if model is None:
            return FramePolicies(policy, self.named)
        named = dict(self.named)                 # in the order given: an equal set compares equal
        if policy is None:
            named.pop(model, None)
        else:
            named[model] = policy
        return FramePolicies(self.default, tuple(named.items()))

    def unknown_models(self, models, model_ids=()) -> list[str]:
        """Names given a policy that are no model here (nor a model's stable id)."""
        return sorted({m for m, _ in self.named} - set(models) - set(model_ids))

    def model_frames(self, model: str | None, source: str | Path | None = None) -> ModelFrames:
        """How `model`'s frames are chosen: its policy, its prediction file's `frames` fields, a `list:`
        policy's file read (PolicyError when it cannot be). Problems (with their line) in `.problems`."""
        from .sampling import read_frame_lists
        mf = ModelFrames(self.policy_of(model))
        if source:
            mf.per_question, bad = record_frames(source)
            mf.problems += bad
        if mf.policy is not None and mf.policy.kind == "list":
            mf.lists = read_frame_lists(mf.policy.list_file)
            mf.problems += mf.lists.problems
        return mf


# The keys a prediction record names its uid by (the spec's aliases, as core/predictions reads them).
UID_KEYS = ("uid", "id", "question_id", "index")


def record_frames(path: str | Path) -> tuple[dict[str, FramePolicy | tuple[int, ...]], list[str]]:
    """The `frames` fields of a JSON Lines prediction file: per uid a policy or its indices; problems with
    their line. Other formats carry no such field (an empty result)."""
    out: dict[str, FramePolicy | tuple[int, ...]] = {}
    problems: list[str] = []
    try:
        # Most files have no such field: told from their bytes, where reading 22 files of 200,000 lines as
        # text took seconds of the window's start.
        if not _mentions(path, b'"frames"'):
            return out, problems
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if '"frames"' not in line:
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue                # the prediction reader reports it
                if not isinstance(rec, dict) or "frames" not in rec:
                    continue
                uid = next((rec[k] for k in UID_KEYS if k in rec), None)
                if uid is None:
                    continue
                v: Any = rec["frames"]
                if isinstance(v, str):
                    try:
                        out[str(uid)] = parse_policy(v)
                    except PolicyError as e:
                        problems.append(f"{path}:{n}: {e}")
                elif isinstance(v, list) and all(isinstance(k, int) and not isinstance(k, bool) and k >= 0
                                                 for k in v):
                    out[str(uid)] = tuple(v)
                else:
                    problems.append(f"{path}:{n}: frames must be a policy (uniform:32) or a list of frame numbers")
    except (OSError, UnicodeDecodeError):
        pass                                # unreadable: the prediction reader says so
    return out, problems


def _mentions(path: str | Path, word: bytes, block: int = 1 << 22) -> bool:
    """Whether the file's bytes hold `word` (read a block at a time; OSError when unreadable)."""
    with open(path, "rb") as f:
        tail = b""
        while chunk := f.read(block):
            seen = tail + chunk                  # a word cut by the last block's end is whole here
            if word in seen:
                return True
            tail = seen[-(len(word) - 1):]
    return False


# --- the leaderboard split by whether the target was sampled -----------------------------------------------------

def split_scores(release, result, groups: list[str]) -> dict[str, dict]:
    """A model's leaderboard columns over the questions of each group (TARGET_SAMPLED, ...): per group its
    columns, Avg and counts. `groups[i]` is question i's group, or None to leave it out of every group."""
    from ..evaluate import column_means, table_members
    b = release.benchmark
    members = table_members(release)
    groups_arr = np.array([g or "" for g in groups], dtype=object)
    out = {}
    for g in (TARGET_SAMPLED, TARGET_NEVER_SAMPLED, TARGET_UNKNOWN):
        mask = groups_arr == g
        if not mask.any():
            continue
        score = np.where(mask, result.score, np.nan)
        cols, sub = b.table(column_means(release, score))
        scored = ~np.isnan(score)
        out[g] = {"columns": cols, "avg": b.overall(cols, sub),
                  "counts": {k: int(np.count_nonzero(m & scored)) for k, m in members.items()}}
    return out
