"""Decoding video frames on demand with OpenCV, without disturbing Qt.

opencv-python bundles its own Qt plugins and, on import, points
QT_QPA_PLATFORM_PLUGIN_PATH (and QT_QPA_FONTDIR, LD_LIBRARY_PATH) at them.
A PyQt6 application started after that would load plugins built for another
Qt and crash, so `import_cv2()` restores the environment it found.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict

import numpy as np

_CV2_ENV = ("QT_QPA_PLATFORM_PLUGIN_PATH", "QT_QPA_FONTDIR", "LD_LIBRARY_PATH")
_import_lock = threading.Lock()


def import_cv2():
    """`cv2`, imported lazily, leaving the Qt-related environment as it was."""
    with _import_lock:
        saved = {k: os.environ.get(k) for k in _CV2_ENV}
        try:
            import cv2
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        return cv2


class VideoError(Exception):
    """A video that cannot be opened or decoded; the text says why, for the user."""


class VideoReader:
    """Random access to the frames of one video file, as RGB uint8 arrays.

    Sequential reads (playback) decode the next frame; any other index seeks.
    A small cache makes stepping back and forth free. Not thread-safe: use
    one reader per thread.
    """

    def __init__(self, path: str, cache_frames: int = 48):
        if not path or not os.path.isfile(path):
            raise VideoError(f"{path}: file not found")
        cv2 = import_cv2()
        self._cv2 = cv2
        self.path = path
        self._cap = cv2.VideoCapture(path)
        if not self._cap.isOpened():
            raise VideoError(f"{path}: not a readable video (OpenCV cannot open it)")
        self.fps = float(self._cap.get(cv2.CAP_PROP_FPS)) or 0.0
        self.n_frames = max(int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT)), 0)
        self.width = int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH))
        self.height = int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        self._next = 0                         # index the next read() returns
        self._cache: OrderedDict[int, np.ndarray] = OrderedDict()
        self._cache_frames = cache_frames
        first = self._read()
        if first is None:
            self.close()
            raise VideoError(f"{path}: no frame can be decoded (corrupt or unsupported video)")
        self._put(0, first)
        if self.n_frames <= 0:
            self.n_frames = 1

    def frame(self, index: int) -> np.ndarray:
        """Frame `index` (clamped to the video) as (h, w, 3) RGB; VideoError if undecodable."""
        index = min(max(int(index), 0), self.n_frames - 1)
        hit = self._cache.get(index)
        if hit is not None:
            self._cache.move_to_end(index)
            return hit
        if index != self._next:
            self._cap.set(self._cv2.CAP_PROP_POS_FRAMES, index)
            self._next = index
        img = self._read()
        if img is None:
            # Frame counts in container headers are estimates; trust what decodes.
            if index > 0 and index >= self.n_frames - 2:
                self.n_frames = index
                return self.frame(index - 1)
            raise VideoError(f"{self.path}: frame {index} cannot be decoded")
        self._put(index, img)
        return img

    def _read(self) -> np.ndarray | None:
        ok, bgr = self._cap.read()
        if not ok or bgr is None:
            return None
        self._next += 1
        return self._cv2.cvtColor(bgr, self._cv2.COLOR_BGR2RGB)

    def _put(self, index: int, img: np.ndarray) -> None:
        self._cache[index] = img
        if len(self._cache) > self._cache_frames:
            self._cache.popitem(last=False)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
