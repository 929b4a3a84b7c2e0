"""Writing the demo's media: H.264 videos, red target boxes, trajectories on maps.

Images are RGB in memory and converted to OpenCV's BGR only when written (OpenCV
only in the demo generator: see viewer/demo/opencv.py).
Videos are H.264 (yuv420p, `+faststart`) through PyAV, as published
releases ship them; libx264 on one thread with fixed settings writes the
same bytes for the same frames, so the demo regenerates identically.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from viewer.demo.opencv import import_cv2

RED = (230, 40, 40)
TRAJ_RED = (235, 70, 70)
START_BLUE = (70, 100, 235)
BOX_THICKNESS = 3


# A keyframe every 3 s at 10 fps: the window seeks to any frame by decoding at most 30.
DEMO_H264 = {"crf": "26", "g": "30"}


def write_video(path: Path, frames: list[np.ndarray], fps: int) -> None:
    from viewer.render.clip_writer import open_av_writer
    from viewer.render.video import import_av
    if import_av() is None:
        raise OSError(f"{path}: the demo's videos are written with PyAV (pip install av)")
    h, w = frames[0].shape[:2]
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = open_av_writer(path, fps, (w, h), options=DEMO_H264)
    try:
        for f in frames:
            writer.write(f)
    finally:
        writer.close()


def write_image(path: Path, rgb: np.ndarray, jpeg_quality: int = 90) -> None:
    cv2 = import_cv2()
    path.parent.mkdir(parents=True, exist_ok=True)
    params = [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality] if path.suffix.lower() in (".jpg", ".jpeg") \
        else [cv2.IMWRITE_PNG_COMPRESSION, 9]
    if not cv2.imwrite(str(path), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), params):
        raise OSError(f"{path}: cannot write the image")


def with_target_box(frames: list[np.ndarray], boxes: list[dict[int, list[int]]], index: int,
                    appear: np.ndarray) -> list[np.ndarray]:
    """Copies of the frames with a red box around mesh instance `index` where it appears."""
    cv2 = import_cv2()
    shown = set(int(k) for k in appear)
    out = []
    for k, frame in enumerate(frames):
        box = boxes[k].get(index) if k in shown else None
        if box is None:
            out.append(frame)
            continue
        f = frame.copy()
        x0, y0, x1, y1 = box
        cv2.rectangle(f, (x0, y0), (x1, y1), RED, BOX_THICKNESS)
        out.append(f)
    return out


def trajectory_on_map(map_rgb: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """The map with a path (map pixels, (N, 2)) in red and a blue dot at its start."""
    cv2 = import_cv2()
    img = map_rgb.copy()
    shift = 3                                          # sub-pixel line ends
    pts = np.round(np.asarray(pixels, float) * (1 << shift)).astype(np.int32)
    cv2.polylines(img, [pts.reshape(-1, 1, 2)], False, TRAJ_RED, 5, cv2.LINE_AA, shift)
    cv2.circle(img, tuple(int(v) for v in pts[0]), 8 << shift, START_BLUE, -1, cv2.LINE_AA, shift)
    return img
