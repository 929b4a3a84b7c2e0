"""Writing a clip's frames to a file: OpenCV for MP4 (with a codec fallback), our GIF writer for GIF.

OpenCV wheels differ in which encoders they carry: builds without FFmpeg
have only OpenCV's own Motion-JPEG AVI writer. MP4 codecs are tried in
order; when none opens, the clip is written as Motion-JPEG AVI next to the
requested name and the writer's `note` says so, for the user to see.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import numpy as np

from ..core.diagnostics import UserError
from .gif_writer import GifWriter
from .video import import_cv2

# (fourcc, container suffix), tried in this order.
MP4_CODECS: tuple[tuple[str, str], ...] = (("mp4v", ".mp4"), ("avc1", ".mp4"), ("MJPG", ".avi"))
AVI_CODECS: tuple[tuple[str, str], ...] = (("MJPG", ".avi"), ("XVID", ".avi"))
SUFFIXES = (".mp4", ".avi", ".gif")


def check_writable(path: Path) -> Path:
    """`path` resolved, or UserError saying why a file cannot be written there."""
    path = Path(path).expanduser()
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.exists():
        raise UserError(f"{path}: cannot write (folder {folder} does not exist)")
    if not folder.is_dir():
        raise UserError(f"{path}: cannot write ({folder} is not a folder)")
    if path.is_dir():
        raise UserError(f"{path}: is a folder; give a file name")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"{path}: cannot write (permission denied)")
    return path


class ClipWriter:
    """`write(rgb)` frames of `size`; `close()`; `path` and `codec` say what was written."""

    def __init__(self, path: Path, codec: str, note: str, sink, close: Callable[[], None]):
        self.path, self.codec, self.note = path, codec, note
        self._sink, self._close = sink, close
        self.frames = 0

    def write(self, rgb: np.ndarray) -> None:
        self._sink(rgb)
        self.frames += 1

    def close(self) -> None:
        self._close()


def _cv2_opener(path: Path, fourcc: str, fps: float, size: tuple[int, int]):
    cv2 = import_cv2()
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), float(fps), tuple(size))
    if not w.isOpened():
        w.release()
        return None
    return w


def open_clip_writer(path: Path, fps: float, size: tuple[int, int], samples: list[np.ndarray] = (),
                     opener=_cv2_opener) -> ClipWriter:
    """A writer for `path` (.mp4, .avi or .gif). `opener(path, fourcc, fps, size)` -> writer or
    None is OpenCV's VideoWriter; tests pass one that imitates builds without FFmpeg."""
    path = check_writable(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise UserError(f"{path}: unknown clip format {suffix or '(none)'}; use .mp4 or .gif (or .avi)")
    if suffix == ".gif":
        try:
            gif = GifWriter(str(path), size, fps, samples)
        except OSError as e:
            raise UserError(f"{path}: cannot write ({e.strerror or e})") from None
        return ClipWriter(path, "gif", "", gif.write, gif.close)
    tried = []
    for fourcc, container in (MP4_CODECS if suffix == ".mp4" else AVI_CODECS):
        target = path if container == suffix else path.with_suffix(container)
        if target != path:
            check_writable(target)
        w = opener(target, fourcc, fps, size)
        if w is None:
            tried.append(fourcc)
            continue
        cv2 = import_cv2()
        note = ""
        if tried:
            note = (f"{'/'.join(tried)} not available in this OpenCV build; "
                    f"wrote {target.name} with {fourcc}")
        return ClipWriter(target, fourcc, note,
                          lambda rgb, w=w, cv2=cv2: w.write(cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2BGR)),
                          w.release)
    raise UserError(f"{path}: this OpenCV build can write no video codec (tried {', '.join(tried)}); "
                    "write a .gif instead")
