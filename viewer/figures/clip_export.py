"""A short clip of one question: the video beside the map, the camera moving, then the reveal.

Frames follow `viewer.core.storyboard.plan_clip` (a title card, the video
time-lapsed to fit but slowed and held where the target is best seen, then
the question's viewpoint, the answers, the truth), each painted by
`StoryPainter` and written by `viewer.render.clip_writer` (H.264 through
PyAV, GIF through Pillow). Progress is reported per frame; a cancelled or failed export
leaves no partial file behind, and the file it would have replaced as it was.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..core.diagnostics import UserError
from ..core.talk.storyboard import VIDEO, ClipFocus, plan_clip
from ..render.clip_writer import check_writable, open_clip_writer
from .canvas import qimage_to_rgb
from .layouts import Subject
from .story_frame import StoryPainter
from .theme import TALK_DARK, Theme

DEFAULT_SIZE = (1280, 720)
DEFAULT_GIF_SIZE = (800, 450)        # GIFs are big per pixel: a smaller default
MAX_SIDE = 3840


class ExportCancelled(Exception):
    """The user stopped the export; nothing was left on disk."""


@dataclass
class ClipResult:
    path: Path
    codec: str
    note: str                # e.g. which codec replaced an unavailable one
    frames: int
    size: tuple[int, int]
    target_frames: int = 0   # frames showing the target's best frame with its box


def parse_size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", text or "")
    if not m:
        raise UserError(f"--size {text!r}: expected WIDTHxHEIGHT, e.g. 1280x720")
    w, h = int(m.group(1)), int(m.group(2))
    if not (64 <= w <= MAX_SIDE and 64 <= h <= MAX_SIDE):
        raise UserError(f"--size {text!r}: each side must be between 64 and {MAX_SIDE} pixels")
    # Most codecs need even sides; keep what was asked otherwise.
    return w, h


def export_clip(subject: Subject, out: Path, seconds: float = 10.0, fps: float = 15.0,
                size: tuple[int, int] | None = None, theme: Theme = TALK_DARK,
                progress: Callable[[int, int], None] | None = None,
                cancelled: Callable[[], bool] | None = None) -> ClipResult:
    out = check_writable(Path(out))
    if not (0 < seconds <= 600):
        raise UserError(f"--seconds {seconds:g}: expected a length in (0, 600]")
    if not (1 <= fps <= 60):
        raise UserError(f"--fps {fps:g}: expected 1 to 60 frames per second")
    src = subject.media.frames
    if src is None:
        raise UserError(f"no exploration video for {subject.story.uid!r}: {subject.media.frames_note}")
    if size is None:
        size = DEFAULT_GIF_SIZE if out.suffix.lower() == ".gif" else DEFAULT_SIZE
    painter = StoryPainter(subject)
    plan = plan_clip(seconds, fps, src.n_frames, video_fps=src.fps or 10.0, focus=clip_focus(subject, painter))
    video_len = src.n_frames / src.fps if src.fps > 0 else 0.0

    def render(stage: str, k: int | None, target_box: bool):
        time_text = f"{k / src.fps:.1f} s / {video_len:.0f} s" if stage == VIDEO and src.fps > 0 else ""
        return qimage_to_rgb(painter.image(size, stage, k, theme, time_text, target_box))

    writer = open_clip_writer(out, fps, size)
    try:
        for i, f in enumerate(plan):
            if cancelled is not None and cancelled():
                raise ExportCancelled()
            writer.write(render(f.stage, f.video_frame, f.target_box))
            if progress is not None:
                progress(i + 1, len(plan))
    except BaseException:
        writer.discard()
        raise
    writer.close()
    return ClipResult(writer.path, writer.codec, writer.note, writer.frames, size,
                      sum(1 for f in plan if f.target_box))


def clip_focus(subject: Subject, painter: StoryPainter) -> ClipFocus | None:
    """The target's best frame and the frames it is in view, when the scene records them and the
    frames shown are that video's (a question's own copy of it has the same frames)."""
    found = painter.target_box()
    src = subject.media.frames
    if found is None or src is None or not 0 <= found[0] < src.n_frames:
        return None
    g = subject.media.geometry
    rec = g.video.instances.get(subject.story.question.target) or {}
    seen = tuple(int(k) for k in rec.get("appear_frames") or () if isinstance(k, int) and 0 <= k < src.n_frames)
    return ClipFocus(found[0], seen)
