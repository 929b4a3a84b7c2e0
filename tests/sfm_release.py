"""A release without scenes plus a structure-from-motion result made from the demo's true poses.

The bundled demo's questions and media without its scenes' 3D metadata is the
shape GST-Bench ships in. Its SfM result is built from the generator's true
video and viewpoint poses, moved by a random similarity (SfM's frame is its
own), with noise and unregistered frames, and cached where the scene source
looks (`GST_VIEWER_CACHE`), so the alignment can be checked against the truth.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from viewer.assets import default_release
from viewer.core.geometry import quaternion_to_matrix
from viewer.core.scene.model import load_scene
from viewer.core.scene.sfm_result import PIPELINE_VERSION, QueryPose, SfmResult, save_sfm_result, sfm_cache_file

DEMO = default_release()
SCENE = "scene_1"
VIDEO = "video_0"


def scene_less(tmp: Path, edit=None, videos: bool = True) -> Path:
    """The demo's questions and media (videos kept unless `videos` is False) with no scene metadata and no
    meta, optionally edited: the shape of a published GST-Bench release."""
    out = tmp / "release"
    skip = ("scene.json", "*.glb") + (() if videos else ("*.mp4",))
    shutil.copytree(DEMO, out, ignore=shutil.ignore_patterns(*skip))
    recs = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    for r in recs:
        r.pop("meta", None)
    if edit:
        edit(recs)
    (out / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return out


class Similarity:
    """A random similarity: SfM's frame for the demo's world."""

    def __init__(self, rng):
        q = rng.normal(size=4)
        self.R = quaternion_to_matrix(q / np.linalg.norm(q))
        self.s = float(rng.uniform(0.2, 3.0))
        self.t = rng.normal(size=3) * 4

    def points(self, xyz):
        return self.s * np.asarray(xyz, float) @ self.R.T + self.t

    def poses(self, c2w):
        out = np.array(c2w, float)
        out[..., :3, :3] = self.R @ out[..., :3, :3]
        out[..., :3, 3] = self.points(out[..., :3, 3])
        return out


def fake_result(root: Path, seed: int = 0, noise_m: float = 0.05, unregistered: float = 0.3,
                queries: bool = True) -> tuple[SfmResult, Similarity]:
    """The SfM result of scene_1's video_0 from the true poses, moved, noisy, with frames missing."""
    rng = np.random.default_rng(seed)
    truth = load_scene(DEMO, SCENE)
    sim = Similarity(rng)
    poses = sim.poses(truth.videos[VIDEO].poses)
    poses[:, :3, 3] += rng.normal(scale=noise_m * sim.s, size=(len(poses), 3))
    poses[rng.random(len(poses)) < unregistered] = np.nan
    boxes = [i.bbox for i in truth.instances.values() if i.bbox is not None]
    pts = np.concatenate([b.corners() for b in boxes])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    floor = np.column_stack([rng.uniform(lo[0], hi[0], 300), rng.uniform(lo[1], hi[1], 300), np.zeros(300)])
    pts = np.concatenate([pts, floor])
    qp = {}
    if queries:
        for vid, vp in truth.viewpoints.items():
            name = f"scenes/{SCENE}/views/{vid}.jpg"
            pose = sim.poses(vp.pose)
            pose[:3, 3] += rng.normal(scale=noise_m * sim.s, size=3)        # localised as noisily as the path
            qp[name] = QueryPose(name, pose, 240, 400, 0.9)
    video = root / "scenes" / SCENE / "videos" / f"{VIDEO}.mp4"
    result = SfmResult(str(video), len(poses), poses, truth.videos[VIDEO].intrinsics, sim.points(pts),
                       np.full((len(pts), 3), 128, np.uint8), qp, {"fps": 10})
    return result, sim


def cache(result: SfmResult) -> Path:
    path, key = sfm_cache_file(result.video, PIPELINE_VERSION)
    save_sfm_result(result, path, key)
    return path
