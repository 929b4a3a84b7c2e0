"""Decoding the exploration video: the app's PyAV reader against OpenCV (issue 17).

Run: `.venv/bin/python benchmarks/bench_video.py [VIDEO]`.

Prints, per reader, the time to decode every frame in order, 40 random seeks,
and a scrub forward in steps of 5 frames (the window's slider). Default
video: the bundled demo's first exploration video. OpenCV, which the app no
longer uses, is measured as the reference when it is installed (the test extra has it).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from viewer.render.video import AvVideoReader  # noqa: E402


class CvVideoReader:
    """The reader the app used before PyAV: cv2.VideoCapture, seeking only when the index is not the next."""

    def __init__(self, path: str, cache_frames: int = 1):
        from viewer.demo.opencv import import_cv2
        self._cv2 = cv2 = import_cv2()
        self._cap = cv2.VideoCapture(path)
        self.n_frames = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT))
        self._next = 0

    def frame(self, index: int) -> np.ndarray:
        if index != self._next:
            self._cap.set(self._cv2.CAP_PROP_POS_FRAMES, index)
        ok, bgr = self._cap.read()
        self._next = index + 1
        return bgr[:, :, ::-1] if ok else None

    def close(self) -> None:
        self._cap.release()


def measure(cls, path: str) -> dict[str, float]:
    out = {}
    r = cls(path, cache_frames=1)
    n = r.n_frames
    t = time.perf_counter()
    for k in range(n):
        r.frame(k)
    out["sequential"] = time.perf_counter() - t
    t = time.perf_counter()
    for k in np.random.default_rng(0).integers(0, n, 40):
        r.frame(int(k))
    out["40 random seeks"] = time.perf_counter() - t
    t = time.perf_counter()
    for k in range(0, n, 5):
        r.frame(k)
    out["scrub, step 5"] = time.perf_counter() - t
    r.close()
    return out


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "assets/demo/scenes/scene_1/videos/video_0.mp4")
    try:
        import cv2  # noqa: F401
        readers = (CvVideoReader, AvVideoReader)
    except ImportError:
        readers = (AvVideoReader,)
    for cls in readers:
        res = measure(cls, path)
        print(f"{cls.__name__:14s} " + "  ".join(f"{k}: {v:.3f} s" for k, v in res.items()))


if __name__ == "__main__":
    main()
