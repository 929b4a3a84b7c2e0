"""How long the demo generator takes for one scene, against rendering its frames alone.

In one run, interleaved so machine load hits both alike:
  - generate: `generate_demo` for one scene at the bundled demo's settings
    (apartment, walk, video frames, query views, maps, distractor maps,
    mp4 encoding, scene.json, questions, predictions);
  - baseline: `Raycaster.render_view` of the same walk's frames, nothing else.
Prints medians and their ratio: how much the generator costs beyond the
unavoidable ray casting. The bundled demo (3 scenes) takes about 3x one scene.
With --textured, the same two again with the procedural textures of
`make-demo --textured` (demo/textures.py), and their cost against the flat
ones, wall and CPU time (CPU time, summed over threads, is the steadier on a
shared machine).

    .venv/bin/python benchmarks/bench_demo.py [--repeats 3] [--textured]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np


def baseline_render(seed: int, cfg) -> tuple[int, float, float]:
    from viewer.demo.apartment import make_apartment
    from viewer.demo.scenebuild import load_mesh
    from viewer.demo.textures import SurfaceTextures
    from viewer.demo.trajectory import FreeFloor, plan_walk
    from viewer.render.raycast import Raycaster
    rng = np.random.default_rng([seed, 1])
    apt = make_apartment(rng, "scene_1")
    walk = plan_walk(apt, FreeFloor(apt), rng)
    with tempfile.TemporaryDirectory() as tmp:
        caster = Raycaster(load_mesh(apt, Path(tmp) / "scene.glb"))
    K = cfg.intrinsics()
    texture = SurfaceTextures.for_apartment(caster.mesh, apt, seed) if cfg.textured else None
    t, c = time.perf_counter(), time.process_time()
    for pose in walk.poses():
        caster.render_view(pose, K, outlines=cfg.outlines, texture=texture)
    return len(walk), time.perf_counter() - t, time.process_time() - c


def generate(cfg) -> tuple[float, float]:
    from viewer.demo.generate import generate_demo
    with tempfile.TemporaryDirectory() as tmp:
        t, c = time.perf_counter(), time.process_time()
        generate_demo(Path(tmp) / "demo", scenes=1, seed=0, config=cfg, log=lambda m: None)
        return time.perf_counter() - t, time.process_time() - c


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--textured", action="store_true", help="also time the textured demo against the flat one")
    args = p.parse_args()
    from dataclasses import replace

    from viewer.demo.scenebuild import DemoConfig
    configs = {"flat": DemoConfig()}
    if args.textured:
        configs["textured"] = replace(DemoConfig(), textured=True)
    gen = {k: [] for k in configs}
    base = {k: [] for k in configs}
    frames = 0
    for _ in range(args.repeats):
        for name, cfg in configs.items():          # interleaved: load hits both alike
            gen[name].append(generate(cfg))
            frames, *seconds = baseline_render(0, cfg)
            base[name].append(tuple(seconds))
    cfg = configs["flat"]
    med = {k: (statistics.median(w for w, _ in gen[k]), statistics.median(c for _, c in gen[k]),
               statistics.median(w for w, _ in base[k]), statistics.median(c for _, c in base[k])) for k in configs}
    print(f"one scene at {cfg.width}x{cfg.height}, {frames} frames, median of {args.repeats}; wall (CPU) seconds")
    for name, (g, gc, b, bc) in med.items():
        print(f"  {name}:")
        print(f"    generate_demo (1 scene):        {g:7.2f} s ({gc:6.2f} s CPU)")
        print(f"    baseline: render_view x frames: {b:7.2f} s ({bc:6.2f} s CPU, {frames / b:.1f} frames/s)")
        print(f"    ratio generate / baseline:      {g / b:7.2f}")
    if args.textured:
        (g0, gc0, b0, bc0), (g1, gc1, b1, bc1) = med["flat"], med["textured"]
        print(f"  textured / flat: generate {g1 / g0:.2f}x wall, {gc1 / gc0:.2f}x CPU; "
              f"render_view {b1 / b0:.2f}x wall, {bc1 / bc0:.2f}x CPU")


if __name__ == "__main__":
    main()
