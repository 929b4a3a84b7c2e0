"""`import-scene` speed: a 1M-triangle PLY with a 5,000-pose trajectory, and the imported scene's top-down maps.

Run by hand: `.venv/bin/python benchmarks/bench_import.py [--triangles N] [--poses N] [--repeat N]`.
Prints medians of --repeat runs, each against a baseline timed in the same run:

  import          `import_scene` (mesh reading, trajectory, checks, both maps, writing) in-process
  baseline        `trimesh.load` of the same PLY: the floor for "most of it is mesh reading"
  maps            rendering the floor plan and occupancy map (640 x 512) of the imported mesh
  maps baseline   casting the same number of rays (640 x 512, twice) straight down with the same ray caster

The inputs (a room-sized wavy terrain of N triangles, a TUM trajectory
walking a loop in it) are generated once into a temp folder; generation is
not timed.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def make_inputs(folder: Path, triangles: int, poses: int) -> tuple[Path, Path]:
    import trimesh
    side = int(np.sqrt(triangles / 2)) + 1                 # a grid of side x side quads, 2 triangles each
    x, y = np.meshgrid(np.linspace(0, 8, side + 1), np.linspace(0, 6, side + 1))
    z = 0.05 * np.sin(3 * x) * np.cos(2 * y)
    vertices = np.stack([x, y, z], axis=-1).reshape(-1, 3)
    i = np.arange(side)[:, None] * (side + 1) + np.arange(side)[None, :]
    quads = np.stack([i, i + 1, i + side + 2, i + side + 1], axis=-1).reshape(-1, 4)
    faces = np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])[:triangles]
    mesh_path = folder / "terrain.ply"
    trimesh.Trimesh(vertices, faces, process=False).export(str(mesh_path))
    t = np.linspace(0, 2 * np.pi, poses, endpoint=False)
    cx, cy = 4 + 2.5 * np.cos(t), 3 + 2 * np.sin(t)
    yaw = t + np.pi / 2                        # walking along the loop, looking ahead
    # OpenCV camera looking along (cos yaw, sin yaw, 0), level: as a quaternion (x, y, z, w).
    lines = ["# timestamp tx ty tz qx qy qz qw"]
    for k in range(poses):
        fwd = np.array([np.cos(yaw[k]), np.sin(yaw[k]), 0.0])
        right = np.cross(fwd, [0, 0, 1])
        R = np.column_stack([right, np.cross(fwd, right), fwd])
        w = np.sqrt(max(1e-12, 1 + np.trace(R))) / 2
        q = [(R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w), (R[1, 0] - R[0, 1]) / (4 * w), w]
        lines.append(f"{k / 30:.4f} {cx[k]:.4f} {cy[k]:.4f} 1.5 {q[0]:.6f} {q[1]:.6f} {q[2]:.6f} {q[3]:.6f}")
    traj_path = folder / "walk.txt"
    traj_path.write_text("\n".join(lines) + "\n")
    return mesh_path, traj_path


def timed(fn, *args):
    """(seconds, result) of fn(*args)."""
    t = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - t, result


def cast_only(mesh) -> None:
    """What the two maps cost in open3d alone: the BVH and two 640 x 512 grids of vertical rays."""
    from viewer.render.raycast import Raycaster
    from viewer.render.scene_import import MAP_SIZE
    from viewer.render.topdown import _vertical_rays, fit_world_to_pixel
    lo, hi = mesh.bounds()
    W = fit_world_to_pixel(lo, hi, *MAP_SIZE)
    caster = Raycaster(mesh)
    for _ in range(2):
        caster.cast(_vertical_rays(W, *MAP_SIZE, float(hi[2]) + 1, -1.0))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--triangles", type=int, default=1_000_000)
    p.add_argument("--poses", type=int, default=5_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()

    import trimesh

    from viewer.core.scene.model import Scene
    from viewer.render.scene_import import ImportRequest, import_scene, render_maps
    from viewer.render.scene_mesh import load_scene_mesh

    work = Path(tempfile.mkdtemp(prefix="gst-bench-import-"))
    try:
        mesh_path, traj_path = make_inputs(work, args.triangles, args.poses)
        print(f"inputs: {mesh_path.stat().st_size / 1e6:.1f} MB PLY of {args.triangles:,} triangles, "
              f"{args.poses:,} TUM poses")
        # Warm-up, not timed: imports trimesh, open3d and OpenCV once, as a running window has.
        import_scene(ImportRequest(str(work / "warm"), mesh=str(mesh_path), trajectory=str(traj_path)))
        runs: dict[str, list[float]] = {k: [] for k in ("import", "baseline", "maps", "maps baseline")}
        steps: dict[str, list[float]] = {}
        for k in range(args.repeat):
            out = work / f"out{k}"
            seconds, result = timed(import_scene, ImportRequest(str(out), mesh=str(mesh_path),
                                                                trajectory=str(traj_path), trajectory_format="tum"))
            runs["import"].append(seconds)
            for step, s in result.timings.items():
                steps.setdefault(step, []).append(s)
            runs["baseline"].append(timed(trimesh.load, str(mesh_path))[0])
            maps_dir = work / f"maps{k}"
            maps_dir.mkdir()
            mesh = load_scene_mesh(mesh_path)
            runs["maps"].append(timed(render_maps, mesh, Scene("bench", str(maps_dir)), maps_dir)[0])
            runs["maps baseline"].append(timed(cast_only, load_scene_mesh(mesh_path))[0])   # no cached caster
            shutil.rmtree(out)
        med = {k: statistics.median(v) for k, v in runs.items()}
        print("runs: " + "; ".join(f"{k} " + " ".join(f"{x:.2f}" for x in v) for k, v in runs.items()))
        print(f"import (median of {args.repeat}):        {med['import']:.2f} s   "
              f"(trimesh.load of the same PLY: {med['baseline']:.2f} s, {med['import'] / med['baseline']:.1f}x)")
        print("  steps: " + ", ".join(f"{s} {statistics.median(v):.2f} s" for s, v in steps.items()))
        print(f"top-down maps (2 levels, 640x512): {med['maps']:.2f} s   "
              f"(ray casting alone: {med['maps baseline']:.2f} s, {med['maps'] / med['maps baseline']:.1f}x)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
