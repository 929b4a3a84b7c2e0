"""How long the demo generator takes for one scene, against rendering its frames alone.

In one run, interleaved so machine load hits both alike:
  - generate: `generate_demo` for one scene at the bundled demo's settings
    (apartment, walk, video frames, query views, maps, distractor maps,
    mp4 encoding, scene.json, questions, predictions);
  - baseline: `Raycaster.render_view` of the same walk's frames, nothing else.
Prints medians and their ratio: how much the generator costs beyond the
unavoidable ray casting. The bundled demo (3 scenes) takes about 3x one scene.

    .venv/bin/python benchmarks/bench_demo.py [--repeats 3]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np


def baseline_render(seed: int, cfg) -> tuple[int, float]:
    from viewer.demo.apartment import make_apartment
    from viewer.demo.scenebuild import load_mesh
    from viewer.demo.trajectory import FreeFloor, plan_walk
    from viewer.render.raycast import Raycaster
    rng = np.random.default_rng([seed, 1])
    apt = make_apartment(rng, "scene_1")
    walk = plan_walk(apt, FreeFloor(apt), rng)
    with tempfile.TemporaryDirectory() as tmp:
        caster = Raycaster(load_mesh(apt, Path(tmp) / "scene.glb"))
    K = cfg.intrinsics()
    t = time.perf_counter()
    for pose in walk.poses():
        caster.render_view(pose, K, outlines=cfg.outlines)
    return len(walk), time.perf_counter() - t


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    from viewer.demo.generate import generate_demo
    from viewer.demo.scenebuild import DemoConfig
    cfg = DemoConfig()
    gen, base = [], []
    frames = 0
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            generate_demo(Path(tmp) / "demo", scenes=1, seed=0, config=cfg, log=lambda m: None)
            gen.append(time.perf_counter() - t)
        frames, seconds = baseline_render(0, cfg)
        base.append(seconds)
    g, b = statistics.median(gen), statistics.median(base)
    print(f"one scene at {cfg.width}x{cfg.height}, {frames} frames, median of {args.repeats}")
    print(f"  generate_demo (1 scene):        {g:7.2f} s")
    print(f"  baseline: render_view x frames: {b:7.2f} s  ({frames / b:.1f} frames/s)")
    print(f"  ratio generate / baseline:      {g / b:7.2f}")


if __name__ == "__main__":
    main()
