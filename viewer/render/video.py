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

    def __init__(self, path: str, cache_frames: int = 48):
        if not path or not os.path.isfile(path):
            raise VideoError(f"{path}: file not found")
        if lfs_pointer_file(path):
            raise VideoError(f"{path}: {LFS_PROBLEM}")
        av = import_av()
        self.path = path
        super().__init__(cache_frames)
        self._container = None
        try:
            self._container = av.open(path)
            if not self._container.streams.video:
                raise VideoError(f"{path}: no video stream")
            self._stream = stream = self._container.streams.video[0]
            pts, key = [], []
            for packet in self._container.demux(stream):
                if packet.pts is not None:
                    pts.append(packet.pts)
                    key.append(bool(packet.is_keyframe))
        except (av.FFmpegError, OSError, ValueError) as e:
            self.close()
            raise VideoError(f"{path}: not a readable video ({e})") from None
        if not pts:
            self.close()
            raise VideoError(f"{path}: no frame can be decoded (corrupt or unsupported video)")
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
        except VideoError:
            self.close()
            raise

    def frame(self, index: int) -> np.ndarray:
        """Frame `index` (clamped to the video) as (h, w, 3) RGB; VideoError if undecodable."""
        index = min(max(int(index), 0), self.n_frames - 1)
        hit = self._cached(index)
        if hit is not None:
            return hit
        img = self._decode_to(index)
        self._put(index, img)
        return img

    def _decode_to(self, index: int) -> np.ndarray:
        av = import_av()
        key = int(np.flatnonzero(self._keyframe[: index + 1])[-1])
        if not (self._decoder is not None and key <= self._next <= index):
            self._container.seek(int(self.pts[key]), stream=self._stream, backward=True, any_frame=False)
            self._decoder = self._container.decode(self._stream)
            self._next = key
        target = int(self.pts[index])
        try:
            for f in self._decoder:
                if f.pts is None:
                    continue
                self._next = int(np.searchsorted(self.pts, f.pts)) + 1
                if f.pts >= target:
                    return f.to_ndarray(format="rgb24")
        except av.FFmpegError as e:
            self._decoder = None
            raise VideoError(f"{self.path}: frame {index} cannot be decoded ({e})") from None
        self._decoder = None
        raise VideoError(f"{self.path}: frame {index} cannot be decoded")

    def close(self) -> None:
        if self._container is not None:
            self._container.close()
            self._container = None
            self._decoder = None


def VideoReader(path: str, cache_frames: int = 48) -> AvVideoReader:
    """A reader for `path`, giving `frame(k)`, `n_frames`, `fps`, `width`, `height`, `close()`;
    VideoError when PyAV, a dependency of gst-viewer, is missing."""
    if import_av() is None:
        raise VideoError(f"{path}: cannot decode video without PyAV (pip install av)")
    return AvVideoReader(path, cache_frames)
