"""Geometry and scene.json speed.

Run by hand: `.venv/bin/python benchmarks/bench_geometry.py`. Prints medians.

Cases:
  * egocentric direction + distance + map point for 100,000 pose/target pairs,
    vectorised, against a per-pair Python loop (math module) in the same run;
  * loading a scene.json whose video has 6,000 poses (10 minutes at 10 fps),
    against bare json.loads of the same file.
"""
from __future__ import annotations

import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from viewer.core import geometry as g  # noqa: E402
from viewer.core.scene.model import load_scene  # noqa: E402


def median_time(fn, repeat=5) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def random_poses(n: int, rng) -> np.ndarray:
    yaw = rng.uniform(-np.pi, np.pi, n)
    poses = np.zeros((n, 4, 4))
    poses[:, 0, 0], poses[:, 1, 0] = np.sin(yaw), -np.cos(yaw)     # camera x (right)
    poses[:, 2, 1] = -1.0                                           # camera y (down)
    poses[:, 0, 2], poses[:, 1, 2] = np.cos(yaw), np.sin(yaw)       # camera z (forward)
    poses[:, :3, 3] = rng.uniform(-8, 8, (n, 3))
    poses[:, 3, 3] = 1.0
    return poses


def loop_reference(poses, targets, W):
    out = []
    for T, p in zip(poses.tolist(), targets.tolist()):
        fx, fy = T[0][2], T[1][2]
        n = math.hypot(fx, fy)
        fx, fy = fx / n, fy / n
        vx, vy = p[0] - T[0][3], p[1] - T[1][3]
        ang = math.degrees(math.atan2(fx * vy - fy * vx, fx * vx + fy * vy))
        dist = math.dist(p, (T[0][3], T[1][3], T[2][3]))
        px = W[0][0] * p[0] + W[0][1] * p[1] + W[0][2]
        py = W[1][0] * p[0] + W[1][1] * p[1] + W[1][2]
        pt = (min(999, max(0, math.floor(px / 640 * 1000))), min(999, max(0, math.floor(py / 512 * 1000))))
        out.append((ang, dist, pt))
    return out


def vectorised(poses, targets, W):
    return (g.egocentric_direction(poses, targets), g.egocentric_distance(poses, targets),
            g.pixel_to_normalised(g.world_to_pixel(W, targets), 640, 512))


def main() -> None:
    rng = np.random.default_rng(0)
    n = 100_000
    poses, targets = random_poses(n, rng), rng.uniform(-8, 8, (n, 3))
    W = np.array([[30.0, 0, 320], [0, -30.0, 256]])
    ang, dist, pts = vectorised(poses, targets, W)
    ref = loop_reference(poses[:1000], targets[:1000], W.tolist())
    assert np.allclose(ang[:1000], [r[0] for r in ref]) and np.allclose(dist[:1000], [r[1] for r in ref])
    assert (pts[:1000] == np.array([r[2] for r in ref])).all()
    t_vec = median_time(lambda: vectorised(poses, targets, W))
    t_loop = median_time(lambda: loop_reference(poses, targets, W.tolist()), repeat=3)
    print(f"direction+distance+point, {n:,} pairs: vectorised {t_vec * 1e3:.1f} ms, "
          f"python loop {t_loop * 1e3:.0f} ms, ratio {t_loop / t_vec:.0f}x")

    frames = 6000
    doc = {"format": "gst-scene/1", "scene": "scene_1", "camera_convention": "opengl",
           "instances": {f"chair_abcdef_{i}": {"semantic": "chair", "bbox3": {
               "translation": [i * 0.1, 0, 0.4], "size": [0.5, 0.5, 0.8], "rotation": [0, 0, 0, 1]}}
               for i in range(300)},
           "videos": {"video_0": {"fps": 10, "poses": [np.round(T, 6).ravel().tolist()
                                                       for T in random_poses(frames, rng)]}}}
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "scenes" / "scene_1" / "scene.json"
        f.parent.mkdir(parents=True)
        f.write_text(json.dumps(doc))
        scene = load_scene(tmp, "scene_1")
        assert len(scene.diagnostics) == 0, [str(d) for d in scene.diagnostics]
        assert scene.videos["video_0"].valid.all()
        t_load = median_time(lambda: load_scene(tmp, "scene_1"))
        t_json = median_time(lambda: json.loads(f.read_text()))
        size_mb = f.stat().st_size / 1e6
    print(f"load_scene, {frames:,} poses + 300 instances ({size_mb:.1f} MB): "
          f"{t_load * 1e3:.1f} ms, bare json.loads {t_json * 1e3:.1f} ms, ratio {t_load / t_json:.2f}x")


if __name__ == "__main__":
    main()
