"""Decoding video frames on demand through PyAV (FFmpeg).

PyAV reads the container's packet index when a file is opened, so the frame
count and every frame's timestamp are exact (OpenCV's count was the header's
estimate) and a seek goes to the right keyframe and decodes forward only as
far as needed. Measured on the demo's 640x512 H.264 videos, it decoded
sequentially and sought at random at least as fast as `cv2.VideoCapture`,
the reader it replaced (OpenCV is no longer a dependency of the app: see
docs/scale.md, "Packaging").
"""
from __future__ import annotations

import os
from collections import OrderedDict

import numpy as np

from ..core.media import LFS_PROBLEM, lfs_pointer_file


def import_av():
    """`av` (PyAV), or None when it is not installed."""
    try:
        import av
    except ImportError:
        return None
    return av


class VideoError(Exception):
    """A video that cannot be opened or decoded; the text says why, for the user."""


# The cache's bound in bytes as well as frames: 48 frames of the demo's 640x512 video are 47 MB, of a
# 10,000 x 10,000 one 14 GB. The newest frame is always kept.
CACHE_BYTES = 256 * 1024**2


class _FrameCache:
    """The last decoded frames of a reader, so stepping back and forth is free; at most `cache_frames`
    frames and CACHE_BYTES bytes."""

    def __init__(self, cache_frames: int):
        self._cache: OrderedDict[int, np.ndarray] = OrderedDict()
        self._cache_frames = cache_frames
        self._cache_bytes = 0

    def _cached(self, index: int) -> np.ndarray | None:
        hit = self._cache.get(index)
        if hit is not None:
            self._cache.move_to_end(index)
        return hit

    def _put(self, index: int, img: np.ndarray) -> None:
        old = self._cache.pop(index, None)
        if old is not None:
            self._cache_bytes -= old.nbytes
        self._cache[index] = img
        self._cache_bytes += img.nbytes
        while len(self._cache) > 1 and (len(self._cache) > self._cache_frames or self._cache_bytes > CACHE_BYTES):
            self._cache_bytes -= self._cache.popitem(last=False)[1].nbytes

    def close(self) -> None:
        raise NotImplementedError

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class AvVideoReader(_FrameCache):
    """Random access to the frames of one video file through PyAV, as RGB uint8 arrays.

    The packet index read at open gives each frame's presentation time and
    the keyframes. A frame ahead of the decoder in the same group of
    pictures is reached by decoding forward; any other one by seeking to the
    keyframe at or before it. A small cache makes stepping back and forth
    free. Not thread-safe: use one reader per thread.
    """

    def __init__(self, path: str, cache_frames: int = 48, probe_end: bool = False):
        if not path or not os.path.isfile(path):
            raise VideoError(f"{path}: file not found")
        if lfs_pointer_file(path):
            raise VideoError(f"{path}: {LFS_PROBLEM}")
        av = import_av()
        self.path = path
        super().__init__(cache_frames)
        self._container = None
        self.problem: str | None = None          # what is wrong with a file that still shows frames
        cut = False
        pts, key = [], []
        try:
            self._container = av.open(path)
            if not self._container.streams.video:
                audio = " (it holds audio only)" if self._container.streams.audio else ""
                raise VideoError(f"{path}: no video stream{audio}{container_problem(path)}")
            self._stream = stream = self._container.streams.video[0]
            if stream.codec_context is None:
                raise VideoError(f"{path}: its video codec is unknown or damaged; no frame can be decoded"
                                 f"{container_problem(path)}")
            try:
                for packet in self._container.demux(stream):
                    if packet.pts is not None and packet.size:
                        pts.append(packet.pts)
                        key.append(bool(packet.is_keyframe))
            except (av.FFmpegError, OSError, ValueError):
                if not pts:
                    raise
                cut = True                   # the index goes on past the data: keep the packets read
        except VideoError:
            self.close()
            raise
        except (av.FFmpegError, OSError, ValueError) as e:
            self.close()
            raise VideoError(f"{path}: not a readable video ({e}{container_problem(path)})") from None
        if not pts:
            self.close()
            raise VideoError(f"{path}: no frame can be decoded: the video holds no frames"
                             f"{container_problem(path) or ' (corrupt or unsupported video)'}")
        order = np.argsort(pts, kind="stable")
        self.pts = np.asarray(pts, np.int64)[order]            # presentation order
        self._keyframe = np.asarray(key, bool)[order]
        self._keyframe[0] = True
        tb = float(stream.time_base) if stream.time_base else 0.0
        self.times = (self.pts - self.pts[0]) * tb               # seconds from the first frame
        rate = stream.average_rate or stream.guessed_rate
        self.fps = float(rate) if rate else 0.0
        self.n_frames = len(self.pts)
        self.width = stream.codec_context.width
        self.height = stream.codec_context.height
        self._decoder = None
        self._next = self.n_frames                # index the decoder yields next (none open)
        stream.thread_type = "AUTO"
        try:
            self._put(0, self._decode_to(0))
        except VideoError as e:
            self.close()
            why = f"{getattr(e, 'cause', '')}{container_problem(path)}".lstrip("; ")
            raise VideoError(f"{path}: no frame can be decoded" + (f" ({why})" if why else "")) from None
        # A file whose index names more frames than its data holds is cut: where it ends is found now, so that
        # no frame past it is asked for. The last frame of a file that looks whole is decoded only when asked
        # (`probe_end`; the audit and the exports do): it costs a group of pictures, 10x the open.
        self._declared = max(int(stream.frames or 0), self.n_frames)
        cut = cut or self._declared > self.n_frames or bool(container_problem(path))
        if cut or probe_end:
            self._probe_end(self._declared, cut)

    def _probe_end(self, declared: int, cut: bool) -> None:
        """Decode the last frame; when it cannot be, find the last one that can (from the last keyframe that
        decodes, forward) and keep the video to frames 0..that, saying so in `problem`."""
        last = self.n_frames - 1
        if last > 0:
            try:
                self._put(last, self._decode_to(last))
            except VideoError:
                self.n_frames = self._decodable_end()
        if self.n_frames < declared:
            self.problem = (f"frames 1–{self.n_frames} of {declared} decodable; the file is cut" if cut else
                            f"frames 1–{self.n_frames} of {declared} decodable; the rest cannot be decoded "
                            "(the file is damaged)")
        elif cut:
            self.problem = (f"all {self.n_frames} frames decode, but the file is cut"
                            f"{container_problem(self.path).replace('; the file is cut', '')}")
        self._decoder = None
        self._next = self.n_frames

    def _decodable_end(self) -> int:
        """1 + the last frame that decodes (at least 1: frame 0 did)."""
        av = import_av()
        for key in np.flatnonzero(self._keyframe)[::-1]:
            key = int(key)
            end = key
            try:
                self._container.seek(int(self.pts[key]), stream=self._stream, backward=True, any_frame=False)
                for f in self._container.decode(self._stream):
                    if f.pts is not None:
                        end = max(end, int(np.searchsorted(self.pts, f.pts)) + 1)
            except (av.FFmpegError, OSError, ValueError):
                pass
            if end > key:
                return min(end, self.n_frames)
        return 1

    def frame(self, index: int) -> np.ndarray:
        """Frame `index` (clamped to the decodable frames) as (h, w, 3) RGB; VideoError if undecodable."""
        index = min(max(int(index), 0), self.n_frames - 1)
        hit = self._cached(index)
        if hit is not None:
            return hit
        try:
            img = self._decode_to(index)
        except VideoError:
            if self.problem is None:         # damaged inside: how far it decodes is said from now on
                self._probe_end(self._declared, False)
                if self.problem is None:
                    self.problem = f"frame {index + 1} of {self.n_frames} cannot be decoded (the file is damaged)"
            raise
        self._put(index, img)
        return img

    def _decode_to(self, index: int) -> np.ndarray:
        av = import_av()
        key = int(np.flatnonzero(self._keyframe[: index + 1])[-1])
        target = int(self.pts[index])
        try:
            if not (self._decoder is not None and key <= self._next <= index):
                self._container.seek(int(self.pts[key]), stream=self._stream, backward=True, any_frame=False)
                self._decoder = self._container.decode(self._stream)
                self._next = key
            for f in self._decoder:
                if f.pts is None:
                    continue
                self._next = int(np.searchsorted(self.pts, f.pts)) + 1
                if f.pts >= target:
                    return f.to_ndarray(format="rgb24")
        except (av.FFmpegError, OSError, ValueError) as e:    # whatever FFmpeg says of damaged data
            self._decoder = None
            error = VideoError(f"{self.path}: frame {index} cannot be decoded ({e})")
            error.cause = getattr(e, "strerror", None) or str(e)
            raise error from None
        self._decoder = None
        error = VideoError(f"{self.path}: frame {index} cannot be decoded")
        error.cause = "the data ends before it"
        raise error

    def close(self) -> None:
        if self._container is not None:
            self._container.close()
            self._container = None
            self._decoder = None


def container_problem(path: str) -> str:
    """What the top-level boxes of an MP4/MOV file say is wrong ("; ..."), else "": a box that runs past the
    end of the file (cut), or no `moov` box (the frame index) at all."""
    if os.path.splitext(path)[1].lower() not in (".mp4", ".mov", ".m4v"):
        return ""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            seen, at = [], 0
            while at + 8 <= size and len(seen) < 10_000:
                f.seek(at)
                head = f.read(16)
                length, kind = int.from_bytes(head[:4], "big"), head[4:8].decode("latin-1")
                if length == 1 and len(head) >= 16:
                    length = int.from_bytes(head[8:16], "big")
                elif length == 0:
                    length = size - at
                if length < 8:
                    return f"; its box at byte {at} is damaged"
                seen.append(kind)
                if at + length > size:
                    if kind == "moov" or "moov" in seen:
                        return f"; the file is cut inside its {kind!r} box ({size:,} of {at + length:,} bytes)"
                    return "; the file is cut before its 'moov' box (the index of its frames)"
                at += length
    except OSError:
        return ""
    if "moov" not in seen:
        return "; it has no 'moov' box (the index of its frames): cut or damaged"
    return ""


def probe_video(path: str) -> str | None:
    """Why the video at `path` cannot be shown whole (its first and last frames decoded), or None."""
    try:
        reader = VideoReader(path, cache_frames=2, probe_end=True)
    except VideoError as e:
        return str(e).removeprefix(f"{path}: ")
    try:
        return reader.problem
    finally:
        reader.close()


def same_frame_count(a: str, b: str) -> bool:
    """Whether two video files hold as many frames, by their packet indexes (a red-box copy of a walkthrough
    does: core/scene/walks.py); False when either cannot be read."""
    counts = []
    for path in (a, b):
        try:
            reader = VideoReader(path)
        except VideoError:
            return False
        counts.append(reader.n_frames)
        reader.close()
    return counts[0] == counts[1]


def VideoReader(path: str, cache_frames: int = 48, probe_end: bool = False) -> AvVideoReader:
    """A reader for `path`, giving `frame(k)`, `n_frames`, `fps`, `width`, `height`, `problem`, `close()`;
    VideoError when the file shows no frame, or when PyAV, a dependency of gst-viewer, is missing.
    `probe_end`: decode the last frame now, so that `problem` also says a damaged end."""
    if import_av() is None:
        raise VideoError(f"{path}: cannot decode video without PyAV (pip install av)")
    return AvVideoReader(path, cache_frames, probe_end)
