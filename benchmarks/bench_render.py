"""How fast CPU ray casting renders a 640x512 view, against open3d's raw cast_rays.

Builds a furnished multi-room apartment from trimesh primitives (~100k
triangles, round furniture tessellated finely like scanned assets), then, in
one run and interleaved so machine load hits both alike:
  - raw: RaycastingScene.cast_rays on the exact rays render_view casts;
  - render_view: rays + cast + instance/colour/shading/outlines;
and reports the medians, rays per second and their ratio (aim: <= 1.5).
Also times batched visible-pixel counts and the three top-down levels.

    .venv/bin/python benchmarks/bench_render.py [--repeats 15]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

W, H = 640, 512
INTR = (W, H, 480.0, 480.0, W / 2, H / 2)


def build_apartment(path: Path, nx: int = 4, ny: int = 3, room: float = 4.0, seed: int = 0) -> None:
    import trimesh

    rng = np.random.default_rng(seed)
    scene = trimesh.Scene()

    def box(ext, centre):
        return trimesh.creation.box(extents=ext).apply_translation(centre)

    def add(name, *parts):
        scene.add_geometry(trimesh.util.concatenate(parts), node_name=name, geom_name=name)

    sx, sy, wall_h = nx * room, ny * room, 2.7
    walls = [box([sx + 0.1, 0.1, wall_h], [sx / 2, y * room, wall_h / 2]) for y in range(ny + 1)]
    walls += [box([0.1, sy + 0.1, wall_h], [x * room, sy / 2, wall_h / 2]) for x in range(nx + 1)]
    add("wall_0", *walls)
    add("ceiling_0", box([sx, sy, 0.1], [sx / 2, sy / 2, wall_h + 0.05]))
    k = 0
    for i in range(nx):
        for j in range(ny):
            x0, y0 = i * room, j * room
            add(f"floor_room{i}{j}_0", box([room, room, 0.1], [x0 + room / 2, y0 + room / 2, -0.05]))
            for _ in range(4):
                cx, cy = x0 + rng.uniform(0.8, room - 0.8), y0 + rng.uniform(0.8, room - 0.8)
                kind = k % 4
                if kind == 0:     # round table on a pedestal
                    parts = [trimesh.creation.cylinder(radius=0.5, height=0.04, sections=128)
                             .apply_translation([cx, cy, 0.74]),
                             trimesh.creation.cylinder(radius=0.06, height=0.72, sections=64)
                             .apply_translation([cx, cy, 0.36])]
                    add(f"table_abcdef_{k}", *parts)
                elif kind == 1:   # a plant: pot and a dense crown
                    parts = [trimesh.creation.cylinder(radius=0.2, height=0.4, sections=64)
                             .apply_translation([cx, cy, 0.2]),
                             trimesh.creation.icosphere(subdivisions=4, radius=0.4)
                             .apply_translation([cx, cy, 0.85])]
                    add(f"potted_plant_ghijkl_{k}", *parts)
                elif kind == 2:   # sofa
                    add(f"sofa_mnopqr_{k}", box([1.8, 0.8, 0.45], [cx, cy, 0.225]),
                        box([1.8, 0.2, 0.8], [cx, cy + 0.4, 0.4]),
                        trimesh.creation.capsule(radius=0.12, height=0.7, count=[48, 48])
                        .apply_translation([cx, cy, 0.6]))
                else:             # floor lamp
                    add(f"floor_lamp_stuvwx_{k}",
                        trimesh.creation.cylinder(radius=0.03, height=1.6, sections=32)
                        .apply_translation([cx, cy, 0.8]),
                        trimesh.creation.icosphere(subdivisions=4, radius=0.22)
                        .apply_translation([cx, cy, 1.65]))
                k += 1
    path.write_bytes(scene.export(file_type="glb"))


def eye_poses(n: int, nx: int = 4, ny: int = 3, room: float = 4.0, seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    poses = []
    for _ in range(n):
        eye = np.array([rng.uniform(0.3, nx * room - 0.3), rng.uniform(0.3, ny * room - 0.3), 1.5])
        yaw, pitch = rng.uniform(0, 2 * np.pi), np.radians(-10)
        fwd = np.array([np.cos(yaw) * np.cos(pitch), np.sin(yaw) * np.cos(pitch), np.sin(pitch)])
        right = np.cross(fwd, [0, 0, 1])
        right /= np.linalg.norm(right)
        m = np.eye(4)
        m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = right, np.cross(fwd, right), fwd, eye
        poses.append(m)
    return poses


def median_ms(samples: list[float]) -> float:
    return 1000 * statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()

    import open3d as o3d

    from viewer.render.raycast import Raycaster
    from viewer.render.scene_mesh import load_scene_mesh
    from viewer.render.topdown import fit_world_to_pixel, render_topdown

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench_apartment.glb"
        build_apartment(path)
        t = time.perf_counter()
        mesh = load_scene_mesh(path)
        load_s = time.perf_counter() - t
    t = time.perf_counter()
    caster = Raycaster(mesh)
    caster.cast(np.array([[0, 0, 10, 0, 0, -1]], np.float32))    # open3d builds the BVH on first use
    bvh_s = time.perf_counter() - t
    print(f"scene: {len(mesh.triangles)} triangles, {len(mesh.instance_ids)} instances; "
          f"load {load_s * 1000:.0f} ms, BVH {bvh_s * 1000:.0f} ms")

    poses = eye_poses(args.repeats)
    raw_rays = [o3d.core.Tensor(caster.camera_rays(p, INTR)[0]) for p in poses]
    caster.render_view(poses[0], INTR)                       # warm caches and threads
    caster._scene.cast_rays(raw_rays[0])
    raw, render = [], []
    for pose, rays in zip(poses, raw_rays):
        t = time.perf_counter()
        caster._scene.cast_rays(rays)
        raw.append(time.perf_counter() - t)
        t = time.perf_counter()
        caster.render_view(pose, INTR)
        render.append(time.perf_counter() - t)
    n_rays = W * H
    raw_ms, render_ms = median_ms(raw), median_ms(render)
    print(f"raw cast_rays      {W}x{H}: median {raw_ms:7.1f} ms  {n_rays / raw_ms / 1e3:6.2f} Mrays/s")
    print(f"render_view        {W}x{H}: median {render_ms:7.1f} ms  {n_rays / render_ms / 1e3:6.2f} Mrays/s")
    print(f"ratio render_view / raw: {render_ms / raw_ms:.2f}x (aim <= 1.5x)")

    frames = eye_poses(60, seed=2)
    t = time.perf_counter()
    caster.visible_pixel_counts_batch(frames, INTR, stride=4)
    batch_s = time.perf_counter() - t
    print(f"visible_pixel_counts_batch, 60 frames, stride 4: {batch_s * 1000:.0f} ms "
          f"({batch_s / 60 * 1000:.1f} ms/frame)")

    lo, hi = mesh.bounds()
    Wm = fit_world_to_pixel(lo[:2], hi[:2], W, H, margin=16)
    for level in ("photo", "occupancy", "floorplan"):
        render_topdown(mesh, Wm, W, H, level)                 # first call builds its BVHs
        times = []
        for _ in range(5):
            t = time.perf_counter()
            render_topdown(mesh, Wm, W, H, level)
            times.append(time.perf_counter() - t)
        print(f"render_topdown {level:9s} {W}x{H}: median {median_ms(times):7.1f} ms")


if __name__ == "__main__":
    main()
