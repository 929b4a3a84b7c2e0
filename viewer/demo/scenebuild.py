"""One demo scene, built and rendered: apartment, walk, video frames, maps, query views.

Everything a question writer needs to know is measured here by ray casting
(viewer.render): which instances each video frame shows and where
(pixel counts and 2D boxes), and which instances each candidate query view
shows. Poses are rounded to the precision scene.json stores, before any
rendering, so the files and the measurements agree exactly.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from viewer.core.diagnostics import UserError
from viewer.render.raycast import Raycaster, instance_bboxes_2d
from viewer.render.scene_mesh import SceneMesh, load_scene_mesh
from viewer.render.topdown import LEVELS, fit_world_to_pixel, render_topdown

from .apartment import Apartment, make_apartment
from .textures import SurfaceTextures
from .trajectory import FreeFloor, NoWalk, Walk, camera_poses, plan_walk, viewpoint_candidates

POSE_DECIMALS = 6
APPEAR_FILL = 0.25


@dataclass(frozen=True)
class DemoConfig:
    # Video and view size. The published release is 640x512; the bundled demo keeps 400x320 because
    # its questions (which views see their targets) were drawn at that size, and a release that
    # rebuilds its map from the answers is checked against them (tests/test_reconstruct.py).
    width: int = 400
    height: int = 320
    hfov_deg: float = 90.0
    # Dark instance outlines make mp4v (whose quality OpenCV cannot set) ~35 % larger;
    # shading alone keeps walls and furniture faces apart.
    outlines: bool = False
    map_width: int = 640             # top-down maps, as published
    map_height: int = 512
    fps: int = 10
    per_column: int = 2              # questions per scene and Table-1 column
    viewpoints: int = 32             # candidate query views per scene (some are discarded)
    distractors: int = 4             # map-only apartments for the top-down options
    appear_fraction: float = 0.002   # share of the image an instance must cover to "appear" in a frame
    target_fraction: float = 0.02    # ... at its best frame, to be a visual target (a clear red box)
    view_min_depth: float = 1.5      # a query view must not stare at a wall (median depth, m) ...
    view_min_objects: float = 0.04   # ... and must show furniture (share of the image)
    # Procedural materials on every surface (demo/textures.py), so the videos carry features for
    # structure from motion as real footage does. Appearance only: no question depends on it.
    textured: bool = False

    def intrinsics(self) -> dict:
        f = self.width / 2 / np.tan(np.radians(self.hfov_deg) / 2)
        return {"width": self.width, "height": self.height, "fx": round(float(f), 4),
                "fy": round(float(f), 4), "cx": self.width / 2, "cy": self.height / 2}


@dataclass
class View:
    name: str                        # "pos_3_orient_7"
    pose: np.ndarray                 # OpenCV camera-to-world (rounded)
    color: np.ndarray                # (H, W, 3) RGB
    visible: dict[str, int]          # instance id -> pixels


@dataclass
class BuiltScene:
    id: str                          # "scene_1"
    number: int
    folder: Path
    convention: str                  # how scene.json stores poses: "opencv" or "opengl"
    apt: Apartment
    walk: Walk
    poses: np.ndarray                # (N, 4, 4) OpenCV camera-to-world (rounded)
    intrinsics: dict
    mesh: SceneMesh
    world_to_pixel: np.ndarray       # (2, 3), for all three map levels
    maps: dict[str, np.ndarray]      # level -> RGB image
    frames: list[np.ndarray]         # RGB video frames
    pixels: np.ndarray               # (N, I) visible pixels per frame and mesh instance
    boxes: list[dict[int, list[int]]]  # per frame: mesh instance -> [x0, y0, x1, y1]
    box_area: np.ndarray             # (N, I) pixels inside each of those boxes (0: not seen)
    views: dict[str, View] = field(default_factory=dict)

    def index(self, iid: str) -> int:
        i = self.mesh.index_of(iid)
        if i is None:
            raise KeyError(f"{iid} is not in the mesh of {self.id}")
        return i

    def appears(self, min_pixels: int, frames: slice = slice(None)) -> np.ndarray:
        """(n, I) bool: the instance is recognisably in the frame.

        Enough pixels, and they fill at least a quarter of their box: a few
        pixels peeking out around an occluder would put the red box around
        the occluder instead.
        """
        px, area = self.pixels[frames], self.box_area[frames]
        return (px >= min_pixels) & (px >= APPEAR_FILL * area)

    def appear_frames(self, iid: str, min_pixels: int) -> np.ndarray:
        return np.flatnonzero(self.appears(min_pixels)[:, self.index(iid)])


def _rounded(poses: np.ndarray) -> np.ndarray:
    return np.round(poses, POSE_DECIMALS)


def fit_map(apt: Apartment, cfg: DemoConfig) -> np.ndarray:
    x0, y0, x1, y1 = apt.bounds
    W = fit_world_to_pixel((x0, y0), (x1, y1), cfg.map_width, cfg.map_height, margin=16)
    return np.round(W, POSE_DECIMALS)


def render_maps(apt: Apartment, mesh: SceneMesh, W: np.ndarray, cfg: DemoConfig) -> dict[str, np.ndarray]:
    rooms = {i.id: i.room for i in apt.instances if i.category == "floors"}
    return {level: render_topdown(mesh, W, cfg.map_width, cfg.map_height, level, rooms=rooms)
            for level in LEVELS}


def load_mesh(apt: Apartment, glb: Path) -> SceneMesh:
    apt.export_glb(glb)
    return load_scene_mesh(glb, {i.id: i.category for i in apt.instances})


MAX_LAYOUT_ATTEMPTS = 20


def build_scene(number: int, folder: Path, rng: np.random.Generator, cfg: DemoConfig,
                log=lambda msg: None, texture_seed: int = 0) -> BuiltScene:
    scene_id = f"scene_{number}"
    folder.mkdir(parents=True, exist_ok=True)
    for _attempt in range(MAX_LAYOUT_ATTEMPTS):
        # A layout whose furniture blocks a door is drawn again from the same
        # generator, so a seed still gives one release.
        apt = make_apartment(rng, scene_id)
        floor = FreeFloor(apt)
        try:
            walk = plan_walk(apt, floor, rng)
            break
        except NoWalk as e:
            log(f"{e}; drawing another layout")
    else:
        raise UserError(f"{scene_id}: no walkable layout in {MAX_LAYOUT_ATTEMPTS} attempts; try another --seed")
    mesh = load_mesh(apt, folder / "scene.glb")
    caster = Raycaster(mesh)
    texture = SurfaceTextures.for_apartment(mesh, apt, texture_seed) if cfg.textured else None
    K = cfg.intrinsics()
    W = fit_map(apt, cfg)
    maps = render_maps(apt, mesh, W, cfg)

    poses = _rounded(walk.poses())
    log(f"{scene_id}: {len(apt.rooms)} rooms, {len(apt.objects())} objects, rendering {len(poses)} frames")
    frames, boxes = [], []
    pixels = np.zeros((len(poses), len(mesh.instance_ids)), np.int64)
    area = np.zeros_like(pixels)
    for k, pose in enumerate(poses):
        r = caster.render_view(pose, K, outlines=cfg.outlines, texture=texture)
        frames.append(r.color)
        pixels[k] = np.bincount(r.instance.ravel() + 1, minlength=len(mesh.instance_ids) + 1)[1:]
        boxes.append(instance_bboxes_2d(r.instance))
        for i, (x0, y0, x1, y1) in boxes[-1].items():
            area[k, i] = (x1 - x0 + 1) * (y1 - y0 + 1)

    built = BuiltScene(scene_id, number, folder, "opengl" if number % 2 == 0 else "opencv",
                       apt, walk, poses, K, mesh, W, maps, frames, pixels, boxes, area)
    structure = mesh.kind_mask("wall", "floor", "ceiling")
    for n, (xy, orient) in enumerate(viewpoint_candidates(apt, floor, walk, rng, cfg.viewpoints)):
        pose = _rounded(camera_poses(xy, np.radians(30.0 * orient))[0])
        r = caster.render_view(pose, K, outlines=cfg.outlines, texture=texture)
        depth = r.depth[np.isfinite(r.depth)]
        if len(depth) == 0 or np.median(depth) < cfg.view_min_depth:
            continue
        counts = np.bincount(r.instance.ravel() + 1, minlength=len(mesh.instance_ids) + 1)[1:]
        if counts[~structure].sum() < cfg.view_min_objects * cfg.width * cfg.height:
            continue                        # a bare wall or corner: nothing to recognise
        visible = {mesh.instance_ids[i]: int(counts[i]) for i in np.flatnonzero(counts)}
        name = f"pos_{n}_orient_{orient}"
        built.views[name] = View(name, pose, r.color, visible)
    return built


def build_distractor(number: int, folder: Path, rng: np.random.Generator, cfg: DemoConfig) -> dict[str, np.ndarray]:
    """Top-down maps of an apartment that is not in the release (top-down options only)."""
    apt = make_apartment(rng, f"apartment_{number}")
    folder.mkdir(parents=True, exist_ok=True)
    glb = folder / "apartment.glb"
    mesh = load_mesh(apt, glb)
    glb.unlink()                    # only the maps are shipped
    return render_maps(apt, mesh, fit_map(apt, cfg), cfg)
