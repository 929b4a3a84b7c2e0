"""A small textured room walked through by a known smooth camera: a video for structure from motion.

The room is a box (6 x 4 x 2.5 m, z up), with four boxes in it, whose faces carry
blocky value noise at two scales, tinted per face, so SIFT finds corners
everywhere as it does in real footage. Each frame is ray cast in numpy: the
ray's exit through the box's faces. Poses are camera-to-world, OpenCV (x
right, y down, z forward), as `SfmResult` holds them.
"""
from __future__ import annotations

import functools

import numpy as np

ROOM = np.array([[-3.0, 3.0], [-2.0, 2.0], [0.0, 2.5]])
# Furniture, so that a view is not one plane (a homography would explain it, and no focal length or
# initial pair could be found from it): axis-aligned boxes [[x0, x1], [y0, y1], [z0, z1]].
BOXES = [np.array(b, float) for b in ([[-0.6, 0.4], [-0.5, 0.3], [0.0, 0.9]], [[2.2, 2.9], [-1.9, -0.9], [0.0, 1.6]],
                                      [[-2.9, -2.0], [1.0, 1.9], [0.0, 1.2]], [[0.8, 1.6], [1.4, 1.9], [0.0, 2.0]])]
TINTS = np.array([[1.0, 0.8, 0.6], [0.6, 0.9, 1.0], [0.9, 1.0, 0.7], [1.0, 0.7, 0.9], [0.8, 0.8, 0.8], [0.7, 1.0, 0.9]])


def pose(position, yaw: float) -> np.ndarray:
    """Camera-to-world (OpenCV) of a level camera at `position` looking along heading `yaw` (radians)."""
    fwd = np.array([np.cos(yaw), np.sin(yaw), 0.0])
    right = np.array([np.sin(yaw), -np.cos(yaw), 0.0])
    m = np.eye(4)
    m[:3, :3] = np.column_stack([right, [0.0, 0.0, -1.0], fwd])
    m[:3, 3] = position
    return m


def path(frames: int) -> np.ndarray:
    """(frames, 4, 4): most of half an ellipse around the room's middle, looking ahead and into the room."""
    t = np.linspace(0.0, np.pi * 0.9, frames)
    out = []
    for a in t:
        p = np.array([1.6 * np.cos(a), 1.0 * np.sin(a), 1.4])
        tangent = np.array([-1.6 * np.sin(a), 1.0 * np.cos(a)])
        out.append(pose(p, float(np.arctan2(tangent[1], tangent[0])) + 0.7))
    return np.array(out)


def _hash(ix: np.ndarray, iy: np.ndarray, face: np.ndarray, seed: int) -> np.ndarray:
    h = (ix * 73856093) ^ (iy * 19349663) ^ (face * 83492791) ^ seed
    h = (h ^ (h >> 13)) * 1274126177
    return ((h ^ (h >> 16)) & 0xFFFF) / 65535.0


def render(c2w: np.ndarray, width: int, height: int, hfov_deg: float = 70.0, seed: int = 0) -> np.ndarray:
    """The room seen from `c2w`: (height, width, 3) uint8; another `seed` papers it differently."""
    f = width / 2 / np.tan(np.radians(hfov_deg) / 2)
    u, v = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    d_cam = np.stack([(u - width / 2) / f, (v - height / 2) / f, np.ones_like(u)], -1)
    d = d_cam @ c2w[:3, :3].T
    o = c2w[:3, 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        t_hi = (ROOM[:, 1] - o) / d
        t_lo = (ROOM[:, 0] - o) / d
    t_exit = np.where(d > 0, t_hi, t_lo)
    t_exit = np.where(np.isfinite(t_exit) & (t_exit > 0), t_exit, np.inf)
    axis = t_exit.argmin(-1)
    t = t_exit.min(-1)
    face = axis * 2 + (np.take_along_axis(d, axis[..., None], -1)[..., 0] > 0)
    for b, box in enumerate(BOXES):                 # furniture: the ray's entry into each box, when nearer
        with np.errstate(divide="ignore", invalid="ignore"):
            t1, t2 = (box[:, 0] - o) / d, (box[:, 1] - o) / d
        near, far = np.minimum(t1, t2), np.maximum(t1, t2)
        t_in, t_out = np.nanmax(near, -1), np.nanmin(far, -1)
        hit = (t_in < t_out) & (t_in > 0) & (t_in < t)
        t = np.where(hit, t_in, t)
        box_axis = np.nanargmax(near, -1)
        axis = np.where(hit, box_axis, axis)
        face = np.where(hit, 6 + 2 * b + (box_axis % 2), face)
    hit = o + d * t[..., None]
    # the two coordinates across the face
    a = np.where(axis == 0, hit[..., 1], hit[..., 0])
    b = np.where(axis == 2, hit[..., 1], hit[..., 2])
    value = np.zeros_like(a)
    for cell, weight, layer in ((0.25, 0.6, 1), (0.08, 0.4, 2)):
        value += weight * _hash(np.floor(a / cell).astype(np.int64), np.floor(b / cell).astype(np.int64), face,
                                layer + 1000 * seed)
    rgb = (40 + 200 * value)[..., None] * TINTS[face % len(TINTS)]
    return np.clip(rgb, 0, 255).astype(np.uint8)


def write_mp4(path, frames: list[np.ndarray], fps: int = 10) -> None:
    import av
    h, w = frames[0].shape[:2]
    with av.open(str(path), "w", format="mp4") as c:
        s = c.add_stream("libx264", rate=fps)
        s.width, s.height, s.pix_fmt = w, h, "yuv420p"
        # Lossless (qp 0): the decoded frames are the rendered ones (but for yuv420p's shared colour), the same
        # at every run. At crf 12 x264 gave each run slightly different frames (even on one thread), and the
        # demo walk's reconstruction fell into a good or a bad solution by run (tests/test_sfm_demo_walk.py
        # failed 8 runs in 8 one afternoon after passing that morning): a flaky test. What compression does to
        # a reconstruction is measured on the whole textured demo by benchmarks/bench_reconstruct_video.py --demo.
        s.options = {"qp": "0", "g": "10"}
        for img in frames:
            for packet in s.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                c.mux(packet)
        for packet in s.encode():
            c.mux(packet)


QUERY_VIEW = "views/query.png"
POS_UID = "scene1_Egocentric_Localization_Global_Position_pos_1_orient_2_video_0"


def write_pos_release(root, frames: list[np.ndarray], query: np.ndarray) -> None:
    """The walk as a release of one Pos question (GST-Bench's layout): `video0.mp4`, its view `query` at
    QUERY_VIEW, a grey map and `questions.jsonl`."""
    import json

    from viewer.render.image_io import write_png
    write_mp4(root / "video0.mp4", frames)
    (root / "views").mkdir(exist_ok=True)
    write_png(root / QUERY_VIEW, query)
    write_png(root / "views/map.png", np.full((64, 64, 3), 200, np.uint8))
    (root / "questions.jsonl").write_text(json.dumps({
        "uid": POS_UID, "task": "Self_Localization_Global_Position", "scene": "scene_1",
        "answer": "<point>500 500</point>",
        "texts": ["This is the video:", "Your current view is :", "The top-down image of the scene is:",
                  "Where are you?"],
        "copied_video_path": "video0.mp4",
        "images": [{"index": 1, "copied_path": QUERY_VIEW}, {"index": 2, "copied_path": "views/map.png"}]}) + "\n")


@functools.lru_cache(maxsize=2)
def walkthrough(frames: int = 24, width: int = 240, height: int = 180) -> tuple[list, np.ndarray]:
    """(the frames, their true camera-to-world poses)."""
    poses = path(frames)
    return [render(p, width, height) for p in poses], poses


def fit_similarity(src: np.ndarray, dst: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Umeyama: (s, R, t) minimising |s R src + t - dst|."""
    ms, md = src.mean(0), dst.mean(0)
    a, b = src - ms, dst - md
    u, sig, vt = np.linalg.svd(b.T @ a / len(src))
    e = np.eye(3)
    e[2, 2] = np.sign(np.linalg.det(u @ vt))
    r = u @ e @ vt
    s = float((sig * np.diag(e)).sum() / (a ** 2).sum(1).mean())
    return s, r, md - s * r @ ms
