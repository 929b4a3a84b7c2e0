"""Which frames of a video a model was given: the sampling policies harnesses use, by name.

A policy is written as text (`--frames uniform:32@448`, or a `frames` field in a prediction record):

    uniform:N              N frames spread evenly, lmms-eval's formula (first and last frame included)
    uniform:N,vlmevalkit   N frames spread evenly, VLMEvalKit's formula (the ends left out)
    fps:F[,max:N]          F frames a second, Qwen-VL's rounding (qwen-vl-utils' smart_nframes)
    fps:F,vlmevalkit       F frames a second, VLMEvalKit's step
    all                    every frame
    list:FILE              the indices a harness logged, one list per question uid (see `read_frame_lists`)

and optionally the model's input resolution: `@448` (the longer side scaled to 448, aspect kept) or
`@448x336` (width x height, as a processor that squashes to a fixed size).

The formulas, as the harnesses' own code computes them (docs/frames.md quotes them):

- lmms-eval, `lmms_eval/models/model_utils/load_video.py` (`read_video_pyav`):
  `num_frm = min(total_frames, num_frm); np.linspace(0, total_frames - 1, num_frm, dtype=int)`.
- VLMEvalKit, `vlmeval/dataset/video_base.py` (`VideoBaseDataset.save_video_frames`):
  `step_size = len(vid) / (num_frames + 1); [int(i * step_size) for i in range(1, num_frames + 1)]`;
  with fps: `required_frames = int(total_frames / video_fps * fps); step_size = video_fps / fps;
  [int(i * step_size) for i in range(required_frames)]`.
- Qwen-VL, `qwen-vl-utils/src/qwen_vl_utils/vision_process.py` (QwenLM/Qwen3-VL, `smart_nframes` and
  `_read_video_decord`): `min_frames = ceil_by_factor(4, 2); max_frames = floor_by_factor(min(768, total), 2)`
  (or the given max), `nframes = floor_by_factor(min(max(total / video_fps * fps, min_frames), max_frames,
  total), 2)`, then `torch.linspace(0, total - 1, nframes).round()`.

Pure numpy: a policy and a video's frame count and rate give the indices and a note when the policy could
not be followed as written (fewer frames than asked, a video too short for Qwen's minimum).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

# qwen-vl-utils' constants (vision_process.py): frames come in pairs, at least 4, at most 768.
QWEN_FRAME_FACTOR = 2
QWEN_MIN_FRAMES = 4
QWEN_MAX_FRAMES = 768

STYLES = ("lmms-eval", "vlmevalkit", "qwen")


class PolicyError(ValueError):
    """A policy text that cannot be read; the message says what is wrong, for the user."""


@dataclass(frozen=True)
class Resolution:
    """The model's input size: `side` scales the longer side (aspect kept), or a fixed `width` x `height`."""
    side: int | None = None
    width: int | None = None
    height: int | None = None

    def size_for(self, width: int, height: int) -> tuple[int, int]:
        """The (width, height) a frame of this size is given to the model at."""
        if self.width and self.height:
            return self.width, self.height
        scale = self.side / max(width, height)
        return max(1, round(width * scale)), max(1, round(height * scale))

    def text(self) -> str:
        return f"@{self.width}x{self.height}" if self.width else f"@{self.side}"


@dataclass(frozen=True)
class FramePolicy:
    kind: str                       # "uniform", "fps", "all" or "list"
    style: str = "lmms-eval"        # whose formula: one of STYLES
    n: int | None = None            # uniform: frames asked
    fps: float | None = None        # fps: frames a second
    max_frames: int | None = None   # fps: the cap
    list_file: str | None = None    # list: the file
    resolution: Resolution | None = None
    text: str = ""                  # as the user wrote it

    def __str__(self) -> str:
        return self.text or self.kind


@dataclass(frozen=True)
class Sampled:
    indices: tuple[int, ...]        # sorted frame indices given to the model (duplicates kept out)
    note: str | None = None         # when the policy could not be followed as written


def parse_policy(text: str) -> FramePolicy:
    """A policy from its text; PolicyError naming what is wrong."""
    raw = (text or "").strip()
    if not raw:
        raise PolicyError("empty frame policy (e.g. uniform:32, fps:2,max:64, all, list:FILE)")
    body, res = raw, None
    m = re.search(r"@([^@]*)$", raw)
    if m and (not raw.startswith("list:") or re.fullmatch(r"\d+(x\d+)?", m.group(1))):
        body, res = raw[:m.start()], _resolution(m.group(1), raw)
    name, _, rest = body.partition(":")
    name = name.strip().lower()
    if name == "all":
        if rest:
            raise PolicyError(f"frame policy {raw!r}: 'all' takes no value")
        return FramePolicy("all", resolution=res, text=raw)
    if name == "list":
        if not rest.strip():
            raise PolicyError(f"frame policy {raw!r}: give the file, list:FILE")
        return FramePolicy("list", list_file=rest.strip(), resolution=res, text=raw)
    parts = [s.strip() for s in rest.split(",")] if rest else []
    if not parts or not parts[0]:
        raise PolicyError(f"frame policy {raw!r}: give a value, e.g. uniform:32 or fps:2")
    opts = parts[1:]
    style = None
    cap = None
    for o in opts:
        if o.lower() in STYLES:
            style = o.lower()
        elif o.lower().startswith("max:"):
            cap = _positive_int(o[4:], raw, "max")
        else:
            raise PolicyError(f"frame policy {raw!r}: unknown option {o!r} (max:N, lmms-eval, vlmevalkit, qwen)")
    if name == "uniform":
        if cap is not None:
            raise PolicyError(f"frame policy {raw!r}: max: belongs to fps:, uniform:N already says how many")
        style = style or "lmms-eval"
        if style == "qwen":
            raise PolicyError(f"frame policy {raw!r}: uniform: follows lmms-eval or vlmevalkit")
        return FramePolicy("uniform", style, n=_positive_int(parts[0], raw, "uniform"), resolution=res, text=raw)
    if name == "fps":
        try:
            fps = float(parts[0])
        except ValueError:
            fps = float("nan")
        if not (math.isfinite(fps) and fps > 0):
            raise PolicyError(f"frame policy {raw!r}: fps must be a positive number")
        style = style or "qwen"
        if style == "lmms-eval":
            raise PolicyError(f"frame policy {raw!r}: fps: follows qwen or vlmevalkit")
        if style == "vlmevalkit" and cap is not None:
            raise PolicyError(f"frame policy {raw!r}: VLMEvalKit's fps sampling has no max")
        return FramePolicy("fps", style, fps=fps, max_frames=cap, resolution=res, text=raw)
    raise PolicyError(f"unknown frame policy {raw!r} (uniform:N, fps:F[,max:N], all, list:FILE)")


def _positive_int(s: str, raw: str, what: str) -> int:
    if not re.fullmatch(r"\s*\d+\s*", s or "") or int(s) <= 0:
        raise PolicyError(f"frame policy {raw!r}: {what} needs a whole number above 0, not {s!r}")
    return int(s)


def _resolution(s: str, raw: str) -> Resolution:
    m = re.fullmatch(r"(\d+)(?:x(\d+))?", s.strip())
    if not m or int(m.group(1)) <= 0 or (m.group(2) is not None and int(m.group(2)) <= 0):
        raise PolicyError(f"frame policy {raw!r}: the resolution is @SIDE or @WIDTHxHEIGHT, e.g. @448")
    if m.group(2) is not None:
        return Resolution(width=int(m.group(1)), height=int(m.group(2)))
    return Resolution(side=int(m.group(1)))


# --- the formulas ---------------------------------------------------------------------------------------

def lmms_eval_uniform(total: int, n: int) -> np.ndarray:
    """lmms-eval's `read_video_pyav`: min(total, n) frames by np.linspace(0, total - 1, n, dtype=int)."""
    n = min(total, n)
    return np.linspace(0, total - 1, n, dtype=int)


def vlmevalkit_uniform(total: int, n: int) -> np.ndarray:
    """VLMEvalKit's `save_video_frames` without fps: int(i * total / (n + 1)) for i in 1..n."""
    step = total / (n + 1)
    return np.array([int(i * step) for i in range(1, n + 1)], dtype=int)


def vlmevalkit_fps(total: int, video_fps: float, fps: float) -> np.ndarray:
    """VLMEvalKit's `save_video_frames` with fps: int(i * video_fps / fps) for i < int(duration * fps)."""
    required = int(total / video_fps * fps)
    step = video_fps / fps
    return np.array([int(i * step) for i in range(required)], dtype=int)


def qwen_nframes(total: int, video_fps: float, fps: float, max_frames: int | None = None) -> int:
    """qwen-vl-utils' `smart_nframes` for an fps request (ValueError where it raises)."""
    f = QWEN_FRAME_FACTOR
    lo = math.ceil(QWEN_MIN_FRAMES / f) * f
    hi = math.floor((max_frames if max_frames is not None else min(QWEN_MAX_FRAMES, total)) / f) * f
    n = total / video_fps * fps
    n = min(min(max(n, lo), hi), total)
    n = math.floor(n / f) * f
    if not (f <= n <= total):
        raise ValueError(f"nframes should in interval [{f}, {total}], but got {n}.")
    return n


def qwen_indices(total: int, nframes: int) -> np.ndarray:
    """qwen-vl-utils: torch.linspace(0, total - 1, nframes).round() (round half to even, as torch and numpy)."""
    return np.round(np.linspace(0, total - 1, nframes)).astype(int)


# --- applying a policy ------------------------------------------------------------------------------------

def sample(policy: FramePolicy, total: int, video_fps: float | None = None,
           logged: tuple[int, ...] | None = None) -> Sampled:
    """The frames `policy` gives the model from a video of `total` frames at `video_fps`.

    `logged` is the question's list from a `list:` file. Raises PolicyError when the policy cannot apply
    (no frames, an fps policy without the video's rate, a list policy without the question's list).
    Remembered: a release's questions share a few videos, so a pass over them computes each once.
    """
    return _sample(policy, total, video_fps, None if logged is None else tuple(logged))


@lru_cache(maxsize=4096)
def _sample(policy: FramePolicy, total: int, video_fps: float | None, logged: tuple[int, ...] | None) -> Sampled:
    if total <= 0:
        raise PolicyError("the video has no frames")
    if policy.kind == "all":
        return Sampled(tuple(range(total)))
    if policy.kind == "list":
        if logged is None:
            raise PolicyError(f"{policy.list_file}: no frame list for this question")
        return Sampled(tuple(sorted(set(int(k) for k in logged))))
    if policy.kind == "uniform":
        n = policy.n
        if n >= total:
            return Sampled(tuple(range(total)), f"{policy} asks {n} frames, the video has {total}: all are used")
        idx = lmms_eval_uniform(total, n) if policy.style == "lmms-eval" else vlmevalkit_uniform(total, n)
        return Sampled(_unique(idx))
    if policy.kind == "fps":
        if not video_fps or not math.isfinite(video_fps) or video_fps <= 0:
            raise PolicyError(f"{policy}: the video's frame rate is unknown")
        if policy.style == "vlmevalkit":
            idx = vlmevalkit_fps(total, video_fps, policy.fps)
            if not len(idx):
                return Sampled((), f"{policy}: the video ({total / video_fps:.2f} s) is shorter than one step")
            return Sampled(_unique(idx))
        try:
            n = qwen_nframes(total, video_fps, policy.fps, policy.max_frames)
        except ValueError:
            return Sampled(tuple(range(total)), f"{policy}: {total} frames are fewer than Qwen's minimum; all used")
        wanted = total / video_fps * policy.fps
        note = None
        if wanted > total:
            note = f"{policy} asks {wanted:.0f} frames, the video has {total}: {n} are used"
        return Sampled(_unique(qwen_indices(total, n)), note)
    raise PolicyError(f"unknown frame policy {policy}")


def _unique(idx: np.ndarray) -> tuple[int, ...]:
    return tuple(int(k) for k in np.unique(idx))


# --- list: files -------------------------------------------------------------------------------------------

@dataclass
class FrameLists:
    """A `list:` file read: each uid's logged indices and the line they came from, and what was wrong."""
    path: str
    lists: dict[str, tuple[int, ...]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def check(self, uids, frame_counts: dict[str, int]) -> list[str]:
        """Problems against a release: uids it does not have, frames outside their video (each with its line)."""
        known = set(uids)
        out = []
        for uid, idx in self.lists.items():
            line = self.lines[uid]
            if uid not in known:
                out.append(f"{self.path}:{line}: uid {uid!r} is not in the release")
                continue
            total = frame_counts.get(uid)
            if total is not None:
                bad = [k for k in idx if k >= total]
                if bad:
                    out.append(f"{self.path}:{line}: frames {bad[:5]} of {uid!r} are outside its video "
                               f"({total} frames, 0..{total - 1})")
        return out


# The keys a logged record may name its uid and its indices by (Qwen's video_metadata calls them frames_indices).
UID_KEYS = ("uid", "id", "question_id", "doc_id")
INDEX_KEYS = ("frames", "frame_indices", "frames_indices", "indices")


def read_frame_lists(path: str | Path) -> FrameLists:
    """A `list:` file: JSON lines, each `{"uid": ..., "frames": [i, ...]}` (also `frame_indices`,
    `frames_indices` or `indices`). Lines that are not such a record are reported with their number;
    an unreadable file raises PolicyError."""
    import json
    path = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise PolicyError(f"{path}: cannot read the frame list ({getattr(e, 'strerror', None) or e})") from None
    out = FrameLists(path)
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            out.problems.append(f"{path}:{n}: not a JSON record")
            continue
        if not isinstance(rec, dict):
            out.problems.append(f"{path}:{n}: not a JSON object")
            continue
        uid = next((rec[k] for k in UID_KEYS if k in rec), None)
        idx = next((rec[k] for k in INDEX_KEYS if k in rec), None)
        if uid is None or idx is None:
            out.problems.append(f"{path}:{n}: needs a uid and its frames ({'/'.join(INDEX_KEYS)})")
            continue
        if not isinstance(idx, list) or not all(isinstance(k, int) and not isinstance(k, bool) and k >= 0
                                                for k in idx):
            out.problems.append(f"{path}:{n}: the frames of {uid!r} are not a list of frame numbers (0, 1, ...)")
            continue
        uid = str(uid)
        if uid in out.lists:
            out.problems.append(f"{path}:{n}: uid {uid!r} again (first on line {out.lines[uid]}); this line is used")
        out.lists[uid] = tuple(idx)
        out.lines[uid] = n
    if not out.lists and not out.problems:
        out.problems.append(f"{path}: no frame list in the file")
    return out
