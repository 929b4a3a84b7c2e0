"""Procedural surface textures for the demo's renders (`make-demo --textured`).

Flat-shaded renders hold 50-100 SIFT keypoints a frame, too few for structure
from motion to follow the camera (issue 33). Here every surface gets a
material: wood grain, floor tiles, sponge-painted wallpaper with pictures, fabric, plaster.
A material is one function of the 3D hit point, its normal, the surface's own
colour and a seed, so the pattern is fixed to the surface (the same wall
spot has the same colour in every frame, as SfM needs) and the same seed
gives the same bytes. The mesh colours stay the mean tone, so objects keep
the look (and the category colours) of the flat render.

All patterns are 2D, in the plane of the face's dominant axis (every wall,
floor and ceiling of the demo is axis-aligned; furniture faces turned by a
yaw are sampled in the nearer axis plane). Per-cell choices (a tile's shade,
a wall's tint, where a picture hangs) hash the cell's integer coordinates
with the seed; smooth noise is looked up in a periodic table of value noise
drawn from the seed. All vectorised over the pixels that hit. Patterns are
mostly 2 cm and larger, about a pixel at 3 m at the demo's 400x320 (the
grout, board seams and panel joints are thinner lines), so they alias little
from frame to frame; there is no supersampling.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np

# (points (N, 3) world m, normals (N, 3), base colours (N, 3) 0..255, seed) -> colours (N, 3) 0..255
Material = Callable[[np.ndarray, np.ndarray, np.ndarray, int], np.ndarray]

_M1, _M2, _M3 = np.uint32(0x27D4EB2D), np.uint32(0x165667B1), np.uint32(0x9E3779B1)
_INV24 = np.float32(1.0 / (1 << 24))


def _hash(ix: np.ndarray, iy: np.ndarray, seed) -> np.ndarray:
    """uint32 hash of integer lattice points and a seed (one, or one per point): the same cell,
    the same value, everywhere."""
    h = ix.astype(np.uint32) * _M1
    h ^= iy.astype(np.uint32) * _M2
    h += (np.asarray(seed, np.int64) & 0xFFFFFFFF).astype(np.uint32)
    h ^= h >> 15
    h *= _M3
    h ^= h >> 13
    h *= _M1
    h ^= h >> 16
    return h


def cell_random(ix: np.ndarray, iy: np.ndarray, seed: int) -> np.ndarray:
    """float32 in [0, 1) per lattice cell."""
    return (_hash(ix, iy, seed) >> 8).astype(np.float32) * _INV24


# Noise is looked up, not computed per pixel: four octaves of value noise cost ~40 array passes
# a pixel, a bilinear lookup in a table of them ~12. The table tiles every TABLE_UNITS noise
# units (21 m at the coarsest scale a material uses), far beyond a room.
TABLE_UNITS = 64
TABLE_RES = 16                           # samples per noise unit: 4 per cycle of the finest octave
_TABLE_N = TABLE_UNITS * TABLE_RES


@lru_cache(maxsize=4)
def _noise_table(seed: int) -> np.ndarray:
    """(N + 1, N + 1) float32 periodic fbm, the last row and column repeating the first."""
    g = np.arange(_TABLE_N, dtype=np.float32) / TABLE_RES
    u, v = np.meshgrid(g, g)
    # Periodic: lattice coordinates wrap at TABLE_UNITS at every octave (2^k * TABLE_UNITS).
    total = np.zeros_like(u)
    amp, norm = 1.0, 0.0
    for k in range(4):
        total += np.float32(amp) * _periodic_noise(u * (1 << k), v * (1 << k), seed + 7919 * k,
                                                   TABLE_UNITS << k)
        norm += amp
        amp *= 0.5
    total *= np.float32(1.0 / norm)
    return np.pad(total, ((0, 1), (0, 1)), mode="wrap")


def _periodic_noise(u: np.ndarray, v: np.ndarray, seed: int, period: int) -> np.ndarray:
    fu, fv = np.floor(u), np.floor(v)
    iu, iv = fu.astype(np.int32), fv.astype(np.int32)
    tu, tv = u - fu, v - fv
    tu = tu * tu * (3.0 - 2.0 * tu)
    tv = tv * tv * (3.0 - 2.0 * tv)
    iu1, iv1 = (iu + 1) % period, (iv + 1) % period
    a, b = cell_random(iu, iv, seed), cell_random(iu1, iv, seed)
    c, d = cell_random(iu, iv1, seed), cell_random(iu1, iv1, seed)
    return a + (b - a) * tu + (c - a) * tv + (a - b - c + d) * (tu * tv)


def fbm(u: np.ndarray, v: np.ndarray, seed: int) -> np.ndarray:
    """Four octaves of value noise in [0, 1) at (u, v) noise units, from the seed's table (bilinear)."""
    table = _noise_table(int(seed) & 0x7FFFFFFF)
    x = u * np.float32(TABLE_RES)
    y = v * np.float32(TABLE_RES)
    fx, fy = np.floor(x), np.floor(y)
    tx, ty = x - fx, y - fy
    ix = fx.astype(np.int64) % _TABLE_N
    iy = fy.astype(np.int64) % _TABLE_N
    flat = table.ravel()
    at = iy * (_TABLE_N + 1) + ix
    a, b = flat[at], flat[at + 1]
    c, d = flat[at + _TABLE_N + 1], flat[at + _TABLE_N + 2]
    return a + (b - a) * tx + (c - a) * ty + (a - b - c + d) * (tx * ty)


def planar(points: np.ndarray, normals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(u, v, w, face): coordinates in the plane across the normal's dominant axis (v up on walls),
    the coordinate along it, and a face code (axis * 2 + sign) so opposite faces differ."""
    a = np.abs(normals)
    zdom = a[:, 2] >= np.maximum(a[:, 0], a[:, 1])
    xdom = a[:, 0] >= a[:, 1]
    xdom &= ~zdom
    ydom = ~(zdom | xdom)
    x, y, z = points.T
    u = np.where(xdom, y, x)
    v = np.where(zdom, y, z)
    w = np.where(zdom, z, np.where(xdom, x, y))
    n = np.where(zdom, normals[:, 2], np.where(xdom, normals[:, 0], normals[:, 1]))
    face = zdom.astype(np.int32) * 4 + ydom.astype(np.int32) * 2 + (n > 0)       # axis * 2 + side
    return u, v, w, face


def _offset(face: np.ndarray, scale: float) -> np.ndarray:
    """A float32 shift of the noise per face code, so the faces of a box do not share a pattern."""
    return face.astype(np.float32) * np.float32(scale)


def _shade(base: np.ndarray, factor: np.ndarray) -> np.ndarray:
    return base * factor[:, None]


def _mix(a: np.ndarray, b, t: np.ndarray) -> np.ndarray:
    return a + (np.asarray(b, np.float32) - a) * t[:, None]


# ------------------------------------------------------------------ materials
def plaster(points, normals, base, seed):
    """Painted plaster: soft blotches and a fine grain, ±15 % around the colour."""
    u, v, _, face = planar(points, normals)
    o = _offset(face, 11.37)
    f = fbm(u * 3.0 + o, v * 3.0 + o, seed)
    return _shade(base, 0.82 + 0.34 * f)


def ceiling(points, normals, base, seed):
    """Plaster in 0.6 m ceiling panels, their joints darker."""
    u, v, _, _ = planar(points, normals)
    out = plaster(points, normals, base, seed)
    ju, jv = np.abs(u / 0.6 - np.round(u / 0.6)), np.abs(v / 0.6 - np.round(v / 0.6))
    joint = np.minimum(ju, jv) < 0.012
    out[joint] *= 0.72
    return out


def wallpaper(points, normals, base, seed):
    """Sponge-painted wallpaper: a tint per wall face, irregular blots at two scales that never repeat
    (thresholded noise, offset per wall), and framed pictures on some stretches at eye height. A
    periodic motif (the first version's rows of discs) gave SIFT the same descriptor at every disc:
    matches between frames went to the wrong disc, and the path broke in small rooms (issue 33)."""
    u, v, w, face = planar(points, normals)
    # Wall faces lie on a 1 cm grid (room corners rounded to cm, walls 10 cm thick): bins of 0.37 m
    # from 0.1234 never split one, so a face keeps one bin in every frame.
    wall = np.floor((w - 0.1234) / 0.37).astype(np.int32) * 8 + face
    tint = cell_random(wall, face, seed + 11)
    o = (wall % 997).astype(np.float32) * np.float32(3.71)         # each wall its own stretch of noise
    big = fbm(u * 3.0 + o, v * 3.0 + o * 0.61, seed + 101)
    small = fbm(u * 7.0 + o * 1.37, v * 7.0, seed + 103)
    blot = np.clip((big - 0.55) * 20.0, 0.0, 1.0)                 # crisp-edged, irregular
    fleck = np.clip((small - 0.58) * 24.0, 0.0, 1.0)
    factor = (0.88 + 0.12 * tint) * (1.0 - 0.34 * blot) * (1.0 - 0.28 * fleck)
    factor *= 0.9 + 0.2 * fbm(u * 1.2 + _offset(face, 13.1), v * 1.2, seed)
    return _pictures(_shade(base, factor), u, v, wall, seed)


def _two_randoms(ix: np.ndarray, iy: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two independent float32 in [0, 1) per lattice cell from one hash (12 bits each)."""
    h = _hash(ix, iy, seed)
    return ((h >> 8) & 0xFFF).astype(np.float32) * np.float32(1 / 4096), \
        (h >> 20).astype(np.float32) * np.float32(1 / 4096)


def _pictures(out, u, v, wall, seed):
    """A framed picture in some 1.4 m stretches of wall, between 1.05 and 1.9 m up."""
    band = np.flatnonzero((v > 1.05) & (v < 1.9))
    u, v, wall = u[band], v[band], wall[band]
    span = 1.4
    fcell = np.floor(u / span)
    cell = fcell.astype(np.int32)
    r1, r2 = _two_randoms(cell, wall, seed + 23)
    width = 0.35 + 0.5 * r2
    x0 = fcell * span + 0.1 + (span - 0.2 - width) * r1
    y0 = 1.05 + 0.25 * r2
    y1 = y0 + 0.45 + 0.2 * r1
    inside = np.flatnonzero((r1 < 0.45) & (u > x0) & (u < x0 + width) & (v > y0) & (v < y1))
    if len(inside) == 0:
        return out
    pu, pv, pc = u[inside], v[inside], cell[inside] * 97 + wall[inside]
    x0, y0, y1, width = x0[inside], y0[inside], y1[inside], width[inside]
    border = np.minimum(np.minimum(pu - x0, x0 + width - pu), np.minimum(pv - y0, y1 - pv)) < 0.03
    o = pc.astype(np.float32) * np.float32(7.3)
    hue = np.stack([fbm(pu * 5.0 + o + 23.9 * k, pv * 5.0 + 17.1 * k, seed) for k in range(3)], 1)
    art = 40.0 + 215.0 * hue
    art[border] = (45.0, 36.0, 30.0)
    out[band[inside]] = art
    return out


def _wood(u, v, base, seed, plank_w: float | None):
    """Grain along u; with plank_w, planks across v of staggered length with dark seams."""
    tone = np.ones_like(u)
    if plank_w:
        frow = np.floor(v / plank_w)
        row = frow.astype(np.int32)
        shift = cell_random(row, np.zeros_like(row), seed + 41) * 1.3
        fcol = np.floor((u + shift) / 1.3)
        col = fcol.astype(np.int32)
        tone = 0.8 + 0.35 * cell_random(col, row, seed + 43)
        fu, fv = (u + shift) / 1.3 - fcol, v / plank_w - frow
        seam = (np.minimum(fv, 1.0 - fv) * plank_w < 0.004) | (np.minimum(fu, 1.0 - fu) * 1.3 < 0.004)
        tone = np.where(seam, 0.45, tone)
    warp = fbm(u * 0.8, v * 6.0 + 3.3, seed)
    rings = (v + 0.05 * warp) * 30.0 + 3.0 * warp
    grain = np.abs(rings - np.floor(rings) - 0.5) * 2.0                     # 0..1 triangle wave
    knots = fbm(u * 4.0 + 9.1, v * 9.0, seed)
    return _shade(base, tone * (0.78 + 0.2 * grain + 0.2 * knots))


def wood(points, normals, base, seed):
    """Furniture wood: grain along the horizontal, knots, no seams."""
    u, v, _, face = planar(points, normals)
    return _wood(u + _offset(face, 5.3), v, base, seed, None)


def wood_floor(points, normals, base, seed):
    """Floorboards 14 cm wide, staggered, with grain and a shade per board."""
    u, v, _, _ = planar(points, normals)
    return _wood(u, v, base, seed, 0.14)


def _tiles(points, normals, base, seed, size: float):
    u, v, _, face = planar(points, normals)
    su, sv = np.floor(u / size), np.floor(v / size)
    iu, iv = su.astype(np.int32), sv.astype(np.int32)
    fu, fv = u / size - su, v / size - sv
    grout = np.minimum(np.minimum(fu, 1.0 - fu), np.minimum(fv, 1.0 - fv)) * size < 0.005
    tone = 0.82 + 0.3 * cell_random(iu, iv + 7 * face, seed + 61)
    marble = fbm(u * 8.0 + _offset(face, 3.7), v * 8.0, seed)
    out = _shade(base, tone * (0.8 + 0.3 * marble))
    out[grout] = _mix(base[grout], (90.0, 90.0, 94.0), np.full(int(grout.sum()), 0.7, np.float32))
    return out


def tiles(points, normals, base, seed):
    """Kitchen floor: 30 cm tiles, a shade per tile, mottled, grey grout."""
    return _tiles(points, normals, base, seed, 0.30)


def small_tiles(points, normals, base, seed):
    """Bathroom floor: 20 cm tiles."""
    return _tiles(points, normals, base, seed, 0.20)


def fabric(points, normals, base, seed):
    """Upholstery: a woven check (two stripe sets at 6 cm) over soft mottling."""
    u, v, _, face = planar(points, normals)
    a = np.abs(u * (1.0 / 0.06) - np.floor(u * (1.0 / 0.06)) - 0.5)
    b = np.abs(v * (1.0 / 0.06) - np.floor(v * (1.0 / 0.06)) - 0.5)
    check = (a < 0.18).astype(np.float32) + (b < 0.18).astype(np.float32)
    mottle = fbm(u * 6.0 + _offset(face, 4.1), v * 6.0 + 1.7, seed)
    return _shade(base, 0.72 + 0.14 * check + 0.36 * mottle)


def ceramic(points, normals, base, seed):
    """Enamel, porcelain and appliances: faint speckle (real ones are nearly featureless too)."""
    u, v, _, face = planar(points, normals)
    return _shade(base, 0.9 + 0.14 * fbm(u * 10.0 + _offset(face, 2.9), v * 10.0, seed))


def foliage(points, normals, base, seed):
    """Leaves: strong light-dark blotches at 3-10 cm."""
    u, v, _, face = planar(points, normals)
    f = fbm(u * 14.0 + _offset(face, 6.1), v * 14.0, seed)
    return _shade(base, 0.55 + 0.8 * f)


MATERIALS: dict[str, Material] = {
    "plaster": plaster, "ceiling": ceiling, "wallpaper": wallpaper, "wood": wood,
    "wood_floor": wood_floor, "tiles": tiles, "small_tiles": small_tiles, "fabric": fabric,
    "ceramic": ceramic, "foliage": foliage,
}

# Structure by kind (floors by the room's kind); furniture by category; anything else: plaster.
STRUCTURE_MATERIAL = {"walls": "wallpaper", "ceilings": "ceiling"}
FLOOR_MATERIAL = {"kitchen": "tiles", "bathroom": "small_tiles"}      # other rooms: wood_floor
CATEGORY_MATERIAL = {
    **dict.fromkeys(("sofa", "armchair", "bed", "office_chair", "floor_lamp", "table_lamp"), "fabric"),
    **dict.fromkeys(("dining_table", "coffee_table", "chair", "desk", "bookshelf", "wardrobe",
                     "bottom_cabinet", "nightstand", "tv_stand"), "wood"),
    **dict.fromkeys(("fridge", "toilet", "bathtub", "sink", "television"), "ceramic"),
    "potted_plant": "foliage",
}
DEFAULT_MATERIAL = "plaster"


def material_of(category: str, room_kind: str | None = None) -> str:
    if category == "floors":
        return FLOOR_MATERIAL.get(room_kind or "", "wood_floor")
    return STRUCTURE_MATERIAL.get(category) or CATEGORY_MATERIAL.get(category, DEFAULT_MATERIAL)


class SurfaceTextures:
    """The textures of one scene: a material per triangle and a seed.

    Called by `Raycaster.render_view(texture=...)` with the pixels that hit:
    (points, normals, primitive ids, base colours) -> colours, all (N, 3) float32
    but the ids.
    """

    def __init__(self, triangle_instance: np.ndarray, instance_materials: list[str], seed: int):
        names = sorted(set(instance_materials))
        index = np.array([names.index(m) for m in instance_materials], np.uint8)
        self.names = names
        self.triangle_material = index[np.asarray(triangle_instance)]
        self.seed = int(seed) & 0x7FFFFFFF

    @classmethod
    def for_apartment(cls, mesh, apt, seed: int) -> "SurfaceTextures":
        """Materials of a demo apartment's mesh: by category, floors by their room's kind."""
        kinds = {r.name: r.kind for r in apt.rooms}
        by_id = {i.id: material_of(i.category, kinds.get(i.room)) for i in apt.instances}
        return cls(mesh.triangle_instance, [by_id[i] for i in mesh.instance_ids], seed)

    def __call__(self, points: np.ndarray, normals: np.ndarray, prim: np.ndarray,
                 base: np.ndarray) -> np.ndarray:
        mat = self.triangle_material[prim]
        out = np.empty_like(base)
        for k in np.flatnonzero(np.bincount(mat, minlength=len(self.names))):
            at = np.flatnonzero(mat == k)
            # np.take: row gathers at a third of the cost of fancy indexing
            out[at] = MATERIALS[self.names[k]](np.take(points, at, 0), np.take(normals, at, 0),
                                               np.take(base, at, 0), self.seed)
        return out
