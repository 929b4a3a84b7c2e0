"""Writing a clip's frames to a file: PyAV (H.264) for MP4 and AVI, Pillow for GIF.

MP4s are H.264 in yuv420p with the index at the front (`+faststart`), which
browsers and slide tools play, encoded by libx264 through PyAV with fixed
settings (one thread, no macroblock tree: the same frames give the same bytes).
A PyAV build without libx264 writes MPEG-4 Part 2, and the writer's `note`
says so. AVIs are Motion-JPEG. GIFs are written by Pillow: each frame quantised to its own palette,
identical consecutive frames merged into one longer frame.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import numpy as np

from ..core.diagnostics import UserError
from .video import import_av

SUFFIXES = (".mp4", ".avi", ".gif")
# Quality for talks: visually clean text and maps at a few hundred kB per second of 720p.
# One thread and no macroblock tree: with mbtree, libx264's lookahead makes a second encode in the
# same process differ from the first (measured), and the demo must regenerate byte for byte.
H264_OPTIONS = {"crf": "20", "preset": "medium", "threads": "1", "x264-params": "mbtree=0"}


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
    """`write(rgb)` frames of `size`; `close()`; `path`, `codec` and `note` say what was written.

    With a `staging` file the frames go there and `close()` renames it over `path` (over the file a
    symbolic link `path` names), so `path` is never half a clip; `discard()` stops and removes what was
    written (a clip at `path` before stays).
    """

    def __init__(self, path: Path, codec: str, note: str, sink, close: Callable[[], None],
                 staging: Path | None = None, abandon: Callable[[], None] | None = None):
        self.path, self.codec, self.note = path, codec, note
        self._sink, self._close = sink, close
        self._abandon = abandon or close       # what discard() runs: stop without finishing the clip
        self.staging = staging
        self.frames = 0

    def write(self, rgb: np.ndarray) -> None:
        self._sink(rgb)
        self.frames += 1

    def close(self) -> None:
        try:
            self._close()
            if self.staging is not None:
                os.replace(self.staging, os.path.realpath(self.path))
        except BaseException:
            self._remove_staging()
            raise

    def discard(self) -> None:
        try:
            self._abandon()
        except Exception:           # a clip that is being thrown away: its last frames do not matter
            pass
        self._remove_staging()

    def _remove_staging(self) -> None:
        try:
            os.remove(self.staging if self.staging is not None else self.path)
        except OSError:
            pass


# ------------------------------------------------------------------ PyAV
def open_av_writer(path: Path, fps: float, size: tuple[int, int], codec: str = "libx264",
                   options: dict[str, str] | None = None) -> ClipWriter:
    """An H.264 (or `codec`) writer through PyAV. Odd sides are padded by one edge pixel:
    yuv420p stores colour per 2x2 block."""
    av = import_av()
    from fractions import Fraction
    w, h = size
    ew, eh = w + w % 2, h + h % 2
    rate = Fraction(fps).limit_denominator(1001)
    container = av.open(str(path), "w", options={"movflags": "+faststart"} if path.suffix == ".mp4" else {})
    try:
        stream = container.add_stream(codec, rate=rate, options=dict(H264_OPTIONS if codec == "libx264" else {},
                                                                     **(options or {})))
        stream.width, stream.height = ew, eh
        stream.pix_fmt = "yuvj420p" if codec == "mjpeg" else "yuv420p"
        stream.codec_context.thread_count = 1
    except Exception:
        container.close()
        raise

    def sink(rgb: np.ndarray) -> None:
        if rgb.shape[:2] != (eh, ew):
            rgb = np.pad(rgb, ((0, eh - rgb.shape[0]), (0, ew - rgb.shape[1]), (0, 0)), mode="edge")
        for packet in stream.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(rgb), format="rgb24")):
            container.mux(packet)

    def close() -> None:
        try:
            for packet in stream.encode():
                container.mux(packet)
        finally:
            container.close()

    note = f"size padded to {ew}x{eh} (H.264 needs even sides)" if (ew, eh) != (w, h) else ""
    return ClipWriter(path, "h264" if codec == "libx264" else codec, note, sink, close, abandon=container.close)


# ---------------------------------------------------------------- Pillow
class GifWriter:
    """Frames kept as palette images (a quarter of RGB's memory) and written by Pillow at close, to `path`
    (messages name `shown`, the file the user asked for)."""

    def __init__(self, path: Path, fps: float, shown: Path | None = None):
        from PIL import Image
        self._Image = Image
        self.path = path
        self.shown = shown or path
        self.duration_ms = max(20, int(round(1000 / fps)))   # browsers slow anything shorter to 100 ms
        self._frames: list = []

    def write(self, rgb: np.ndarray) -> None:
        img = self._Image.fromarray(np.ascontiguousarray(rgb[..., :3]), "RGB")
        self._frames.append(img.quantize(256, method=self._Image.Quantize.MEDIANCUT,
                                         dither=self._Image.Dither.NONE))

    def close(self) -> None:
        if not self._frames:
            return
        first, *rest = self._frames
        try:
            first.save(self.path, format="GIF", save_all=True, append_images=rest, duration=self.duration_ms,
                       loop=0, optimize=True, disposal=1)
        except OSError as e:
            raise UserError(f"{self.shown}: cannot write ({e.strerror or e})") from None
        self._frames = []

    def abandon(self) -> None:
        self._frames = []


def staging_path(path: Path) -> Path:
    """Where a clip for `path` is written until it is complete: a hidden file beside it, with its suffix
    (PyAV picks the container by it)."""
    return path.with_name(f".{path.stem}.partial{path.suffix}")


def open_clip_writer(path: Path, fps: float, size: tuple[int, int]) -> ClipWriter:
    """A writer for `path`: .mp4 (H.264) or .avi (Motion-JPEG) through PyAV; .gif through Pillow.

    The frames go to `staging_path(path)` until `close()` (ClipWriter): a clip stopped half-way, by
    `discard()` or a failure, leaves no file and keeps the one that was there.
    """
    path = check_writable(path)
    staging = staging_path(Path(os.path.realpath(path)))    # beside the file a link names: the link stays
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise UserError(f"{path}: unknown clip format {suffix or '(none)'}; use .mp4 or .gif (or .avi)")
    if suffix == ".gif":
        gif = GifWriter(staging, fps, shown=path)
        return ClipWriter(path, "gif", "", gif.write, gif.close, staging, abandon=gif.abandon)
    av = import_av()
    if av is None:
        raise UserError(f"{path}: writing {suffix} needs PyAV, a dependency of gst-viewer (pip install av); "
                        "or write a .gif")
    codec, note = ("libx264" if suffix == ".mp4" else "mjpeg"), ""
    if codec == "libx264" and "libx264" not in av.codecs_available:
        codec, note = "mpeg4", "this PyAV build has no H.264 encoder (libx264): wrote MPEG-4 Part 2"
    try:
        writer = open_av_writer(staging, fps, size, codec)
    except av.FFmpegError as e:
        raise UserError(f"{path}: cannot write ({e})") from None
    writer.path, writer.staging = path, staging
    writer.note = "; ".join(n for n in (note, writer.note) if n)
    return writer
