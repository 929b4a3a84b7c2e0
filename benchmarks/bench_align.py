"""Aligning a structure-from-motion model to the map by the answers (core/scene/align.py).

Run by hand: `.venv/bin/python benchmarks/bench_align.py`. Prints medians.

A synthetic walkthrough of 3,000 frames (10 fps, 5 minutes) moved by a random
similarity, with V query views each giving a position and a heading answer
(one position 11 m off). The work grows with the views: RANSAC over every
pair (400 at most) for the fit, and again without each view for its
leave-one-out residual. The baseline, measured in the same run, is the fit
alone (no leave-one-out residuals): the ratio is what judging each answer
without its own view costs. Goal: a 30-view scene under 1 s.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_geometry import median_time  # noqa: E402  (the benchmarks folder is on sys.path)

from viewer.core import geometry as geo  # noqa: E402
from viewer.core.scene import align as al  # noqa: E402

FRAMES = 3000
M_PER_PX = 0.02
W = np.array([[1 / M_PER_PX, 0, 0], [0, -1 / M_PER_PX, 0]])


def walk(n: int, rng) -> np.ndarray:
    """Camera-to-world poses (OpenCV) of a camera 1.5 m up, looking ahead, wandering in a 20 m room."""
    yaw = np.cumsum(rng.normal(0, 0.05, n))
    xy = np.cumsum(np.column_stack([np.cos(yaw), np.sin(yaw)]) * 0.05, axis=0)
    xy = (xy - xy.min(0)) / np.ptp(xy, axis=0).max() * 20
    f = np.column_stack([np.cos(yaw), np.sin(yaw), np.zeros(n)])
    down = np.tile([0.0, 0.0, -1.0], (n, 1))
    right = np.cross(f, -down)
    poses = np.tile(np.eye(4), (n, 1, 1))
    poses[:, :3, 0], poses[:, :3, 1], poses[:, :3, 2] = right, down, f
    poses[:, :3, 3] = np.column_stack([xy, np.full(n, 1.5)])
    return poses


def scene(views: int, rng):
    true = walk(FRAMES, rng)
    q = rng.normal(size=4)
    R, s, t = geo.quaternion_to_matrix(q / np.linalg.norm(q)), 0.7, rng.normal(size=3)
    model = true.copy()
    model[:, :3, :3] = R @ true[:, :3, :3]
    model[:, :3, 3] = s * true[:, :3, 3] @ R.T + t
    model[rng.random(FRAMES) < 0.3] = np.nan
    anchors = []
    for k, i in enumerate(rng.choice(FRAMES, views, replace=False)):
        px = geo.world_to_pixel(W, true[i, :3, 3]) + (400 if k == 0 else 0)      # the first answer: 11 m off
        anchors.append(al.Anchor("position", f"v{k}", s * true[i, :3, 3] @ R.T + t, px, (f"Pos {k}",)))
        anchors.append(al.Anchor("heading", f"v{k}", R @ true[i, :3, 2], float(geo.map_heading(true[i], W)),
                                 (f"Ori {k}",)))
    return model, anchors


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'views':>6} {'align (s)':>10} {'fit only (s)':>13} {'ratio':>6}  wrong answer left out")
    for views in (5, 30, 100):
        model, anchors = scene(views, rng)
        result = al.align(model, anchors, M_PER_PX, (1000, 1000))
        wrong = next(r for r in result.residuals if r.anchor.group == "v0" and r.anchor.kind == "position")
        full = median_time(lambda m=model, x=anchors: al.align(m, x, M_PER_PX, (1000, 1000)), repeat=3)
        basis, origin = al.floor_frame(model[np.isfinite(model).all(axis=(1, 2))])
        pos = [x for x in anchors if x.kind == "position"]
        hd = [x for x in anchors if x.kind == "heading"]
        a = al._flat(basis, origin, np.array([x.model for x in pos]))
        b = np.array([complex(*x.answer) for x in pos])
        hv = al._flat(basis, np.zeros(3), np.array([x.model for x in hd]))
        hu = al._heading_dir([x.answer for x in hd])
        fit = median_time(lambda a=a, b=b, hv=hv, hu=hu: al._fit(a, b, hv, hu, al.POS_TOLERANCE_M / M_PER_PX),
                          repeat=3)
        print(f"{views:>6} {full:>10.3f} {fit:>13.3f} {full / fit:>6.1f}  "
              f"{not wrong.inlier} ({wrong.residual_m:.1f} m; left out {wrong.left_out_m:.1f} m)")


if __name__ == "__main__":
    main()
