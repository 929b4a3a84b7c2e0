"""Top-down maps of a scene at the paper's three abstraction levels, by orthographic ray casting.

- "photo": the scene seen from straight above with the ceilings removed,
  flat instance colours shaded by height and a low light for relief;
- "occupancy": white where a person can stand, black for obstacles, walls
  and outside, like the published 640x512 maps;
- "floorplan": walls only, dark on white, floors lightly tinted per room.

Occupancy and floor plan are a horizontal slice at body height, not the
view from above: a lintel over a door or a lamp hanging from the ceiling
must not close the doorway or block the floor under it. A pixel is inside
a solid at slice height when the nearest surface above or below it is a
back face (its outward normal points along the ray), which holds for the
closed, outward-wound meshes trimesh writes.

Map pixels follow the spec: px = W @ [x, y, 1], pixel i covers [i, i + 1).
One storey only: the floor height is the top of the floor instances.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from viewer.core.geometry import pixel_to_world

from . import scene_colors
from .raycast import Raycaster, edge_mask
from .scene_mesh import SceneMesh

LEVELS = ("photo", "occupancy", "floorplan")
CLEARANCE = 0.10        # m above the floor still walkable (rugs, thresholds)
SLICE_HEIGHT = 1.7      # m above the floor where occupancy is sliced
PHOTO_BACKGROUND = (255, 255, 255)
SHADOW_LENGTH = 0.08    # m on the map
FLOORPLAN_WALL = (55, 55, 60)
FLOORPLAN_PAPER = (255, 255, 255)
# Photo relief: light from the upper left of the map, mostly from above.
_LIGHT = np.array([-0.35, 0.45, 1.0]) / np.linalg.norm([-0.35, 0.45, 1.0])


def fit_world_to_pixel(bounds_xy_min, bounds_xy_max, width: int, height: int,
                       margin: float = 16) -> np.ndarray:
    """The (2, 3) affine that fits a world xy rectangle into the image, centred.

    Uniform scale, image x = world x, image up = world +y (so the matrix mirrors y).
    """
    lo = np.asarray(bounds_xy_min, float)[:2]
    hi = np.asarray(bounds_xy_max, float)[:2]
    span = np.maximum(hi - lo, 1e-6)
    scale = min((width - 2 * margin) / span[0], (height - 2 * margin) / span[1])
    if scale <= 0:
        raise ValueError(f"margin {margin} leaves no room in a {width}x{height} image")
    centre = (lo + hi) / 2
    return np.array([[scale, 0.0, width / 2 - scale * centre[0]],
                     [0.0, -scale, height / 2 + scale * centre[1]]])


def _cached(scene_mesh: SceneMesh, key, build):
    if key not in scene_mesh._cache:
        scene_mesh._cache[key] = build()
    return scene_mesh._cache[key]


def _floor_top(scene_mesh: SceneMesh) -> tuple[float, bool]:
    """Height of the walkable floor, and whether the scene has floor instances at all."""
    floors = scene_mesh.kind_mask("floor")
    tri = floors[scene_mesh.triangle_instance]
    if tri.any():
        z = scene_mesh.vertices[scene_mesh.triangles[tri].ravel(), 2]
        return float(z.max()), True
    lo, _ = scene_mesh.bounds()
    return float(lo[2]), False


# The world xy of the last map's pixel centres: rendering a scene's levels casts four or five sets of
# vertical rays through one affine, and finding where they start cost as much as a cast.
_last_pixel_xy: tuple[tuple, np.ndarray] | None = None


def _pixel_xy(W, width: int, height: int) -> np.ndarray:
    """(height * width, 2) float32 world xy of the map's pixel centres, row by row (read-only)."""
    global _last_pixel_xy
    key = (np.asarray(W, float).tobytes(), width, height)
    last = _last_pixel_xy
    if last is not None and last[0] == key:
        return last[1]
    u, v = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    xy = pixel_to_world(W, np.stack([u, v], axis=-1).reshape(-1, 2)).astype(np.float32)
    xy.flags.writeable = False
    _last_pixel_xy = (key, xy)
    return xy


def _vertical_rays(W, width: int, height: int, z: float, direction: float) -> np.ndarray:
    xy = _pixel_xy(W, width, height)
    rays = np.zeros((len(xy), 6), np.float32)
    rays[:, :2] = xy
    rays[:, 2] = z
    rays[:, 5] = direction
    return rays


def render_topdown(scene_mesh: SceneMesh, world_to_pixel, width: int, height: int,
                   level: str = "photo", *, rooms: Mapping[str, str] | None = None,
                   color_by: str = "mesh") -> np.ndarray:
    """(height, width, 3) uint8 map of the scene through the affine `world_to_pixel`.

    `rooms` (instance id -> room name, scene.json's `room`) tints floors in the floor plan;
    `color_by` ("mesh" or "instance") picks the photo level's colours as in render_view.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown top-down level {level!r}; expected one of {LEVELS}")
    W = np.asarray(world_to_pixel, float).reshape(2, 3)
    no_ceiling = _cached(scene_mesh, "topdown_raycaster", lambda: Raycaster(
        scene_mesh.without_instances(scene_mesh.kind_mask("ceiling"))))
    if level == "photo":
        return _photo(scene_mesh, no_ceiling, W, width, height, color_by)
    floor_z, has_floor = _floor_top(scene_mesh)
    # Occupancy and floor plan share the slice: rendering both (an import does) casts it once.
    free, wall_hit = _cached(scene_mesh, ("slice", W.tobytes(), width, height), lambda: _slice(
        scene_mesh, no_ceiling, W, width, height, floor_z, has_floor))
    if level == "occupancy":
        return np.repeat(np.where(free, 255, 0).astype(np.uint8)[..., None], 3, axis=2)
    return _floorplan(scene_mesh, W, width, height, wall_hit, floor_z, rooms)


def _photo(scene_mesh: SceneMesh, caster: Raycaster, W, width: int, height: int,
           color_by: str) -> np.ndarray:
    lo, hi = caster.mesh.bounds()
    top = float(hi[2]) + 1.0
    hit = caster.cast(_vertical_rays(W, width, height, top, -1.0))
    prim = hit["primitive_ids"]
    seen = prim >= 0
    floor_z, _ = _floor_top(scene_mesh)
    z = (top - hit["t_hit"]).reshape(height, width)
    rel = np.clip((z - floor_z) / max(float(hi[2]) - floor_z, 1e-3), 0.0, 1.0)
    normals = hit["primitive_normals"] * np.where(hit["primitive_normals"][:, 2:3] < 0, -1.0, 1.0)
    relief = (0.7 + 0.3 * np.clip(normals @ _LIGHT, 0.0, 1.0)).reshape(height, width)
    shade = (0.9 + 0.2 * rel) * relief * _drop_shadow(np.where(np.isfinite(z), z, floor_z), W)
    instance = caster.instance_of(prim)
    table = caster.triangle_color_table(color_by).copy()
    walls = caster.mesh.kind_mask("wall")[caster.mesh.triangle_instance]
    table[:-1][walls] = scene_colors.WALL_TOP_COLOR
    color = table[prim].reshape(height, width, 3) * shade[..., None]
    color[~seen.reshape(height, width)] = PHOTO_BACKGROUND
    edges = edge_mask(instance.reshape(height, width), hit["t_hit"].reshape(height, width))
    color *= np.where(edges, 0.6, 1.0)[..., None]
    return np.clip(color, 0, 255).astype(np.uint8)


def _drop_shadow(z: np.ndarray, W) -> np.ndarray:
    """Darkening where something taller stands toward the light: furniture casts a short shadow."""
    scale = float(np.sqrt(abs(np.linalg.det(W[:, :2]))))       # pixels per metre
    shift = max(1, int(round(SHADOW_LENGTH * scale)))
    # The light is up-left on the map, so the shadow falls down-right: compare with the up-left pixel.
    caster_z = np.full_like(z, -np.inf)
    caster_z[shift:, shift:] = z[:-shift, :-shift]
    return np.where(caster_z - z > 0.2, 0.72, 1.0)


def _slice(scene_mesh: SceneMesh, caster: Raycaster, W, width: int, height: int,
           floor_z: float, has_floor: bool) -> tuple[np.ndarray, np.ndarray]:
    """(free, wall) masks (H, W) of the horizontal slice at SLICE_HEIGHT above the floor."""
    z0 = floor_z + SLICE_HEIGHT
    down = caster.cast(_vertical_rays(W, width, height, z0, -1.0))
    up = caster.cast(_vertical_rays(W, width, height, z0, 1.0))
    kinds = np.array([{"wall": 1, "floor": 2}.get(k, 0) for k in scene_mesh.instance_kinds] + [0], np.int8)
    down_inst = caster.instance_of(down["primitive_ids"])
    up_inst = caster.instance_of(up["primitive_ids"])
    # Back faces: leaving a solid through its bottom going down, or its top going up.
    inside = ((down["primitive_ids"] >= 0) & (down["primitive_normals"][:, 2] < -0.5)) | \
             ((up["primitive_ids"] >= 0) & (up["primitive_normals"][:, 2] > 0.5))
    ground_z = z0 - down["t_hit"]
    if has_floor:
        on_ground = (down["primitive_ids"] >= 0) & (ground_z <= floor_z + CLEARANCE)
    else:
        # No floor instance: the open space inside the scene's footprint counts as floor.
        lo, hi = scene_mesh.bounds()
        rays_xy = _vertical_rays(W, width, height, 0.0, -1.0)[:, :2]
        within = ((rays_xy >= lo[:2]) & (rays_xy <= hi[:2])).all(axis=1)
        on_ground = within & ((down["primitive_ids"] < 0) | (ground_z <= floor_z + CLEARANCE))
    free = on_ground & ~inside & (kinds[down_inst] != 1)
    wall = ((kinds[down_inst] == 1) & (inside | (ground_z > floor_z + CLEARANCE))) | \
           ((kinds[up_inst] == 1) & inside)
    return free.reshape(height, width), wall.reshape(height, width)


def _floorplan(scene_mesh: SceneMesh, W, width: int, height: int, wall: np.ndarray,
               floor_z: float, rooms: Mapping[str, str] | None) -> np.ndarray:
    image = np.empty((height, width, 3), np.uint8)
    image[:] = FLOORPLAN_PAPER
    if rooms:
        floors = scene_mesh.kind_mask("floor")
        only_floors = _cached(scene_mesh, "floor_raycaster",
                              lambda: Raycaster(scene_mesh.without_instances(~floors)))
        hit = only_floors.cast(_vertical_rays(W, width, height, floor_z + 1.0, -1.0))
        inst = only_floors.instance_of(hit["primitive_ids"]).reshape(height, width)
        room_of = [rooms.get(i, i) for i in scene_mesh.instance_ids]
        tint = scene_colors.room_tints(room_of[k] for k in np.flatnonzero(floors))
        tints = np.array([tint.get(r, FLOORPLAN_PAPER) for r in room_of] + [FLOORPLAN_PAPER], np.uint8)
        image[:] = tints[inst]
    image[wall] = FLOORPLAN_WALL
    return image
